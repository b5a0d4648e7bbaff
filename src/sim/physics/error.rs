//! What can go wrong between a scene and its motion: a scene that cannot become equations, and
//! a simulation that fails while integrating.

use crate::lang::span::{LineIndex, Span};
use crate::sim::{ComponentId, ErrorKind, SimError};
use std::fmt;

/// An error of the physics layer.
#[derive(Clone, Debug, PartialEq)]
pub enum PhysicsError {
    /// The scene cannot be turned into equations (an unknown body, an unsupported operator, a
    /// massless body, overlapping trajectory constraints…). `span` locates the offending word or
    /// element command in the scene text when the scene came from one.
    Model { message: String, span: Option<Span> },
    /// Integration failed. The motion computed up to `time` stays readable.
    Simulation(Box<SimulationFailure>),
}

/// A failed simulation, described in the scene's terms.
#[derive(Clone, Debug, PartialEq)]
pub struct SimulationFailure {
    pub kind: ErrorKind,
    /// What went wrong, without the location.
    pub message: String,
    /// The bodies whose variables the failure names, worst first.
    pub bodies: Vec<String>,
    pub component: Option<ComponentId>,
    /// Variables in the failing component (its size is `component_size`).
    pub component_size: usize,
    pub time: Option<f64>,
    /// Display names of the variables to blame (`b1.dy`), worst first.
    pub variables: Vec<String>,
    /// The scene element to blame, when one is known.
    pub span: Option<Span>,
}

impl PhysicsError {
    pub(crate) fn model(message: impl Into<String>, span: Option<Span>) -> PhysicsError {
        PhysicsError::Model {
            message: message.into(),
            span,
        }
    }

    /// Where in the scene text the error is, when known.
    pub fn span(&self) -> Option<Span> {
        match self {
            PhysicsError::Model { span, .. } => *span,
            PhysicsError::Simulation(failure) => failure.span,
        }
    }

    /// `FILE:LINE:COL: error: MESSAGE` for an error located in `text` (the scene text read from
    /// `file`), `FILE: error: MESSAGE` otherwise.
    pub fn diagnostic(&self, file: &str, text: &str) -> String {
        match self.span() {
            Some(span) => {
                let at = LineIndex::new(text).line_col(text, span.start);
                format!("{file}:{at}: error: {self}")
            }
            None => format!("{file}: error: {self}"),
        }
    }
}

impl SimulationFailure {
    /// Describes `error` with the bodies its variables belong to. Variable names are
    /// `BODY.VAR`, so the body is the name up to the last dot.
    pub(crate) fn new(error: SimError, component_size: usize) -> SimulationFailure {
        let mut bodies: Vec<String> = Vec::new();
        for variable in &error.variables {
            let body = variable
                .rsplit_once('.')
                .map_or(variable.as_str(), |(body, _)| body);
            if !bodies.iter().any(|b| b == body) {
                bodies.push(body.to_string());
            }
        }
        SimulationFailure {
            kind: error.kind,
            message: error.message,
            bodies,
            component: error.component,
            component_size,
            time: error.time,
            variables: error.variables,
            span: None,
        }
    }
}

impl fmt::Display for SimulationFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("simulation failed")?;
        if let Some(t) = self.time {
            write!(f, " at t = {t}")?;
        }
        match self.bodies.as_slice() {
            [] => {}
            [one] => write!(f, " for body {one}")?,
            many => write!(f, " for bodies {}", many.join(", "))?,
        }
        if let Some(c) = self.component {
            write!(
                f,
                " in component {} ({} variables)",
                c.0, self.component_size
            )?;
        }
        write!(f, ": {}", self.message)?;
        if !self.variables.is_empty() {
            write!(f, " (variables {})", self.variables.join(", "))?;
        }
        Ok(())
    }
}

impl fmt::Display for PhysicsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PhysicsError::Model { message, .. } => f.write_str(message),
            PhysicsError::Simulation(failure) => failure.fmt(f),
        }
    }
}

impl std::error::Error for PhysicsError {}

impl From<SimulationFailure> for PhysicsError {
    fn from(failure: SimulationFailure) -> PhysicsError {
        PhysicsError::Simulation(Box::new(failure))
    }
}
