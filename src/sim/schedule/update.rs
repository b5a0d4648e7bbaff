//! Incremental re-simulation after an edit (section 5.2.5).

use super::component::Component;
use super::queue::ReadyQueue;
use super::Simulation;
use crate::sim::error::{ErrorKind, SimError};
use crate::sim::graph::{ComponentId, Partition};
use crate::sim::integrate::StepControl;
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

    /// Carries out `plans` for a new `partition`: takes the old components and tracks apart
    /// and puts them together in the new order.
    fn apply_to(
        &mut self,
        system: &System,
        partition: Partition,
        plans: Vec<Plan>,
        report: &mut UpdateReport,
    ) {
        let control = self.options.step.clone();
        let mut old_components: Vec<Option<Component>> = std::mem::take(&mut self.components)
            .into_iter()
            .map(Some)
            .collect();
        let mut old_tracks: Vec<Option<SharedTrack>> = self
            .partition
            .ids()
            .map(|c| Some(self.tracks.shared(c)))
            .collect();
        let mut components = Vec::with_capacity(partition.len());
        let mut tracks = Vec::with_capacity(partition.len());
        for (c, plan) in partition.ids().zip(plans) {
            let (component, track) = match plan {
                Plan::Keep(old) => {
                    let mut component = take(&mut old_components, old);
                    component.renumber(&partition, c, system.end());
                    let track = take(&mut old_tracks, old);
                    keep_within(
                        &mut component,
                        &track,
                        system.end(),
                        self.system.end(),
                        &control,
                    );
                    report.kept.push(c);
                    (component, track)
                }
                Plan::Reset(old) => {
                    let mut component = take(&mut old_components, old);
                    component.reset(system, &partition, c, &control);
                    let track = new_track(system, &component);
                    report.reset.push(c);
                    (component, track)
                }
                Plan::Build(component) => {
                    let component = *component;
                    let track = new_track(system, &component);
                    report.reset.push(c);
                    report.rebuilt.push(c);
                    (component, track)
                }
            };
            components.push(component);
            tracks.push(track);
        }
        self.reached = tracks
            .iter()
            .map(|t| t.read().unwrap_or_else(PoisonError::into_inner).end_time())
            .collect();
        self.tracks = Arc::new(Tracks::new(&partition, tracks));
        self.motion.replace(self.tracks.clone());
        self.components = components;
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

fn take<T>(slots: &mut [Option<T>], c: ComponentId) -> T {
    slots[c.index()]
        .take()
        .expect("each old component has at most one counterpart")
}
