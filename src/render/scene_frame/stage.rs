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
//! complete its own stage is shown, which may be smaller.
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
        let (start, finish) = span;
        let complete = until >= finish;
        let times = frame_times(start, finish, STAGE_SAMPLES / (finish - start).max(1e-9));
        // Every time once the motion is complete: the last may round past the span's end.
        let due = times[self.sampled.min(times.len())..]
            .iter()
            .take_while(|&&t| complete || t <= until)
            .count();
        if due > 0 {
            let new = &times[self.sampled..self.sampled + due];
            let reach = frames.reach(scene, states, new.iter().copied());
            self.found = join(self.found, reach);
            self.sampled += due;
        }
        let found = self.found.map(|b| frames.with_room(scene, b));
        self.shown = if complete {
            found
        } else {
            join(self.kept, found)
        };
        self.shown
    }
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
