//! The windows of one session and what they share.
//!
//! Views never talk to each other, only to the session (figure 3.2). A few things are not
//! part of the scene and still belong to all windows of one session: the Create command
//! waiting for clicks in a graphical viewer, the bodies selected, the view an export draws
//! from, and the status messages the control panel shows. [`Editor`] holds those, and the
//! actions every window has (undo and redo as text history, save).

use super::create::Prompt;
use crate::render::camera::Camera;
use crate::render::scene_frame::FrameOptions;
use crate::session::{Event, Session};
use gtk::prelude::*;
use gtk::{gio, glib};
use gtk4 as gtk;
use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;
use std::rc::{Rc, Weak};

/// Something that happened among the windows of one session (not to the scene).
#[derive(Clone, Debug, PartialEq)]
pub enum EditorEvent {
    /// A Create command started waiting for clicks, or stopped.
    Prompt,
    /// The selected bodies changed.
    Selection,
    /// A message for the status line.
    Status(String),
}

/// The view of a graphical viewer, for exporting pictures as the user sees them.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportView {
    pub camera: Camera,
    pub time: f64,
    pub options: FrameOptions,
    pub size: (u32, u32),
}

type Listener = Rc<dyn Fn(&EditorEvent)>;

/// The windows of one session. Every window holds it; it goes when the last window closes.
pub struct Editor {
    pub app: gtk::Application,
    pub session: Rc<Session>,
    prompt: RefCell<Option<Prompt>>,
    selection: RefCell<BTreeSet<String>>,
    export_view: RefCell<Option<ExportView>>,
    listeners: RefCell<Vec<(u64, Listener)>>,
    next_listener: Cell<u64>,
    windows: RefCell<Vec<glib::WeakRef<gtk::Window>>>,
    /// The open shape editor: one at a time (4.1).
    shape_editor: OneWindow,
    /// The open control panel: one per session, raised by a second "open the full editor".
    control_panel: OneWindow,
    /// For a scene of a host's document: asks the host to save the document.
    host_save: RefCell<Option<Rc<dyn Fn()>>>,
    /// Whether the session's motion was computed from the current text.
    motion_current: Cell<bool>,
    /// The editor's own session observer.
    observer: Cell<Option<crate::session::ObserverId>>,
    /// How many graphical and language viewers were opened, to number their titles.
    opened: Cell<(u32, u32)>,
}

thread_local! {
    static EDITORS: RefCell<Vec<Weak<Editor>>> = const { RefCell::new(Vec::new()) };
}

impl Editor {
    /// The editor of `session` in `app`: the one its open windows share, or a new one.
    pub fn of(app: &gtk::Application, session: &Rc<Session>) -> Rc<Editor> {
        let found = EDITORS.with(|editors| {
            let mut editors = editors.borrow_mut();
            editors.retain(|e| e.strong_count() > 0);
            editors
                .iter()
                .filter_map(Weak::upgrade)
                .find(|e| Rc::ptr_eq(&e.session, session) && &e.app == app)
        });
        if let Some(editor) = found {
            return editor;
        }
        install_accels(app);
        let editor = Rc::new(Editor {
            app: app.clone(),
            session: session.clone(),
            prompt: RefCell::new(None),
            selection: RefCell::new(BTreeSet::new()),
            export_view: RefCell::new(None),
            listeners: RefCell::new(Vec::new()),
            next_listener: Cell::new(1),
            windows: RefCell::new(Vec::new()),
            shape_editor: OneWindow::default(),
            control_panel: OneWindow::default(),
            host_save: RefCell::new(None),
            motion_current: Cell::new(session.motion().is_some()),
            observer: Cell::new(None),
            opened: Cell::new((0, 0)),
        });
        let weak = Rc::downgrade(&editor);
        let id = session.subscribe(move |_, event| {
            let Some(editor) = weak.upgrade() else {
                return;
            };
            match event {
                Event::TextChanged { .. } => editor.motion_current.set(false),
                Event::SimulationStarted => editor.motion_current.set(true),
                _ => {}
            }
        });
        editor.observer.set(Some(id));
        EDITORS.with(|editors| editors.borrow_mut().push(Rc::downgrade(&editor)));
        editor
    }

