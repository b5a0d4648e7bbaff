//! The slave's state on its main thread: the scene's [`Session`], the renditions drawing it,
//! and the handles shown. Every D-Bus call ends up in one method here (through
//! [`MainThread`](super::main_thread::MainThread)); each returns the contract's named error on
//! bad input and leaves the state as it was.
//!
//! Each rendition has its own mode: playback of the computed motion, or live, where the
//! rendition runs the scene itself ([`Rendition::go_live`]); a new scene restarts every live
//! run from its start, and a live run that fails returns its rendition to playback with an
//! `Error` signal. Mode changes are announced with `PropertiesChanged`.

use super::outbox::Outbox;
use super::picture::{scene_handle_kinds, Picture};
use super::rendition::{Rendition, Scenery};
use crate::ipc::frames::FrameBufferReply;
use crate::ipc::names::rendition_path;
use crate::ipc::{request, Status};
use crate::ipc::{EditorKind, Error, HandleKind, Modifiers, PlaybackMode, PointerKind};
use crate::scene::handles;
use crate::session::{Event, Session, SimStatus, ViewId, Waker};
use crate::ui::EditorKind as EditorWindow;
use crate::view::gesture::Effect;
use crate::view::keys::KeyAction;
use crate::view::live::ScreenDirection;
use crate::view::transport::{next_speed, Direction};
use gtk::prelude::*;
use gtk4 as gtk;
use nalgebra::Point2;
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;
use std::time::{Duration, Instant};
use zbus::zvariant::{OwnedObjectPath, Value};

/// The rendition size the slave asks hosts for (`PreferredSize`).
pub const PREFERRED_SIZE: (u32, u32) = (
    crate::doc::PresentationSize::DEFAULT.width,
    crate::doc::PresentationSize::DEFAULT.height,
);

/// One subdocument's scene and renditions.
pub struct Subdocument {
    session: Rc<Session>,
    /// The identity of changes the host made (SetSceneText), which it need not hear about.
    host: ViewId,
    /// The identity of the slave's own edits (handle drags).
    own: ViewId,
    /// Whether the host has set the scene text yet.
    loaded: Cell<bool>,
    shown_handles: RefCell<BTreeSet<HandleKind>>,
    /// What the renditions draw, built only while there are renditions.
    picture: RefCell<Option<Picture>>,
    /// Whether `picture` is of the session's current scene.
    picture_current: Cell<bool>,
    renditions: RefCell<BTreeMap<u32, Rendition>>,
    /// The number of the last rendition created.
    last_rendition: Cell<u32>,
    /// The handle being dragged (an index into the picture's handles).
    dragged: Cell<Option<usize>>,
    outbox: Outbox,
    /// The origin of the real-time clock playback reads.
    started: Instant,
    /// The application of the editor windows, made when the host first asks for one (a slave
    /// that never opens an editor needs no display).
    editors: RefCell<Option<gtk::Application>>,
    /// Whether the scene belongs to a host's document (a slave), so that the editor windows'
    /// Save asks the host to save it; the stand-alone editor's own windows save its file.
    hosted: bool,
}

impl Subdocument {
    /// A subdocument with no scene text yet. `waker` is called from the simulator's thread;
    /// it must get [`Subdocument::poll`] called on this thread.
    pub fn new(outbox: Outbox, waker: Waker) -> Rc<Subdocument> {
        let subdocument = Subdocument::build(Session::new("", waker), outbox, None, true);
        subdocument.loaded.set(false);
        subdocument
    }

    /// A subdocument serving `session`, whose text is already set (the stand-alone editor's),
    /// with `editors` the application its `OpenEditor` windows belong to, if it has one.
    pub fn serving(
        session: Rc<Session>,
        outbox: Outbox,
        editors: Option<gtk::Application>,
    ) -> Rc<Subdocument> {
        Subdocument::build(session, outbox, editors, false)
    }

