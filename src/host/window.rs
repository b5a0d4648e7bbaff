//! The host's window: one open document, its animations, the menus, and the file commands.
//!
//! The window owns the [`Document`] (the single source of truth for what is saved) and one
//! [`Animation`] per subdocument, in document order. Text typed in the view and scene text the
//! slaves report are written into the document with `doc` edits, which change only those
//! bytes, and mark it modified; Save writes it atomically with a backup.

use super::animation::{Animation, AnimationEvent, EventSink};
use super::document_view::{text_elements, DocumentView, TextEdit};
use super::probe::WindowState;
use crate::doc::{Document, InsertAt};
use crate::ipc::{EditorKind, HandleKind};
use crate::save::{ReadOnly, ReadOnlyFile};
use crate::window_picture;
use gtk::prelude::*;
use gtk::{gio, glib};
use gtk4 as gtk;
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::{Rc, Weak};

/// How the status line begins when the document was saved.
const SAVED: &str = "Saved";

/// A new document: an empty memo.
const EMPTY_MEMO: &str = "<DOCUMENT CMEMO>\n<CMEMO>\n<TO></TO>\n<FROM></FROM>\n\
                          <SUBJECT></SUBJECT>\n<BODY>\n<PARAGRAPH>\n<TEXT></TEXT>\n\
                          </PARAGRAPH>\n</BODY>\n</CMEMO>\n</DOCUMENT>\n";

fn empty_memo() -> Document {
    Document::parse(EMPTY_MEMO.to_string()).expect("the empty memo is a document")
}

/// The document being edited and where it lives.
struct OpenDocument {
    document: Document,
    /// `None` until it is saved for the first time.
    path: Option<PathBuf>,
    modified: bool,
}

/// A menu command of a window.
type Command = fn(&Rc<HostWindow>);

/// What to do once the document is saved (close the window, open another document).
type AfterSave = Box<dyn FnOnce(&Rc<HostWindow>)>;

/// A host window.
pub struct HostWindow {
    window: gtk::ApplicationWindow,
    scroller: gtk::ScrolledWindow,
    status: gtk::Label,
    open: RefCell<OpenDocument>,
    animations: RefCell<Vec<Rc<Animation>>>,
    view: RefCell<Option<DocumentView>>,
    /// The animation the Asgard menu acts on: the one clicked or focused last.
    focused: RefCell<Weak<Animation>>,
    /// A file dialog being shown (native dialogs are not kept alive by their window).
    dialog: RefCell<Option<gtk::FileChooserNative>>,
}

thread_local! {
    /// The open windows. GTK keeps the widgets alive; this keeps their state (every signal
    /// handler holds the window weakly), until the window is destroyed.
    static OPEN: RefCell<Vec<Rc<HostWindow>>> = const { RefCell::new(Vec::new()) };
}

/// Drops the state of the window `gone` from [`OPEN`]. It is taken out before it is dropped, so
/// that whatever its drop does (ending the slaves) runs with `OPEN` free again.
fn forget(gone: &Weak<HostWindow>) {
    let removed: Vec<Rc<HostWindow>> = OPEN.with(|open| {
        let mut open = open.borrow_mut();
        let (removed, kept) = open
            .drain(..)
            .partition(|w| Weak::ptr_eq(&Rc::downgrade(w), gone));
        *open = kept;
        removed
    });
    drop(removed);
}

/// The name an action is registered under, and the accelerators it has.
const ACCELERATORS: &[(&str, &[&str])] = &[
    ("win.new", &["<Control>n"]),
    ("win.open", &["<Control>o"]),
    ("win.save", &["<Control>s"]),
    ("win.save-as", &["<Control><Shift>s"]),
    ("win.close", &["<Control>w"]),
    ("win.play", &["<Control>p"]),
    ("win.stop", &["<Control>period"]),
    ("win.rewind", &["<Control>Home"]),
    ("win.live", &["<Control>l"]),
    ("win.full-editor", &["<Control><Shift>e"]),
    ("win.graphical-editor", &["<Control><Shift>g"]),
    ("win.language-editor", &["<Control><Shift>l"]),
    ("win.new-view", &["<Control><Shift>n"]),
    ("win.close-view", &["<Control><Shift>w"]),
];

