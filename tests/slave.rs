//! The slave process against the contract: the interfaces it serves are the schemas' (a
//! round trip through introspection), and a client we did not write — Python's `jeepney`,
//! driven by `tests/conformance/jeepney_host.py` — loads a scene, reads moving frames through
//! the shared memory, drags a handle and gets the edited text back, and gets named errors for
//! bad calls.
//!
//! `jeepney` is installed from PyPI into a virtual environment under `target/` when it is
//! missing there; the test fails (it does not skip) when that is impossible.

mod xdotool;
use asgard::ipc::names::{RENDITION_XML, SUBDOCUMENT_XML};
use asgard::ipc::{
    Error as CallError, FrameReader, RenditionProxyBlocking, SlaveProcess, SubdocumentProxy,
    SubdocumentProxyBlocking,
};
use quick_xml::events::Event;
use quick_xml::Reader;
use std::path::{Path, PathBuf};
use std::process::Command;
use xdotool::xdotool;
use zbus::fdo::IntrospectableProxy;
use zbus::proxy::CacheProperties;

const ASGARD: &str = env!("CARGO_BIN_EXE_asgard");

/// The members of interface `name` in introspection `xml`, as comparable lines: methods and
/// signals with their arguments (name, type, direction), properties with type, access and
/// their EmitsChangedSignal annotation. Documentation annotations are left out.
fn members(xml: &str, name: &str) -> Vec<String> {
    let mut reader = Reader::from_str(xml);
    let mut out = Vec::new();
    let mut inside = false;
    // The member being read: its line so far, and whether it is a property.
    let mut member: Option<(String, bool)> = None;
    loop {
        let event = reader.read_event().expect("well-formed introspection XML");
        let (start, element, empty) = match &event {
            Event::Start(e) => (true, e.clone(), false),
            Event::Empty(e) => (true, e.clone(), true),
            Event::End(e) => {
                match e.name().0 {
                    "interface" => inside = false,
                    "method" | "signal" | "property" => out.extend(member.take().map(|m| m.0)),
                    _ => {}
                }
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        debug_assert!(start);
        let attribute = |key: &str| {
            element
                .attributes()
                .flatten()
                .find(|a| a.key.0 == key)
                .map(|a| a.value.to_string())
                .unwrap_or_default()
        };
        let tag = element.name().0.to_string();
        match tag.as_str() {
            "interface" => inside = attribute("name") == name,
            "method" | "signal" if inside => {
                let kind = tag.clone();
                member = Some((format!("{kind} {}:", attribute("name")), false));
            }
            "property" if inside => {
                let line = format!(
                    "property {} {} {}",
                    attribute("name"),
                    attribute("type"),
                    attribute("access")
                );
                member = Some((line, true));
            }
            "arg" => {
                if let Some((line, _)) = member.as_mut() {
                    let direction = match attribute("direction").as_str() {
                        "" => "in".to_string(),
                        d => d.to_string(),
                    };
                    line.push_str(&format!(
                        " {} {} {direction}",
                        attribute("name"),
                        attribute("type")
                    ));
                }
            }
            "annotation"
                if attribute("name") == "org.freedesktop.DBus.Property.EmitsChangedSignal" =>
            {
                if let Some((line, true)) = member.as_mut() {
                    line.push_str(&format!(" emits={}", attribute("value")));
                }
            }
            _ => {}
        }
        if empty && matches!(tag.as_str(), "method" | "signal" | "property") {
            out.extend(member.take().map(|m| m.0));
        }
    }
    out.sort();
    assert!(!out.is_empty(), "{name} has no members in:\n{xml}");
    out
}

/// `asgard slave` on a private connection, with a blocking connection to it.
fn start_slave() -> (std::process::Child, zbus::blocking::Connection) {
    let mut command = Command::new(ASGARD);
    command.arg("slave");
    let SlaveProcess { child, connection } = zbus::block_on(SlaveProcess::spawn(command)).unwrap();
    (child, zbus::blocking::Connection::from(connection))
}

#[test]
fn the_served_interfaces_are_the_schemas() {
    zbus::block_on(async {
        let mut command = Command::new(ASGARD);
        command.arg("slave");
        let SlaveProcess {
            mut child,
            connection,
        } = SlaveProcess::spawn(command).await.unwrap();
        let subdocument = SubdocumentProxy::new(&connection).await.unwrap();
        let rendition = subdocument.create_rendition(16, 16).await.unwrap();
        for (path, schema, name) in [
            (
                "/org/asgard/Asgard1/Subdocument",
                SUBDOCUMENT_XML,
                "org.asgard.Subdocument1",
            ),
            (rendition.as_str(), RENDITION_XML, "org.asgard.Rendition1"),
        ] {
            let introspectable = IntrospectableProxy::builder(&connection)
                .destination("org.asgard.Asgard1")
                .unwrap()
                .path(path)
                .unwrap()
                .build()
                .await
                .unwrap();
            let served = introspectable.introspect().await.unwrap();
            assert_eq!(
                members(&served, name),
                members(schema, name),
                "{name} as served at {path} differs from its schema"
            );
        }
        drop(subdocument);
        drop(connection);
        assert!(child.wait().unwrap().success());
    });
}

/// The Python of a virtual environment under `target/` that has `jeepney`, made when missing.
fn python_with_jeepney() -> PathBuf {
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("jeepney-venv");
    let python = venv.join("bin/python");
    let has_jeepney = |python: &Path| {
        Command::new(python)
            .args(["-c", "import jeepney"])
            .status()
            .is_ok_and(|s| s.success())
    };
    if has_jeepney(&python) {
        return python;
    }
    let made = Command::new("python3")
        .args(["-m", "venv"])
        .arg(&venv)
        .status()
        .expect("python3 must be installed to run the conformance host");
    assert!(made.success(), "python3 -m venv {} failed", venv.display());
    let installed = Command::new(venv.join("bin/pip"))
        .args(["install", "--quiet", "jeepney"])
        .status()
        .expect("running pip");
    assert!(
        installed.success() && has_jeepney(&python),
        "cannot install jeepney from PyPI into {}",
        venv.display()
    );
    python
}

#[test]
fn a_host_we_did_not_write_drives_the_slave() {
    let python = python_with_jeepney();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/jeepney_host.py");
    let output = Command::new(python)
        .arg("-u")
        .arg(script)
        .arg(ASGARD)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the jeepney host failed:\n{stdout}\n{stderr}"
    );
    for check in [
        "ok scene loads",
        "ok frames move",
        "ok a handle drag edits the text",
        "ok bad arguments get named errors",
        "ok a bad scene is kept and reported",
        "ok a flood of 20000 motions is served",
        "ok a closed rendition answers Closed",
        "ok the slave exits when the host closes the connection",
    ] {
        assert!(stdout.contains(check), "missing '{check}' in:\n{stdout}");
    }
}

/// OpenEditor opens the full editor on the slave's own session (6.2.4), right after the host
/// made a rendition (the editor's GL and the rendition's share the slave's main thread): text
/// typed into its language viewer and applied with Update reaches the host as
/// SceneTextChanged.
#[test]
fn an_editor_the_host_opens_edits_the_slaves_scene() {
    let display = std::env::var("DISPLAY")
        .expect("this test needs a display: run it under xvfb-run, as scripts/test does");
    let (mut child, connection) = start_slave();
    let subdocument = SubdocumentProxyBlocking::new(&connection).unwrap();
    let pendulum = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/pendulum.asg");
    subdocument
        .set_scene_text(&std::fs::read_to_string(pendulum).unwrap())
        .unwrap();

    const TYPED: &str = "# typed in the editor the host opened";
    let (sender, received) = std::sync::mpsc::channel();
    let listener = subdocument.clone();
    let changes = listener.receive_scene_text_changed().unwrap();
    std::thread::spawn(move || {
        for signal in changes {
            let text = signal.args().unwrap().text;
            if text.contains(TYPED) {
                let _ = sender.send(text);
                return;
            }
        }
    });
    subdocument.create_rendition(64, 48).unwrap();
    subdocument.open_editor("full").unwrap();
    let window = xdotool(
        Some(&display),
        &[
            "search",
            "--sync",
            "--onlyvisible",
            "--name",
            "Language viewer 1$",
        ],
    );
    let window = window.lines().next().expect("the language viewer's window");
    xdotool(
        Some(&display),
        &["windowfocus", "--sync", window, "key", "ctrl+End"],
    );
    xdotool(
        Some(&display),
        &["type", "--delay", "20", &format!("\n{TYPED}\n")],
    );
    xdotool(Some(&display), &["key", "ctrl+Return"]);

    let text = received
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("SceneTextChanged with the typed line within a minute");
    assert!(
        text.contains("body b3"),
        "the rest of the scene is kept: {text}"
    );
    assert_eq!(subdocument.get_scene_text().unwrap(), text);
    // The slave ends when the last proxy lets go of the connection, editor windows and all.
    drop(listener);
    drop(subdocument);
    drop(connection);
    assert!(child.wait().unwrap().success());
}

/// Waits until `condition` holds, polling; fails naming `what` after a minute.
fn wait_until(what: &str, condition: impl Fn() -> bool) {
    let start = std::time::Instant::now();
    while !condition() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(60),
            "not {what} within a minute"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// The transport over D-Bus: `Step` moves whole output steps either way within the span,
/// `Rate` plays backwards (down to the start, where playback stops) and refuses speeds outside
/// 1/8 to 8, and the keys a host forwards do the same (End, Left, `[`, `r`).
#[test]
fn reverse_playback_and_steps_land_on_the_expected_times() {
    let (mut child, connection) = start_slave();
    let subdocument = SubdocumentProxyBlocking::builder(&connection)
        .cache_properties(CacheProperties::No)
        .build()
        .unwrap();
    subdocument
        .set_scene_text(
            "shape_set s desc {sphere 0.5}\nbody b shape s init_dpos {1 0 0}\n\
             simulator finish 0.5 step 0.01\n",
        )
        .unwrap();
    let path = subdocument.create_rendition(32, 32).unwrap();
    let rendition = RenditionProxyBlocking::uncached(&connection, path).unwrap();
    wait_until("simulated", || subdocument.status().unwrap() == "ready");
    let time = || rendition.time().unwrap();
    let near = |a: f64, b: f64| (a - b).abs() < 1e-9;

    rendition.step(3).unwrap();
    assert!(near(time(), 0.03), "three steps forward: {}", time());
    rendition.step(-1).unwrap();
    assert!(near(time(), 0.02), "one step back: {}", time());
    rendition.step(-10).unwrap();
    assert_eq!(time(), 0.0, "steps stop at the start");

    rendition.seek(0.5).unwrap();
    rendition.set_rate(-8.0).unwrap();
    assert_eq!(rendition.rate().unwrap(), -8.0);
    rendition.play().unwrap();
    wait_until("played back to the start", || !rendition.playing().unwrap());
    assert_eq!(time(), 0.0, "reverse playback ends at the start");

    let refused = rendition.set_rate(20.0).unwrap_err().to_string();
    assert!(refused.contains("0.125 to 8"), "{refused}");
    assert_eq!(
        rendition.rate().unwrap(),
        -8.0,
        "a refused rate changes nothing"
    );

    rendition.key("End", true, 0).unwrap();
    assert_eq!(time(), 0.5);
    rendition.key("Left", true, 0).unwrap();
    rendition.key("Left", false, 0).unwrap();
    assert!(near(time(), 0.49), "Left steps back: {}", time());
    rendition.key("bracketleft", true, 0).unwrap();
    assert_eq!(rendition.rate().unwrap(), -4.0);
    rendition.key("r", true, 0).unwrap();
    assert_eq!(rendition.rate().unwrap(), 4.0);

    drop(rendition);
    drop(subdocument);
    drop(connection);
    assert!(child.wait().unwrap().success());
}

/// A ball drifting up between two fixed markers, for live mode: the ball red, the markers
/// green, so the ball's pixels can be told apart.
const LIVE_SCENE: &str = "shape_set ball desc {sphere 0.4 color red}
shape_set marker desc {sphere 0.2 color green}
body b shape ball init_pos {0 0 0} init_dpos {0 0.1 0}
body left shape marker init_pos {-3 0 0} fixed 1
body right shape marker init_pos {3 0 0} fixed 1
";

/// The frames of one rendition as they are announced: each FrameReady's newest whole frame.
struct LiveFrames {
    reader: FrameReader,
    announced: std::sync::mpsc::Receiver<()>,
    width: usize,
}

/// One frame read back: the simulated time it shows and its pixels.
struct Shown {
    time: f64,
    pixels: Vec<u8>,
}

impl LiveFrames {
    fn new(rendition: &RenditionProxyBlocking<'static>) -> LiveFrames {
        let reader = FrameReader::from_reply(rendition.get_frame_buffer().unwrap()).unwrap();
        let width = reader.layout().width as usize;
        let (sender, announced) = std::sync::mpsc::channel();
        let signals = rendition.receive_frame_ready().unwrap();
        std::thread::spawn(move || {
            for _ in signals {
                if sender.send(()).is_err() {
                    return;
                }
            }
        });
        LiveFrames {
            reader,
            announced,
            width,
        }
    }

    /// The next frame announced.
    fn next(&self) -> Shown {
        self.announced
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("a FrameReady within a minute");
        let mut pixels = Vec::new();
        let info = self.reader.read_latest(&mut pixels).expect("a whole frame");
        Shown {
            time: info.time,
            pixels,
        }
    }

    /// The first of the next thousand frames announced for which `wanted` holds.
    fn first(&self, wanted: impl Fn(&Shown) -> bool) -> Shown {
        for _ in 0..1000 {
            let shown = self.next();
            if wanted(&shown) {
                return shown;
            }
        }
        panic!("no frame of the next thousand is the one expected");
    }

    /// The first frame announced that shows `time` or later.
    fn at_least(&self, time: f64) -> Shown {
        self.first(|shown| shown.time >= time)
    }

    /// The centre of the red pixels (the ball) of `shown`, in rendition pixels.
    fn ball(&self, shown: &Shown) -> (f64, f64) {
        let stride = self.reader.layout().stride as usize;
        let (mut sum_x, mut sum_y, mut count) = (0.0, 0.0, 0.0);
        for (row, line) in shown.pixels.chunks(stride).enumerate() {
            for (column, pixel) in line[..self.width * 4].chunks(4).enumerate() {
                let (r, g, b) = (
                    f64::from(pixel[0]),
                    f64::from(pixel[1]),
                    f64::from(pixel[2]),
                );
                if r > 60.0 && r > 2.5 * g && r > 2.5 * b {
                    sum_x += column as f64;
                    sum_y += row as f64;
                    count += 1.0;
                }
            }
        }
        assert!(
            count > 20.0,
            "the ball is not in the picture ({count} red pixels)"
        );
        (sum_x / count, sum_y / count)
    }
}

/// The D-Bus error name in a failed property call.
fn error_name(e: &zbus::Error) -> String {
    match e {
        zbus::Error::MethodError(name, _, _) => name.to_string(),
        zbus::Error::FDO(e) => zbus::DBusError::name(e.as_ref()).to_string(),
        other => panic!("expected a D-Bus error, got {other:?}"),
    }
}

/// Live mode over D-Bus (issue 8 §3): `Mode = live` runs the scene in real time, so frames
/// keep coming with a rising time; a press on the ball, a motion and a release pull it the
/// way of the drag; an arrow key pushes it; a new scene restarts the run; other renditions
/// keep their own mode; `Mode = playback` returns to the computed motion where it was; bad
/// modes and playback commands in live mode get named errors.
#[test]
fn a_live_rendition_runs_in_real_time_and_a_drag_pulls_the_body() {
    let (mut child, connection) = start_slave();
    let subdocument = SubdocumentProxyBlocking::new(&connection).unwrap();
    subdocument.set_scene_text(LIVE_SCENE).unwrap();
    let rendition = |path| RenditionProxyBlocking::uncached(&connection, path).unwrap();
    let live = rendition(subdocument.create_rendition(320, 240).unwrap());
    let other = rendition(subdocument.create_rendition(64, 48).unwrap());
    let frames = LiveFrames::new(&live);

    let refused = live.set_mode("fast").unwrap_err();
    assert_eq!(
        error_name(&refused),
        "org.freedesktop.DBus.Error.InvalidArgs"
    );
    assert_eq!(live.mode().unwrap(), "playback");
    live.set_mode("live").unwrap();
    assert_eq!(live.mode().unwrap(), "live");
    assert_eq!(
        other.mode().unwrap(),
        "playback",
        "each rendition has its own mode"
    );
    assert!(matches!(live.play(), Err(CallError::NotAvailable(_))));

    // The run advances in real time: every frame shows a later time, and the ball drifts.
    let first = frames.at_least(0.05);
    let mut last = first.time;
    for _ in 0..5 {
        let time = frames.next().time;
        assert!(time >= last, "{time} after {last}");
        last = time;
    }
    let later = frames.at_least(first.time + 0.5);
    assert!(later.time > first.time);
    assert_ne!(later.pixels, first.pixels, "the live picture changes");
    assert!(live.time().unwrap() >= later.time);

    // Pull the ball 60 pixels to the right.
    let (x, y) = frames.ball(&later);
    live.pointer("press", 1, x, y, 0).unwrap();
    live.pointer("motion", 0, x + 30.0, y, 0).unwrap();
    live.pointer("motion", 0, x + 60.0, y, 0).unwrap();
    let pulled = frames.at_least(frames.next().time + 1.0);
    live.pointer("release", 1, x + 60.0, y, 0).unwrap();
    let (pulled_x, pulled_y) = frames.ball(&pulled);
    // The spring holds the grabbed point (the ball's front) under the pointer; the centre may
    // turn about it, by less than the radius.
    assert!(
        pulled_x - x > 30.0 && (pulled_y - y).abs() < 20.0,
        "the ball follows the drag from ({x}, {y}) to ({}, {y}): it is at ({pulled_x}, {pulled_y})",
        x + 60.0
    );

    // A new scene text starts the run again from its start.
    subdocument
        .set_scene_text(&LIVE_SCENE.replace("init_dpos {0 0.1 0}", "init_dpos {0 0 0}"))
        .unwrap();
    let restarted = frames.first(|shown| shown.time < pulled.time);
    assert!(restarted.time < 0.5, "{}", restarted.time);
    assert_eq!(live.mode().unwrap(), "live");

    // A click on the ball selects it for the arrow keys, which push it along the screen.
    let still = frames.at_least(restarted.time + 0.1);
    let (x, y) = frames.ball(&still);
    live.pointer("press", 1, x, y, 0).unwrap();
    live.pointer("release", 1, x, y, 0).unwrap();
    live.key("Right", true, 0).unwrap();
    let pushing = frames.at_least(frames.next().time + 0.3);
    live.key("Right", false, 0).unwrap();
    let (pushed_x, pushed_y) = frames.ball(&pushing);
    assert!(
        pushed_x > x + 3.0 && (pushed_y - y).abs() < 3.0,
        "pushed from ({x}, {y}) to ({pushed_x}, {pushed_y})"
    );

    // Back to playback, which goes on where it was: paused at the start.
    live.set_mode("playback").unwrap();
    assert_eq!(live.mode().unwrap(), "playback");
    assert_eq!(live.time().unwrap(), 0.0);
    assert!(!live.playing().unwrap());
    live.seek(0.125).unwrap();
    assert_eq!(live.time().unwrap(), 0.125);
    live.play().unwrap();
    assert!(live.playing().unwrap());

    drop((live, other, frames));
    drop(subdocument);
    // Closed, not dropped: the threads waiting on signals hold clones of it.
    connection.close().unwrap();
    assert!(child.wait().unwrap().success());
}

/// 128 balls on a floor stepped every 0.1 ms: a live step costs far more processor time than
/// the real time it covers. The computed motion is kept short.
/// A scene no machine can run live in real time: steps of a microsecond, each advancing 27
/// falling balls, so that keeping pace would take a million steps of the whole scene per
/// second. (No contact: the cost is the number of steps, the same on every machine.)
const COSTLY_LIVE: &str = "simulator finish 10 live_dt 0.000001
shape_set ball desc {sphere 0.5}
for {set i 0} {$i < 3} {incr i} {
  for {set j 0} {$j < 3} {incr j} {
    for {set k 0} {$k < 3} {incr k} {
      body b$i-$j-$k shape ball init_pos [list [expr {$i * 1.5}] [expr {$k * 1.5}] [expr {$j * 1.5}]]
      force body b$i-$j-$k gravity {0 -9.81 0}
    }
  }
}
";

/// Every `LiveRate` that `properties`' object announces in PropertiesChanged, from now on, in a
/// channel (so that a test waits for one with a timeout, never for ever).
fn announced_live_rates(
    properties: &zbus::blocking::fdo::PropertiesProxy<'static>,
) -> std::sync::mpsc::Receiver<f64> {
    let changes = properties.receive_properties_changed().unwrap();
    let (sender, rates) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for signal in changes {
            let args = signal.args().unwrap();
            if let Some(zbus::zvariant::Value::F64(rate)) =
                args.changed_properties().get("LiveRate")
            {
                if sender.send(*rate).is_err() {
                    return;
                }
            }
        }
    });
    rates
}

