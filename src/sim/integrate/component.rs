//! One component's integrator: adaptive steps of its method (see the
//! [module documentation](super)), the prescriptions of its variables, the first integral it
//! keeps, and the restarts the scheduler asks for.

mod esdirk;
mod explicit;

use super::control::{Estimate, StepControl};
use super::newton_matrix::NewtonMatrix;
use crate::sim::stats::ComponentStats;
use crate::sim::system::{ComponentEquations, JacobianLayout, JacobianSink, Prescription};
use crate::sim::track::{Cubic, Side, Track};
use explicit::StiffnessWatch;

/// Supplies the values of a component's inputs (other components' variables) at a time.
pub(crate) type Inputs<'a> = dyn FnMut(f64, Side, &mut [f64]) + 'a;

/// Why a step could not be taken.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum FailureKind {
    /// Newton–Raphson did not converge at the minimum step.
    NotConverged,
    /// The Newton matrix was singular at the minimum step.
    Singular,
    /// The local error stayed above tolerance down to the minimum step.
    StepCollapse,
    /// The equations produced NaN or infinity (at the step's start, or at the minimum step).
    NonFinite,
    /// The evaluator wrote a Jacobian entry outside the pattern it declared.
    StrayJacobian { row: usize, col: usize },
}

/// A failed step: what went wrong, where, and the component's variables (local indices) to
/// blame, worst first.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct StepFailure {
    pub kind: FailureKind,
    pub time: f64,
    pub step: f64,
    pub variables: Vec<usize>,
}

impl StepFailure {
    /// What an attempt of a step `step` long from `time` fails with, given the kind and the
    /// variables to blame.
    pub(super) fn of_attempt(
        time: f64,
        step: f64,
    ) -> impl Fn(FailureKind, Vec<usize>) -> StepFailure {
        move |kind, variables| StepFailure {
            kind,
            time,
            step,
            variables,
        }
    }
}

/// An accepted step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Accepted {
    pub from: f64,
    pub to: f64,
}

/// How many variables a failure names at most.
const BLAME: usize = 4;

/// How a component integrates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Method {
    /// Dormand–Prince 5(4), explicit: every component starts with it.
    Explicit,
    /// ESDIRK4(3)6L[2]SA, implicit, solved by Newton–Raphson: for a component found stiff.
    Implicit,
}

/// What one attempt at a step found, when it produced an end point: its error estimates (the
/// per-variable ratios are in the workspace's `errors`) and the Newton iterations it took.
struct Attempt {
    estimates: [Estimate; 2],
    iterations: u32,
}

impl Attempt {
    fn within_tolerance(&self) -> bool {
        self.estimates.iter().all(|e| e.ratio <= 1.0)
    }
}

/// The state and workspace of one component's integration.
pub(crate) struct ComponentIntegrator {
    equations: Box<dyn ComponentEquations>,
    layout: JacobianLayout,
    /// The Newton matrix, made when the component first steps by the implicit method.
    matrix: Option<NewtonMatrix>,
    method: Method,
    stiffness: StiffnessWatch,
    /// Own variables that have prescriptions, with them.
    prescriptions: Vec<(usize, Vec<Prescription>)>,
    /// Prescribed variables on the current step: (local index, entry in `prescriptions`,
    /// which prescription of that entry).
    active: Vec<(usize, usize, usize)>,
    fixed: Vec<usize>,
    /// Per variable, whether it is prescribed on the current step; empty when the component
    /// has no prescriptions at all.
    is_fixed: Vec<bool>,
    time: f64,
    f_valid: bool,
    /// Whether the next step is the first after a restart (taken by the explicit pair).
    restarted: bool,
    step: f64,
    /// The value of the equations' first integral that the steps keep, while the inputs stay
    /// as they are (see [`ComponentEquations::first_integral`]); `None` when it is to be taken
    /// afresh at the next step's start, or there is none.
    integral: Option<f64>,
    /// Whether every input read during the attempt just made equals its value at the step's
    /// start.
    steady: bool,
    /// The explicit attempt's estimate of `h` times the fastest decay rate (see `explicit`).
    step_decay: f64,
    /// Whether the workspace's Jacobian was evaluated at the current point: after an accepted
    /// implicit step, whose last stage evaluates it at the end point, for the next step's
    /// Newton matrix.
    jacobian_here: bool,
    work: Workspace,
    stats: ComponentStats,
}

/// The integrator's arrays in one allocation: a scene of ten thousand bodies has over a
/// hundred thousand components, taken in turn, and a step that touches one block instead of
/// a dozen scattered ones keeps the cost per step from growing with the scene.
struct Workspace {
    data: Vec<f64>,
    n: usize,
    jacobian: usize,
    inputs: usize,
}

