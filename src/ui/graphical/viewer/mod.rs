//! What a graphical viewer knows and does, apart from its widgets: the scene prepared for
//! drawing, its own view and time, playback, and the drags that edit the scene through the
//! session (4.1).
//!
//! Every viewer has its own spatial and temporal viewpoint. Bodies are drawn where the
//! computed motion puts them at the viewer's time — or where the text puts them, while there is
//! no motion for the current text. Handles always edit the initial state (4.1.2), so they are
//! drawn there.
//!
//! The viewer is a shell over the view layer (`crate::view`), which it shares with the
//! slave's renditions: its camera is a [`ViewCamera`], its time a
//! [`Transport`](crate::view::transport::Transport) ([`transport`]), its mouse and keys go
//! through the [`Gestures`] machine ([`pointer`]), and Live runs a
//! [`LiveRun`](crate::view::live::LiveRun) ([`live`]). Here are the scene it draws and the
//! widgets it tells.

mod live;
mod pointer;
mod transport;

use crate::live::SystemClock;
use crate::render::camera::{Bounds, Camera, Viewport};
use crate::render::frame::{Frame, Line};
use crate::render::mesh::MeshLibrary;
use crate::render::scene_frame::{
    palette, CameraChoice, FrameOptions, SampledMotion, SceneFrames, Stage, ViewSettings,
};
use crate::scene::handles::{handles, Handle, HandleKind, HandleScales};
use crate::scene::state::{BodyStates, InitialStates};
use crate::scene::{Scene, Target};
use crate::session::{Event, ViewId};
use crate::sim::physics::SceneMotion;
use crate::ui::editor::{Editor, ExportView};
use crate::ui::gl_view::{GlView, Scenery};
use crate::ui::scene_text::{write_camera, CameraView, PointRef};
use crate::view::camera::{CameraUse, ViewCamera};
use crate::view::gesture::Gestures;
use crate::view::live::{FinishedRun, LiveRun};
use crate::view::transport::Transport;
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
    /// Told when the playing rate changes (negative: backwards).
    pub on_rate: Box<dyn Fn(f64)>,
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
    view: Cell<ViewCamera>,
    /// The time shown (the transport's at the last frame while playing).
    time: Cell<f64>,
    transport: RefCell<Transport>,
    /// The frame callback that advances playback, while it runs.
    ticking: RefCell<Option<gtk::TickCallbackId>>,
    clock: RefCell<SystemClock>,
    /// What the picture shows besides the bodies.
    pub options: RefCell<FrameOptions>,
    gestures: RefCell<Gestures>,
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
    /// Where the bodies go over the motion computed so far, kept through edits until the
    /// new motion is complete: the ground lies under it (see [`Viewer::stage`]).
    stage: RefCell<Stage>,
    /// The stage's samples are to be taken when the main loop is idle.
    stage_sampling: Cell<bool>,
    /// The bodies of the scene last prepared, by name, and whether it had a camera: a fitted
    /// view is fitted again when a body or the camera comes or goes, so a new body is in sight
    /// and a new camera is looked through.
    fitted_for: RefCell<(Vec<String>, bool)>,
    /// Whether the status under the picture tells of an error in the text.
    said_text_error: Cell<bool>,
}

/// The handle kinds shown in a new viewer.
pub const INITIAL_HANDLES: [HandleKind; 11] = [
    HandleKind::BodyPosition,
    // A new trajectory is seen, with its points ready to drag, without ticking anything.
    HandleKind::TrajectoryPoint,
    HandleKind::Velocity,
    HandleKind::ForceBase,
    HandleKind::ForceHead,
    HandleKind::TorqueHead,
    HandleKind::LinkEnd,
    HandleKind::LightPosition,
    HandleKind::LightDirection,
    // The camera, in a view that does not look through it.
    HandleKind::CameraPosition,
    HandleKind::CameraTarget,
];