/// A live rendition too costly for real time slows down and says so (LiveRate below 1,
/// announced), while frames keep coming and calls keep being answered: a drag, the return to
/// playback (LiveRate 1 again), and the end of the connection, which ends the slave.
#[test]
fn a_live_rendition_too_costly_for_real_time_slows_down_and_keeps_answering() {
    let (mut child, connection) = start_slave();
    let subdocument = SubdocumentProxyBlocking::new(&connection).unwrap();
    subdocument.set_scene_text(COSTLY_LIVE).unwrap();
    let path = subdocument.create_rendition(160, 120).unwrap();
    let live = RenditionProxyBlocking::uncached(&connection, path).unwrap();
    assert_eq!(live.live_rate().unwrap(), 1.0);
    let properties = zbus::blocking::fdo::PropertiesProxy::builder(&connection)
        .destination("org.asgard.Asgard1")
        .unwrap()
        .path(live.inner().path().to_owned())
        .unwrap()
        .build()
        .unwrap();
    let rates = announced_live_rates(&properties);
    let frames = LiveFrames::new(&live);
    live.set_mode("live").unwrap();

    let announced = rates
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("a LiveRate announced within a minute");
    assert!(announced > 0.0 && announced < 1.0, "{announced}");
    let rate = live.live_rate().unwrap();
    assert!(rate < 1.0, "{rate}");

    let first = frames.next();
    let second = frames.next();
    assert!(second.time >= first.time);
    live.pointer("press", 1, 80.0, 60.0, 0).unwrap();
    live.pointer("motion", 0, 100.0, 60.0, 0).unwrap();
    live.pointer("release", 1, 100.0, 60.0, 0).unwrap();
    assert!(live.time().unwrap() >= second.time);

    live.set_mode("playback").unwrap();
    assert_eq!(live.live_rate().unwrap(), 1.0);
    drop((live, properties, rates, frames));
    drop(subdocument);
    // Closed, not dropped: the threads waiting on signals hold clones of it.
    connection.close().unwrap();
    assert!(child.wait().unwrap().success());
}

