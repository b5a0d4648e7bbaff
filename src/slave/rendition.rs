//! One rendition on the slave's main thread: an off-screen GL target, the shared frame memory
//! it is copied into, and a view (`crate::view`): its camera, its gestures, its transport or
//! a live run (its mode).
//!
//! The rendition is a thin shell over the view layer: forwarded pointer events, the wheel and
//! keys go to the same [`Gestures`] and key map as the editor's graphical viewer, and it
//! applies to itself what they do to the view and the live run ([`Rendition::pointer`]); the
//! edits of the scene go back to the subdocument. In live mode the rendition owns a
//! [`LiveRun`] and draws the run's current states with the pull spring as a line; the
//! transport waits, paused where it was, and plays on from there when the rendition returns
//! to playback.

use crate::ipc::frames::FrameError;
use crate::ipc::{FrameInfo, FrameWriter, PlaybackMode, PointerKind, RenditionSize};
use crate::render::camera::{Bounds, Camera, Viewport};
use crate::render::frame::{Frame, Line};
use crate::render::offscreen::OffscreenTarget;
use crate::render::pick::{body_under, pointer_ray, rotation_centre, CENTRE_SNAP_PIXELS};
use crate::render::scene_frame::{frame_times, palette, CameraChoice, FrameOptions, SceneFrames};
use crate::scene::handles::{Handle, HandleKind};
use crate::scene::model::Scene;
use crate::scene::state::{BodyStates, InitialStates};
use crate::sim::physics::SceneMotion;
use crate::view::camera::{CameraUse, ViewCamera};
use crate::view::gesture::{Effect, Gestures, Situation};
use crate::view::live::{LiveRun, PullPlane, ScreenDirection};
use crate::view::transport::Transport;
use nalgebra::{Point2, Point3};
use std::time::Duration;

use super::picture::Picture;

/// Frame buffers in each rendition's memory: one being written, one announced, one a slow
/// host may still be copying.
const BUFFERS: u32 = 3;

/// Body positions sampled over the computed motion to fit the default view.
const FIT_SAMPLES: f64 = 24.0;

/// What a rendition draws: the scene as the session has it now.
pub struct Scenery<'a> {
    pub scene: &'a Scene,
    pub motion: Option<&'a SceneMotion>,
    /// `None` when the scene's shapes cannot be drawn; then the picture is empty.
    pub picture: Option<&'a Picture>,
    /// The kinds of handle shown.
    pub handles: &'a [HandleKind],
    /// The handle being dragged, an index into the picture's handles.
    pub highlighted: Option<usize>,
}

/// A rendition in live mode.
struct Live {
    run: LiveRun,
    /// Whether the playback clock was playing when live mode began, and plays on after it.
    resume: bool,
}

pub struct Rendition {
    target: OffscreenTarget,
    frames: FrameWriter,
    pub transport: Transport,
    /// `Some` in live mode.
    live: Option<Live>,
    view: ViewCamera,
    gestures: Gestures,
    /// The last frame drawn, for the `c` key's centre under the pointer.
    last_frame: Option<Frame>,
    /// Something changed that a paused rendition must show.
    dirty: bool,
    /// The `LiveRate` last announced.
    announced_rate: f64,
    /// Where the bodies go over the computed motion, once found: the ground lies under it.
    stage: Option<Option<Bounds>>,
}

impl Rendition {
    /// A paused rendition of `size` for an animation from `start` to `finish` seconds.
    pub fn new(size: RenditionSize, start: f64, finish: f64) -> Result<Rendition, String> {
        let target = OffscreenTarget::new(size.width(), size.height())
            .map_err(|e| format!("cannot draw off-screen: {e}"))?;
        // Not current until it draws, as after every frame: GTK makes an editor window's
        // context current on this thread, and the two may not be current at once.
        target.release_current();
        let frames = memory(size)?;
        Ok(Rendition {
            target,
            frames,
            transport: Transport::new(start, finish),
            live: None,
            view: ViewCamera::default(),
            gestures: Gestures::default(),
            last_frame: None,
            dirty: true,
            announced_rate: 1.0,
            stage: None,
        })
    }

    pub fn size(&self) -> (u32, u32) {
        self.target.size()
    }

    pub fn frames(&self) -> &FrameWriter {
        &self.frames
    }

    /// New frame memory and pictures of `size`; the old memory is retired.
    pub fn resize(&mut self, size: RenditionSize) -> Result<(), String> {
        self.target
            .resize(size.width(), size.height())
            .map_err(|e| format!("cannot draw at the new size: {e}"))?;
        self.target.release_current();
        self.frames = memory(size)?;
        self.refit();
        Ok(())
    }

    /// Draw the next frame even when paused.
    pub fn touch(&mut self) {
        self.dirty = true;
    }

