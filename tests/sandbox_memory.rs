//! The sandbox's memory limit measured from outside (issue 22): each script that used to grow
//! to gigabytes runs in `asgard eval` as a child process, which must stop with the
//! memory-limit error while its peak resident memory stays within the documented limit
//! (256 MiB of script data) plus a margin for the program itself.

use std::io::Write;
use std::process::{Command, Stdio};

/// `Limits::default().max_memory`, the limit docs/ARCHITECTURE.md documents.
const LIMIT: u64 = 256 << 20;
/// The program's own memory (code, the allocator's slack) on top of the script's.
const MARGIN: u64 = 96 << 20;

/// Runs `asgard eval` on `script`; returns its standard error and its peak resident memory in
/// bytes, as the kernel reports it for the reaped child. The child is reaped by `wait4`, which
/// clippy cannot see (std's `wait` would not return the child's resource usage).
#[allow(clippy::zombie_processes)]
fn eval_peak(script: &str) -> (String, u64) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("script.tcl");
    std::fs::File::create(&path)
        .and_then(|mut f| f.write_all(script.as_bytes()))
        .expect("the script is written");
    let mut child = Command::new(env!("CARGO_BIN_EXE_asgard"))
        .arg("eval")
        .arg(&path)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("asgard runs");
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().expect("piped"), &mut stderr)
        .expect("stderr is read");
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: the child is ours and not yet reaped; the pointers are to live locals.
    let reaped = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(reaped, child.id() as i32, "wait4 reaps the child");
    assert!(
        libc::WIFEXITED(status),
        "asgard exits, not killed: {status}"
    );
    assert_eq!(libc::WEXITSTATUS(status), 1, "fails: {stderr}");
    // ru_maxrss is in kilobytes on Linux.
    (stderr, usage.ru_maxrss as u64 * 1024)
}

#[test]
fn runaway_scripts_stop_at_the_memory_limit_with_bounded_peak_memory() {
    let cases = [
        "split [string repeat x 100000000] {}",
        "eval [string repeat \"set a 1;\" 10000000]",
        "for {set i 0} {1} {incr i} {set a($i) [string repeat x 100]}",
        "for {set i 0} {1} {incr i} {set a($i) $i}",
        "while 1 {lappend l [string repeat x 100]}",
        "lrepeat 100000000 x",
        "string length [lrepeat 1000000 [string repeat x 1000000]]",
        "join [lrepeat 100 a] [string repeat x 10000000]",
        "set s [string repeat {a } 60000000]; llength $s",
        // A list nested in itself: small as values (the levels share their elements), but its
        // text doubles at every level (found by the scene fuzzer).
        "set t {}; for {set i 0} {$i < 64} {incr i} {set t [list $i $t $t]}; concat $t",
    ];
    for script in cases {
        let (stderr, peak) = eval_peak(script);
        eprintln!("peak {:>4} MiB: {script}", peak >> 20);
        assert!(
            stderr.contains("memory limit exceeded"),
            "{script}: {stderr}"
        );
        assert!(
            peak <= LIMIT + MARGIN,
            "{script}: peak {} MiB, over the {} MiB limit plus {} MiB",
            peak >> 20,
            LIMIT >> 20,
            MARGIN >> 20
        );
    }
}
