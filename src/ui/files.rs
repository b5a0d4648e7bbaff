//! Saving and opening scene files from any window: Save, Save As, Open and Revert, with the
//! file chooser where a name is needed.

use super::editor::Editor;
use crate::save::{ReadOnly, ReadOnlyFile};
use gtk::prelude::*;
use gtk4 as gtk;
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// Asks for a file name, then calls `chosen` with it.
pub fn choose(
    parent: &gtk::Window,
    title: &str,
    action: gtk::FileChooserAction,
    suggested: Option<&str>,
    chosen: impl Fn(PathBuf) + 'static,
) {
    let accept = match action {
        gtk::FileChooserAction::Save => "Save",
        _ => "Open",
    };
    let dialog = gtk::FileChooserNative::new(
        Some(title),
        Some(parent),
        action,
        Some(accept),
        Some("Cancel"),
    );
    dialog.set_modal(true);
    if let Some(name) = suggested {
        dialog.set_current_name(name);
    }
    // GTK does not keep native dialogs alive: hold this one until it answers (dropped at
    // once, its chooser closed before it could list a folder).
    let held = RefCell::new(Some(dialog.clone()));
    dialog.connect_response(move |dialog, response| {
        if response == gtk::ResponseType::Accept {
            if let Some(path) = dialog.file().and_then(|f| f.path()) {
                chosen(path);
            }
        }
        dialog.destroy();
        held.borrow_mut().take();
    });
    dialog.show();
}

/// Saves to the scene's file, or asks for one when it has none; a scene of a host's
/// document is saved by the host, with the document.
pub fn save(editor: &Rc<Editor>, parent: &gtk::Window) {
    if editor.ask_host_to_save() {
        return;
    }
    match editor.session.path() {
        Some(path) => save_to(editor, parent, &path, ReadOnly::Refuse),
        None => save_as(editor, parent),
    }
}

/// Asks for a file name and saves the scene there; it becomes the scene's file.
pub fn save_as(editor: &Rc<Editor>, parent: &gtk::Window) {
    let editor = editor.clone();
    let weak = parent.downgrade();
    choose(
        parent,
        "Save the scene as",
        gtk::FileChooserAction::Save,
        Some("scene.asg"),
        move |path| {
            if let Some(parent) = weak.upgrade() {
                save_to(&editor, &parent, &path, ReadOnly::Refuse);
            }
        },
    );
}

/// Saves the scene to `path`; a read-only file is saved over only when the user says so in a
/// dialog.
fn save_to(editor: &Rc<Editor>, parent: &gtk::Window, path: &Path, read_only: ReadOnly) {
    match editor.session.save_as(path, read_only) {
        Ok(()) => editor.status(format!("Saved {}.", path.display())),
        Err(e) if ReadOnlyFile::of(&e).is_some() => confirm_read_only(editor, parent, path),
        Err(e) => editor.status(format!("Cannot save {}: {e}", path.display())),
    }
}

/// Asks whether to save over the read-only file `path`; saves there if so.
fn confirm_read_only(editor: &Rc<Editor>, parent: &gtk::Window, path: &Path) {
    editor.status(format!("{} is read-only.", path.display()));
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let dialog = gtk::MessageDialog::new(
        Some(parent),
        gtk::DialogFlags::MODAL | gtk::DialogFlags::DESTROY_WITH_PARENT,
        gtk::MessageType::Warning,
        gtk::ButtonsType::None,
        format!("“{name}” is read-only. Save over it anyway?"),
    );
    dialog.set_title(Some("Read-only File"));
    dialog.set_secondary_text(Some(
        "The file is replaced by the new version, which is read-only as well.",
    ));
    dialog.add_button("_Cancel", gtk::ResponseType::Cancel);
    dialog.add_button("Save _Anyway", gtk::ResponseType::Accept);
    dialog.set_default_response(gtk::ResponseType::Cancel);
    let editor = Rc::downgrade(editor);
    let weak = parent.downgrade();
    let path = path.to_path_buf();
    dialog.connect_response(move |dialog, response| {
        dialog.destroy();
        let (Some(editor), Some(parent)) = (editor.upgrade(), weak.upgrade()) else {
            return;
        };
        if response == gtk::ResponseType::Accept {
            save_to(&editor, &parent, &path, ReadOnly::Replace);
        } else {
            editor.status(format!("Not saved: {} is read-only.", path.display()));
        }
    });
    dialog.present();
}

/// Replaces the text with the file's (an undoable change).
pub fn revert(editor: &Editor) {
    match editor.session.revert() {
        Ok(()) => editor.status("Reverted to the file."),
        Err(e) => editor.status(format!("Cannot revert: {e}")),
    }
}

/// Asks for a scene file and opens it in a new set of editor windows.
pub fn open(editor: &Rc<Editor>, parent: &gtk::Window) {
    let app = editor.app.clone();
    let editor = Rc::downgrade(editor);
    choose(
        parent,
        "Open a scene",
        gtk::FileChooserAction::Open,
        None,
        move |path| match super::waker::session_for_file(&path) {
            Ok(session) => super::open_editor(&app, &session, super::EditorKind::Full),
            Err(e) => {
                if let Some(editor) = editor.upgrade() {
                    editor.status(format!("Cannot open {}: {e}", path.display()));
                }
            }
        },
    );
}

/// A window titled `title` saying what is wrong with a file and where (`located`:
/// `FILE:LINE:COLUMN: error: …`), with `advice` under it. It belongs to `app`, so with no
/// other window open the application runs until it is closed.
pub fn show_problem(
    app: &gtk::Application,
    parent: Option<&gtk::Window>,
    title: &str,
    located: &str,
    advice: &str,
) {
    let dialog = gtk::MessageDialog::new(
        parent,
        gtk::DialogFlags::DESTROY_WITH_PARENT,
        gtk::MessageType::Error,
        gtk::ButtonsType::Close,
        located,
    );
    dialog.set_application(Some(app));
    dialog.set_title(Some(title));
    dialog.set_secondary_text(Some(advice));
    dialog.connect_response(|dialog, _| dialog.destroy());
    dialog.present();
}
