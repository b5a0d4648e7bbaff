//! Integration (section 5.2): adaptive trapezoidal steps solved by Newton–Raphson with the
//! component's Jacobian, never across a breakpoint.
//!
//! A step from `t0` to `t1 = t0 + h` solves `x1 = x0 + h/2 (f(t0, x0) + f(t1, x1))` by
//! Newton–Raphson on `I - h/2 J`, starting from an explicit predictor. At least one linear
//! solve is made, so linear equations (free fall) are solved exactly; the iteration has
//! converged when the residual is within a small fraction of the tolerance. Prescribed
//! variables are not solved for: inside their interval they take the prescribed value and
//! derivative.
//!
//! Step size follows the dissertation's rule — halve and retry when Newton fails, halve the
//! next step when Newton needs many iterations, grow it by at most a factor of 2 when it needs
//! few — combined with two error bounds:
//!
//! - The local truncation error of the trapezoidal rule, `-h³/12 x'''`, estimated by Milne's
//!   device: the explicit second-order Adams–Bashforth predictor
//!   `x0 + h((1 + r/2) f0 - r/2 f₋₁)`, with `r = h / h_prev`, has error
//!   `h³ x''' (1/6 + 1/(4r))`, so the difference between the trapezoidal solution and the
//!   predictor is `h³ x''' (r + 1)/(4r)` and the trapezoidal error is `r / (3 (r + 1))` times
//!   that difference. The first step after a (re)start has no previous derivative and is
//!   taken at the conservative initial step without this estimate.
//! - Optionally the error of playing the track back by linear interpolation (4.1.9),
//!   `h/8 |f1 - f0|`: the largest gap between a chord and a parabola with those end slopes.
//!
//! A rejected step shrinks by the factor the error suggests (cube root for the truncation
//! error, square root for the interpolation error, with a safety margin).

mod component;
mod control;
mod newton_matrix;

pub(crate) use component::{ComponentIntegrator, FailureKind, StepFailure};
pub use control::{StepControl, Tolerance};