/// The Asgard menu's playback commands, also in an animation's context menu.
const PLAYBACK_ITEMS: &[(&str, &str)] = &[
    ("_Play", "win.play"),
    ("_Stop", "win.stop"),
    ("_Rewind", "win.rewind"),
    ("_Live", "win.live"),
];

/// The Asgard menu's editors, also in an animation's context menu.
const EDITOR_ITEMS: &[(&str, &str)] = &[
    ("_Full Editor", "win.full-editor"),
    ("_Graphical Editor", "win.graphical-editor"),
    ("_Language Editor", "win.language-editor"),
];

/// The Asgard menu's views of one animation, also in an animation's context menu.
const VIEW_ITEMS: &[(&str, &str)] = &[
    ("_New View of This Animation", "win.new-view"),
    ("Close This _View", "win.close-view"),
];

/// A menu of `(label, action)` items.
fn items(items: &[(&str, &str)]) -> gio::Menu {
    let menu = gio::Menu::new();
    for (label, action) in items {
        menu.append(Some(label), Some(action));
    }
    menu
}

/// A check item of the Asgard menu acting on one animation: its action's name, whether it is
/// on for an animation, and how to turn it on or off.
type Toggle = (
    &'static str,
    fn(&Animation) -> bool,
    fn(&Rc<Animation>, bool),
);

const TOGGLES: [Toggle; 3] = [
    (
        "position-handles",
        |a| a.handles_visible(HandleKind::Position),
        |a, on| a.set_handles_visible(HandleKind::Position, on),
    ),
    (
        "velocity-handles",
        |a| a.handles_visible(HandleKind::Velocity),
        |a, on| a.set_handles_visible(HandleKind::Velocity, on),
    ),
    ("live", |a| a.is_live(), |a, on| a.set_live(on)),
];

impl HostWindow {
    /// A window on a new, empty memo.
    pub fn open_empty(application: &gtk::Application) -> Rc<HostWindow> {
        HostWindow::open(application, empty_memo(), None)
    }

    /// A window on `document`, stored at `path` (or untitled), with its animations started.
    pub fn open(
        application: &gtk::Application,
        document: Document,
        path: Option<PathBuf>,
    ) -> Rc<HostWindow> {
        let window = gtk::ApplicationWindow::new(application);
        window.set_default_size(900, 800);
        window.set_show_menubar(true);
        let scroller = gtk::ScrolledWindow::new();
        scroller.set_vexpand(true);
        let status = gtk::Label::new(None);
        status.set_xalign(0.0);
        status.set_margin_start(8);
        status.set_margin_end(8);
        status.set_wrap(true);
        let column = gtk::Box::new(gtk::Orientation::Vertical, 0);
        column.append(&scroller);
        column.append(&status);
        window.set_child(Some(&column));
        let this = Rc::new(HostWindow {
            window,
            scroller,
            status,
            open: RefCell::new(OpenDocument {
                document,
                path,
                modified: false,
            }),
            animations: RefCell::new(Vec::new()),
            view: RefCell::new(None),
            focused: RefCell::new(Weak::new()),
            dialog: RefCell::new(None),
        });
        this.add_actions();
        for (action, accelerators) in ACCELERATORS {
            application.set_accels_for_action(action, accelerators);
        }
        let weak = Rc::downgrade(&this);
        this.window.connect_close_request(move |_| {
            let Some(this) = weak.upgrade() else {
                return glib::Propagation::Proceed;
            };
            if !this.open.borrow().modified {
                this.stop_animations();
                return glib::Propagation::Proceed;
            }
            this.confirm_discard(|this| {
                this.stop_animations();
                this.window.destroy();
            });
            glib::Propagation::Stop
        });
        // The state goes when the window leaves the application (closed, or destroyed after
        // "Don't Save"), not on `destroy`: GTK disposes a closed window only when its last
        // reference goes, and the state in `OPEN` holds one, so `destroy` came only when the
        // thread's locals were torn down at exit and `OPEN` could no longer be reached.
        let weak = Rc::downgrade(&this);
        this.window
            .connect_notify_local(Some("application"), move |window, _| {
                if window.application().is_none() {
                    forget(&weak);
                }
            });
        OPEN.with(|open| open.borrow_mut().push(this.clone()));
        this.start_document();
        this.window.present();
        // No field starts focused: GTK would select its text, ready to be typed over.
        GtkWindowExt::set_focus(&this.window, None::<&gtk::Widget>);
        this
    }

