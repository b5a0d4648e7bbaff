//! Recording a live run: the states of chosen bodies after every step, and the trajectory text
//! that replays a recorded body's path.

use super::fit::{fit, trajectory_text, DEFAULT_TOLERANCE};
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

    /// The `trajectory` command that makes body `body` follow its recorded path: named
    /// `BODY_recorded`, within [`DEFAULT_TOLERANCE`] of every recorded position.
    pub fn to_trajectory(&self, body: usize) -> Result<String, RecordingError> {
        let name = self
            .find(body)
            .map(|r| format!("{}_recorded", r.name))
            .ok_or(RecordingError::NotRecorded(body))?;
        self.to_trajectory_with(body, &name, DEFAULT_TOLERANCE)
    }

    /// The `trajectory` command called `name` that drives body `body`'s position through the
    /// recorded positions: at every recorded time it is within `tolerance` of the position
    /// recorded then. Its control points are a subset of the recorded states, as few as the
    /// tolerance allows (see [`fit`](super::fit)).
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
        Ok(trajectory_text(name, &recorded.name, &points))
    }

    fn find(&self, body: usize) -> Option<&RecordedBody> {
        self.bodies.iter().find(|r| r.body == body)
    }
}
