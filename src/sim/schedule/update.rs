//! Incremental re-simulation after an edit (section 5.2.5).

use super::component::Component;
use super::queue::ReadyQueue;
use super::Simulation;
use crate::sim::error::{ErrorKind, SimError};
use crate::sim::graph::{ComponentId, Partition};
use crate::sim::integrate::StepControl;
use crate::sim::memory::with_room;
use crate::sim::motion::{SharedTrack, Tracks};
use crate::sim::system::{ComponentEquations, ComponentSpec, EquationFactory, System, VarId};
use crate::sim::track::Track;
use crate::sim::Strategy;
use std::sync::{Arc, PoisonError, RwLock};

/// What an edit changed, by variable.
///
/// Variable ids must keep their meaning across an update: a variable whose id now stands for
/// something else must be listed under `equations`. New variables (ids beyond the old system)
/// need not be listed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Changes {
    /// Variables whose equation changed — what it computes or what it reads — or whose
    /// prescriptions or breakpoints changed. Their components get new evaluators.
    pub equations: Vec<VarId>,
    /// Variables whose initial value changed.
    pub initial_values: Vec<VarId>,
}

/// What an update did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UpdateReport {
    /// Components that kept their motion.
    pub kept: Vec<ComponentId>,
    /// Components reset to the start (changed, new, or depending on one that was).
    pub reset: Vec<ComponentId>,
    /// Among `reset`, those whose evaluator the factory built anew.
    pub rebuilt: Vec<ComponentId>,
    /// Kept components backed up because the observer tied them to reset ones (collisions).
    pub backed_up: Vec<ComponentId>,
}

/// How one component of the new partition comes about.
enum Plan {
    /// The old component `old`, motion and all.
    Keep(ComponentId),
    /// The old component's evaluator, restarted from the start.
    Reset(ComponentId),
    /// A new component around a new evaluator from the factory.
    Build(Box<Component>),
}

impl Simulation {
    /// Moves to the edited `system`: resets exactly the components containing changed
    /// variables and, transitively, those depending on them (and those the observer ties to
    /// them through collisions), keeping every other component's motion. The factory builds
    /// evaluators only for components whose equations changed or that are new. Nothing is
    /// integrated; [`Simulation::run`] recomputes what was reset.
    ///
    /// Fails, changing nothing, if `system` is invalid, `changes` names unknown variables, or
    /// the factory fails. `system` is checked where it differs from the simulation's own
    /// ([`System::validate_since`]): a clone of a model's system shares what an edit left.
    pub fn update(
        &mut self,
        system: System,
        factory: &dyn EquationFactory,
        changes: &Changes,
    ) -> Result<UpdateReport, SimError> {
        system
            .validate_since(&self.system)
            .map_err(|e| SimError::new(ErrorKind::InvalidSystem, e.to_string()))?;
        let mut equation_changed = vec![false; system.len()];
        let mut value_changed = vec![false; system.len()];
        for (list, flags) in [
            (&changes.equations, &mut equation_changed),
            (&changes.initial_values, &mut value_changed),
        ] {
            for v in list {
                match flags.get_mut(v.index()) {
                    Some(flag) => *flag = true,
                    None => {
                        return Err(SimError::new(
                            ErrorKind::InvalidRequest,
                            format!(
                                "changes name variable id {} but the system has {} variables",
                                v.0,
                                system.len()
                            ),
                        ))
                    }
                }
            }
        }

        // Without changed equations (what they read included) among the same variables, the
        // reference graph is the old one, and so are the partition and each component's
        // input wiring. Otherwise the components are found again around the changed
        // variables ([`Partition::after_edit`]).
        let same_graph = changes.equations.is_empty() && system.len() == self.system.len();
        let new_partition = (!same_graph).then(|| match self.options.strategy {
            Strategy::Combined => Partition::combined(&system),
            Strategy::EventDriven | Strategy::Sequential => {
                self.partition.after_edit(&system, &changes.equations)
            }
        });
        let partition = new_partition.as_ref().unwrap_or(&self.partition);
        let same_start = system.start() == self.system.start();
        let mut plans = Vec::with_capacity(partition.len());
        let mut kept = vec![false; partition.len()];
        for c in partition.ids() {
            let members = partition.members(c);
            let old = self
                .counterpart(members, partition.inputs(c))
                .filter(|_| same_start);
            let equations_same = !members.iter().any(|v| equation_changed[v.index()]);
            let values_same = !members.iter().any(|v| value_changed[v.index()]);
            let inputs_kept = partition.depends_on(c).iter().all(|d| kept[d.index()]);
            let plan = match old {
                Some(old) if equations_same && values_same && inputs_kept => {
                    kept[c.index()] = true;
                    Plan::Keep(old)
                }
                Some(old) if equations_same => Plan::Reset(old),
                _ => {
                    let equations = Component::build_equations(&system, partition, c, factory)?;
                    let component =
                        Component::new(&system, partition, c, equations, &self.options.step)?;
                    Plan::Build(Box::new(component))
                }
            };
            plans.push(plan);
        }

        // From here on nothing fails.
        let mut report = UpdateReport::default();
        match new_partition {
            None => self.apply_in_place(&system, plans, &mut report),
            Some(partition) => self.apply_to(&system, partition, plans, &mut report),
        }
        self.queue = ReadyQueue::new(self.partition.len());
        self.system = system;

        let start = self.system.start();
        let seeds = report.reset.iter().map(|&c| (c, start)).collect();
        report.backed_up = self
            .invalidate(seeds)
            .into_iter()
            .map(|t| t.component)
            .filter(|c| kept[c.index()])
            .collect();
        Ok(report)
    }