    // --- shared state ----------------------------------------------------------------------

    /// The session's motion, when it was computed from the current text (the text changes
    /// before a new run starts; until then the old motion belongs to another scene).
    pub fn current_motion(&self) -> Option<crate::sim::physics::SceneMotion> {
        self.motion_current
            .get()
            .then(|| self.session.motion())
            .flatten()
    }

    /// Calls `listener` for every editor event until the returned id is passed to
    /// [`Editor::unlisten`].
    pub fn listen(&self, listener: impl Fn(&EditorEvent) + 'static) -> u64 {
        let id = self.next_listener.get();
        self.next_listener.set(id + 1);
        self.listeners.borrow_mut().push((id, Rc::new(listener)));
        id
    }

    pub fn unlisten(&self, id: u64) {
        self.listeners.borrow_mut().retain(|(i, _)| *i != id);
    }

    fn notify(&self, event: EditorEvent) {
        let listeners: Vec<Listener> = self
            .listeners
            .borrow()
            .iter()
            .map(|(_, l)| l.clone())
            .collect();
        for listener in listeners {
            listener(&event);
        }
    }

    /// Shows `message` in the status line.
    pub fn status(&self, message: impl Into<String>) {
        self.notify(EditorEvent::Status(message.into()));
    }

    /// Starts a Create command: graphical viewers pass their clicks to it.
    pub fn start_prompt(&self, prompt: Prompt) {
        let instruction = prompt.instruction();
        *self.prompt.borrow_mut() = Some(prompt);
        self.notify(EditorEvent::Prompt);
        self.status(instruction);
    }

    /// Ends the Create command waiting for clicks, if any.
    pub fn cancel_prompt(&self) {
        if self.prompt.borrow_mut().take().is_some() {
            self.notify(EditorEvent::Prompt);
            self.status("");
        }
    }

    /// What the waiting Create command asks for, if one waits.
    pub fn prompt_instruction(&self) -> Option<String> {
        self.prompt.borrow().as_ref().map(Prompt::instruction)
    }

    /// Passes a click to the waiting Create command; when it completes, its element is written
    /// into the text. Returns false when no command waits.
    pub fn prompt_click(&self, click: &super::create::Click) -> bool {
        let Some(mut prompt) = self.prompt.borrow_mut().take() else {
            return false;
        };
        let result = {
            let text = self.session.text().to_owned();
            let scene = self.session.scene();
            match scene {
                Some(scene) => prompt.click(click, &text, &scene),
                None => Err("The text has no evaluated scene to add to.".into()),
            }
        };
        match result {
            Ok(Some(text)) => {
                self.notify(EditorEvent::Prompt);
                self.status("");
                self.session.set_text(text, None);
            }
            Ok(None) => self.start_prompt(prompt),
            Err(why) => {
                let instruction = prompt.instruction();
                *self.prompt.borrow_mut() = Some(prompt);
                self.status(format!("{why} {instruction}"));
            }
        }
        true
    }

    /// The names of the selected bodies.
    pub fn selection(&self) -> BTreeSet<String> {
        self.selection.borrow().clone()
    }

    /// Adds a body to the selection, or takes it out when it is in.
    pub fn toggle_selected(&self, body: &str) {
        {
            let mut selection = self.selection.borrow_mut();
            if !selection.remove(body) {
                selection.insert(body.to_owned());
            }
        }
        self.notify(EditorEvent::Selection);
    }

    /// Records the view exports draw from (the graphical viewer used last).
    pub fn set_export_view(&self, view: ExportView) {
        *self.export_view.borrow_mut() = Some(view);
    }

    pub fn export_view(&self) -> Option<ExportView> {
        self.export_view.borrow().clone()
    }

