//! The reference host with real slaves, end to end: it opens the example memo, its animation
//! plays (the screen changes between two screenshots), and a slave killed with SIGKILL during
//! playback leaves the host running with the document untouched and the animation marked
//! failed until Restart brings it back; the language editor opened from the Asgard menu edits
//! the scene and Save changes only the scene's bytes; the Live toggle follows a live run that
//! fails back to playback; closing the window (with nothing to save, and with "Don't Save")
//! ends the host with status 0 and its slaves with it. The host's state is read through its
//! test-only probe (`asgard host --probe`,
//! `org.asgard.Asgard1.HostProbe`); every wait is on a condition with a time limit.
//!
//! Needs a display and a session bus: run it through `scripts/test`, which wraps `cargo test`
//! in `xvfb-run` and `dbus-run-session`.

mod xdotool;
use serde_json::Value;
use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};
use xdotool::xdotool;

const ASGARD: &str = env!("CARGO_BIN_EXE_asgard");
const LIMIT: Duration = Duration::from_secs(60);
const POLL: Duration = Duration::from_millis(50);

/// A host process, killed when dropped.
struct Host {
    child: Child,
    bus: zbus::blocking::Connection,
}

impl Drop for Host {
    /// Ends the host, and waits (a while) for its slaves' editor windows to go with it: the
    /// next test finds its own windows by name and must not type into a dying one.
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let start = Instant::now();
        while !windows_named("host's document").is_empty() && start.elapsed() < LIMIT {
            std::thread::sleep(POLL);
        }
    }
}

impl Host {
    fn open(document: &Path) -> Host {
        assert!(
            std::env::var_os("DISPLAY").is_some()
                && std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some(),
            "this test needs a display and a session bus: run it with scripts/test"
        );
        let child = Command::new(ASGARD)
            .args(["host", "--probe"])
            .arg(document)
            .env("NO_AT_BRIDGE", "1")
            .spawn()
            .unwrap();
        let bus = zbus::blocking::Connection::session().unwrap();
        Host { child, bus }
    }

    /// The probe's `Describe()`, or `None` while the host is not serving it yet.
    fn describe(&self) -> Option<Value> {
        let reply = self
            .bus
            .call_method(
                Some(format!("org.asgard.Asgard1.Host{}", self.child.id()).as_str()),
                "/org/asgard/Asgard1/Host",
                Some("org.asgard.Asgard1.HostProbe"),
                "Describe",
                &(),
            )
            .ok()?;
        let json: String = reply.body().deserialize().ok()?;
        serde_json::from_str(&json).ok()
    }

    /// Waits until the host's state satisfies `condition`; returns it.
    fn wait_until(&self, what: &str, condition: impl Fn(&Value) -> bool) -> Value {
        let start = Instant::now();
        let mut last = None;
        while start.elapsed() < LIMIT {
            if let Some(state) = self.describe() {
                if condition(&state) {
                    return state;
                }
                last = Some(state);
            }
            std::thread::sleep(POLL);
        }
        panic!("the host did not reach '{what}' within {LIMIT:?}; last state: {last:?}");
    }

    /// Waits until the first window's first animation satisfies `condition`; returns the state.
    fn wait_for(&self, what: &str, condition: impl Fn(&Value) -> bool) -> Value {
        self.wait_until(what, |state| condition(&state[0]["animations"][0]))
    }

    /// Waits until the first window satisfies `condition`; returns the state.
    fn wait_for_window(&self, what: &str, condition: impl Fn(&Value) -> bool) -> Value {
        self.wait_until(what, |state| condition(&state[0]))
    }

    /// Waits for the host to exit by itself; returns its exit status.
    fn wait_for_exit(&mut self) -> std::process::ExitStatus {
        let start = Instant::now();
        while start.elapsed() < LIMIT {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            std::thread::sleep(POLL);
        }
        panic!("the host did not exit within {LIMIT:?}");
    }