    /// Carries out `plans` for the same partition: each component and track stays in its
    /// place, and only those reset or rebuilt start over.
    fn apply_in_place(&mut self, system: &System, plans: Vec<Plan>, report: &mut UpdateReport) {
        let control = self.options.step.clone();
        let old_end = self.system.end();
        for (c, plan) in self.partition.ids().zip(plans) {
            let component = &mut self.components[c.index()];
            match plan {
                Plan::Keep(_) => {
                    component.set_end(system.end());
                    let track = self.tracks.shared(c);
                    if let Some(reached) =
                        keep_within(component, &track, system.end(), old_end, &control)
                    {
                        self.reached[c.index()] = reached;
                    }
                    report.kept.push(c);
                    continue;
                }
                Plan::Reset(_) => component.reset(system, &self.partition, c, &control),
                Plan::Build(built) => {
                    *component = *built;
                    report.rebuilt.push(c);
                }
            }
            *self.tracks.write(c) = Track::new(system.start(), component.integrator.values());
            self.reached[c.index()] = system.start();
            report.reset.push(c);
        }
    }

    /// Carries out `plans` for a new `partition`: puts the old components and tracks in the
    /// new order, in the memory of the old lists ([`rearrange`]), the new components among
    /// them.
    fn apply_to(
        &mut self,
        system: &System,
        partition: Partition,
        plans: Vec<Plan>,
        report: &mut UpdateReport,
    ) {
        let control = self.options.step.clone();
        let sources: Vec<Option<usize>> = plans
            .iter()
            .map(|plan| match plan {
                Plan::Keep(old) | Plan::Reset(old) => Some(old.index()),
                Plan::Build(_) => None,
            })
            .collect();
        let mut tracks: Vec<SharedTrack> = (self.partition.ids())
            .map(|c| self.tracks.shared(c))
            .collect();
        let mut kinds = Vec::with_capacity(plans.len());
        let (mut built, mut built_tracks) = (Vec::new(), Vec::new());
        for plan in plans {
            kinds.push(match plan {
                Plan::Keep(_) => Kind::Kept,
                Plan::Reset(_) => Kind::Reset,
                Plan::Build(component) => {
                    built_tracks.push(new_track(system, &component));
                    built.push(*component);
                    Kind::Built
                }
            });
        }
        rearrange(&mut self.components, &sources, built);
        rearrange(&mut tracks, &sources, built_tracks);
        let placed = self.components.iter_mut().zip(tracks.iter_mut());
        for ((c, kind), (component, track)) in partition.ids().zip(kinds).zip(placed) {
            match kind {
                Kind::Kept => {
                    component.renumber(&partition, c, system.end());
                    keep_within(component, track, system.end(), self.system.end(), &control);
                    report.kept.push(c);
                }
                Kind::Reset => {
                    component.reset(system, &partition, c, &control);
                    *track = new_track(system, component);
                    report.reset.push(c);
                }
                Kind::Built => {
                    report.reset.push(c);
                    report.rebuilt.push(c);
                }
            }
        }
        self.reached.clear();
        self.reached.extend(
            tracks
                .iter()
                .map(|t| t.read().unwrap_or_else(PoisonError::into_inner).end_time()),
        );
        self.tracks = Arc::new(Tracks::new(&partition, tracks));
        self.motion.replace(self.tracks.clone());
        self.partition = partition;
    }

    /// Changes initial values only: an [`update`](Simulation::update) that needs no new
    /// evaluators.
    pub fn change_initial_values(
        &mut self,
        values: &[(VarId, f64)],
    ) -> Result<UpdateReport, SimError> {
        let mut system = self.system.clone();
        for &(v, value) in values {
            if v.index() >= system.len() {
                return Err(SimError::new(
                    ErrorKind::InvalidRequest,
                    format!(
                        "variable id {} does not exist; the system has {} variables",
                        v.0,
                        system.len()
                    ),
                ));
            }
            system.set_initial(v, value);
        }
        let changes = Changes {
            equations: Vec::new(),
            initial_values: values.iter().map(|&(v, _)| v).collect(),
        };
        self.update(system, &NoNewEquations, &changes)
    }

