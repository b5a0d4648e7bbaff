//! One view of an embedded animation: the widget that shows one rendition's frames, with its
//! own camera and time, and forwards the reader's pointer, scroll and key events to it
//! (dissertation 6.2.3: the slave does its own redisplay and interaction). An animation shows
//! one view or more, all renditions of the same slave, so every view follows every edit of
//! the scene (see [`super::animation`]).
//!
//! Everything here runs on the GTK main thread; D-Bus calls are awaited on the GLib main
//! context (`glib::spawn_future_local`), never blocking it.

use super::controls::{Control, ControlBar};
use super::input::{InputEvent, InputQueue};
use super::probe::ViewState;
use crate::ipc::{self, FrameReader, Modifiers, PlaybackMode, PointerKind, RenditionProxy};
use gtk::prelude::*;
use gtk::{gdk, glib};
use gtk4 as gtk;
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::{Rc, Weak};
use zbus::export::futures_core::Stream;
use zbus::fdo::PropertiesProxy;
use zbus::proxy::CacheProperties;
use zbus::zvariant::Value;

/// How far (pixels) a right button may move between press and release and still be a click
/// that opens the context menu rather than a drag.
const CLICK_SLOP: f64 = 4.0;

/// Events queued for the slave at most; see [`InputQueue`].
const INPUT_QUEUE_CAPACITY: usize = 64;

/// What a view tells the animation it belongs to.
pub enum ViewEvent {
    /// The reader clicked or focused the view: menu commands now act on it.
    Focused,
    /// Something to show in the status line (a refused command).
    Message(String),
    /// The rendition went live or back to playback (asked to, or its live run failed).
    ModeChanged,
}

/// Receives a view's events.
pub type ViewSink = Rc<dyn Fn(&Rc<View>, ViewEvent)>;

/// A call on the rendition, awaited on the main context.
pub type CallFuture = Pin<Box<dyn Future<Output = Result<(), ipc::Error>>>>;

/// The rendition a view shows, while its slave runs.
struct Link {
    rendition: RenditionProxy<'static>,
    reader: FrameReader,
}

/// One rendition of an animation, in the document.
pub struct View {
    root: gtk::Overlay,
    picture: gtk::Picture,
    notice: gtk::Label,
    /// The transport controls shown over the view on hover or focus.
    controls: ControlBar,
    /// The rendition's size in pixels.
    size: Cell<(u32, u32)>,
    link: RefCell<Option<Link>>,
    /// Bumped by every attach and detach, so that futures of an older rendition stand down.
    generation: Cell<u64>,
    last_serial: Cell<u64>,
    frames_shown: Cell<u64>,
    /// The simulated time of the frame shown.
    time: Cell<f64>,
    playing: Cell<bool>,
    /// Whether the rendition was asked to run live (its `Mode`).
    live: Cell<bool>,
    /// Whether the notice shows that the live run is slower than real time.
    slow_notice: Cell<bool>,
    input: RefCell<InputQueue>,
    sending: Cell<bool>,
    events: ViewSink,
}

impl View {
    /// A view of `size` pixels, showing nothing until [`View::attach`] gives it a rendition.
    pub fn new(size: (u32, u32), events: ViewSink) -> Rc<View> {
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
        let root = gtk::Overlay::new();
        root.set_child(Some(&picture));
        root.add_overlay(&notice);
        root.set_halign(gtk::Align::Start);
        let this = Rc::new_cyclic(|weak: &Weak<View>| {
            let weak = weak.clone();
            let controls = ControlBar::new(move |control| with(&weak, |v| v.control(control)));
            controls.widget.set_visible(false);
            root.add_overlay(&controls.widget);
            View {
                root,
                picture,
                notice,
                controls,
                size: Cell::new(size),
                link: RefCell::new(None),
                generation: Cell::new(0),
                last_serial: Cell::new(0),
                frames_shown: Cell::new(0),
                time: Cell::new(0.0),
                playing: Cell::new(false),
                live: Cell::new(false),
                slow_notice: Cell::new(false),
                input: RefCell::new(InputQueue::new(INPUT_QUEUE_CAPACITY)),
                sending: Cell::new(false),
                events,
            }
        });
        this.apply_size();
        this.connect_input();
        this
    }