    /// The X window id of a window of the host that is none of `known` (a dialog it opened);
    /// waits for it to appear.
    fn new_window(&self, known: &[&str]) -> String {
        let pid = self.child.id().to_string();
        let start = Instant::now();
        loop {
            let found = xdotool(None, &["search", "--onlyvisible", "--pid", &pid]);
            if let Some(window) = found.lines().find(|w| !known.contains(w)) {
                return window.to_owned();
            }
            assert!(start.elapsed() < LIMIT, "no new window within {LIMIT:?}");
            std::thread::sleep(POLL);
        }
    }

    /// The X window id of the host's document window.
    fn window(&self) -> String {
        let pid = self.child.id().to_string();
        let found = xdotool(None, &["search", "--sync", "--onlyvisible", "--pid", &pid]);
        found.lines().next().expect("the host's window").to_owned()
    }
}

/// Held by each test for its whole run: the tests share one display, and keys typed for one
/// must not land in another's window.
static DISPLAY: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn one_test_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    DISPLAY
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn frames_shown(animation: &Value) -> u64 {
    animation["frames_shown"].as_u64().unwrap_or(0)
}

/// The screen as RGB bytes, through ImageMagick's `import`.
fn screenshot(path: &Path) -> Vec<u8> {
    let status = Command::new("import")
        .args(["-window", "root", "-depth", "8"])
        .arg(format!("rgb:{}", path.display()))
        .status()
        .expect("ImageMagick's import takes the screenshots");
    assert!(status.success());
    std::fs::read(path).unwrap()
}

#[test]
fn the_memo_plays_and_survives_a_killed_slave() {
    let _display = one_test_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let memo = dir.path().join("memo.sgml");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/memo.sgml");
    std::fs::copy(&example, &memo).unwrap();
    let original = std::fs::read(&memo).unwrap();
    let host = Host::open(&memo);

    let state = host.wait_for("a frame shown", |a| {
        a["phase"] == "running" && frames_shown(a) > 0
    });
    assert_eq!(state[0]["modified"], false);
    let first = screenshot(&dir.path().join("first.rgb"));
    let shown = frames_shown(&state[0]["animations"][0]);
    host.wait_for("ten more frames", |a| frames_shown(a) >= shown + 10);
    let second = screenshot(&dir.path().join("second.rgb"));
    let changed = first
        .chunks_exact(3)
        .zip(second.chunks_exact(3))
        .filter(|(a, b)| a != b)
        .count();
    assert!(
        changed > 100,
        "only {changed} pixels changed between the screenshots"
    );

    let pid = state[0]["animations"][0]["slave_pid"].as_u64().unwrap();
    let killed = Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let state = host.wait_for("the animation failed", |a| a["phase"] == "failed");
    let message = state[0]["animations"][0]["message"].as_str().unwrap();
    assert!(!message.is_empty(), "the failure shows no message");
    assert_eq!(
        state[0]["modified"], false,
        "a dead slave must not touch the document"
    );
    assert_eq!(std::fs::read(&memo).unwrap(), original);

    // Restart (its mnemonic, Alt+R, in the host's window) brings the animation back.
    let window = host.window();
    xdotool(None, &["windowfocus", "--sync", &window, "key", "alt+r"]);
    host.wait_for("the restarted animation shows a frame", |a| {
        a["phase"] == "running" && frames_shown(a) > 0 && a["slave_pid"].as_u64() != Some(pid)
    });
}

