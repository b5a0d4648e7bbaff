//! The reference host (dissertation chapter 6): a compound-document reader and editor in the
//! role of Ensemble, embedding Asgard animations the way any host could.
//!
//! It shows a document's structure — a memo's header fields, a lesson's title and headings,
//! paragraphs of text — with every animation subdocument inline at its preferred size, and
//! edits it: text typed into paragraphs, animations inserted at the cursor (empty or from an
//! `.asg` file) or deleted, New/Open/Save/Save As with atomic saves and a backup, a title with
//! the file's name and a modified mark, and a question before unsaved changes are lost. The
//! Asgard menu (and an animation's context menu) acts on the animation clicked last (section
//! 6.2.4): Play, Stop, Rewind, Live, the full editor (Asgard's whole editor on that scene,
//! whose Save saves the document) and single graphical and language viewers, position and
//! velocity handles, Recompute Motion, and a new view of the animation beside it (its own
//! camera and time; the reader's, not stored in the document). Help ▸ Using Asgard says how
//! to do each.
//!
//! Each animation is one `asgard slave` process on a private D-Bus connection, showing one
//! rendition per view, whose frames arrive through shared memory. The host depends on [`crate::ipc`] and
//! [`crate::doc`] only — never on the slave, the session or the simulation — so a third-party
//! host can do all it does from `schemas/` alone.

mod animation;
mod controls;
mod document_view;
mod help;
mod input;
mod locate;
mod probe;
mod view;
mod window;

use crate::doc::{Document, LoadError};
use gtk::prelude::*;
use gtk::{gdk, gio};
use gtk4 as gtk;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use window::HostWindow;

/// The application id, which is also the name of the host's launcher
/// (`data/applications/org.asgard.Host.desktop`), so desktops match its windows to it; the
/// host is not unique, so several may run at once.
const APPLICATION_ID: &str = "org.asgard.Host";

/// Opens `path` (or the example memo, see [`locate`]) in a host window and runs until the
/// window closes. A document that cannot be read (malformed markup, not UTF-8, missing) is
/// reported, located (`FILE:LINE:COLUMN: error: …`), on the standard error and in a window
/// over a new untitled memo: the file is left as it is, since the host saves the memo only
/// where the reader then chooses. With `probe`, tests can read the host's state over the
/// session bus (see [`probe`]).
pub fn run(path: Option<PathBuf>, probe: bool) -> ExitCode {
    let opened = initial_document(path).map_err(|message| {
        eprintln!("asgard host: {message}");
        message
    });
    let _probe = match probe.then(probe::serve).transpose() {
        Ok(connection) => connection,
        Err(e) => {
            eprintln!("asgard host: cannot serve the probe on the session bus: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Err(e) = gtk::init() {
        eprintln!("asgard host: cannot open a display: {e}");
        return ExitCode::FAILURE;
    }
    let application = gtk::Application::builder()
        .application_id(APPLICATION_ID)
        .flags(gio::ApplicationFlags::NON_UNIQUE)
        .build();
    let opened = std::cell::RefCell::new(Some(opened));
    application.connect_startup(|application| {
        application.set_menubar(Some(&HostWindow::menu()));
        crate::window_picture::serve_action(application);
        if let Some(display) = gdk::Display::default() {
            gtk::style_context_add_provider_for_display(
                &display,
                &document_view::style_provider(),
                gtk::STYLE_PROVIDER_PRIORITY_APPLICATION,
            );
        }
    });
    application.connect_activate(move |application| match opened.take() {
        Some(Ok((document, path))) => {
            HostWindow::open(application, document, path);
        }
        Some(Err(message)) => HostWindow::open_empty(application).cannot_open(&message),
        None => {}
    });
    // GTK must not read our command line: clap has.
    let status = application.run_with_args(&[] as &[&str]);
    if status == gtk::glib::ExitCode::SUCCESS {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The document to open: the given file, else the example memo's file, else its built-in
/// copy as an untitled document.
fn initial_document(path: Option<PathBuf>) -> Result<(Document, Option<PathBuf>), String> {
    let path = path.or_else(|| {
        std::env::current_exe()
            .ok()
            .and_then(|exe| locate::example_memo(&exe))
    });
    match path {
        Some(path) => load(&path).map(|document| (document, Some(path))),
        None => Document::parse(locate::BUILTIN_MEMO.to_string())
            .map(|document| (document, None))
            .map_err(|e| format!("the built-in memo: {e}")),
    }
}

/// The document at `path`, or why it cannot be opened, located: `FILE:LINE:COLUMN: error: …`.
fn load(path: &Path) -> Result<Document, String> {
    Document::load(path).map_err(|e| match e {
        LoadError::Doc(e) => format!("{}:{}: error: {}", path.display(), e.at, e.kind),
        LoadError::Io(e) => format!("{}: {e}", path.display()),
    })
}
