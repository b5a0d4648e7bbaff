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
use asgard::ipc::{SlaveProcess, SubdocumentProxy, SubdocumentProxyBlocking};
use quick_xml::events::Event;
use quick_xml::Reader;
use std::path::{Path, PathBuf};
use std::process::Command;
use xdotool::xdotool;
use zbus::fdo::IntrospectableProxy;

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

/// OpenEditor opens the editor's language viewer on the slave's own session (6.2.4): text
/// typed there and applied with Update reaches the host as SceneTextChanged.
#[test]
fn an_editor_the_host_opens_edits_the_slaves_scene() {
    let display = std::env::var("DISPLAY")
        .expect("this test needs a display: run it under xvfb-run, as scripts/test does");
    let mut command = Command::new(ASGARD);
    command.arg("slave");
    let SlaveProcess {
        mut child,
        connection,
    } = zbus::block_on(SlaveProcess::spawn(command)).unwrap();
    let connection = zbus::blocking::Connection::from(connection);
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
    subdocument.open_editor("language").unwrap();
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