/// A slave serving the session bus, and the line it printed at start-up: its bus name and its
/// access token.
struct SessionSlave {
    /// The process that started the slave: the slave itself, or a shell in between.
    starter: std::process::Child,
    pid: u32,
    name: String,
    token: String,
}

impl SessionSlave {
    /// `asgard slave --session-bus`, started by this process, or with `through_shell` by a
    /// shell, so that this process is not the one that started it.
    fn start(through_shell: bool) -> SessionSlave {
        use std::io::BufRead;
        assert!(
            std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some(),
            "this test needs a session bus: run it with scripts/test"
        );
        let mut command = if through_shell {
            let mut shell = Command::new("sh");
            shell.args(["-c", "\"$0\" slave --session-bus & wait", ASGARD]);
            shell
        } else {
            let mut slave = Command::new(ASGARD);
            slave.args(["slave", "--session-bus"]);
            slave
        };
        let mut starter = command
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(starter.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let (name, token) = line
            .trim_end()
            .split_once(' ')
            .unwrap_or_else(|| panic!("expected 'NAME TOKEN', the slave printed {line:?}"));
        let pid = name
            .strip_prefix("org.asgard.Asgard1.Slave")
            .and_then(|pid| pid.parse().ok())
            .unwrap_or_else(|| panic!("not a slave's bus name: {name}"));
        assert_eq!(token.len(), 32, "{token}");
        SessionSlave {
            starter,
            pid,
            name: name.to_owned(),
            token: token.to_owned(),
        }
    }

    fn subdocument<'a>(&self, bus: &'a zbus::blocking::Connection) -> SubdocumentProxyBlocking<'a> {
        SubdocumentProxyBlocking::builder(bus)
            .destination(self.name.clone())
            .unwrap()
            .cache_properties(CacheProperties::No)
            .build()
            .unwrap()
    }

    fn authenticate(&self, bus: &zbus::blocking::Connection, token: &str) -> zbus::Result<()> {
        bus.call_method(
            Some(self.name.as_str()),
            "/org/asgard/Asgard1/Subdocument",
            Some("org.asgard.SessionAccess1"),
            "Authenticate",
            &(token,),
        )
        .map(|_| ())
    }
}

