//! A scene's simulation kept up to date across edits (5.2.5): the compiled model, the
//! simulation with its motion, and the collision state, owned together.
//!
//! [`Solver::update`] takes the edited scene, asks [`scene::diff`](crate::scene::diff) which
//! bodies' equations or initial values changed, and resets only the components holding them
//! and, transitively, those depending on them through equations or through collisions
//! ([`Simulation::update`] with the [`Collider`] as observer); every other component keeps its
//! motion. The model is updated in place ([`Model::update`]: only the bodies the edit reached
//! are assembled again, every body keeps its variables), the new collider takes over what the
//! old one checked ([`Collider::after_edit`]), and the collisions of a body whose restitution or
//! friction changed are undone and the motion backed up to the first of them.
//! [`Solver::run`] then computes what was reset.
//!
//! A solver refuses a scene whose bodies start inside each other
//! ([`scene::starting_overlap`](crate::scene::starting_overlap); after an edit only the edited
//! bodies are checked,
//! [`scene::starting_overlap_after_edit`](crate::scene::starting_overlap_after_edit)) or whose
//! time range spans more output steps than its [`RunLimits`] allow, before compiling it, and
//! stops a run that passes the limit's memory (see [`limits`](crate::sim::limits)).

use crate::lang::budget;
use crate::scene::{diff, starting_overlap, starting_overlap_after_edit, Overlap, Scene};
use crate::sim::collide::{Collider, Collision};
use crate::sim::energy::Ledger;
use crate::sim::physics::{Model, PhysicsError, SceneMotion};
use crate::sim::{
    BackUp, ErrorKind, Options, Progress, RunControl, RunLimits, RunOutcome, SimError, Simulation,
    Strategy, UpdateReport,
};
use std::cell::Cell;
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::OnceLock;

/// Model, simulation and collisions of one scene; see the module documentation.
pub struct Solver {
    scene: Scene,
    model: Model,
    simulation: Simulation,
    /// `None` when the scene turns collisions off (`simulator collisions 0`).
    collider: Option<Collider>,
    strategy: Strategy,
    limits: RunLimits,
}

/// What an update reset and kept.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UpdateSummary {
    /// The edit changed the simulator settings: everything was compiled and reset anew.
    pub from_scratch: bool,
    /// Components reset to the start or backed up.
    pub components_reset: usize,
    pub components_total: usize,
    /// Per component of the new partition, as [`Simulation::update`] reports it.
    pub report: UpdateReport,
}

impl Solver {
    /// Compiles `scene` and prepares its simulation with `strategy` within the default
    /// [`RunLimits`]; nothing is computed yet.
    pub fn new(scene: Scene, strategy: Strategy) -> Result<Solver, PhysicsError> {
        Solver::with_limits(scene, strategy, RunLimits::default())
    }

    /// [`Solver::new`] within `limits`. Refuses a scene that spans more output steps than the
    /// limit or whose bodies start overlapping (at the later body's command), before
    /// compiling it.
    pub fn with_limits(
        scene: Scene,
        strategy: Strategy,
        limits: RunLimits,
    ) -> Result<Solver, PhysicsError> {
        limits.check_scene(&scene)?;
        check_overlap(&scene)?;
        // The thread that frees what updates replace, started with the first solver rather
        // than inside the first update (its start was a fiftieth of that update).
        dropper();
        let model = Model::compile(&scene)?;
        let mut simulation = model.simulation(options(&model, strategy))?;
        let collider = scene.simulator.collisions.then(|| {
            let collider = Collider::new(&scene, &model);
            simulation.set_observer(collider.observer());
            collider
        });
        Ok(Solver {
            scene,
            model,
            simulation,
            collider,
            strategy,
            limits,
        })
    }

    pub fn scene(&self) -> &Scene {
        &self.scene
    }

    pub fn model(&self) -> &Model {
        &self.model
    }

    pub fn simulation(&self) -> &Simulation {
        &self.simulation
    }

    /// The bodies' motion, readable from any thread while it is computed.
    pub fn motion(&self) -> SceneMotion {
        self.model.motion(self.simulation.motion())
    }

    /// The collisions that stand, in time order (none when collisions are off).
    pub fn collisions(&self) -> Vec<Collision> {
        self.collider
            .as_ref()
            .map_or_else(Vec::new, Collider::collisions)
    }

