//! A step of the trapezoidal rule (5.2), for components found stiff: `x1 = x0 + h/2 (f(t0,
//! x0) + f(t1, x1))` solved by Newton–Raphson on `I - h/2 J` from an explicit predictor.
//!
//! At least one linear solve is made, so linear equations (free fall) are solved exactly; the
//! iteration has converged when the residual is within a small fraction of what the step may
//! err. Each step may err by the tolerance (5.2.2), not by the tolerance per unit of time as
//! the explicit pair: a second-order method held per unit of time needs steps that shrink
//! with the square root of the tolerance, and the stiff examples took 4 to 13 times the steps
//! they take held per step. Its local truncation error, `-h³/12 x'''`, is estimated by Milne's device: the
//! explicit second-order Adams–Bashforth predictor `x0 + h((1 + r/2) f0 - r/2 f₋₁)`, with
//! `r = h / h_prev`, has error `h³ x''' (1/6 + 1/(4r))`, so the difference between the
//! trapezoidal solution and the predictor is `h³ x''' (r + 1)/(4r)` and the trapezoidal error
//! is `r / (3 (r + 1))` times that difference. The first step after a restart has no previous
//! derivative and is taken without this estimate. Read between its points through the track's
//! cubic (which is the trapezoidal rule's own quadratic there), a step errs by no more than at
//! its end: the quadratic's distance from the solution grows monotonically over the step.

use super::{
    largest, non_finite, prescribed, Attempt, ComponentIntegrator, FailureKind, Inputs, StepFailure,
};
use crate::sim::integrate::control::{Estimate, StepControl};
use crate::sim::integrate::newton_matrix::NewtonMatrix;
use crate::sim::system::JacobianSink;
use crate::sim::track::Side;

/// Growth is limited to the dissertation's factor of 2 per step.
pub(super) const MAX_GROWTH: f64 = 2.0;

/// The truncation error of a step grows with the cube of the step.
const ERROR_POWER: f64 = 3.0;
/// A prescribed variable's cubic strays from its function by `h⁴`, `h³` per unit of time.
const BETWEEN_POWER: f64 = 3.0;

/// The residual of an update is as small as rounding allows once within this many units in
/// the last place of the variable.
const ROUNDING: f64 = 8.0 * f64::EPSILON;

impl ComponentIntegrator {
    /// Tries a trapezoidal step to `t1 = t0 + h`, leaving the end point in `x1` and `f1`
    /// (the equations evaluated at `t_end`, see [`ComponentIntegrator::step`]).
    pub(super) fn trapezoidal_attempt(
        &mut self,
        t1: f64,
        t_end: f64,
        h: f64,
        inputs: &mut Inputs<'_>,
        control: &StepControl,
    ) -> Result<Attempt, StepFailure> {
        let w = self.work.arrays();
        inputs(t1, Side::Before, w.inputs);
        self.steady = w.inputs == w.inputs_start;
        self.predict(t1, h);
        let iterations = self.newton(t1, t_end, h, control)?;
        let truncation = self.truncation_errors(h, control);
        let between = self.prescribed_between(h, control);
        Ok(Attempt {
            estimates: [
                Estimate {
                    ratio: truncation,
                    power: ERROR_POWER,
                },
                Estimate {
                    ratio: between,
                    power: BETWEEN_POWER,
                },
            ],
            iterations,
        })
    }

    /// The Newton starting guess for a step to `t1`, also kept as the predictor for the error
    /// estimate.
    fn predict(&mut self, t1: f64, h: f64) {
        let w = self.work.arrays();
        match self.previous {
            Some(h_prev) => {
                let r = h / h_prev;
                let (a, b) = (h * (1.0 + 0.5 * r), h * 0.5 * r);
                for i in 0..w.x.len() {
                    w.x1[i] = w.x[i] + a * w.f[i] - b * w.f_previous[i];
                }
            }
            None => {
                for i in 0..w.x.len() {
                    w.x1[i] = w.x[i] + h * w.f[i];
                }
            }
        }
        for &active in &self.active {
            w.x1[active.0] = prescribed(&self.prescriptions, active, t1).0;
        }
        w.predicted.copy_from_slice(w.x1);
    }

