//! The contract with the simulator: every expression an example scene captures converts into a
//! symbolic expression, with `$t` and `[NAME ATTR]` as the only operands left to resolve, and
//! evaluates to what the same expression gives in plain Tcl with the initial state.

use asgard::lang::ast::Part;
use asgard::lang::span::Span;
use asgard::scene::model::{CameraValue, Expression, ForceValue, LinkTarget, Scene};
use asgard::scene::{evaluate, reference_words, Reference};
use asgard::sym::{from_ast, Error, Node, Pool, Symbol};
use std::path::Path;

/// Every expression of a scene.
fn expressions(s: &Scene) -> Vec<&Expression> {
    let mut all = Vec::new();
    for f in &s.forces {
        if let ForceValue::Components(v) = &f.value {
            all.extend(v.components());
        }
    }
    for l in &s.links {
        if let LinkTarget::Point(p) = &l.target {
            all.extend(p.components());
        }
    }
    if let Some(c) = &s.camera {
        for v in [&c.pos, &c.rot, &c.center] {
            if let CameraValue::Expressions(e) = v {
                all.extend(e.components());
            }
        }
    }
    all
}

/// The initial value of `[NAME ATTR]` in the scene (what the body command returns).
fn initial(s: &Scene, r: &Reference) -> f64 {
    let b = s.body(&r.name).expect("a body");
    let v = |v: &asgard::scene::model::Vec3, i: usize| v[i];
    match r.attr.as_str() {
        "x" => v(&b.init_pos.value, 0),
        "y" => v(&b.init_pos.value, 1),
        "z" => v(&b.init_pos.value, 2),
        "dx" => v(&b.init_dpos.value, 0),
        "dy" => v(&b.init_dpos.value, 1),
        "dz" => v(&b.init_dpos.value, 2),
        "mass" => s.body_mass(b).unwrap(),
        other => panic!("attribute {other} not used by the examples"),
    }
}

#[test]
fn captured_expressions_convert_to_symbolic_form() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut converted = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "asg") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let s = evaluate(&text).unwrap();
        // The same expressions as plain Tcl, after the scene: body commands give initial values.
        let mut probe = format!("{text}\nset t 0\n");
        for e in expressions(&s) {
            probe.push_str(&format!("puts [expr {{{}}}]\n", e.display()));
        }
        let tcl: Vec<f64> = evaluate(&probe)
            .unwrap()
            .log
            .iter()
            .map(|line| line.parse().unwrap())
            .collect();
        for (k, e) in expressions(&s).into_iter().enumerate() {
            let mut pool = Pool::new();
            let mut symbols: Vec<(String, String)> = Vec::new();
            let resolve = |pool: &mut Pool, parts: &[Part], span: Span| -> Result<Node, Error> {
                match parts {
                    [Part::Variable { name, .. }] if name == "t" => Ok(pool.symbol(Symbol(0))),
                    [Part::Command { script, .. }] => {
                        let [(name, _), (attr, _)] =
                            reference_words(script).expect("reference words are plain");
                        let key = (name.into_owned(), attr.into_owned());
                        let index = symbols.iter().position(|k| *k == key).unwrap_or_else(|| {
                            symbols.push(key);
                            symbols.len() - 1
                        });
                        Ok(pool.symbol(Symbol(index as u32 + 1)))
                    }
                    _ => Err(Error::new(
                        "unexpected operand left in a captured expression",
                        span,
                    )),
                }
            };
            let node = from_ast(&mut pool, &e.tree, resolve).unwrap_or_else(|err| {
                panic!("{}: {}: {}", path.display(), e.display(), err.message)
            });
            // At t = 0 with the initial state, the symbolic value is what Tcl computes.
            let references = e.references();
            let value = pool.eval(node, |sym| {
                if sym.0 == 0 {
                    return 0.0;
                }
                let (name, attr) = &symbols[sym.0 as usize - 1];
                let r = references
                    .iter()
                    .find(|r| &r.name == name && &r.attr == attr)
                    .unwrap();
                initial(&s, r)
            });
            if let Some(c) = e.constant {
                assert_eq!(value, c, "{}", e.display());
            }
            let expected = tcl[tcl.len() - expressions(&s).len() + k];
            assert!(
                (value - expected).abs() <= 1e-12 * (1.0 + expected.abs()),
                "{}: {} is {value} symbolically, {expected} in Tcl",
                path.display(),
                e.display()
            );
            converted += 1;
        }
    }
    assert!(converted > 30, "only {converted} expressions");
}
