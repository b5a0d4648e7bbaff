//! `asgard edit [FILE]`: the stand-alone editor — the control panel, one graphical viewer and
//! one language viewer on the scene in FILE, or on a new empty scene (see `asgard::ui`).
//!
//! Motion is computed when the user presses Simulate, as in the dissertation (4.3), not after
//! every change. When a D-Bus session bus is available, the scene is also served on it with the
//! slave's own interfaces (`asgard::slave::serve_session`), so tests and tools drive an editor
//! as they drive a slave on the session bus.

use asgard::{slave, ui};
use clap::Args;
use gtk4 as gtk;
use gtk4::prelude::*;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct EditArgs {
    /// The scene file to edit (a new, empty scene without it).
    pub file: Option<PathBuf>,
}

pub fn run(args: EditArgs) -> ExitCode {
    if let Err(e) = gtk::init() {
        eprintln!("asgard edit: error: cannot open a display: {e}");
        return ExitCode::FAILURE;
    }
    if let Some(file) = &args.file {
        if let Err(e) = std::fs::metadata(file) {
            eprintln!("{}: error: cannot read the scene: {e}", file.display());
            return ExitCode::FAILURE;
        }
    }
    let app = gtk::Application::builder()
        // Also the name of the editor's launcher (data/applications/org.asgard.Editor.desktop).
        .application_id("org.asgard.Editor")
        .flags(gtk::gio::ApplicationFlags::NON_UNIQUE)
        .build();
    let file = args.file.clone();
    let failed = std::rc::Rc::new(std::cell::Cell::new(false));
    let failure = failed.clone();
    app.connect_activate(move |app| {
        let session = match &file {
            Some(path) => match ui::waker::session_for_file(path) {
                Ok(session) => session,
                Err(e) => {
                    eprintln!("{}: error: cannot read the scene: {e}", path.display());
                    failure.set(true);
                    return;
                }
            },
            None => ui::waker::session_for_text(""),
        };
        session.set_auto_simulate(false);
        ui::open_editor(app, &session, ui::EditorKind::Full);
        if let Err(e) = slave::serve_session(session, app) {
            eprintln!("asgard edit: not serving the scene on the session bus: {e}");
        }
    });
    let status = app.run_with_args(&[] as &[&str]);
    if failed.get() || status != gtk::glib::ExitCode::SUCCESS {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