    /// Solves the trapezoidal equation for `x1` from the predictor; returns the number of
    /// linear solves it took. At least one solve is made, so a linear system is solved exactly
    /// however good the predictor was; after that the iteration has converged when the
    /// trapezoidal residual at the current `x1` is within the Newton tolerance (then `f1` is
    /// already evaluated there).
    fn newton(
        &mut self,
        t1: f64,
        t_end: f64,
        h: f64,
        control: &StepControl,
    ) -> Result<u32, StepFailure> {
        let t0 = self.time;
        let fail = |kind, variables| StepFailure {
            kind,
            time: t0,
            step: h,
            variables,
        };
        let half = 0.5 * h;
        let matrix = self
            .matrix
            .get_or_insert_with(|| NewtonMatrix::new(&self.layout));
        let mut iterations = 0;
        loop {
            {
                let w = self.work.arrays();
                w.jacobian.fill(0.0);
                let mut sink = JacobianSink::new(Some(w.jacobian), &self.layout);
                self.equations.eval(t_end, w.x1, w.inputs, w.f1, &mut sink);
                let stray = sink.stray_entry();
                self.stats.evaluations += 1;
                if let Some((row, col)) = stray {
                    return Err(fail(FailureKind::StrayJacobian { row, col }, Vec::new()));
                }
                for &active in &self.active {
                    w.f1[active.0] = prescribed(&self.prescriptions, active, t1).1;
                }
                let bad = non_finite(w.f1);
                if !bad.is_empty() {
                    return Err(fail(FailureKind::NonFinite, bad));
                }
            }
            let fixed = !self.is_fixed.is_empty();
            let w = self.work.arrays();
            let mut converged = true;
            for i in 0..w.x.len() {
                w.residual[i] = if fixed && self.is_fixed[i] {
                    0.0
                } else {
                    w.x[i] + half * (w.f[i] + w.f1[i]) - w.x1[i]
                };
                let magnitude = w.x[i].abs().max(w.x1[i].abs());
                let bound = (control.newton_tolerance * control.tolerance.weight(magnitude))
                    .max(ROUNDING * magnitude);
                converged &= w.residual[i].abs() <= bound;
            }
            if iterations > 0 && converged {
                return Ok(iterations);
            }
            if iterations == control.max_newton_iterations {
                let variables = largest(w.residual.iter().map(|r| r.abs()));
                return Err(fail(FailureKind::NotConverged, variables));
            }
            if let Err(singular) = matrix.factor(w.jacobian, half, &self.fixed) {
                return Err(fail(FailureKind::Singular, vec![singular.column]));
            }
            matrix.solve(w.residual);
            self.stats.newton_iterations += 1;
            iterations += 1;
            for (x, d) in w.x1.iter_mut().zip(w.residual.iter()) {
                *x += d;
            }
            let bad = non_finite(w.x1);
            if !bad.is_empty() {
                return Err(fail(FailureKind::NonFinite, bad));
            }
        }
    }

    /// The step's truncation error relative to the tolerance, per variable into `errors`, and
    /// the largest. The trapezoidal rule is held to the tolerance per step, not per unit of
    /// time (see the module documentation).
    fn truncation_errors(&mut self, h: f64, control: &StepControl) -> f64 {
        let previous = self.previous;
        let is_fixed = &self.is_fixed;
        let w = self.work.arrays();
        let mut worst: f64 = 0.0;
        for i in 0..w.x.len() {
            let ratio = match previous {
                Some(h_prev) if !is_fixed.get(i).copied().unwrap_or(false) => {
                    let r = h / h_prev;
                    let estimate = r / (3.0 * (r + 1.0)) * (w.x1[i] - w.predicted[i]).abs();
                    let magnitude = w.x[i].abs().max(w.x1[i].abs());
                    estimate / control.tolerance.weight(magnitude)
                }
                _ => 0.0,
            };
            w.errors[i] = ratio;
            worst = worst.max(ratio);
        }
        worst
    }
}
