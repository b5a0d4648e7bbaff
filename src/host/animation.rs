//! One embedded animation: the widget that shows a rendition's frames inside the document and
//! forwards the reader's pointer, scroll and key events to it, and the slave process behind
//! it (dissertation 6.2.2-6.2.3: one process per subdocument, the slave does its own redisplay
//! and interaction).
//!
//! Everything here runs on the GTK main thread; D-Bus calls are awaited on the GLib main
//! context (`glib::spawn_future_local`), never blocking it. A slave that dies leaves a message
//! and a Restart button in its place; nothing else in the host is touched.

use super::controls::{Control, ControlBar};
use super::input::{InputEvent, InputQueue};
use super::probe::AnimationState;
use crate::doc::PresentationSize;
use crate::ipc::{
    self, EditorKind, FrameReader, HandleKind, Modifiers, PlaybackMode, PointerKind,
    RenditionProxy, SlaveProcess, SubdocumentProxy,
};
use gtk::prelude::*;
use gtk::{gdk, gio, glib};
use gtk4 as gtk;
use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;
use std::future::Future;
use std::os::unix::process::ExitStatusExt;
use std::pin::Pin;
use std::process::{Child, Command, ExitStatus};
use std::rc::{Rc, Weak};
use zbus::export::futures_core::Stream;
use zbus::fdo::PropertiesProxy;
use zbus::proxy::CacheProperties;
use zbus::zvariant::Value;

/// The size an animation gets when neither the document nor the slave asks for one.
const FALLBACK_SIZE: (u32, u32) = (400, 300);

/// How far (pixels) a right button may move between press and release and still be a click
/// that opens the context menu rather than a drag.
const CLICK_SLOP: f64 = 4.0;

/// Events queued for the slave at most; see [`InputQueue`].
const INPUT_QUEUE_CAPACITY: usize = 64;

/// What an animation tells the window it lives in.
pub enum AnimationEvent {
    /// The slave changed the scene text (a handle drag, an editor window): store it.
    SceneTextChanged(String),
    /// The reader clicked or focused the animation: menu commands now act on it.
    Focused,
    /// Something to show in the status line (a refused command, a scene error).
    Message(String),
    /// The rendition went live or back to playback (asked to, or its live run failed).
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
    rendition: RenditionProxy<'static>,
    reader: Option<FrameReader>,
    pid: u32,
}

/// One embedded animation subdocument.
pub struct Animation {
    root: gtk::Overlay,
    picture: gtk::Picture,
    notice: gtk::Label,
    failure: gtk::Box,
    failure_message: gtk::Label,
    /// The transport controls shown over the animation on hover or focus.
    controls: ControlBar,
    /// The scene text the slave was given or reported last; a restart starts from it.
    scene: RefCell<String>,
    requested_size: Option<PresentationSize>,
    /// The rendition's size in pixels, once known.
    size: Cell<(u32, u32)>,
    link: RefCell<Option<Link>>,
    /// Bumped by every start and stop, so that futures of an older slave stand down.
    generation: Cell<u64>,
    phase: RefCell<Phase>,
    last_serial: Cell<u64>,
    frames_shown: Cell<u64>,
    handles: RefCell<BTreeSet<HandleKind>>,
    /// Whether the rendition was asked to run live (its `Mode`).
    live: Cell<bool>,
    /// Whether the notice shows that the live run is slower than real time.
    slow_notice: Cell<bool>,
    input: RefCell<InputQueue>,
    sending: Cell<bool>,
    events: EventSink,
}

