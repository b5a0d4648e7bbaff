//! State variables: names, initial values, what each equation reads, prescriptions, breakpoints.

use super::prescription::Prescription;
use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

/// Identifies one state variable of a [`System`]. Ids are dense indices in the order the
/// variables were added, and they are how every other part of the simulator (the graph, the
/// tracks, back-up requests, incremental updates) refers to a variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u32);

impl VarId {
    /// The variable's position in [`System::variables`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One state variable `x_i` with its first-order equation `dx_i/dt = f_i(t, x)`.
///
/// The equation itself is not stored here: the simulator only needs to know which variables it
/// reads (the state-variable reference graph of section 5.2.1). The equations are evaluated by
/// the [`ComponentEquations`](super::ComponentEquations) that an
/// [`EquationFactory`](super::EquationFactory) builds per component.
#[derive(Clone, Debug)]
pub struct Variable {
    name: String,
    initial: f64,
    reads: Vec<VarId>,
    prescriptions: Vec<Prescription>,
    breakpoints: Vec<f64>,
}

impl Variable {
    /// Display name such as `b1.x`, used in statistics and error messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Value at the start time (before any prescription that begins at the start applies).
    pub fn initial(&self) -> f64 {
        self.initial
    }

    /// Variables `f_i` depends on, sorted and without duplicates.
    pub fn reads(&self) -> &[VarId] {
        &self.reads
    }

    /// Intervals on which the value is given by a function of time, sorted by start.
    pub fn prescriptions(&self) -> &[Prescription] {
        &self.prescriptions
    }

    /// Extra times the variable's component must land on exactly, sorted.
    pub fn breakpoints(&self) -> &[f64] {
        &self.breakpoints
    }

    /// The prescription that governs the value on a step starting at `t`, if any: the one whose
    /// interval `[start, end)` contains `t`.
    pub fn prescription_from(&self, t: f64) -> Option<&Prescription> {
        self.prescriptions
            .iter()
            .find(|p| p.start() <= t && t < p.end())
    }
}

/// The state variables of a scene and the time span to simulate: everything the simulator needs
/// to know about the equations except how to evaluate them.
///
/// Built by adding variables and declaring, per variable, which variables its equation reads.
/// [`System::validate`] checks the whole description; the simulator calls it before use.
///
/// Each variable is shared on its own and cloning a system shares them all, so that a model
/// and its simulation hold one description: an edit copies the variables it changes (and the
/// list of pointers, once), and [`System::validate_since`] checks only those.
#[derive(Clone, Debug)]
pub struct System {
    start: f64,
    end: f64,
    variables: Arc<Vec<Arc<Variable>>>,
}

impl System {
    /// An empty system to be simulated over `[start, end]`.
    pub fn new(start: f64, end: f64) -> System {
        System {
            start,
            end,
            variables: Arc::default(),
        }
    }

    pub fn start(&self) -> f64 {
        self.start
    }

    pub fn end(&self) -> f64 {
        self.end
    }

    /// Changes the end time (the start is fixed: every track begins there).
    pub fn set_end(&mut self, end: f64) {
        self.end = end;
    }

    /// Adds a variable whose equation reads nothing yet.
    pub fn add_variable(&mut self, name: impl Into<String>, initial: f64) -> VarId {
        let id = VarId(self.variables.len() as u32);
        Arc::make_mut(&mut self.variables).push(Arc::new(Variable {
            name: name.into(),
            initial,
            reads: Vec::new(),
            prescriptions: Vec::new(),
            breakpoints: Vec::new(),
        }));
        id
    }

    pub fn len(&self) -> usize {
        self.variables.len()
    }

    pub fn is_empty(&self) -> bool {
        self.variables.is_empty()
    }

    /// The variables, in id order.
    pub fn variables(&self) -> impl ExactSizeIterator<Item = &Variable> + '_ {
        self.variables.iter().map(|v| &**v)
    }

    /// Variable `id`, to change (copied first if another system shares it).
    fn variable_mut(&mut self, id: VarId) -> &mut Variable {
        Arc::make_mut(&mut Arc::make_mut(&mut self.variables)[id.index()])
    }

    /// The variable `id`.
    ///
    /// # Panics
    /// If `id` does not belong to this system (ids come from [`System::add_variable`]).
    pub fn variable(&self, id: VarId) -> &Variable {
        &self.variables[id.index()]
    }

    pub fn name(&self, id: VarId) -> &str {
        self.variable(id).name()
    }

    /// The id of the variable called `name`, if any.
    pub fn find(&self, name: &str) -> Option<VarId> {
        self.variables
            .iter()
            .position(|v| v.name == name)
            .map(|i| VarId(i as u32))
    }

    /// Gives variable `id` a new name.
    pub fn rename(&mut self, id: VarId, name: impl Into<String>) {
        self.variable_mut(id).name = name.into();
    }

    /// Forgets what `f_id` reads, its prescriptions and its breakpoints: for an equation about
    /// to be declared anew.
    pub fn clear_equation(&mut self, id: VarId) {
        let v = self.variable_mut(id);
        v.reads.clear();
        v.prescriptions.clear();
        v.breakpoints.clear();
    }

    pub fn set_initial(&mut self, id: VarId, value: f64) {
        self.variable_mut(id).initial = value;
    }

    /// Declares the variables `f_id` reads (the reference graph's arcs). Order and duplicates do
    /// not matter.
    pub fn set_reads(&mut self, id: VarId, reads: &[VarId]) {
        let mut reads = reads.to_vec();
        reads.sort_unstable();
        reads.dedup();
        self.variable_mut(id).reads = reads;
    }

