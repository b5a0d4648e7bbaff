use super::*;
use std::cell::RefCell;

fn run(text: &str) -> Result<String, Error> {
    let mut interp = Interp::new(Limits::default());
    interp.eval_source(text).map(|v| v.as_str().to_string())
}

fn out(text: &str) -> String {
    let mut interp = Interp::new(Limits::default());
    if let Err(e) = interp.eval_source(text) {
        panic!("{}", e.diagnostic("test", text));
    }
    interp.take_log()
}

fn small(limits: impl FnOnce(&mut Limits)) -> Interp {
    let mut l = Limits::default();
    limits(&mut l);
    Interp::new(l)
}

#[test]
fn core_commands_run() {
    assert_eq!(run("set a 3; incr a 4").unwrap(), "7");
    assert_eq!(
        out("proc f {a {b 2} args} {return \"$a $b $args\"}\nputs [f 1]\nputs [f 1 3 4 5]"),
        "1 2 \n1 3 4 5\n"
    );
    assert_eq!(
        out("set s 0; foreach {a b} {1 2 3 4} c {x y} {append s $a$b$c}; puts $s"),
        "012x34y\n"
    );
    assert_eq!(
        run("set x 0; while 1 {incr x; if {$x > 5} break}; set x").unwrap(),
        "6"
    );
}

#[test]
fn upvar_global_and_uplevel() {
    let text = "set g 1
proc inc {name} {upvar 1 $name v; incr v}
proc glob {} {global g; set g 10}
proc up {} {uplevel 1 {set u [info level]}}
set x 1; inc x; glob; up
puts \"$x $g $u\"";
    assert_eq!(out(text), "2 10 0\n");
}

#[test]
fn return_codes_and_catch() {
    assert_eq!(run("proc f {} {return -code break}; catch f").unwrap(), "3");
    assert_eq!(
        run("proc f {} {return -code error oops}; catch f m; set m").unwrap(),
        "oops"
    );
    assert_eq!(run("catch {break}").unwrap(), "3");
    let e = run("proc f {} {break}\nf").unwrap_err();
    assert_eq!(e.message, "invoked \"break\" outside of a loop");
}

#[test]
fn error_info_trail_names_commands_and_procs() {
    let text = "proc f {} {\n  error boom\n}\ncatch {f} m\nset errorInfo";
    assert_eq!(
        run(text).unwrap(),
        "boom\n    while executing\n\"error boom\"\n    (procedure \"f\" line 2)\n    \
         invoked from within\n\"f\""
    );
}

#[test]
fn errors_are_located_at_the_innermost_command() {
    let text = "set a 1\nproc f {} {\n  set b [nosuch 1]\n}\nf";
    let e = run(text).unwrap_err();
    assert_eq!(e.message, "invalid command name \"nosuch\"");
    assert_eq!(
        e.diagnostic("s", text),
        "s:3:10: error: invalid command name \"nosuch\""
    );
    // A missing variable is located at its `$` word.
    let text = "puts [list a $nope]";
    let e = run(text).unwrap_err();
    assert_eq!(e.span, Span::new(13, 18));
}

#[test]
fn scripts_built_at_run_time_are_located_at_the_command_that_ran_them() {
    let text = "set s {nosuch}\nset t \"$s x\"\neval $t";
    let e = run(text).unwrap_err();
    assert_eq!(
        e.diagnostic("s", text),
        "s:3:1: error: invalid command name \"nosuch\""
    );
}

#[test]
fn bodies_passed_through_variables_keep_their_origin() {
    let text = "set body {\n  boom\n}\nproc f {} $body\nf";
    let e = run(text).unwrap_err();
    assert_eq!(
        e.diagnostic("s", text),
        "s:2:3: error: invalid command name \"boom\""
    );
    let text = "foreach b {{ok} {bad x}} {eval $b}";
    let mut interp = Interp::new(Limits::default());
    interp.register("ok", |_, _| Ok(Value::empty()));
    let e = interp.eval_source(text).unwrap_err();
    assert_eq!(e.span, Span::new(17, 22));
}

#[test]
fn native_commands_see_argument_spans_and_literalness() {
    let seen = Rc::new(RefCell::new(Vec::new()));
    let record = seen.clone();
    let mut interp = Interp::new(Limits::default());
    interp.register("body", move |_, args| {
        for a in args {
            record
                .borrow_mut()
                .push((a.value.as_str().to_string(), a.span, a.literal));
        }
        Ok(Value::empty())
    });
    interp
        .eval_source("set m 2\nbody b1 mass $m {*}{x y} \"q\\n\"")
        .unwrap();
    let seen = seen.borrow();
    assert_eq!(seen[0], ("body".into(), Span::new(8, 12), true));
    assert_eq!(seen[2], ("mass".into(), Span::new(16, 20), true));
    assert_eq!(seen[3], ("2".into(), Span::new(21, 23), false));
    assert_eq!(seen[4], ("x".into(), Span::new(24, 32), false));
    assert_eq!(seen[5], ("y".into(), Span::new(24, 32), false));
    assert_eq!(seen[6], ("q\n".into(), Span::new(33, 38), true));
}

