//! One embedded animation: the slave process behind an animation subdocument (dissertation
//! 6.2.2: one process per subdocument) and the views that show its renditions inside the
//! document. The first view is the document's (at its requested size); the reader may add
//! more beside it, each a rendition of the same slave with its own camera and time, so every
//! view follows every edit of the scene (see [`super::view`]).
//!
//! Everything here runs on the GTK main thread; D-Bus calls are awaited on the GLib main
//! context (`glib::spawn_future_local`), never blocking it. A slave that dies leaves a message
//! and a Restart button in its place; nothing else in the host is touched.

use super::probe::AnimationState;
use super::view::{next, CallFuture, View, ViewEvent, ViewSink};
use crate::doc::PresentationSize;
use crate::ipc::{self, EditorKind, HandleKind, RenditionProxy, SlaveProcess, SubdocumentProxy};
use gtk::prelude::*;
use gtk::{gio, glib};
use gtk4 as gtk;
use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, Command, ExitStatus};
use std::rc::{Rc, Weak};
use zbus::proxy::CacheProperties;
use zbus::zvariant::OwnedObjectPath;

/// The size an animation gets when neither the document nor the slave asks for one.
const FALLBACK_SIZE: (u32, u32) = (400, 300);

/// What an animation tells the window it lives in.
pub enum AnimationEvent {
    /// The slave changed the scene text (a handle drag, an editor window): store it.
    SceneTextChanged(String),
    /// The reader clicked or focused one of the animation's views: menu commands now act on
    /// it.
    Focused,
    /// Something to show in the status line (a refused command, a scene error).
    Message(String),
    /// A view went live or back to playback (asked to, or its live run failed).
    ModeChanged,
    /// An editor window of the slave asks for the document to be saved (its File ▸ Save);
    /// the scene text it holds was reported before this.
    SaveRequested,
}

/// Receives an animation's events; the window that owns the animations implements it.
pub type EventSink = Rc<dyn Fn(&Rc<Animation>, AnimationEvent)>;

/// How far an animation has come.
enum Phase {
    Starting,
    Running,
    Failed(String),
}

/// The live connection to a running slave.
struct Link {
    subdocument: SubdocumentProxy<'static>,
    pid: u32,
}

/// One embedded animation subdocument.
pub struct Animation {
    root: gtk::Overlay,
    /// The views side by side.
    row: gtk::Box,
    /// The document's view first, then those the reader added.
    views: RefCell<Vec<Rc<View>>>,
    /// The view the menus' playback commands act on: the one clicked or focused last.
    focused_view: RefCell<Weak<View>>,
    failure: gtk::Box,
    failure_message: gtk::Label,
    /// The scene text the slave was given or reported last; a restart starts from it.
    scene: RefCell<String>,
    requested_size: Option<PresentationSize>,
    link: RefCell<Option<Link>>,
    /// Bumped by every start and stop, so that futures of an older slave stand down.
    generation: Cell<u64>,
    phase: RefCell<Phase>,
    handles: RefCell<BTreeSet<HandleKind>>,
    events: EventSink,
}

impl Animation {
    /// An animation of `scene`, at the document's requested size if any; call
    /// [`Animation::start`] to bring it to life.
    pub fn new(scene: String, size: Option<PresentationSize>, events: EventSink) -> Rc<Animation> {
        let failure_message = gtk::Label::new(None);
        failure_message.set_wrap(true);
        let restart = gtk::Button::with_mnemonic("_Restart");
        restart.set_halign(gtk::Align::Center);
        let failure = gtk::Box::new(gtk::Orientation::Vertical, 8);
        failure.append(&failure_message);
        failure.append(&restart);
        failure.set_halign(gtk::Align::Center);
        failure.set_valign(gtk::Align::Center);
        failure.add_css_class("asgard-failure");
        failure.set_visible(false);
        let row = gtk::Box::new(gtk::Orientation::Horizontal, 8);
        let root = gtk::Overlay::new();
        root.set_child(Some(&row));
        root.add_overlay(&failure);
        root.set_halign(gtk::Align::Start);
        let this = Rc::new(Animation {
            root,
            row,
            views: RefCell::new(Vec::new()),
            focused_view: RefCell::new(Weak::new()),
            failure,
            failure_message,
            scene: RefCell::new(scene),
            requested_size: size,
            link: RefCell::new(None),
            generation: Cell::new(0),
            phase: RefCell::new(Phase::Starting),
            handles: RefCell::new(BTreeSet::new()),
            events,
        });
        let first = View::new(
            size.map_or(FALLBACK_SIZE, |s| (s.width, s.height)),
            this.view_events(),
        );
        this.row.append(&first.widget());
        this.views.borrow_mut().push(first);
        let weak = Rc::downgrade(&this);
        restart.connect_clicked(move |_| {
            if let Some(this) = weak.upgrade() {
                this.start();
            }
        });
        this
    }

