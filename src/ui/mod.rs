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
//! - [`open_editor`]: windows of a given [`EditorKind`] on an existing session: the whole
//!   editor ([`EditorKind::Full`]: the control panel, one graphical and one language viewer,
//!   as `asgard edit` opens them) or one window; the windows stay linked to that session, so
//!   their edits reach whoever else watches it;
//! - [`open_for_host`]: the same on a scene that lives in a host's document, which a slave
//!   process opens when its host asks `OpenEditor(kind)`: Save asks the host to save;
//! - [`waker::session_for_file`] and [`waker::session_for_text`]: sessions whose simulator
//!   news is taken in on the GTK main loop.
//!
//! This module depends on `session`, `scene`, `render` and GTK, never on the D-Bus shells.

mod camera_fields;
mod chart;
mod control_panel;
pub mod create;
mod editor;
mod export;
mod fields;
mod files;
mod gl_view;
pub mod graphical;
pub mod language;
pub mod plot;
pub mod scene_text;
mod settings;
pub mod shape_editor;
mod trajectory_editor;
pub mod waker;

pub use files::show_problem;

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
    /// The whole editor: the control panel, a graphical and a language viewer. While the
    /// session's control panel is open, its windows are raised instead.
    Full,
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
        EditorKind::Full if editor.control_panel().is_some() => editor.present_all(),
        EditorKind::Full => {
            // Closing the control panel closes every window of the session.
            control_panel::open(&editor);
            graphical::open(&editor);
            language::open(&editor);
        }
    }
}

/// Opens windows of `kind` on `session`, the scene of a host's document: `save` asks the
/// host to save that document, and is what File ▸ Save, Ctrl+S and the language viewer's
/// Save do in every window of the session. There is no file of the scene's own to open,
/// save as or revert to, and closing asks nothing: every edit is already in the document.
pub fn open_for_host(
    app: &gtk::Application,
    session: &Rc<Session>,
    kind: EditorKind,
    save: Rc<dyn Fn()>,
) {
    // Held until the windows hold it: `open_editor` finds it through a weak reference.
    let editor = editor::Editor::of(app, session);
    editor.save_through_host(save);
    open_editor(app, session, kind);
    drop(editor);
}
