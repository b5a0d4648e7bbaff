//! Equations written by hand as Rust closures with analytic partial derivatives.
//!
//! The physics layer compiles symbolic equations to tapes; this factory serves everything that
//! is easier written directly: the simulator's own tests and benchmarks, and small special-purpose
//! systems. Each variable gets a right-hand side `f_i(t, values)` and one closure per variable it
//! reads giving `∂f_i/∂x_j`; the reads declared this way form the reference graph.

use super::equations::{
    ComponentEquations, ComponentSpec, EquationFactory, JacobianPattern, JacobianSink,
};
use super::variable::{System, VarId};
use std::sync::Arc;

/// A scalar function of time and the current values of the variables an equation reads.
pub type ScalarFn = Arc<dyn Fn(f64, &Values<'_>) -> f64 + Send + Sync>;

/// The values an equation may read during one evaluation, looked up by variable id.
pub struct Values<'a> {
    own: &'a [f64],
    inputs: &'a [f64],
    slots: &'a [(VarId, Slot)],
}

impl Values<'_> {
    /// The value of `var`, or NaN if the equation did not declare that it reads `var` (the
    /// integrator then reports a non-finite value for the equation's variable).
    pub fn get(&self, var: VarId) -> f64 {
        match self.slots.binary_search_by_key(&var, |&(v, _)| v) {
            Ok(i) => match self.slots[i].1 {
                Slot::Own(k) => self.own[k as usize],
                Slot::Input(k) => self.inputs[k as usize],
            },
            Err(_) => f64::NAN,
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Slot {
    Own(u32),
    Input(u32),
}

/// One equation `dx/dt = rhs(t, values)` with the partial derivative of `rhs` for every
/// variable it reads.
#[derive(Clone)]
pub struct Equation {
    rhs: ScalarFn,
    partials: Vec<(VarId, ScalarFn)>,
}

impl Equation {
    /// An equation that reads nothing until [`Equation::reads`] declares it.
    pub fn new(rhs: impl Fn(f64, &Values<'_>) -> f64 + Send + Sync + 'static) -> Equation {
        Equation {
            rhs: Arc::new(rhs),
            partials: Vec::new(),
        }
    }

    /// Declares that the equation reads `var`, with `∂rhs/∂var` given by `partial`.
    pub fn reads(
        mut self,
        var: VarId,
        partial: impl Fn(f64, &Values<'_>) -> f64 + Send + Sync + 'static,
    ) -> Equation {
        self.partials.push((var, Arc::new(partial)));
        self
    }
}

/// An [`EquationFactory`] over hand-written [`Equation`]s, one per variable.
#[derive(Clone, Default)]
pub struct ClosureEquations {
    equations: Vec<Option<Equation>>,
}

/// Components larger than this get a sparse Jacobian pattern.
const DENSE_LIMIT: usize = 16;

impl ClosureEquations {
    pub fn new() -> ClosureEquations {
        ClosureEquations::default()
    }

    /// Gives `var` its equation and records what it reads in `system`.
    pub fn define(&mut self, system: &mut System, var: VarId, equation: Equation) {
        let reads: Vec<VarId> = equation.partials.iter().map(|&(v, _)| v).collect();
        system.set_reads(var, &reads);
        if self.equations.len() <= var.index() {
            self.equations.resize(var.index() + 1, None);
        }
        self.equations[var.index()] = Some(equation);
    }
}

impl EquationFactory for ClosureEquations {
    fn build(&self, spec: &ComponentSpec<'_>) -> Result<Box<dyn ComponentEquations>, String> {
        let mut slots: Vec<(VarId, Slot)> = spec
            .own
            .iter()
            .enumerate()
            .map(|(k, &v)| (v, Slot::Own(k as u32)))
            .chain(
                spec.inputs
                    .iter()
                    .enumerate()
                    .map(|(k, &v)| (v, Slot::Input(k as u32))),
            )
            .collect();
        slots.sort_unstable_by_key(|&(v, _)| v);

        let mut rhs = Vec::with_capacity(spec.own.len());
        let mut entries = Vec::new();
        for (row, &var) in spec.own.iter().enumerate() {
            let equation = self
                .equations
                .get(var.index())
                .and_then(Option::as_ref)
                .ok_or_else(|| format!("variable `{}` has no equation", spec.system.name(var)))?;
            rhs.push(equation.rhs.clone());
            for (read, partial) in &equation.partials {
                let slot = slots.binary_search_by_key(read, |&(v, _)| v);
                if let Ok(i) = slot {
                    if let Slot::Own(col) = slots[i].1 {
                        entries.push((row as u32, col, partial.clone()));
                    }
                }
            }
        }
        let n = spec.own.len();
        let dense = n <= DENSE_LIMIT;
        let jacobian: Vec<(usize, ScalarFn)> = entries
            .iter()
            .enumerate()
            .map(|(k, (row, col, partial))| {
                let position = if dense {
                    *row as usize * n + *col as usize
                } else {
                    k
                };
                (position, partial.clone())
            })
            .collect();
        let pattern = if dense {
            JacobianPattern::Dense
        } else {
            JacobianPattern::Sparse(entries.iter().map(|&(r, c, _)| (r, c)).collect())
        };
        Ok(Box::new(ClosureComponent {
            slots,
            rhs,
            jacobian,
            pattern,
        }))
    }
}

/// The evaluator [`ClosureEquations`] builds for one component.
struct ClosureComponent {
    slots: Vec<(VarId, Slot)>,
    rhs: Vec<ScalarFn>,
    /// Storage position in the declared layout and the partial that fills it.
    jacobian: Vec<(usize, ScalarFn)>,
    pattern: JacobianPattern,
}

impl ComponentEquations for ClosureComponent {
    fn jacobian_pattern(&self) -> JacobianPattern {
        self.pattern.clone()
    }

    fn eval(
        &mut self,
        t: f64,
        own: &[f64],
        inputs: &[f64],
        f: &mut [f64],
        jacobian: &mut JacobianSink<'_>,
    ) {
        let values = Values {
            own,
            inputs,
            slots: &self.slots,
        };
        for (out, rhs) in f.iter_mut().zip(&self.rhs) {
            *out = rhs(t, &values);
        }
        if let Some(storage) = jacobian.values() {
            for (position, partial) in &self.jacobian {
                storage[*position] = partial(t, &values);
            }
        }
    }
}