    /// Whether a frame is due.
    pub fn wants_frame(&self) -> bool {
        self.dirty || self.transport.is_playing() || self.live.is_some()
    }

    pub fn mode(&self) -> PlaybackMode {
        match self.live {
            Some(_) => PlaybackMode::Live,
            None => PlaybackMode::Playback,
        }
    }

    /// Runs `scene` live from its start time, at real time `now`. A rendition already live
    /// starts again with the new scene; one in playback pauses its clock where it is. Any
    /// pull in progress ends.
    pub fn go_live(&mut self, scene: &Scene, now: Duration) -> Result<(), String> {
        let run = LiveRun::start(scene)?;
        let resume = match self.live.take() {
            Some(live) => live.resume,
            None => {
                let playing = self.transport.is_playing();
                self.transport.pause(now);
                playing
            }
        };
        self.live = Some(Live { run, resume });
        self.gestures.end_pull();
        self.dirty = true;
        Ok(())
    }

    /// Back to playback, which goes on where it was when live mode began (playing if it
    /// was). Nothing happens in playback mode.
    pub fn leave_live(&mut self, now: Duration) {
        if let Some(live) = self.live.take() {
            if live.resume {
                self.transport.play(now);
            }
            self.gestures.end_pull();
            self.dirty = true;
        }
    }

    /// `LiveRate`: 1 unless a live run could not keep pace with real time over the last
    /// second; then the simulated time it managed per real time, to two significant digits.
    pub fn live_rate(&self) -> f64 {
        match &self.live {
            Some(live) if live.run.rate().slowed => live.run.rate().rounded().0,
            _ => 1.0,
        }
    }

    /// The `LiveRate` to announce, when it is not the one announced last.
    pub fn live_rate_change(&mut self) -> Option<f64> {
        let rate = self.live_rate();
        (rate != self.announced_rate).then(|| {
            self.announced_rate = rate;
            rate
        })
    }

    /// The live run, in live mode.
    pub fn live_run(&mut self) -> Option<&mut LiveRun> {
        self.live.as_mut().map(|live| &mut live.run)
    }

    /// The simulated time shown at real time `now`: the live run's or the playback clock's.
    pub fn time_at(&self, now: Duration) -> f64 {
        match &self.live {
            Some(live) => live.run.states().1,
            None => self.transport.time_at(now),
        }
    }

    /// Whether computed motion is playing (never in live mode).
    pub fn is_playing(&self) -> bool {
        self.transport.is_playing()
    }

    /// Stops playing and drawing (after a failure to draw, or of the live run) until told
    /// otherwise; a live rendition returns to playback, paused.
    pub fn stop(&mut self, now: Duration) {
        self.live = None;
        self.gestures.end_pull();
        self.transport.pause(now);
        self.dirty = false;
    }

    /// Fits the default view again at the next frame, unless the reader moved the view, a
    /// handle is being dragged or a live run is shown (the view stays while they last).
    pub fn refit(&mut self) {
        self.stage = None;
        if self.gestures.handle().is_none() && self.live.is_none() {
            self.view.refit();
        }
        self.dirty = true;
    }

    /// Forgets the reader's view: back to the scene's camera or the fitted default (not
    /// while a handle is dragged).
    pub fn reset_view(&mut self) {
        if self.gestures.handle().is_none() {
            self.view.reset();
        }
        self.dirty = true;
    }

    /// Whether a handle is being dragged.
    pub fn dragging_handle(&self) -> bool {
        self.gestures.handle().is_some()
    }

    pub fn viewport(&self) -> Viewport {
        let (width, height) = self.size();
        Viewport::new(f64::from(width), f64::from(height))
    }

    /// The camera of the last frame, for interpreting pointer positions.
    pub fn shown_camera(&self) -> Camera {
        self.view.last_shown().unwrap_or_default()
    }

    /// Keeps `camera` (which the reader moved) as the view from now on.
    pub fn move_view(&mut self, camera: Camera) {
        self.view.moved(camera);
        self.dirty = true;
    }