/// The number of `n`-long arrays in a workspace (see [`Arrays`]; `stages` counts five).
const ARRAYS: usize = 14;

/// The arrays of a [`Workspace`], borrowed together.
struct Arrays<'a> {
    /// The state at the current time, and `f` there.
    x: &'a mut [f64],
    f: &'a mut [f64],
    /// `f` at the start of the previous step.
    f_previous: &'a mut [f64],
    /// The state being solved for at the step's end, and `f` there.
    x1: &'a mut [f64],
    f1: &'a mut [f64],
    /// The explicit step's stages' states; the implicit step's stages' explicit parts.
    predicted: &'a mut [f64],
    /// Newton residuals, then updates; the implicit step's error estimate.
    residual: &'a mut [f64],
    /// Per variable, the step's error relative to its bound.
    errors: &'a mut [f64],
    /// The derivatives at the second to sixth stages of either method.
    stages: &'a mut [f64],
    /// The first integral's gradient.
    gradient: &'a mut [f64],
    /// Jacobian values in the evaluator's layout.
    jacobian: &'a mut [f64],
    /// Input values where the attempt reads them (at the end, the step's end).
    inputs: &'a mut [f64],
    /// Input values at the step's start.
    inputs_start: &'a mut [f64],
}

impl Workspace {
    fn new(values: &[f64], jacobian: usize, inputs: usize) -> Workspace {
        let n = values.len();
        let mut data = vec![0.0; ARRAYS * n + jacobian + 2 * inputs];
        data[..n].copy_from_slice(values);
        Workspace {
            data,
            n,
            jacobian,
            inputs,
        }
    }

    fn x(&self) -> &[f64] {
        &self.data[..self.n]
    }

    fn x_mut(&mut self) -> &mut [f64] {
        &mut self.data[..self.n]
    }

    fn arrays(&mut self) -> Arrays<'_> {
        let n = self.n;
        let (x, rest) = self.data.split_at_mut(n);
        let (f, rest) = rest.split_at_mut(n);
        let (f_previous, rest) = rest.split_at_mut(n);
        let (x1, rest) = rest.split_at_mut(n);
        let (f1, rest) = rest.split_at_mut(n);
        let (predicted, rest) = rest.split_at_mut(n);
        let (residual, rest) = rest.split_at_mut(n);
        let (errors, rest) = rest.split_at_mut(n);
        let (stages, rest) = rest.split_at_mut(5 * n);
        let (gradient, rest) = rest.split_at_mut(n);
        let (jacobian, rest) = rest.split_at_mut(self.jacobian);
        let (inputs, inputs_start) = rest.split_at_mut(self.inputs);
        Arrays {
            x,
            f,
            f_previous,
            x1,
            f1,
            predicted,
            residual,
            errors,
            stages,
            gradient,
            jacobian,
            inputs,
            inputs_start,
        }
    }
}

/// Value and derivative at `t` of the active prescription `active`.
fn prescribed(
    prescriptions: &[(usize, Vec<Prescription>)],
    active: (usize, usize, usize),
    t: f64,
) -> (f64, f64) {
    let (_, entry, which) = active;
    prescriptions[entry].1[which].eval(t)
}

impl ComponentIntegrator {
    /// An integrator for `equations` over `input_count` inputs, at `time` with `values`.
    /// Fails if the evaluator's declared Jacobian pattern is invalid.
    pub(crate) fn new(
        equations: Box<dyn ComponentEquations>,
        input_count: usize,
        prescriptions: Vec<(usize, Vec<Prescription>)>,
        time: f64,
        values: &[f64],
        control: &StepControl,
    ) -> Result<ComponentIntegrator, String> {
        let n = values.len();
        let layout = JacobianLayout::new(n, &equations.jacobian_pattern())?;
        let work = Workspace::new(values, layout.len(), input_count);
        let stats = ComponentStats {
            size: n,
            ..ComponentStats::default()
        };
        let is_fixed = if prescriptions.is_empty() {
            Vec::new()
        } else {
            vec![false; n]
        };
        Ok(ComponentIntegrator {
            equations,
            layout,
            matrix: None,
            method: Method::Explicit,
            stiffness: StiffnessWatch::default(),
            prescriptions,
            active: Vec::new(),
            fixed: Vec::new(),
            is_fixed,
            time,
            f_valid: false,
            restarted: true,
            step: control.initial_step.min(control.max_step),
            integral: None,
            steady: false,
            step_decay: 0.0,
            jacobian_here: false,
            work,
            stats,
        })
    }

    /// The last computed time.
    pub(crate) fn time(&self) -> f64 {
        self.time
    }

    /// The values at [`Self::time`].
    pub(crate) fn values(&self) -> &[f64] {
        self.work.x()
    }