    /// Says in a window over this one, and in the status line, that a document cannot be
    /// opened and why (`message` locates the problem: `FILE:LINE:COLUMN: error: …`). The
    /// document shown stays as it was, and the file is not touched.
    pub fn cannot_open(&self, message: &str) {
        self.say(message);
        let dialog = gtk::MessageDialog::new(
            Some(&self.window),
            gtk::DialogFlags::MODAL | gtk::DialogFlags::DESTROY_WITH_PARENT,
            gtk::MessageType::Error,
            gtk::ButtonsType::Close,
            "The document cannot be opened",
        );
        dialog.set_title(Some("Cannot Open the Document"));
        dialog.set_secondary_text(Some(&format!(
            "{message}\n\nThe file is left as it is. Correct it in a text editor and open it \
             again (File ▸ Open)."
        )));
        dialog.connect_response(|dialog, _| dialog.destroy());
        dialog.present();
    }

    /// The open windows of this thread (the GTK thread).
    pub fn all() -> Vec<Rc<HostWindow>> {
        OPEN.with(|open| open.borrow().clone())
    }

    /// What the test probe reports about this window.
    pub fn state(&self) -> WindowState {
        let open = self.open.borrow();
        WindowState {
            title: self
                .window
                .title()
                .map(|t| t.to_string())
                .unwrap_or_default(),
            path: open.path.as_ref().map(|p| p.display().to_string()),
            modified: open.modified,
            status: self.status.text().to_string(),
            live_toggle: self
                .window
                .lookup_action("live")
                .and_then(|action| action.state())
                .and_then(|state| state.get::<bool>())
                .unwrap_or(false),
            animations: self.animations.borrow().iter().map(|a| a.state()).collect(),
        }
    }

    /// The menus, shared by every window of the application.
    pub fn menu() -> gio::Menu {
        let file = gio::Menu::new();
        file.append(Some("_New"), Some("win.new"));
        file.append(Some("_Open…"), Some("win.open"));
        file.append(Some("_Save"), Some("win.save"));
        file.append(Some("Save _As…"), Some("win.save-as"));
        file.append(Some(window_picture::MENU_LABEL), Some("win.export-window"));
        file.append(Some("_Close"), Some("win.close"));
        let edit = gio::Menu::new();
        edit.append(Some("Insert _Animation"), Some("win.insert-animation"));
        edit.append(
            Some("Insert Animation from _File…"),
            Some("win.insert-animation-file"),
        );
        edit.append(Some("_Delete Animation"), Some("win.delete-animation"));
        let editing = gio::Menu::new();
        editing.append(Some("P_osition Handles"), Some("win.position-handles"));
        editing.append(Some("_Velocity Handles"), Some("win.velocity-handles"));
        editing.append(Some("Re_compute Motion"), Some("win.recompute"));
        let asgard = gio::Menu::new();
        asgard.append_section(None, &items(PLAYBACK_ITEMS));
        asgard.append_section(None, &items(EDITOR_ITEMS));
        asgard.append_section(None, &items(VIEW_ITEMS));
        asgard.append_section(None, &editing);
        let help = gio::Menu::new();
        help.append(Some("_Using Asgard"), Some("win.help"));
        let bar = gio::Menu::new();
        bar.append_submenu(Some("_File"), &file);
        bar.append_submenu(Some("_Edit"), &edit);
        bar.append_submenu(Some("_Asgard"), &asgard);
        bar.append_submenu(Some("_Help"), &help);
        bar
    }

