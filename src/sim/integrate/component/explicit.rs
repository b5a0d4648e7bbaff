//! A step of the Dormand–Prince 5(4) pair (Dormand and Prince 1980; the coefficients and the
//! continuous extension as in Hairer, Nørsett and Wanner, *Solving Ordinary Differential
//! Equations I*, II.5): seven stages, the last of which is `f` at the step's end and so the
//! next step's first (one evaluation is saved per step), a fifth-order solution, and the
//! difference from the embedded fourth-order one as the estimate of its local error.
//!
//! The track holds each step as a cubic Hermite polynomial (values and derivatives at both
//! ends); the pair's own fourth-order continuous extension is that cubic plus
//! `s² (1 - s)² r5` with `r5 = h Σ dᵢ kᵢ`, so the cubic errs between the points by about
//! `|r5| / 16` at the middle. Both that and the local error are held to the tolerance per unit
//! of time; the cubic's, growing with `h⁴` against the local error's `h⁵`, is usually the one
//! that sets the step.
//!
//! Stiffness shows as a step held down by a fast decay rather than by the accuracy the motion
//! needs. Where the sixth stage's state `y6` and the end point `x1` differ, `f` changes by
//! `k7 - k6`; projected on `x1 - y6`, that difference quotient is the rate `λ` at which the
//! equations pull that difference back (negative: a decay), the real part of the Jacobian's
//! dominant eigenvalue along the step. Only decay counts: an oscillation must be followed step
//! by step by any method that is to be accurate, but a decay that has died out can be stepped
//! over by an A-stable method and not by an explicit one. Eight accepted steps with
//! `-h Re λ` above 1 (under a third of the pair's stability bound on the negative real axis:
//! the decay already costs steps there), before six below it come in a row, mark the component
//! stiff (the counting is Hairer's test in DOPRI5, which takes `h |λ|`, 3.25 and fifteen
//! steps; switching later left stiff components explicit for longer, at more steps than the
//! implicit method takes), and it continues by the implicit method (`esdirk`) until it starts
//! afresh.

use super::{
    non_finite, prescribed, Attempt, ComponentIntegrator, FailureKind, Inputs, StepFailure,
};
use crate::sim::integrate::control::{Estimate, StepControl};
use crate::sim::system::JacobianSink;
use crate::sim::track::Side;

/// An explicit step may grow the next one by this factor at most.
pub(super) const MAX_GROWTH: f64 = 5.0;

/// The local error per unit of time grows with the fourth power of the step, the cubic's error
/// between the points with the third.
const LOCAL_POWER: f64 = 4.0;
const BETWEEN_POWER: f64 = 3.0;

/// Where each stage is taken, as a fraction of the step.
const C: [f64; 7] = [0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0, 1.0];

/// Stage `s` (from 1) is taken at `x0 + h Σⱼ A[s-1][j] kⱼ` over the stages before it.
const A: [[f64; 6]; 6] = [
    [1.0 / 5.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [3.0 / 40.0, 9.0 / 40.0, 0.0, 0.0, 0.0, 0.0],
    [44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0, 0.0, 0.0, 0.0],
    [
        19372.0 / 6561.0,
        -25360.0 / 2187.0,
        64448.0 / 6561.0,
        -212.0 / 729.0,
        0.0,
        0.0,
    ],
    [
        9017.0 / 3168.0,
        -355.0 / 33.0,
        46732.0 / 5247.0,
        49.0 / 176.0,
        -5103.0 / 18656.0,
        0.0,
    ],
    [
        35.0 / 384.0,
        0.0,
        500.0 / 1113.0,
        125.0 / 192.0,
        -2187.0 / 6784.0,
        11.0 / 84.0,
    ],
];

/// The fifth-order solution's weights are the last row of `A`; the difference of the fifth- and
/// fourth-order weights over the seven stages gives the local error.
const E: [f64; 7] = [
    71.0 / 57600.0,
    0.0,
    -71.0 / 16695.0,
    71.0 / 1920.0,
    -17253.0 / 339200.0,
    22.0 / 525.0,
    -1.0 / 40.0,
];

/// The continuous extension's quartic term `r5 = h Σ D[j] kⱼ`.
const D: [f64; 7] = [
    -12715105075.0 / 11282082432.0,
    0.0,
    87487479700.0 / 32700410799.0,
    -10690763975.0 / 1880347072.0,
    701980252875.0 / 199316789632.0,
    -1453857185.0 / 822651844.0,
    69997945.0 / 29380423.0,
];

/// `-h Re λ` above this counts as a step held down by a decay.
const STIFF_STEP: f64 = 1.0;
/// This many such accepted steps mark the component stiff...
pub(super) const STIFF_COUNT: u32 = 8;
/// ...unless this many steps in a row below it come first.
const CALM_COUNT: u32 = 6;

/// Counts the accepted steps that look held down by stability (see the module documentation).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct StiffnessWatch {
    stiff: u32,
    calm: u32,
}

