//! The scene-advance module: a compiled scene stepped by the driver's fixed timestep, with the
//! pushes and pulls requested through its controls.

use super::controls::{lock, LiveControls, Request, Shared, SpringLine, Status};
use super::recording::Recording;
use crate::live::Module;
use crate::scene::Scene;
use crate::sim::collide::Collider;
use crate::sim::physics::{Model, PhysicsError, Pull, Pullable, BODY_VARIABLES};
use crate::sim::{BackUp, ComponentId, SimError, Simulation};
use nalgebra::Vector3;
use std::sync::{Arc, Mutex};

/// Simulated time kept behind the current time, for viewers reading slightly old states and
/// for back-ups within a step; older motion and reported collisions are forgotten so that
/// memory stays bounded.
const HISTORY: f64 = 1.0;
/// Motion older than [`HISTORY`] is dropped every this many steps.
const FORGET_EVERY: u64 = 64;

/// The default time constant of the pull spring, seconds: the grabbed point closes a gap to
/// the target with `e^(-t/τ)` (times `1 + t/τ`, critically damped).
pub const DEFAULT_PULL_TIME_CONSTANT: f64 = 0.1;

/// How a live scene is set up.
#[derive(Clone, Debug, PartialEq)]
pub struct LiveOptions {
    /// Bodies the user may pull. Pullable bodies cost more per step (see
    /// [`interaction`](crate::sim::physics::interaction)).
    pub pullable: Pullable,
    /// Bodies whose states are recorded after every step (scene indices).
    pub record: Vec<usize>,
    /// The pull spring's time constant `τ`: stiffness `m / τ²`, critically damped.
    pub pull_time_constant: f64,
}

impl Default for LiveOptions {
    fn default() -> LiveOptions {
        LiveOptions {
            pullable: Pullable::All,
            record: Vec::new(),
            pull_time_constant: DEFAULT_PULL_TIME_CONSTANT,
        }
    }
}

/// The body being pulled.
#[derive(Clone, Copy, Debug)]
struct Grab {
    body: usize,
    /// From the centre of mass, body axes.
    arm: Vector3<f64>,
    target: Vector3<f64>,
}

/// A [`Module`] that advances a scene in real time: each `update(dt)` integrates the scene's
/// equations from the current time to exactly `time + dt`, with the same equations, integrator
/// and event-driven scheduler as a precomputed simulation (only the end time moves on; the
/// components keep their adaptive steps, landing on each end). Requests from the
/// [`LiveControls`] are applied before each step; a failed step stops the scene and is
/// reported through the controls.
///
/// Collisions are handled by the same [`Collider`] as in a precomputed run (unless the scene
/// turns them off with `simulator collisions 0`): it sees every component step, checks its
/// windows up to the end of each update and backs components up within the step, so every
/// update leaves the scene with all collisions up to its time handled.
pub struct SceneAdvance {
    model: Model,
    simulation: Simulation,
    collider: Option<Collider>,
    shared: Arc<Shared>,
    time: f64,
    /// The current run of equal steps: its start, step and length so far. Times within it
    /// are `start + k dt` rather than a running sum, so they do not drift from the multiples
    /// of dt (`0.03`, not `0.030000000000000002`).
    run_of_steps: (f64, f64, u64),
    grab: Option<Grab>,
    pull_time_constant: f64,
    failed: bool,
    updates: u64,
}

impl SceneAdvance {
    /// Compiles `scene` with push and pull inputs and prepares it at its start time; returns
    /// the module (for a [`Driver`](crate::live::Driver)) and its controls.
    pub fn new(
        scene: &Scene,
        options: &LiveOptions,
    ) -> Result<(SceneAdvance, LiveControls), PhysicsError> {
        let model = Model::compile_interactive(scene, &options.pullable)?;
        let mut simulation = model.simulation(model.options())?;
        let start = model.simulator().start;
        simulation
            .set_end(start)
            .map_err(|e| model.describe(e, Some(simulation.partition())))?;
        let collider = scene.simulator.collisions.then(|| {
            let collider = Collider::new(scene, &model);
            collider.set_end(start);
            simulation.set_observer(collider.observer());
            collider
        });
        let mut recorded = Vec::new();
        for &b in &options.record {
            let body = model.bodies().get(b).ok_or_else(|| {
                PhysicsError::model(
                    format!(
                        "cannot record body number {b}: the scene has {} bodies",
                        model.bodies().len()
                    ),
                    None,
                )
            })?;
            recorded.push((b, body.name.clone()));
        }
        let motion = model.motion(simulation.motion());
        let mut recording = Recording::new(recorded);
        recording.record(start, &motion);
        let inputs = model.inputs();
        let bodies = model
            .bodies()
            .iter()
            .enumerate()
            .map(|(i, b)| (b.name.clone(), inputs.can_push(i), inputs.can_pull(i)))
            .collect();
        let shared = Arc::new(Shared {
            requests: Mutex::new(Vec::new()),
            status: Mutex::new(Status {
                time: start,
                ..Status::default()
            }),
            recording: Mutex::new(recording),
            motion,
            bodies,
        });
        let controls = LiveControls {
            shared: shared.clone(),
        };
        let advance = SceneAdvance {
            model,
            simulation,
            collider,
            shared,
            time: start,
            run_of_steps: (start, 0.0, 0),
            grab: None,
            pull_time_constant: options.pull_time_constant,
            failed: false,
            updates: 0,
        };
        Ok((advance, controls))
    }

