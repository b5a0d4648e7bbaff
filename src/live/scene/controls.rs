//! The handle through which viewers, input devices and the command line act on a live scene
//! and read it: grab, move the target, release, push; the current time, states and the pull
//! spring's line.

use super::recording::Recording;
use crate::sim::collide::Collision;
use crate::sim::physics::{BodyState, SceneMotion};
use nalgebra::Vector3;
use std::collections::VecDeque;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// A request made through [`LiveControls`], applied by the scene before its next step, in the
/// order made.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Request {
    /// Pull `body` by the point `local` (shape set coordinates); the target starts where the
    /// point is.
    Grab {
        body: usize,
        local: Vector3<f64>,
    },
    MoveTarget(Vector3<f64>),
    Release,
    /// Push `body` with a constant force (zero stops).
    Push {
        body: usize,
        force: Vector3<f64>,
    },
}

/// Why a request was refused.
#[derive(Clone, Debug, PartialEq)]
pub enum ControlError {
    /// No body has this index.
    UnknownBody(usize),
    /// The body is fixed, or was not made pullable.
    NotPullable(String),
    /// The body is fixed.
    NotPushable(String),
    /// A coordinate is NaN or infinite.
    NonFinite(&'static str),
}

impl fmt::Display for ControlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ControlError::UnknownBody(b) => write!(f, "there is no body number {b}"),
            ControlError::NotPullable(name) => write!(
                f,
                "body {name} cannot be pulled: it is fixed or was not made pullable"
            ),
            ControlError::NotPushable(name) => {
                write!(f, "body {name} is fixed: it cannot be pushed")
            }
            ControlError::NonFinite(what) => write!(f, "the {what} must be finite numbers"),
        }
    }
}

impl std::error::Error for ControlError {}

/// The pull spring as last stepped, for drawing: from the grabbed point to the target.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpringLine {
    pub body: usize,
    /// The grabbed point, world.
    pub from: Vector3<f64>,
    /// The target, world.
    pub to: Vector3<f64>,
}

/// What the scene publishes after every step.
#[derive(Clone, Debug, Default)]
pub(crate) struct Status {
    pub time: f64,
    pub spring: Option<SpringLine>,
    /// Why the scene stopped advancing, if it did.
    pub error: Option<String>,
    pub updates: u64,
    pub collisions: Reported,
}

/// The collisions reported to the controls: those of about the last second (the motion a
/// live scene keeps) that stand for good, and those at the current time, which the next step
/// might still undo.
#[derive(Clone, Debug, Default)]
pub(crate) struct Reported {
    settled: VecDeque<Collision>,
    /// Settled collisions since the start, including those dropped.
    settled_count: u64,
    pub pending: Vec<Collision>,
}

impl Reported {
    /// Adds `settled` (in time order, after those known) and drops those before `horizon`.
    pub fn settle(&mut self, settled: Vec<Collision>, horizon: f64) {
        self.settled_count += settled.len() as u64;
        self.settled.extend(settled);
        while self.settled.front().is_some_and(|c| c.time < horizon) {
            self.settled.pop_front();
        }
    }
}

/// State shared between a [`SceneAdvance`](super::SceneAdvance) and its controls.
pub(crate) struct Shared {
    pub requests: Mutex<Vec<Request>>,
    pub status: Mutex<Status>,
    pub recording: Mutex<Recording>,
    pub motion: SceneMotion,
    /// Per body: its name, whether it can be pushed and pulled.
    pub bodies: Vec<(String, bool, bool)>,
}

pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Acts on a live scene and reads it, from any thread. Cheap to clone. Requests take effect
/// before the scene's next step, in the order made, so a scripted sequence of requests and
/// steps gives the same motion every time.
#[derive(Clone)]
pub struct LiveControls {
    pub(crate) shared: Arc<Shared>,
}

