//! A component as the scheduler runs it: its integrator, where its inputs come from, and the
//! times it must land on.

use super::hold::Holds;
use crate::sim::error::{ErrorKind, SimError};
use crate::sim::graph::{ComponentId, Partition};
use crate::sim::integrate::{ComponentIntegrator, StepControl};
use crate::sim::motion::Tracks;
use crate::sim::system::{
    ComponentEquations, ComponentSpec, EquationFactory, Prescription, System, VarId,
};
use crate::sim::track::{Cursor, Side};

/// Where one input value comes from.
struct InputSlot {
    source: ComponentId,
    local: usize,
    /// The input variable's prescriptions: on them its value is taken from the function,
    /// exactly, rather than from the source's track.
    prescriptions: Vec<Prescription>,
}

pub(crate) struct Component {
    pub(crate) integrator: ComponentIntegrator,
    inputs: Vec<InputSlot>,
    cursors: Vec<Cursor>,
    /// Times after the start the component must land on and restart at, sorted; those past
    /// `end` wait there until the end time moves on.
    breakpoints: Vec<f64>,
    /// The end time: no step goes beyond it.
    end: f64,
    /// A time the component waits at until its observer moves the gate on (see
    /// [`StepContext::set_gate`](super::StepContext::set_gate)); infinite when open.
    gate: f64,
}

impl Component {
    /// The component `c` of `partition`, at the start with its initial values (prescribed ones
    /// applied).
    pub(crate) fn new(
        system: &System,
        partition: &Partition,
        c: ComponentId,
        equations: Box<dyn ComponentEquations>,
        control: &StepControl,
    ) -> Result<Component, SimError> {
        let values = initial_values(system, partition.members(c));
        let integrator = ComponentIntegrator::new(
            equations,
            partition.inputs(c).len(),
            own_prescriptions(system, partition.members(c)),
            system.start(),
            &values,
            control,
        )
        .map_err(|message| build_error(system, partition, c, message))?;
        let mut component = Component {
            integrator,
            inputs: Vec::new(),
            cursors: Vec::new(),
            breakpoints: Vec::new(),
            end: system.end(),
            gate: f64::INFINITY,
        };
        component.rewire(system, partition, c);
        component.integrator.enter_prescriptions();
        Ok(component)
    }

    /// Builds `c`'s evaluator with `factory`.
    pub(crate) fn build_equations(
        system: &System,
        partition: &Partition,
        c: ComponentId,
        factory: &dyn EquationFactory,
    ) -> Result<Box<dyn ComponentEquations>, SimError> {
        let spec = ComponentSpec {
            system,
            own: partition.members(c),
            inputs: partition.inputs(c),
        };
        factory
            .build(&spec)
            .map_err(|message| build_error(system, partition, c, message))
    }

    /// Takes the component over as `c` of a new partition of `system` with the same members
    /// and inputs: renumbers its input sources and recomputes its breakpoints.
    pub(crate) fn rewire(&mut self, system: &System, partition: &Partition, c: ComponentId) {
        self.inputs = partition
            .inputs(c)
            .iter()
            .map(|&v| InputSlot {
                source: partition.component_of(v),
                local: partition.local_index(v),
                prescriptions: system.variable(v).prescriptions().to_vec(),
            })
            .collect();
        self.cursors = vec![Cursor::default(); self.inputs.len()];
        self.breakpoints = breakpoints(system, partition, c);
        self.end = system.end();
    }

    /// Takes the component over as `c` of a new partition in which an update keeps it: the
    /// same members and inputs, none of whose equations, prescriptions or breakpoints changed
    /// (or the update would have reset it), so only where each input is found changes. Unlike
    /// [`Component::rewire`] it reads no variable of the system: an edit of one body keeps a
    /// thousand components.
    pub(crate) fn renumber(&mut self, partition: &Partition, c: ComponentId, end: f64) {
        for (slot, &v) in self.inputs.iter_mut().zip(partition.inputs(c)) {
            slot.source = partition.component_of(v);
            slot.local = partition.local_index(v);
        }
        self.cursors.fill(Cursor::default());
        self.end = end;
    }

    /// Moves the end time (the simulation checked that nothing is computed beyond it).
    pub(crate) fn set_end(&mut self, end: f64) {
        self.end = end;
    }

    /// Starts over as `c` of `system` (same members and evaluator, new initial values or
    /// prescriptions), at the start.
    pub(crate) fn reset(
        &mut self,
        system: &System,
        partition: &Partition,
        c: ComponentId,
        control: &StepControl,
    ) {
        self.rewire(system, partition, c);
        self.gate = f64::INFINITY;
        let values = initial_values(system, partition.members(c));
        self.integrator.reinitialize(
            own_prescriptions(system, partition.members(c)),
            system.start(),
            &values,
            control,
        );
        self.integrator.enter_prescriptions();
    }

