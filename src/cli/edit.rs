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

/// The title of the window saying what is wrong with the scene file.
const PROBLEM: &str = "Problem in the Scene";

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
                    let message = unreadable(path, &e);
                    eprintln!("{message}");
                    failure.set(true);
                    let advice = "The editor does not open it: nothing was changed. Save the \
                                  file as UTF-8 text in another editor, then open it again.";
                    ui::show_problem(app, None, PROBLEM, &message, advice);
                    return;
                }
            },
            None => ui::waker::session_for_text(""),
        };
        session.set_auto_simulate(false);
        ui::open_editor(app, &session, ui::EditorKind::Full);
        if let (Some(path), Some(error)) = (&file, session.error()) {
            // The text is open as it is, the error marked in the language viewer.
            let message = error.diagnostic(&path.display().to_string());
            eprintln!("{message}");
            let advice = "The file is open as text in the language viewer, with the error \
                          marked: correct it there and press Update (Ctrl+Return). Nothing is \
                          written to the file until you save.";
            ui::show_problem(app, app.active_window().as_ref(), PROBLEM, &message, advice);
        }
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

/// Why the scene file at `path` cannot be opened, located at the first byte that is not UTF-8
/// (`FILE:LINE:COL: error: …`) when that is why.
fn unreadable(path: &std::path::Path, error: &std::io::Error) -> String {
    match error
        .get_ref()
        .and_then(|e| e.downcast_ref::<asgard::session::NotUtf8>())
    {
        Some(not_utf8) => format!(
            "{}:{}: error: cannot read the scene: {not_utf8}",
            path.display(),
            not_utf8.at
        ),
        None => format!("{}: error: cannot read the scene: {error}", path.display()),
    }
}