    pub(crate) fn stats(&self) -> &ComponentStats {
        &self.stats
    }

    /// Appends the step just accepted to `track`, whose last point is the step's start: the
    /// derivatives at both ends go with it, for the track's interpolation.
    pub(crate) fn append_step(&mut self, track: &mut Track) {
        let time = self.time;
        let w = self.work.arrays();
        track.push_step(w.f_previous, time, w.x, w.f);
    }

    /// Where the next step will end if nothing goes wrong, given the next breakpoint `limit`.
    pub(crate) fn next_target(&self, limit: f64) -> f64 {
        if self.time + self.step >= limit {
            limit
        } else {
            self.time + self.step
        }
    }

    /// Continues from `values` at `time` as from a discontinuity: no history, the derivative
    /// to be re-evaluated, the conservative initial step.
    pub(crate) fn restart(&mut self, time: f64, values: &[f64], control: &StepControl) {
        self.time = time;
        self.work.x_mut().copy_from_slice(values);
        self.restart_here(control);
    }

    /// The step the integrator means to take next.
    pub(crate) fn intended_step(&self) -> f64 {
        self.step
    }

    /// Continues from `values` at `time` as after a jump: no history and the derivative to be
    /// re-evaluated, but with `step` (at least the conservative initial one): a jump in
    /// velocity or a new contact load changes what the next step starts from, not how smooth
    /// the motion is after it, and restarting every body of a resting pile at the initial step
    /// at every contact tick made it regrow its steps over and over (the wall example took
    /// fifteen times as many steps). Error control shrinks the step if the motion after the
    /// jump needs it. Without `step` the component starts afresh, as a new one would: at the
    /// initial step and with the explicit method.
    pub(crate) fn restart_after_jump(
        &mut self,
        time: f64,
        values: &[f64],
        step: Option<f64>,
        control: &StepControl,
    ) {
        self.restart(time, values, control);
        match step {
            Some(step) => self.step = step.clamp(self.step, control.max_step),
            None => self.start_afresh(),
        }
    }

    /// Continues from the current point as from a discontinuity (after landing on a
    /// breakpoint).
    pub(crate) fn restart_here(&mut self, control: &StepControl) {
        self.f_valid = false;
        self.restarted = true;
        self.jacobian_here = false;
        self.integral = None;
        self.step = control.initial_step.min(control.max_step);
        self.stats.restarts += 1;
    }

    /// Forgets that the component was found stiff.
    fn start_afresh(&mut self) {
        self.method = Method::Explicit;
        self.stiffness = StiffnessWatch::default();
    }

    /// Starts over at `time` with `values` and new prescriptions, keeping the evaluator (an
    /// incremental update that changed initial values or prescriptions only), as a new
    /// component would.
    pub(crate) fn reinitialize(
        &mut self,
        prescriptions: Vec<(usize, Vec<Prescription>)>,
        time: f64,
        values: &[f64],
        control: &StepControl,
    ) {
        self.set_prescriptions(prescriptions);
        self.restart(time, values, control);
        self.start_afresh();
    }

    /// Replaces the own variables' prescriptions (they govern from the next step on; the
    /// caller restarts, and enters them where they begin now).
    pub(crate) fn set_prescriptions(&mut self, prescriptions: Vec<(usize, Vec<Prescription>)>) {
        self.is_fixed = if prescriptions.is_empty() {
            Vec::new()
        } else {
            vec![false; self.work.n]
        };
        self.fixed.clear();
        self.active.clear();
        self.prescriptions = prescriptions;
    }

    /// Changes variable `local` at the current time (a jump); the caller restarts afterwards.
    pub(crate) fn set_value(&mut self, local: usize, value: f64) {
        self.work.x_mut()[local] = value;
        self.f_valid = false;
        self.integral = None;
    }

    /// Sets every variable whose prescription interval `[start, end)` contains the current time
    /// to its prescribed value. Returns whether any value changed (a jump to record).
    pub(crate) fn enter_prescriptions(&mut self) -> bool {
        let t = self.time;
        let mut changed = false;
        let x = self.work.x_mut();
        for (local, list) in &self.prescriptions {
            if let Some(p) = list.iter().find(|p| p.start() <= t && t < p.end()) {
                let value = p.eval(t).0;
                if value.to_bits() != x[*local].to_bits() {
                    x[*local] = value;
                    changed = true;
                }
            }
        }
        if changed {
            self.f_valid = false;
            self.integral = None;
        }
        changed
    }

