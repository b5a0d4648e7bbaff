//! The stand-alone multiple-representation editor (GTK 4, dissertation chapter 4).
//!
//! Any number of windows work on one [`Session`]: the control panel, graphical viewers,
//! language viewers, the shape editor, the trajectory editor and plots. They never talk to each
//! other, only to the session, which turns every change into a change of the scene text and
//! tells all of them (figure 3.2). What windows of one session share besides the scene (the
//! Create command waiting for clicks, the selected bodies, the status line) lives in
//! `editor::Editor`.
//!
//! Entry points:
//! - [`open_standalone`]: the control panel, one graphical and one language viewer, as
//!   `asgard edit` opens them;
//! - [`open_editor`]: one window of a given [`EditorKind`] on an existing session — what a
//!   slave process does when its host asks `OpenEditor(kind)`; the windows stay linked to that
//!   session, so their edits reach whoever else watches it;
//! - [`waker::session_for_file`] and [`waker::session_for_text`]: sessions whose simulator
//!   news is taken in on the GTK main loop.
//!
//! This module depends on `session`, `scene`, `render` and GTK, never on the D-Bus shells.

mod chart;
mod control_panel;
pub mod create;
mod editor;
mod export;
mod files;
mod gl_view;
pub mod graphical;
pub mod language;
pub mod plot;
pub mod scene_text;
pub mod shape_editor;
mod trajectory_editor;
pub mod waker;

use crate::session::Session;
use gtk4 as gtk;
use std::rc::Rc;

/// The kinds of editor window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EditorKind {
    /// Menus, Simulate and the status line for the whole session.
    ControlPanel,
    /// The scene drawn at one time, with handles to drag.
    Graphical,
    /// The scene text.
    Language,
    /// A new shape set.
    Shape,
    /// The components of a trajectory against time.
    Trajectory,
    /// A state variable of a body against time.
    Plot,
}

/// Opens a window of `kind` on `session` in `app`. Windows of one session share its Create
/// prompts, selection and status line however many are opened, and by whom. Call on the GTK
/// main thread; the session's waker must poll it on the same main loop (see [`waker`]).
pub fn open_editor(app: &gtk::Application, session: &Rc<Session>, kind: EditorKind) {
    let editor = editor::Editor::of(app, session);
    match kind {
        EditorKind::ControlPanel => {
            control_panel::open(&editor);
        }
        EditorKind::Graphical => {
            graphical::open(&editor);
        }
        EditorKind::Language => {
            language::open(&editor);
        }
        EditorKind::Shape => shape_editor::open(&editor, None),
        EditorKind::Trajectory => {
            trajectory_editor::open(&editor);
        }
        EditorKind::Plot => {
            plot::open(&editor);
        }
    }
}

/// Opens the control panel, one graphical viewer and one language viewer on `session`, as
/// `asgard edit` does. Closing the control panel closes every window of the session.
pub fn open_standalone(app: &gtk::Application, session: &Rc<Session>) {
    open_editor(app, session, EditorKind::ControlPanel);
    open_editor(app, session, EditorKind::Graphical);
    open_editor(app, session, EditorKind::Language);
}