#[test]
fn native_errors_point_at_the_word_they_name() {
    let mut interp = Interp::new(Limits::default());
    interp.register("mass", |_, args| {
        Err(Exception::error_at("mass must be positive", args[1].span))
    });
    let text = "proc f {} {\n  mass -1\n}\nf";
    let e = interp.eval_source(text).unwrap_err();
    assert_eq!(
        e.diagnostic("s", text),
        "s:2:8: error: mass must be positive"
    );
}

#[test]
fn commands_can_be_registered_from_inside_a_command() {
    let mut interp = Interp::new(Limits::default());
    interp.register("body", |interp, args| {
        let name = args[1].value.as_str().to_string();
        let mass = args[2].value.clone();
        interp.register(&name, move |_, _| Ok(mass.clone()));
        Ok(Value::empty())
    });
    let v = interp.eval_source("body b1 10\nexpr {[b1] * 2}").unwrap();
    assert_eq!(v.as_str(), "20");
    assert!(interp.has_command("b1"));
    assert!(!interp.has_command("exec"));
}

#[test]
fn embedding_helpers_work_in_the_callers_frame() {
    let mut interp = Interp::new(Limits::default());
    interp.register("probe", |interp, _| {
        let x = interp.get_var("x")?;
        let parts = crate::lang::parse_script("a $x[set x]", 0)
            .map(|s| match &s.commands[0].words[1].kind {
                ast::WordKind::Bare(p) => p.clone(),
                _ => unreachable!(),
            })
            .map_err(|e| Exception::error(e.message))?;
        let joined = interp.substitute_parts(&parts)?;
        let doubled = interp.eval_expr(&Value::from("$x * 2"))?;
        Ok(Value::from(format!(
            "{x} {joined} {doubled} {} {}",
            interp.level(),
            interp.in_proc()
        )))
    });
    let v = interp.eval_source("proc p {} {set x 4; probe}\np").unwrap();
    assert_eq!(v.as_str(), "4 44 8 1 true");
}

#[test]
fn puts_goes_to_the_chosen_sink() {
    let seen = Rc::new(RefCell::new(String::new()));
    let sink = seen.clone();
    let mut interp = Interp::new(Limits::default());
    interp.set_output(Output::Callback(Box::new(move |t| {
        sink.borrow_mut().push_str(t)
    })));
    interp.eval_source("puts a; puts -nonewline b").unwrap();
    assert_eq!(*seen.borrow(), "a\nb");
    assert_eq!(interp.log(), "");
}

#[test]
fn sandbox_has_no_way_out() {
    for cmd in [
        "exec ls",
        "open /etc/passwd",
        "source x",
        "file exists x",
        "socket a 1",
        "load x",
        "cd /",
        "exit",
        "pwd",
        "glob *",
        "clock seconds",
        "after 1",
        "vwait x",
        "update",
        "interp create",
        "namespace current",
    ] {
        let e = run(cmd).unwrap_err();
        assert!(
            e.message.starts_with("invalid command name"),
            "{cmd}: {}",
            e.message
        );
    }
}

#[test]
fn command_limit_stops_infinite_loops() {
    let mut interp = small(|l| l.max_commands = 10_000);
    let e = interp.eval_source("set x 1\nwhile 1 {}").unwrap_err();
    assert!(e.message.contains("command limit"), "{}", e.message);
    assert_eq!(e.span, Span::new(8, 18));
    // catch cannot swallow a limit.
    let e = interp
        .eval_source("while 1 {catch {while 1 {}}}")
        .unwrap_err();
    assert!(e.message.contains("command limit"));
}

#[test]
fn wall_limit_stops_long_runs() {
    let mut interp = small(|l| {
        l.max_wall = Duration::from_millis(20);
        l.max_commands = u64::MAX;
    });
    let e = interp.eval_source("while 1 {}").unwrap_err();
    assert!(e.message.contains("time limit"), "{}", e.message);
}

#[test]
fn depth_limit_stops_runaway_recursion() {
    let e = run("proc f {} f; f").unwrap_err();
    assert!(e.message.contains("too many nested"), "{}", e.message);
    let text = "proc f {n} {if {$n > 0} {f [expr {$n - 1}]}}; f 300";
    assert!(run(text).is_ok());
}

