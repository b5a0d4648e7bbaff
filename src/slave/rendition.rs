//! One rendition on the slave's main thread: an off-screen GL target, the shared frame memory
//! it is copied into, a playback clock, the view and the pointer state.

use super::pointer::Pointer;
use crate::ipc::frames::FrameError;
use crate::ipc::{FrameInfo, FrameWriter, PlaybackMode, RenditionSize};
use crate::live::Playback;
use crate::render::camera::{Camera, Viewport};
use crate::render::frame::Frame;
use crate::render::offscreen::OffscreenTarget;
use crate::render::scene_frame::{frame_times, CameraChoice, FrameOptions, SceneFrames};
use crate::scene::handles::HandleKind;
use crate::scene::model::Scene;
use crate::scene::state::{BodyStates, InitialStates};
use crate::sim::physics::SceneMotion;
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

/// Where a rendition looks from.
#[derive(Debug, Default)]
struct View {
    /// The camera kept from frame to frame; `None` until the default view is fitted, and
    /// while the scene's own camera is followed.
    camera: Option<Camera>,
    /// The reader moved the view: keep it whatever the scene does.
    moved: bool,
    /// The camera of the last frame drawn, which pointer events refer to.
    shown: Camera,
}

pub struct Rendition {
    target: OffscreenTarget,
    frames: FrameWriter,
    pub clock: Playback,
    pub mode: PlaybackMode,
    view: View,
    pub pointer: Pointer,
    /// Something changed that a paused rendition must show.
    dirty: bool,
}

impl Rendition {
    /// A paused rendition of `size` for an animation from `start` to `finish` seconds.
    pub fn new(size: RenditionSize, start: f64, finish: f64) -> Result<Rendition, String> {
        let target = OffscreenTarget::new(size.width(), size.height())
            .map_err(|e| format!("cannot draw off-screen: {e}"))?;
        let frames = memory(size)?;
        Ok(Rendition {
            target,
            frames,
            clock: Playback::new(start, finish),
            mode: PlaybackMode::Playback,
            view: View::default(),
            pointer: Pointer::default(),
            dirty: true,
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
        self.dirty || self.clock.is_playing()
    }

    /// Stops playing and drawing (after a failure to draw) until told otherwise.
    pub fn stop(&mut self, now: Duration) {
        self.clock.pause(now);
        self.dirty = false;
    }

    /// Fits the default view again at the next frame, unless the reader moved the view.
    pub fn refit(&mut self) {
        if !self.view.moved && !self.pointer.dragging_handle() {
            self.view.camera = None;
        }
        self.dirty = true;
    }

    /// Forgets the reader's view: back to the scene's camera or the fitted default.
    pub fn reset_view(&mut self) {
        self.view.moved = false;
        self.refit();
    }

    pub fn viewport(&self) -> Viewport {
        let (width, height) = self.size();
        Viewport::new(f64::from(width), f64::from(height))
    }

    /// The camera of the last frame, for interpreting pointer positions.
    pub fn shown_camera(&self) -> Camera {
        self.view.shown
    }

    /// Keeps `camera` (which the reader moved) as the view from now on.
    pub fn move_view(&mut self, camera: Camera) {
        self.view.camera = Some(camera);
        self.view.shown = camera;
        self.view.moved = true;
        self.dirty = true;
    }

    /// Draws the scene at real time `now` into the next frame buffer.
    pub fn draw(&mut self, scenery: &Scenery<'_>, now: Duration) -> Result<FrameInfo, String> {
        // Playback waits where the simulation has got to; without motion it shows the
        // initial state at any time.
        let horizon = scenery.motion.map_or(f64::INFINITY, |m| m.complete_until());
        let time = self.clock.tick(now, horizon).time;
        let frame = self.frame(scenery, time);
        self.view.shown = frame.camera;
        if let Some(picture) = scenery.picture {
            self.target
                .upload_missing(picture.frames.meshes())
                .map_err(|e| format!("cannot load the shapes for drawing: {e}"))?;
        }
        let image = self.target.render(&frame);
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

    fn frame(&mut self, scenery: &Scenery<'_>, time: f64) -> Frame {
        let Some(picture) = scenery.picture else {
            return Frame::default();
        };
        let initial = InitialStates {
            scene: scenery.scene,
        };
        let states: &dyn BodyStates = match scenery.motion {
            Some(motion) => motion,
            None => &initial,
        };
        let viewport = self.viewport();
        let camera = match (self.view.camera, &scenery.scene.camera) {
            (Some(camera), _) => CameraChoice::Given(camera),
            (None, Some(_)) => CameraChoice::Scene,
            (None, None) => fitted(&picture.frames, scenery, states),
        };
        let fitting = matches!(camera, CameraChoice::Fit(_));
        let options = FrameOptions {
            handles: scenery.handles.to_vec(),
            highlighted_handle: scenery.highlighted,
            scales: picture.scales,
            camera,
            ..FrameOptions::default()
        };
        let frame = picture
            .frames
            .frame(scenery.scene, states, time, &options, &viewport);
        if fitting {
            self.view.camera = Some(frame.camera);
        }
        frame
    }
}

/// The default view: fitted once to where the bodies go over the motion computed so far.
fn fitted(frames: &SceneFrames, scenery: &Scenery<'_>, states: &dyn BodyStates) -> CameraChoice {
    let simulator = &scenery.scene.simulator;
    let until = scenery
        .motion
        .map_or(simulator.start, |m| m.complete_until())
        .clamp(simulator.start, simulator.finish);
    let rate = FIT_SAMPLES / (until - simulator.start).max(1e-9);
    let times = frame_times(simulator.start, until, rate);
    match frames.bounds(scenery.scene, states, times) {
        Some(bounds) => CameraChoice::Fit(bounds),
        None => CameraChoice::Scene,
    }
}

fn memory(size: RenditionSize) -> Result<FrameWriter, String> {
    FrameWriter::create(size, BUFFERS)
        .map_err(|e: FrameError| format!("cannot make the frame memory: {e}"))
}