/// The language editor opened from the host's Asgard menu edits the scene; the document is
/// marked modified, and Save changes only the scene's bytes.
#[test]
fn an_edit_in_a_detached_editor_is_saved_into_the_document() {
    let _display = one_test_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let memo = dir.path().join("memo.sgml");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/memo.sgml");
    std::fs::copy(&example, &memo).unwrap();
    let original = std::fs::read_to_string(&memo).unwrap();
    let host = Host::open(&memo);
    host.wait_for("a frame shown", |a| {
        a["phase"] == "running" && frames_shown(a) > 0
    });

    let window = host.window();
    xdotool(
        None,
        &["windowfocus", "--sync", &window, "key", "ctrl+shift+l"],
    );
    let viewer = xdotool(
        None,
        &[
            "search",
            "--sync",
            "--onlyvisible",
            "--name",
            "Language viewer 1$",
        ],
    );
    let viewer = viewer.lines().next().expect("the language viewer's window");
    xdotool(None, &["windowfocus", "--sync", viewer, "key", "ctrl+End"]);
    xdotool(
        None,
        &["type", "--delay", "20", "\n# edited {from} the host\n"],
    );
    xdotool(None, &["key", "ctrl+Return"]);
    host.wait_for_window("the document marked modified", |w| w["modified"] == true);

    xdotool(None, &["windowfocus", "--sync", &window, "key", "ctrl+s"]);
    host.wait_for_window("the document saved", |w| w["modified"] == false);
    let saved = std::fs::read_to_string(&memo).unwrap();
    assert!(
        saved.contains("# edited \\{from\\} the host"),
        "the typed line, escaped, is in the saved scene:\n{saved}"
    );
    let outside = |text: &str| {
        let start = text.find("<ASGARD>").unwrap();
        let end = text.find("</ASGARD>").unwrap();
        (text[..start].to_owned(), text[end..].to_owned())
    };
    assert_eq!(
        outside(&saved),
        outside(&original),
        "only the scene's bytes change"
    );
}

/// A memo whose scene has a mass and a sphere's size at the ends of its first two lines,
/// where keys reach them.
const MASS_AND_SIZE: &str = "<DOCUMENT CMEMO>
<CMEMO>
<TO>Tester</TO>
<FROM>Host test</FROM>
<SUBJECT>The full editor</SUBJECT>
<BODY>
<PARAGRAPH>
<DOCUMENT ANIMATION>
<ANIMATION>
<ASGARD>
shape_set ss1 desc \\{sphere 0.5\\}
body b1 shape ss1 init_pos \\{0 1 0\\} mass 2
simulator finish 1
</ASGARD>
</ANIMATION>
</DOCUMENT>
</PARAGRAPH>
</BODY>
</CMEMO>
</DOCUMENT>
";