    /// The energy ledger of the motion computed so far, up to `until` (see
    /// [`energy`](crate::sim::energy)).
    pub fn energy(&self, until: f64) -> Ledger {
        Ledger::measure(
            &self.model,
            &self.scene,
            &self.motion(),
            self.collider.as_ref(),
            until,
        )
    }

    /// Collision problems worth telling the user (bodies that pass through each other).
    pub fn warnings(&self) -> Vec<String> {
        self.collider
            .as_ref()
            .map_or_else(Vec::new, Collider::warnings)
    }

    /// The limits this solver runs within.
    pub fn limits(&self) -> RunLimits {
        self.limits
    }

    /// Computes whatever is not computed yet, up to the end, a cancellation or an error
    /// (described in the scene's terms).
    ///
    /// The memory the run adds to its thread is checked at every progress report; past the
    /// limit the run stops with a [`ErrorKind::Limit`] failure at the time reached. It is
    /// stopped through `control.cancel` (a flag of its own when the caller gives none), which
    /// is cleared again before the error is returned.
    pub fn run(&mut self, control: &mut RunControl<'_>) -> Result<RunOutcome, PhysicsError> {
        let baseline = budget::held();
        let max_memory = self.limits.max_memory;
        let own = AtomicBool::new(false);
        let cancel = control.cancel.unwrap_or(&own);
        let over: Cell<Option<(usize, f64)>> = Cell::new(None);
        let mut caller = control.progress.take();
        let mut watch = |p: &Progress| {
            let held = usize::try_from(budget::held().saturating_sub(baseline)).unwrap_or(0);
            if held > max_memory && over.get().is_none() {
                over.set(Some((held, p.time)));
                cancel.store(true, Ordering::SeqCst);
            }
            if let Some(report) = caller.as_mut() {
                report(p);
            }
        };
        let result = self.simulation.run(&mut RunControl {
            cancel: Some(cancel),
            progress: Some(&mut watch),
        });
        control.progress = caller;
        let partition = Some(self.simulation.partition());
        match (result, over.get()) {
            (Err(e), _) => Err(self.model.describe(e, partition)),
            (Ok(_), Some((held, time))) => {
                cancel.store(false, Ordering::SeqCst);
                let finish = self.scene.simulator.finish;
                let error = SimError {
                    kind: ErrorKind::Limit,
                    message: self.limits.memory_message(held, finish),
                    component: None,
                    time: Some(time),
                    variables: Vec::new(),
                };
                Err(self.model.describe(error, partition))
            }
            (Ok(outcome), None) => Ok(outcome),
        }
    }

    /// Reports progress (and checks for a cancel) every `steps` steps in the runs that follow,
    /// until an update recompiles the whole scene.
    pub fn set_progress_every(&mut self, steps: u64) {
        self.simulation.set_progress_every(steps);
    }

    pub fn run_to_end(&mut self) -> Result<(), PhysicsError> {
        self.run(&mut RunControl::default()).map(|_| ())
    }

