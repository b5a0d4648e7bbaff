//! A step of Kennedy and Carpenter's ESDIRK4(3)6L[2]SA (the implicit half of their ARK4(3)6L[2]SA,
//! *Additive Runge–Kutta schemes for convection–diffusion–reaction equations*, Appl. Numer.
//! Math. 44, 2003), for components found stiff: six stages, the first explicit (`f` at the
//! step's start, which the step before already evaluated), the other five each an implicit
//! equation `zᵢ = x0 + h Σⱼ<ᵢ aᵢⱼ kⱼ + h γ f(t0 + cᵢ h, zᵢ)` solved by Newton–Raphson with the
//! same matrix `I - h γ J` (γ = 1/4), factored once per attempt from the Jacobian at the step's
//! start. Fourth order, L-stable (a decay far faster than the step is damped to nothing in one
//! step, where the dissertation's trapezoidal rule, only A-stable, flips its sign and keeps
//! it ringing between the points), and stiffly accurate: the last stage *is* the end point,
//! so `f` there is the last stage's derivative and the track's cubic gets it for free.
//!
//! **Error.** The embedded third-order solution `x0 + h Σ b̂ⱼ kⱼ` differs from the end point by
//! `h Σ (bⱼ - b̂ⱼ) kⱼ`; that difference is filtered through `(I - h γ J)⁻¹` (Hairer and Wanner,
//! *Solving Ordinary Differential Equations II*, IV.8; Shampine): unfiltered, a stiff decay
//! that the method damps correctly still shows in the estimate as `h λ` times its size and
//! would hold the steps down to its time scale, which is what an implicit method is for not
//! to do. The estimate grows with `h⁴` and is held to the tolerance per step, as the
//! trapezoidal rule's was (see the module documentation for why not per unit of time). Read
//! between the points through the track's cubic, a step errs by `h⁴ |x⁗| / 384` at most, the
//! estimate's own order.
//!
//! **Newton.** Each stage starts from its own explicit part plus `h γ` times the stage
//! before's derivative, and makes at least one linear solve (so a linear system is solved
//! exactly); it has converged when the residual is within a small fraction of what the step
//! may err. The matrix `I - h γ J` is factored once per attempt (every implicit stage has
//! the same `h γ`), from the Jacobian at the step's start, which the step before left: its
//! last stage evaluates the Jacobian with `f`, and that stage's last evaluation is at the end
//! point. The other stages' iterations evaluate `f` alone. An iteration that shrinks the
//! residual by less than a factor 4 has the Jacobian evaluated at the current iterate and
//! the matrix factored anew (modified Newton with Hairer and Wanner's refresh, IV.8). Full
//! Newton (the Jacobian and a factorization at every iteration) cost 28 µs per step against
//! the trapezoidal rule's 4.4 (docs/BENCHMARKS.md, issue 28's fourth round). The first
//! step after a restart is the explicit pair's (see the module documentation).

use super::{
    largest, non_finite, prescribed, Attempt, ComponentIntegrator, FailureKind, Inputs, StepFailure,
};
use crate::sim::integrate::control::{Estimate, StepControl};
use crate::sim::integrate::newton_matrix::NewtonMatrix;
use crate::sim::system::JacobianSink;
use crate::sim::track::Side;

/// An implicit step may grow the next one by this factor at most.
pub(super) const MAX_GROWTH: f64 = 2.0;

/// The error estimate of a step grows with the fourth power of the step; a prescribed
/// variable's cubic's distance from its function, per unit of time, with the cube.
const ERROR_POWER: f64 = 4.0;
const BETWEEN_POWER: f64 = 3.0;

/// The residual of an update is as small as rounding allows once within this many units in
/// the last place of the variable.
const ROUNDING: f64 = 8.0 * f64::EPSILON;

/// A Newton iteration that shrinks the residual by less than this factor has the Jacobian
/// evaluated afresh before the next (modified Newton's rate with a good matrix is far
/// smaller).
const SLOW: f64 = 0.25;

/// The number of stages, the first explicit.
pub(super) const STAGES: usize = 6;

/// The diagonal coefficient of every implicit stage.
pub(super) const GAMMA: f64 = 0.25;