    /// Takes one step, ending no later than `limit` (the next breakpoint), retrying with
    /// smaller steps until one is accepted or the minimum step fails. `inputs` must be able to
    /// supply values up to `self.next_target(limit)`.
    pub(crate) fn step(
        &mut self,
        limit: f64,
        inputs: &mut Inputs<'_>,
        control: &StepControl,
    ) -> Result<Accepted, StepFailure> {
        let t0 = self.time;
        self.select_active(t0);
        if !self.f_valid {
            self.derivative_at_start(inputs)?;
        }
        if self.integral.is_none() && self.active.is_empty() {
            let w = self.work.arrays();
            self.integral = self
                .equations
                .first_integral(t0, w.x, w.inputs_start, w.gradient);
        }
        loop {
            let t1 = self.next_target(limit);
            let h = t1 - t0;
            // A step that lands on its limit (a breakpoint, the end, a gate) evaluates the
            // equations there just below it: a switch on time alone takes its new mode exactly
            // at its breakpoint (see `sim::physics::switches`), and the step must see the
            // equations as they were over it. The restart there sees the new mode.
            let t_end = if t1 == limit { just_below(t1) } else { t1 };
            let intended = self.step;
            let method = if self.restarted {
                Method::Explicit
            } else {
                self.method
            };
            let outcome = match method {
                Method::Explicit => self.explicit_attempt(t1, t_end, h, inputs, control),
                Method::Implicit => self.implicit_attempt(t1, t_end, h, inputs, control),
            };
            let (factor, failure) = match outcome {
                Ok(attempt) => {
                    let growth = match method {
                        Method::Explicit => explicit::MAX_GROWTH,
                        Method::Implicit => esdirk::MAX_GROWTH,
                    };
                    let factor =
                        control.step_factor(&attempt.estimates, attempt.iterations, growth);
                    if attempt.within_tolerance() {
                        self.accept(method, t1, t_end, h, factor, control);
                        // A step cut short to land on a breakpoint, the end or a gate says
                        // nothing against the step that was intended: keep it.
                        if t1 == limit && h < intended && factor >= 1.0 {
                            self.step = self.step.max(intended);
                        }
                        return Ok(Accepted { from: t0, to: t1 });
                    }
                    let failure = StepFailure {
                        kind: FailureKind::StepCollapse,
                        time: t0,
                        step: h,
                        variables: largest(self.work.arrays().errors.iter().copied()),
                    };
                    (factor, failure)
                }
                Err(failure) if matches!(failure.kind, FailureKind::StrayJacobian { .. }) => {
                    return Err(failure);
                }
                Err(failure) => (0.5, failure),
            };
            self.stats.rejected += 1;
            // `h` is `t1 - t0`, which rounding can leave a hair above the minimum step the
            // attempt was sized to: test the intended step too, or this would retry forever.
            if h <= control.min_step || self.step <= control.min_step {
                return Err(failure);
            }
            self.step = (h * factor).max(control.min_step);
        }
    }

    /// Chooses the prescriptions that govern a step starting at `t0`.
    fn select_active(&mut self, t0: f64) {
        if self.prescriptions.is_empty() {
            return;
        }
        for &i in &self.fixed {
            self.is_fixed[i] = false;
        }
        self.active.clear();
        self.fixed.clear();
        for (entry, (local, list)) in self.prescriptions.iter().enumerate() {
            if let Some(k) = list.iter().position(|p| p.start() <= t0 && t0 < p.end()) {
                self.active.push((*local, entry, k));
                self.fixed.push(*local);
                self.is_fixed[*local] = true;
            }
        }
        if !self.active.is_empty() {
            self.integral = None;
        }
    }

    /// How far the track's cubic over the attempted step strays from the prescribed
    /// variables' functions, relative to what the step may err (largest over the variables,
    /// also written into `errors`): their values and derivatives are exact at both ends, but
    /// a prescription may bend between them in ways the ends do not show (a trajectory's
    /// corner), and playback reads the cubic. Checked at a quarter, half and three quarters of
    /// the step.
    fn prescribed_between(&mut self, h: f64, control: &StepControl) -> f64 {
        let t0 = self.time;
        let w = self.work.arrays();
        let mut worst: f64 = 0.0;
        for &active in &self.active {
            let i = active.0;
            let cubic = Cubic {
                start: w.x[i],
                end: w.x1[i],
                start_slope: w.f[i],
                end_slope: w.f1[i],
                span: h,
            };
            let magnitude = w.x[i].abs().max(w.x1[i].abs());
            let allowed = control.allowed(h, magnitude);
            let ratio = [0.25, 0.5, 0.75]
                .iter()
                .map(|&s| {
                    let exact = prescribed(&self.prescriptions, active, t0 + s * h).0;
                    (cubic.value(s) - exact).abs() / allowed
                })
                .fold(0.0, f64::max);
            w.errors[i] = ratio;
            worst = worst.max(ratio);
        }
        worst
    }