    fn build(
        session: Rc<Session>,
        outbox: Outbox,
        editors: Option<gtk::Application>,
        hosted: bool,
    ) -> Rc<Subdocument> {
        let subdocument = Rc::new(Subdocument {
            host: session.new_view_id(),
            own: session.new_view_id(),
            session,
            loaded: Cell::new(true),
            shown_handles: RefCell::new(BTreeSet::new()),
            picture: RefCell::new(None),
            picture_current: Cell::new(false),
            renditions: RefCell::new(BTreeMap::new()),
            last_rendition: Cell::new(0),
            dragged: Cell::new(None),
            outbox,
            started: Instant::now(),
            editors: RefCell::new(editors),
            hosted,
        });
        let weak = Rc::downgrade(&subdocument);
        subdocument.session.subscribe(move |_, event| {
            if let Some(subdocument) = weak.upgrade() {
                subdocument.on_event(event);
            }
        });
        subdocument
    }

    /// Takes in the simulator's news.
    pub fn poll(&self) {
        self.session.poll();
    }

    fn now(&self) -> Duration {
        self.started.elapsed()
    }

    fn on_event(&self, event: &Event) {
        match event {
            Event::TextChanged { by, .. } if *by != Some(self.host) => {
                self.outbox
                    .scene_text_changed(self.session.text().to_string());
            }
            Event::SceneChanged => {
                self.picture_current.set(false);
                self.update_picture();
                let (start, finish) = self.time_range();
                let now = self.now();
                for rendition in self.renditions.borrow_mut().values_mut() {
                    rendition.transport.set_span(start, finish, now);
                    rendition.touch();
                }
                self.restart_live_runs();
                self.outbox
                    .properties_changed(0, vec![("Duration", owned(self.duration()))]);
            }
            Event::SceneError(error) => {
                self.outbox.error(
                    error.message.clone(),
                    to_u32(error.at.line),
                    to_u32(error.at.column),
                );
            }
            Event::SimulationStarted => self.touch_all(),
            Event::SimulationProgress(progress) => {
                self.outbox.simulation_progress(progress.time, progress.end);
            }
            Event::SimulationFinished => {
                for rendition in self.renditions.borrow_mut().values_mut() {
                    rendition.refit();
                }
            }
            Event::SimulationFailed(failure) => {
                let (line, column) = failure
                    .at
                    .map_or((0, 0), |at| (to_u32(at.line), to_u32(at.column)));
                self.outbox.error(failure.message.clone(), line, column);
            }
            Event::TextChanged { .. } | Event::FileChanged => {}
        }
        self.outbox
            .properties_changed(0, vec![("Status", owned(self.status().as_str()))]);
    }

    /// Builds the picture of the current scene if it is out of date and renditions draw it.
    fn update_picture(&self) {
        if self.picture_current.get() || self.renditions.borrow().is_empty() {
            return;
        }
        self.picture_current.set(true);
        let picture = self.session.scene().map(|scene| Picture::new(&scene));
        let picture = match picture {
            Some(Ok(picture)) => Some(picture),
            Some(Err(e)) => {
                self.outbox
                    .error(format!("the scene cannot be drawn: {e}"), 0, 0);
                None
            }
            None => None,
        };
        self.picture.replace(picture);
    }

    /// Starts every live rendition's run again from the start of the session's scene; a
    /// rendition whose run cannot start returns to playback, paused.
    fn restart_live_runs(&self) {
        let Some(scene) = self.session.scene() else {
            return;
        };
        let now = self.now();
        let mut stopped = Vec::new();
        for (&number, rendition) in self.renditions.borrow_mut().iter_mut() {
            if rendition.mode() != PlaybackMode::Live {
                continue;
            }
            if let Err(e) = rendition.go_live(&scene, now) {
                rendition.stop(now);
                stopped.push((number, e));
            }
        }
        drop(scene);
        for (number, e) in stopped {
            self.outbox.error(
                format!(
                    "{}: the new scene cannot run live, so the rendition plays back: {e}",
                    rendition_path(number)
                ),
                0,
                0,
            );
            self.outbox.properties_changed(
                number,
                vec![("Mode", owned(PlaybackMode::Playback.as_str()))],
            );
        }
    }

    fn touch_all(&self) {
        for rendition in self.renditions.borrow_mut().values_mut() {
            rendition.touch();
        }
    }

