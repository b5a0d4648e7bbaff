//! Event-driven scheduling of components (section 5.2.3), back-up after collisions (5.2.2,
//! figure 5.10) and incremental re-simulation after edits (5.2.5).
//!
//! A [`Simulation`] owns the partitioned system, one integrator per component and the tracks.
//! It advances components one step at a time: a component may step to `t` only when every
//! component it reads has been computed up to `t`; among those that may, the one furthest
//! behind goes first ([`Strategy::EventDriven`](super::Strategy)). Components are queued only
//! when ready; after each step the component itself and the components reading it are
//! checked again.
//!
//! Because a component's steps depend only on its own state and the tracks of what it reads,
//! the order in which ready components are taken does not change the results: every strategy
//! computes the same tracks for the same partition, bit for bit.

mod backup;
mod component;
mod hold;
mod horizon;
mod observer;
mod queue;
mod update;

pub use observer::{BackUp, StepContext, StepObserver, StepReport, Truncation};
pub use update::{Changes, UpdateReport};

use super::error::{ErrorKind, SimError};
use super::graph::{ComponentId, Partition};
use super::integrate::{FailureKind, StepFailure};
use super::memory::with_room;
use super::motion::{Motion, Tracks};
use super::options::{Options, Strategy};
use super::run::{Progress, RunControl, RunOutcome};
use super::stats::Statistics;
use super::system::{EquationFactory, System};
use super::track::Track;
use component::Component;
use hold::Holds;
use queue::ReadyQueue;
use std::sync::atomic::Ordering;
use std::sync::{Arc, RwLock};

/// A partitioned system being simulated, with its computed motion so far.
pub struct Simulation {
    system: System,
    options: Options,
    partition: Partition,
    components: Vec<Component>,
    /// Last computed time of each component (the end of its track).
    reached: Vec<f64>,
    tracks: Arc<Tracks>,
    motion: Motion,
    queue: ReadyQueue,
    /// Variables held by back-ups (bodies asleep at rest).
    holds: Holds,
    observer: Option<Box<dyn StepObserver>>,
    /// Accepted steps over all runs.
    steps: u64,
}

impl Simulation {
    /// Validates `system` and `options`, partitions the system according to the strategy and
    /// builds every component's evaluator with `factory`. Nothing is integrated yet.
    pub fn new(
        system: System,
        factory: &dyn EquationFactory,
        options: Options,
    ) -> Result<Simulation, SimError> {
        system
            .validate()
            .map_err(|e| SimError::new(ErrorKind::InvalidSystem, e.to_string()))?;
        options
            .step
            .validate()
            .map_err(|e| SimError::new(ErrorKind::InvalidOptions, e))?;
        let partition = partition_for(&system, options.strategy);
        // With room for components an edit adds: an update puts them in this list's memory.
        let mut components = Vec::with_capacity(with_room(partition.len()));
        let mut tracks = Vec::with_capacity(partition.len());
        for c in partition.ids() {
            let equations = Component::build_equations(&system, &partition, c, factory)?;
            let component = Component::new(&system, &partition, c, equations, &options.step)?;
            let track = Track::new(system.start(), component.integrator.values());
            tracks.push(Arc::new(RwLock::new(track)));
            components.push(component);
        }
        let tracks = Arc::new(Tracks::new(&partition, tracks));
        Ok(Simulation {
            reached: vec![system.start(); partition.len()],
            queue: ReadyQueue::new(partition.len()),
            motion: Motion::new(tracks.clone()),
            tracks,
            components,
            partition,
            system,
            options,
            holds: Holds::default(),
            observer: None,
            steps: 0,
        })
    }

    /// Installs the step observer (collision detection).
    pub fn set_observer(&mut self, observer: Box<dyn StepObserver>) {
        self.observer = Some(observer);
    }

    /// Removes and returns the step observer.
    pub fn take_observer(&mut self) -> Option<Box<dyn StepObserver>> {
        self.observer.take()
    }

    pub fn system(&self) -> &System {
        &self.system
    }

    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Reports progress (and checks for a cancel) every `steps` steps from now on.
    pub fn set_progress_every(&mut self, steps: u64) {
        self.options.progress_every = steps;
    }

    pub fn partition(&self) -> &Partition {
        &self.partition
    }

