//! `asgard eval FILE`: output on stdout, GNU-style located errors on stderr, exit status.

use std::process::Command;

fn eval(script: &str) -> (String, String, i32) {
    let dir = std::env::temp_dir().join(format!("asgard-cli-eval-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join(format!("s{}.tcl", script.len()));
    std::fs::write(&file, script).expect("script written");
    let out = Command::new(env!("CARGO_BIN_EXE_asgard"))
        .arg("eval")
        .arg(&file)
        .output()
        .expect("asgard runs");
    let _ = std::fs::remove_file(&file);
    let stderr = String::from_utf8_lossy(&out.stderr).replace(&file.display().to_string(), "F");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr,
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn output_goes_to_stdout_and_success_exits_zero() {
    let (out, err, code) = eval("puts [expr {6 * 7}]\nputs -nonewline done");
    assert_eq!((out.as_str(), err.as_str(), code), ("42\ndone", "", 0));
}

#[test]
fn errors_are_located_diagnostics_with_exit_one() {
    let (out, err, code) = eval("puts first\nset x [nosuch 1]\nputs never\n");
    assert_eq!(out, "first\n");
    assert_eq!(err, "F:2:8: error: invalid command name \"nosuch\"\n");
    assert_eq!(code, 1);
    let (_, err, code) = eval("set a {unclosed\n");
    assert_eq!(err, "F:1:7: error: missing close-brace\n");
    assert_eq!(code, 1);
}

#[test]
fn a_missing_file_is_an_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_asgard"))
        .args(["eval", "/nonexistent/script.tcl"])
        .output()
        .expect("asgard runs");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
}