    /// The animation's start and finish times (0 and 0 without a valid scene).
    fn time_range(&self) -> (f64, f64) {
        match self.session.scene() {
            Some(scene) if self.session.error().is_none() => {
                (scene.simulator.start, scene.simulator.finish)
            }
            _ => (0.0, 0.0),
        }
    }

    // --- org.asgard.Subdocument1 -----------------------------------------------------------

    pub fn set_scene_text(&self, text: String) -> Result<(), Error> {
        self.loaded.set(true);
        self.session.set_text(text, Some(self.host));
        // The first text makes the status leave `loading` even when it equals the empty start.
        self.outbox
            .properties_changed(0, vec![("Status", owned(self.status().as_str()))]);
        match self.session.error() {
            Some(e) => Err(Error::InvalidScene(format!(
                "{}:{}: {}",
                e.at.line, e.at.column, e.message
            ))),
            None => Ok(()),
        }
    }

    pub fn scene_text(&self) -> String {
        self.session.text().to_string()
    }

    pub fn simulate(&self) -> Result<(), Error> {
        if let Some(e) = self.session.error() {
            return Err(Error::InvalidScene(format!(
                "{}:{}: the current scene text does not evaluate, so there is nothing to \
                 simulate: {}",
                e.at.line, e.at.column, e.message
            )));
        }
        self.session.simulate();
        Ok(())
    }

    /// A new rendition; its number.
    pub fn create_rendition(&self, width: u32, height: u32) -> Result<u32, Error> {
        let size = request::size(width, height)?;
        let (start, finish) = self.time_range();
        let rendition = Rendition::new(size, start, finish).map_err(Error::Failed)?;
        let number = self.last_rendition.get() + 1;
        self.last_rendition.set(number);
        self.renditions.borrow_mut().insert(number, rendition);
        self.update_picture();
        self.outbox
            .properties_changed(0, vec![("Renditions", owned(self.rendition_paths()))]);
        Ok(number)
    }

    /// Opens an editor window on this slave's session (6.2.4): its edits reach the host as
    /// `SceneTextChanged` like any other change of the text. In a slave, the windows' Save
    /// asks the host to save its document (`SaveRequested`).
    pub fn open_editor(&self, kind: &str) -> Result<(), Error> {
        let kind = match request::kind(kind)? {
            EditorKind::Graphical => EditorWindow::Graphical,
            EditorKind::Language => EditorWindow::Language,
            EditorKind::Shape => EditorWindow::Shape,
            EditorKind::Trajectory => EditorWindow::Trajectory,
            EditorKind::ControlPanel => EditorWindow::ControlPanel,
            EditorKind::Full => EditorWindow::Full,
        };
        let app = self.editor_application()?;
        // The windows' GL contexts are made current on this thread, where renditions draw.
        if self.hosted {
            let outbox = self.outbox.clone();
            let save = Rc::new(move || outbox.save_requested());
            crate::ui::open_for_host(&app, &self.session, kind, save);
        } else {
            crate::ui::open_editor(&app, &self.session, kind);
        }
        Ok(())
    }

    fn editor_application(&self) -> Result<gtk::Application, Error> {
        if let Some(app) = self.editors.borrow().as_ref() {
            return Ok(app.clone());
        }
        gtk::init().map_err(|e| {
            Error::NotAvailable(format!(
                "editor windows need a display, and there is none: {e}"
            ))
        })?;
        // Not unique and never run: the slave's own main loop serves the windows.
        let app = gtk::Application::new(None::<&str>, gtk::gio::ApplicationFlags::NON_UNIQUE);
        app.register(None::<&gtk::gio::Cancellable>)
            .map_err(|e| Error::Failed(format!("cannot start the editor windows: {e}")))?;
        *self.editors.borrow_mut() = Some(app.clone());
        Ok(app)
    }

    pub fn set_handles_visible(&self, kind: &str, visible: bool) -> Result<(), Error> {
        let kind: HandleKind = request::kind(kind)?;
        let changed = {
            let mut shown = self.shown_handles.borrow_mut();
            if visible {
                shown.insert(kind)
            } else {
                shown.remove(&kind)
            }
        };
        if changed {
            self.touch_all();
            self.outbox
                .properties_changed(0, vec![("HandlesVisible", owned(self.handles_visible()))]);
        }
        Ok(())
    }

