//! What a graphical viewer knows and does, apart from its widgets: the scene prepared for
//! drawing, its own view and time, playback, and the drags that edit the scene through the
//! session (4.1).
//!
//! Every viewer has its own spatial and temporal viewpoint. Bodies are drawn where the
//! computed motion puts them at the viewer's time — or where the text puts them, while there is
//! no motion for the current text. Handles always edit the initial state (4.1.2), so they are
//! drawn there.

use super::live::{FinishedRun, LiveRun, PullPlane, ScreenDirection};
use crate::live::{Clock, Playback, PlaybackState, SystemClock};
use crate::render::camera::{Bounds, Camera, Viewport};
use crate::render::frame::{Frame, Line};
use crate::render::mesh::MeshLibrary;
use crate::render::pick::{self, body_under, nearest_handle, pointer_ray};
use crate::render::scene_frame::{palette, CameraChoice, FrameOptions, SceneFrames};
use crate::scene::handles::{handles, Drag, Handle, HandleKind, HandleScales};
use crate::scene::state::{BodyStates, InitialStates};
use crate::scene::{Scene, Target};
use crate::session::{Event, SimStatus, ViewId};
use crate::sim::physics::SceneMotion;
use crate::ui::create::{BodyClick, Click};
use crate::ui::editor::{Editor, ExportView};
use crate::ui::gl_view::{GlView, Scenery};
use crate::ui::scene_text::{delete_control_point, insert_control_point, PointRef};
use crate::ui::view_mouse::{ViewDrag, CLICK_SLOP, PICK_RADIUS};
use gtk::glib;
use gtk::prelude::*;
use gtk4 as gtk;
use nalgebra::{Point2, Point3};
use std::cell::{Cell, OnceCell, RefCell};
use std::rc::{Rc, Weak};

/// The scene as this viewer draws it: meshes and parts, and the handles at the current scales.
struct Prepared {
    frames: SceneFrames,
    handles: Vec<Handle>,
}

/// Where the view comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
enum ViewSource {
    /// Not drawn yet: chosen at the first draw, when the size is known.
    Unset,
    /// The scene's `camera` element, which may move.
    SceneCamera,
    /// A view of the viewer's own (fitted at first, then moved with the mouse).
    Own(Camera),
}

/// What a button press started.
#[derive(Clone, Debug)]
enum Gesture {
    /// Moving the view.
    View { how: ViewDrag, last: Point2<f64> },
    /// Dragging a handle; `handle` is a copy taken at the start (the drag's rules refer to the
    /// initial state at that time), its position kept up to date.
    Handle { handle: Handle },
    /// A middle press on a trajectory point: a new point is made once the pointer shows the
    /// direction (before or after).
    NewPoint { at: PointRef, handle: Handle },
    /// A press that acts on release if the pointer stayed put.
    Click(ClickAction),
    /// Pulling a body live: the target moves in this plane.
    Pull(PullPlane),
}

#[derive(Clone, Copy, Debug)]
enum ClickAction {
    /// Answer the Create command waiting for clicks.
    Prompt,
    /// Select or deselect the body under the pointer.
    Select,
    /// Delete this trajectory point.
    DeletePoint(PointRef),
}

/// The widgets a viewer updates besides its GL area.
pub struct Widgets {
    /// The value of the handle being dragged, at the upper right.
    pub value: gtk::Label,
    /// Prompts, playback waiting at the computed horizon, refusals.
    pub status: gtk::Label,
    /// Redrawn with the scene: labels next to handles.
    pub overlay: gtk::DrawingArea,
    /// Told when the time or the time range changes.
    pub on_time: Box<dyn Fn(f64, (f64, f64))>,
    /// Told when the trajectory whose points' times are shown changes.
    pub on_trajectory: Box<dyn Fn()>,
    /// Told when Live turns on or off, or a run's recording is kept or becomes keepable.
    pub on_live: Box<dyn Fn(LiveStatus)>,
}

/// Whether Live is on, and whether Keep as trajectory has a run to keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LiveStatus {
    pub live: bool,
    pub keepable: bool,
}

/// A graphical viewer's state.
pub struct Viewer {
    me: Weak<Viewer>,
    pub editor: Rc<Editor>,
    pub view_id: ViewId,
    gl: OnceCell<GlView>,
    widgets: OnceCell<Widgets>,
    prepared: RefCell<Option<Prepared>>,
    /// Kept while the user drags, so a handle does not jump when its value becomes the longest.
    scales: Cell<Option<HandleScales>>,
    view: Cell<ViewSource>,
    time: Cell<f64>,
    playback: RefCell<Option<Playback>>,
    /// The frame callback that advances playback, while it runs.
    ticking: RefCell<Option<gtk::TickCallbackId>>,
    clock: RefCell<SystemClock>,
    /// What the picture shows besides the bodies.
    pub options: RefCell<FrameOptions>,
    gesture: RefCell<Option<Gesture>>,
    press: Cell<Point2<f64>>,
    pointer: Cell<Option<Point2<f64>>>,
    /// The `a` key is down: link ends move in the screen plane instead of on the surface.
    free: Cell<bool>,
    /// The trajectory whose control points' times are shown above the time bar.
    editing_trajectory: RefCell<Option<String>>,
    last_frame: RefCell<Option<Frame>>,
    /// The scene running live, while Live is on.
    live: RefCell<Option<LiveRun>>,
    /// The frame callback that advances the live scene, while Live is on.
    live_ticking: RefCell<Option<gtk::TickCallbackId>>,
    /// The last live run since it ended, until kept.
    last_run: RefCell<Option<FinishedRun>>,
    /// The slow-down the status line shows for the live run, while it cannot keep pace.
    live_slowdown: RefCell<Option<String>>,
    /// Where the bodies go over the motion computed so far, and up to what time it was
    /// found: the ground lies under it (see [`Viewer::stage`]).
    stage: Cell<Option<(f64, Option<Bounds>)>>,
}