impl Drop for SessionSlave {
    fn drop(&mut self) {
        let _ = Command::new("kill").arg(self.pid.to_string()).status();
        let _ = self.starter.kill();
        let _ = self.starter.wait();
    }
}

fn access_denied(result: Result<impl std::fmt::Debug, CallError>) -> String {
    match result {
        Err(CallError::AccessDenied(message)) => message,
        other => panic!("expected AccessDenied, got {other:?}"),
    }
}

/// `--session-bus` answers a process that did not start it only after it authenticated with
/// the token printed at start-up: before, every call (and property) is refused with a named
/// error saying how to get in, and the scene cannot be replaced; a wrong token is refused;
/// admission is per connection.
#[test]
fn on_the_session_bus_a_stranger_needs_the_token() {
    let slave = SessionSlave::start(true);
    let bus = zbus::blocking::Connection::session().unwrap();
    let subdocument = slave.subdocument(&bus);

    let message = access_denied(subdocument.set_scene_text("body intruder"));
    assert!(
        message.contains("org.asgard.SessionAccess1.Authenticate")
            && message.contains("printed at start-up"),
        "{message}"
    );
    access_denied(subdocument.get_scene_text());
    access_denied(subdocument.create_rendition(16, 16));
    let property = subdocument.status().unwrap_err();
    assert_eq!(
        error_name(&property),
        "org.freedesktop.DBus.Error.AccessDenied"
    );

    let wrong = slave.authenticate(&bus, &"0".repeat(32)).unwrap_err();
    assert_eq!(error_name(&wrong), "org.asgard.Asgard1.Error.AccessDenied");
    access_denied(subdocument.get_scene_text());

    slave.authenticate(&bus, &slave.token).unwrap();
    let scene = "shape_set s desc {sphere 0.5}\nbody b shape s\n";
    subdocument.set_scene_text(scene).unwrap();
    assert_eq!(subdocument.get_scene_text().unwrap(), scene);
    assert_ne!(subdocument.status().unwrap(), "loading");

    // Another connection of the same process is a stranger until it authenticates too.
    let other = zbus::blocking::Connection::session().unwrap();
    access_denied(slave.subdocument(&other).get_scene_text());

    // The access interface is the schema's.
    let introspectable = zbus::blocking::fdo::IntrospectableProxy::builder(&bus)
        .destination(slave.name.clone())
        .unwrap()
        .path("/org/asgard/Asgard1/Subdocument")
        .unwrap()
        .build()
        .unwrap();
    let served = introspectable.introspect().unwrap();
    let name = "org.asgard.SessionAccess1";
    assert_eq!(
        members(&served, name),
        members(asgard::ipc::names::SESSION_ACCESS_XML, name)
    );
}