    /// The widget to place in the document.
    pub fn widget(&self) -> gtk::Widget {
        self.root.clone().upcast()
    }

    /// What the test probe reports about this animation; its frames and size are the
    /// document's view's.
    pub fn state(&self) -> AnimationState {
        let views = self.views.borrow();
        let (phase, message) = match &*self.phase.borrow() {
            Phase::Starting => ("starting", views[0].notice()),
            Phase::Running => ("running", views[0].notice()),
            Phase::Failed(message) => ("failed", message.clone()),
        };
        let (width, height) = views[0].size();
        let focused = self.focused_view.borrow().upgrade();
        AnimationState {
            phase,
            message,
            frames_shown: views[0].frames_shown(),
            slave_pid: self.link.borrow().as_ref().map(|l| l.pid),
            width,
            height,
            views: views.iter().map(|v| v.state()).collect(),
            focused_view: focused.and_then(|f| views.iter().position(|v| Rc::ptr_eq(v, &f))),
        }
    }

    pub fn handles_visible(&self, kind: HandleKind) -> bool {
        self.handles.borrow().contains(&kind)
    }

    /// Starts a slave for the current scene text (ending the previous one, if any), creates a
    /// rendition for each view and plays them in a loop.
    pub fn start(self: &Rc<Self>) {
        self.stop();
        let generation = self.generation.get();
        self.set_phase(Phase::Starting);
        self.show_notice("Starting Asgard…");
        let weak = Rc::downgrade(self);
        glib::spawn_future_local(async move {
            if let Err(message) = connect(weak.clone(), generation).await {
                if let Some(this) = current(&weak, generation) {
                    this.fail(message);
                }
            }
        });
    }

    /// Ends the slave: closing the connection makes it exit.
    pub fn stop(&self) {
        self.generation.set(self.generation.get() + 1);
        self.link.replace(None);
        for view in self.views.borrow().iter() {
            view.detach();
        }
    }

    /// The view the playback commands act on: the one focused last, or the document's.
    fn view(&self) -> Rc<View> {
        let focused = self.focused_view.borrow().upgrade();
        focused.unwrap_or_else(|| self.views.borrow()[0].clone())
    }

    pub fn play(&self) {
        self.view().play();
    }

    pub fn pause(&self) {
        self.view().pause();
    }

    pub fn rewind(&self) {
        self.view().rewind();
    }

    pub fn is_live(&self) -> bool {
        self.view().is_live()
    }

    /// Runs the scene live in the focused view, or returns it to the computed motion.
    pub fn set_live(&self, live: bool) {
        self.view().set_live(live);
    }

    /// Adds a view beside the others: a new rendition of this animation, as large as the
    /// document's view, with its own camera and time, playing in a loop. It is the reader's,
    /// not the document's: nothing is written into the document.
    pub fn new_view(self: &Rc<Self>) {
        let Some(subdocument) = self.link.borrow().as_ref().map(|l| l.subdocument.clone()) else {
            return self.say("This animation's slave is not running.");
        };
        let size = self.views.borrow()[0].size();
        let view = View::new(size, self.view_events());
        self.row.append(&view.widget());
        self.views.borrow_mut().push(view.clone());
        let weak = Rc::downgrade(self);
        let generation = self.generation.get();
        glib::spawn_future_local(async move {
            let result = attach(&subdocument, &view, size).await;
            let Some(this) = current(&weak, generation) else {
                return;
            };
            match result {
                Ok(()) => {
                    // The menus act on the new view from now on.
                    this.focused_view.replace(Rc::downgrade(&view));
                    view.focus();
                    (this.events)(&this, AnimationEvent::Focused);
                }
                Err(message) => {
                    this.remove_view(&view);
                    this.say(&format!("No new view: {message}"));
                }
            }
        });
    }

    /// Closes the focused view, unless it is the document's own (Delete Animation removes
    /// that).
    pub fn close_view(self: &Rc<Self>) {
        let view = self.view();
        if Rc::ptr_eq(&view, &self.views.borrow()[0]) {
            return self.say(
                "The first view is the animation in the document; Edit ▸ Delete Animation \
                 removes it. Click a view added beside it to close that one.",
            );
        }
        view.close();
        self.remove_view(&view);
    }

    fn remove_view(&self, view: &Rc<View>) {
        self.row.remove(&view.widget());
        self.views.borrow_mut().retain(|v| !Rc::ptr_eq(v, view));
        self.focused_view.replace(Weak::new());
    }