    pub fn preferred_size(&self) -> (u32, u32) {
        PREFERRED_SIZE
    }

    pub fn duration(&self) -> f64 {
        let (start, finish) = self.time_range();
        finish - start
    }

    pub fn status(&self) -> Status {
        if !self.loaded.get() {
            return Status::Loading;
        }
        if self.session.error().is_some() {
            return Status::Error;
        }
        match self.session.status() {
            SimStatus::Running(_) => Status::Simulating,
            SimStatus::Failed(_) => Status::Error,
            SimStatus::Idle | SimStatus::Finished => Status::Ready,
        }
    }

    pub fn handles_visible(&self) -> Vec<String> {
        let shown = self.shown_handles.borrow();
        shown.iter().map(|k| k.as_str().to_string()).collect()
    }

    pub fn rendition_paths(&self) -> Vec<OwnedObjectPath> {
        self.renditions
            .borrow()
            .keys()
            .filter_map(|&n| OwnedObjectPath::try_from(rendition_path(n)).ok())
            .collect()
    }

    // --- org.asgard.Rendition1 -------------------------------------------------------------

    /// Runs `work` on rendition `number`, or fails with `Closed` when it was closed.
    fn with<T>(
        &self,
        number: u32,
        work: impl FnOnce(&mut Rendition) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let mut renditions = self.renditions.borrow_mut();
        let rendition = renditions
            .get_mut(&number)
            .ok_or_else(|| Error::Closed(format!("{} was closed", rendition_path(number))))?;
        work(rendition)
    }

    pub fn resize(&self, number: u32, width: u32, height: u32) -> Result<(), Error> {
        self.with(number, |r| {
            let size = request::size(width, height)?;
            r.resize(size).map_err(Error::Failed)
        })?;
        self.outbox.frame_buffer_changed(number, width, height);
        self.outbox
            .properties_changed(number, vec![("Size", owned((width, height)))]);
        Ok(())
    }

    pub fn play(&self, number: u32, play: bool) -> Result<(), Error> {
        let now = self.now();
        self.with(number, |r| {
            refuse_live(number, r)?;
            if play {
                r.transport.play(now);
            } else {
                r.transport.pause(now);
            }
            r.touch();
            Ok(())
        })?;
        self.outbox
            .properties_changed(number, vec![("Playing", owned(play))]);
        Ok(())
    }

    pub fn seek(&self, number: u32, time: f64) -> Result<(), Error> {
        let now = self.now();
        self.with(number, |r| {
            refuse_live(number, r)?;
            r.transport
                .seek(time, now)
                .map_err(|e| Error::InvalidArgument(e.to_string()))?;
            r.touch();
            Ok(())
        })
    }

    /// Pauses rendition `number` and moves it `frames` frames (back when negative), a frame
    /// being the simulator's output step.
    pub fn step(&self, number: u32, frames: i32) -> Result<(), Error> {
        let now = self.now();
        let frame = self.session.simulator_settings().step;
        let was_playing = self.with(number, |r| {
            refuse_live(number, r)?;
            let was_playing = r.transport.is_playing();
            r.transport
                .step(i64::from(frames), frame, now)
                .map_err(|e| Error::InvalidScene(format!("cannot step: {e}")))?;
            r.touch();
            Ok(was_playing)
        })?;
        if was_playing {
            self.outbox
                .properties_changed(number, vec![("Playing", owned(false))]);
        }
        Ok(())
    }

    /// Jumps rendition `number` to the start or the finish, playing on if it plays.
    pub fn go_to(&self, number: u32, end: Direction) -> Result<(), Error> {
        let now = self.now();
        self.with(number, |r| {
            refuse_live(number, r)?;
            r.transport.go_to_end(end, now);
            r.touch();
            Ok(())
        })
    }

    pub fn rate(&self, number: u32) -> Result<f64, Error> {
        self.with(number, |r| Ok(r.transport.rate()))
    }