/// The process that started a session-bus slave is answered without the token.
#[test]
fn on_the_session_bus_the_starter_is_answered_without_the_token() {
    let slave = SessionSlave::start(false);
    let bus = zbus::blocking::Connection::session().unwrap();
    let subdocument = slave.subdocument(&bus);
    let scene = "shape_set s desc {sphere 0.5}\nbody b shape s\n";
    subdocument.set_scene_text(scene).unwrap();
    assert_eq!(subdocument.get_scene_text().unwrap(), scene);
    let rendition = subdocument.create_rendition(16, 16).unwrap();
    let rendition = RenditionProxyBlocking::builder(&bus)
        .destination(slave.name.clone())
        .unwrap()
        .path(rendition)
        .unwrap()
        .cache_properties(CacheProperties::No)
        .build()
        .unwrap();
    assert_eq!(rendition.size().unwrap(), (16, 16));
}

/// The slave's `Error` signals, as (message, line, column), and its `StatusChanged` values, each
/// through a channel fed by a thread of its own.
struct Reports {
    errors: std::sync::mpsc::Receiver<(String, u32, u32)>,
    statuses: std::sync::mpsc::Receiver<String>,
}

impl Reports {
    fn listen(subdocument: &SubdocumentProxyBlocking<'static>) -> Reports {
        let (error_sender, errors) = std::sync::mpsc::channel();
        let signals = subdocument.receive_error().unwrap();
        std::thread::spawn(move || {
            for signal in signals {
                let args = signal.args().unwrap();
                if error_sender
                    .send((args.message, args.line, args.column))
                    .is_err()
                {
                    return;
                }
            }
        });
        let (status_sender, statuses) = std::sync::mpsc::channel();
        let changes = subdocument.receive_status_changed();
        std::thread::spawn(move || {
            for change in changes {
                let Ok(status) = change.get() else { continue };
                if status_sender.send(status).is_err() {
                    return;
                }
            }
        });
        Reports { errors, statuses }
    }