    pub fn open_editor(self: &Rc<Self>, kind: EditorKind) {
        self.call_subdocument(move |s| Box::pin(async move { s.open_editor(kind.as_str()).await }));
    }

    pub fn recompute(self: &Rc<Self>) {
        self.call_subdocument(|s| Box::pin(async move { s.simulate().await }));
    }

    pub fn set_handles_visible(self: &Rc<Self>, kind: HandleKind, visible: bool) {
        if visible {
            self.handles.borrow_mut().insert(kind);
        } else {
            self.handles.borrow_mut().remove(&kind);
        }
        self.call_subdocument(move |s| {
            Box::pin(async move { s.set_handles_visible(kind.as_str(), visible).await })
        });
    }

    /// Runs a call on the slave's subdocument, reporting a refusal in the status line.
    fn call_subdocument(
        self: &Rc<Self>,
        call: impl FnOnce(SubdocumentProxy<'static>) -> CallFuture + 'static,
    ) {
        let Some(proxy) = self.link.borrow().as_ref().map(|l| l.subdocument.clone()) else {
            return self.say("This animation's slave is not running.");
        };
        let weak = Rc::downgrade(self);
        glib::spawn_future_local(async move {
            if let Err(e) = call(proxy).await {
                if let Some(this) = weak.upgrade() {
                    this.say(&e.message());
                }
            }
        });
    }

    fn say(self: &Rc<Self>, message: &str) {
        (self.events)(self, AnimationEvent::Message(message.to_string()));
    }

    /// The sink through which this animation's views report.
    fn view_events(self: &Rc<Self>) -> ViewSink {
        let weak = Rc::downgrade(self);
        Rc::new(move |view, event| {
            let Some(this) = weak.upgrade() else { return };
            match event {
                ViewEvent::Focused => {
                    this.focused_view.replace(Rc::downgrade(view));
                    (this.events)(&this, AnimationEvent::Focused);
                }
                ViewEvent::Message(message) => this.say(&message),
                ViewEvent::ModeChanged => (this.events)(&this, AnimationEvent::ModeChanged),
            }
        })
    }

    fn set_phase(&self, phase: Phase) {
        self.failure.set_visible(matches!(phase, Phase::Failed(_)));
        if let Phase::Failed(message) = &phase {
            self.failure_message.set_text(message);
            self.show_notice("");
        }
        self.phase.replace(phase);
    }

    /// Shows a line over the bottom of every view; nothing when `text` is empty.
    fn show_notice(&self, text: &str) {
        for view in self.views.borrow().iter() {
            view.show_notice(text);
        }
    }

    /// Shows a failure with the Restart button; the slave, if still there, is let go.
    fn fail(&self, message: String) {
        self.stop();
        self.set_phase(Phase::Failed(message));
    }
}

/// The animation, if it still exists and has not been restarted or stopped since
/// `generation`.
fn current(weak: &Weak<Animation>, generation: u64) -> Option<Rc<Animation>> {
    weak.upgrade().filter(|a| a.generation.get() == generation)
}

/// Creates a rendition of `size` pixels and gives it to `view`.
async fn attach(
    subdocument: &SubdocumentProxy<'static>,
    view: &Rc<View>,
    (width, height): (u32, u32),
) -> Result<(), String> {
    let path = subdocument
        .create_rendition(width, height)
        .await
        .map_err(|e| format!("Asgard did not answer: {}", e.message()))?;
    let rendition = rendition_proxy(subdocument, path)
        .await
        .map_err(|e| format!("Asgard did not answer: {e}"))?;
    view.attach(rendition, (width, height)).await
}

async fn rendition_proxy(
    subdocument: &SubdocumentProxy<'static>,
    path: OwnedObjectPath,
) -> zbus::Result<RenditionProxy<'static>> {
    RenditionProxy::builder(subdocument.inner().connection())
        .path(path)?
        .cache_properties(CacheProperties::No)
        .build()
        .await
}