    /// Evaluates `f` at the current point (after a restart), with the inputs there.
    fn derivative_at_start(&mut self, inputs: &mut Inputs<'_>) -> Result<(), StepFailure> {
        let t0 = self.time;
        let w = self.work.arrays();
        inputs(t0, Side::After, w.inputs_start);
        let mut sink = JacobianSink::new(None, &self.layout);
        self.equations.eval(t0, w.x, w.inputs_start, w.f, &mut sink);
        self.stats.evaluations += 1;
        for &active in &self.active {
            w.f[active.0] = prescribed(&self.prescriptions, active, t0).1;
        }
        let bad = non_finite(w.f);
        if !bad.is_empty() {
            return Err(StepFailure {
                kind: FailureKind::NonFinite,
                time: t0,
                step: 0.0,
                variables: bad,
            });
        }
        self.f_valid = true;
        Ok(())
    }

    /// Moves the end point onto the first integral's level when the step kept it in theory (no
    /// input changed, nothing prescribed), and re-evaluates `f1` there: the integrator's error
    /// would otherwise let the quantity drift step after step. Several Newton steps along the
    /// gradient, each `Δx = (target − I(x)) ∇I / |∇I|²`, the orthogonal projection onto the
    /// level set (Hairer, Lubich and Wanner, *Geometric Numerical Integration*, IV.4).
    ///
    /// A correction shorter than [`ONE_CORRECTION`] of the point's length is made once and not
    /// evaluated again: Newton's convergence is quadratic, so what is left is of the order of
    /// its square, about rounding, and the next step is projected onto the same level (the one
    /// at the start, not at its own start), so no remainder adds up. The first integral with its
    /// gradient costs four and a half times `f` for a spinning body (285 tape instructions
    /// against 64): the check saved was 13 % of a free-body run's instructions. `f1` is
    /// evaluated again only when the point moved.
    fn project(&mut self, t_end: f64) {
        let Some(target) = self.integral else {
            return;
        };
        if !self.steady || !self.active.is_empty() {
            self.integral = None;
            return;
        }
        let w = self.work.arrays();
        let mut moved = false;
        for _ in 0..PROJECTION_ITERATIONS {
            let Some(value) =
                self.equations
                    .first_integral(t_end, w.x1, w.inputs_start, w.gradient)
            else {
                break;
            };
            let miss = target - value;
            let norm: f64 = w.gradient.iter().map(|g| g * g).sum();
            if miss.abs() <= PROJECTION_TOLERANCE * target.abs() || norm.is_nan() || norm <= 0.0 {
                break;
            }
            let scale = miss / norm;
            for (x, g) in w.x1.iter_mut().zip(w.gradient.iter()) {
                *x += scale * g;
            }
            moved = true;
            // The correction's length against the point's: what it leaves is about the
            // integral's curvature times its square, rounding when it is this short. (The miss
            // alone is no measure: where the gradient is small, as for a body turning about a
            // principal axis, a small miss takes a long correction.)
            let length = miss.abs() / norm.sqrt();
            let size: f64 = w.x1.iter().map(|x| x * x).sum();
            if length <= ONE_CORRECTION * size.sqrt() {
                break;
            }
        }
        if moved {
            let mut sink = JacobianSink::new(None, &self.layout);
            self.equations
                .eval(t_end, w.x1, w.inputs_start, w.f1, &mut sink);
            self.stats.evaluations += 1;
        }
    }

    /// Takes the attempted step to `t1` (its end evaluated at `t_end`), and sizes the next.
    fn accept(
        &mut self,
        method: Method,
        t1: f64,
        t_end: f64,
        h: f64,
        factor: f64,
        control: &StepControl,
    ) {
        self.project(t_end);
        let w = self.work.arrays();
        w.f_previous.copy_from_slice(w.f);
        w.f.copy_from_slice(w.f1);
        w.x.copy_from_slice(w.x1);
        w.inputs_start.copy_from_slice(w.inputs);
        self.time = t1;
        self.restarted = false;
        self.jacobian_here = method == Method::Implicit;
        self.step = (h * factor).clamp(control.min_step, control.max_step);
        self.stats.steps += 1;
        match method {
            Method::Explicit if self.method == Method::Implicit => {}
            Method::Explicit => {
                if self.stiffness.observe(self.step_decay) {
                    self.method = Method::Implicit;
                }
            }
            Method::Implicit => self.stats.implicit_steps += 1,
        }
    }
}

/// At most this many corrections move a step's end onto the first integral's level.
const PROJECTION_ITERATIONS: usize = 3;
/// The level is reached when the first integral is within this fraction of its value.
const PROJECTION_TOLERANCE: f64 = 4.0 * f64::EPSILON;
/// A correction shorter than this fraction of the point's length is made once without
/// checking the result: what it leaves is of the order of its square (see `project`).
const ONE_CORRECTION: f64 = 1e-8;

