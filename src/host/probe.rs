//! A test-only window into the host: with `asgard host --probe`, the host owns the session-bus
//! name `org.asgard.Asgard1.Host<PID>` and serves `org.asgard.Asgard1.HostProbe` at
//! `/org/asgard/Asgard1/Host`, whose one method `Describe()` returns the state of its windows
//! as JSON (title, path, modified mark, status line, the Live toggle, and per animation its
//! phase, frames shown, slave process id, size and views). End-to-end tests wait on that state instead of sleeping.
//! It only reads; the tests drive the host through its real user interface.

use gtk::glib;
use gtk4 as gtk;
use serde::Serialize;
use std::sync::mpsc;
use std::time::Duration;

use super::window::HostWindow;

/// Where the probe object lives.
pub const PROBE_PATH: &str = "/org/asgard/Asgard1/Host";

/// The session-bus name of the host with process id `pid`.
pub fn probe_bus_name(pid: u32) -> String {
    format!("org.asgard.Asgard1.Host{pid}")
}

/// One window's state, as `Describe()` reports it.
#[derive(Serialize)]
pub struct WindowState {
    pub title: String,
    pub path: Option<String>,
    pub modified: bool,
    pub status: String,
    /// Whether Asgard ▸ Live is ticked (it shows the focused animation's mode).
    pub live_toggle: bool,
    pub animations: Vec<AnimationState>,
}

/// One animation's state; `frames_shown`, `width` and `height` are its first view's (the
/// document's).
#[derive(Serialize)]
pub struct AnimationState {
    /// `starting`, `running` or `failed`.
    pub phase: &'static str,
    /// The failure message, or the notice shown over the animation (a scene error).
    pub message: String,
    pub frames_shown: u64,
    pub slave_pid: Option<u32>,
    pub width: u32,
    pub height: u32,
    /// Every view of the animation, the document's first.
    pub views: Vec<ViewState>,
    /// The view the playback commands act on, when one was clicked or focused.
    pub focused_view: Option<usize>,
}

/// One view's (rendition's) state.
#[derive(Serialize)]
pub struct ViewState {
    pub frames_shown: u64,
    /// A hash of the pixels shown, 0 before the first frame.
    pub picture: u64,
    /// The simulated time of the frame shown.
    pub time: f64,
    pub playing: bool,
    pub live: bool,
    pub width: u32,
    pub height: u32,
}

struct Probe;

#[zbus::interface(name = "org.asgard.Asgard1.HostProbe")]
impl Probe {
    /// The windows' state as a JSON array of objects.
    fn describe(&self) -> zbus::fdo::Result<String> {
        let (reply, answer) = mpsc::channel();
        // The windows live on the GTK thread; ask it, and wait a moment for the answer.
        glib::MainContext::default().invoke(move || {
            let states: Vec<WindowState> = HostWindow::all().iter().map(|w| w.state()).collect();
            let _ = reply.send(serde_json::to_string(&states));
        });
        match answer.recv_timeout(Duration::from_secs(10)) {
            Ok(Ok(json)) => Ok(json),
            Ok(Err(e)) => Err(zbus::fdo::Error::Failed(e.to_string())),
            Err(_) => Err(zbus::fdo::Error::Failed(
                "the host's main loop did not answer within 10 s".into(),
            )),
        }
    }
}

/// Serves the probe on the session bus; keep the connection for as long as it should be.
pub fn serve() -> zbus::Result<zbus::blocking::Connection> {
    zbus::blocking::connection::Builder::session()?
        .name(probe_bus_name(std::process::id()))?
        .serve_at(PROBE_PATH, Probe)?
        .build()
}