    /// An animation's context menu: the Asgard menu's playback, editor and view commands.
    pub fn animation_menu() -> gio::Menu {
        let menu = gio::Menu::new();
        menu.append_section(None, &items(PLAYBACK_ITEMS));
        menu.append_section(None, &items(EDITOR_ITEMS));
        menu.append_section(None, &items(VIEW_ITEMS));
        menu
    }

    fn add_actions(self: &Rc<Self>) {
        let plain: [(&str, Command); 19] = [
            ("new", |w| w.confirm_discard(|w| w.replace_document(None))),
            ("open", |w| w.confirm_discard(|w| w.choose_document())),
            ("save", |w| w.save(Box::new(|_| {}))),
            ("save-as", |w| w.save_as(Box::new(|_| {}))),
            ("close", |w| w.window.close()),
            ("insert-animation", |w| w.insert_animation(String::new())),
            ("insert-animation-file", |w| w.choose_scene_file()),
            ("delete-animation", |w| w.delete_animation()),
            ("play", |w| {
                w.with_target(|a| a.play());
            }),
            ("stop", |w| {
                w.with_target(|a| a.pause());
            }),
            ("rewind", |w| {
                w.with_target(|a| a.rewind());
            }),
            ("full-editor", |w| {
                w.with_target(|a| a.open_editor(EditorKind::Full));
            }),
            ("help", |w| super::help::show(&w.window)),
            (window_picture::ACTION, |w| w.choose_window_picture()),
            ("graphical-editor", |w| {
                w.with_target(|a| a.open_editor(EditorKind::Graphical));
            }),
            ("language-editor", |w| {
                w.with_target(|a| a.open_editor(EditorKind::Language));
            }),
            ("recompute", |w| {
                w.with_target(|a| a.recompute());
            }),
            ("new-view", |w| {
                w.with_target(|a| a.new_view());
            }),
            ("close-view", |w| {
                w.with_target(|a| a.close_view());
            }),
        ];
        for (name, activate) in plain {
            let action = gio::SimpleAction::new(name, None);
            let weak = Rc::downgrade(self);
            action.connect_activate(move |_, _| {
                if let Some(this) = weak.upgrade() {
                    activate(&this);
                }
            });
            self.window.add_action(&action);
        }
        for (name, _, set) in TOGGLES {
            let action = gio::SimpleAction::new_stateful(name, None, &false.to_variant());
            let weak = Rc::downgrade(self);
            action.connect_activate(move |action, _| {
                let Some(this) = weak.upgrade() else { return };
                let on = !action
                    .state()
                    .and_then(|s| s.get::<bool>())
                    .unwrap_or(false);
                if this.with_target(|a| set(a, on)) {
                    action.set_state(&on.to_variant());
                }
            });
            self.window.add_action(&action);
        }
    }

    /// The animation menu commands act on: the focused one, or the first.
    fn target(&self) -> Option<Rc<Animation>> {
        let focused = self.focused.borrow().upgrade();
        focused.or_else(|| self.animations.borrow().first().cloned())
    }

    /// Runs a menu command on the focused animation, or the first one; says so when there is
    /// none. Returns whether there was one.
    fn with_target(&self, command: impl FnOnce(&Rc<Animation>)) -> bool {
        match self.target() {
            Some(animation) => {
                command(&animation);
                true
            }
            None => {
                self.say("The document has no animation.");
                false
            }
        }
    }

    fn say(&self, message: &str) {
        self.status.set_text(message);
    }

    /// The sink through which this window's animations report.
    fn animation_events(self: &Rc<Self>) -> EventSink {
        let weak = Rc::downgrade(self);
        Rc::new(move |animation, event| {
            let Some(this) = weak.upgrade() else { return };
            match event {
                AnimationEvent::SceneTextChanged(text) => this.store_scene(animation, &text),
                AnimationEvent::Focused => {
                    this.focused.replace(Rc::downgrade(animation));
                    this.sync_toggles(animation);
                }
                AnimationEvent::ModeChanged => {
                    if this.target().is_some_and(|t| Rc::ptr_eq(&t, animation)) {
                        this.sync_toggles(animation);
                    }
                }
                AnimationEvent::Message(message) => this.say(&message),
                AnimationEvent::SaveRequested => this.save(Box::new(|_| {})),
            }
        })
    }