    /// Gives `c`'s integrator the prescriptions of its own variables again, the system's and
    /// the holds, after holds changed.
    pub(crate) fn refresh_prescriptions(
        &mut self,
        system: &System,
        partition: &Partition,
        c: ComponentId,
        holds: &Holds,
    ) {
        let mut list = own_prescriptions(system, partition.members(c));
        for (local, &v) in partition.members(c).iter().enumerate() {
            if !holds.has(v) {
                continue;
            }
            let held = holds.prescriptions(v);
            match list.iter_mut().find(|(l, _)| *l == local) {
                Some((_, own)) => own.extend(held),
                None => list.push((local, held.collect())),
            }
        }
        self.integrator.set_prescriptions(list);
    }

    /// The first breakpoint after `t`, or the end time or the gate if that comes first.
    pub(crate) fn next_breakpoint(&self, t: f64) -> f64 {
        let k = self.breakpoints.partition_point(|&b| b <= t);
        let limit = self.end.min(self.gate.max(t));
        self.breakpoints.get(k).map_or(limit, |&b| b.min(limit))
    }

    /// The time the component waits at (infinite when it does not).
    pub(crate) fn gate(&self) -> f64 {
        self.gate
    }

    pub(crate) fn set_gate(&mut self, gate: f64) {
        self.gate = gate;
    }

    /// Whether the component must restart at `t` (a discontinuity), as opposed to merely
    /// stopping there because the end time or its gate is `t`.
    pub(crate) fn is_breakpoint(&self, t: f64) -> bool {
        self.breakpoints
            .binary_search_by(|b| b.total_cmp(&t))
            .is_ok()
    }

    /// Where the next step will end.
    pub(crate) fn next_target(&self) -> f64 {
        let t = self.integrator.time();
        self.integrator.next_target(self.next_breakpoint(t))
    }

    /// Splits the component into its integrator and a function supplying its inputs from
    /// `tracks`, for one step.
    pub(crate) fn stepper<'a>(
        &'a mut self,
        tracks: &'a Tracks,
    ) -> (
        &'a mut ComponentIntegrator,
        impl FnMut(f64, Side, &mut [f64]) + 'a,
    ) {
        let Component {
            integrator,
            inputs,
            cursors,
            ..
        } = self;
        let supply = move |t: f64, side: Side, out: &mut [f64]| {
            for ((slot, cursor), value) in inputs.iter().zip(cursors.iter_mut()).zip(out) {
                *value = match prescribed_at(&slot.prescriptions, t, side) {
                    Some(p) => p.eval(t).0,
                    None => tracks
                        .read(slot.source)
                        .value(slot.local, t, side, cursor)
                        .unwrap_or(f64::NAN),
                };
            }
        };
        (integrator, supply)
    }
}

/// The prescription governing a value read at `t` from `side`: on `(start, end]` from before,
/// on `[start, end]` from after (the value jumps at `start`).
fn prescribed_at(list: &[Prescription], t: f64, side: Side) -> Option<&Prescription> {
    list.iter().find(|p| match side {
        Side::Before => p.start() < t && t <= p.end(),
        Side::After => p.start() <= t && t <= p.end(),
    })
}

fn initial_values(system: &System, members: &[VarId]) -> Vec<f64> {
    members
        .iter()
        .map(|&v| system.variable(v).initial())
        .collect()
}

fn own_prescriptions(system: &System, members: &[VarId]) -> Vec<(usize, Vec<Prescription>)> {
    members
        .iter()
        .enumerate()
        .filter(|(_, &v)| !system.variable(v).prescriptions().is_empty())
        .map(|(local, &v)| (local, system.variable(v).prescriptions().to_vec()))
        .collect()
}

/// The component's breakpoints after the start: its own variables' prescription ends and
/// declared breakpoints, and its inputs' prescription ends (their values jump there). They are
/// kept beyond the end time too, for when the end moves on (live stepping).
fn breakpoints(system: &System, partition: &Partition, c: ComponentId) -> Vec<f64> {
    let mut times = Vec::new();
    for &v in partition.members(c) {
        times.extend_from_slice(system.variable(v).breakpoints());
    }
    for &v in partition.members(c).iter().chain(partition.inputs(c)) {
        for p in system.variable(v).prescriptions() {
            times.push(p.start());
            times.push(p.end());
        }
    }
    times.retain(|&t| t > system.start() && t.is_finite());
    times.sort_by(f64::total_cmp);
    times.dedup();
    times
}

fn build_error(
    system: &System,
    partition: &Partition,
    c: ComponentId,
    message: String,
) -> SimError {
    SimError {
        kind: ErrorKind::Build,
        message: format!("cannot build the equations: {message}"),
        component: Some(c),
        time: None,
        variables: partition
            .members(c)
            .iter()
            .take(4)
            .map(|&v| system.name(v).to_string())
            .collect(),
    }
}
