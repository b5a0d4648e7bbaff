//! State variables: names, initial values, what each equation reads, prescriptions, breakpoints.

use super::prescription::Prescription;
use crate::lang::fxhash::{FxHashMap, FxHashSet, FxHasher};
use std::fmt;
use std::hash::Hasher;
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
/// Each variable is shared on its own, in chunks of [`CHUNK`] that are shared too, and
/// cloning a system shares them all, so that a model and its simulation hold one
/// description: an edit copies the variables it changes, the chunks holding them and the
/// short list of chunks, not a pointer per variable (at 13,000 variables, copying and
/// later dropping that list visited every variable's count, a tenth of a one-body update);
/// [`System::validate_since`] checks only the variables it does not share.
#[derive(Clone, Debug)]
pub struct System {
    start: f64,
    end: f64,
    /// The variables in id order, [`CHUNK`] to a chunk (the last one may hold fewer).
    chunks: Arc<Vec<Arc<Chunk>>>,
    len: usize,
    /// How many variables' names have each hash ([`name_hash`]): a name that an edit adds
    /// or changes is unique when no other name has its hash, which
    /// [`System::validate_since`] then knows without reading every other name (at 13,000
    /// variables, a cache miss or two per name: a fifth of a one-body update). In
    /// [`NAME_SHARDS`] shards by hash, each shared on its own, so that an edit copies the few
    /// shards its names fall in rather than every name's count (the count's map is shared
    /// with the model's system: copying it whole was a twentieth of a one-body update).
    name_hashes: Arc<Vec<Arc<FxHashMap<u64, u32>>>>,
}

/// Shards of [`System`]'s name counts.
const NAME_SHARDS: usize = 256;

/// The shard of [`System`]'s name counts that counts names of hash `hash`: its top bits, the
/// best mixed of Fx's.
fn name_shard(hash: u64) -> usize {
    (hash >> (64 - NAME_SHARDS.trailing_zeros())) as usize
}

/// The hash of a variable's name that [`System`] counts names by.
fn name_hash(name: &str) -> u64 {
    let mut hasher = FxHasher::default();
    hasher.write(name.as_bytes());
    hasher.finish()
}

/// Variables per shared chunk of a [`System`].
const CHUNK: usize = 64;

/// Up to [`CHUNK`] consecutive variables of a [`System`].
type Chunk = Vec<Arc<Variable>>;