    /// Makes the value of `id` follow `prescription` over its interval (a trajectory
    /// constraint, section 5.1.3).
    pub fn prescribe(&mut self, id: VarId, prescription: Prescription) {
        let list = &mut self.variable_mut(id).prescriptions;
        list.push(prescription);
        list.sort_by(|a, b| a.start().total_cmp(&b.start()));
    }

    /// Requires the component holding `id` to land on each of `times` exactly and restart
    /// there, as where a force changes discontinuously.
    pub fn add_breakpoints(&mut self, id: VarId, times: &[f64]) {
        let list = &mut self.variable_mut(id).breakpoints;
        list.extend_from_slice(times);
        list.sort_by(f64::total_cmp);
        list.dedup();
    }

    /// Checks the description: a finite, non-empty time span; unique non-empty names; finite
    /// initial values; reads that name existing variables; prescriptions that lie inside the
    /// time span and do not overlap; finite breakpoints.
    pub fn validate(&self) -> Result<(), SystemError> {
        if !(self.start.is_finite() && self.end.is_finite() && self.start < self.end) {
            return Err(SystemError::new(
                None,
                format!(
                    "the time span must be finite with start < end, got [{}, {}]",
                    self.start, self.end
                ),
            ));
        }
        let mut names = HashSet::with_capacity(self.variables.len());
        for v in self.variables() {
            if !names.insert(v.name.as_str()) {
                return Err(SystemError::new(
                    Some(v.name.clone()),
                    "the name is used by more than one variable".into(),
                ));
            }
            self.validate_variable(v)?;
        }
        Ok(())
    }

    /// [`System::validate`] for a system made from `earlier`, a valid one, by changing some
    /// of its variables and adding some: checks only the variables it does not share with
    /// `earlier` (all of them if the span changed or variables were removed), and the names
    /// against each other only if one of those has a name it did not have.
    pub fn validate_since(&self, earlier: &System) -> Result<(), SystemError> {
        let same_span = self.start == earlier.start && self.end == earlier.end;
        if !same_span || self.len() < earlier.len() {
            return self.validate();
        }
        let mut renamed = false;
        for (i, v) in self.variables.iter().enumerate() {
            let before = earlier.variables.get(i);
            if before.is_some_and(|b| Arc::ptr_eq(b, v)) {
                continue;
            }
            renamed |= before.is_none_or(|b| b.name != v.name);
            self.validate_variable(v)?;
        }
        if renamed {
            let mut names = HashSet::with_capacity(self.len());
            if let Some(v) = self.variables().find(|v| !names.insert(v.name.as_str())) {
                return Err(SystemError::new(
                    Some(v.name.clone()),
                    "the name is used by more than one variable".into(),
                ));
            }
        }
        Ok(())
    }

    /// Checks one variable of a system with a valid span (all but the names' uniqueness).
    fn validate_variable(&self, v: &Variable) -> Result<(), SystemError> {
        let located = |message: String| SystemError::new(Some(v.name.clone()), message);
        if v.name.is_empty() {
            return Err(SystemError::new(
                None,
                format!(
                    "variable with initial value {} has an empty name",
                    v.initial
                ),
            ));
        }
        if !v.initial.is_finite() {
            return Err(located(format!(
                "initial value must be finite, got {}",
                v.initial
            )));
        }
        if let Some(bad) = v.reads.iter().find(|r| r.index() >= self.variables.len()) {
            return Err(located(format!(
                "reads variable id {} but the system has only {} variables",
                bad.0,
                self.variables.len()
            )));
        }
        self.validate_prescriptions(v).map_err(located)?;
        if let Some(bad) = v.breakpoints.iter().find(|t| !t.is_finite()) {
            return Err(located(format!("breakpoint must be finite, got {bad}")));
        }
        Ok(())
    }

    fn validate_prescriptions(&self, v: &Variable) -> Result<(), String> {
        for (k, p) in v.prescriptions.iter().enumerate() {
            if !(p.start().is_finite() && p.end().is_finite() && p.start() < p.end()) {
                return Err(format!(
                    "prescription {} has an empty or non-finite interval [{}, {}]",
                    k + 1,
                    p.start(),
                    p.end()
                ));
            }
            if p.start() < self.start || p.end() > self.end {
                return Err(format!(
                    "prescription {} over [{}, {}] reaches outside the simulated span [{}, {}]",
                    k + 1,
                    p.start(),
                    p.end(),
                    self.start,
                    self.end
                ));
            }
            if let Some(next) = v.prescriptions.get(k + 1) {
                if next.start() < p.end() {
                    return Err(format!(
                        "prescriptions {} [{}, {}] and {} [{}, {}] overlap",
                        k + 1,
                        p.start(),
                        p.end(),
                        k + 2,
                        next.start(),
                        next.end()
                    ));
                }
            }
        }
        Ok(())
    }
}

/// A defect in a [`System`] description, naming the variable it was found in.
#[derive(Clone, Debug, PartialEq)]
pub struct SystemError {
    pub variable: Option<String>,
    pub message: String,
}

impl SystemError {
    fn new(variable: Option<String>, message: String) -> SystemError {
        SystemError { variable, message }
    }
}

impl fmt::Display for SystemError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.variable {
            Some(name) => write!(f, "variable `{name}`: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for SystemError {}