    /// The shape editor, while one is open.
    pub fn shape_editor(&self) -> Option<gtk::Window> {
        self.shape_editor.get()
    }

    pub fn set_shape_editor(&self, window: &impl IsA<gtk::Window>) {
        self.shape_editor.set(window);
    }

    /// The control panel, while one is open.
    pub fn control_panel(&self) -> Option<gtk::Window> {
        self.control_panel.get()
    }

    pub fn set_control_panel(&self, window: &impl IsA<gtk::Window>) {
        self.control_panel.set(window);
    }

    // --- the scene of a host's document ----------------------------------------------------

    /// Makes Save in every window of this session ask the host to save its document
    /// (`save`), the scene being part of it.
    pub fn save_through_host(&self, save: Rc<dyn Fn()>) {
        *self.host_save.borrow_mut() = Some(save);
    }

    /// Whether the scene is part of a host's document, which the host saves.
    pub fn saved_by_host(&self) -> bool {
        self.host_save.borrow().is_some()
    }

    /// Asks the host to save its document, when the scene is part of one; returns whether it
    /// did.
    pub fn ask_host_to_save(&self) -> bool {
        let save = self.host_save.borrow().clone();
        match save {
            Some(save) => {
                save();
                self.status("Asked the host to save the document the animation is part of.");
                true
            }
            None => false,
        }
    }

    /// The next number for a viewer's title: graphical or language.
    pub fn next_viewer_number(&self, graphical: bool) -> u32 {
        let (g, l) = self.opened.get();
        let next = if graphical { (g + 1, l) } else { (g, l + 1) };
        self.opened.set(next);
        if graphical {
            next.0
        } else {
            next.1
        }
    }

    // --- windows ---------------------------------------------------------------------------

    /// The name the windows show for the scene: its file name, or "untitled", with a star
    /// when it differs from the file; a scene of a host's document is "animation in the host's
    /// document", without a star (the host's window shows whether the document is saved).
    pub fn scene_title(&self) -> String {
        if self.saved_by_host() {
            return "Animation in the host's document".into();
        }
        let name = self
            .session
            .path()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "untitled".into());
        let star = if self.session.is_modified() { "*" } else { "" };
        format!("{star}{name}")
    }

    /// A new window of this session titled "SCENE — `what`", with undo, redo and save. Its
    /// session observers (`observers`, added later with [`Editor::observe`]) go when it closes.
    pub fn window(self: &Rc<Self>, what: &str) -> gtk::ApplicationWindow {
        let window = gtk::ApplicationWindow::builder()
            .application(&self.app)
            .title(format!("{} — {what}", self.scene_title()))
            .build();
        self.add_actions(&window);
        super::export::add_window_export(self, &window);
        let what = what.to_owned();
        let weak = glib::WeakRef::new();
        weak.set(Some(&window));
        self.observe(&window, move |editor, event| {
            if matches!(event, Event::FileChanged) {
                if let Some(window) = weak.upgrade() {
                    window.set_title(Some(&format!("{} — {what}", editor.scene_title())));
                }
            }
        });
        let win: &gtk::Window = window.upcast_ref();
        let handle = glib::WeakRef::new();
        handle.set(Some(win));
        self.windows.borrow_mut().push(handle);
        // The window keeps the editor alive; the editor goes with the session's last window.
        let keep = self.clone();
        window.connect_destroy(move |_| {
            keep.windows.borrow_mut().retain(|w| w.upgrade().is_some());
        });
        window
    }

    /// Calls `observer` for every session event while `window` is open.
    pub fn observe(
        self: &Rc<Self>,
        window: &impl IsA<gtk::Widget>,
        observer: impl Fn(&Editor, &Event) + 'static,
    ) {
        let editor = Rc::downgrade(self);
        let id = self.session.subscribe(move |_, event| {
            if let Some(editor) = editor.upgrade() {
                observer(&editor, event);
            }
        });
        let session = self.session.clone();
        window.connect_destroy(move |_| session.unsubscribe(id));
    }

    /// Calls `listener` for every editor event while `window` is open.
    pub fn listen_while_open(
        self: &Rc<Self>,
        window: &impl IsA<gtk::Widget>,
        listener: impl Fn(&EditorEvent) + 'static,
    ) {
        let id = self.listen(listener);
        let editor = Rc::downgrade(self);
        window.connect_destroy(move |_| {
            if let Some(editor) = editor.upgrade() {
                editor.unlisten(id);
            }
        });
    }

    /// The open windows of this session.
    fn open_windows(&self) -> Vec<gtk::Window> {
        self.windows
            .borrow()
            .iter()
            .filter_map(|w| w.upgrade())
            .collect()
    }

    /// Raises every window of this session.
    pub fn present_all(&self) {
        for window in self.open_windows() {
            window.present();
        }
    }

    /// Closes every window of this session.
    pub fn close_all(&self) {
        for window in self.open_windows() {
            window.destroy();
        }
    }

    fn add_actions(self: &Rc<Self>, window: &gtk::ApplicationWindow) {
        let action = |name: &str, run: fn(&Rc<Editor>)| {
            let editor = Rc::downgrade(self);
            let action = gio::SimpleAction::new(name, None);
            action.connect_activate(move |_, _| {
                if let Some(editor) = editor.upgrade() {
                    run(&editor);
                }
            });
            window.add_action(&action);
        };
        action("undo", |e| {
            if !e.session.undo() {
                e.status("Nothing to undo.");
            }
        });
        action("redo", |e| {
            if !e.session.redo() {
                e.status("Nothing to redo.");
            }
        });
        action("simulate", |e| {
            if e.session.error().is_some() {
                e.status("The text has an error: fix it, then simulate.");
            } else {
                e.session.simulate();
            }
        });
        action("cancel", |e| e.cancel_prompt());
    }
}

