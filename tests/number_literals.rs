//! One meaning for numbers: the 200 literals of `tests/numbers/literals.txt` read as
//! `expr {LITERAL}` by the interpreter and by the symbolic compiler give the same values and
//! the same errors, and the interpreter's results are tclsh 8.6's wherever Tcl's value fits
//! Asgard's 64-bit integers (beyond them, Asgard names the limit instead of keeping a bignum).
//! tclsh is required (scripts/deps installs it).

use asgard::lang::number::{parse_number, Number, TOO_LARGE};
use asgard::lang::{parse_expr, Interp, Limits};
use asgard::sym::{self, from_ast, Pool};
use std::io::Write;
use std::process::{Command, Stdio};

/// What reading a literal gave: a number or an error message.
#[derive(Clone, Debug, PartialEq)]
enum Read {
    /// The value's text (the interpreter's) or its bits (the symbolic compiler's, which has
    /// only doubles).
    Value(f64),
    Error(String),
}

fn literals() -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/numbers/literals.txt");
    std::fs::read_to_string(path)
        .expect("the literals file")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The interpreter's result text of `expr {literal}`, or its error.
fn interpreter(literal: &str) -> Result<String, String> {
    let mut interp = Interp::new(Limits::default());
    interp
        .eval_source(&format!("expr {{{literal}}}"))
        .map(|v| v.as_str().to_owned())
        .map_err(|e| e.message)
}

/// The symbolic compiler's constant for `literal`, or its error.
fn symbolic(literal: &str) -> Read {
    let expr = match parse_expr(literal, 0) {
        Ok(expr) => expr,
        Err(e) => return Read::Error(e.message),
    };
    let mut pool = Pool::new();
    let not_constant = |_: &mut Pool, _: &[_], span| Err(sym::Error::new("not a constant", span));
    match from_ast(&mut pool, &expr, not_constant) {
        Ok(node) => Read::Value(pool.as_constant(node).expect("a literal is a constant")),
        Err(e) => Read::Error(e.message),
    }
}

/// What tclsh 8.6 makes of each literal: `Ok(text)` or `Err(first line of the message)`.
fn tclsh(literals: &[String]) -> Vec<Result<String, String>> {
    let mut script = String::from("fconfigure stdout -translation lf\n");
    for literal in literals {
        script.push_str(&format!(
            "if {{[catch {{expr {{{literal}}}}} r]}} {{puts \"E [lindex [split $r \\n] 0]\"}} \
             else {{puts \"V $r\"}}\n"
        ));
    }
    let mut child = Command::new("tclsh")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("tclsh must be installed (scripts/deps installs package tcl8.6)");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "tclsh failed");
    let text = String::from_utf8(output.stdout).unwrap();
    let results: Vec<_> = text
        .lines()
        .map(|line| match line.split_at(2) {
            ("V ", value) => Ok(value.to_owned()),
            (_, message) => Err(message.to_owned()),
        })
        .collect();
    assert_eq!(results.len(), literals.len(), "{text}");
    results
}

fn same(a: &Read, b: &Read) -> bool {
    match (a, b) {
        (Read::Value(x), Read::Value(y)) => x.to_bits() == y.to_bits() || x.is_nan() && y.is_nan(),
        _ => a == b,
    }
}

#[test]
fn the_interpreter_and_the_symbolic_compiler_read_every_literal_alike() {
    let literals = literals();
    assert_eq!(literals.len(), 200);
    let mut disagreements = Vec::new();
    for literal in &literals {
        let ours = match interpreter(literal) {
            Ok(text) => match parse_number(&text) {
                Some(n) => Read::Value(n.as_f64()),
                None => panic!("{literal}: the interpreter gave {text:?}, not a number"),
            },
            Err(message) => Read::Error(message),
        };
        let symbolic = symbolic(literal);
        if !same(&ours, &symbolic) {
            disagreements.push(format!(
                "{literal}: interpreter {ours:?}, symbolic {symbolic:?}"
            ));
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

#[test]
fn the_interpreter_reads_literals_as_tclsh_does_within_64_bits() {
    let literals = literals();
    let mut differences = Vec::new();
    let (mut values, mut errors, mut beyond) = (0, 0, 0);
    for (literal, tcl) in literals.iter().zip(tclsh(&literals)) {
        let ours = interpreter(literal);
        let fits = |text: &str| !matches!(text.parse::<i128>(), Ok(i) if i64::try_from(i).is_err());
        let agrees = match (&tcl, &ours) {
            (Ok(t), Ok(o)) => {
                values += 1;
                t == o
            }
            // A bignum in Tcl is an error naming the 64-bit limit here.
            (Ok(t), Err(o)) if !fits(t) => {
                beyond += 1;
                o.starts_with(TOO_LARGE)
            }
            // Both refuse the literal (the parse errors' wording differs from tclsh's in
            // places: ours names the whole malformed literal).
            (Err(_), Err(_)) => {
                errors += 1;
                true
            }
            _ => false,
        };
        if !agrees {
            differences.push(format!("{literal}: tclsh {tcl:?}, ours {ours:?}"));
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n"));
    // The list covers all three outcomes.
    assert!(
        values > 100 && errors > 40 && beyond > 10,
        "{values} {errors} {beyond}"
    );
}

#[test]
fn integers_keep_their_kind() {
    // The interpreter's integer results print as integers, its doubles as doubles.
    assert_eq!(interpreter("0x10"), Ok("16".into()));
    assert_eq!(interpreter("010"), Ok("8".into()));
    assert_eq!(interpreter("1e3"), Ok("1000.0".into()));
    assert_eq!(parse_number("0b101"), Some(Number::Int(5)));
    assert_eq!(
        symbolic("9223372036854775808"),
        Read::Error(TOO_LARGE.into())
    );
}
