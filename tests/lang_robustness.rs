//! Random and mutated scripts through the parser and evaluator: whatever the input, the
//! interpreter returns a value or an error located inside the text, and never panics, hangs
//! or overflows its stack. (The coverage-guided version of this is fuzz/fuzz_targets/eval.rs.)

use asgard::lang::{parse_expr, parse_script, Interp, Limits, Output};
use proptest::prelude::*;
use std::path::Path;
use std::time::Duration;

fn check(text: &str) {
    let _ = parse_script(text, 0);
    let _ = parse_expr(text, 0);
    let mut interp = Interp::new(Limits {
        max_commands: 5_000,
        max_depth: 100,
        max_memory: 1 << 20,
        max_wall: Duration::from_secs(2),
    });
    interp.set_output(Output::Callback(Box::new(|_| {})));
    if let Err(e) = interp.eval_source(text) {
        assert!(
            e.span.start <= e.span.end && e.span.end <= text.len(),
            "error outside the text: {e:?} for {text:?}"
        );
        let _ = e.diagnostic("f", text);
    }
}

/// Tokens that exercise the syntax and the commands.
fn token() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(" ".to_string()),
        Just("\n".to_string()),
        Just(";".to_string()),
        Just("{".to_string()),
        Just("}".to_string()),
        Just("[".to_string()),
        Just("]".to_string()),
        Just("\"".to_string()),
        Just("$".to_string()),
        Just("\\".to_string()),
        Just("{*}".to_string()),
        Just("#".to_string()),
        Just("(".to_string()),
        Just(")".to_string()),
        prop::sample::select(vec![
            "set", "expr", "if", "while", "for", "foreach", "proc", "return", "break", "continue",
            "list", "lindex", "lappend", "lsort", "lsearch", "lrange", "lset", "string", "format",
            "append", "incr", "catch", "error", "eval", "uplevel", "upvar", "global", "array",
            "info", "subst", "split", "join", "concat", "unset", "puts", "lreplace", "linsert",
            "lassign", "x", "a(1)", "end-1", "0x1f", "1e3", "-1", "%d", "%s", "**", "&&", "?", ":",
            "eq", "in", "sqrt(", "1/0", "args",
        ])
        .prop_map(str::to_string),
        "[a-z0-9]{1,3}",
    ]
}

fn conformance_scripts() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tcl");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("tests/tcl exists")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| std::fs::read_to_string(f).expect("readable"))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn token_soup_never_panics(tokens in prop::collection::vec(token(), 0..60)) {
        check(&tokens.concat());
    }

    #[test]
    fn mutated_scripts_never_panic(
        pick in any::<prop::sample::Index>(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), token(), 0usize..4), 1..6),
    ) {
        let scripts = conformance_scripts();
        let mut text = pick.get(&scripts).clone();
        for (at, insert, delete) in edits {
            let mut i = at.index(text.len() + 1);
            while !text.is_char_boundary(i) {
                i -= 1;
            }
            let mut j = (i + delete).min(text.len());
            while !text.is_char_boundary(j) {
                j += 1;
            }
            text.replace_range(i..j, &insert);
        }
        check(&text);
    }
}

/// Inputs that once broke something, kept as regressions.
#[test]
fn known_hostile_inputs() {
    for text in [
        "set l {}; while 1 {lappend l $l}",
        "proc f {} f; f",
        "while 1 {}",
        "set a x; while 1 {append a $a}",
        "expr {[expr {[expr {1}]}]}",
        "lsort -stride 0 {}",
        "string repeat x -1",
        "format %*d -5 1",
        "lset x {} y",
        "upvar 0 a a",
        "uplevel 5 {}",
        "info level -1",
        "return -level 5 x",
        "proc f {args args} {}; f",
        "array set a {1 2}; set a(1)(2) 3",
        // Found by the fuzzer: a required parameter after one with a default.
        "proc p {a {b {x y}} irgs} {}\np {a {b {x y}} args} {}",
        "proc v {{args x}} {}; v",
        "format %2000000000d 1",
        "format %.2000000000f 1",
        "string map {a bbbbbbbbbbbbbbbb} [string repeat a 100000]",
        "lrepeat 1000000000",
        "set s [string repeat x 100000]; lrepeat 100000 $s",
    ] {
        check(text);
    }
}
