//! A scene's simulation kept up to date across edits (5.2.5): the compiled model, the
//! simulation with its motion, and the collision state, owned together.
//!
//! [`Solver::update`] takes the edited scene, asks [`scene::diff`](crate::scene::diff) which
//! bodies' equations or initial values changed, and resets only the components holding them
//! and, transitively, those depending on them through equations or through collisions
//! ([`Simulation::update`] with the [`Collider`] as observer); every other component keeps its
//! motion. The model is updated rather than compiled again where the edit allows
//! ([`Model::update`]: an edit of initial values only shares the compiled equations), and the
//! new collider takes over what the old one checked ([`Collider::inherit`]). [`Solver::run`]
//! then computes what was reset.

use crate::scene::{diff, Scene};
use crate::sim::collide::{Collider, Collision};
use crate::sim::energy::Ledger;
use crate::sim::physics::{Model, PhysicsError, SceneMotion};
use crate::sim::{
    BackUp, Changes, Options, RunControl, RunOutcome, Simulation, Strategy, UpdateReport,
};
use std::collections::HashSet;

/// Model, simulation and collisions of one scene; see the module documentation.
pub struct Solver {
    scene: Scene,
    model: Model,
    simulation: Simulation,
    /// `None` when the scene turns collisions off (`simulator collisions 0`).
    collider: Option<Collider>,
    strategy: Strategy,
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
    /// Compiles `scene` and prepares its simulation with `strategy`; nothing is computed yet.
    pub fn new(scene: Scene, strategy: Strategy) -> Result<Solver, PhysicsError> {
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
        Ledger::measure(&self.model, &self.motion(), self.collider.as_ref(), until)
    }

    /// Collision problems worth telling the user (bodies that pass through each other).
    pub fn warnings(&self) -> Vec<String> {
        self.collider
            .as_ref()
            .map_or_else(Vec::new, Collider::warnings)
    }

    /// Computes whatever is not computed yet, up to the end, a cancellation or an error
    /// (described in the scene's terms).
    pub fn run(&mut self, control: &mut RunControl<'_>) -> Result<RunOutcome, PhysicsError> {
        self.simulation
            .run(control)
            .map_err(|e| self.model.describe(e, Some(self.simulation.partition())))
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
    /// an error in the new scene the solver is unchanged; a link too stiff to simulate is
    /// reported after the solver has moved to the new scene (as [`Model::simulation`] would
    /// refuse it).
    pub fn update(&mut self, scene: Scene) -> Result<UpdateSummary, PhysicsError> {
        let changes = diff(&self.scene, &scene);
        if changes.simulator_changed() {
            *self = Solver::new(scene, self.strategy)?;
            let total = self.simulation.partition().len();
            return Ok(UpdateSummary {
                from_scratch: true,
                components_reset: total,
                components_total: total,
                report: UpdateReport::default(),
            });
        }
        let model = self.model.update(&scene, &changes)?;

        // Variable ids keep their meaning only where the same body holds the same block.
        let mut changed = HashSet::new();
        let mut vars = Changes::default();
        for (b, body) in model.bodies().iter().enumerate() {
            let equations = changes.equations_changed.contains(&body.name);
            let initial = changes.initial_changed.contains(&body.name);
            if equations || initial {
                changed.insert(b);
            }
            let Some(block) = body.vars else { continue };
            let same_block = self
                .model
                .body_index(&body.name)
                .is_some_and(|old| self.model.bodies()[old].vars == Some(block));
            let list = if equations || !same_block {
                changed.insert(b);
                &mut vars.equations
            } else if initial {
                &mut vars.initial_values
            } else {
                continue;
            };
            list.extend(block.all());
        }

        let collider = scene
            .simulator
            .collisions
            .then(|| Collider::new(&scene, &model));
        let back_ups = match (&collider, &self.collider) {
            (Some(new), Some(old)) => new.inherit(old, &self.model, &changed),
            _ => Vec::new(),
        };
        let previous = self.simulation.take_observer();
        if let Some(collider) = &collider {
            self.simulation.set_observer(collider.observer());
        }
        let report = match self
            .simulation
            .update(model.system().clone(), model.factory(), &vars)
        {
            Ok(report) => report,
            Err(e) => {
                self.simulation.take_observer();
                if let Some(previous) = previous {
                    self.simulation.set_observer(previous);
                }
                return Err(model.describe(e, None));
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
                    .map_err(|e| model.describe(e, Some(self.simulation.partition())))?;
                backed_up.extend(truncations.into_iter().map(|t| t.component));
            }
        }
        backed_up.extend(report.reset.iter().copied());
        backed_up.extend(report.backed_up.iter().copied());
        self.scene = scene;
        self.model = model;
        self.collider = collider;
        self.model.check_springs(self.simulation.partition())?;
        Ok(UpdateSummary {
            from_scratch: false,
            components_reset: backed_up.len(),
            components_total: self.simulation.partition().len(),
            report,
        })
    }
}

/// The scene's options with `strategy`.
fn options(model: &Model, strategy: Strategy) -> Options {
    let mut options = model.options();
    options.strategy = strategy;
    options
}