    /// The toggles show the state of the animation they act on.
    fn sync_toggles(&self, animation: &Animation) {
        for (name, is_on, _) in TOGGLES {
            if let Some(action) = self
                .window
                .lookup_action(name)
                .and_downcast::<gio::SimpleAction>()
            {
                action.set_state(&is_on(animation).to_variant());
            }
        }
    }

    /// Makes an animation per subdocument, shows the document and starts them all.
    fn start_document(self: &Rc<Self>) {
        let events = self.animation_events();
        let animations: Vec<Rc<Animation>> = self
            .open
            .borrow()
            .document
            .subdocuments()
            .iter()
            .map(|s| Animation::new(s.scene.clone(), s.size, events.clone()))
            .collect();
        self.animations.replace(animations.clone());
        self.rebuild_view();
        for animation in &animations {
            animation.start();
        }
        self.update_title();
    }

    fn stop_animations(&self) {
        for animation in self.animations.borrow().iter() {
            animation.stop();
        }
    }

    /// Builds the view of the document as it is now, moving the animations into it.
    fn rebuild_view(self: &Rc<Self>) {
        if let Some(old) = self.view.take() {
            old.release();
        }
        let weak = Rc::downgrade(self);
        let on_edit = Rc::new(move |edit: TextEdit| {
            if let Some(this) = weak.upgrade() {
                this.store_text(edit);
            }
        });
        let view = DocumentView::build(
            &self.open.borrow().document,
            &self.animations.borrow(),
            on_edit,
        );
        self.scroller.set_child(Some(&view.widget()));
        self.view.replace(Some(view));
    }

    fn update_title(&self) {
        let open = self.open.borrow();
        let name = open
            .path
            .as_deref()
            .and_then(Path::file_name)
            .map_or("Untitled".to_string(), |n| n.to_string_lossy().into_owned());
        let mark = if open.modified { "*" } else { "" };
        self.window
            .set_title(Some(&format!("{mark}{name} — Asgard host")));
    }

    fn mark_modified(&self) {
        self.open.borrow_mut().modified = true;
        self.update_title();
        // "Saved …" is no longer true.
        if self.status.text().starts_with(SAVED) {
            self.say("");
        }
    }

    fn store_text(&self, edit: TextEdit) {
        let result = {
            let mut open = self.open.borrow_mut();
            let element = text_elements(&open.document).get(edit.element).copied();
            match element {
                Some(element) => open
                    .document
                    .replace_text(element, &edit.text)
                    .map_err(|e| e.to_string()),
                None => Err("the edited text is no longer in the document".to_string()),
            }
        };
        match result {
            Ok(()) => self.mark_modified(),
            Err(e) => self.say(&format!("Cannot store the edit: {e}")),
        }
    }

    fn store_scene(&self, animation: &Rc<Animation>, text: &str) {
        let Some(index) = self.index_of(animation) else {
            return;
        };
        let result = self.open.borrow_mut().document.replace_scene(index, text);
        match result {
            Ok(()) => self.mark_modified(),
            Err(e) => self.say(&format!("Cannot store the scene text: {e}")),
        }
    }

    fn index_of(&self, animation: &Rc<Animation>) -> Option<usize> {
        self.animations
            .borrow()
            .iter()
            .position(|a| Rc::ptr_eq(a, animation))
    }

    /// Inserts an animation of `scene` at the cursor (or after the last paragraph) and starts
    /// it.
    fn insert_animation(self: &Rc<Self>, scene: String) {
        let at = self
            .view
            .borrow()
            .as_ref()
            .and_then(DocumentView::insertion_point);
        let result = {
            let mut open = self.open.borrow_mut();
            let paragraphs = open.document.paragraphs().len();
            match at.or(paragraphs.checked_sub(1).map(InsertAt::AfterParagraph)) {
                Some(at) => open
                    .document
                    .insert_animation(at, &scene, None)
                    .map_err(|e| e.to_string()),
                None => Err("the document has no paragraph to put it in".to_string()),
            }
        };
        let index = match result {
            Ok(index) => index,
            Err(e) => return self.say(&format!("Cannot insert an animation: {e}")),
        };
        let animation = Animation::new(scene, None, self.animation_events());
        self.animations
            .borrow_mut()
            .insert(index, animation.clone());
        self.rebuild_view();
        animation.start();
        self.focused.replace(Rc::downgrade(&animation));
        self.mark_modified();
    }