    /// The first error signalled from now on whose message contains `wanted` (a scene set
    /// before may still have its own error queued).
    fn error_containing(&self, wanted: &str) -> (String, u32, u32) {
        loop {
            let error = self
                .errors
                .recv_timeout(std::time::Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("an Error signal with '{wanted}' within a minute"));
            if error.0.contains(wanted) {
                return error;
            }
        }
    }

    /// Waits for `Status` to become `ready`: a run finished. (A slave that has not yet
    /// finished a run is never `ready` before: its status goes from `loading` to
    /// `simulating` and on to `ready` or `error`, so no earlier change can be mistaken for it.)
    fn ready(&self) {
        while self
            .statuses
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("Status ready within a minute")
            != "ready"
        {}
    }
}

/// The output-step limit over D-Bus (issue 22 item 4; `simulator finish 1e9` used to grow the
/// slave without end, `step 1e-12` to run for ever): a scene whose run would span more output
/// steps than the limit is set without complaint — it evaluates — but its simulation is refused
/// before anything is compiled, with an `Error` signal that names the limit and what keeps
/// within it, at the `simulator` command's line and column, and `Status` becomes `error`. The
/// slave keeps answering meanwhile (the text reads back, the refused scene's duration, a
/// rendition of it that seeks), and the scene made shorter simulates to `ready`.
#[test]
fn a_scene_over_the_output_step_limit_is_refused_by_name_and_the_slave_keeps_answering() {
    let (mut child, connection) = start_slave();
    let subdocument = SubdocumentProxyBlocking::new(&connection).unwrap();
    let uncached = SubdocumentProxyBlocking::builder(&connection)
        .cache_properties(CacheProperties::No)
        .build()
        .unwrap();
    let reports = Reports::listen(&subdocument);
    const BALL: &str = "shape_set ball desc {sphere 0.5}\nbody a shape ball\n";
    for (simulator, steps) in [
        // Just over the limit: 1,111,111.1 steps, rounded up.
        ("simulator finish 10 step 9e-6", "1111112"),
        ("simulator finish 1e9", "10000000000"),
        ("  simulator step 1e-12", "10000000000000"),
    ] {
        let text = format!("{BALL}{simulator}\n");
        // Setting the text simulates it.
        subdocument.set_scene_text(&text).unwrap();
        let wanted =
            format!("make {steps} output steps, more than the limit of 1000000 output steps");
        let (message, line, column) = reports.error_containing(&wanted);
        assert!(
            message.contains("a larger step or an earlier finish keeps within it")
                && message.contains("--max-output-steps N raises the limit"),
            "{message}"
        );
        let indent = simulator.len() - simulator.trim_start().len();
        assert_eq!((line, column), (3, 1 + indent as u32), "{message}");
        // The status changed before the signal was sent.
        assert_eq!(uncached.status().unwrap(), "error");
        // The slave answers: the text, the refused scene's duration, a rendition of it.
        assert_eq!(subdocument.get_scene_text().unwrap(), text);
        let duration = uncached.duration().unwrap();
        let rendition = subdocument.create_rendition(16, 16).unwrap();
        let rendition = RenditionProxyBlocking::uncached(&connection, rendition).unwrap();
        rendition.seek(duration / 2.0).unwrap();
        assert_eq!(rendition.time().unwrap(), duration / 2.0);
        assert_eq!(rendition.size().unwrap(), (16, 16));
        rendition.close().unwrap();
    }
    // Asked again, the refused scene fails again, by name.
    subdocument.simulate().unwrap();
    reports.error_containing("more than the limit of 1000000 output steps");
    subdocument
        .set_scene_text(&format!("{BALL}simulator finish 1\n"))
        .unwrap();
    reports.ready();
    assert!(
        reports.errors.try_recv().is_err(),
        "the shorter scene failed"
    );
    assert_eq!(uncached.duration().unwrap(), 1.0);
    // The listening threads keep the connection open, so the slave would not end by itself.
    child.kill().unwrap();
    child.wait().unwrap();
}