    /// A forwarded pointer event at `at` (rendition pixels) over `scenery`: what it does to
    /// the view and the live run is done here; what it does to the scene (a handle drag's
    /// start, edits and end, a refusal to report) is returned, as the gesture machine says.
    /// A failed pull is the message to report.
    pub fn pointer(
        &mut self,
        kind: PointerKind,
        pressed: u32,
        shift: bool,
        at: Point2<f64>,
        scenery: &Scenery<'_>,
    ) -> Result<Effect, String> {
        let camera = self.shown_camera();
        let viewport = self.viewport();
        let effect = match kind {
            PointerKind::Press => {
                let live = self.live.is_some();
                let handles: Vec<Handle> = match (scenery.picture, live) {
                    // Live motion leaves the initial state, which handles edit, behind.
                    (Some(picture), false) => picture
                        .handles
                        .iter()
                        .filter(|h| scenery.handles.contains(&h.kind))
                        .cloned()
                        .collect(),
                    _ => Vec::new(),
                };
                let states = self.live.as_ref().map(|live| live.run.states());
                let body_at = |at: Point2<f64>| {
                    let ((motion, time), picture) = (states.as_ref()?, scenery.picture?);
                    let ray = pointer_ray(&camera, &viewport, at);
                    let hit = body_under(picture.frames.shapes(), motion, *time, &ray)?;
                    Some((hit.body, Point3::from(hit.hit.point)))
                };
                let situation = Situation::new(&camera, &viewport, &handles, &body_at, live);
                self.gestures.press(pressed, shift, at, &situation)
            }
            PointerKind::Motion => match scenery.picture {
                Some(picture) => {
                    let shapes = picture.frames.shapes();
                    match self
                        .gestures
                        .motion(at, &camera, &viewport, scenery.scene, shapes)
                    {
                        // A pointer off the handle's plane leaves the value as it is.
                        Effect::Refused(_) => Effect::Nothing,
                        other => other,
                    }
                }
                None => Effect::Nothing,
            },
            PointerKind::Release => self.gestures.release(pressed, at),
            PointerKind::Enter | PointerKind::Leave => Effect::Nothing,
        };
        self.apply(effect, &camera)
    }

    /// The wheel turned `steps` steps: the view zooms.
    pub fn scroll(&mut self, steps: f64) {
        let effect = self.gestures.scroll(steps, &self.shown_camera());
        let _ = self.apply(effect, &self.shown_camera());
    }

    /// The `c` key: the centre of rotation and scaling moves to what is under the pointer.
    pub fn centre_at_pointer(&mut self, scenery: &Scenery<'_>) {
        let (Some(pointer), Some(frame), Some(picture)) =
            (self.gestures.pointer(), &self.last_frame, scenery.picture)
        else {
            return;
        };
        let viewport = self.viewport();
        let meshes = picture.frames.meshes();
        let centre = rotation_centre(frame, meshes, &viewport, pointer, CENTRE_SNAP_PIXELS);
        let mut camera = self.shown_camera();
        camera.set_centre(centre);
        self.move_view(camera);
    }

    /// The `z` or `x` key: pushes the dragged handle into or out of the screen.
    pub fn push_handle(&mut self, into: bool, scenery: &Scenery<'_>) -> Effect {
        let Some(picture) = scenery.picture else {
            return Effect::Nothing;
        };
        let (camera, viewport) = (self.shown_camera(), self.viewport());
        let shapes = picture.frames.shapes();
        match self.gestures.push_handle(into, &camera, &viewport, shapes) {
            Effect::Refused(_) => Effect::Nothing,
            other => other,
        }
    }

    /// The `a` key went down (`true`) or up.
    pub fn set_free(&mut self, free: bool) {
        self.gestures.set_free(free);
    }

    /// An arrow key went down (`held`) or up: live, pushes the body pulled last.
    pub fn push(&mut self, direction: ScreenDirection, held: bool) -> Result<(), String> {
        let camera = self.shown_camera();
        match self.live_run() {
            Some(run) => run.arrow_key(direction, held, &camera).map(|_| ()),
            None => Ok(()),
        }
    }

    /// Applies to the view and the live run what the gesture machine decided; passes on what
    /// is for the scene.
    fn apply(&mut self, effect: Effect, camera: &Camera) -> Result<Effect, String> {
        match effect {
            Effect::ViewMoved(moved) => self.move_view(moved),
            Effect::Grab { body, at } => {
                let run = self.live_run().ok_or("the rendition is not live")?;
                // A refused grab still belongs to the body: the press does not turn the view.
                run.grab(body, &at.coords)
                    .map_err(|e| format!("cannot pull: {e}"))?;
                self.gestures.pull(PullPlane::new(at, camera));
            }
            Effect::PullTarget(target) => {
                if let Some(run) = self.live_run() {
                    run.move_target(&target)
                        .map_err(|e| format!("cannot pull: {e}"))?;
                }
            }
            Effect::PullEnded => {
                if let Some(run) = self.live_run() {
                    run.release();
                }
            }
            other => return Ok(other),
        }
        Ok(Effect::Nothing)
    }

