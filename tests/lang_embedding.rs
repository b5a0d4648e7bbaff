//! The embedding API as the scene layer uses it, on the bundled pendulum example: element
//! commands registered natively see located, literal-aware arguments, bodies become commands,
//! and symbolic expressions parse with spans in the scene text.

use asgard::lang::ast::ExprKind;
use asgard::lang::{Arg, Exception, Interp, Limits, Span, Value};
use std::cell::RefCell;
use std::rc::Rc;

/// The arguments each element command was called with.
type Calls = Rc<RefCell<Vec<(String, Vec<Arg>)>>>;

fn scene_interp(calls: &Calls) -> Interp {
    let mut interp = Interp::new(Limits::default());
    for name in ["simulator", "shape_set", "link", "force"] {
        let calls = calls.clone();
        interp.register(name, move |_, args| {
            calls
                .borrow_mut()
                .push((args[0].value.to_string(), args.to_vec()));
            Ok(Value::empty())
        });
    }
    let record = calls.clone();
    interp.register("body", move |interp, args| {
        record.borrow_mut().push(("body".into(), args.to_vec()));
        let mass = args
            .windows(2)
            .find(|w| w[0].value.as_str() == "mass")
            .map_or_else(|| Value::from_int(1), |w| w[1].value.clone());
        interp.register(args[1].value.as_str(), move |_, a| match a.get(1) {
            Some(q) if q.value.as_str() == "mass" => Ok(mass.clone()),
            Some(q) => Err(Exception::error_at("unknown state variable", q.span)),
            None => Err(Exception::error("missing state variable")),
        });
        Ok(Value::empty())
    });
    interp
}

fn pendulum() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/pendulum.asg");
    std::fs::read_to_string(path).expect("example present")
}

#[test]
fn pendulum_scene_evaluates_with_located_literal_arguments() {
    let text = pendulum();
    let calls: Calls = Rc::default();
    let mut interp = scene_interp(&calls);
    interp.eval_source(&text).expect("pendulum evaluates");
    let calls = calls.borrow();
    let names: Vec<&str> = calls.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "simulator",
            "shape_set",
            "shape_set",
            "shape_set",
            "body",
            "body",
            "link",
            "link",
            "force",
            "force",
            "body"
        ]
    );
    // `shape_set box desc $faces1`: a computed argument, located at its word.
    let (_, box_args) = &calls[2];
    assert!(!box_args[3].literal);
    assert_eq!(
        &text[box_args[3].span.start..box_args[3].span.end],
        "$faces1"
    );
    assert_eq!(box_args[3].value.as_list().unwrap().len(), 12);
    // `body b1 … init_pos {5 0 0} …`: a literal whose value remembers its place.
    let (_, b1) = &calls[4];
    let pos = &b1[7];
    assert!(pos.literal);
    assert_eq!(&text[pos.span.start..pos.span.end], "{5 0 0}");
    let origin = pos.value.origin().expect("literal origin");
    assert_eq!(&text[origin.start..origin.end], "5 0 0");
    // Bodies became commands.
    assert!(interp.has_command("b3"));
    assert_eq!(
        interp.eval_value(&Value::from("b1 mass")).unwrap().as_str(),
        "10"
    );
}

#[test]
fn force_expressions_parse_with_spans_in_the_scene_text() {
    let text = pendulum();
    let calls: Calls = Rc::default();
    let mut interp = scene_interp(&calls);
    interp.eval_source(&text).expect("pendulum evaluates");
    let calls = calls.borrow();
    let (_, force) = calls.iter().find(|(n, _)| n == "force").expect("a force");
    let y = force
        .iter()
        .position(|a| a.value.as_str() == "y")
        .expect("y component")
        + 1;
    let expr = interp.parse_expr_arg(&force[y]).expect("expression parses");
    assert_eq!(&text[expr.span.start..expr.span.end], "-10 * [b1 mass]");
    let ExprKind::Binary(_, _, right) = &expr.kind else {
        panic!("a product")
    };
    assert_eq!(&text[right.span.start..right.span.end], "[b1 mass]");
    assert_eq!(interp.eval_expr(&force[y].value).unwrap().as_str(), "-100");
}

#[test]
fn errors_inside_loops_point_at_the_offending_word() {
    let text = "foreach b {b1 b2} {\n  body $b mass 1\n  $b bogus\n}";
    let calls: Calls = Rc::default();
    let mut interp = scene_interp(&calls);
    let e = interp.eval_source(text).unwrap_err();
    assert_eq!(e.message, "unknown state variable");
    assert_eq!(e.span, Span::new(42, 47));
    assert_eq!(
        e.diagnostic("s.asg", text),
        "s.asg:3:6: error: unknown state variable"
    );
}