/// A window of which a session has at most one open.
#[derive(Default)]
struct OneWindow(RefCell<Option<glib::WeakRef<gtk::Window>>>);

impl OneWindow {
    fn get(&self) -> Option<gtk::Window> {
        self.0.borrow().as_ref().and_then(|w| w.upgrade())
    }

    fn set(&self, window: &impl IsA<gtk::Window>) {
        let weak = glib::WeakRef::new();
        weak.set(Some(window.upcast_ref()));
        *self.0.borrow_mut() = Some(weak);
    }
}

impl Drop for Editor {
    fn drop(&mut self) {
        if let Some(id) = self.observer.take() {
            self.session.unsubscribe(id);
        }
    }
}

/// Keyboard shortcuts of the window actions every editor window has.
fn install_accels(app: &gtk::Application) {
    app.set_accels_for_action("win.undo", &["<Primary>z"]);
    app.set_accels_for_action("win.redo", &["<Primary><Shift>z", "<Primary>y"]);
    app.set_accels_for_action("win.simulate", &["<Primary>r"]);
    app.set_accels_for_action("win.save", &["<Primary>s"]);
    app.set_accels_for_action("win.save-as", &["<Primary><Shift>s"]);
    app.set_accels_for_action("win.close", &["<Primary>w"]);
    app.set_accels_for_action("win.open", &["<Primary>o"]);
    app.set_accels_for_action("win.export-picture", &["<Primary>e"]);
    app.set_accels_for_action("win.export-movie", &["<Primary><Shift>e"]);
    app.set_accels_for_action("win.export-gltf", &["<Primary><Alt>e"]);
    app.set_accels_for_action("win.update", &["<Primary>Return"]);
    app.set_accels_for_action("win.cancel", &["Escape"]);
    app.set_accels_for_action("win.play", &["<Primary>p"]);
    app.set_accels_for_action("win.stop", &["<Primary>period"]);
    app.set_accels_for_action("win.live", &["<Primary>l"]);
    app.set_accels_for_action("win.keep-trajectory", &["<Primary>k"]);
    app.set_accels_for_action("win.keep-view", &["<Primary><Shift>k"]);
}