impl StiffnessWatch {
    /// Takes an accepted step's estimate of `-h Re λ`; returns whether the component is
    /// stiff.
    pub(super) fn observe(&mut self, step_decay: f64) -> bool {
        if step_decay > STIFF_STEP {
            self.calm = 0;
            self.stiff += 1;
        } else {
            self.calm += 1;
            if self.calm == CALM_COUNT {
                self.stiff = 0;
            }
        }
        self.stiff >= STIFF_COUNT
    }
}

impl ComponentIntegrator {
    /// Tries a Dormand–Prince step to `t1 = t0 + h`, leaving the end point in `x1` and `f1`
    /// and the step's estimate of `-h Re λ` in `self.step_decay`. The equations are evaluated
    /// at `t_end` where the stages reach `t1` (see [`ComponentIntegrator::step`]).
    pub(super) fn explicit_attempt(
        &mut self,
        t1: f64,
        t_end: f64,
        h: f64,
        inputs: &mut Inputs<'_>,
        control: &StepControl,
    ) -> Result<Attempt, StepFailure> {
        let t0 = self.time;
        let n = self.work.n;
        let fail = StepFailure::of_attempt(t0, h);
        let w = self.work.arrays();
        let mut steady = true;
        // Stages 2 to 7; the seventh is `f1` at the fifth-order solution `x1`.
        for s in 1..7 {
            let t = if C[s] == 1.0 { t1 } else { t0 + C[s] * h };
            let (done, rest) = w.stages.split_at_mut((s - 1) * n);
            let (y, k): (&mut [f64], &mut [f64]) = if s < 6 {
                (&mut *w.predicted, &mut rest[..n])
            } else {
                (&mut *w.x1, &mut *w.f1)
            };
            for i in 0..n {
                let mut sum = A[s - 1][0] * w.f[i];
                for j in 1..s {
                    sum += A[s - 1][j] * done[(j - 1) * n + i];
                }
                y[i] = w.x[i] + h * sum;
            }
            for &active in &self.active {
                y[active.0] = prescribed(&self.prescriptions, active, t).0;
            }
            // The sixth and seventh stages are both at `t1`: one read serves both.
            if s < 6 {
                inputs(t, Side::Before, w.inputs);
                steady &= *w.inputs == *w.inputs_start;
            }
            let mut sink = JacobianSink::new(None, &self.layout);
            let at = if C[s] == 1.0 { t_end } else { t };
            self.equations.eval(at, y, w.inputs, k, &mut sink);
            self.stats.evaluations += 1;
            for &active in &self.active {
                k[active.0] = prescribed(&self.prescriptions, active, t).1;
            }
            let bad = non_finite(k);
            if !bad.is_empty() {
                return Err(fail(FailureKind::NonFinite, bad));
            }
        }
        self.steady = steady;

        let stage = |j: usize, i: usize| match j {
            0 => w.f[i],
            6 => w.f1[i],
            j => w.stages[(j - 1) * n + i],
        };
        let (mut local, mut between) = (0.0f64, 0.0f64);
        let (mut pull, mut spread) = (0.0, 0.0);
        for i in 0..n {
            if self.is_fixed.get(i).copied().unwrap_or(false) {
                w.errors[i] = 0.0;
                continue;
            }
            let (mut e, mut d) = (0.0, 0.0);
            for j in 0..7 {
                e += E[j] * stage(j, i);
                d += D[j] * stage(j, i);
            }
            let magnitude = w.x[i].abs().max(w.x1[i].abs());
            let allowed = control.allowed(h, magnitude);
            let (l, b) = ((h * e).abs() / allowed, (h * d / 16.0).abs() / allowed);
            w.errors[i] = l.max(b);
            local = local.max(l);
            between = between.max(b);
            let difference = w.x1[i] - w.predicted[i];
            pull += (w.f1[i] - stage(5, i)) * difference;
            spread += difference * difference;
        }
        between = between.max(self.prescribed_between(h, control));
        self.step_decay = if spread > 0.0 {
            -h * pull / spread
        } else {
            0.0
        };
        Ok(Attempt {
            estimates: [
                Estimate {
                    ratio: local,
                    power: LOCAL_POWER,
                },
                Estimate {
                    ratio: between,
                    power: BETWEEN_POWER,
                },
            ],
            iterations: 0,
        })
    }
}