    fn delete_animation(self: &Rc<Self>) {
        let Some(animation) = self.focused.borrow().upgrade() else {
            return self.say("Click the animation to delete first.");
        };
        let Some(index) = self.index_of(&animation) else {
            return;
        };
        if let Err(e) = self.open.borrow_mut().document.delete_animation(index) {
            return self.say(&format!("Cannot delete the animation: {e}"));
        }
        animation.stop();
        self.animations.borrow_mut().remove(index);
        self.rebuild_view();
        self.mark_modified();
    }

    /// Replaces the open document with `document` (a new memo when `None`).
    fn replace_document(self: &Rc<Self>, loaded: Option<(Document, PathBuf)>) {
        self.stop_animations();
        let (document, path) = match loaded {
            Some((document, path)) => (document, Some(path)),
            None => (empty_memo(), None),
        };
        self.open.replace(OpenDocument {
            document,
            path,
            modified: false,
        });
        self.focused.replace(Weak::new());
        self.start_document();
    }

    /// Asks whether to save unsaved changes, then does `then` unless the reader cancels.
    fn confirm_discard(self: &Rc<Self>, then: impl FnOnce(&Rc<HostWindow>) + 'static) {
        if !self.open.borrow().modified {
            return then(self);
        }
        let name = self
            .open
            .borrow()
            .path
            .as_deref()
            .map_or("Untitled".into(), |p| {
                p.file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned()
            });
        let dialog = gtk::MessageDialog::new(
            Some(&self.window),
            gtk::DialogFlags::MODAL | gtk::DialogFlags::DESTROY_WITH_PARENT,
            gtk::MessageType::Question,
            gtk::ButtonsType::None,
            format!("Save the changes to “{name}”?"),
        );
        dialog.set_secondary_text(Some("Unsaved changes are lost otherwise."));
        dialog.add_button("_Don’t Save", gtk::ResponseType::Reject);
        dialog.add_button("_Cancel", gtk::ResponseType::Cancel);
        dialog.add_button("_Save", gtk::ResponseType::Accept);
        dialog.set_default_response(gtk::ResponseType::Accept);
        let weak = Rc::downgrade(self);
        let then = RefCell::new(Some(then));
        dialog.connect_response(move |dialog, response| {
            // Destroyed, not closed: closing a dialog answers it again (DeleteEvent), from
            // inside this handler.
            dialog.destroy();
            let Some(this) = weak.upgrade() else { return };
            let Some(then) = then.take() else { return };
            match response {
                gtk::ResponseType::Reject => then(&this),
                gtk::ResponseType::Accept => this.save(Box::new(then)),
                _ => {}
            }
        });
        dialog.present();
    }

    /// Saves to the document's path (Save As when it has none yet), then does `then`; nothing
    /// more when the save fails or the reader cancels.
    fn save(self: &Rc<Self>, then: AfterSave) {
        let path = self.open.borrow().path.clone();
        match path {
            Some(path) => self.write_to(&path, ReadOnly::Refuse, then),
            None => self.save_as(then),
        }
    }

    /// Saves to `path`, then does `then`. A read-only file is saved over only when the reader
    /// says so in a dialog.
    fn write_to(self: &Rc<Self>, path: &Path, read_only: ReadOnly, then: AfterSave) {
        let result = self.open.borrow().document.save(path, read_only);
        match result {
            Ok(()) => {
                {
                    let mut open = self.open.borrow_mut();
                    open.path = Some(path.to_path_buf());
                    open.modified = false;
                }
                self.update_title();
                self.say(&format!("{SAVED} {}.", path.display()));
                then(self);
            }
            Err(e) if ReadOnlyFile::of(&e).is_some() => self.confirm_read_only(path, then),
            Err(e) => self.say(&format!("Cannot save {}: {e}", path.display())),
        }
    }

