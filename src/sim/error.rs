//! Simulation errors: what failed, in which component, at what time, naming the variables.

use super::graph::ComponentId;
use std::fmt;

/// The kinds of failure a simulation reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The system description is inconsistent.
    InvalidSystem,
    /// The options are inconsistent.
    InvalidOptions,
    /// The equation factory could not build a component's evaluator.
    Build,
    /// Newton–Raphson did not converge even at the minimum step.
    NewtonFailed,
    /// The Newton matrix was singular even at the minimum step.
    SingularMatrix,
    /// The local error stayed above tolerance down to the minimum step.
    StepCollapse,
    /// The equations produced NaN or infinity.
    NonFinite,
    /// An evaluator wrote a Jacobian entry outside its declared pattern.
    BadJacobian,
    /// A back-up or update request was inconsistent with the simulation's state.
    InvalidRequest,
    /// Unfinished components remained but none could step (a bug).
    Stalled,
    /// The simulation's worker thread died (a bug).
    WorkerPanicked,
    /// A limit of [`RunLimits`](super::RunLimits) stopped the run.
    Limit,
}

/// A simulation error: a message saying what went wrong and, when it happened while
/// integrating, the component, the time and the variables involved (worst first).
#[derive(Clone, Debug, PartialEq)]
pub struct SimError {
    pub kind: ErrorKind,
    pub message: String,
    pub component: Option<ComponentId>,
    pub time: Option<f64>,
    /// Display names of the variables involved, worst first.
    pub variables: Vec<String>,
}

impl SimError {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> SimError {
        SimError {
            kind,
            message: message.into(),
            component: None,
            time: None,
            variables: Vec::new(),
        }
    }
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if let Some(t) = self.time {
            write!(f, " at t = {t}")?;
        }
        if let Some(c) = self.component {
            write!(f, " in component {}", c.0)?;
        }
        if !self.variables.is_empty() {
            write!(f, " (variables: {})", self.variables.join(", "))?;
        }
        Ok(())
    }
}

impl std::error::Error for SimError {}