impl Viewer {
    pub fn new(editor: Rc<Editor>) -> Rc<Viewer> {
        let view_id = editor.session.new_view_id();
        let settings = editor.session.simulator_settings();
        let start = settings.start;
        let options = initial_options(HandleScales::default());
        let viewer = Rc::new_cyclic(|me| Viewer {
            me: me.clone(),
            editor,
            view_id,
            gl: OnceCell::new(),
            widgets: OnceCell::new(),
            prepared: RefCell::new(None),
            scales: Cell::new(None),
            view: Cell::new(ViewCamera::default()),
            time: Cell::new(start),
            transport: RefCell::new(Transport::new(start, settings.finish)),
            ticking: RefCell::new(None),
            clock: RefCell::new(SystemClock::new()),
            options: RefCell::new(options),
            gestures: RefCell::new(Gestures::default()),
            editing_trajectory: RefCell::new(None),
            last_frame: RefCell::new(None),
            live: RefCell::new(None),
            live_ticking: RefCell::new(None),
            last_run: RefCell::new(None),
            live_slowdown: RefCell::new(None),
            stage: RefCell::new(Stage::default()),
            stage_sampling: Cell::new(false),
            fitted_for: RefCell::new((Vec::new(), false)),
            said_text_error: Cell::new(false),
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
        self.stage.borrow_mut().restart();
        let Some(scene) = self.editor.session.scene() else {
            self.stage.borrow_mut().forget();
            *self.prepared.borrow_mut() = None;
            return;
        };
        // A view the user did not move follows a camera given to the scene (typed in the
        // control panel, or kept by another viewer), and fits again without one.
        let bodies: Vec<String> = scene.bodies.iter().map(|b| b.name.clone()).collect();
        let seen = (bodies, scene.camera.is_some());
        if *self.fitted_for.borrow() != seen {
            // Bodies came or went: the stage is this scene's alone.
            self.stage.borrow_mut().forget();
            self.refit();
            *self.fitted_for.borrow_mut() = seen;
        }
        match SceneFrames::new(&scene) {
            Ok(frames) => {
                let dragging = self.gestures.borrow().handle().is_some();
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
                if self.said_text_error.take() {
                    self.say("");
                }
                self.prepare();
                self.keep_selection_valid();
                self.span_changed();
                self.redraw();
            }
            Event::SimulationStarted => {
                self.stage.borrow_mut().restart();
                self.redraw();
            }
            Event::SimulationProgress(_) | Event::SimulationFinished => {
                if self.transport.borrow().is_playing() {
                    // Playback waiting at the horizon goes on at its next frame.
                    self.redraw();
                }
                // The picture's ground follows the motion as it grows, without a picture.
                self.sample_stage_when_idle();
            }
            Event::SceneError(_) => self.tell_text_error(),
            Event::TextChanged { .. } | Event::SimulationFailed(_) | Event::FileChanged => {}
        }
    }

    /// Says under the picture that the text has an error and where, since the picture shows
    /// the last scene that evaluated (nothing, when none has).
    pub fn tell_text_error(&self) {
        if let Some(error) = self.editor.session.error() {
            let shown = if self.editor.session.scene().is_some() {
                "the picture shows the scene before it"
            } else {
                "nothing can be shown until it is corrected"
            };
            self.say(&format!(
                "The text has an error at line {}, column {} ({shown}): correct it in the \
                 language viewer and press Update.",
                error.at.line, error.at.column
            ));
            self.said_text_error.set(true);
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

    /// The handles of the kinds shown in the last picture, with their indices in
    /// [`Viewer::handles`].
    fn visible_handles(&self) -> Vec<(usize, Handle)> {
        let options = self.options.borrow();
        self.prepared
            .borrow()
            .as_ref()
            .map(|p| {
                p.handles
                    .iter()
                    .enumerate()
                    .filter(|(_, h)| options.shows_handles(h.kind))
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

    /// The camera of the next picture: the view's, the scene's, or the default fitted now to
    /// the initial state the handles edit.
    fn camera_choice(
        &self,
        scene: &Scene,
        frames: &SceneFrames,
        viewport: &Viewport,
    ) -> CameraChoice {
        let has_camera = scene.camera.is_some();
        let mut view = self.view.get();
        let choice = match view.next(has_camera) {
            CameraUse::Given(camera) => CameraChoice::Given(camera),
            CameraUse::Scene => CameraChoice::Scene,
            CameraUse::Fit => {
                let camera = initial_view(scene, frames, &self.options.borrow(), viewport);
                view.fitted(camera, has_camera);
                CameraChoice::Given(camera)
            }
        };
        self.view.set(view);
        choice
    }

    /// Fits the default view again at the next picture, unless the user moved the view, or a
    /// handle drag or a live run is under way (the view stays while they last).
    fn refit(&self) {
        if self.gestures.borrow().handle().is_some() || self.is_live() {
            return;
        }
        let mut view = self.view.get();
        view.refit();
        self.view.set(view);
    }

    /// Goes back to the view the viewer started with: the scene's camera, or the bodies
    /// fitted into the picture.
    pub fn reset_view(&self) {
        let mut view = self.view.get();
        view.reset();
        self.view.set(view);
        self.redraw();
    }

    /// Keep this view: writes the view shown into the text as the scene's camera (one
    /// undoable edit), so every viewer's default view and the host's renditions start from
    /// it; this viewer then follows the scene's camera.
    pub fn keep_view(&self) {
        let Some(camera) = self.view.get().last_shown() else {
            self.say("Nothing is shown yet to keep.");
            return;
        };
        let settings = ViewSettings::of(&camera);
        let view = CameraView {
            pos: settings.pos,
            rot: settings.rot,
            center: settings.centre,
            scale: settings.scale,
        };
        let kept = {
            let Some(scene) = self.editor.session.scene() else {
                self.say("The text has an error: fix it, then keep the view.");
                return;
            };
            let text = self.editor.session.text().to_owned();
            write_camera(&text, &scene, &view)
        };
        match kept {
            Ok(text) => {
                self.editor.session.set_text(text, None);
                self.reset_view();
                self.say("Kept this view as the scene's camera.");
            }
            Err(e) => self.say(&format!("Cannot keep this view: {}", e.reason)),
        }
    }

    /// Offers this viewer's view for exports, when its window is active or nothing else
    /// offers one; `follows_scene` when the view is the scene's camera.
    fn export_view(&self, frame: &Frame, viewport: &Viewport, follows_scene: bool) {
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
            options.camera = if follows_scene {
                CameraChoice::Scene
            } else {
                CameraChoice::Given(frame.camera)
            };
            self.editor.set_export_view(ExportView {
                camera: frame.camera,
                time: self.time.get(),
                options,
                size: (viewport.width as u32, viewport.height as u32),
            });
        }
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
        // Read in place: the scene's handles (6,593 in the 1,000-pendulum rig) are not copied
        // for the few that carry labels, at every paint.
        let prepared = self.prepared.borrow();
        let Some(prepared) = prepared.as_ref() else {
            return Vec::new();
        };
        prepared
            .handles
            .iter()
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
                Some((Point2::new(seen.x, seen.y), h.label.clone()))
            })
            .collect()
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

/// What a new viewer shows: the handles of [`INITIAL_HANDLES`], vectors, trajectories and
/// links on the ground with every look and the axis gizmo, at handle scales fitted to the
/// scene.
pub fn initial_options(scales: HandleScales) -> FrameOptions {
    FrameOptions {
        handles: INITIAL_HANDLES.to_vec(),
        looks: crate::render::frame::Looks {
            gizmo: true,
            ..crate::render::frame::Looks::ALL
        },
        vectors: true,
        trajectories: true,
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

impl Viewer {
    /// Where the bodies go over the motion computed so far (the initial state without
    /// motion), so the ground stays put under them while they move: after an edit, the
    /// stage shown before it, grown by the new motion's samples taken so far, and the samples
    /// due taken when the main loop is idle ([`Viewer::sample_stage`]); for a viewer that
    /// has shown no stage, sampled now ([`Stage`]).
    fn stage(&self, scene: &Scene, frames: &SceneFrames) -> Option<Bounds> {
        self.with_stage_states(scene, |states, span, until| {
            let mut stage = self.stage.borrow_mut();
            let shown = stage
                .without_sampling(frames, scene, span, until)
                .unwrap_or_else(|| stage.update(frames, scene, states, span, until));
            if stage.behind(span, until) {
                self.sample_stage_when_idle();
            }
            shown
        })
    }

    /// Takes the stage's samples ([`Viewer::sample_stage`]) when the main loop is idle, once
    /// however often asked before then.
    fn sample_stage_when_idle(&self) {
        if self.stage_sampling.replace(true) {
            return;
        }
        let me = self.me.clone();
        glib::idle_add_local_once(move || {
            if let Some(viewer) = me.upgrade() {
                viewer.stage_sampling.set(false);
                viewer.sample_stage();
            }
        });
    }

    /// Takes the stage's samples that the motion has reached, and draws again when that
    /// changed the stage.
    fn sample_stage(&self) {
        let Some(scene) = self.editor.session.scene() else {
            return;
        };
        let prepared = self.prepared.borrow();
        let Some(prepared) = prepared.as_ref() else {
            return;
        };
        let changed = self.with_stage_states(&scene, |states, span, until| {
            let mut stage = self.stage.borrow_mut();
            let shown = stage.shown();
            stage.update(&prepared.frames, &scene, states, span, until) != shown
        });
        if changed {
            self.redraw();
        }
    }

    /// Calls `f` with the states the stage samples (the motion drawn, or the initial state
    /// without one), the simulated span, and up to when the states are computed (the span's
    /// start for the initial state).
    fn with_stage_states<R>(
        &self,
        scene: &Scene,
        f: impl FnOnce(&dyn BodyStates, (f64, f64), f64) -> R,
    ) -> R {
        let (start, finish) = (scene.simulator.start, scene.simulator.finish);
        let motion = self.motion();
        let until = motion
            .as_ref()
            .map_or(start, |m| m.complete_until())
            .clamp(start, finish);
        let initial = InitialStates { scene };
        let sampled = motion.as_ref().map(SampledMotion::new);
        let states: &dyn BodyStates = match &sampled {
            Some(m) => m,
            None => &initial,
        };
        f(states, (start, finish), until)
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
        let camera = self.camera_choice(&scene, &prepared.frames, viewport);
        let follows_scene = camera == CameraChoice::Scene;
        // Kept, so the handles picked are those of this picture (the camera's are left out of
        // a view through the scene's camera).
        self.options.borrow_mut().camera = camera;
        let mut options = self.options.borrow().clone();
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
        // Each body is read a few times (its pose, its arrows, its links' ends).
        let sampled = motion.as_ref().map(SampledMotion::new);
        let states: &dyn BodyStates = match &sampled {
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
        self.export_view(&frame, viewport, follows_scene);
        draw(prepared.frames.meshes(), &frame);
        let mut view = self.view.get();
        view.shown(frame.camera);
        self.view.set(view);
        *self.last_frame.borrow_mut() = Some(frame);
    }
}
