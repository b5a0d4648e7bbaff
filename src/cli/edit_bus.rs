//! The editor's session on the D-Bus session bus, for tests and tools.
//!
//! This is a stand-in for the slave's service of `org.asgard.Subdocument1` (branch `embed`,
//! which serves a session of its own from `asgard slave`'s own main loop, not yet a Session
//! an editor already holds): until it can, `asgard edit` serves the subset tests need, under
//! the contract's own names, so callers keep working when the real service replaces it:
//! `GetSceneText`, `Simulate`, `OpenEditor` and the `Status` property, on the object
//! `/org/asgard/Asgard1/Subdocument` under the name `org.asgard.Asgard1.Slave<PID>`.
//!
//! D-Bus calls arrive on zbus's own thread while the session lives on the GTK main thread: the
//! text and status are mirrored for reading, and commands are handed to the main loop.

use asgard::session::{Event, Session, SimStatus};
use asgard::ui::{self, EditorKind};
use gtk4::glib;
use std::cell::RefCell;
use std::rc::{Rc, Weak};
use std::sync::{Arc, Mutex};

const INTERFACE_PATH: &str = "/org/asgard/Asgard1/Subdocument";

thread_local! {
    /// The served session and its application, for commands handed to the main loop.
    static SERVED: RefCell<(Weak<Session>, glib::WeakRef<gtk4::Application>)> =
        RefCell::new((Weak::new(), glib::WeakRef::new()));
}

/// Runs `command` on the main loop with the served session and application, if they live.
fn on_main_loop(command: impl FnOnce(&Rc<Session>, &gtk4::Application) + Send + 'static) {
    glib::idle_add_once(move || {
        let served = SERVED.with(|s| {
            let s = s.borrow();
            s.0.upgrade().zip(s.1.upgrade())
        });
        if let Some((session, app)) = served {
            command(&session, &app);
        }
    });
}

/// What D-Bus callers read, kept up to date from the main thread.
#[derive(Default)]
struct Mirror {
    text: String,
    status: &'static str,
}

struct Subdocument {
    mirror: Arc<Mutex<Mirror>>,
}

#[zbus::interface(name = "org.asgard.Subdocument1")]
impl Subdocument {
    /// The current scene text, exactly as last set or edited.
    fn get_scene_text(&self) -> String {
        self.mirror
            .lock()
            .map(|m| m.text.clone())
            .unwrap_or_default()
    }

    /// Recomputes the motion from the current text; returns at once.
    fn simulate(&self) {
        on_main_loop(|session, _| session.simulate());
    }

    /// Opens an editor window on the scene: 'graphical', 'language', 'shape', 'trajectory'
    /// or 'control-panel'.
    fn open_editor(&self, kind: &str) -> zbus::fdo::Result<()> {
        let kind = match kind {
            "graphical" => EditorKind::Graphical,
            "language" => EditorKind::Language,
            "shape" => EditorKind::Shape,
            "trajectory" => EditorKind::Trajectory,
            "control-panel" => EditorKind::ControlPanel,
            other => {
                return Err(zbus::fdo::Error::InvalidArgs(format!(
                    "unknown editor kind \"{other}\": expected graphical, language, shape, trajectory or control-panel"
                )))
            }
        };
        on_main_loop(move |session, app| ui::open_editor(app, session, kind));
        Ok(())
    }

    /// 'ready', 'simulating' or 'error' (the text does not evaluate).
    #[zbus(property)]
    fn status(&self) -> String {
        self.mirror
            .lock()
            .map(|m| m.status.to_owned())
            .unwrap_or_default()
    }
}

fn status_of(session: &Session) -> &'static str {
    if session.error().is_some() {
        return "error";
    }
    match session.status() {
        SimStatus::Running(_) => "simulating",
        _ => "ready",
    }
}

/// Serves `session` of `app` on the session bus; the connection lives as long as the process.
/// Without a session bus this says so on stderr and the editor runs on without it.
pub fn serve(app: &gtk4::Application, session: &Rc<Session>) {
    let mirror = Arc::new(Mutex::new(Mirror {
        text: session.text().to_owned(),
        status: status_of(session),
    }));
    let name = format!("org.asgard.Asgard1.Slave{}", std::process::id());
    let connection = zbus::blocking::connection::Builder::session()
        .and_then(|b| b.name(name.as_str()))
        .and_then(|b| {
            b.serve_at(
                INTERFACE_PATH,
                Subdocument {
                    mirror: mirror.clone(),
                },
            )
        })
        .and_then(|b| b.build());
    let connection = match connection {
        Ok(connection) => connection,
        Err(e) => {
            eprintln!("asgard edit: not serving the scene on the session bus: {e}");
            return;
        }
    };
    SERVED.with(|s| {
        let mut served = s.borrow_mut();
        served.0 = Rc::downgrade(session);
        served.1.set(Some(app));
    });
    session.subscribe(move |session, event| {
        let Ok(mut m) = mirror.lock() else { return };
        if matches!(event, Event::TextChanged { .. }) {
            m.text = session.text().to_owned();
        }
        m.status = status_of(session);
    });
    // The bus connection stays open until the process ends.
    std::mem::forget(connection);
}
