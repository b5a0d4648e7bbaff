//! The language viewer (4.2, figure 4.6): the scene text in GtkSourceView, with Update, Save,
//! Revert and Dismiss.
//!
//! The text is edited as plain text and evaluated only on Update (Ctrl+Return): it then
//! becomes the session's text, and every other view follows. An error is underlined where it
//! is, its message shown above the text, and the cursor moved there; the text stays as typed.
//! Literals tied to graphical parameters are coloured by kind, and long shape descriptions and
//! trajectory point lists hide behind a small icon that shows them when clicked. Changes made
//! elsewhere (a drag, another viewer's Update, undo) appear in place while the user types,
//! without moving the cursor, unless they touch what the user typed (see `local_edits`).
//! The window action `fold` (parameter: a literal's name such as `shape_set ball`) folds or
//! unfolds one, and its state says which are folded, for scripts over D-Bus.

pub mod lang_file;
pub mod literals;
pub mod local_edits;
mod viewer;

use super::editor::Editor;
use crate::session::Event;
use gtk::gio;
use gtk::prelude::*;
use gtk4 as gtk;
use std::rc::Rc;
use viewer::{Messages, TextState};

/// The message area above the text.
struct MessageArea {
    bar: gtk::Box,
    icon: gtk::Image,
    label: gtk::Label,
}

impl Messages for MessageArea {
    fn show(&self, text: Option<&str>, error: bool) {
        self.label.set_text(text.unwrap_or(""));
        self.bar.set_visible(text.is_some());
        if error {
            self.label.add_css_class("error");
            self.icon.set_icon_name(Some("dialog-error-symbolic"));
        } else {
            self.label.remove_css_class("error");
            self.icon.set_icon_name(Some("dialog-information-symbolic"));
        }
    }
}

/// Opens a new language viewer on the editor's session.
pub fn open(editor: &Rc<Editor>) -> gtk::ApplicationWindow {
    let number = editor.next_viewer_number(false);
    let window = editor.window(&format!("Language viewer {number}"));
    window.set_default_size(640, 720);

    let label = gtk::Label::new(None);
    label.set_xalign(0.0);
    label.set_wrap(true);
    label.set_selectable(true);
    let bar = gtk::Box::new(gtk::Orientation::Horizontal, 6);
    bar.set_margin_start(6);
    bar.set_margin_end(6);
    bar.set_margin_top(4);
    bar.set_margin_bottom(4);
    let icon = gtk::Image::from_icon_name("dialog-information-symbolic");
    bar.append(&icon);
    bar.append(&label);
    bar.set_visible(false);
    let messages = Rc::new(MessageArea {
        bar: bar.clone(),
        icon,
        label,
    });
    let state = TextState::new(editor.clone(), messages);

    let scrolled = gtk::ScrolledWindow::new();
    scrolled.set_child(Some(&state.view));
    scrolled.set_vexpand(true);

    let buttons = gtk::Box::new(gtk::Orientation::Horizontal, 6);
    buttons.set_margin_start(6);
    buttons.set_margin_end(6);
    buttons.set_margin_top(4);
    buttons.set_margin_bottom(6);
    buttons.set_homogeneous(true);
    // A scene of a host's document has no file of its own to revert to.
    let labels: &[(&str, &str)] = if editor.saved_by_host() {
        &[
            ("Update", "win.update"),
            ("Save the document", "win.save"),
            ("Dismiss", "win.dismiss"),
        ]
    } else {
        &[
            ("Update", "win.update"),
            ("Save", "win.save"),
            ("Revert", "win.revert"),
            ("Dismiss", "win.dismiss"),
        ]
    };
    for &(label, action) in labels {
        let button = gtk::Button::with_label(label);
        button.set_action_name(Some(action));
        buttons.append(&button);
    }
    let column = gtk::Box::new(gtk::Orientation::Vertical, 0);
    column.append(&bar);
    column.append(&scrolled);
    column.append(&buttons);
    window.set_child(Some(&column));

    actions(&window, &state);
    {
        let state = state.clone();
        editor.observe(&window, move |_, event| match event {
            Event::TextChanged { edit, by } => state.text_changed(edit, *by),
            Event::SceneChanged => state.scene_changed(),
            Event::SceneError(error) => state.scene_error(error),
            _ => {}
        });
    }
    if let Some(error) = editor.session.error() {
        state.scene_error(&error);
    }
    window.present();
    state.view.grab_focus();
    window
}

fn actions(window: &gtk::ApplicationWindow, state: &Rc<TextState>) {
    let add = |name: &str, run: fn(&Rc<TextState>, &gtk::ApplicationWindow)| {
        let action = gio::SimpleAction::new(name, None);
        let state = Rc::downgrade(state);
        let weak = window.downgrade();
        action.connect_activate(move |_, _| {
            if let (Some(state), Some(window)) = (state.upgrade(), weak.upgrade()) {
                run(&state, &window);
            }
        });
        window.add_action(&action);
    };
    window.add_action(state.fold_action());
    add("update", |state, _| state.update());
    add("save", |state, window| {
        state.update();
        super::files::save(&state.editor, window.upcast_ref());
    });
    add("revert", |state, _| {
        state.discard_typing();
        super::files::revert(&state.editor);
    });
    add("dismiss", |state, window| {
        if state.has_local_edits() {
            confirm_dismiss(state, window);
        } else {
            window.destroy();
        }
    });
}

/// Dismissing a viewer with typing not applied asks what to do with it.
fn confirm_dismiss(state: &Rc<TextState>, window: &gtk::ApplicationWindow) {
    let dialog = gtk::MessageDialog::new(
        Some(window),
        gtk::DialogFlags::MODAL | gtk::DialogFlags::DESTROY_WITH_PARENT,
        gtk::MessageType::Question,
        gtk::ButtonsType::None,
        "This viewer holds typing that is not applied.",
    );
    dialog.add_buttons(&[
        ("Update and close", gtk::ResponseType::Accept),
        ("Discard it", gtk::ResponseType::Reject),
        ("Cancel", gtk::ResponseType::Cancel),
    ]);
    let state = Rc::downgrade(state);
    let window = window.downgrade();
    dialog.connect_response(move |dialog, response| {
        dialog.destroy();
        let (Some(state), Some(window)) = (state.upgrade(), window.upgrade()) else {
            return;
        };
        match response {
            gtk::ResponseType::Accept => {
                state.update();
                window.destroy();
            }
            gtk::ResponseType::Reject => window.destroy(),
            _ => {}
        }
    });
    dialog.present();
}