/// The largest float below `t` (`f64::next_down`, which needs Rust 1.86): where a step that
/// lands on a breakpoint evaluates its end, and so where the energy ledger reads the loads at
/// the end of the step.
pub(crate) fn just_below(t: f64) -> f64 {
    if !t.is_finite() {
        t
    } else if t == 0.0 {
        -f64::from_bits(1)
    } else if t > 0.0 {
        f64::from_bits(t.to_bits() - 1)
    } else {
        f64::from_bits(t.to_bits() + 1)
    }
}

/// Indices of non-finite values.
fn non_finite(values: &[f64]) -> Vec<usize> {
    (0..values.len())
        .filter(|&i| !values[i].is_finite())
        .take(BLAME)
        .collect()
}

/// Indices of the largest values, largest first.
fn largest(values: impl Iterator<Item = f64>) -> Vec<usize> {
    let mut indexed: Vec<(usize, f64)> = values.enumerate().collect();
    indexed.sort_by(|a, b| b.1.total_cmp(&a.1));
    indexed.into_iter().take(BLAME).map(|(i, _)| i).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::system::{
        ClosureEquations, ComponentSpec, Equation, EquationFactory, JacobianPattern, System,
    };

    /// Builds the integrator for all of `system` as one component with no inputs.
    fn integrator(
        system: &System,
        equations: &ClosureEquations,
        control: &StepControl,
    ) -> ComponentIntegrator {
        let own: Vec<_> = (0..system.len() as u32)
            .map(crate::sim::system::VarId)
            .collect();
        let spec = ComponentSpec {
            system,
            own: &own,
            inputs: &[],
        };
        let values: Vec<f64> = system.variables().map(|v| v.initial()).collect();
        let prescriptions = own
            .iter()
            .filter(|v| !system.variable(**v).prescriptions().is_empty())
            .map(|v| (v.index(), system.variable(*v).prescriptions().to_vec()))
            .collect();
        let built = equations.build(&spec).unwrap();
        ComponentIntegrator::new(built, 0, prescriptions, system.start(), &values, control).unwrap()
    }

    fn no_inputs(_: f64, _: Side, _: &mut [f64]) {}

    /// Runs to `end`, returning every accepted point.
    fn run(
        integrator: &mut ComponentIntegrator,
        end: f64,
        control: &StepControl,
    ) -> Vec<(f64, Vec<f64>)> {
        let mut points = vec![(integrator.time(), integrator.values().to_vec())];
        while integrator.time() < end {
            integrator.step(end, &mut no_inputs, control).unwrap();
            points.push((integrator.time(), integrator.values().to_vec()));
        }
        points
    }

    #[test]
    fn exponential_decay_stays_within_tolerance() {
        let mut system = System::new(0.0, 5.0);
        let x = system.add_variable("x", 1.0);
        let mut eqs = ClosureEquations::new();
        eqs.define(
            &mut system,
            x,
            Equation::new(move |_, v| -2.0 * v.get(x)).reads(x, |_, _| -2.0),
        );
        let control = StepControl::default();
        let mut integ = integrator(&system, &eqs, &control);
        let points = run(&mut integ, 5.0, &control);
        // The tolerance (1e-6 absolute and relative) bounds the error per unit of time, and
        // decay forgets errors: by time t the error is below t · 1e-6 · (1 + |x|).
        for (t, v) in &points {
            let error = (v[0] - (-2.0 * t).exp()).abs();
            assert!(error <= t * 2e-6, "t {t}: error {error}");
        }
        assert!(points.len() < 200, "{} steps", points.len());
        assert_eq!(points.last().unwrap().0, 5.0);
        assert_eq!(integ.stats().implicit_steps, 0);
    }

    #[test]
    fn constant_acceleration_is_exact_and_steps_grow() {
        let mut system = System::new(0.0, 10.0);
        let y = system.add_variable("y", 100.0);
        let dy = system.add_variable("dy", 3.0);
        let mut eqs = ClosureEquations::new();
        eqs.define(
            &mut system,
            y,
            Equation::new(move |_, v| v.get(dy)).reads(dy, |_, _| 1.0),
        );
        eqs.define(&mut system, dy, Equation::new(|_, _| -9.81));
        let control = StepControl::default();
        let mut integ = integrator(&system, &eqs, &control);
        let points = run(&mut integ, 10.0, &control);
        for (t, v) in &points {
            let exact = 100.0 + 3.0 * t - 0.5 * 9.81 * t * t;
            assert!(
                (v[0] - exact).abs() <= 1e-9 * exact.abs().max(1.0),
                "t {t}: {} vs {exact}",
                v[0]
            );
        }
        // A quadratic is integrated and interpolated exactly: the steps double up to the end.
        assert!(points.len() < 20, "{} steps", points.len());
    }

    #[test]
    fn prescribed_variable_follows_its_function_and_ignores_its_equation() {
        let mut system = System::new(0.0, 1.0);
        let x = system.add_variable("x", 0.0);
        let y = system.add_variable("y", 0.0);
        system.prescribe(
            x,
            crate::sim::system::Prescription::new(0.0, 1.0, |t| (t.sin(), t.cos())),
        );
        let mut eqs = ClosureEquations::new();
        eqs.define(&mut system, x, Equation::new(|_, _| 1000.0));
        eqs.define(
            &mut system,
            y,
            Equation::new(move |_, v| v.get(x)).reads(x, |_, _| 1.0),
        );
        let control = StepControl::default();
        let mut integ = integrator(&system, &eqs, &control);
        assert!(!integ.enter_prescriptions());
        let points = run(&mut integ, 1.0, &control);
        for (t, v) in &points {
            assert_eq!(v[0], t.sin());
            assert!((v[1] - (1.0 - t.cos())).abs() < 1e-4);
        }
    }

    #[test]
    fn non_finite_derivatives_name_the_variable() {
        let mut system = System::new(0.0, 1.0);
        let a = system.add_variable("a", 1.0);
        let b = system.add_variable("b", 0.0);
        let mut eqs = ClosureEquations::new();
        eqs.define(&mut system, a, Equation::new(|_, _| 0.0));
        eqs.define(
            &mut system,
            b,
            Equation::new(move |_, v| 1.0 / v.get(b))
                .reads(b, move |_, v| -1.0 / (v.get(b) * v.get(b))),
        );
        let control = StepControl::default();
        let mut integ = integrator(&system, &eqs, &control);
        let failure = integ.step(1.0, &mut no_inputs, &control).unwrap_err();
        assert_eq!(failure.kind, FailureKind::NonFinite);
        assert_eq!(failure.variables, vec![1]);
        assert_eq!(failure.time, 0.0);
    }

    /// dx/dt = x² with x = 1 at `start`: it blows up one second later.
    fn squaring(start: f64, end: f64) -> (System, ClosureEquations) {
        let mut system = System::new(start, end);
        let x = system.add_variable("x", 1.0);
        let mut eqs = ClosureEquations::new();
        eqs.define(
            &mut system,
            x,
            Equation::new(move |_, v| v.get(x) * v.get(x)).reads(x, move |_, v| 2.0 * v.get(x)),
        );
        (system, eqs)
    }

    /// dx/dt = x² from x = 1 blows up at t = 1: steps shrink to the minimum and fail there.
    #[test]
    fn blow_up_collapses_the_step() {
        let (system, eqs) = squaring(0.0, 2.0);
        let control = StepControl {
            min_step: 1e-9,
            ..StepControl::default()
        };
        let mut integ = integrator(&system, &eqs, &control);
        let failure = loop {
            if let Err(failure) = integ.step(2.0, &mut no_inputs, &control) {
                break failure;
            }
        };
        assert!(
            failure.time > 0.9 && failure.time < 1.0,
            "failed at {}",
            failure.time
        );
        assert!(failure.step <= 1e-9);
        assert_eq!(failure.variables, vec![0]);
    }

    /// Far from t = 0, `t0 + min_step - t0` rounds to a little more than `min_step`; the
    /// integrator must still give up there instead of retrying that step forever.
    #[test]
    fn blow_up_far_from_zero_still_fails_at_the_minimum_step() {
        let (system, eqs) = squaring(1000.0, 1002.0);
        let control = StepControl {
            min_step: 1e-12,
            ..StepControl::default()
        };
        let mut integ = integrator(&system, &eqs, &control);
        let mut steps = 0;
        let failure = loop {
            match integ.step(1002.0, &mut no_inputs, &control) {
                Ok(_) => steps += 1,
                Err(failure) => break failure,
            }
            assert!(steps < 100_000, "no failure after {steps} steps");
        };
        assert!(failure.time > 1000.9 && failure.time < 1001.0);
    }

    struct Stray;
    impl ComponentEquations for Stray {
        fn jacobian_pattern(&self) -> JacobianPattern {
            JacobianPattern::Sparse(vec![(0, 0)])
        }
        fn eval(
            &mut self,
            _: f64,
            own: &[f64],
            _: &[f64],
            f: &mut [f64],
            jac: &mut JacobianSink<'_>,
        ) {
            f[0] = -1e5 * own[0];
            f[1] = 0.0;
            jac.set(0, 0, -1e5);
            jac.set(1, 0, 2.0);
        }
    }

    /// The explicit method never asks for the Jacobian; a stiff component, once it continues
    /// by the implicit method, has a wrong one reported.
    #[test]
    fn jacobian_entries_outside_the_pattern_are_reported() {
        let control = StepControl::default();
        let mut integ =
            ComponentIntegrator::new(Box::new(Stray), 0, Vec::new(), 0.0, &[1.0, 0.0], &control)
                .unwrap();
        let failure = loop {
            if let Err(failure) = integ.step(1.0, &mut no_inputs, &control) {
                break failure;
            }
        };
        assert_eq!(failure.kind, FailureKind::StrayJacobian { row: 1, col: 0 });
        // Found stiff after its explicit steps, it asked for the Jacobian only then.
        assert!(integ.stats().steps >= u64::from(explicit::STIFF_COUNT));
    }

    #[test]
    fn a_stiff_component_continues_by_the_implicit_method() {
        // x' = -k (x - cos t): after a fast transient x follows cos t closely.
        let k = 1e4;
        let mut system = System::new(0.0, 3.0);
        let x = system.add_variable("x", 0.0);
        let mut eqs = ClosureEquations::new();
        eqs.define(
            &mut system,
            x,
            Equation::new(move |t, v| -k * (v.get(x) - t.cos())).reads(x, move |_, _| -k),
        );
        let control = StepControl::default();
        let mut integ = integrator(&system, &eqs, &control);
        let points = run(&mut integ, 3.0, &control);
        let exact =
            |t: f64| (k * k * t.cos() + k * t.sin() - k * k * (-k * t).exp()) / (k * k + 1.0);
        for (t, v) in &points {
            let error = (v[0] - exact(*t)).abs();
            assert!(error <= t * 2e-6 + 1e-12, "t {t}: error {error}");
        }
        let stats = integ.stats();
        assert!(stats.implicit_steps > 0, "{stats:?}");
        // Held to the explicit method's stability bound it would take about 10,000 steps.
        assert!(stats.steps < 3000, "{} steps", stats.steps);
    }

    /// A harmonic oscillator whose energy `x² + v²` is its first integral.
    struct Oscillator {
        conserving: bool,
    }

    impl ComponentEquations for Oscillator {
        fn jacobian_pattern(&self) -> JacobianPattern {
            JacobianPattern::Dense
        }
        fn eval(&mut self, _: f64, own: &[f64], _: &[f64], f: &mut [f64], _: &mut JacobianSink) {
            f[0] = own[1];
            f[1] = -own[0];
        }
        fn first_integral(
            &mut self,
            _: f64,
            own: &[f64],
            _: &[f64],
            gradient: &mut [f64],
        ) -> Option<f64> {
            gradient[0] = 2.0 * own[0];
            gradient[1] = 2.0 * own[1];
            self.conserving.then(|| own[0] * own[0] + own[1] * own[1])
        }
    }

    #[test]
    fn a_first_integral_is_held_at_its_start() {
        let control = StepControl {
            tolerance: crate::sim::integrate::Tolerance::new(1e-4, 1e-4),
            ..StepControl::default()
        };
        let energy_drift = |conserving: bool| {
            let mut integ = ComponentIntegrator::new(
                Box::new(Oscillator { conserving }),
                0,
                Vec::new(),
                0.0,
                &[1.0, 0.0],
                &control,
            )
            .unwrap();
            let end = 100.0 * std::f64::consts::TAU;
            run(&mut integ, end, &control)
                .iter()
                .map(|(_, v)| (v[0] * v[0] + v[1] * v[1] - 1.0).abs())
                .fold(0.0, f64::max)
        };
        assert!(energy_drift(true) < 1e-14, "{}", energy_drift(true));
        assert!(energy_drift(false) > 1e-6, "{}", energy_drift(false));
    }

    /// At a tight tolerance every step's correction is shorter than `ONE_CORRECTION`, so
    /// each is made once without a check: the remainders stay at rounding and do not add
    /// up over thousands of steps, since every step is projected onto the level at the start.
    #[test]
    fn single_corrections_keep_the_first_integral_without_drift() {
        let control = StepControl {
            tolerance: crate::sim::integrate::Tolerance::new(1e-9, 1e-9),
            ..StepControl::default()
        };
        let mut integ = ComponentIntegrator::new(
            Box::new(Oscillator { conserving: true }),
            0,
            Vec::new(),
            0.0,
            &[1.0, 0.0],
            &control,
        )
        .unwrap();
        let points = run(&mut integ, 100.0 * std::f64::consts::TAU, &control);
        assert!(points.len() > 2000, "{} steps", points.len());
        let drift = points
            .iter()
            .map(|(_, v)| (v[0] * v[0] + v[1] * v[1] - 1.0).abs())
            .fold(0.0, f64::max);
        assert!(drift < 1e-14, "{drift}");
    }
}