/// Starts the slave and brings its views up: scene text, sizes, a rendition per view, signal
/// listeners, looping playback.
async fn connect(weak: Weak<Animation>, generation: u64) -> Result<(), String> {
    let executable = std::env::current_exe()
        .map_err(|e| format!("Cannot find the asgard program to start: {e}"))?;
    let mut command = Command::new(executable);
    command.arg("slave");
    let SlaveProcess { child, connection } = SlaveProcess::spawn(command)
        .await
        .map_err(|e| format!("Cannot start Asgard: {e}"))?;
    let pid = child.id();
    watch_exit(weak.clone(), generation, child);
    let failed = |e: ipc::Error| format!("Asgard did not answer: {}", e.message());
    let zbus_failed = |e: zbus::Error| failed(ipc::Error::ZBus(e));
    let subdocument = SubdocumentProxy::builder(&connection)
        .cache_properties(CacheProperties::No)
        .build()
        .await
        .map_err(zbus_failed)?;
    let Some(scene) = current(&weak, generation).map(|a| a.scene.borrow().clone()) else {
        return Ok(());
    };
    let scene_error = match subdocument.set_scene_text(&scene).await {
        Ok(()) => None,
        Err(ipc::Error::InvalidScene(message)) => Some(message),
        Err(e) => return Err(failed(e)),
    };
    let requested = current(&weak, generation).and_then(|a| a.requested_size);
    let size = match requested {
        Some(size) => (size.width, size.height),
        None => subdocument.preferred_size().await.map_err(zbus_failed)?,
    };
    listen(weak.clone(), generation, &subdocument).await?;
    let Some(views) = current(&weak, generation).map(|a| a.views.borrow().clone()) else {
        return Ok(());
    };
    for (index, view) in views.iter().enumerate() {
        // The reader's views keep their size across a restart.
        let size = if index == 0 { size } else { view.size() };
        attach(&subdocument, view, size).await?;
    }
    let Some(this) = current(&weak, generation) else {
        return Ok(());
    };
    this.link.replace(Some(Link { subdocument, pid }));
    this.set_phase(Phase::Running);
    match scene_error {
        Some(message) => this.show_notice(&message),
        None => this.show_notice(""),
    }
    Ok(())
}

/// Follows the subdocument's signals: scene text changes, save requests and errors.
async fn listen(
    weak: Weak<Animation>,
    generation: u64,
    subdocument: &SubdocumentProxy<'static>,
) -> Result<(), String> {
    let failed = |e: zbus::Error| format!("Cannot follow Asgard's signals: {e}");
    let mut texts = subdocument
        .receive_scene_text_changed()
        .await
        .map_err(failed)?;
    let w = weak.clone();
    glib::spawn_future_local(async move {
        while let Some(signal) = next(&mut texts).await {
            let Ok(args) = signal.args() else { continue };
            let Some(this) = current(&w, generation) else {
                return;
            };
            this.scene.replace(args.text.clone());
            this.show_notice("");
            (this.events)(&this, AnimationEvent::SceneTextChanged(args.text));
        }
    });

    // Save in an editor window saves the document. The text is asked for again first: the
    // text and save signals are followed by two tasks, which need not run in order.
    let mut saves = subdocument.receive_save_requested().await.map_err(failed)?;
    let w = weak.clone();
    let proxy = subdocument.clone();
    glib::spawn_future_local(async move {
        while next(&mut saves).await.is_some() {
            let text = proxy.get_scene_text().await;
            let Some(this) = current(&w, generation) else {
                return;
            };
            match text {
                Ok(text) => {
                    if *this.scene.borrow() != text {
                        this.scene.replace(text.clone());
                        (this.events)(&this, AnimationEvent::SceneTextChanged(text));
                    }
                    (this.events)(&this, AnimationEvent::SaveRequested);
                }
                Err(e) => (this.events)(
                    &this,
                    AnimationEvent::Message(format!(
                        "Not saved: Asgard did not give the scene text: {}",
                        e.message()
                    )),
                ),
            }
        }
    });

    let mut errors = subdocument.receive_error().await.map_err(failed)?;
    glib::spawn_future_local(async move {
        while let Some(signal) = next(&mut errors).await {
            let Ok(args) = signal.args() else { continue };
            let Some(this) = current(&weak, generation) else {
                return;
            };
            let message = match (args.line, args.column) {
                (0, _) => args.message.to_string(),
                (line, column) => format!("{line}:{column}: {}", args.message),
            };
            this.show_notice(&message);
        }
    });
    Ok(())
}

/// Waits (on a worker thread) for the slave to end; an end the host did not ask for shows the
/// failure and the Restart button.
fn watch_exit(weak: Weak<Animation>, generation: u64, mut child: Child) {
    glib::spawn_future_local(async move {
        let status = gio::spawn_blocking(move || child.wait()).await;
        let Some(this) = current(&weak, generation) else {
            return;
        };
        let how = match status {
            Ok(Ok(status)) => describe(status),
            _ => "for a reason the host could not learn".to_string(),
        };
        this.fail(format!("Asgard stopped {how}."));
    });
}

fn describe(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("with exit status {code}"),
        (None, Some(signal)) => format!("on signal {signal}"),
        (None, None) => "unexpectedly".to_string(),
    }
}