impl Animation {
    /// An animation of `scene`, at the document's requested size if any; call
    /// [`Animation::start`] to bring it to life.
    pub fn new(scene: String, size: Option<PresentationSize>, events: EventSink) -> Rc<Animation> {
        let picture = gtk::Picture::new();
        picture.set_focusable(true);
        picture.set_can_shrink(false);
        picture.add_css_class("asgard-animation");
        let notice = gtk::Label::new(None);
        notice.set_halign(gtk::Align::Start);
        notice.set_valign(gtk::Align::End);
        notice.set_wrap(true);
        notice.add_css_class("asgard-notice");
        notice.set_visible(false);
        notice.set_can_target(false);
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
        let root = gtk::Overlay::new();
        root.set_child(Some(&picture));
        root.add_overlay(&notice);
        root.add_overlay(&failure);
        root.set_halign(gtk::Align::Start);
        let this = Rc::new_cyclic(|weak: &Weak<Animation>| {
            let weak = weak.clone();
            let controls = ControlBar::new(move |control| with(&weak, |a| a.control(control)));
            controls.widget.set_visible(false);
            root.add_overlay(&controls.widget);
            Animation {
                root,
                picture,
                notice,
                failure,
                failure_message,
                controls,
                scene: RefCell::new(scene),
                requested_size: size,
                size: Cell::new(size.map_or(FALLBACK_SIZE, |s| (s.width, s.height))),
                link: RefCell::new(None),
                generation: Cell::new(0),
                phase: RefCell::new(Phase::Starting),
                last_serial: Cell::new(0),
                frames_shown: Cell::new(0),
                handles: RefCell::new(BTreeSet::new()),
                live: Cell::new(false),
                slow_notice: Cell::new(false),
                input: RefCell::new(InputQueue::new(INPUT_QUEUE_CAPACITY)),
                sending: Cell::new(false),
                events,
            }
        });
        this.apply_size();
        let weak = Rc::downgrade(&this);
        restart.connect_clicked(move |_| {
            if let Some(this) = weak.upgrade() {
                this.start();
            }
        });
        this.connect_input();
        this
    }

    /// The widget to place in the document.
    pub fn widget(&self) -> gtk::Widget {
        self.root.clone().upcast()
    }

    /// What the test probe reports about this animation.
    pub fn state(&self) -> AnimationState {
        let (phase, message) = match &*self.phase.borrow() {
            Phase::Starting => ("starting", self.notice.text().to_string()),
            Phase::Running => ("running", self.notice.text().to_string()),
            Phase::Failed(message) => ("failed", message.clone()),
        };
        let (width, height) = self.size.get();
        AnimationState {
            phase,
            message,
            frames_shown: self.frames_shown.get(),
            slave_pid: self.link.borrow().as_ref().map(|l| l.pid),
            width,
            height,
        }
    }

    pub fn handles_visible(&self, kind: HandleKind) -> bool {
        self.handles.borrow().contains(&kind)
    }