/// Bodies sunk into each other at the start (issue 22 item 4) fail the simulation with an
/// `Error` signal at the later body's line and column, again when asked again; bodies exactly
/// touching (a ball resting on a floor, a box on a box, under gravity) are not overlapping and
/// simulate to `ready`.
#[test]
fn bodies_that_start_overlapping_fail_their_simulation_at_the_later_body() {
    let (mut child, connection) = start_slave();
    let subdocument = SubdocumentProxyBlocking::new(&connection).unwrap();
    let uncached = SubdocumentProxyBlocking::builder(&connection)
        .cache_properties(CacheProperties::No)
        .build()
        .unwrap();
    let reports = Reports::listen(&subdocument);
    const BALLS: &str = "shape_set ball desc {sphere 0.5}\nbody a shape ball\n";
    subdocument
        .set_scene_text(&format!(
            "{BALLS}  body b shape ball init_pos {{0.5 0 0}}\n"
        ))
        .unwrap();
    let (message, line, column) =
        reports.error_containing("body b overlaps body a by 5.000e-1 at the start");
    assert_eq!((line, column), (3, 3), "{message}");
    assert_eq!(uncached.status().unwrap(), "error");
    subdocument.simulate().unwrap();
    reports.error_containing("body b overlaps body a");
    assert_eq!(uncached.status().unwrap(), "error");
    let touching = "shape_set ball desc {sphere 0.5}\n\
                    shape_set slab desc {box {4 1 4}}\n\
                    shape_set brick desc {box {1 0.3 1}}\n\
                    simulator finish 1\n\
                    body floor shape slab init_pos {0 -0.5 0} fixed 1\n\
                    body ball shape ball init_pos {-1 0.5 0}\n\
                    body lower shape brick init_pos {1 0.15 0}\n\
                    body upper shape brick init_pos {1 0.45 0}\n\
                    force body ball gravity {0 -9.81 0}\n\
                    force body lower gravity {0 -9.81 0}\n\
                    force body upper gravity {0 -9.81 0}\n";
    subdocument.set_scene_text(touching).unwrap();
    reports.ready();
    assert!(
        reports.errors.try_recv().is_err(),
        "touching bodies were refused"
    );
    assert_eq!(uncached.status().unwrap(), "ready");
    child.kill().unwrap();
    child.wait().unwrap();
}

