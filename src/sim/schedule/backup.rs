//! Backing components up to an earlier time (figure 5.10): after a collision, and to the start
//! after an edit.

use super::observer::{BackUp, Truncation};
use super::Simulation;
use crate::sim::error::{ErrorKind, SimError};
use crate::sim::graph::ComponentId;
use std::collections::HashMap;

impl Simulation {
    /// Backs `request.components` (and the components of the jumped, held and released
    /// variables) up to `request.time`, transitively backing up every component that depends
    /// on them and every component the observer names; applies the jumps, then the holds and
    /// releases, at that time; and restarts all of them there with the step they were taking (a jump or a new
    /// contact load changes what the next step starts from, not how smooth the motion is).
    /// Queue entries whose inputs are no longer computed far enough are dropped. Components not reached by any of this keep all their data.
    ///
    /// Returns the truncations made. Fails, changing nothing, if the request names an unknown
    /// component or variable, a time outside the simulated span, a non-finite jump, or a jump
    /// on a component not yet computed up to the time.
    pub fn back_up(&mut self, request: &BackUp) -> Result<Vec<Truncation>, SimError> {
        let time = request.time;
        self.check_back_up(request)?;
        let mut seeds: Vec<(ComponentId, f64)> =
            request.components.iter().map(|&c| (c, time)).collect();
        let changed_vars = || {
            let jumped = request.jumps.iter().map(|&(v, _)| v);
            jumped.chain(request.holds.iter().chain(&request.releases).copied())
        };
        seeds.extend(changed_vars().map(|v| (self.partition.component_of(v), time)));
        let truncations = self.invalidate(seeds);

        for &(var, value) in &request.jumps {
            let c = self.partition.component_of(var);
            let local = self.partition.local_index(var);
            self.components[c.index()]
                .integrator
                .set_value(local, value);
        }
        for &var in &request.holds {
            let c = self.partition.component_of(var);
            let local = self.partition.local_index(var);
            let value = self.components[c.index()].integrator.values()[local];
            self.holds.hold(var, time, value);
        }
        for &var in &request.releases {
            self.holds.release(var, time);
        }
        let mut jumped: Vec<ComponentId> = changed_vars()
            .map(|v| self.partition.component_of(v))
            .collect();
        jumped.sort_unstable();
        jumped.dedup();
        let held = !request.holds.is_empty() || !request.releases.is_empty();
        for &c in &jumped {
            let component = &mut self.components[c.index()];
            if held {
                component.refresh_prescriptions(&self.system, &self.partition, c, &self.holds);
            }
            let integrator = &mut component.integrator;
            integrator.enter_prescriptions();
            let mut track = self.tracks.write(c);
            if track.last_point() != integrator.values() {
                track.push(time, integrator.values());
            }
        }

        let touched: Vec<ComponentId> = truncations.iter().map(|t| t.component).collect();
        self.requeue(&touched);
        Ok(truncations)
    }

    fn check_back_up(&self, request: &BackUp) -> Result<(), SimError> {
        let invalid = |message: String| SimError::new(ErrorKind::InvalidRequest, message);
        let time = request.time;
        if !(time >= self.system.start() && time <= self.system.end()) {
            return Err(invalid(format!(
                "back-up time {time} lies outside the simulated span [{}, {}]",
                self.system.start(),
                self.system.end()
            )));
        }
        if let Some(c) = request
            .components
            .iter()
            .find(|c| c.index() >= self.partition.len())
        {
            return Err(invalid(format!(
                "back-up names component {} but there are only {}",
                c.0,
                self.partition.len()
            )));
        }
        for var in request.holds.iter().chain(&request.releases) {
            if var.index() >= self.system.len() {
                return Err(invalid(format!(
                    "hold or release names variable id {} but there are only {} variables",
                    var.0,
                    self.system.len()
                )));
            }
            let c = self.partition.component_of(*var);
            if self.reached[c.index()] < time {
                return Err(invalid(format!(
                    "cannot hold or release `{}` at t = {time}: its component {} is only computed up to {}",
                    self.system.name(*var),
                    c.0,
                    self.reached[c.index()]
                )));
            }
        }
        for &(var, value) in &request.jumps {
            if var.index() >= self.system.len() {
                return Err(invalid(format!(
                    "jump names variable id {} but there are only {} variables",
                    var.0,
                    self.system.len()
                )));
            }
            let name = self.system.name(var);
            if !value.is_finite() {
                return Err(invalid(format!(
                    "jump of `{name}` to non-finite value {value}"
                )));
            }
            let c = self.partition.component_of(var);
            if self.reached[c.index()] < time {
                return Err(invalid(format!(
                    "cannot apply a jump to `{name}` at t = {time}: its component {} is only computed up to {}",
                    c.0,
                    self.reached[c.index()]
                )));
            }
        }
        Ok(())
    }