/// The handle kinds shown in a new viewer.
pub const INITIAL_HANDLES: [HandleKind; 8] = [
    HandleKind::BodyPosition,
    HandleKind::Velocity,
    HandleKind::ForceBase,
    HandleKind::ForceHead,
    HandleKind::TorqueHead,
    HandleKind::LinkEnd,
    HandleKind::LightPosition,
    HandleKind::LightDirection,
];

impl Viewer {
    pub fn new(editor: Rc<Editor>) -> Rc<Viewer> {
        let view_id = editor.session.new_view_id();
        let start = editor.session.simulator_settings().start;
        let options = initial_options(HandleScales::default());
        let viewer = Rc::new_cyclic(|me| Viewer {
            me: me.clone(),
            editor,
            view_id,
            gl: OnceCell::new(),
            widgets: OnceCell::new(),
            prepared: RefCell::new(None),
            scales: Cell::new(None),
            view: Cell::new(ViewSource::Unset),
            time: Cell::new(start),
            playback: RefCell::new(None),
            ticking: RefCell::new(None),
            clock: RefCell::new(SystemClock::new()),
            options: RefCell::new(options),
            gesture: RefCell::new(None),
            press: Cell::new(Point2::origin()),
            pointer: Cell::new(None),
            free: Cell::new(false),
            editing_trajectory: RefCell::new(None),
            last_frame: RefCell::new(None),
            live: RefCell::new(None),
            live_ticking: RefCell::new(None),
            last_run: RefCell::new(None),
            live_slowdown: RefCell::new(None),
            stage: Cell::new(None),
        });
        viewer.prepare();
        viewer
    }

    /// Connects the viewer to its GL area and widgets (once, after construction).
    pub fn attach(&self, gl: GlView, widgets: Widgets) {
        let _ = self.gl.set(gl);
        let _ = self.widgets.set(widgets);
    }

    pub fn gl(&self) -> &GlView {
        self.gl.get().expect("attached")
    }

    fn widgets(&self) -> Option<&Widgets> {
        self.widgets.get()
    }

    /// Draws again, with the labels over the picture.
    pub fn redraw(&self) {
        if let Some(gl) = self.gl.get() {
            gl.redraw();
        }
        if let Some(w) = self.widgets() {
            w.overlay.queue_draw();
        }
    }

    /// Shows a message under the picture (empty clears it).
    pub fn say(&self, message: &str) {
        if let Some(w) = self.widgets() {
            w.status.set_text(message);
        }
    }

    // --- the scene -------------------------------------------------------------------------

    /// Prepares the session's current scene for drawing.
    fn prepare(&self) {
        self.stage.set(None);
        let Some(scene) = self.editor.session.scene() else {
            *self.prepared.borrow_mut() = None;
            return;
        };
        match SceneFrames::new(&scene) {
            Ok(frames) => {
                let dragging = matches!(*self.gesture.borrow(), Some(Gesture::Handle { .. }));
                let scales = match self.scales.get() {
                    Some(scales) if dragging => scales,
                    _ => HandleScales::fitted(&scene, frames.shapes()),
                };
                self.scales.set(Some(scales));
                self.options.borrow_mut().scales = scales;
                let handles = handles(&scene, frames.shapes(), &scales);
                *self.prepared.borrow_mut() = Some(Prepared { frames, handles });
            }
            Err(e) => {
                *self.prepared.borrow_mut() = None;
                self.editor.status(format!("Cannot draw the scene: {e}"));
            }
        }
    }

    /// Takes in what happened to the session.
    pub fn on_session(&self, event: &Event) {
        match event {
            Event::SceneChanged => {
                if self.is_live() {
                    self.stop_live();
                    self.say("The scene changed, so Live is off: press Live to run the new scene.");
                }
                self.prepare();
                self.keep_selection_valid();
                self.time_changed();
                self.redraw();
            }
            Event::SimulationStarted => self.redraw(),
            Event::SimulationProgress(_) | Event::SimulationFinished => {
                if self.playback.borrow().is_some() {
                    // Playback waiting at the horizon goes on at its next frame.
                    self.redraw();
                }
            }
            Event::TextChanged { .. }
            | Event::SimulationFailed(_)
            | Event::SceneError(_)
            | Event::FileChanged => {}
        }
    }

    fn keep_selection_valid(&self) {
        if let Some(name) = self.editing_trajectory.borrow().clone() {
            let gone = self
                .editor
                .session
                .scene()
                .is_none_or(|s| s.trajectory(&name).is_none());
            if gone {
                self.set_editing_trajectory(None);
            }
        }
    }

    /// The motion to draw, when it belongs to the current text.
    fn motion(&self) -> Option<SceneMotion> {
        self.editor.current_motion()
    }

    /// The handles of the scene as last prepared.
    pub fn handles(&self) -> Vec<Handle> {
        self.prepared
            .borrow()
            .as_ref()
            .map(|p| p.handles.clone())
            .unwrap_or_default()
    }