    /// Sets rendition `number`'s playing rate (negative: reverse); `announce` when the caller
    /// is not a property Set, which zbus announces itself.
    pub fn set_rate(&self, number: u32, rate: f64, announce: bool) -> Result<(), Error> {
        let now = self.now();
        self.with(number, |r| {
            r.transport
                .set_rate(rate, now)
                .map_err(|e| Error::InvalidArgument(e.to_string()))?;
            r.touch();
            Ok(())
        })?;
        if announce {
            self.outbox
                .properties_changed(number, vec![("Rate", owned(rate))]);
        }
        Ok(())
    }

    pub fn frame_buffer(&self, number: u32) -> Result<FrameBufferReply, Error> {
        self.with(number, |r| {
            let frames = r.frames();
            let layout = frames.layout();
            let fd = frames
                .fd()
                .try_clone_to_owned()
                .map_err(|e| Error::Failed(format!("cannot share the frame memory: {e}")))?;
            Ok((
                fd.into(),
                layout.width,
                layout.height,
                layout.stride,
                layout.buffers,
                layout.buffer_size,
            ))
        })
    }

    pub fn time(&self, number: u32) -> Result<f64, Error> {
        let now = self.now();
        self.with(number, |r| Ok(r.time_at(now)))
    }

    pub fn playing(&self, number: u32) -> Result<bool, Error> {
        self.with(number, |r| Ok(r.is_playing()))
    }

    pub fn looping(&self, number: u32) -> Result<bool, Error> {
        self.with(number, |r| Ok(r.transport.is_looping()))
    }

    pub fn set_looping(&self, number: u32, looping: bool) -> Result<(), Error> {
        self.with(number, |r| {
            r.transport.set_looping(looping);
            Ok(())
        })?;
        self.outbox
            .properties_changed(number, vec![("Loop", owned(looping))]);
        Ok(())
    }

    pub fn mode(&self, number: u32) -> Result<String, Error> {
        self.with(number, |r| Ok(r.mode().as_str().to_string()))
    }

    /// Switches rendition `number` between playback and live (see [`Rendition::go_live`] and
    /// [`Rendition::leave_live`]); setting the mode it has already changes nothing.
    pub fn set_mode(&self, number: u32, mode: &str) -> Result<(), Error> {
        let mode: PlaybackMode = request::kind(mode)?;
        let now = self.now();
        let scene_error = self.session.error();
        let scene = self.session.scene();
        // The new value of Playing, if it changed.
        let playing = self.with(number, |r| {
            if r.mode() == mode {
                return Ok(None);
            }
            let was_playing = r.is_playing();
            match mode {
                PlaybackMode::Live => {
                    if let Some(e) = &scene_error {
                        return Err(Error::InvalidScene(format!(
                            "{}:{}: the scene text does not evaluate, so it cannot run live: {}",
                            e.at.line, e.at.column, e.message
                        )));
                    }
                    let scene = scene.as_deref().ok_or_else(|| {
                        Error::InvalidScene("there is no scene to run live yet".into())
                    })?;
                    if r.dragging_handle() {
                        return Err(Error::NotAvailable(
                            "a handle is being dragged: release it, then go live".into(),
                        ));
                    }
                    r.go_live(scene, now).map_err(Error::InvalidScene)?;
                }
                PlaybackMode::Playback => r.leave_live(now),
            }
            Ok(Some(r.is_playing()).filter(|&playing| playing != was_playing))
        })?;
        // zbus announces Mode itself once the Set succeeds.
        if let Some(playing) = playing {
            self.outbox
                .properties_changed(number, vec![("Playing", owned(playing))]);
        }
        Ok(())
    }

    pub fn live_rate(&self, number: u32) -> Result<f64, Error> {
        self.with(number, |r| Ok(r.live_rate()))
    }

    pub fn size(&self, number: u32) -> Result<(u32, u32), Error> {
        self.with(number, |r| Ok(r.size()))
    }

    pub fn close(&self, number: u32) -> Result<(), Error> {
        self.with(number, |_| Ok(()))?;
        self.renditions.borrow_mut().remove(&number);
        self.outbox
            .properties_changed(0, vec![("Renditions", owned(self.rendition_paths()))]);
        Ok(())
    }