    /// A handle on the computed motion, readable from any thread while the simulation runs.
    pub fn motion(&self) -> Motion {
        self.motion.clone()
    }

    /// The last computed time of component `c`.
    pub fn reached(&self, c: ComponentId) -> f64 {
        self.reached[c.index()]
    }

    /// True when every component has reached the end time.
    pub fn is_complete(&self) -> bool {
        self.reached.iter().all(|&t| t >= self.system.end())
    }

    /// Work counters per component.
    pub fn statistics(&self) -> Statistics {
        Statistics {
            components: self
                .components
                .iter()
                .map(|c| c.integrator.stats().clone())
                .collect(),
        }
    }

    /// Integrates until every component reaches the end time, cancellation, or an error.
    ///
    /// On error the run stops at once; the tracks computed up to then stay readable. Running
    /// again after a cancellation continues; after an error it retries the failing step.
    pub fn run(&mut self, control: &mut RunControl<'_>) -> Result<RunOutcome, SimError> {
        for c in 0..self.partition.len() {
            self.enqueue_if_ready(ComponentId(c as u32));
        }
        let every = self.options.progress_every.max(1);
        loop {
            while let Some(c) = self.queue.pop() {
                if control
                    .cancel
                    .is_some_and(|flag| flag.load(Ordering::Relaxed))
                {
                    self.enqueue_if_ready(c);
                    self.report(control);
                    return Ok(RunOutcome::Cancelled);
                }
                self.advance(c)?;
                if self.steps % every == 0 {
                    self.report(control);
                }
            }
            if self.is_complete() || !self.wake_observer()? {
                break;
            }
        }
        self.report(control);
        if !self.is_complete() {
            return Err(SimError::new(
                ErrorKind::Stalled,
                "the scheduler stalled: components remain unfinished but none may step",
            ));
        }
        Ok(RunOutcome::Finished)
    }

    /// Runs to the end without progress reports or cancellation.
    pub fn run_to_end(&mut self) -> Result<(), SimError> {
        self.run(&mut RunControl::default()).map(|_| ())
    }

    fn report(&self, control: &mut RunControl<'_>) {
        if let Some(callback) = control.progress.as_mut() {
            let time = self
                .reached
                .iter()
                .copied()
                .reduce(f64::min)
                .unwrap_or(self.system.end());
            callback(&Progress {
                time,
                end: self.system.end(),
                steps: self.steps,
            });
        }
    }

    /// Takes one step of component `c`, records it, tells the observer and applies the back-ups
    /// it asks for, then re-queues whatever became ready.
    fn advance(&mut self, c: ComponentId) -> Result<(), SimError> {
        let control = &self.options.step;
        let tracks = &*self.tracks;
        let component = &mut self.components[c.index()];
        let limit = component.next_breakpoint(component.integrator.time());
        let result = {
            let (integrator, mut supply) = component.stepper(tracks);
            integrator.step(limit, &mut supply, control)
        };
        let accepted = match result {
            Ok(accepted) => accepted,
            Err(failure) => return Err(self.step_error(c, failure)),
        };
        {
            let component = &mut self.components[c.index()];
            let restart = accepted.to == limit && component.is_breakpoint(limit);
            let integrator = &mut component.integrator;
            let mut track = tracks.write(c);
            integrator.append_step(&mut track);
            if restart {
                integrator.restart_here(control);
                if integrator.enter_prescriptions() {
                    track.push(accepted.to, integrator.values());
                }
            }
        }
        self.reached[c.index()] = accepted.to;
        self.steps += 1;

        let report = StepReport {
            component: c,
            from: accepted.from,
            to: accepted.to,
        };
        self.observe(|observer, context| {
            observer.stepped(&report, context);
            true
        })?;

        self.enqueue_if_ready(c);
        for k in 0..self.partition.dependents(c).len() {
            let d = self.partition.dependents(c)[k];
            self.enqueue_if_ready(d);
        }
        Ok(())
    }