    pub fn widget(&self) -> gtk::Widget {
        self.root.clone().upcast()
    }

    pub fn size(&self) -> (u32, u32) {
        self.size.get()
    }

    pub fn frames_shown(&self) -> u64 {
        self.frames_shown.get()
    }

    /// What the test probe reports about this view.
    pub fn state(&self) -> ViewState {
        let (width, height) = self.size.get();
        ViewState {
            frames_shown: self.frames_shown.get(),
            picture: self.picture_digest(),
            time: self.time.get(),
            playing: self.playing.get(),
            live: self.live.get(),
            width,
            height,
        }
    }

    /// A hash of the pixels shown (0 before the first frame), so that tests can tell whether
    /// what a view shows changed; computed only when asked.
    fn picture_digest(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let Some(texture) = self.picture.paintable().and_downcast::<gdk::Texture>() else {
            return 0;
        };
        let stride = texture.width() as usize * 4;
        let mut pixels = vec![0; stride * texture.height() as usize];
        texture.download(&mut pixels, stride);
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        pixels.hash(&mut hasher);
        hasher.finish()
    }

    /// Shows `rendition` (of `size` pixels) from now on: follows its frames and properties
    /// and plays it in a loop.
    pub async fn attach(
        self: &Rc<Self>,
        rendition: RenditionProxy<'static>,
        size: (u32, u32),
    ) -> Result<(), String> {
        self.detach();
        let generation = self.generation.get();
        let failed = |e: zbus::Error| format!("Asgard did not answer: {e}");
        let reader = open_frames(&rendition).await?;
        listen(Rc::downgrade(self), generation, &rendition).await?;
        rendition.set_looping(true).await.map_err(failed)?;
        rendition
            .play()
            .await
            .map_err(|e| format!("Asgard did not answer: {}", e.message()))?;
        if self.generation.get() != generation {
            return Ok(());
        }
        self.size.set(size);
        self.apply_size();
        self.link.replace(Some(Link { rendition, reader }));
        self.playing.set(true);
        self.controls.show_looping(true);
        self.controls.show_playing(true);
        self.controls.show_rate(1.0);
        Ok(())
    }

    /// Lets the rendition go (its slave ended or is ending).
    pub fn detach(&self) {
        self.generation.set(self.generation.get() + 1);
        // A new rendition starts in playback.
        self.live.set(false);
        self.link.replace(None);
        self.last_serial.set(0);
        self.frames_shown.set(0);
        self.input.replace(InputQueue::new(INPUT_QUEUE_CAPACITY));
        self.controls.widget.set_visible(false);
    }

    /// Closes the rendition in the slave and lets it go.
    pub fn close(self: &Rc<Self>) {
        self.call(|r| Box::pin(async move { r.close().await }));
        self.detach();
    }

    /// Gives this view the keyboard focus (and so the menus).
    pub fn focus(&self) {
        self.picture.grab_focus();
    }

    pub fn play(self: &Rc<Self>) {
        self.call(|r| Box::pin(async move { r.play().await }));
    }

    pub fn pause(self: &Rc<Self>) {
        self.call(|r| Box::pin(async move { r.pause().await }));
    }

    pub fn rewind(self: &Rc<Self>) {
        self.call(|r| Box::pin(async move { r.seek(0.0).await }));
    }

    pub fn is_live(&self) -> bool {
        self.live.get()
    }

    /// Runs the scene live in this view (the reader pulls bodies with the mouse and pushes
    /// them with the arrow keys), or returns to playing the computed motion.
    pub fn set_live(self: &Rc<Self>, live: bool) {
        self.live.set(live);
        let mode = if live {
            PlaybackMode::Live
        } else {
            PlaybackMode::Playback
        };
        self.call(move |r| {
            Box::pin(async move { r.set_mode(mode.as_str()).await.map_err(ipc::Error::from) })
        });
    }