    /// Moves to the edited `scene`, keeping the motion of everything the edit does not affect
    /// (see the module documentation). Nothing is computed; [`Solver::run`] does that. On
    /// an error in the new scene (bodies that start overlapping included) the solver is
    /// unchanged; a link too stiff to simulate is
    /// reported after the solver has moved to the new scene (as [`Model::simulation`] would
    /// refuse it). Should the simulation refuse the updated model (which a model that
    /// compiled does not give it cause to), the solver starts over from the scene before the
    /// edit, its motion to be computed again.
    pub fn update(&mut self, scene: Scene) -> Result<UpdateSummary, PhysicsError> {
        let changes = diff(&self.scene, &scene);
        if changes.simulator_changed() {
            *self = Solver::with_limits(scene, self.strategy, self.limits)?;
            let total = self.simulation.partition().len();
            return Ok(UpdateSummary {
                from_scratch: true,
                components_reset: total,
                components_total: total,
                report: UpdateReport::default(),
            });
        }
        // The scene before the edit started apart: only the edited bodies can overlap now.
        refuse_overlap(&scene, starting_overlap_after_edit(&scene, &changes))?;
        let update = self.model.update(&scene, &changes)?;
        let recollide: HashSet<usize> = changes
            .collision_changed
            .iter()
            .filter_map(|name| self.model.body_index(name))
            .collect();
        let (collider, back_ups) = match (scene.simulator.collisions, &self.collider) {
            (true, Some(old)) => {
                let (collider, back_ups) = Collider::after_edit(
                    &scene,
                    &self.model,
                    old,
                    &update.bodies,
                    &recollide,
                    &update.moved,
                    !update.compiled,
                );
                (Some(collider), back_ups)
            }
            (true, None) => (Some(Collider::new(&scene, &self.model)), Vec::new()),
            (false, _) => (None, Vec::new()),
        };
        let previous = self.simulation.take_observer();
        if let Some(collider) = &collider {
            self.simulation.set_observer(collider.observer());
        }
        let report = match self.simulation.update(
            self.model.system().clone(),
            self.model.factory(),
            &update.changes,
        ) {
            Ok(report) => report,
            Err(e) => {
                // The model has moved on and the simulation has not: start over from the
                // scene before the edit, whose model and simulation compiled before.
                let error = self.model.describe(e, None);
                self.simulation.take_observer();
                if let Some(previous) = previous {
                    self.simulation.set_observer(previous);
                }
                let scene = std::mem::take(&mut self.scene);
                *self = Solver::with_limits(scene, self.strategy, self.limits)?;
                return Err(error);
            }
        };
        let mut backed_up = HashSet::new();
        if let Some(collider) = &collider {
            for (body, time) in back_ups {
                let components = collider.components_of(body, self.simulation.partition());
                let truncations = self
                    .simulation
                    .back_up(&BackUp {
                        time,
                        components,
                        jumps: Vec::new(),
                        ..BackUp::default()
                    })
                    .map_err(|e| self.model.describe(e, Some(self.simulation.partition())))?;
                backed_up.extend(truncations.into_iter().map(|t| t.component));
            }
        }
        backed_up.extend(report.reset.iter().copied());
        backed_up.extend(report.backed_up.iter().copied());
        drop_aside(std::mem::replace(&mut self.scene, scene));
        // The old collider shares its records with the new one, which would copy them at
        // their next change while it lives: dropped here, not aside.
        self.collider = collider;
        drop(previous);
        self.model.check_springs(self.simulation.partition())?;
        Ok(UpdateSummary {
            from_scratch: false,
            components_reset: backed_up.len(),
            components_total: self.simulation.partition().len(),
            report,
        })
    }
}

/// Drops `value` on a thread kept for it, off the path of the update that replaced it: the
/// scene an edit replaces is many small allocations (at 1,000 bodies, freeing it was a fifth
/// of `Solver::update`'s processor time), and nothing waits for them to be freed. Drops it
/// here if that thread cannot be started.
fn drop_aside<T: Send + 'static>(value: T) {
    if let Some(send) = dropper() {
        // The thread never ends while a sender is left, so the send succeeds.
        let _ = send.send(Box::new(value));
    }
}

/// The channel to [`drop_aside`]'s thread, started at the first call (`None` if it cannot be
/// started).
fn dropper() -> &'static Option<Sender<Box<dyn Send>>> {
    static DROPPER: OnceLock<Option<Sender<Box<dyn Send>>>> = OnceLock::new();
    DROPPER.get_or_init(|| {
        let (send, receive) = mpsc::channel::<Box<dyn Send>>();
        let thread = std::thread::Builder::new().name("asgard-drop".into());
        thread
            .spawn(move || receive.into_iter().for_each(drop))
            .ok()
            .map(|_| send)
    })
}

/// Refuses a scene whose bodies start inside each other, at the later body.
fn check_overlap(scene: &Scene) -> Result<(), PhysicsError> {
    refuse_overlap(scene, starting_overlap(scene))
}

/// Refuses `scene` at the later body of `overlap`, if there is one.
fn refuse_overlap(scene: &Scene, overlap: Option<Overlap>) -> Result<(), PhysicsError> {
    match overlap {
        Some(overlap) => Err(PhysicsError::Model {
            message: overlap.message(scene),
            span: Some(overlap.span(scene)),
        }),
        None => Ok(()),
    }
}

/// The scene's options with `strategy`.
fn options(model: &Model, strategy: Strategy) -> Options {
    let mut options = model.options();
    options.strategy = strategy;
    options
}