/// Where each stage is taken, as a fraction of the step.
pub(super) const C: [f64; STAGES] = [0.0, 0.5, 83.0 / 250.0, 31.0 / 50.0, 17.0 / 20.0, 1.0];

/// Stage `i` (from 1) is `x0 + h Σⱼ<ᵢ A[i-1][j] kⱼ + h γ kᵢ`.
pub(super) const A: [[f64; STAGES - 1]; STAGES - 1] = [
    [0.25, 0.0, 0.0, 0.0, 0.0],
    [8611.0 / 62500.0, -1743.0 / 31250.0, 0.0, 0.0, 0.0],
    [
        5012029.0 / 34652500.0,
        -654441.0 / 2922500.0,
        174375.0 / 388108.0,
        0.0,
        0.0,
    ],
    [
        15267082809.0 / 155376265600.0,
        -71443401.0 / 120774400.0,
        730878875.0 / 902184768.0,
        2285395.0 / 8070912.0,
        0.0,
    ],
    [
        82889.0 / 524892.0,
        0.0,
        15625.0 / 83664.0,
        69875.0 / 102672.0,
        -2260.0 / 8211.0,
    ],
];

/// The embedded third-order solution's weights (the fourth-order solution's are the last row
/// of `A` and `γ`).
pub(super) const B_HAT: [f64; STAGES] = [
    4586570599.0 / 29645900160.0,
    0.0,
    178811875.0 / 945068544.0,
    814220225.0 / 1159782912.0,
    -3700637.0 / 11593932.0,
    61727.0 / 225920.0,
];

/// The weight of stage `j` (from 0) in the fourth-order solution.
const fn weight(j: usize) -> f64 {
    if j == STAGES - 1 {
        GAMMA
    } else {
        A[STAGES - 2][j]
    }
}

impl ComponentIntegrator {
    /// Tries a step to `t1 = t0 + h`, leaving the end point in `x1` and `f1` (the equations
    /// evaluated at `t_end` where the stages reach `t1`, see [`ComponentIntegrator::step`]).
    pub(super) fn implicit_attempt(
        &mut self,
        t1: f64,
        t_end: f64,
        h: f64,
        inputs: &mut Inputs<'_>,
        control: &StepControl,
    ) -> Result<Attempt, StepFailure> {
        let t0 = self.time;
        self.factor_at_start(h)?;
        let mut steady = true;
        let mut iterations = 0;
        for (i, &c) in C.iter().enumerate().skip(1) {
            let t = if c == 1.0 { t1 } else { t0 + c * h };
            let at = if c == 1.0 { t_end } else { t };
            {
                let w = self.work.arrays();
                inputs(t, Side::Before, w.inputs);
                steady &= *w.inputs == *w.inputs_start;
            }
            self.predict_stage(i, t, h);
            iterations = iterations.max(self.solve_stage(i, t, at, h, control)?);
        }
        self.steady = steady;
        let error = self.error_estimate(h, control);
        let between = self.prescribed_between(h, control);
        Ok(Attempt {
            estimates: [
                Estimate {
                    ratio: error,
                    power: ERROR_POWER,
                },
                Estimate {
                    ratio: between,
                    power: BETWEEN_POWER,
                },
            ],
            // The step control's iteration rule (hold the step above two, halve it at five)
            // was made for full Newton; from a matrix of the step's start every stage makes one
            // correction more for the same convergence, which is no sign of a step too long
            // (the spinning top's stages took three each, which held its steps at 1,262 and
            // its evaluations at 26,440).
            iterations: iterations.saturating_sub(1),
        })
    }

    /// Stage `i`'s explicit part `x0 + h Σⱼ<ᵢ aᵢⱼ kⱼ` into `predicted`, and its Newton
    /// starting guess, that plus `h γ` times the stage before's derivative, into `x1`.
    fn predict_stage(&mut self, i: usize, t: f64, h: f64) {
        let n = self.work.n;
        let w = self.work.arrays();
        let row = &A[i - 1];
        for v in 0..n {
            let mut sum = row[0] * w.f[v];
            for (j, a) in row.iter().enumerate().take(i).skip(1) {
                sum += a * w.stages[(j - 1) * n + v];
            }
            w.predicted[v] = w.x[v] + h * sum;
            let last = if i == 1 {
                w.f[v]
            } else {
                w.stages[(i - 2) * n + v]
            };
            w.x1[v] = w.predicted[v] + h * GAMMA * last;
        }
        for &active in &self.active {
            w.x1[active.0] = prescribed(&self.prescriptions, active, t).0;
        }
    }