    /// Runs a call on the rendition, reporting a refusal in the status line.
    fn call(self: &Rc<Self>, call: impl FnOnce(RenditionProxy<'static>) -> CallFuture + 'static) {
        let Some(proxy) = self.link.borrow().as_ref().map(|l| l.rendition.clone()) else {
            (self.events)(
                self,
                ViewEvent::Message("This animation's slave is not running.".into()),
            );
            return;
        };
        let weak = Rc::downgrade(self);
        glib::spawn_future_local(async move {
            if let Err(e) = call(proxy).await {
                if let Some(this) = weak.upgrade() {
                    (this.events)(&this, ViewEvent::Message(e.message()));
                }
            }
        });
    }

    /// Says over the view that its live run is slower than real time (`rate` below 1), or
    /// takes that notice away again (any other notice stays).
    fn show_live_rate(&self, rate: f64) {
        if rate < 1.0 {
            self.show_notice(&format!("Live: running at {rate}× real time"));
            self.slow_notice.set(true);
        } else if self.slow_notice.get() {
            self.show_notice("");
        }
    }

    /// Shows a line over the bottom of the view; nothing when `text` is empty.
    pub fn show_notice(&self, text: &str) {
        self.slow_notice.set(false);
        self.notice.set_text(text);
        self.notice.set_visible(!text.is_empty());
    }

    pub fn notice(&self) -> String {
        self.notice.text().to_string()
    }

    fn apply_size(&self) {
        let (width, height) = self.size.get();
        self.picture.set_size_request(width as i32, height as i32);
    }

    /// Shows the newest whole frame of the rendition's memory, if it is newer than the one on
    /// screen.
    fn show_latest_frame(&self, time: f64) {
        let link = self.link.borrow();
        let Some(reader) = link.as_ref().map(|l| &l.reader) else {
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
        self.time.set(time);
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
        hover.connect_enter(move |_, _, _| with(&weak, |v| v.update_controls(true)));
        let weak = Rc::downgrade(self);
        hover.connect_leave(move |_| with(&weak, |v| v.update_controls(false)));
        self.root.add_controller(hover);

        let motion = gtk::EventControllerMotion::new();
        let weak = Rc::downgrade(self);
        motion.connect_motion(move |c, x, y| {
            with(&weak, |v| {
                v.pointer(PointerKind::Motion, 0, x, y, c.current_event_state())
            });
        });
        let weak = Rc::downgrade(self);
        motion.connect_enter(move |c, x, y| {
            with(&weak, |v| {
                v.pointer(PointerKind::Enter, 0, x, y, c.current_event_state())
            });
        });
        let weak = Rc::downgrade(self);
        motion.connect_leave(move |c| {
            with(&weak, |v| {
                v.pointer(PointerKind::Leave, 0, 0.0, 0.0, c.current_event_state())
            });
        });
        self.picture.add_controller(motion);

        // A drag gesture, unlike a click gesture, always ends with its release.
        let drag = gtk::GestureDrag::new();
        drag.set_button(0);
        let weak = Rc::downgrade(self);
        drag.connect_drag_begin(move |g, x, y| {
            with(&weak, |v| {
                v.picture.grab_focus();
                (v.events)(v, ViewEvent::Focused);
                v.pointer(
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
            with(&weak, |v| {
                let (x, y) = g.start_point().unwrap_or((0.0, 0.0));
                v.pointer(
                    PointerKind::Release,
                    g.current_button(),
                    x + dx,
                    y + dy,
                    g.current_event_state(),
                );
                // A right click that did not drag (which zooms the view) opens the menu.
                if g.current_button() == gdk::BUTTON_SECONDARY && dx.hypot(dy) < CLICK_SLOP {
                    v.show_menu(x, y);
                }
            });
        });
        self.picture.add_controller(drag);

        let scroll = gtk::EventControllerScroll::new(gtk::EventControllerScrollFlags::BOTH_AXES);
        let weak = Rc::downgrade(self);
        scroll.connect_scroll(move |c, dx, dy| {
            // Over a view without focus the wheel scrolls the page, as readers expect.
            let Some(v) = weak.upgrade() else {
                return glib::Propagation::Proceed;
            };
            if !v.picture.has_focus() {
                return glib::Propagation::Proceed;
            }
            v.forward(InputEvent::Scroll {
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
            let Some(v) = weak.upgrade() else {
                return glib::Propagation::Proceed;
            };
            v.key(key, true, state);
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
            with(&weak, |v| v.key(key, false, state));
        });
        self.picture.add_controller(keys);

        let focus = gtk::EventControllerFocus::new();
        let weak = Rc::downgrade(self);
        focus.connect_enter(move |_| {
            with(&weak, |v| {
                v.update_controls(true);
                (v.events)(v, ViewEvent::Focused);
            })
        });
        let weak = Rc::downgrade(self);
        focus.connect_leave(move |_| with(&weak, |v| v.update_controls(false)));
        self.picture.add_controller(focus);
    }

    /// A button of the control bar: the key it stands for, pressed and released over the
    /// view, or Loop.
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
            Control::Loop(on) => self.call(move |r| {
                Box::pin(async move { r.set_looping(on).await.map_err(ipc::Error::from) })
            }),
        }
    }

    /// Shows the control bar while the pointer is over the view or it has the focus.
    fn update_controls(&self, pointer_over: bool) {
        let running = self.link.borrow().is_some();
        let shown = running && (pointer_over || self.picture.has_focus());
        self.controls.widget.set_visible(shown);
    }

    /// The context menu at `(x, y)` in the picture: the Asgard menu's commands for this
    /// view's animation (the click made it the one they act on).
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
                        (this.events)(&this, ViewEvent::Message(e.message()));
                    }
                    return;
                }
            }
        });
    }
}