/// A host that breaks the protocol (found by the `dbus_request` fuzz target): a call whose
/// member name is not a valid name used to stop zbus's receiving task in a panic, leaving the
/// slave alive but deaf. Now the slave closes the connection at that message and exits with
/// status 1, naming it; calls before it are answered.
#[test]
fn a_malformed_message_ends_the_connection_and_the_slave_says_why() {
    use asgard::ipc::names::SUBDOCUMENT_PATH;
    use asgard::ipc::transport::{pass_descriptor, DBUS_FD_OPTION};
    use std::io::{Read, Write};
    use std::os::fd::{AsFd, AsRawFd};
    use std::os::unix::net::UnixStream;
    let (mut host, slave_end) = UnixStream::pair().unwrap();
    let mut command = Command::new(ASGARD);
    command
        .args(["slave", DBUS_FD_OPTION, &slave_end.as_raw_fd().to_string()])
        .stderr(std::process::Stdio::piped());
    pass_descriptor(&mut command, slave_end.as_fd());
    let mut child = command.spawn().unwrap();
    drop(slave_end);
    // Without the check the slave stayed up and silent: the reads below fail instead of
    // waiting for ever.
    host.set_read_timeout(Some(std::time::Duration::from_secs(60)))
        .unwrap();
    let uid = std::fs::metadata("/proc/self").unwrap();
    let uid = std::os::unix::fs::MetadataExt::uid(&uid).to_string();
    let hex: String = uid.bytes().map(|b| format!("{b:02x}")).collect();
    host.write_all(format!("\0AUTH EXTERNAL {hex}\r\n").as_bytes())
        .unwrap();
    let mut line = [0; 128];
    let n = host.read(&mut line).unwrap();
    assert!(line[..n].starts_with(b"OK "), "{:?}", &line[..n]);
    host.write_all(b"BEGIN\r\n").unwrap();
    let ping = |member: &str| {
        zbus::message::Message::method_call(SUBDOCUMENT_PATH, member)
            .unwrap()
            .interface("org.freedesktop.DBus.Peer")
            .unwrap()
            .build(&())
            .unwrap()
            .data()
            .to_vec()
    };
    // A good call is answered: a method return (type 2) comes back.
    host.write_all(&ping("Ping")).unwrap();
    let mut received: Vec<u8> = Vec::new();
    while !received.windows(2).any(|w| w == b"l\x02") {
        let mut buf = [0; 4096];
        let n = host.read(&mut buf).unwrap();
        assert!(n > 0, "the slave closed before answering");
        received.extend(&buf[..n]);
    }
    // The same call with a '/' in its member name.
    let mut bad = ping("Pingx");
    let at = bad.windows(5).position(|w| w == b"Pingx").unwrap();
    bad[at + 4] = b'/';
    host.write_all(&bad).unwrap();
    let mut rest: Vec<u8> = Vec::new();
    host.read_to_end(&mut rest).unwrap();
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "asgard slave: the host sent a malformed D-Bus message: header field 3 is 'Ping/', \
             not a valid member name; the connection was closed"
        ),
        "{stderr}"
    );
}