    /// Factors `I - h γ J` for an attempt of step `h`, with `J` the Jacobian at the step's
    /// start: the one the step before left at its end point when it was implicit and was
    /// accepted (see [`ComponentIntegrator::jacobian_here`]), else evaluated there now.
    fn factor_at_start(&mut self, h: f64) -> Result<(), StepFailure> {
        let t0 = self.time;
        let fail = StepFailure::of_attempt(t0, h);
        let matrix = self
            .matrix
            .get_or_insert_with(|| NewtonMatrix::new(&self.layout));
        let w = self.work.arrays();
        if !std::mem::take(&mut self.jacobian_here) {
            w.jacobian.fill(0.0);
            let mut sink = JacobianSink::new(Some(&mut *w.jacobian), &self.layout);
            // `f` there is known already; the evaluation writes it again, unchanged, into
            // the scratch `residual`.
            self.equations
                .eval(t0, w.x, w.inputs_start, w.residual, &mut sink);
            let stray = sink.stray_entry();
            self.stats.evaluations += 1;
            if let Some((row, col)) = stray {
                return Err(fail(FailureKind::StrayJacobian { row, col }, Vec::new()));
            }
        }
        if let Err(singular) = matrix.factor(w.jacobian, h * GAMMA, &self.fixed) {
            return Err(fail(FailureKind::Singular, vec![singular.column]));
        }
        Ok(())
    }

