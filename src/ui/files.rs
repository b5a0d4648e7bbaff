//! Saving and opening scene files from any window: Save, Save As, Open and Revert, with the
//! file chooser where a name is needed.

use super::editor::Editor;
use gtk::prelude::*;
use gtk4 as gtk;
use std::cell::RefCell;
use std::path::PathBuf;
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

/// Saves to the scene's file, or asks for one when it has none.
pub fn save(editor: &Rc<Editor>, parent: &gtk::Window) {
    if editor.session.path().is_none() {
        return save_as(editor, parent);
    }
    match editor.session.save() {
        Ok(()) => editor.status("Saved."),
        Err(e) => editor.status(format!("Cannot save: {e}")),
    }
}

/// Asks for a file name and saves the scene there; it becomes the scene's file.
pub fn save_as(editor: &Rc<Editor>, parent: &gtk::Window) {
    let editor = editor.clone();
    choose(
        parent,
        "Save the scene as",
        gtk::FileChooserAction::Save,
        Some("scene.asg"),
        move |path| match editor.session.save_as(&path) {
            Ok(()) => editor.status(format!("Saved as {}.", path.display())),
            Err(e) => editor.status(format!("Cannot save {}: {e}", path.display())),
        },
    );
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
            Ok(session) => super::open_standalone(&app, &session),
            Err(e) => {
                if let Some(editor) = editor.upgrade() {
                    editor.status(format!("Cannot open {}: {e}", path.display()));
                }
            }
        },
    );
}
