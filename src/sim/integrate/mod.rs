//! Integration (section 5.2): adaptive trapezoidal steps solved by Newton–Raphson with the
//! component's Jacobian, never across a breakpoint.
//!
//! Step size follows the dissertation's rule — shrink and retry when Newton fails, shrink the
//! next step when Newton needs many iterations, grow it by at most a factor of 2 when it needs
//! few — combined with a bound on the estimated local truncation error (see
//! [`ComponentIntegrator`] for the estimator) and, optionally, on the error of linear playback.

mod component;
mod control;
mod newton_matrix;

pub(crate) use component::{ComponentIntegrator, FailureKind, StepFailure};
pub use control::{StepControl, Tolerance};