/// The shown windows whose names match `pattern`.
fn windows_named(pattern: &str) -> Vec<String> {
    // xdotool search exits with 1 when nothing matches.
    let out = Command::new("xdotool")
        .args(["search", "--onlyvisible", "--name", pattern])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The first window whose name matches `pattern`, waiting for it to be shown.
fn window_named(pattern: &str) -> String {
    let start = Instant::now();
    loop {
        if let Some(window) = windows_named(pattern).into_iter().next() {
            return window;
        }
        assert!(
            start.elapsed() < LIMIT,
            "no window named '{pattern}' within {LIMIT:?}"
        );
        std::thread::sleep(POLL);
    }
}

/// Waits until the file at `path` holds `wanted`.
fn wait_for_file(path: &Path, wanted: &str) {
    let start = Instant::now();
    while std::fs::read_to_string(path).unwrap() != wanted {
        assert!(
            start.elapsed() < LIMIT,
            "the document did not become, within {LIMIT:?}:\n{wanted}\nit is:\n{}",
            std::fs::read_to_string(path).unwrap()
        );
        std::thread::sleep(POLL);
    }
}

/// In the full editor's language viewer `viewer`, changes the sphere of `MASS_AND_SIZE`
/// from 0.5 to 0.75 (the number before the first line's last brace) and applies it (Update).
fn make_the_sphere_larger(viewer: &str) {
    xdotool(None, &["windowfocus", "--sync", viewer, "key", "ctrl+Home"]);
    xdotool(
        None,
        &["key", "End", "Left", "BackSpace", "BackSpace", "BackSpace"],
    );
    xdotool(None, &["type", "0.75"]);
    xdotool(None, &["key", "ctrl+Return"]);
}

/// Closes the full editor from its control panel `panel` (Ctrl+W) and waits until none of its
/// windows is left.
fn close_the_full_editor(panel: &str) {
    xdotool(None, &["windowfocus", "--sync", panel, "key", "ctrl+w"]);
    let start = Instant::now();
    while !windows_named("host's document").is_empty() {
        assert!(start.elapsed() < LIMIT, "the editor's windows stay open");
        std::thread::sleep(POLL);
    }
}

/// Asgard ▸ Full Editor (Ctrl+Shift+E) opens the whole editor on the animation's scene: the
/// control panel, a graphical and a language viewer; opening it again opens no twin. A mass
/// changed in it and saved with the editor's own Save is saved by the host into the document;
/// a sphere's size changed then and saved from the host's File ▸ Save too; the document on
/// disk differs from the original by exactly those two numbers.
#[test]
fn the_full_editor_edits_the_document_and_saves_through_the_host() {
    let _display = one_test_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let memo = dir.path().join("full.sgml");
    std::fs::write(&memo, MASS_AND_SIZE).unwrap();
    let host = Host::open(&memo);
    host.wait_for("a frame shown", |a| {
        a["phase"] == "running" && frames_shown(a) > 0
    });

    let window = host.window();
    xdotool(
        None,
        &["windowfocus", "--sync", &window, "key", "ctrl+shift+e"],
    );
    // Titled for the host's document, without a modified star.
    let panel = window_named("^Animation in the host's document — Asgard$");
    window_named("host's document — Graphical viewer 1$");
    let viewer = window_named("host's document — Language viewer 1$");

    // The mass, at the end of the second line; the editor's Save (Ctrl+S) saves the document.
    xdotool(
        None,
        &["windowfocus", "--sync", &viewer, "key", "ctrl+Home"],
    );
    // The last character deleted, then typed anew. Keys without modifiers: under load a
    // shift+Left once arrived without its shift, and the 3 was typed after the 2.
    xdotool(None, &["key", "Down", "End", "BackSpace"]);
    xdotool(None, &["type", "3"]);
    xdotool(None, &["key", "ctrl+s"]);
    let mass_changed = MASS_AND_SIZE.replace("\\} mass 2", "\\} mass 3");
    wait_for_file(&memo, &mass_changed);
    host.wait_for_window("the document saved", |w| w["modified"] == false);

    // The sphere's radius, before the first line's last brace; Update, then the host saves.
    make_the_sphere_larger(&viewer);
    let state = host.wait_for_window("the document marked modified", |w| w["modified"] == true);
    assert!(
        !state[0]["status"].as_str().unwrap().starts_with("Saved"),
        "the status line no longer says the document is saved: {}",
        state[0]["status"]
    );
    xdotool(None, &["windowfocus", "--sync", &window, "key", "ctrl+s"]);
    let both_changed = mass_changed.replace("sphere 0.5", "sphere 0.75");
    wait_for_file(&memo, &both_changed);
    host.wait_for_window("the document saved", |w| w["modified"] == false);

    // Again: the open editor is raised, not doubled. Done after the typing: raising presents
    // every window of the editor whenever the request reaches the slave, and when it came
    // before the mass was typed, a loaded run once lost the BackSpace (the mass became 23),
    // most likely to the language viewer being presented again as the key arrived.
    xdotool(
        None,
        &["windowfocus", "--sync", &window, "key", "ctrl+shift+e"],
    );
    assert_eq!(windows_named("host's document — Asgard$").len(), 1);
    assert_eq!(windows_named("Language viewer").len(), 1);
    // The control panel closes the editor's windows; the host and its document stay.
    close_the_full_editor(&panel);
    let state = host.wait_for("the animation still runs", |a| a["phase"] == "running");
    assert_eq!(state[0]["modified"], false);
    assert_eq!(std::fs::read_to_string(&memo).unwrap(), both_changed);
}

/// The state of view `index` of the first animation.
fn view(animation: &Value, index: usize) -> &Value {
    &animation["views"][index]
}

/// Asgard ▸ New View of This Animation (Ctrl+Shift+N) shows a second rendition of the
/// animation beside the first, with its own time: while the first stays paused, the new one
/// plays, and its keys (End, Left, r, [, space) take it to the end, a frame back, and play it
/// backwards slowly. Both follow an edit made in the full editor (each paused view shows a new picture),
/// the document saved holds exactly that edit (the second view is the reader's, not stored),
/// and Close This View (Ctrl+Shift+W) takes the second view away again.
#[test]
fn a_second_view_has_its_own_time_and_both_follow_the_full_editor() {
    let _display = one_test_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let memo = dir.path().join("views.sgml");
    std::fs::write(&memo, MASS_AND_SIZE).unwrap();
    let host = Host::open(&memo);
    host.wait_for("a frame shown", |a| {
        a["phase"] == "running" && frames_shown(a) > 0
    });
    let window = host.window();
    // Asgard ▸ Stop pauses the document's view.
    xdotool(
        None,
        &["windowfocus", "--sync", &window, "key", "ctrl+period"],
    );
    host.wait_for("the first view paused", |a| view(a, 0)["playing"] == false);

    xdotool(
        None,
        &["windowfocus", "--sync", &window, "key", "ctrl+shift+n"],
    );
    let state = host.wait_for("a second view showing frames", |a| {
        frames_shown(view(a, 1)) > 0 && a["focused_view"] == 1
    });
    let animation = &state[0]["animations"][0];
    assert_eq!(view(animation, 1)["width"], view(animation, 0)["width"]);
    assert_eq!(view(animation, 1)["playing"], true);
    let paused_at = view(animation, 0)["time"].clone();
    let playing_from = view(animation, 1)["time"].as_f64().unwrap();
    host.wait_for("the second view's time moves on alone", |a| {
        view(a, 1)["time"].as_f64().unwrap() != playing_from && view(a, 0)["time"] == paused_at
    });

    // Stop now acts on the new view, which has the focus.
    xdotool(
        None,
        &["windowfocus", "--sync", &window, "key", "ctrl+period"],
    );
    host.wait_for("both views paused", |a| view(a, 1)["playing"] == false);
    // The keys of the focused view: End goes to the finish (1 s), Left a frame back; r
    // reverses, [ thrice slows to an eighth and space plays: the time goes backwards (the
    // host's views loop, so a step back from the start lands near the end).
    let time = |a: &Value| view(a, 1)["time"].as_f64().unwrap();
    xdotool(None, &["windowfocus", "--sync", &window, "key", "End"]);
    host.wait_for("the second view at its end", |a| time(a) > 0.999);
    xdotool(None, &["key", "Left"]);
    host.wait_for("the second view a frame back", |a| {
        (0.9..0.999).contains(&time(a))
    });
    xdotool(
        None,
        &[
            "key",
            "r",
            "bracketleft",
            "bracketleft",
            "bracketleft",
            "space",
        ],
    );
    let state = host.wait_for("the second view playing", |a| view(a, 1)["playing"] == true);
    let from = time(&state[0]["animations"][0]);
    let state = host.wait_for("the second view's time moving", |a| time(a) != from);
    let to = time(&state[0]["animations"][0]);
    let back = (from - to).rem_euclid(1.0);
    assert!(
        back > 0.0 && back < 0.5,
        "from {from} s the second view went to {to} s: not backwards at an eighth"
    );
    assert_eq!(view(&state[0]["animations"][0], 0)["time"], paused_at);
    xdotool(None, &["key", "space"]);
    host.wait_for("the second view paused again", |a| {
        view(a, 1)["playing"] == false
    });
    let before: Vec<Value> = (0..2)
        .map(|i| view(&state[0]["animations"][0], i)["picture"].clone())
        .collect();

    // The sphere's radius, changed in the full editor's language viewer and applied.
    xdotool(
        None,
        &["windowfocus", "--sync", &window, "key", "ctrl+shift+e"],
    );
    let viewer = window_named("host's document — Language viewer 1$");
    make_the_sphere_larger(&viewer);
    host.wait_for_window("both views show the larger ball", |w| {
        let a = &w["animations"][0];
        w["modified"] == true && (0..2).all(|i| view(a, i)["picture"] != before[i])
    });

    xdotool(None, &["windowfocus", "--sync", &window, "key", "ctrl+s"]);
    wait_for_file(&memo, &MASS_AND_SIZE.replace("sphere 0.5", "sphere 0.75"));

    xdotool(
        None,
        &["windowfocus", "--sync", &window, "key", "ctrl+shift+w"],
    );
    let state = host.wait_for("the second view closed", |a| {
        a["views"].as_array().unwrap().len() == 1
    });
    assert_eq!(state[0]["animations"][0]["phase"], "running");

    // The editor's windows closed before the next test looks for its own by name.
    let panel = window_named("host's document — Asgard$");
    close_the_full_editor(&panel);
}

/// A scene whose computed motion (to its finish, 0.1 s) is fine but whose live run, which goes
/// on past the finish, blows up at about 0.2 s: x' = 100 x².
const FAILS_LIVE: &str = "<DOCUMENT CMEMO>
<CMEMO>
<TO>Tester</TO>
<FROM>Host test</FROM>
<SUBJECT>A live run that fails</SUBJECT>
<BODY>
<PARAGRAPH>
<DOCUMENT ANIMATION>
<ANIMATION>
<ASGARD>
shape_set ss1 desc \\{sphere 0.5\\}
body b shape ss1 init_pos \\{1 0 0\\}
force body b x \\{[b x] * [b x] * 100\\} y 0 z 0
simulator finish 0.1
</ASGARD>
</ANIMATION>
</DOCUMENT>
</PARAGRAPH>
</BODY>
</CMEMO>
</DOCUMENT>
";

/// Asgard ▸ Live (Ctrl+L) runs the animation live; when the live run fails, the slave returns
/// the rendition to playback and the toggle is unticked again.
#[test]
fn the_live_toggle_follows_a_live_run_that_fails() {
    let _display = one_test_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let memo = dir.path().join("fails.sgml");
    std::fs::write(&memo, FAILS_LIVE).unwrap();
    let host = Host::open(&memo);
    let state = host.wait_for("a frame shown", |a| {
        a["phase"] == "running" && frames_shown(a) > 0
    });
    assert_eq!(state[0]["live_toggle"], false);
    assert_eq!(state[0]["animations"][0]["message"], "");

    let window = host.window();
    xdotool(None, &["windowfocus", "--sync", &window, "key", "ctrl+l"]);
    let state = host.wait_for_window("the live run failed and Live unticked", |w| {
        let message = w["animations"][0]["message"].as_str().unwrap_or("");
        message.contains("simulation failed") && w["live_toggle"] == false
    });
    assert_eq!(state[0]["animations"][0]["phase"], "running");
}

/// Whether process `pid` has ended (gone, or a zombie nobody reaped).
fn ended(pid: u64) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command name in parentheses.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
        Err(_) => true,
    }
}