    /// The handles of the kinds shown, with their indices in [`Viewer::handles`].
    fn visible_handles(&self) -> Vec<(usize, Handle)> {
        let shown = self.options.borrow().handles.clone();
        self.prepared
            .borrow()
            .as_ref()
            .map(|p| {
                p.handles
                    .iter()
                    .enumerate()
                    .filter(|(_, h)| shown.contains(&h.kind))
                    .map(|(i, h)| (i, h.clone()))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The last picture's camera and the area's size.
    pub fn camera_and_viewport(&self) -> Option<(Camera, Viewport)> {
        let frame = self.last_frame.borrow();
        Some((frame.as_ref()?.camera, self.gl().viewport()))
    }

    // --- drawing ---------------------------------------------------------------------------

    fn choose_view(&self, scene: &Scene, frames: &SceneFrames, viewport: &Viewport) -> ViewSource {
        if scene.camera.is_some() {
            return ViewSource::SceneCamera;
        }
        ViewSource::Own(initial_view(
            scene,
            frames,
            &self.options.borrow(),
            viewport,
        ))
    }

    /// Goes back to the view the viewer started with: the scene's camera, or the bodies
    /// fitted into the picture.
    pub fn reset_view(&self) {
        self.view.set(ViewSource::Unset);
        self.redraw();
    }

    fn export_view(&self, frame: &Frame, viewport: &Viewport) {
        let window_active = self
            .gl
            .get()
            .and_then(|gl| gl.area.root())
            .and_then(|root| root.downcast::<gtk::Window>().ok())
            .is_some_and(|w| w.is_active());
        if window_active || self.editor.export_view().is_none() {
            let mut options = self.options.borrow().clone();
            options.handles.clear();
            options.highlighted_handle = None;
            options.camera = match self.view.get() {
                ViewSource::SceneCamera => CameraChoice::Scene,
                _ => CameraChoice::Given(frame.camera),
            };
            self.editor.set_export_view(ExportView {
                camera: frame.camera,
                time: self.time.get(),
                options,
                size: (viewport.width as u32, viewport.height as u32),
            });
        }
    }

    // --- time ------------------------------------------------------------------------------

    pub fn time(&self) -> f64 {
        self.time.get()
    }

    /// The simulator's start and finish.
    pub fn time_range(&self) -> (f64, f64) {
        let settings = self.editor.session.simulator_settings();
        (settings.start, settings.finish)
    }

    fn time_changed(&self) {
        if let Some(w) = self.widgets() {
            (w.on_time)(self.time.get(), self.time_range());
        }
    }

    /// Shows the scene at `time` (clamped to the animation's range).
    pub fn set_time(&self, time: f64) {
        let (start, finish) = self.time_range();
        let time = time.clamp(start, finish.max(start));
        if time != self.time.get() {
            self.time.set(time);
            self.time_changed();
            self.redraw();
        }
    }

    pub fn rewind(&self) {
        self.stop();
        self.set_time(self.time_range().0);
    }

    /// One output step of the simulator forward.
    pub fn step(&self) {
        self.stop();
        let step = self.editor.session.simulator_settings().step;
        self.set_time(self.time.get() + step);
    }

    /// Plays the motion from the current time (from the start when at the end).
    pub fn play(&self) {
        if self.motion().is_none() && !self.simulation_starting() {
            self.say(&self.nothing_to_play());
            return;
        }
        let (start, finish) = self.time_range();
        let now = self.clock.borrow_mut().now();
        let mut playback = Playback::new(start, finish);
        if let Err(why) = playback.seek(self.time.get(), now) {
            self.say(&format!("Cannot play: {why}"));
            return;
        }
        playback.play(now);
        *self.playback.borrow_mut() = Some(playback);
        self.say("");
        if self.ticking.borrow().is_none() {
            let me = self.me.clone();
            let id = self
                .gl()
                .area
                .add_tick_callback(move |_, _| match me.upgrade() {
                    Some(viewer) if viewer.tick() => glib::ControlFlow::Continue,
                    Some(viewer) => {
                        // Returning Break removes the callback.
                        viewer.ticking.borrow_mut().take();
                        glib::ControlFlow::Break
                    }
                    None => glib::ControlFlow::Break,
                });
            *self.ticking.borrow_mut() = Some(id);
        }
    }

    pub fn stop(&self) {
        if self.playback.take().is_some() {
            self.say("");
        }
        if let Some(id) = self.ticking.borrow_mut().take() {
            id.remove();
        }
    }

    /// Why there is no motion of the current text to play.
    fn nothing_to_play(&self) -> String {
        match self.editor.session.status() {
            SimStatus::Failed(why) => format!("Nothing to play: the simulation failed: {why}"),
            _ => "Nothing to play: the motion of this text is not computed (Simulate).".into(),
        }
    }

    /// Whether a run was asked for and has not yet started computing the current text's motion
    /// (its first report is still on the way to the main loop).
    fn simulation_starting(&self) -> bool {
        self.motion().is_none() && matches!(self.editor.session.status(), SimStatus::Running(_))
    }

    /// Advances playback to the clock; called before each frame while playing. Returns
    /// whether playback goes on.
    pub fn tick(&self) -> bool {
        let status = self.editor.session.status();
        let horizon = match (self.motion(), &status) {
            (Some(_), SimStatus::Finished) => f64::INFINITY,
            (Some(motion), _) => motion.complete_until(),
            // Simulate was pressed and the run has not reported yet: nothing is computed.
            (None, _) if self.simulation_starting() => f64::NEG_INFINITY,
            (None, _) => {
                if self.playback.take().is_some() {
                    self.say(&self.nothing_to_play());
                }
                return false;
            }
        };
        let now = self.clock.borrow_mut().now();
        let Some(tick) = self
            .playback
            .borrow_mut()
            .as_mut()
            .map(|playback| playback.tick(now, horizon))
        else {
            return false;
        };
        let message = match (tick.state, status) {
            (PlaybackState::Playing, _) => String::new(),
            (PlaybackState::Waiting, SimStatus::Failed(why)) => {
                self.playback.take();
                format!("The simulation stopped at t = {:.3}: {why}", tick.time)
            }
            (PlaybackState::Waiting, _) => format!(
                "Waiting for the simulation: computed to t = {:.3}",
                tick.time
            ),
            (PlaybackState::Ended | PlaybackState::Paused, _) => {
                self.playback.take();
                String::new()
            }
        };
        self.time.set(tick.time);
        self.time_changed();
        self.say(&message);
        self.redraw();
        self.playback.borrow().is_some()
    }

    // --- live ------------------------------------------------------------------------------

    pub fn is_live(&self) -> bool {
        self.live.borrow().is_some()
    }

    /// Turns Live on: the session's current scene runs from its start time in real time, one
    /// batch of fixed steps per frame, until [`Viewer::stop_live`] or a failed step.
    pub fn start_live(&self) {
        if self.is_live() {
            return;
        }
        let started = match self.editor.session.scene() {
            Some(scene) => LiveRun::start(&scene),
            None => Err("the text has an error: fix it, then press Live".into()),
        };
        let run = match started {
            Ok(run) => run,
            Err(e) => {
                self.say(&format!("Cannot go live: {e}"));
                // The toggle button was pressed: it shows Live off again.
                self.live_changed();
                return;
            }
        };
        self.stop();
        *self.live.borrow_mut() = Some(run);
        self.say("Live: Shift and the left button pull a body; the arrow keys push the body pulled last.");
        let me = self.me.clone();
        let id = self
            .gl()
            .area
            .add_tick_callback(move |_, clock| match me.upgrade() {
                Some(viewer) if viewer.live_tick(clock.frame_time()) => glib::ControlFlow::Continue,
                Some(viewer) => {
                    // Returning Break removes the callback.
                    viewer.live_ticking.borrow_mut().take();
                    glib::ControlFlow::Break
                }
                None => glib::ControlFlow::Break,
            });
        *self.live_ticking.borrow_mut() = Some(id);
        self.live_changed();
        self.redraw();
    }

    /// Turns Live off; the run's recording stays for Keep as trajectory.
    pub fn stop_live(&self) {
        if let Some(id) = self.live_ticking.borrow_mut().take() {
            id.remove();
        }
        self.end_live();
    }

    /// Ends the live run, if any, keeping its recording; the frame callback is the caller's.
    fn end_live(&self) {
        let Some(run) = self.live.borrow_mut().take() else {
            return;
        };
        *self.last_run.borrow_mut() = Some(run.finish());
        self.live_slowdown.borrow_mut().take();
        self.live_changed();
        self.time_changed();
        self.redraw();
    }

    fn live_changed(&self) {
        let live = self.is_live();
        if let Some(w) = self.widgets() {
            (w.on_live)(LiveStatus {
                live,
                keepable: live || self.last_run.borrow().is_some(),
            });
        }
    }

    /// Advances the live scene to the frame clock's `frame_time` (microseconds); called before
    /// each frame while live. Returns whether Live stays on.
    fn live_tick(&self, frame_time: i64) -> bool {
        let advanced = match self.live.borrow_mut().as_mut() {
            Some(run) => run
                .advance_to(frame_time)
                .map(|()| (run.states().1, run.slowdown())),
            None => return false,
        };
        match advanced {
            Ok((time, slowdown)) => {
                if let Some(w) = self.widgets() {
                    (w.on_time)(time, self.time_range());
                }
                self.show_slowdown(slowdown);
                self.redraw();
                true
            }
            Err(e) => {
                self.end_live();
                self.say(&format!("The live scene stopped, so Live is off: {e}"));
                false
            }
        }
    }

    /// Says in the status line that the live run is slower than real time, and by how much,
    /// while it is; and when it keeps pace again.
    fn show_slowdown(&self, slowdown: Option<String>) {
        let before = self.live_slowdown.replace(slowdown.clone());
        match (slowdown, before) {
            (now, before) if now == before => {}
            (Some(message), _) => self.say(&message),
            (None, _) => self.say("Live: running in real time again."),
        }
    }

    /// The motion drawn now and its time: the live scene's while Live is on, else the computed
    /// motion of the current text (if any) at the viewer's time.
    fn states_now(&self) -> (Option<SceneMotion>, f64) {
        match self.live.borrow().as_ref() {
            Some(run) => {
                let (motion, time) = run.states();
                (Some(motion), time)
            }
            None => (self.motion(), self.time.get()),
        }
    }

    /// Shift and the left button with Live on: grabs the body under `at` by the surface point
    /// there.
    fn start_pull(&self, at: Point2<f64>) -> Option<Gesture> {
        let hit = self.body_at(at)?;
        let (camera, _) = self.camera_and_viewport()?;
        let grabbed = self.live.borrow_mut().as_mut()?.grab(hit.body, &hit.world);
        match grabbed {
            Ok(()) => Some(Gesture::Pull(PullPlane::new(
                Point3::from(hit.world),
                &camera,
            ))),
            Err(e) => {
                self.say(&format!("Cannot pull: {e}"));
                None
            }
        }
    }

    /// Moves the pull's target under the pointer at `at`, in `plane`.
    fn pull_to(&self, plane: PullPlane, at: Point2<f64>) {
        let Some((camera, viewport)) = self.camera_and_viewport() else {
            return;
        };
        let Some(target) = plane.target(&camera, &viewport, at) else {
            return;
        };
        let moved = self
            .live
            .borrow()
            .as_ref()
            .map(|run| run.move_target(&target));
        if let Some(Err(e)) = moved {
            self.say(&format!("Cannot pull: {e}"));
        }
    }

    /// An arrow key went down (`held`) or up with Live on: pushes the body pulled last.
    /// Returns whether the key was taken.
    pub fn arrow_key(&self, direction: ScreenDirection, held: bool) -> bool {
        let Some((camera, _)) = self.camera_and_viewport() else {
            return false;
        };
        let pushed = match self.live.borrow_mut().as_mut() {
            Some(run) => run.arrow_key(direction, held, &camera),
            None => return false,
        };
        pushed.unwrap_or_else(|e| {
            self.say(&format!("Cannot push: {e}"));
            true
        })
    }

    /// Keep as trajectory: turns Live off and appends, as one edit of the text, a trajectory
    /// of every body grabbed in the last live run along its recorded path.
    pub fn keep_trajectory(&self) {
        self.stop_live();
        let Some(run) = self.last_run.borrow().clone() else {
            self.say("There is no live run to keep: press Live first.");
            return;
        };
        let kept = {
            let Some(scene) = self.editor.session.scene() else {
                self.say("The text has an error: fix it, then keep the live run.");
                return;
            };
            let text = self.editor.session.text().to_owned();
            run.keep(&text, &scene)
        };
        match kept {
            Ok(text) => {
                self.last_run.borrow_mut().take();
                self.editor.session.set_text(text, Some(self.view_id));
                self.live_changed();
                self.say("The live run is kept: its trajectories are at the end of the text.");
            }
            Err(e) => self.say(&e),
        }
    }

    // --- the view --------------------------------------------------------------------------

    /// The viewer's own camera, taken from the last picture when it followed the scene's.
    fn own_camera(&self) -> Option<Camera> {
        match self.view.get() {
            ViewSource::Own(camera) => Some(camera),
            _ => self.last_frame.borrow().as_ref().map(|f| f.camera),
        }
    }

    fn move_view(&self, change: impl FnOnce(&mut Camera)) {
        if let Some(mut camera) = self.own_camera() {
            change(&mut camera);
            self.view.set(ViewSource::Own(camera));
            self.redraw();
        }
    }

    /// The `c` key: the centre of rotation and scaling moves to the vertex or handle under the
    /// pointer, or to the point under it midway in depth (4.1.7).
    pub fn centre_at_pointer(&self) {
        let Some(pointer) = self.pointer.get() else {
            return;
        };
        let viewport = self.gl().viewport();
        let centre = {
            let frame = self.last_frame.borrow();
            let prepared = self.prepared.borrow();
            let (Some(frame), Some(prepared)) = (frame.as_ref(), prepared.as_ref()) else {
                return;
            };
            pick::rotation_centre(
                frame,
                prepared.frames.meshes(),
                &viewport,
                pointer,
                pick::CENTRE_SNAP_PIXELS,
            )
        };
        self.move_view(|camera| camera.set_centre(centre));
    }

    // --- the mouse -------------------------------------------------------------------------

    pub fn pointer_moved(&self, at: Point2<f64>) {
        self.pointer.set(Some(at));
        // The body under the pointer is highlighted, unless a gesture is under way.
        let hovered = if self.gesture.borrow().is_none() {
            self.body_at(at).map(|click| click.body)
        } else {
            None
        };
        self.set_hovered(hovered);
    }

    /// The pointer left the picture: no body is under it.
    pub fn pointer_left(&self) {
        self.pointer.set(None);
        self.set_hovered(None);
    }

    fn set_hovered(&self, body: Option<usize>) {
        let changed = {
            let mut options = self.options.borrow_mut();
            let changed = options.hovered_body != body;
            options.hovered_body = body;
            changed
        };
        if changed {
            self.redraw();
        }
    }

    pub fn set_free(&self, free: bool) {
        self.free.set(free);
    }

    /// A button went down at `at` (picture pixels).
    pub fn press(&self, button: u32, shift: bool, at: Point2<f64>) {
        use crate::ui::view_mouse::{LEFT, MIDDLE, RIGHT};
        self.press.set(at);
        self.pointer.set(Some(at));
        let gesture = match (button, shift) {
            (LEFT, true) if self.is_live() => self.start_pull(at),
            // Live runs the text as it is: no handle edits it meanwhile.
            (MIDDLE | RIGHT, true) if self.is_live() => None,
            (LEFT, false) if self.editor.prompt_instruction().is_some() => {
                Some(Gesture::Click(ClickAction::Prompt))
            }
            (LEFT, true) => match self.handle_at(at, None) {
                Some(handle) => self.start_handle_drag(handle),
                None => Some(Gesture::Click(ClickAction::Select)),
            },
            (MIDDLE, true) => self
                .handle_at(at, Some(HandleKind::TrajectoryPoint))
                .and_then(|handle| {
                    point_ref(handle.target).map(|at| Gesture::NewPoint { at, handle })
                }),
            (RIGHT, true) => self
                .handle_at(at, Some(HandleKind::TrajectoryPoint))
                .and_then(|h| point_ref(h.target))
                .map(|p| Gesture::Click(ClickAction::DeletePoint(p))),
            (_, false) => ViewDrag::for_button(button).map(|how| Gesture::View { how, last: at }),
            _ => None,
        };
        *self.gesture.borrow_mut() = gesture;
    }

    /// The visible handle nearest to `at` (of `kind`, if given).
    fn handle_at(&self, at: Point2<f64>, kind: Option<HandleKind>) -> Option<Handle> {
        let (camera, viewport) = self.camera_and_viewport()?;
        let candidates: Vec<Handle> = self
            .visible_handles()
            .into_iter()
            .map(|(_, h)| h)
            .filter(|h| kind.is_none_or(|k| h.kind == k))
            .collect();
        let i = nearest_handle(&candidates, &camera, &viewport, at, PICK_RADIUS)?;
        Some(candidates[i].clone())
    }

    fn start_handle_drag(&self, handle: Handle) -> Option<Gesture> {
        if !handle.editable {
            self.say(&format!(
                "{} cannot be edited graphically: it is not a literal of a command that created only this element.",
                handle.label
            ));
            return None;
        }
        if handle.kind == HandleKind::TrajectoryPoint {
            let name = self.editor.session.scene().and_then(|s| {
                point_ref(handle.target)
                    .and_then(|p| s.trajectories.get(p.trajectory).map(|t| t.name.clone()))
            });
            self.set_editing_trajectory(name);
        }
        self.editor.session.begin_drag();
        self.show_value(Some(handle.label.clone()));
        self.highlight(Some(handle.target));
        Some(Gesture::Handle { handle })
    }

    fn highlight(&self, target: Option<Target>) {
        let index = target.and_then(|t| self.handles().iter().position(|h| h.target == t));
        self.options.borrow_mut().highlighted_handle = index;
    }

    fn show_value(&self, value: Option<String>) {
        if let Some(w) = self.widgets() {
            w.value.set_text(value.as_deref().unwrap_or(""));
            w.value.set_visible(value.is_some());
        }
    }

    /// The pointer moved to `at` with a button down.
    pub fn drag_to(&self, at: Point2<f64>) {
        self.pointer.set(Some(at));
        let gesture = self.gesture.borrow().clone();
        match gesture {
            Some(Gesture::View { how, last }) => {
                let viewport = self.gl().viewport();
                self.move_view(|camera| how.apply(camera, last, at, &viewport));
                *self.gesture.borrow_mut() = Some(Gesture::View { how, last: at });
            }
            Some(Gesture::Handle { handle }) => self.drag_handle(handle, at),
            Some(Gesture::Pull(plane)) => self.pull_to(plane, at),
            Some(Gesture::NewPoint { at: point, handle }) => {
                if (at - self.press.get()).norm() > CLICK_SLOP {
                    self.new_point(point, handle, at);
                }
            }
            Some(Gesture::Click(_)) | None => {}
        }
    }

    /// Moves the dragged handle under the pointer and writes its value into the text.
    fn drag_handle(&self, mut handle: Handle, at: Point2<f64>) {
        let Some((camera, viewport)) = self.camera_and_viewport() else {
            return;
        };
        let drag = Drag {
            ray: pointer_ray(&camera, &viewport, at),
            screen_normal: camera.view_direction().into_inner(),
            free: self.free.get(),
        };
        let edit = {
            let prepared = self.prepared.borrow();
            let Some(prepared) = prepared.as_ref() else {
                return;
            };
            handle.drag(&drag, prepared.frames.shapes())
        };
        match edit {
            Ok(edit) => {
                handle.position = edit.position;
                *self.gesture.borrow_mut() = Some(Gesture::Handle {
                    handle: handle.clone(),
                });
                match self
                    .editor
                    .session
                    .edit(edit.target, edit.value, Some(self.view_id))
                {
                    Ok(()) => {
                        let label = self
                            .handles()
                            .into_iter()
                            .find(|h| h.target == edit.target)
                            .map(|h| h.label);
                        self.show_value(label);
                        self.highlight(Some(edit.target));
                    }
                    Err(e) => self.say(&e.reason),
                }
            }
            Err(e) => self.say(&e.to_string()),
        }
    }

    /// The `z` and `x` keys: pushes the dragged handle into the screen or out of it.
    pub fn push_handle(&self, into: bool) {
        let Some(Gesture::Handle { mut handle }) = self.gesture.borrow().clone() else {
            return;
        };
        let (Some((camera, _)), Some(pointer)) = (self.camera_and_viewport(), self.pointer.get())
        else {
            return;
        };
        let eye = camera.eye().coords;
        let step = 0.05 * (handle.position - eye).norm();
        let direction = camera.view_direction().into_inner();
        handle.position += direction * if into { step } else { -step };
        self.drag_handle(handle, pointer);
    }

    /// A middle drag from a trajectory point: makes a new point before or after it, whichever
    /// way the pointer went along the curve, and drags it (4.1.4).
    fn new_point(&self, at: PointRef, handle: Handle, pointer: Point2<f64>) {
        let Some((camera, viewport)) = self.camera_and_viewport() else {
            return;
        };
        let seen = |p: nalgebra::Vector3<f64>| {
            camera
                .project(&Point3::from(p), &viewport)
                .map(|s| nalgebra::Vector2::new(s.x, s.y))
        };
        let (text, result) = {
            let Some(scene) = self.editor.session.scene() else {
                return;
            };
            let points = &scene.trajectories[at.trajectory].pieces[at.piece].points;
            let here = points[at.point].pos;
            let along = match (points.get(at.point + 1), at.point.checked_sub(1)) {
                (Some(next), _) => seen(next.pos).zip(seen(here)).map(|(a, b)| a - b),
                (None, Some(before)) => {
                    seen(here).zip(seen(points[before].pos)).map(|(a, b)| a - b)
                }
                (None, None) => None,
            };
            let motion = pointer - self.press.get();
            let after = along.is_none_or(|t| t.dot(&motion) >= 0.0);
            let ray = pointer_ray(&camera, &viewport, pointer);
            let drag = Drag {
                ray,
                screen_normal: camera.view_direction().into_inner(),
                free: true,
            };
            let position = self
                .prepared
                .borrow()
                .as_ref()
                .and_then(|p| handle.drag(&drag, p.frames.shapes()).ok())
                .map_or(here, |e| e.position);
            let text = self.editor.session.text().to_owned();
            let result = insert_control_point(&text, &scene, at, after, position);
            (text, result)
        };
        drop(text);
        match result {
            Ok((new_text, index)) => {
                self.editor.session.begin_drag();
                self.editor.session.set_text(new_text, Some(self.view_id));
                let target = Target::ControlPoint {
                    trajectory: at.trajectory,
                    piece: at.piece,
                    point: index,
                };
                let new = self.handles().into_iter().find(|h| h.target == target);
                match new {
                    Some(handle) => {
                        self.show_value(Some(handle.label.clone()));
                        self.highlight(Some(target));
                        *self.gesture.borrow_mut() = Some(Gesture::Handle { handle });
                    }
                    None => {
                        self.editor.session.end_drag();
                        *self.gesture.borrow_mut() = None;
                    }
                }
            }
            Err(e) => {
                self.say(&e.reason);
                *self.gesture.borrow_mut() = None;
            }
        }
    }

    /// The button came up at `at`.
    pub fn release(&self, at: Point2<f64>) {
        let gesture = self.gesture.borrow_mut().take();
        let still = (at - self.press.get()).norm() <= CLICK_SLOP;
        match gesture {
            Some(Gesture::Handle { .. }) => {
                self.editor.session.end_drag();
                self.show_value(None);
                self.highlight(None);
                self.redraw();
            }
            Some(Gesture::Click(action)) if still => self.click(action, at),
            Some(Gesture::Pull(_)) => {
                if let Some(run) = self.live.borrow().as_ref() {
                    run.release();
                }
            }
            _ => {}
        }
    }

    fn click(&self, action: ClickAction, at: Point2<f64>) {
        match action {
            ClickAction::Prompt => {
                if let Some(click) = self.click_at(at) {
                    self.editor.prompt_click(&click);
                }
            }
            ClickAction::Select => {
                if let Some(hit) = self.body_at(at) {
                    let name = self
                        .editor
                        .session
                        .scene()
                        .and_then(|s| s.bodies.get(hit.body).map(|b| b.name.clone()));
                    if let Some(name) = name {
                        self.editor.toggle_selected(&name);
                    }
                }
            }
            ClickAction::DeletePoint(point) => {
                let result = {
                    let Some(scene) = self.editor.session.scene() else {
                        return;
                    };
                    let text = self.editor.session.text().to_owned();
                    delete_control_point(&text, &scene, point)
                };
                match result {
                    Ok(text) => self.editor.session.set_text(text, Some(self.view_id)),
                    Err(e) => self.say(&e.reason),
                }
            }
        }
    }

    /// The body under `at` as drawn now.
    fn body_at(&self, at: Point2<f64>) -> Option<BodyClick> {
        let (camera, viewport) = self.camera_and_viewport()?;
        let scene = self.editor.session.scene()?;
        let prepared = self.prepared.borrow();
        let prepared = prepared.as_ref()?;
        let ray = pointer_ray(&camera, &viewport, at);
        let (motion, time) = self.states_now();
        let initial = InitialStates { scene: &scene };
        let states: &dyn BodyStates = match &motion {
            Some(m) => m,
            None => &initial,
        };
        let hit = body_under(prepared.frames.shapes(), states, time, &ray)?;
        let state = states
            .body_state(hit.body, time)
            .or_else(|| initial.body_state(hit.body, 0.0))?;
        Some(BodyClick {
            body: hit.body,
            local: state.to_body(&hit.hit.point),
            world: hit.hit.point,
        })
    }

    /// What a Create command needs to know about a click at `at`.
    fn click_at(&self, at: Point2<f64>) -> Option<Click> {
        let (camera, viewport) = self.camera_and_viewport()?;
        let body = self.body_at(at);
        let depth = -camera.to_eye(&camera.centre).z;
        let point = body.map_or_else(
            || camera.unproject_at_depth(at, depth, &viewport).coords,
            |b| b.world,
        );
        let trajectory = {
            let all: Vec<Handle> = self
                .handles()
                .into_iter()
                .filter(|h| h.kind == HandleKind::TrajectoryPoint)
                .collect();
            nearest_handle(&all, &camera, &viewport, at, PICK_RADIUS)
                .and_then(|i| point_ref(all[i].target))
                .map(|p| p.trajectory)
        };
        Some(Click {
            point,
            body,
            trajectory,
            time: self.time.get(),
        })
    }

    // --- trajectories ----------------------------------------------------------------------

    pub fn editing_trajectory(&self) -> Option<String> {
        self.editing_trajectory.borrow().clone()
    }

    pub fn set_editing_trajectory(&self, name: Option<String>) {
        if *self.editing_trajectory.borrow() != name {
            *self.editing_trajectory.borrow_mut() = name;
            if let Some(w) = self.widgets() {
                (w.on_trajectory)();
            }
        }
    }

    /// The labels to draw next to handles: the angular velocities (whose size cannot be read
    /// off a vector, 4.1.2) and the times of the edited trajectory's points (4.1.4).
    pub fn labels(&self) -> Vec<(Point2<f64>, String)> {
        let Some((camera, viewport)) = self.camera_and_viewport().filter(|_| !self.is_live())
        else {
            return Vec::new();
        };
        let shown = self.options.borrow().handles.clone();
        let editing = self.editing_trajectory();
        let trajectory_index = editing.as_ref().and_then(|name| {
            self.editor
                .session
                .scene()
                .and_then(|s| s.trajectories.iter().position(|t| &t.name == name))
        });
        self.handles()
            .into_iter()
            .filter(|h| match h.kind {
                HandleKind::AngularVelocity => shown.contains(&h.kind),
                HandleKind::TrajectoryPoint => {
                    point_ref(h.target).map(|p| p.trajectory) == trajectory_index
                        && trajectory_index.is_some()
                }
                _ => false,
            })
            .take(MAX_LABELS)
            .filter_map(|h| {
                let seen = camera.project(&Point3::from(h.position), &viewport)?;
                Some((Point2::new(seen.x, seen.y), h.label))
            })
            .collect()
    }
}

impl Viewer {
    /// Where the bodies go over the motion computed so far (the initial state without
    /// motion), so the ground stays put under them while they move; found again only when
    /// the motion has grown by a tenth of the simulated span, or is complete.
    fn stage(&self, scene: &Scene, frames: &SceneFrames) -> Option<Bounds> {
        let (start, finish) = (scene.simulator.start, scene.simulator.finish);
        let motion = self.motion();
        let until = motion
            .as_ref()
            .map_or(start, |m| m.complete_until())
            .clamp(start, finish);
        let grown =
            |at: f64| until - at > 0.1 * (finish - start) || (until >= finish && at < finish);
        if let Some((_, bounds)) = self.stage.get().filter(|(at, _)| !grown(*at)) {
            return bounds;
        }
        let initial = InitialStates { scene };
        let states: &dyn BodyStates = match &motion {
            Some(m) => m,
            None => &initial,
        };
        let bounds = frames.stage(scene, states, start, until);
        self.stage.set(Some((until, bounds)));
        bounds
    }
}

/// The view a viewer without a scene camera starts with: the scene's initial state, as drawn
/// with `options`, fitted into the picture.
pub fn initial_view(
    scene: &Scene,
    frames: &SceneFrames,
    options: &FrameOptions,
    viewport: &Viewport,
) -> Camera {
    let options = FrameOptions {
        camera: CameraChoice::Scene,
        ..options.clone()
    };
    let states = InitialStates { scene };
    frames
        .frame(scene, &states, scene.simulator.start, &options, viewport)
        .camera
}

/// What a new viewer shows: the handles of [`INITIAL_HANDLES`], vectors and links on the
/// ground with every look and the axis gizmo, at handle scales fitted to the scene.
pub fn initial_options(scales: HandleScales) -> FrameOptions {
    FrameOptions {
        handles: INITIAL_HANDLES.to_vec(),
        looks: crate::render::frame::Looks {
            gizmo: true,
            ..crate::render::frame::Looks::ALL
        },
        vectors: true,
        scales,
        ..FrameOptions::default()
    }
}

/// Labels drawn next to handles at most (a scene of many spinning bodies would be unreadable).
const MAX_LABELS: usize = 64;

/// The control point a handle target names.
fn point_ref(target: Target) -> Option<PointRef> {
    match target {
        Target::ControlPoint {
            trajectory,
            piece,
            point,
        } => Some(PointRef {
            trajectory,
            piece,
            point,
        }),
        _ => None,
    }
}

impl Scenery for Viewer {
    fn with_frame(&self, viewport: &Viewport, draw: &mut dyn FnMut(&MeshLibrary, &Frame)) {
        let Some(scene) = self.editor.session.scene() else {
            return;
        };
        let prepared = self.prepared.borrow();
        let Some(prepared) = prepared.as_ref() else {
            return;
        };
        if self.view.get() == ViewSource::Unset {
            self.view
                .set(self.choose_view(&scene, &prepared.frames, viewport));
        }
        let mut options = self.options.borrow().clone();
        options.camera = match self.view.get() {
            ViewSource::Own(camera) => CameraChoice::Given(camera),
            ViewSource::SceneCamera | ViewSource::Unset => CameraChoice::Scene,
        };
        options.stage = self.stage(&scene, &prepared.frames);
        let selection = self.editor.selection();
        options.selected_bodies = scene
            .bodies
            .iter()
            .enumerate()
            .filter(|(_, b)| selection.contains(&b.name))
            .map(|(i, _)| i)
            .collect();
        let (motion, time) = self.states_now();
        let initial = InitialStates { scene: &scene };
        let states: &dyn BodyStates = match &motion {
            Some(m) => m,
            None => &initial,
        };
        let live = self.live.borrow();
        if live.is_some() {
            // Handles edit the initial state, which live motion leaves behind.
            options.handles.clear();
            options.highlighted_handle = None;
        }
        let mut frame = prepared
            .frames
            .frame(&scene, states, time, &options, viewport);
        if let Some(spring) = live.as_ref().and_then(LiveRun::spring_line) {
            frame.lines.push(Line {
                from: Point3::from(spring.from),
                to: Point3::from(spring.to),
                colour: palette::PULL_SPRING,
            });
        }
        drop(live);
        self.export_view(&frame, viewport);
        draw(prepared.frames.meshes(), &frame);
        *self.last_frame.borrow_mut() = Some(frame);
    }
}