    /// The compiled scene.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The simulated time reached.
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Applies the requests made since the last step, then restarts the components of every
    /// body whose inputs changed: a changed input is a discontinuity for them.
    fn apply_requests(&mut self) -> Result<(), SimError> {
        let requests = std::mem::take(&mut *lock(&self.shared.requests));
        if requests.is_empty() {
            return Ok(());
        }
        let mut touched = Vec::new();
        for request in requests {
            match request {
                Request::Grab { body, local } => {
                    self.release(&mut touched);
                    let model = &self.model.bodies()[body];
                    let arm = local - model.center;
                    // The current state is always kept; the centre of mass at the start is
                    // only a fallback that cannot be reached.
                    let target = self
                        .grabbed_point(body, &arm)
                        .unwrap_or(model.initial.position);
                    self.grab = Some(Grab { body, arm, target });
                    self.set_pull(&mut touched);
                }
                Request::MoveTarget(world) => {
                    if let Some(grab) = self.grab.as_mut() {
                        grab.target = world;
                        self.set_pull(&mut touched);
                    }
                }
                Request::Release => self.release(&mut touched),
                Request::Push { body, force } => {
                    if self.model.inputs().set_push(body, force) {
                        touched.push(body);
                    }
                }
            }
        }
        self.restart(&touched)
    }

    fn set_pull(&mut self, touched: &mut Vec<usize>) {
        let Some(grab) = self.grab else { return };
        let mass = self.model.bodies()[grab.body].mass;
        let pull = Pull::critically_damped(mass, self.pull_time_constant, grab.arm, grab.target);
        if self.model.inputs().set_pull(grab.body, Some(&pull)) {
            touched.push(grab.body);
        }
    }

    fn release(&mut self, touched: &mut Vec<usize>) {
        if let Some(grab) = self.grab.take() {
            self.model.inputs().set_pull(grab.body, None);
            touched.push(grab.body);
        }
    }

    /// Where the point at `arm` (from the centre of mass, body axes) of `body` is now.
    fn grabbed_point(&self, body: usize, arm: &Vector3<f64>) -> Option<Vector3<f64>> {
        let state = self.shared.motion.state(body, self.time)?;
        Some(state.position + state.rotation * arm)
    }

    /// Restarts, at the current time, the components holding the variables of `bodies`, and
    /// wakes those asleep (a push or pull that changes is a reason to move).
    fn restart(&mut self, bodies: &[usize]) -> Result<(), SimError> {
        let partition = self.simulation.partition();
        let vars: Vec<_> = bodies
            .iter()
            .filter_map(|&b| self.model.bodies()[b].vars)
            .collect();
        let mut components: Vec<ComponentId> = vars
            .iter()
            .flat_map(|vars| (0..BODY_VARIABLES).map(move |k| partition.component_of(vars.at(k))))
            .collect();
        components.sort_unstable();
        components.dedup();
        if components.is_empty() {
            return Ok(());
        }
        self.simulation
            .back_up(&BackUp {
                time: self.time,
                components,
                releases: vars.iter().flat_map(|v| v.all()).collect(),
                ..BackUp::default()
            })
            .map(|_| ())
    }

    fn step(&mut self, dt: f64) -> Result<(), SimError> {
        self.apply_requests()?;
        let (first, step, count) = self.run_of_steps;
        self.run_of_steps = if step.to_bits() == dt.to_bits() {
            (first, step, count + 1)
        } else {
            (self.time, dt, 1)
        };
        let (first, step, count) = self.run_of_steps;
        let end = first + count as f64 * step;
        self.simulation.set_end(end)?;
        if let Some(collider) = &self.collider {
            collider.set_end(end);
        }
        self.simulation.run_to_end()?;
        self.time = end;
        self.updates += 1;
        if self.updates % FORGET_EVERY == 0 {
            self.simulation.forget_before(self.time - HISTORY);
        }
        Ok(())
    }

    fn publish(&self, error: Option<String>) {
        let spring = self.grab.and_then(|grab| {
            Some(SpringLine {
                body: grab.body,
                from: self.grabbed_point(grab.body, &grab.arm)?,
                to: grab.target,
            })
        });
        lock(&self.shared.recording).record(self.time, &self.shared.motion);
        // No back-up goes before the current time any more (the next update starts here), so
        // the collider need not keep the collisions before it: they stand.
        let (settled, pending) = match &self.collider {
            Some(collider) => (collider.forget_before(self.time), collider.collisions()),
            None => (Vec::new(), Vec::new()),
        };
        let mut status = lock(&self.shared.status);
        status.collisions.settle(settled, self.time - HISTORY);
        status.collisions.pending = pending;
        status.time = self.time;
        status.spring = spring;
        status.updates = self.updates;
        if error.is_some() {
            status.error = error;
        }
    }
}

impl Module for SceneAdvance {
    fn name(&self) -> &str {
        "scene"
    }

    fn update(&mut self, dt: f64) {
        if self.failed {
            return;
        }
        match self.step(dt) {
            Ok(()) => self.publish(None),
            Err(e) => {
                self.failed = true;
                let error = self.model.describe(e, Some(self.simulation.partition()));
                let mut status = lock(&self.shared.status);
                status.error = Some(error.to_string());
            }
        }
    }
}