/// Closes a host that shows the memo with Ctrl+W; `edit_first` types into the first field
/// before, so that the close asks and is answered "Don't Save". The host must exit with status
/// 0 (it aborted while tearing down its windows), its slave must end, and the file must be
/// untouched.
fn close_the_memo(edit_first: bool) {
    let _display = one_test_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let memo = dir.path().join("memo.sgml");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/memo.sgml");
    std::fs::copy(&example, &memo).unwrap();
    let original = std::fs::read(&memo).unwrap();
    let mut host = Host::open(&memo);
    let state = host.wait_for("a frame shown", |a| {
        a["phase"] == "running" && frames_shown(a) > 0
    });
    let slave = state[0]["animations"][0]["slave_pid"].as_u64().unwrap();
    let window = host.window();
    if edit_first {
        // Tab focuses the first field (To:); typing there modifies the document.
        xdotool(None, &["windowfocus", "--sync", &window, "key", "Tab"]);
        xdotool(None, &["type", "--delay", "20", "x"]);
        host.wait_for_window("the document marked modified", |w| w["modified"] == true);
    }
    xdotool(None, &["windowfocus", "--sync", &window, "key", "ctrl+w"]);
    if edit_first {
        let dialog = host.new_window(&[&window]);
        xdotool(None, &["windowfocus", "--sync", &dialog, "key", "alt+d"]);
    }
    let status = host.wait_for_exit();
    assert_eq!(status.code(), Some(0), "the host's exit: {status:?}");
    let start = Instant::now();
    while !ended(slave) {
        assert!(
            start.elapsed() < LIMIT,
            "the slave {slave} outlived its host"
        );
        std::thread::sleep(POLL);
    }
    assert_eq!(std::fs::read(&memo).unwrap(), original);
}

