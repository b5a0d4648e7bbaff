//! Recording a live run: the states of chosen bodies after every step, and the trajectory text
//! that replays a recorded body's motion.

use super::fit::{continuous_rotation_vectors, fit, trajectory_text, DEFAULT_TOLERANCE};
use crate::scene::model::ConstrainedVar;
use crate::sim::physics::{BodyTrack, SceneMotion};
use std::fmt;

/// The recorded motion of some bodies: each one's state at the start and after every step.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Recording {
    bodies: Vec<RecordedBody>,
}

#[derive(Clone, Debug, PartialEq)]
struct RecordedBody {
    body: usize,
    name: String,
    track: BodyTrack,
}

/// Why a recording could not become a trajectory.
#[derive(Clone, Debug, PartialEq)]
pub enum RecordingError {
    /// The body (by index) was not recorded.
    NotRecorded(usize),
    /// A trajectory needs two points; the run was stepped fewer than once.
    TooShort { body: String, samples: usize },
    /// The tolerance must be a positive number.
    BadTolerance(f64),
}

impl fmt::Display for RecordingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordingError::NotRecorded(b) => write!(f, "body number {b} was not recorded"),
            RecordingError::TooShort { body, samples } => write!(
                f,
                "body {body} has {samples} recorded state(s); a trajectory needs at least 2"
            ),
            RecordingError::BadTolerance(t) => {
                write!(f, "the tolerance must be a positive number, got {t}")
            }
        }
    }
}

impl std::error::Error for RecordingError {}

impl Recording {
    /// An empty recording of `bodies` (index and name).
    pub(crate) fn new(bodies: Vec<(usize, String)>) -> Recording {
        Recording {
            bodies: bodies
                .into_iter()
                .map(|(body, name)| RecordedBody {
                    body,
                    name,
                    track: BodyTrack::default(),
                })
                .collect(),
        }
    }

    /// Adds every recorded body's state at `t` from `motion`.
    pub(crate) fn record(&mut self, t: f64, motion: &SceneMotion) {
        for recorded in &mut self.bodies {
            if let Some(state) = motion.state(recorded.body, t) {
                recorded.track.times.push(t);
                recorded.track.states.push(state);
            }
        }
    }

    /// The recorded bodies: index and name.
    pub fn bodies(&self) -> impl Iterator<Item = (usize, &str)> {
        self.bodies.iter().map(|r| (r.body, r.name.as_str()))
    }

    /// Body `body`'s recorded states.
    pub fn track(&self, body: usize) -> Option<&BodyTrack> {
        self.find(body).map(|r| &r.track)
    }

    /// The `trajectory` commands that make body `body` follow its recorded motion, named
    /// `BODY_recorded` (and `BODY_recorded_rot`), within [`DEFAULT_TOLERANCE`]; see
    /// [`Recording::to_trajectory_with`].
    pub fn to_trajectory(&self, body: usize) -> Result<String, RecordingError> {
        let name = self
            .find(body)
            .map(|r| format!("{}_recorded", r.name))
            .ok_or(RecordingError::NotRecorded(body))?;
        self.to_trajectory_with(body, &name, DEFAULT_TOLERANCE)
    }

    /// The `trajectory` commands, one per line, that make body `body` follow its recorded
    /// motion: `name` drives its position through the recorded positions, within `tolerance`
    /// of each at its time; and when the body turned during the run (by more than `tolerance`
    /// radians), [`rotation_name`]`(name)` drives its rotation vector likewise, so that a
    /// replay turns the body as the run did. Control points are a subset of the recorded
    /// states, as few as the tolerance allows (see [`fit`](super::fit)).
    pub fn to_trajectory_with(
        &self,
        body: usize,
        name: &str,
        tolerance: f64,
    ) -> Result<String, RecordingError> {
        if !(tolerance.is_finite() && tolerance > 0.0) {
            return Err(RecordingError::BadTolerance(tolerance));
        }
        let recorded = self.find(body).ok_or(RecordingError::NotRecorded(body))?;
        let track = &recorded.track;
        if track.times.len() < 2 {
            return Err(RecordingError::TooShort {
                body: recorded.name.clone(),
                samples: track.times.len(),
            });
        }
        let positions: Vec<_> = track.states.iter().map(|s| s.position).collect();
        let points = fit(&track.times, &positions, tolerance);
        let mut text = trajectory_text(name, &recorded.name, ConstrainedVar::Position, &points);
        let rotations: Vec<_> = track.states.iter().map(|s| s.rotation).collect();
        let turned = rotations
            .iter()
            .any(|r| r.angle_to(&rotations[0]) > tolerance);
        if turned {
            let vectors = continuous_rotation_vectors(&rotations);
            let points = fit(&track.times, &vectors, tolerance);
            text.push('\n');
            text.push_str(&trajectory_text(
                &rotation_name(name),
                &recorded.name,
                ConstrainedVar::Rotation,
                &points,
            ));
        }
        Ok(text)
    }

    fn find(&self, body: usize) -> Option<&RecordedBody> {
        self.bodies.iter().find(|r| r.body == body)
    }
}

/// The name of the rotation trajectory that goes with the position trajectory `name`.
pub fn rotation_name(name: &str) -> String {
    format!("{name}_rot")
}

#[cfg(test)]
mod tests {
    use crate::live::scene::{LiveOptions, SceneAdvance};
    use crate::live::Module;
    use crate::scene::evaluate;
    use crate::sim::physics::Model;
    use nalgebra::Vector3;

    const BRICK: &str = "simulator finish 3
shape_set brick desc {box {1 0.2 0.2}}
body b shape brick init_pos {0 0 0} mass 1
";

    #[test]
    fn a_body_that_turned_in_the_run_turns_the_same_in_its_replay() {
        let options = LiveOptions {
            record: vec![0],
            ..LiveOptions::default()
        };
        let scene = evaluate(BRICK).unwrap();
        let (mut advance, controls) = SceneAdvance::new(&scene, &options).unwrap();
        // Pulled round a circle by one end, the brick swings and turns.
        controls.grab(0, Vector3::new(0.5, 0.0, 0.0)).unwrap();
        for k in 0..200 {
            let t = f64::from(k) * 0.01;
            let target = Vector3::new(0.5 + 2.0 * t.sin(), 2.0 - 2.0 * t.cos(), 0.0);
            controls.move_target(target).unwrap();
            advance.update(0.01);
        }
        let recording = controls.recording();
        let track = recording.track(0).unwrap();
        let first = track.states[0].rotation;
        let turned = track
            .states
            .iter()
            .map(|s| s.rotation.angle_to(&first))
            .fold(0.0, f64::max);
        assert!(turned > 0.5, "the brick turned only {turned} rad");

        let text = recording.to_trajectory_with(0, "path", 1e-3).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "{text}");
        assert!(lines[0].ends_with("body b var pos"), "{text}");
        assert!(lines[1].starts_with("trajectory path_rot points {{0 0 0 0} "));
        assert!(lines[1].ends_with("body b var rot"), "{text}");

        let replay = evaluate(&format!("{BRICK}{text}\n")).unwrap();
        let model = Model::compile(&replay).unwrap();
        let mut simulation = model.simulation(model.options()).unwrap();
        simulation.run_to_end().unwrap();
        let motion = model.motion(simulation.motion());
        for (t, state) in track.times.iter().zip(&track.states) {
            let played = motion.state(0, *t).unwrap().rotation;
            // The fit's bound plus the playback interpolation of the computed quaternion.
            let error = played.angle_to(&state.rotation);
            assert!(error < 1e-2, "{error} rad at {t}");
        }
    }
}
