//! One component's integrator: adaptive trapezoidal steps solved by Newton–Raphson.

use super::control::StepControl;
use super::newton_matrix::NewtonMatrix;
use crate::sim::stats::ComponentStats;
use crate::sim::system::{ComponentEquations, JacobianLayout, JacobianSink, Prescription};
use crate::sim::track::Side;

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

/// An accepted step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Accepted {
    pub from: f64,
    pub to: f64,
}

/// How many variables a failure names at most.
const BLAME: usize = 4;

/// The state and workspace of one component's integration (the method is described in the
/// [module documentation](super)).
pub(crate) struct ComponentIntegrator {
    equations: Box<dyn ComponentEquations>,
    layout: JacobianLayout,
    matrix: NewtonMatrix,
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
    /// The step before the current point, if no restart came between (`f_previous` then holds
    /// the derivative at its start).
    previous: Option<f64>,
    step: f64,
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
}

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
    /// The explicit predictor of `x1`.
    predicted: &'a mut [f64],
    /// Newton residuals, then updates.
    residual: &'a mut [f64],
    /// Jacobian values in the evaluator's layout.
    jacobian: &'a mut [f64],
    /// Input values at the step's end.
    inputs: &'a mut [f64],
}

impl Workspace {
    fn new(values: &[f64], jacobian: usize, inputs: usize) -> Workspace {
        let n = values.len();
        let mut data = vec![0.0; 7 * n + jacobian + inputs];
        data[..n].copy_from_slice(values);
        Workspace { data, n, jacobian }
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
        let (jacobian, inputs) = rest.split_at_mut(self.jacobian);
        Arrays {
            x,
            f,
            f_previous,
            x1,
            f1,
            predicted,
            residual,
            jacobian,
            inputs,
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
        let matrix = NewtonMatrix::new(&layout);
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
            matrix,
            prescriptions,
            active: Vec::new(),
            fixed: Vec::new(),
            is_fixed,
            time,
            f_valid: false,
            previous: None,
            step: control.initial_step.min(control.max_step),
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
    /// re-evaluated, but with `step` (at least the conservative initial one; the initial one
    /// without it): a jump in velocity or a new contact load changes what the next step starts
    /// from, not how smooth the motion is after it, and restarting every body of a resting pile
    /// at the initial step at every contact tick made it regrow its steps over and over (the
    /// wall example took fifteen times as many steps). Error control shrinks the step if the
    /// motion after the jump needs it.
    pub(crate) fn restart_after_jump(
        &mut self,
        time: f64,
        values: &[f64],
        step: Option<f64>,
        control: &StepControl,
    ) {
        self.restart(time, values, control);
        if let Some(step) = step {
            self.step = step.clamp(self.step, control.max_step);
        }
    }

    /// Continues from the current point as from a discontinuity (after landing on a
    /// breakpoint).
    pub(crate) fn restart_here(&mut self, control: &StepControl) {
        self.f_valid = false;
        self.previous = None;
        self.step = control.initial_step.min(control.max_step);
        self.stats.restarts += 1;
    }

    /// Starts over at `time` with `values` and new prescriptions, keeping the evaluator (an
    /// incremental update that changed initial values or prescriptions only).
    pub(crate) fn reinitialize(
        &mut self,
        prescriptions: Vec<(usize, Vec<Prescription>)>,
        time: f64,
        values: &[f64],
        control: &StepControl,
    ) {
        self.set_prescriptions(prescriptions);
        self.restart(time, values, control);
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
        loop {
            let t1 = self.next_target(limit);
            let h = t1 - t0;
            let intended = self.step;
            inputs(t1, Side::Before, self.work.arrays().inputs);
            self.predict(t1, h);
            let outcome = self.newton(t1, h, control);
            let (factor, failure) = match outcome {
                Ok(iterations) => {
                    let (truncation, interpolation) = self.errors(h, control);
                    let factor = control.step_factor(truncation, interpolation, iterations);
                    if truncation.max(interpolation) <= 1.0 {
                        self.accept(t1, h, factor, control);
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
                        variables: self.worst_errors(h, control),
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
    }

    fn is_fixed(&self, i: usize) -> bool {
        self.is_fixed.get(i).copied().unwrap_or(false)
    }

    /// Evaluates `f` at the current point (after a restart).
    fn derivative_at_start(&mut self, inputs: &mut Inputs<'_>) -> Result<(), StepFailure> {
        let t0 = self.time;
        let w = self.work.arrays();
        inputs(t0, Side::After, w.inputs);
        let mut sink = JacobianSink::new(None, &self.layout);
        self.equations.eval(t0, w.x, w.inputs, w.f, &mut sink);
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
    fn newton(&mut self, t1: f64, h: f64, control: &StepControl) -> Result<u32, StepFailure> {
        let t0 = self.time;
        let fail = |kind, variables| StepFailure {
            kind,
            time: t0,
            step: h,
            variables,
        };
        let half = 0.5 * h;
        let mut iterations = 0;
        loop {
            self.evaluate_end(t1)
                .map_err(|kind| fail(kind, non_finite(self.work.arrays().f1)))?;
            let fixed = !self.is_fixed.is_empty();
            let w = self.work.arrays();
            let mut norm: f64 = 0.0;
            for i in 0..w.x.len() {
                w.residual[i] = if fixed && self.is_fixed[i] {
                    0.0
                } else {
                    w.x[i] + half * (w.f[i] + w.f1[i]) - w.x1[i]
                };
                let weight = control.tolerance.weight(w.x[i].abs().max(w.x1[i].abs()));
                norm = norm.max(w.residual[i].abs() / weight);
            }
            if iterations > 0 && norm <= control.newton_tolerance {
                return Ok(iterations);
            }
            if iterations == control.max_newton_iterations {
                let variables = largest(w.residual.iter().map(|r| r.abs()));
                return Err(fail(FailureKind::NotConverged, variables));
            }
            if let Err(singular) = self.matrix.factor(w.jacobian, half, &self.fixed) {
                return Err(fail(FailureKind::Singular, vec![singular.column]));
            }
            self.matrix.solve(w.residual);
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

    /// Evaluates `f1` and the Jacobian at `(t1, x1)`, with prescribed derivatives in place.
    /// Fails on a stray Jacobian entry or a non-finite derivative.
    fn evaluate_end(&mut self, t1: f64) -> Result<(), FailureKind> {
        let w = self.work.arrays();
        w.jacobian.fill(0.0);
        let mut sink = JacobianSink::new(Some(w.jacobian), &self.layout);
        self.equations.eval(t1, w.x1, w.inputs, w.f1, &mut sink);
        let stray = sink.stray_entry();
        self.stats.evaluations += 1;
        if let Some((row, col)) = stray {
            return Err(FailureKind::StrayJacobian { row, col });
        }
        for &active in &self.active {
            w.f1[active.0] = prescribed(&self.prescriptions, active, t1).1;
        }
        if w.f1.iter().all(|v| v.is_finite()) {
            Ok(())
        } else {
            Err(FailureKind::NonFinite)
        }
    }

    /// The step's truncation and interpolation errors relative to their tolerances (1.0 at the
    /// bound; the largest over the variables).
    fn errors(&mut self, h: f64, control: &StepControl) -> (f64, f64) {
        let mut truncation: f64 = 0.0;
        let mut interpolation: f64 = 0.0;
        for i in 0..self.work.n {
            let (t, p) = self.variable_errors(i, h, control);
            truncation = truncation.max(t);
            interpolation = interpolation.max(p);
        }
        (truncation, interpolation)
    }

    fn variable_errors(&mut self, i: usize, h: f64, control: &StepControl) -> (f64, f64) {
        let fixed = self.is_fixed(i);
        let previous = self.previous;
        let w = self.work.arrays();
        let magnitude = w.x[i].abs().max(w.x1[i].abs());
        let truncation = match previous {
            Some(h_prev) if !fixed => {
                let r = h / h_prev;
                let estimate = r / (3.0 * (r + 1.0)) * (w.x1[i] - w.predicted[i]).abs();
                estimate / control.tolerance.weight(magnitude)
            }
            _ => 0.0,
        };
        let interpolation = match &control.interpolation {
            Some(tolerance) => h / 8.0 * (w.f1[i] - w.f[i]).abs() / tolerance.weight(magnitude),
            None => 0.0,
        };
        (truncation, interpolation)
    }

    fn worst_errors(&mut self, h: f64, control: &StepControl) -> Vec<usize> {
        let errors: Vec<f64> = (0..self.work.n)
            .map(|i| {
                let (t, p) = self.variable_errors(i, h, control);
                t.max(p)
            })
            .collect();
        largest(errors.into_iter())
    }

    fn accept(&mut self, t1: f64, h: f64, factor: f64, control: &StepControl) {
        let w = self.work.arrays();
        w.f_previous.copy_from_slice(w.f);
        w.f.copy_from_slice(w.f1);
        w.x.copy_from_slice(w.x1);
        self.previous = Some(h);
        self.time = t1;
        self.step = (h * factor).clamp(control.min_step, control.max_step);
        self.stats.steps += 1;
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
        let values: Vec<f64> = system.variables().iter().map(|v| v.initial()).collect();
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
        let control = StepControl {
            interpolation: None,
            ..StepControl::default()
        };
        let mut integ = integrator(&system, &eqs, &control);
        let points = run(&mut integ, 5.0, &control);
        let worst = points
            .iter()
            .map(|(t, v)| (v[0] - (-2.0 * t).exp()).abs())
            .fold(0.0, f64::max);
        // The tolerance (1e-6) bounds each step's local error; the global error of a few
        // hundred steps stays within a few dozen times that.
        assert!(worst < 5e-5, "worst error {worst}");
        assert!(points.len() < 2000, "{} steps", points.len());
        assert_eq!(points.last().unwrap().0, 5.0);
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
        // Steps are bounded only by linear playback: h²/8 · 9.81 ≤ about 1e-3 (1 + |x|).
        assert!(points.len() < 1000, "{} steps", points.len());
        // A linear system takes exactly one Newton iteration per attempt.
        let stats = integ.stats();
        assert_eq!(stats.newton_iterations, stats.steps + stats.rejected);
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
            f[0] = -own[0];
            f[1] = 0.0;
            jac.set(0, 0, -1.0);
            jac.set(1, 0, 2.0);
        }
    }

    #[test]
    fn jacobian_entries_outside_the_pattern_are_reported() {
        let control = StepControl::default();
        let mut integ =
            ComponentIntegrator::new(Box::new(Stray), 0, Vec::new(), 0.0, &[1.0, 0.0], &control)
                .unwrap();
        let failure = integ.step(1.0, &mut no_inputs, &control).unwrap_err();
        assert_eq!(failure.kind, FailureKind::StrayJacobian { row: 1, col: 0 });
    }
}