    /// A forwarded pointer event at (`x`, `y`) in rendition pixels: the rendition's gestures
    /// decide (`crate::view::gesture`); edits of the scene are made here.
    pub fn pointer(
        &self,
        number: u32,
        kind: PointerKind,
        pressed: u32,
        at: Point2<f64>,
        modifiers: Modifiers,
    ) -> Result<(), Error> {
        let shift = modifiers.contains(Modifiers::SHIFT);
        let effect = self
            .with_scenery(|scenery| {
                self.with(number, |r| Ok(r.pointer(kind, pressed, shift, at, scenery)))
            })
            .unwrap_or_else(|| self.with(number, |_| Ok(Ok(Effect::Nothing))))?;
        self.apply(effect);
        Ok(())
    }

    /// Makes the scene edit a gesture decided on, or reports why there is none. The session
    /// tells its observers (this object among them) about edits at once, so nothing may be
    /// borrowed here.
    fn apply(&self, effect: Result<Effect, String>) {
        match effect {
            Ok(Effect::DragStarted(handle)) => {
                let index = self
                    .picture
                    .borrow()
                    .as_ref()
                    .and_then(|p| p.handles.iter().position(|h| h.target == handle.target));
                self.dragged.set(index);
                self.session.begin_drag();
                self.touch_all();
            }
            Ok(Effect::Edit(edit)) => {
                if let Err(e) = self.session.edit(edit.target, edit.value, Some(self.own)) {
                    self.outbox.error(e.reason, 0, 0);
                }
            }
            Ok(Effect::DragEnded) => {
                self.dragged.set(None);
                self.session.end_drag();
                self.touch_all();
            }
            Ok(Effect::Refused(why)) | Err(why) => self.outbox.error(why, 0, 0),
            // Renditions neither select bodies nor add trajectory points.
            Ok(_) => {}
        }
    }