    /// The old component with exactly these members and inputs, if any.
    fn counterpart(&self, members: &[VarId], inputs: &[VarId]) -> Option<ComponentId> {
        let first = members.first()?;
        if members
            .iter()
            .chain(inputs)
            .any(|v| v.index() >= self.system.len())
        {
            return None;
        }
        let old = self.partition.component_of(*first);
        (self.partition.members(old) == members && self.partition.inputs(old) == inputs)
            .then_some(old)
    }
}

/// The factory for updates that change no equations: never asked to build.
struct NoNewEquations;

impl EquationFactory for NoNewEquations {
    fn build(&self, _: &ComponentSpec<'_>) -> Result<Box<dyn ComponentEquations>, String> {
        Err("only initial values were to change, but the partition changed".into())
    }
}

/// Cuts a kept component's track back to `end` if the end moved earlier than `old_end`
/// (nothing is computed past the old end), restarting the component there. Returns the
/// track's new end if it was cut.
fn keep_within(
    component: &mut Component,
    track: &SharedTrack,
    end: f64,
    old_end: f64,
    control: &StepControl,
) -> Option<f64> {
    if end >= old_end {
        return None;
    }
    let mut data = track.write().unwrap_or_else(PoisonError::into_inner);
    if !data.truncate(end) {
        return None;
    }
    let (end, values) = (data.end_time(), data.last_point());
    component.integrator.restart(end, values, control);
    Some(end)
}

fn new_track(system: &System, component: &Component) -> SharedTrack {
    let track = Track::new(system.start(), component.integrator.values());
    Arc::new(RwLock::new(track))
}

/// What becomes of a component of the new partition (its [`Plan`], the component taken out).
#[derive(Clone, Copy)]
enum Kind {
    Kept,
    Reset,
    Built,
}

/// Puts `items` in a new order in their own memory: item `c` becomes the old item
/// `sources[c]`, or for `None` the next of `fresh`; old items no source names are dropped.
/// Each old item is named at most once.
///
/// Each item is moved by swaps along the cycles of the permutation, within the list's own
/// allocation (made with room, [`with_room`], for what an edit adds): collecting the
/// components into new lists beside the old ones touched a thousand components' worth of
/// fresh memory at the first update after adding a body, and its page faults were a sixth of
/// that update.
fn rearrange<T>(items: &mut Vec<T>, sources: &[Option<usize>], fresh: impl IntoIterator<Item = T>) {
    let old = items.len();
    let fresh = fresh.into_iter();
    let wanted = old + fresh.size_hint().0;
    if items.capacity() < wanted {
        items.reserve_exact(with_room(wanted) - old);
    }
    items.extend(fresh);
    // Where each item goes: its place, or for one dropped a place after the last.
    const NOWHERE: usize = usize::MAX;
    let mut goes = vec![NOWHERE; items.len()];
    let mut next_fresh = old;
    for (c, source) in sources.iter().enumerate() {
        let from = source.unwrap_or_else(|| {
            next_fresh += 1;
            next_fresh - 1
        });
        debug_assert_eq!(goes[from], NOWHERE, "an item named twice");
        goes[from] = c;
    }
    let dropped = goes.iter_mut().filter(|g| **g == NOWHERE);
    for (spare, place) in (sources.len()..).zip(dropped) {
        *place = spare;
    }
    for i in 0..items.len() {
        while goes[i] != i {
            let j = goes[i];
            items.swap(i, j);
            goes.swap(i, j);
        }
    }
    items.truncate(sources.len());
}

#[cfg(test)]
mod tests {
    use super::rearrange;

    #[test]
    fn rearranging_moves_names_and_drops_in_the_lists_own_memory() {
        let mut items: Vec<String> = ["a", "b", "c", "d", "e"].map(String::from).to_vec();
        items.reserve_exact(4);
        let memory = items.as_ptr();
        // "b" dropped, two fresh items, the others moved (a body added at the top, say).
        let sources = [None, Some(3), Some(0), None, Some(2), Some(4)];
        rearrange(&mut items, &sources, ["x", "y"].map(String::from));
        assert_eq!(items, ["x", "d", "a", "y", "c", "e"]);
        assert_eq!(items.as_ptr(), memory, "the list stays in its own memory");
        // Shorter, and without room: the fresh item grows the list.
        rearrange(&mut items, &[Some(5), None], ["z".to_string()]);
        assert_eq!(items, ["e", "z"]);
        let mut full: Vec<u32> = vec![1, 2];
        full.shrink_to_fit();
        rearrange(&mut full, &[Some(1), None, Some(0)], [3]);
        assert_eq!(full, [2, 3, 1]);
    }
}