impl System {
    /// An empty system to be simulated over `[start, end]`.
    pub fn new(start: f64, end: f64) -> System {
        System {
            start,
            end,
            chunks: Arc::default(),
            len: 0,
            name_hashes: Arc::new(vec![Arc::default(); NAME_SHARDS]),
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
        let id = VarId(self.len as u32);
        let name = name.into();
        self.count_name(name_hash(&name), 1);
        let variable = Arc::new(Variable {
            name,
            initial,
            reads: Vec::new(),
            prescriptions: Vec::new(),
            breakpoints: Vec::new(),
        });
        let chunks = Arc::make_mut(&mut self.chunks);
        match chunks.last_mut().filter(|c| c.len() < CHUNK) {
            Some(last) => Arc::make_mut(last).push(variable),
            None => chunks.push(Arc::new(vec![variable])),
        }
        self.len += 1;
        id
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The variables, in id order.
    pub fn variables(&self) -> impl ExactSizeIterator<Item = &Variable> + '_ {
        (0..self.len).map(|i| self.variable(VarId(i as u32)))
    }

    /// Variable `id`, to change (copied first if another system shares it, with its chunk).
    fn variable_mut(&mut self, id: VarId) -> &mut Variable {
        let chunk = &mut Arc::make_mut(&mut self.chunks)[id.index() / CHUNK];
        Arc::make_mut(&mut Arc::make_mut(chunk)[id.index() % CHUNK])
    }

    /// The variable `id`.
    ///
    /// # Panics
    /// If `id` does not belong to this system (ids come from [`System::add_variable`]).
    pub fn variable(&self, id: VarId) -> &Variable {
        &self.chunks[id.index() / CHUNK][id.index() % CHUNK]
    }

    pub fn name(&self, id: VarId) -> &str {
        self.variable(id).name()
    }

    /// The id of the variable called `name`, if any.
    pub fn find(&self, name: &str) -> Option<VarId> {
        self.variables()
            .position(|v| v.name == name)
            .map(|i| VarId(i as u32))
    }

    /// Gives variable `id` a new name.
    pub fn rename(&mut self, id: VarId, name: impl Into<String>) {
        let name = name.into();
        let hash = name_hash(&name);
        let before = std::mem::replace(&mut self.variable_mut(id).name, name);
        self.count_name(name_hash(&before), -1);
        self.count_name(hash, 1);
    }

    /// Counts one more (`by` 1) or one fewer (`by` -1) variable whose name has `hash`.
    fn count_name(&mut self, hash: u64, by: i32) {
        let shards = Arc::make_mut(&mut self.name_hashes);
        let counts = Arc::make_mut(&mut shards[name_shard(hash)]);
        let count = counts.entry(hash).or_insert(0);
        *count = count.saturating_add_signed(by);
        if *count == 0 {
            counts.remove(&hash);
        }
    }

    /// Whether another variable's name may be `name` (one that has its hash).
    fn name_shared(&self, name: &str) -> bool {
        let hash = name_hash(name);
        self.name_hashes[name_shard(hash)]
            .get(&hash)
            .is_some_and(|&n| n > 1)
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
        let mut names = FxHashSet::with_capacity_and_hasher(self.len, Default::default());
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
    /// against each other only if one of those has a name it did not have whose hash another
    /// name has too.
    pub fn validate_since(&self, earlier: &System) -> Result<(), SystemError> {
        let same_span = self.start == earlier.start && self.end == earlier.end;
        if !same_span || self.len() < earlier.len() {
            return self.validate();
        }
        // Whether a name added or changed may be another variable's too.
        let mut clash = false;
        for (k, chunk) in self.chunks.iter().enumerate() {
            let before = earlier.chunks.get(k);
            if before.is_some_and(|b| Arc::ptr_eq(b, chunk)) {
                continue;
            }
            for (i, v) in chunk.iter().enumerate() {
                let before = before.and_then(|b| b.get(i));
                if before.is_some_and(|b| Arc::ptr_eq(b, v)) {
                    continue;
                }
                let renamed = before.is_none_or(|b| b.name != v.name);
                clash |= renamed && self.name_shared(&v.name);
                self.validate_variable(v)?;
            }
        }
        if clash {
            let mut names = FxHashSet::with_capacity_and_hasher(self.len, Default::default());
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
        if let Some(bad) = v.reads.iter().find(|r| r.index() >= self.len) {
            return Err(located(format!(
                "reads variable id {} but the system has only {} variables",
                bad.0, self.len
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A valid system of `n` variables `v0`, `v1`, … with initial values 0, 1, …
    fn system(n: usize) -> System {
        let mut s = System::new(0.0, 1.0);
        for i in 0..n {
            s.add_variable(format!("v{i}"), i as f64);
        }
        s
    }

    #[test]
    fn variables_are_found_across_chunks_and_copied_on_change() {
        let n = 3 * CHUNK + 5;
        let earlier = system(n);
        let mut s = earlier.clone();
        s.set_initial(VarId(CHUNK as u32 + 1), -1.0);
        for (i, v) in earlier.variables().enumerate() {
            assert_eq!(
                (v.name(), v.initial()),
                (format!("v{i}").as_str(), i as f64)
            );
        }
        assert_eq!(s.variables().len(), n);
        assert_eq!(s.variable(VarId(CHUNK as u32 + 1)).initial(), -1.0);
        assert_eq!(s.find(&format!("v{}", n - 1)), Some(VarId(n as u32 - 1)));
        // Only the changed variable's chunk was copied.
        let shared: Vec<bool> = (s.chunks.iter().zip(earlier.chunks.iter()))
            .map(|(a, b)| Arc::ptr_eq(a, b))
            .collect();
        assert_eq!(shared, [true, false, true, true]);
        assert!(s.validate_since(&earlier).is_ok());
    }

    #[test]
    fn a_new_name_copies_only_the_shard_of_the_name_counts_it_falls_in() {
        let earlier = system(1000);
        let mut s = earlier.clone();
        s.add_variable("new", 0.0);
        let copied: Vec<usize> = (0..NAME_SHARDS)
            .filter(|&k| !Arc::ptr_eq(&s.name_hashes[k], &earlier.name_hashes[k]))
            .collect();
        assert_eq!(copied, [name_shard(name_hash("new"))]);
        let counted = |s: &System| s.name_hashes.iter().map(|m| m.len()).sum::<usize>();
        assert_eq!((counted(&earlier), counted(&s)), (1000, 1001));
        assert!(s.validate_since(&earlier).is_ok());
    }

    #[test]
    fn a_name_added_or_changed_to_another_variables_is_refused() {
        let earlier = system(2 * CHUNK);
        let mut added = earlier.clone();
        added.add_variable("v7", 0.0);
        let error = added.validate_since(&earlier).unwrap_err();
        assert_eq!(error.variable.as_deref(), Some("v7"));
        assert_eq!(error, added.validate().unwrap_err());

        let mut renamed = earlier.clone();
        renamed.rename(VarId(CHUNK as u32 + 3), "v2");
        assert!(renamed.validate_since(&earlier).is_err());
        assert!(renamed.validate().is_err());
        // Renamed back, the names are unique again, and so are the counts of their hashes.
        renamed.rename(VarId(2), "v2 moved");
        assert!(renamed.validate_since(&earlier).is_ok());
        assert!(renamed.validate().is_ok());

        let mut fresh = earlier.clone();
        fresh.add_variable("w", 0.0);
        fresh.rename(VarId(0), "x");
        assert!(fresh.validate_since(&earlier).is_ok());
        assert_eq!(fresh.find("v0"), None);
    }
}