#[test]
fn closing_an_unmodified_document_ends_the_host_with_status_0() {
    close_the_memo(false);
}

#[test]
fn closing_with_dont_save_ends_the_host_with_status_0() {
    close_the_memo(true);
}

/// Save over a read-only document asks first: Cancel leaves the file and the modified mark,
/// Save Anyway replaces it with a version that is read-only too, and keeps the old one as the
/// backup.
#[test]
fn saving_over_a_read_only_document_asks_first() {
    use std::os::unix::fs::PermissionsExt;
    let _display = one_test_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let memo = dir.path().join("memo.sgml");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/memo.sgml");
    std::fs::copy(&example, &memo).unwrap();
    let read_only = std::fs::Permissions::from_mode(0o444);
    std::fs::set_permissions(&memo, read_only).unwrap();
    let original = std::fs::read(&memo).unwrap();
    let host = Host::open(&memo);
    host.wait_for("a frame shown", |a| {
        a["phase"] == "running" && frames_shown(a) > 0
    });
    let window = host.window();
    xdotool(None, &["windowfocus", "--sync", &window, "key", "Tab"]);
    xdotool(None, &["type", "--delay", "20", "x"]);
    host.wait_for_window("the document marked modified", |w| w["modified"] == true);

    xdotool(None, &["windowfocus", "--sync", &window, "key", "ctrl+s"]);
    let question = host.new_window(&[&window]);
    let state = host.wait_for_window("the refusal said", |w| {
        w["status"]
            .as_str()
            .is_some_and(|s| s.ends_with("is read-only."))
    });
    assert_eq!(state[0]["modified"], true);
    xdotool(None, &["windowfocus", "--sync", &question, "key", "alt+c"]);
    host.wait_for_window("not saved", |w| {
        w["status"]
            .as_str()
            .is_some_and(|s| s.starts_with("Not saved"))
    });
    assert_eq!(std::fs::read(&memo).unwrap(), original);

    xdotool(None, &["windowfocus", "--sync", &window, "key", "ctrl+s"]);
    let question = host.new_window(&[&window, &question]);
    xdotool(None, &["windowfocus", "--sync", &question, "key", "alt+a"]);
    host.wait_for_window("saved anyway", |w| w["modified"] == false);
    assert_ne!(std::fs::read(&memo).unwrap(), original);
    let mode = std::fs::metadata(&memo).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o444, "the saved document is read-only too");
    assert_eq!(
        std::fs::read(dir.path().join("memo.sgml~")).unwrap(),
        original
    );
}

