//! Helper processes for the tests and benchmarks that drive real windows: a private X server
//! (Xvfb) on a display number it picks itself, and any server that prints where to reach it on
//! its first line; each is killed when its owner is dropped.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// A process that is killed when dropped.
pub struct Owned(pub Child);

impl Drop for Owned {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `command` and reads the first line it prints (its display or bus address).
pub fn start_reading_line(mut command: Command, what: &str) -> (Owned, String) {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {what} ({e}): run scripts/deps"));
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(!line.trim().is_empty(), "{what} printed nothing");
    (Owned(child), line.trim().to_owned())
}

/// Xvfb on a free display, 1280×1024 at 24 bits: the server and the display (`:N`).
pub fn private_display() -> (Owned, String) {
    let mut xvfb = Command::new("Xvfb");
    xvfb.args([
        "-displayfd",
        "1",
        "-screen",
        "0",
        "1280x1024x24",
        "-nolisten",
        "tcp",
    ]);
    let (server, number) = start_reading_line(xvfb, "Xvfb");
    (server, format!(":{number}"))
}