impl LiveControls {
    /// Starts pulling body `body` by the point `local` of its shape (shape set coordinates)
    /// towards a target that starts where the point is; releases any earlier grab.
    pub fn grab(&self, body: usize, local: Vector3<f64>) -> Result<(), ControlError> {
        let (name, _, pullable) = self.body(body)?;
        if !pullable {
            return Err(ControlError::NotPullable(name.clone()));
        }
        finite(&local, "grabbed point")?;
        self.request(Request::Grab { body, local });
        Ok(())
    }

    /// Moves the pull's target (world); ignored when nothing is grabbed.
    pub fn move_target(&self, world: Vector3<f64>) -> Result<(), ControlError> {
        finite(&world, "target")?;
        self.request(Request::MoveTarget(world));
        Ok(())
    }

    /// Lets go of the grabbed body.
    pub fn release(&self) {
        self.request(Request::Release);
    }

    /// Pushes body `body` with the constant `force` (world, at the centre of mass) until
    /// [`LiveControls::stop_push`] (a key held down).
    pub fn push(&self, body: usize, force: Vector3<f64>) -> Result<(), ControlError> {
        let (name, pushable, _) = self.body(body)?;
        if !pushable {
            return Err(ControlError::NotPushable(name.clone()));
        }
        finite(&force, "force")?;
        self.request(Request::Push { body, force });
        Ok(())
    }

    /// Stops pushing body `body`.
    pub fn stop_push(&self, body: usize) -> Result<(), ControlError> {
        self.push(body, Vector3::zeros())
    }

    /// The index of the body called `name`.
    pub fn body_index(&self, name: &str) -> Option<usize> {
        self.shared.bodies.iter().position(|(n, _, _)| n == name)
    }

    /// The simulated time the scene has reached.
    pub fn time(&self) -> f64 {
        lock(&self.shared.status).time
    }

    /// The number of steps taken.
    pub fn updates(&self) -> u64 {
        lock(&self.shared.status).updates
    }

    /// Body `body`'s state at the current time (`None` for an unknown body, or if the scene
    /// moved on and forgot that time between the two readings).
    pub fn state(&self, body: usize) -> Option<BodyState> {
        if body >= self.shared.bodies.len() {
            return None;
        }
        self.shared.motion.state(body, self.time())
    }

    /// The motion of every body, readable at recent times (the scene keeps about a second).
    pub fn motion(&self) -> &SceneMotion {
        &self.shared.motion
    }

    /// The pull spring's line as of the last step, if a body is grabbed.
    pub fn spring_line(&self) -> Option<SpringLine> {
        lock(&self.shared.status).spring
    }

    /// The collisions of about the last second of simulated time (older ones are forgotten
    /// with the motion), in time order, as of the last step.
    pub fn collisions(&self) -> Vec<Collision> {
        let status = lock(&self.shared.status);
        let reported = &status.collisions;
        reported
            .settled
            .iter()
            .chain(&reported.pending)
            .copied()
            .collect()
    }

    /// The number of collisions since the start, as of the last step.
    pub fn collision_count(&self) -> u64 {
        let reported = &lock(&self.shared.status).collisions;
        reported.settled_count + reported.pending.len() as u64
    }

    /// Why the scene stopped advancing (a failed step), if it did.
    pub fn error(&self) -> Option<String> {
        lock(&self.shared.status).error.clone()
    }

    /// A copy of what has been recorded so far.
    pub fn recording(&self) -> Recording {
        lock(&self.shared.recording).clone()
    }

    fn body(&self, body: usize) -> Result<&(String, bool, bool), ControlError> {
        self.shared
            .bodies
            .get(body)
            .ok_or(ControlError::UnknownBody(body))
    }

    fn request(&self, request: Request) {
        lock(&self.shared.requests).push(request);
    }
}

fn finite(v: &Vector3<f64>, what: &'static str) -> Result<(), ControlError> {
    if v.iter().all(|c| c.is_finite()) {
        Ok(())
    } else {
        Err(ControlError::NonFinite(what))
    }
}