    /// Starts a slave for the current scene text (ending the previous one, if any), creates a
    /// rendition and plays it in a loop.
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
        // A new slave starts in playback.
        self.live.set(false);
        self.link.replace(None);
        self.last_serial.set(0);
        self.frames_shown.set(0);
        self.input.replace(InputQueue::new(INPUT_QUEUE_CAPACITY));
    }

    pub fn play(self: &Rc<Self>) {
        self.call_rendition(|r| Box::pin(async move { r.play().await }));
    }

    pub fn pause(self: &Rc<Self>) {
        self.call_rendition(|r| Box::pin(async move { r.pause().await }));
    }

    pub fn rewind(self: &Rc<Self>) {
        self.call_rendition(|r| Box::pin(async move { r.seek(0.0).await }));
    }

    pub fn is_live(&self) -> bool {
        self.live.get()
    }

    /// Runs the scene live in the rendition (the reader pulls bodies with the mouse and pushes
    /// them with the arrow keys), or returns to playing the computed motion.
    pub fn set_live(self: &Rc<Self>, live: bool) {
        self.live.set(live);
        let mode = if live {
            PlaybackMode::Live
        } else {
            PlaybackMode::Playback
        };
        self.call_rendition(move |r| {
            Box::pin(async move { r.set_mode(mode.as_str()).await.map_err(ipc::Error::from) })
        });
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

    fn call_rendition(
        self: &Rc<Self>,
        call: impl FnOnce(RenditionProxy<'static>) -> CallFuture + 'static,
    ) {
        let proxy = self.link.borrow().as_ref().map(|l| l.rendition.clone());
        self.call(proxy, call);
    }

    fn call_subdocument(
        self: &Rc<Self>,
        call: impl FnOnce(SubdocumentProxy<'static>) -> CallFuture + 'static,
    ) {
        let proxy = self.link.borrow().as_ref().map(|l| l.subdocument.clone());
        self.call(proxy, call);
    }

    /// Runs a call on the slave, reporting a refusal in the status line.
    fn call<P: 'static>(
        self: &Rc<Self>,
        proxy: Option<P>,
        call: impl FnOnce(P) -> CallFuture + 'static,
    ) {
        let Some(proxy) = proxy else {
            (self.events)(
                self,
                AnimationEvent::Message("This animation's slave is not running.".into()),
            );
            return;
        };
        let weak = Rc::downgrade(self);
        glib::spawn_future_local(async move {
            if let Err(e) = call(proxy).await {
                if let Some(this) = weak.upgrade() {
                    (this.events)(&this, AnimationEvent::Message(e.message()));
                }
            }
        });
    }

    fn set_phase(&self, phase: Phase) {
        self.failure.set_visible(matches!(phase, Phase::Failed(_)));
        if let Phase::Failed(message) = &phase {
            self.failure_message.set_text(message);
            self.show_notice("");
        }
        self.phase.replace(phase);
    }

    /// Says over the animation that its live run is slower than real time (`rate` below 1),
    /// or takes that notice away again (any other notice stays).
    fn show_live_rate(&self, rate: f64) {
        if rate < 1.0 {
            self.show_notice(&format!("Live: running at {rate}× real time"));
            self.slow_notice.set(true);
        } else if self.slow_notice.get() {
            self.show_notice("");
        }
    }

    /// Shows a line over the bottom of the animation; nothing when `text` is empty.
    fn show_notice(&self, text: &str) {
        self.slow_notice.set(false);
        self.notice.set_text(text);
        self.notice.set_visible(!text.is_empty());
    }

    /// Shows a failure with the Restart button; the slave, if still there, is let go.
    fn fail(&self, message: String) {
        self.stop();
        self.set_phase(Phase::Failed(message));
    }

    fn apply_size(&self) {
        let (width, height) = self.size.get();
        self.picture.set_size_request(width as i32, height as i32);
    }

    /// Shows the newest whole frame of the rendition's memory, if it is newer than the one on
    /// screen.
    fn show_latest_frame(&self) {
        let link = self.link.borrow();
        let Some(reader) = link.as_ref().and_then(|l| l.reader.as_ref()) else {
            return;
        };
        let mut pixels = Vec::new();
        let Some(frame) = reader.read_latest(&mut pixels) else {
            return;
        };
        if frame.serial <= self.last_serial.get() {
            return;
        }
        self.last_serial.set(frame.serial);
        self.frames_shown.set(self.frames_shown.get() + 1);
        let layout = reader.layout();
        let texture = gdk::MemoryTexture::new(
            layout.width as i32,
            layout.height as i32,
            gdk::MemoryFormat::R8g8b8a8,
            &glib::Bytes::from_owned(pixels),
            layout.stride as usize,
        );
        self.picture.set_paintable(Some(&texture));
    }

    /// Pointer, scroll and key events on the picture go to the slave, in rendition pixels.
    fn connect_input(self: &Rc<Self>) {
        let hover = gtk::EventControllerMotion::new();
        let weak = Rc::downgrade(self);
        hover.connect_enter(move |_, _, _| with(&weak, |a| a.update_controls(true)));
        let weak = Rc::downgrade(self);
        hover.connect_leave(move |_| with(&weak, |a| a.update_controls(false)));
        self.root.add_controller(hover);

        let motion = gtk::EventControllerMotion::new();
        let weak = Rc::downgrade(self);
        motion.connect_motion(move |c, x, y| {
            with(&weak, |a| {
                a.pointer(PointerKind::Motion, 0, x, y, c.current_event_state())
            });
        });
        let weak = Rc::downgrade(self);
        motion.connect_enter(move |c, x, y| {
            with(&weak, |a| {
                a.pointer(PointerKind::Enter, 0, x, y, c.current_event_state())
            });
        });
        let weak = Rc::downgrade(self);
        motion.connect_leave(move |c| {
            with(&weak, |a| {
                a.pointer(PointerKind::Leave, 0, 0.0, 0.0, c.current_event_state())
            });
        });
        self.picture.add_controller(motion);

        // A drag gesture, unlike a click gesture, always ends with its release.
        let drag = gtk::GestureDrag::new();
        drag.set_button(0);
        let weak = Rc::downgrade(self);
        drag.connect_drag_begin(move |g, x, y| {
            with(&weak, |a| {
                a.picture.grab_focus();
                (a.events)(a, AnimationEvent::Focused);
                a.pointer(
                    PointerKind::Press,
                    g.current_button(),
                    x,
                    y,
                    g.current_event_state(),
                );
            });
        });
        let weak = Rc::downgrade(self);
        drag.connect_drag_end(move |g, dx, dy| {
            with(&weak, |a| {
                let (x, y) = g.start_point().unwrap_or((0.0, 0.0));
                a.pointer(
                    PointerKind::Release,
                    g.current_button(),
                    x + dx,
                    y + dy,
                    g.current_event_state(),
                );
                // A right click that did not drag (which zooms the view) opens the menu.
                if g.current_button() == gdk::BUTTON_SECONDARY && dx.hypot(dy) < CLICK_SLOP {
                    a.show_menu(x, y);
                }
            });
        });
        self.picture.add_controller(drag);

        let scroll = gtk::EventControllerScroll::new(gtk::EventControllerScrollFlags::BOTH_AXES);
        let weak = Rc::downgrade(self);
        scroll.connect_scroll(move |c, dx, dy| {
            // Over an animation without focus the wheel scrolls the page, as readers expect.
            let Some(a) = weak.upgrade() else {
                return glib::Propagation::Proceed;
            };
            if !a.picture.has_focus() {
                return glib::Propagation::Proceed;
            }
            a.forward(InputEvent::Scroll {
                dx,
                dy,
                modifiers: modifiers(c.current_event_state()),
            });
            glib::Propagation::Stop
        });
        self.picture.add_controller(scroll);

        let keys = gtk::EventControllerKey::new();
        let weak = Rc::downgrade(self);
        keys.connect_key_pressed(move |_, key, _, state| {
            let Some(a) = weak.upgrade() else {
                return glib::Propagation::Proceed;
            };
            a.key(key, true, state);
            // The arrow keys push a body (live) or step (playback), and Home, End and space
            // are the transport's: they must not move the focus away or scroll the page
            // (an arrow's release would then never reach the slave).
            let transport = matches!(
                key,
                gdk::Key::Up
                    | gdk::Key::Down
                    | gdk::Key::Left
                    | gdk::Key::Right
                    | gdk::Key::Home
                    | gdk::Key::End
                    | gdk::Key::space
            );
            if transport && !state.contains(gdk::ModifierType::CONTROL_MASK) {
                glib::Propagation::Stop
            } else {
                glib::Propagation::Proceed
            }
        });
        let weak = Rc::downgrade(self);
        keys.connect_key_released(move |_, key, _, state| {
            with(&weak, |a| a.key(key, false, state));
        });
        self.picture.add_controller(keys);

        let focus = gtk::EventControllerFocus::new();
        let weak = Rc::downgrade(self);
        focus.connect_enter(move |_| {
            with(&weak, |a| {
                a.update_controls(true);
                (a.events)(a, AnimationEvent::Focused);
            })
        });
        let weak = Rc::downgrade(self);
        focus.connect_leave(move |_| with(&weak, |a| a.update_controls(false)));
        self.picture.add_controller(focus);
    }

    /// A button of the control bar: the key it stands for, pressed and released over the
    /// animation, or Loop.
    fn control(self: &Rc<Self>, control: Control) {
        match control {
            Control::Key(name) => {
                for pressed in [true, false] {
                    self.forward(InputEvent::Key {
                        name: name.to_string(),
                        pressed,
                        modifiers: Modifiers::default(),
                    });
                }
            }
            Control::Loop(on) => self.call_rendition(move |r| {
                Box::pin(async move { r.set_looping(on).await.map_err(ipc::Error::from) })
            }),
        }
    }

    /// Shows the control bar while the pointer is over the animation or it has the focus.
    fn update_controls(&self, pointer_over: bool) {
        let running = matches!(*self.phase.borrow(), Phase::Running);
        let shown = running && (pointer_over || self.picture.has_focus());
        self.controls.widget.set_visible(shown);
    }

    /// The context menu at `(x, y)` in the picture: the Asgard menu's commands for this
    /// animation (the click made it the one they act on).
    fn show_menu(&self, x: f64, y: f64) {
        let menu = gtk::PopoverMenu::from_model(Some(&super::window::HostWindow::animation_menu()));
        menu.set_parent(&self.picture);
        menu.set_has_arrow(false);
        menu.set_pointing_to(Some(&gdk::Rectangle::new(x as i32, y as i32, 1, 1)));
        // A popover must leave its parent before the parent goes; it is made per opening.
        menu.connect_closed(|menu| {
            let menu = menu.clone();
            glib::idle_add_local_once(move || menu.unparent());
        });
        menu.popup();
    }

    fn pointer(
        self: &Rc<Self>,
        kind: PointerKind,
        button: u32,
        x: f64,
        y: f64,
        state: gdk::ModifierType,
    ) {
        // The picture may be drawn larger or smaller than the rendition (a scaled display).
        let (width, height) = self.size.get();
        let scale = |v: f64, pixels: u32, widget: i32| {
            if widget > 0 {
                v * f64::from(pixels) / f64::from(widget)
            } else {
                v
            }
        };
        self.forward(InputEvent::Pointer {
            kind,
            button,
            x: scale(x, width, self.picture.width()),
            y: scale(y, height, self.picture.height()),
            modifiers: modifiers(state),
        });
    }

    fn key(self: &Rc<Self>, key: gdk::Key, pressed: bool, state: gdk::ModifierType) {
        if let Some(name) = key.name() {
            self.forward(InputEvent::Key {
                name: name.to_string(),
                pressed,
                modifiers: modifiers(state),
            });
        }
    }

    /// Queues an event and, unless a call is already in flight, sends the queue in order.
    fn forward(self: &Rc<Self>, event: InputEvent) {
        let Some(rendition) = self.link.borrow().as_ref().map(|l| l.rendition.clone()) else {
            return;
        };
        self.input.borrow_mut().push(event);
        if self.sending.replace(true) {
            return;
        }
        let weak = Rc::downgrade(self);
        let generation = self.generation.get();
        glib::spawn_future_local(async move {
            loop {
                let Some(this) = current(&weak, generation) else {
                    return;
                };
                let Some(event) = this.input.borrow_mut().pop() else {
                    this.sending.set(false);
                    return;
                };
                drop(this);
                if let Err(e) = send(&rendition, event).await {
                    if let Some(this) = current(&weak, generation) {
                        this.sending.set(false);
                        (this.events)(&this, AnimationEvent::Message(e.message()));
                    }
                    return;
                }
            }
        });
    }
}

type CallFuture = Pin<Box<dyn Future<Output = Result<(), ipc::Error>>>>;

/// Runs `f` on the animation if it still exists.
fn with(weak: &Weak<Animation>, f: impl FnOnce(&Rc<Animation>)) {
    if let Some(animation) = weak.upgrade() {
        f(&animation);
    }
}

/// The animation, if it still exists and has not been restarted or stopped since
/// `generation`.
fn current(weak: &Weak<Animation>, generation: u64) -> Option<Rc<Animation>> {
    weak.upgrade().filter(|a| a.generation.get() == generation)
}

fn modifiers(state: gdk::ModifierType) -> Modifiers {
    [
        (gdk::ModifierType::SHIFT_MASK, Modifiers::SHIFT),
        (gdk::ModifierType::CONTROL_MASK, Modifiers::CONTROL),
        (gdk::ModifierType::ALT_MASK, Modifiers::ALT),
        (gdk::ModifierType::SUPER_MASK, Modifiers::SUPER),
    ]
    .into_iter()
    .filter(|(gdk, _)| state.contains(*gdk))
    .fold(Modifiers::default(), |mask, (_, ours)| mask | ours)
}

async fn send(rendition: &RenditionProxy<'static>, event: InputEvent) -> Result<(), ipc::Error> {
    match event {
        InputEvent::Pointer {
            kind,
            button,
            x,
            y,
            modifiers,
        } => {
            rendition
                .pointer(kind.as_str(), button, x, y, modifiers.0)
                .await
        }
        InputEvent::Scroll { dx, dy, modifiers } => rendition.scroll(dx, dy, modifiers.0).await,
        InputEvent::Key {
            name,
            pressed,
            modifiers,
        } => rendition.key(&name, pressed, modifiers.0).await,
    }
}

/// The next item of a stream.
async fn next<S: Stream + Unpin>(stream: &mut S) -> Option<S::Item> {
    std::future::poll_fn(|cx| Pin::new(&mut *stream).poll_next(cx)).await
}

/// Starts the slave and brings the rendition up: scene text, size, rendition, frame memory,
/// signal listeners, looping playback.
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
    let (width, height) = match requested {
        Some(size) => (size.width, size.height),
        None => subdocument.preferred_size().await.map_err(zbus_failed)?,
    };
    let path = subdocument
        .create_rendition(width, height)
        .await
        .map_err(failed)?;
    let rendition = RenditionProxy::builder(&connection)
        .path(path)
        .map_err(zbus_failed)?
        .cache_properties(CacheProperties::No)
        .build()
        .await
        .map_err(zbus_failed)?;
    let reader = open_frames(&rendition).await?;
    listen(weak.clone(), generation, &subdocument, &rendition).await?;
    rendition.set_looping(true).await.map_err(zbus_failed)?;
    rendition.play().await.map_err(failed)?;
    let Some(this) = current(&weak, generation) else {
        return Ok(());
    };
    this.size.set((width, height));
    this.apply_size();
    this.link.replace(Some(Link {
        subdocument,
        rendition,
        reader: Some(reader),
        pid,
    }));
    this.set_phase(Phase::Running);
    this.controls.show_looping(true);
    this.controls.show_playing(true);
    this.controls.show_rate(1.0);
    match scene_error {
        Some(message) => this.show_notice(&message),
        None => this.show_notice(""),
    }
    Ok(())
}