    /// Solves stage `i`'s equation for its state (left in `x1`) and derivative (in the stage's
    /// slot of `stages`, or in `f1` for the last stage), evaluating at `at`, by Newton–Raphson
    /// with the matrix of [`Self::factor_at_start`]; returns the number of linear solves it
    /// took. A residual that falls by less than [`SLOW`] in an iteration has the Jacobian
    /// evaluated at the stage's current state and the matrix factored anew (Hairer and
    /// Wanner's practice, IV.8), kept for the attempt's later stages. The last stage always
    /// evaluates the Jacobian with `f`: its final evaluation is at the step's end point,
    /// which is the next step's start.
    fn solve_stage(
        &mut self,
        i: usize,
        t: f64,
        at: f64,
        h: f64,
        control: &StepControl,
    ) -> Result<u32, StepFailure> {
        let t0 = self.time;
        let fail = StepFailure::of_attempt(t0, h);
        let n = self.work.n;
        let last = i == STAGES - 1;
        let scale = h * GAMMA;
        let fixed = !self.is_fixed.is_empty();
        let matrix = self
            .matrix
            .as_mut()
            .expect("factored at the attempt's start");
        let mut iterations = 0;
        let mut refresh = false;
        let mut previous = f64::INFINITY;
        loop {
            let w = self.work.arrays();
            let k: &mut [f64] = if last {
                &mut *w.f1
            } else {
                &mut w.stages[(i - 1) * n..i * n]
            };
            let with_jacobian = last || refresh;
            if with_jacobian {
                w.jacobian.fill(0.0);
            }
            let mut sink =
                JacobianSink::new(with_jacobian.then_some(&mut *w.jacobian), &self.layout);
            self.equations.eval(at, w.x1, w.inputs, k, &mut sink);
            let stray = sink.stray_entry();
            self.stats.evaluations += 1;
            if let Some((row, col)) = stray {
                return Err(fail(FailureKind::StrayJacobian { row, col }, Vec::new()));
            }
            for &active in &self.active {
                k[active.0] = prescribed(&self.prescriptions, active, t).1;
            }
            let bad = non_finite(k);
            if !bad.is_empty() {
                return Err(fail(FailureKind::NonFinite, bad));
            }
            // The residual's size relative to what it may be, largest over the variables.
            let mut size: f64 = 0.0;
            for (v, &k_v) in k.iter().enumerate() {
                w.residual[v] = if fixed && self.is_fixed[v] {
                    0.0
                } else {
                    w.predicted[v] + scale * k_v - w.x1[v]
                };
                let magnitude = w.x[v].abs().max(w.x1[v].abs());
                let bound = (control.newton_tolerance * control.tolerance.weight(magnitude))
                    .max(ROUNDING * magnitude);
                size = size.max(w.residual[v].abs() / bound);
            }
            if iterations > 0 && size <= 1.0 {
                return Ok(iterations);
            }
            if iterations == control.max_newton_iterations {
                let variables = largest(w.residual.iter().map(|r| r.abs()));
                return Err(fail(FailureKind::NotConverged, variables));
            }
            if refresh {
                if let Err(singular) = matrix.factor(w.jacobian, scale, &self.fixed) {
                    return Err(fail(FailureKind::Singular, vec![singular.column]));
                }
            }
            refresh = size > SLOW * previous;
            previous = size;
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

    /// The step's error estimate relative to what it may err, per variable into `errors`, and
    /// the largest: `(I - h γ J)⁻¹ h Σ (bⱼ - b̂ⱼ) kⱼ` (see the module documentation).
    fn error_estimate(&mut self, h: f64, control: &StepControl) -> f64 {
        let n = self.work.n;
        let is_fixed = &self.is_fixed;
        let w = self.work.arrays();
        for v in 0..n {
            if is_fixed.get(v).copied().unwrap_or(false) {
                w.residual[v] = 0.0;
                continue;
            }
            let mut sum = (weight(0) - B_HAT[0]) * w.f[v];
            for (j, b_hat) in B_HAT.iter().enumerate().take(STAGES - 1).skip(1) {
                sum += (weight(j) - b_hat) * w.stages[(j - 1) * n + v];
            }
            sum += (weight(STAGES - 1) - B_HAT[STAGES - 1]) * w.f1[v];
            w.residual[v] = h * sum;
        }
        self.matrix
            .as_mut()
            .expect("factored before the stages")
            .solve(w.residual);
        let mut worst: f64 = 0.0;
        for v in 0..n {
            let magnitude = w.x[v].abs().max(w.x1[v].abs());
            let ratio = w.residual[v].abs() / control.tolerance.weight(magnitude);
            w.errors[v] = ratio;
            worst = worst.max(ratio);
        }
        worst
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::integrate::component::Method;
    use crate::sim::system::{ComponentEquations, JacobianPattern};

    /// `x' = M x` for a constant matrix `M` (row-major).
    struct Linear(Vec<f64>);

    impl ComponentEquations for Linear {
        fn jacobian_pattern(&self) -> JacobianPattern {
            JacobianPattern::Dense
        }
        fn eval(&mut self, _: f64, own: &[f64], _: &[f64], f: &mut [f64], jac: &mut JacobianSink) {
            let n = own.len();
            for (r, f_r) in f.iter_mut().enumerate().take(n) {
                *f_r = (0..n).map(|c| self.0[r * n + c] * own[c]).sum();
                for c in 0..n {
                    jac.set(r, c, self.0[r * n + c]);
                }
            }
        }
    }

    /// Steps `x' = M x` from `x0` over `[0, end]` by the implicit method with the fixed step
    /// `h` (a tolerance so loose that no step is rejected, and `h` the longest step allowed).
    fn fixed_steps(matrix: &[f64], x0: &[f64], h: f64, end: f64) -> Vec<f64> {
        let control = StepControl {
            tolerance: crate::sim::integrate::Tolerance::new(1e6, 0.0),
            initial_step: h,
            max_step: h,
            ..StepControl::default()
        };
        let equations = Box::new(Linear(matrix.to_vec()));
        let mut integ =
            ComponentIntegrator::new(equations, 0, Vec::new(), 0.0, x0, &control).unwrap();
        integ.method = Method::Implicit;
        // Every step by the implicit method, the first too (which after a start or restart is
        // otherwise the explicit pair's).
        integ.restarted = false;
        while integ.time() < end {
            integ
                .step(end, &mut |_, _, _: &mut [f64]| {}, &control)
                .unwrap();
        }
        let stats = integ.stats();
        assert_eq!(stats.implicit_steps, stats.steps);
        assert_eq!(stats.rejected, 0);
        integ.values().to_vec()
    }

    /// Fourth order: on the harmonic oscillator `x'' = -x` the error at `t = 2` falls by
    /// about 2⁴ = 16 when the step is halved.
    #[test]
    fn error_falls_with_the_fourth_power_of_the_step() {
        let error = |h: f64| {
            let x = fixed_steps(&[0.0, 1.0, -1.0, 0.0], &[1.0, 0.0], h, 2.0);
            ((x[0] - 2f64.cos()).powi(2) + (x[1] + 2f64.sin()).powi(2)).sqrt()
        };
        let (coarse, fine, finer) = (error(0.2), error(0.1), error(0.05));
        for ratio in [coarse / fine, fine / finer] {
            assert!(ratio > 14.0 && ratio < 18.0, "{coarse} {fine} {finer}");
        }
    }

    /// L-stable: `x' = -10⁶ x` over one step of 1 leaves 9.3e-6 of `x0` (the method's
    /// stability function there; the trapezoidal rule would return `-x0` and keep it
    /// ringing), and ten steps leave nothing.
    #[test]
    fn a_very_stiff_decay_is_damped_in_one_step() {
        let x = fixed_steps(&[-1e6], &[1.0], 1.0, 1.0);
        assert!(x[0].abs() < 1e-5, "{}", x[0]);
        let x = fixed_steps(&[-1e6], &[1.0], 1.0, 10.0);
        assert!(x[0].abs() < 1e-40, "{}", x[0]);
    }

    /// The tableau satisfies the order conditions of order 4 (and its embedded solution those
    /// of order 3), as printed coefficients can be mistyped.
    #[test]
    fn tableau_has_its_orders() {
        let a = |i: usize, j: usize| -> f64 {
            match (i, j) {
                (0, _) => 0.0,
                (i, j) if j == i => GAMMA,
                (i, j) if j < i => A[i - 1][j],
                _ => 0.0,
            }
        };
        let b: Vec<f64> = (0..STAGES).map(weight).collect();
        for (i, &c) in C.iter().enumerate() {
            let row: f64 = (0..STAGES).map(|j| a(i, j)).sum();
            assert!((row - c).abs() < 1e-14, "row {i}");
        }
        let ac: Vec<f64> = (0..STAGES)
            .map(|i| (0..STAGES).map(|j| a(i, j) * C[j]).sum())
            .collect();
        let conditions = |w: &[f64], order: usize| {
            let dot = |v: &dyn Fn(usize) -> f64| (0..STAGES).map(|i| w[i] * v(i)).sum::<f64>();
            let mut c = vec![
                (dot(&|_| 1.0), 1.0),
                (dot(&|i| C[i]), 0.5),
                (dot(&|i| C[i] * C[i]), 1.0 / 3.0),
                (dot(&|i| ac[i]), 1.0 / 6.0),
            ];
            if order >= 4 {
                let aac: Vec<f64> = (0..STAGES)
                    .map(|i| (0..STAGES).map(|j| a(i, j) * ac[j]).sum())
                    .collect();
                let acc: Vec<f64> = (0..STAGES)
                    .map(|i| (0..STAGES).map(|j| a(i, j) * C[j] * C[j]).sum())
                    .collect();
                c.push((dot(&|i| C[i].powi(3)), 0.25));
                c.push((dot(&|i| C[i] * ac[i]), 1.0 / 8.0));
                c.push((dot(&|i| acc[i]), 1.0 / 12.0));
                c.push((dot(&|i| aac[i]), 1.0 / 24.0));
            }
            c
        };
        for (k, (got, want)) in conditions(&b, 4).into_iter().enumerate() {
            assert!((got - want).abs() < 1e-14, "condition {k}: {got} vs {want}");
        }
        for (k, (got, want)) in conditions(&B_HAT, 3).into_iter().enumerate() {
            assert!((got - want).abs() < 1e-14, "embedded {k}: {got} vs {want}");
        }
    }
}