    /// Draws the scene at real time `now` into the next frame buffer: the live run's states
    /// after advancing it to `now` in live mode, else the computed motion at the playback
    /// clock's time.
    pub fn draw(&mut self, scenery: &Scenery<'_>, now: Duration) -> Result<FrameInfo, String> {
        let (frame, time) = match self.live.as_mut() {
            Some(live) => {
                live.run.advance_to(micros(now))?;
                let (motion, time) = live.run.states();
                let spring = live.run.spring_line();
                let mut frame = self.frame(scenery, Some(&motion), time);
                frame.lines.extend(spring.map(|spring| Line {
                    from: Point3::from(spring.from),
                    to: Point3::from(spring.to),
                    colour: palette::PULL_SPRING,
                }));
                (frame, time)
            }
            None => {
                // Playback waits where the simulation has got to; without motion it shows
                // the initial state at any time.
                let horizon = scenery.motion.map_or(f64::INFINITY, |m| m.complete_until());
                let time = self.transport.tick(now, horizon).time;
                (self.frame(scenery, scenery.motion, time), time)
            }
        };
        self.view.shown(frame.camera);
        if let Some(picture) = scenery.picture {
            self.target
                .upload_missing(picture.frames.meshes())
                .map_err(|e| format!("cannot load the shapes for drawing: {e}"))?;
        }
        let image = self.target.render(&frame);
        self.last_frame = Some(frame);
        // Editor windows of this process draw with GTK's context on this thread.
        self.target.release_current();
        let image = image.map_err(|e| format!("cannot draw the scene: {e}"))?;
        let info = self
            .frames
            .write_rows(time, &image.pixels)
            .map_err(|e| e.to_string())?;
        self.dirty = false;
        Ok(info)
    }

    /// The frame of the bodies moving by `motion` (the initial state without) at `time`.
    fn frame(&mut self, scenery: &Scenery<'_>, motion: Option<&SceneMotion>, time: f64) -> Frame {
        let Some(picture) = scenery.picture else {
            return Frame::default();
        };
        let initial = InitialStates {
            scene: scenery.scene,
        };
        let states: &dyn BodyStates = match motion {
            Some(motion) => motion,
            None => &initial,
        };
        let viewport = self.viewport();
        let has_camera = scenery.scene.camera.is_some();
        let camera = match self.view.next(has_camera) {
            CameraUse::Given(camera) => CameraChoice::Given(camera),
            CameraUse::Scene => CameraChoice::Scene,
            // A live run knows only its recent past: fit to where the bodies are now.
            CameraUse::Fit if self.live.is_some() => {
                fitted(&picture.frames, scenery, states, time, time)
            }
            CameraUse::Fit => {
                let simulator = &scenery.scene.simulator;
                let until = scenery
                    .motion
                    .map_or(simulator.start, |m| m.complete_until())
                    .clamp(simulator.start, simulator.finish);
                fitted(&picture.frames, scenery, states, simulator.start, until)
            }
        };
        let fitting = matches!(camera, CameraChoice::Fit(_));
        // Handles edit the initial state, which live motion leaves behind.
        let (handles, highlighted) = match self.live {
            Some(_) => (Vec::new(), None),
            None => (scenery.handles.to_vec(), scenery.highlighted),
        };
        let stage = *self.stage.get_or_insert_with(|| {
            let simulator = &scenery.scene.simulator;
            let until = scenery
                .motion
                .map_or(simulator.start, |m| m.complete_until())
                .clamp(simulator.start, simulator.finish);
            let computed: &dyn BodyStates = match scenery.motion {
                Some(motion) => motion,
                None => &initial,
            };
            picture
                .frames
                .stage(scenery.scene, computed, simulator.start, until)
        });
        let options = FrameOptions {
            handles,
            highlighted_handle: highlighted,
            scales: picture.scales,
            camera,
            stage,
            ..FrameOptions::default()
        };
        let frame = picture
            .frames
            .frame(scenery.scene, states, time, &options, &viewport);
        if fitting {
            self.view.fitted(frame.camera, has_camera);
        }
        frame
    }
}

/// The default view: fitted once to where `states` put the bodies from `from` to `until`.
fn fitted(
    frames: &SceneFrames,
    scenery: &Scenery<'_>,
    states: &dyn BodyStates,
    from: f64,
    until: f64,
) -> CameraChoice {
    let rate = FIT_SAMPLES / (until - from).max(1e-9);
    let times = frame_times(from, until, rate);
    match frames.bounds(scenery.scene, states, times) {
        Some(bounds) => CameraChoice::Fit(bounds),
        None => CameraChoice::Scene,
    }
}

/// Real time as the microseconds a [`LiveRun`] is paced by.
fn micros(now: Duration) -> i64 {
    i64::try_from(now.as_micros()).unwrap_or(i64::MAX)
}

fn memory(size: RenditionSize) -> Result<FrameWriter, String> {
    FrameWriter::create(size, BUFFERS)
        .map_err(|e: FrameError| format!("cannot make the frame memory: {e}"))
}