#[test]
fn memory_limit_stops_runaway_growth() {
    let e = run("set a x; while 1 {append a $a}").unwrap_err();
    assert!(e.message.contains("memory limit"), "{}", e.message);
    let mut interp = small(|l| l.max_memory = 1 << 20);
    let e = interp
        .eval_source("set l {}; while 1 {lappend l $l}")
        .unwrap_err();
    assert!(e.message.contains("memory limit"), "{}", e.message);
    let e = interp
        .eval_source("string repeat abc 10000000")
        .unwrap_err();
    assert!(e.message.contains("memory limit"), "{}", e.message);
}

/// The reproducers of the sandbox's memory limit (issue 22): each one ends with the
/// memory-limit error, located at its command, instead of growing to gigabytes.
#[test]
fn every_way_of_growing_memory_meets_the_limit() {
    let cases = [
        "split [string repeat x 100000000] {}",
        "eval [string repeat \"set a 1;\" 10000000]",
        "for {set i 0} {1} {incr i} {set a($i) [string repeat x 100]}",
        "while 1 {lappend l [string repeat x 100]}",
        "lrepeat 100000000 x",
        "string length [lrepeat 1000000 [string repeat x 1000000]]",
        "join [lrepeat 100 a] [string repeat x 10000000]",
        "string repeat abc 100000000",
        "set s [string repeat {a } 20000000]; llength $s",
        "proc f {} {return [string repeat x 1000]}; while 1 {lappend l [f]}",
        "set l [lrepeat 10000 x]; while 1 {lappend all [lsort $l]}",
    ];
    for text in cases {
        let e = memory_limited().eval_source(text).unwrap_err();
        assert!(e.message.contains("memory limit"), "{text}: {}", e.message);
    }
}

/// The default limits with no time limit to speak of: what a test of the memory limit checks
/// must not turn on how busy the machine is (these scripts take seconds of wall time on a
/// loaded one, against the default limit of 10 s). The memory limit ends each of them.
fn memory_limited() -> Interp {
    small(|l| l.max_wall = Duration::from_secs(3600))
}

/// The account follows what the script holds, not what it ever made: overwriting a variable,
/// unsetting array elements and returning from a proc give the memory back (a gigabyte made
/// in all, a megabyte held at a time).
#[test]
fn freed_values_leave_the_account() {
    for text in [
        "for {set i 0} {$i < 1000} {incr i} {set s [string repeat x 1000000]}",
        "for {set i 0} {$i < 1000} {incr i} {set a(k) [string repeat x 1000000]; unset a(k)}",
        "proc f {} {set s [string repeat x 1000000]; return}
         for {set i 0} {$i < 1000} {incr i} {f}",
        "for {set i 0} {$i < 1000} {incr i} {set l [split [string repeat {x } 10000]]}",
    ] {
        let result = memory_limited().eval_source(text).map(|_| ());
        assert!(result.is_ok(), "{text}: {result:?}");
    }
}

/// Long-running built-ins check the time limit inside their loops: without that, one
/// command that runs for minutes never reaches the next check between commands.
#[test]
fn long_built_ins_meet_the_time_limit() {
    let cases = [
        "set l [lrepeat 4000000 b a]; lsort $l",
        "string first [string repeat a 20000]b [string repeat a 5000000]",
        "string match *[string repeat a 20000]b [string repeat a 1000000]",
    ];
    for text in cases {
        let mut interp = small(|l| l.max_wall = Duration::from_millis(30));
        let e = interp.eval_source(text).unwrap_err();
        assert!(e.message.contains("time limit"), "{text}: {}", e.message);
    }
}

#[test]
fn pathological_nesting_is_a_located_error() {
    let n = 100_000;
    let text = format!("set a {}1{}", "[".repeat(n), "]".repeat(n));
    let e = run(&text).unwrap_err();
    assert!(e.message.contains("nested"), "{}", e.message);
    let text = format!("set a {}{}", "{".repeat(n), "}".repeat(n));
    assert!(run(&text).is_ok());
    // Nested bodies evaluated one inside the other hit the depth limit, not the stack.
    let text = "if 1 {".repeat(5000) + &"}".repeat(5000);
    let e = run(&text).unwrap_err();
    assert!(e.message.contains("too many nested"), "{}", e.message);
}

#[test]
fn a_huge_word_is_handled() {
    let word = "x".repeat(100 << 20);
    let text = format!("set a {{{word}}}\nstring length $a");
    assert_eq!(run(&text).unwrap(), (100 << 20).to_string());
}

#[test]
fn loop_bodies_are_parsed_once() {
    let mut interp = Interp::new(Limits::default());
    interp
        .eval_source("set body {incr n}\nset n 0\nfor {set i 0} {$i < 3} {incr i} $body")
        .unwrap();
    let body = interp.get_var("body").unwrap();
    assert!(matches!(
        body.compiled().get(),
        Some(crate::lang::code::Compiled::Script(_))
    ));
}