/// Runs `f` on the view if it still exists.
fn with(weak: &Weak<View>, f: impl FnOnce(&Rc<View>)) {
    if let Some(view) = weak.upgrade() {
        f(&view);
    }
}

/// The view, if it still exists and has not been given another rendition or let go of it
/// since `generation`.
fn current(weak: &Weak<View>, generation: u64) -> Option<Rc<View>> {
    weak.upgrade().filter(|v| v.generation.get() == generation)
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
pub async fn next<S: Stream + Unpin>(stream: &mut S) -> Option<S::Item> {
    std::future::poll_fn(|cx| Pin::new(&mut *stream).poll_next(cx)).await
}

async fn open_frames(rendition: &RenditionProxy<'static>) -> Result<FrameReader, String> {
    let reply = rendition
        .get_frame_buffer()
        .await
        .map_err(|e| format!("Asgard did not share its frames: {}", e.message()))?;
    FrameReader::from_reply(reply).map_err(|e| format!("Cannot show Asgard's frames: {e}"))
}

/// Follows the rendition's signals: frames, new frame memory and property changes (mode,
/// playing, rate, live rate).
async fn listen(
    weak: Weak<View>,
    generation: u64,
    rendition: &RenditionProxy<'static>,
) -> Result<(), String> {
    let failed = |e: zbus::Error| format!("Cannot follow Asgard's signals: {e}");
    let mut frames = rendition.receive_frame_ready().await.map_err(failed)?;
    let w = weak.clone();
    glib::spawn_future_local(async move {
        while let Some(signal) = next(&mut frames).await {
            let Some(this) = current(&w, generation) else {
                return;
            };
            let time = signal.args().map_or(this.time.get(), |a| a.time);
            this.show_latest_frame(time);
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
                        link.reader = reader;
                    }
                }
                Err(message) => (this.events)(&this, ViewEvent::Message(message)),
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
    glib::spawn_future_local(async move {
        while let Some(signal) = next(&mut changes).await {
            let Ok(args) = signal.args() else { continue };
            let Some(this) = current(&weak, generation) else {
                return;
            };
            let changed = args.changed_properties();
            if let Some(Value::F64(rate)) = changed.get("LiveRate") {
                this.show_live_rate(*rate);
            }
            if let Some(Value::Bool(playing)) = changed.get("Playing") {
                this.playing.set(*playing);
                this.controls.show_playing(*playing);
            }
            if let Some(Value::F64(rate)) = changed.get("Rate") {
                this.controls.show_rate(*rate);
            }
            if let Some(Value::Str(mode)) = changed.get("Mode") {
                this.live.set(mode.as_str() == PlaybackMode::Live.as_str());
                (this.events)(&this, ViewEvent::ModeChanged);
            }
        }
    });
    Ok(())
}