    /// Runs `work` with what the renditions draw now; `None` without a scene.
    fn with_scenery<T>(&self, work: impl FnOnce(&Scenery<'_>) -> T) -> Option<T> {
        let scene = self.session.scene()?;
        let motion = self.session.motion();
        let picture = self.picture.borrow();
        let handles = self.scene_handle_kinds();
        Some(work(&Scenery {
            scene: &scene,
            motion: motion.as_ref(),
            picture: picture.as_ref(),
            handles: &handles,
            highlighted: self.dragged.get(),
        }))
    }

    pub fn scroll(&self, number: u32, steps: f64) -> Result<(), Error> {
        self.with(number, |r| {
            r.scroll(steps);
            Ok(())
        })
    }

    /// A forwarded key, with the meaning it has in every view (`crate::view::keys`): `v`
    /// restores the default view, `c` centres the view under the pointer, `z`/`x` push the
    /// dragged handle, `a` held frees link ends; in playback space plays or pauses, Left and
    /// Right step, Home and End go to the start and the finish, `r` reverses and `[`/`]`
    /// change the speed; live, the arrow keys push the body pulled last along their screen
    /// directions.
    pub fn key(&self, number: u32, name: &str, pressed: bool) -> Result<(), Error> {
        let Some(action) = KeyAction::of_key(name) else {
            return self.with(number, |_| Ok(()));
        };
        if !pressed && !action.is_held() {
            return self.with(number, |_| Ok(()));
        }
        let effect = match action {
            KeyAction::ResetView => self.with(number, |r| {
                r.reset_view();
                Ok(Ok(Effect::Nothing))
            })?,
            KeyAction::PlayPause => {
                if self.mode(number)? == PlaybackMode::Playback.as_str() {
                    let playing = self.playing(number)?;
                    return self.play(number, !playing);
                }
                Ok(Effect::Nothing)
            }
            KeyAction::Free => self.with(number, |r| {
                r.set_free(pressed);
                Ok(Ok(Effect::Nothing))
            })?,
            KeyAction::Push(direction) if self.mode(number)? == PlaybackMode::Playback.as_str() => {
                return match direction {
                    ScreenDirection::Left if pressed => self.step(number, -1),
                    ScreenDirection::Right if pressed => self.step(number, 1),
                    _ => Ok(()),
                };
            }
            KeyAction::Push(direction) => self.with(number, |r| {
                Ok(r.push(direction, pressed)
                    .map(|()| Effect::Nothing)
                    .map_err(|e| format!("cannot push: {e}")))
            })?,
            KeyAction::GoTo(end) => return self.go_to(number, end),
            KeyAction::Reverse => {
                let rate = -self.rate(number)?;
                return self.set_rate(number, rate, true);
            }
            KeyAction::Speed { faster } => {
                let rate = next_speed(self.rate(number)?, faster);
                return self.set_rate(number, rate, true);
            }
            KeyAction::CentreAtPointer => self
                .with_scenery(|scenery| {
                    self.with(number, |r| {
                        r.centre_at_pointer(scenery);
                        Ok(Ok(Effect::Nothing))
                    })
                })
                .unwrap_or_else(|| self.with(number, |_| Ok(Ok(Effect::Nothing))))?,
            KeyAction::PushHandle { into } => self
                .with_scenery(|scenery| self.with(number, |r| Ok(Ok(r.push_handle(into, scenery)))))
                .unwrap_or_else(|| self.with(number, |_| Ok(Ok(Effect::Nothing))))?,
        };
        self.apply(effect);
        Ok(())
    }

    fn scene_handle_kinds(&self) -> Vec<handles::HandleKind> {
        let shown = self.shown_handles.borrow();
        shown
            .iter()
            .flat_map(|&k| scene_handle_kinds(k).iter().copied())
            .collect()
    }

    // --- drawing ---------------------------------------------------------------------------

    /// Draws a frame of every rendition that wants one and whose last frame was announced.
    pub fn tick(&self) {
        if self.renditions.borrow().is_empty() {
            return;
        }
        let now = self.now();
        self.with_scenery(|scenery| self.draw(scenery, now));
    }

    fn draw(&self, scenery: &Scenery<'_>, now: Duration) {
        if self.editors.borrow().is_some() {
            // An editor window's context left current here would keep ours from being made
            // current (EGL_BAD_ACCESS); GTK makes its own current again before it draws.
            gtk::gdk::GLContext::clear_current();
        }
        let mut changes = Vec::new();
        for (&number, rendition) in self.renditions.borrow_mut().iter_mut() {
            if let Some(rate) = rendition.live_rate_change() {
                changes.push((number, vec![("LiveRate", owned(rate))]));
            }
            if !rendition.wants_frame() || self.outbox.frame_in_flight(number) {
                continue;
            }
            let was_playing = rendition.is_playing();
            let was_live = rendition.mode() == PlaybackMode::Live;
            match rendition.draw(scenery, now) {
                Ok(frame) => self.outbox.frame_ready(number, frame),
                Err(message) => {
                    rendition.stop(now);
                    self.outbox.error(message, 0, 0);
                }
            }
            let mut changed = Vec::new();
            if was_playing && !rendition.is_playing() {
                changed.push(("Playing", owned(false)));
            }
            if was_live && rendition.mode() != PlaybackMode::Live {
                changed.push(("Mode", owned(PlaybackMode::Playback.as_str())));
            }
            if !changed.is_empty() {
                changes.push((number, changed));
            }
        }
        for (number, changed) in changes {
            self.outbox.properties_changed(number, changed);
        }
    }
}

/// Refuses a playback command (Play, Pause, Seek) on live rendition `r`.
fn refuse_live(number: u32, r: &Rendition) -> Result<(), Error> {
    match r.mode() {
        PlaybackMode::Playback => Ok(()),
        PlaybackMode::Live => Err(Error::NotAvailable(format!(
            "{} is live: set its Mode to 'playback' to play the computed motion",
            rendition_path(number)
        ))),
    }
}

/// An unknown enumeration value, as the contract's error.
fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A property value as `PropertiesChanged` carries it.
fn owned(value: impl Into<Value<'static>>) -> Value<'static> {
    value.into()
}