    /// Truncates each seed component to its time and restarts it there, and transitively
    /// every component that depends on a truncated one and every component the observer
    /// names. A component computed only up to an earlier time is left alone (nothing it has
    /// computed is affected), and so are its dependents through it. Each component is
    /// truncated once per call, to the earliest time asked.
    pub(crate) fn invalidate(&mut self, seeds: Vec<(ComponentId, f64)>) -> Vec<Truncation> {
        let control = &self.options.step;
        let mut work = seeds;
        let mut done: HashMap<ComponentId, f64> = HashMap::new();
        let mut truncations = Vec::new();
        let mut also = Vec::new();
        let mut gates = Vec::new();
        if let Some(observer) = self.observer.as_mut() {
            observer.truncating();
        }
        while let Some((c, time)) = work.pop() {
            let from = self.reached[c.index()];
            if from < time || done.get(&c).is_some_and(|&t| t <= time) {
                continue;
            }
            done.insert(c, time);
            let reset = time <= self.system.start();
            let mut unheld = false;
            for &v in self.partition.members(c) {
                unheld |= self.holds.back_up(v, time, reset);
            }
            let component = &mut self.components[c.index()];
            if unheld {
                component.refresh_prescriptions(&self.system, &self.partition, c, &self.holds);
            }
            let to = {
                let mut track = self.tracks.write(c);
                let integrator = &mut component.integrator;
                // A component restarts with the step it meant to take next (error control
                // shrinks it if the motion after a jump needs that); one reset to the start
                // begins afresh with the initial step, as a new simulation would.
                let step = (!reset).then(|| integrator.intended_step());
                track.truncate(time);
                integrator.restart_after_jump(track.end_time(), track.last_point(), step, control);
                track.end_time()
            };
            self.reached[c.index()] = to;
            self.queue.remove(c);
            truncations.push(Truncation {
                component: c,
                from,
                to,
            });
            if let Some(observer) = self.observer.as_mut() {
                observer.truncated(&self.partition, c, time, &mut also, &mut gates);
                let known = self.partition.len();
                let start = self.system.start();
                work.extend(
                    also.drain(..)
                        .filter(|&(c, t)| c.index() < known && t.is_finite())
                        .map(|(c, t)| (c, t.max(start))),
                );
            }
            work.extend(self.partition.dependents(c).iter().map(|&d| (d, time)));
        }
        for (c, time) in gates {
            if let Some(component) = self.components.get_mut(c.index()) {
                component.set_gate(time);
            }
        }
        truncations
    }

    /// After components in `touched` went back in time: drops queue entries of their
    /// dependents that are no longer ready, then queues whatever is ready among all of them.
    pub(crate) fn requeue(&mut self, touched: &[ComponentId]) {
        let mut check: Vec<ComponentId> = touched.to_vec();
        for &c in touched {
            check.extend_from_slice(self.partition.dependents(c));
        }
        check.sort_unstable();
        check.dedup();
        for &c in &check {
            if self.queue.contains(c) && !self.is_ready(c) {
                self.queue.remove(c);
            }
        }
        for &c in &check {
            self.enqueue_if_ready(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::queue::ReadyQueue;
    use super::*;
    use crate::sim::options::Options;
    use crate::sim::system::{ClosureEquations, Equation, System};

    /// `a` decays, `b` is driven by `a`.
    fn driven() -> (Simulation, ComponentId, ComponentId) {
        let mut system = System::new(0.0, 1.0);
        let mut eqs = ClosureEquations::new();
        let a = system.add_variable("a", 1.0);
        let b = system.add_variable("b", 0.0);
        eqs.define(
            &mut system,
            a,
            Equation::new(move |_, s| -s.get(a)).reads(a, |_, _| -1.0),
        );
        eqs.define(
            &mut system,
            b,
            Equation::new(move |_, s| s.get(a) - s.get(b))
                .reads(a, |_, _| 1.0)
                .reads(b, |_, _| -1.0),
        );
        let sim = Simulation::new(system, &eqs, Options::default()).unwrap();
        let (ca, cb) = (sim.partition.component_of(a), sim.partition.component_of(b));
        (sim, ca, cb)
    }

    #[test]
    fn a_queued_dependent_whose_input_is_backed_up_leaves_the_queue() {
        let (mut sim, a, b) = driven();
        // Let `a` run ahead until `b` may take its next step, and queue `b`.
        while !sim.is_ready(b) {
            sim.advance(a).unwrap();
        }
        sim.queue = ReadyQueue::new(sim.partition.len());
        sim.enqueue_if_ready(b);
        assert!(sim.queue.contains(b));
        let target = sim.components[b.index()].next_target();
        // Back `a` up to before `b`'s target: `b` has computed nothing after that time, so it
        // is not truncated, but its queued step now lacks input data.
        let time = 0.5 * (sim.reached(b) + target);
        let truncations = sim
            .back_up(&BackUp {
                time,
                components: vec![a],
                jumps: vec![],
                ..BackUp::default()
            })
            .unwrap();
        assert_eq!(truncations.len(), 1);
        assert_eq!(truncations[0].component, a);
        assert!(!sim.queue.contains(b));
        assert!(sim.queue.contains(a));
        sim.run_to_end().unwrap();
        assert!(sim.is_complete());
    }

    #[test]
    fn a_jump_at_a_components_last_time_restarts_its_dependents() {
        let (mut sim, a, b) = driven();
        sim.run_to_end().unwrap();
        let restarts_b = sim.components[b.index()].integrator.stats().restarts;
        let var_a = sim.partition.members(a)[0];
        sim.back_up(&BackUp {
            time: 1.0,
            components: vec![],
            jumps: vec![(var_a, 5.0)],
            ..BackUp::default()
        })
        .unwrap();
        assert_eq!(sim.motion.value(var_a, 1.0), Some(5.0));
        assert_eq!(
            sim.components[b.index()].integrator.stats().restarts,
            restarts_b + 1
        );
        assert!(sim.is_complete());
    }
}