async fn open_frames(rendition: &RenditionProxy<'static>) -> Result<FrameReader, String> {
    let reply = rendition
        .get_frame_buffer()
        .await
        .map_err(|e| format!("Asgard did not share its frames: {}", e.message()))?;
    FrameReader::from_reply(reply).map_err(|e| format!("Cannot show Asgard's frames: {e}"))
}

/// Follows the slave's signals: frames, new frame memory, mode and scene text changes, and
/// errors.
async fn listen(
    weak: Weak<Animation>,
    generation: u64,
    subdocument: &SubdocumentProxy<'static>,
    rendition: &RenditionProxy<'static>,
) -> Result<(), String> {
    let failed = |e: zbus::Error| format!("Cannot follow Asgard's signals: {e}");
    let mut frames = rendition.receive_frame_ready().await.map_err(failed)?;
    let w = weak.clone();
    glib::spawn_future_local(async move {
        while next(&mut frames).await.is_some() {
            let Some(this) = current(&w, generation) else {
                return;
            };
            this.show_latest_frame();
        }
    });

    let mut buffers = rendition
        .receive_frame_buffer_changed()
        .await
        .map_err(failed)?;
    let w = weak.clone();
    let proxy = rendition.clone();
    glib::spawn_future_local(async move {
        while next(&mut buffers).await.is_some() {
            let result = open_frames(&proxy).await;
            let Some(this) = current(&w, generation) else {
                return;
            };
            match result {
                Ok(reader) => {
                    let layout = reader.layout();
                    this.size.set((layout.width, layout.height));
                    this.apply_size();
                    if let Some(link) = this.link.borrow_mut().as_mut() {
                        link.reader = Some(reader);
                    }
                }
                Err(message) => (this.events)(&this, AnimationEvent::Message(message)),
            }
        }
    });

    // The mode changes when asked to, and also when a live run fails: the Live toggle follows.
    // A live run too costly for real time lowers LiveRate below 1: the notice says so. The
    // proxies do not cache properties (see `ipc::proxy`), so the change signal is read as it
    // comes.
    let inner = rendition.inner();
    let properties = PropertiesProxy::builder(inner.connection())
        .destination(inner.destination().to_owned())
        .and_then(|b| b.path(inner.path().to_owned()))
        .map_err(failed)?
        .cache_properties(CacheProperties::No)
        .build()
        .await
        .map_err(failed)?;
    let mut changes = properties
        .receive_properties_changed()
        .await
        .map_err(failed)?;
    let w = weak.clone();
    glib::spawn_future_local(async move {
        while let Some(signal) = next(&mut changes).await {
            let Ok(args) = signal.args() else { continue };
            let Some(this) = current(&w, generation) else {
                return;
            };
            let changed = args.changed_properties();
            if let Some(Value::F64(rate)) = changed.get("LiveRate") {
                this.show_live_rate(*rate);
            }
            if let Some(Value::Bool(playing)) = changed.get("Playing") {
                this.controls.show_playing(*playing);
            }
            if let Some(Value::F64(rate)) = changed.get("Rate") {
                this.controls.show_rate(*rate);
            }
            if let Some(Value::Str(mode)) = changed.get("Mode") {
                this.live.set(mode.as_str() == PlaybackMode::Live.as_str());
                (this.events)(&this, AnimationEvent::ModeChanged);
            }
        }
    });

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