    /// Asks whether to save over the read-only file `path`; saves there if so.
    fn confirm_read_only(self: &Rc<Self>, path: &Path, then: AfterSave) {
        self.say(&format!("{} is read-only.", path.display()));
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let dialog = gtk::MessageDialog::new(
            Some(&self.window),
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
        let weak = Rc::downgrade(self);
        let path = path.to_path_buf();
        let then = RefCell::new(Some(then));
        dialog.connect_response(move |dialog, response| {
            dialog.destroy();
            let (Some(this), Some(then)) = (weak.upgrade(), then.take()) else {
                return;
            };
            if response == gtk::ResponseType::Accept {
                this.write_to(&path, ReadOnly::Replace, then);
            } else {
                this.say(&format!("Not saved: {} is read-only.", path.display()));
            }
        });
        dialog.present();
    }

    /// Asks for a file name and saves there, then does `then`.
    fn save_as(self: &Rc<Self>, then: AfterSave) {
        let then = RefCell::new(Some(then));
        self.choose_file(
            "Save Document",
            gtk::FileChooserAction::Save,
            "_Save",
            ("Documents", "*.sgml"),
            move |this, path| {
                if let Some(then) = then.take() {
                    this.write_to(&path, ReadOnly::Refuse, then);
                }
            },
        );
    }

    fn choose_document(self: &Rc<Self>) {
        self.choose_file(
            "Open Document",
            gtk::FileChooserAction::Open,
            "_Open",
            ("Documents", "*.sgml"),
            |this, path| match super::load(&path) {
                Ok(document) => this.replace_document(Some((document, path))),
                Err(message) => this.cannot_open(&message),
            },
        );
    }

    /// Asks for a file and writes the window's picture there as PNG (the document, its
    /// animations and the menus as shown).
    fn choose_window_picture(self: &Rc<Self>) {
        self.choose_file(
            "Export the Window as PNG",
            gtk::FileChooserAction::Save,
            "_Export",
            ("PNG pictures", "*.png"),
            |this, path| {
                let weak = Rc::downgrade(this);
                let shown = path.clone();
                window_picture::write_png(this.window.upcast_ref(), &path, move |written| {
                    let Some(this) = weak.upgrade() else { return };
                    this.say(&match written {
                        Ok((w, h)) => format!("Wrote {} ({w} × {h}).", shown.display()),
                        Err(why) => format!("Cannot export the window: {why}"),
                    });
                });
            },
        );
    }

    fn choose_scene_file(self: &Rc<Self>) {
        self.choose_file(
            "Insert Animation",
            gtk::FileChooserAction::Open,
            "_Insert",
            ("Asgard scenes", "*.asg"),
            |this, path| match std::fs::read_to_string(&path) {
                Ok(scene) => this.insert_animation(scene),
                Err(e) => this.say(&format!("{}: {e}", path.display())),
            },
        );
    }

    /// Shows a file dialog and gives the chosen path to `chosen`.
    fn choose_file(
        self: &Rc<Self>,
        title: &str,
        action: gtk::FileChooserAction,
        accept: &str,
        (filter_name, pattern): (&str, &str),
        chosen: impl Fn(&Rc<HostWindow>, PathBuf) + 'static,
    ) {
        let dialog = gtk::FileChooserNative::new(
            Some(title),
            Some(&self.window),
            action,
            Some(accept),
            Some("_Cancel"),
        );
        let filter = gtk::FileFilter::new();
        filter.set_name(Some(filter_name));
        filter.add_pattern(pattern);
        dialog.add_filter(&filter);
        let weak = Rc::downgrade(self);
        dialog.connect_response(move |dialog, response| {
            let Some(this) = weak.upgrade() else { return };
            this.dialog.replace(None);
            if response == gtk::ResponseType::Accept {
                if let Some(path) = dialog.file().and_then(|f| f.path()) {
                    chosen(&this, path);
                }
            }
        });
        dialog.show();
        self.dialog.replace(Some(dialog));
    }
}