    /// Lets the observer act on the simulation with `act` (see [`StepObserver::stepped`]),
    /// then applies the back-ups and gates it asked for. Returns whether `act` said it did
    /// something or asked for anything.
    fn observe(
        &mut self,
        act: impl FnOnce(&mut dyn StepObserver, &mut StepContext<'_>) -> bool,
    ) -> Result<bool, SimError> {
        let Some(observer) = self.observer.as_mut() else {
            return Ok(false);
        };
        let mut requests = Vec::new();
        let mut gates = Vec::new();
        let mut context = StepContext {
            partition: &self.partition,
            reached: &self.reached,
            tracks: &self.tracks,
            holds: &self.holds,
            requests: &mut requests,
            gates: &mut gates,
        };
        let acted =
            act(observer.as_mut(), &mut context) || !requests.is_empty() || !gates.is_empty();
        for request in &requests {
            self.back_up(request)?;
        }
        for (gated, time) in gates {
            self.set_gate(gated, time);
        }
        Ok(acted)
    }

    /// When nothing may step: asks the observer to move on (see [`StepObserver::waiting`]) and
    /// queues whatever became ready. Returns whether it did anything.
    fn wake_observer(&mut self) -> Result<bool, SimError> {
        let acted = self.observe(|observer, context| observer.waiting(context))?;
        if acted {
            for c in 0..self.partition.len() {
                self.enqueue_if_ready(ComponentId(c as u32));
            }
        }
        Ok(acted)
    }

    /// Makes component `c` wait at `time` (infinite: not at all) and queues it if that lets it
    /// step. A gate below what `c` has computed stops nothing already done.
    fn set_gate(&mut self, c: ComponentId, time: f64) {
        let Some(component) = self.components.get_mut(c.index()) else {
            return;
        };
        component.set_gate(time);
        if self.queue.contains(c) && self.reached[c.index()] >= time {
            self.queue.remove(c);
        }
        self.enqueue_if_ready(c);
    }

    /// Whether every component `c` reads has been computed up to the end of `c`'s next step.
    fn is_ready(&self, c: ComponentId) -> bool {
        let target = self.components[c.index()].next_target();
        self.partition
            .depends_on(c)
            .iter()
            .all(|d| self.reached[d.index()] >= target)
    }

    /// Queues `c` if it is unfinished, not queued and ready.
    fn enqueue_if_ready(&mut self, c: ComponentId) {
        let t = self.reached[c.index()];
        let gated = t >= self.components[c.index()].gate();
        if t >= self.system.end() || gated || self.queue.contains(c) || !self.is_ready(c) {
            return;
        }
        let key = match self.options.strategy {
            Strategy::EventDriven | Strategy::Combined => t,
            Strategy::Sequential => 0.0,
        };
        self.queue.push(c, key);
    }

    /// Describes a failed step with the component's variable names.
    fn step_error(&self, c: ComponentId, failure: StepFailure) -> SimError {
        let members = self.partition.members(c);
        let name = |local: usize| self.system.name(members[local]).to_string();
        let step = failure.step;
        let (kind, message) = match failure.kind {
            FailureKind::NotConverged => (
                ErrorKind::NewtonFailed,
                format!(
                    "Newton-Raphson did not converge in {} iterations with the minimum step {step}",
                    self.options.step.max_newton_iterations
                ),
            ),
            FailureKind::Singular => (
                ErrorKind::SingularMatrix,
                format!("the Newton matrix I - h/2 J is singular with the minimum step {step}"),
            ),
            FailureKind::StepCollapse => (
                ErrorKind::StepCollapse,
                format!(
                    "the step collapsed: the local error stays above tolerance down to the minimum step {step}"
                ),
            ),
            FailureKind::NonFinite if step == 0.0 => (
                ErrorKind::NonFinite,
                "the equations produce a non-finite value (NaN or infinity)".to_string(),
            ),
            FailureKind::NonFinite => (
                ErrorKind::NonFinite,
                format!(
                    "the equations produce a non-finite value (NaN or infinity) even with the minimum step {step}"
                ),
            ),
            FailureKind::StrayJacobian { row, col } => (
                ErrorKind::BadJacobian,
                format!(
                    "the evaluator wrote the Jacobian entry d({})/d({}) outside the pattern it declared",
                    name(row),
                    name(col)
                ),
            ),
        };
        SimError {
            kind,
            message,
            component: Some(c),
            time: Some(failure.time),
            variables: failure.variables.into_iter().map(name).collect(),
        }
    }
}

fn partition_for(system: &System, strategy: Strategy) -> Partition {
    match strategy {
        Strategy::Combined => Partition::combined(system),
        Strategy::EventDriven | Strategy::Sequential => Partition::of_system(system),
    }
}
