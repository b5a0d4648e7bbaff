//! Input as a user gives it, through xdotool, for the end-to-end tests of the GUI.

use std::process::Command;

/// Runs xdotool with `args` on `display` (the test process's own display when `None`) and
/// returns what it printed; a failure of xdotool fails the test with its message.
pub fn xdotool(display: Option<&str>, args: &[&str]) -> String {
    let mut command = Command::new("xdotool");
    command.args(args);
    if let Some(display) = display {
        command.env("DISPLAY", display);
    }
    let out = command.output().expect("xdotool runs: run scripts/deps");
    assert!(
        out.status.success(),
        "xdotool {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
