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

/// GTK initialised on a private display ([`private_display`]), for a test or benchmark that
/// runs the editor's windows in its own process, and a GTK application registered as `id`:
/// the server (keep it while the windows live) and the application.
pub fn gtk_on_private_display(id: &str) -> (Owned, gtk4::Application) {
    use gtk4::prelude::*;
    let (server, display) = private_display();
    std::env::set_var("DISPLAY", &display);
    std::env::set_var("GDK_BACKEND", "x11");
    std::env::set_var("NO_AT_BRIDGE", "1");
    std::env::set_var("GTK_A11Y", "none");
    gtk4::init().expect("GTK on the private display");
    let app = gtk4::Application::new(Some(id), gtk4::gio::ApplicationFlags::NON_UNIQUE);
    app.register(gtk4::gio::Cancellable::NONE).unwrap();
    (server, app)
}

/// Turns the GTK main loop until `done`; panics if that takes longer than `limit`.
pub fn run_main_loop_until(limit: std::time::Duration, mut done: impl FnMut() -> bool) {
    let context = gtk4::glib::MainContext::default();
    let deadline = std::time::Instant::now() + limit;
    while !done() {
        assert!(
            std::time::Instant::now() < deadline,
            "the editor did not get there"
        );
        context.iteration(true);
    }
}
