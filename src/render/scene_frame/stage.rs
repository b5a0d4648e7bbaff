//! The stage of a picture that follows a motion while it is computed (a graphical viewer's):
//! where the bodies go, which puts the ground under them ([`FrameOptions::stage`]) and, with
//! it, the picture's depth range.
//!
//! [`SceneFrames::stage`] samples a span of motion at [`STAGE_SAMPLES`] times at once, which
//! at 1,000 bodies is tens of milliseconds of a paint. A [`Stage`] samples the same times
//! over the simulated span, each once, as the motion reaches it, and joins the boxes: the
//! stage of a complete motion is the one [`SceneFrames::stage`] gives over the whole span.
//! And while a new motion is computed after an edit (a drag's steps, which have no motion,
//! and its release, which computes the edited bodies again from the edit's time), the stage
//! shown before the edit is kept, grown if the bodies go past it: an edit of one body in a
//! big scene then leaves the ground and the depth range as they were, so the renderer can
//! draw again only that body's region ([`crate::render::renderer`]). Once the new motion is
//! complete and sampled its own stage is shown, which may be smaller. While a stage is kept,
//! a picture takes it as it is ([`Stage::without_sampling`]) and the sampling is left to the
//! caller's idle time ([`Stage::update`]), which draws again if the stage changed.
//!
//! [`FrameOptions::stage`]: super::FrameOptions::stage

use super::{frame_times, SceneFrames, STAGE_SAMPLES};
use crate::render::camera::Bounds;
use crate::scene::model::Scene;
use crate::scene::state::BodyStates;

/// Where the bodies go over a motion being computed, found a sample at a time; see the
/// module's documentation.
#[derive(Debug, Default)]
pub struct Stage {
    /// The box around the bodies at the sampled times of the current motion (without the
    /// room around a lone body, so that boxes join).
    found: Option<Bounds>,
    /// How many of the sample times (from the span's start) are in `found`.
    sampled: usize,
    /// The stage shown before the scene or its motion last changed, shown (grown by what is
    /// found) until the new motion is complete.
    kept: Option<Bounds>,
    /// The stage last given out.
    shown: Option<Bounds>,
}

impl Stage {
    /// The scene was edited or its motion computed anew: what was found is forgotten, and
    /// the stage shown is kept until the new motion is complete.
    pub fn restart(&mut self) {
        self.found = None;
        self.sampled = 0;
        self.kept = self.shown;
    }

    /// A different scene (bodies came or went): nothing is kept.
    pub fn forget(&mut self) {
        *self = Stage::default();
    }

    /// The stage of `scene` (drawn with `frames`) whose bodies `states` poses over the
    /// simulated `span`, computed up to `until` (the span's start for the initial state;
    /// its end or later once complete): the bounds at the sample times not sampled yet up to
    /// `until` are joined to those found; `None` with no bodies.
    pub fn update(
        &mut self,
        frames: &SceneFrames,
        scene: &Scene,
        states: &dyn BodyStates,
        span: (f64, f64),
        until: f64,
    ) -> Option<Bounds> {
        let times = sample_times(span);
        let due = self.due(&times, span, until);
        if due > 0 {
            let new = &times[self.sampled..self.sampled + due];
            let reach = frames.reach(scene, states, new.iter().copied());
            self.found = join(self.found, reach);
            self.sampled += due;
        }
        self.show(frames, scene, &times, span, until)
    }

    /// The stage to draw now without sampling, while a stage is kept from before an edit:
    /// the kept stage, grown by what was found, until [`Stage::update`] has sampled the
    /// whole new motion, which the caller does off the picture when [`Stage::behind`] says
    /// samples are due; a picture right after an edit (a drag's release) then costs no
    /// sampling. `None` when no stage is kept: [`Stage::update`] gives the stage then.
    pub fn without_sampling(
        &mut self,
        frames: &SceneFrames,
        scene: &Scene,
        span: (f64, f64),
        until: f64,
    ) -> Option<Option<Bounds>> {
        self.kept?;
        Some(self.show(frames, scene, &sample_times(span), span, until))
    }

    /// Whether the motion computed up to `until` has sample times not sampled yet.
    pub fn behind(&self, span: (f64, f64), until: f64) -> bool {
        self.due(&sample_times(span), span, until) > 0
    }

    /// The stage last given out.
    pub fn shown(&self) -> Option<Bounds> {
        self.shown
    }

    /// How many of `times`, from the first not sampled, the motion computed up to `until`
    /// has reached: every one once the motion is complete (the last may round past the
    /// span's end).
    fn due(&self, times: &[f64], (_, finish): (f64, f64), until: f64) -> usize {
        times[self.sampled.min(times.len())..]
            .iter()
            .take_while(|&&t| until >= finish || t <= until)
            .count()
    }

    /// The stage found, once the motion is complete and sampled at every time; until then
    /// the kept stage grown by what was found.
    fn show(
        &mut self,
        frames: &SceneFrames,
        scene: &Scene,
        times: &[f64],
        span: (f64, f64),
        until: f64,
    ) -> Option<Bounds> {
        let found = self.found.map(|b| frames.with_room(scene, b));
        let complete = until >= span.1 && self.due(times, span, until) == 0;
        self.shown = if complete {
            found
        } else {
            join(self.kept, found)
        };
        self.shown
    }
}

/// The times a stage samples over `span`: those [`SceneFrames::stage`] samples over it.
fn sample_times((start, finish): (f64, f64)) -> Vec<f64> {
    frame_times(start, finish, STAGE_SAMPLES / (finish - start).max(1e-9))
}

/// The box around both boxes (either, when the other is `None`).
fn join(a: Option<Bounds>, b: Option<Bounds>) -> Option<Bounds> {
    match (a, b) {
        (Some(a), Some(b)) => Some(Bounds {
            min: a.min.inf(&b.min),
            max: a.max.sup(&b.max),
        }),
        (a, b) => a.or(b),
    }
}