/// 128 balls on a floor stepped every 0.1 ms: far too costly to run live in real time.
const COSTLY_LIVE: &str = "simulator finish 0.01 live_dt 0.0001
shape_set ball desc {sphere 0.5}
shape_set slab desc {face {color grey {-20 0 -20} {20 0 -20} {20 0 20} {-20 0 20}} face {color grey {-20 -1 -20} {-20 -1 20} {20 -1 20} {20 -1 -20}}}
body floor shape slab fixed 1
for {set i 0} {$i < 8} {incr i} {
  for {set j 0} {$j < 8} {incr j} {
    for {set k 0} {$k < 2} {incr k} {
      body b$i-$j-$k shape ball init_pos [list [expr {$i * 1.01}] [expr {0.5 + $k * 1.01}] [expr {$j * 1.01}]]
      force body b$i-$j-$k gravity {0 -9.81 0}
    }
  }
}
";

/// Live playback of a scene too costly for real time says so over the animation ("Live:
/// running at …× real time") and the host stays responsive: Live off again takes the notice
/// away, and Ctrl+W ends the host with status 0.
#[test]
fn live_playback_too_costly_for_real_time_says_so_and_the_host_stays_responsive() {
    let _display = one_test_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let memo = dir.path().join("costly.sgml");
    let document = format!(
        "<DOCUMENT CMEMO>\n<CMEMO>\n<TO>Tester</TO>\n<FROM>Host test</FROM>\n\
         <SUBJECT>Too costly for real time</SUBJECT>\n<BODY>\n<PARAGRAPH>\n\
         <DOCUMENT ANIMATION>\n<ANIMATION>\n<ASGARD>\n{}</ASGARD>\n</ANIMATION>\n\
         </DOCUMENT>\n</PARAGRAPH>\n</BODY>\n</CMEMO>\n</DOCUMENT>\n",
        asgard::doc::escape::escape_scene(COSTLY_LIVE)
    );
    std::fs::write(&memo, document).unwrap();
    let mut host = Host::open(&memo);
    host.wait_for("a frame shown", |a| {
        a["phase"] == "running" && frames_shown(a) > 0
    });
    let window = host.window();
    xdotool(None, &["windowfocus", "--sync", &window, "key", "ctrl+l"]);
    let state = host.wait_for("the slow-down shown", |a| {
        a["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("Live: running at ") && m.ends_with("× real time"))
    });
    assert_eq!(state[0]["live_toggle"], true);
    xdotool(None, &["windowfocus", "--sync", &window, "key", "ctrl+l"]);
    host.wait_until("Live off and the notice gone", |w| {
        w[0]["live_toggle"] == false && w[0]["animations"][0]["message"] == ""
    });
    xdotool(None, &["windowfocus", "--sync", &window, "key", "ctrl+w"]);
    assert_eq!(host.wait_for_exit().code(), Some(0));
}

/// A document whose markup is malformed opens a window that says where (`FILE:LINE:COLUMN:
/// error: …`) over an untitled memo; the file is not touched.
#[test]
fn a_malformed_document_is_reported_in_a_window_and_left_as_it_is() {
    let _display = one_test_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.sgml");
    let text = MASS_AND_SIZE.replace("</TO>", "</FROM>");
    std::fs::write(&bad, &text).unwrap();
    let host = Host::open(&bad);
    let state = host.wait_for_window("the problem in the status line", |w| {
        w["status"].as_str().unwrap_or("").contains("bad.sgml:3:")
    });
    let status = state[0]["status"].as_str().unwrap();
    assert!(status.contains(": error: "), "{status}");
    assert_eq!(
        state[0]["path"],
        Value::Null,
        "the bad file is not the one open"
    );
    assert_eq!(state[0]["modified"], false);
    window_named("^Cannot Open the Document$");
    drop(host);
    assert_eq!(std::fs::read_to_string(&bad).unwrap(), text);
}
