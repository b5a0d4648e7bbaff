//! Evaluation speed of the scene language on a generated scene-like script.
//!
//! The script has 10,000 top-level commands typical of scenes: element commands with literal
//! and computed arguments, `set` with `list`/`expr`, `foreach` over literal lists, `lappend`,
//! and proc calls. It is timed three ways in the same run:
//! - parse alone (the baseline: reading the text into a tree),
//! - full evaluation (parse + compile + run, with an element command registered as `body`,
//!   which also registers a command named after each body, as the scene layer does),
//! - a loop-heavy script (10,000 iterations of a cached body) for the per-command cost when
//!   nothing is re-parsed.
//!
//! Run with `cargo bench --bench lang_eval`.

use asgard::lang::{parse_script, Interp, Limits, Value};
use std::fmt::Write;
use std::time::{Duration, Instant};

/// A scene of `n` top-level commands.
fn scene(n: usize) -> String {
    let mut s = String::from(
        "proc vadd {a b} {\n  set r {}\n  foreach x $a y $b {lappend r [expr {$x + $y}]}\n  return $r\n}\n\
         proc scaled {v s} {\n  set r {}\n  foreach x $v {lappend r [expr {$x * $s}]}\n  return $r\n}\n",
    );
    let mut count = 2;
    let mut i = 0;
    while count < n {
        let _ = write!(
            s,
            "set p{i} [list [expr {{{i} * 0.5}}] [expr {{{i} % 7}}] 0]\n\
             body b{i} shape box init_pos $p{i} init_dpos {{0 0 0}} mass [expr {{1 + {i} % 3}}]\n\
             set v{i} [vadd $p{i} {{1 2 3}}]\n\
             foreach c {{0 1 2}} {{lappend all{} [lindex $v{i} $c]}}\n\
             set q{i} [scaled $p{i} 2]\n",
            i % 10
        );
        count += 5;
        i += 1;
    }
    s
}

/// A loop of `n` iterations over a cached body.
fn loop_script(n: usize) -> String {
    format!(
        "set l {{}}\nfor {{set i 0}} {{$i < {n}}} {{incr i}} {{\n  set x [expr {{$i * 0.5 + 1}}]\n  lappend l $x\n}}\nllength $l\n"
    )
}

fn interp() -> Interp {
    let mut interp = Interp::new(Limits::default());
    interp.register("body", |interp, args| {
        let name = args[1].value.as_str().to_string();
        let mass = args
            .last()
            .map(|a| a.value.clone())
            .unwrap_or_else(Value::empty);
        interp.register(&name, move |_, _| Ok(mass.clone()));
        Ok(Value::empty())
    });
    interp
}

/// The best of `runs` timings of `f`.
fn best(runs: usize, mut f: impl FnMut()) -> Duration {
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .min()
        .expect("at least one run")
}

fn main() {
    let text = scene(10_000);
    let parse = best(10, || {
        std::hint::black_box(parse_script(&text, 0).expect("valid scene"));
    });
    let mut executed = 0;
    let eval = best(10, || {
        let mut interp = interp();
        interp.eval_source(&text).expect("scene evaluates");
        executed = interp.commands_run();
    });
    let loops = loop_script(10_000);
    let mut loop_commands = 0;
    let looped = best(10, || {
        let mut interp = interp();
        interp.eval_source(&loops).expect("loop evaluates");
        loop_commands = interp.commands_run();
    });
    let per = |d: Duration, n: u64| d.as_secs_f64() * 1e9 / n as f64;
    println!(
        "lang_eval: scene of 10,000 top-level commands ({} bytes)",
        text.len()
    );
    println!("  parse alone        {:>9.3} ms", parse.as_secs_f64() * 1e3);
    println!(
        "  evaluate           {:>9.3} ms  ({executed} commands executed, {:.0} ns/command, {:.1}x parse)",
        eval.as_secs_f64() * 1e3,
        per(eval, executed),
        eval.as_secs_f64() / parse.as_secs_f64()
    );
    println!(
        "  cached loop        {:>9.3} ms  ({loop_commands} commands executed, {:.0} ns/command, {:.1}x parse of the scene)",
        looped.as_secs_f64() * 1e3,
        per(looped, loop_commands),
        looped.as_secs_f64() / parse.as_secs_f64()
    );
}
