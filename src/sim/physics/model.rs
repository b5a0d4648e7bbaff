//! A scene compiled to equations of motion: the [`Model`] the simulator runs.

use super::assemble::{Assembled, Assembly};
use super::body::{shape_mass_properties, slot, BodyModel, BodyVars, InitialState, BODY_VARIABLES};
use super::error::{PhysicsError, SimulationFailure};
use super::factory::TapeFactory;
use super::interaction::{InteractionInputs, Pullable};
use super::links::Spring;
use super::motion::SceneMotion;
use super::symbols::Meaning;
use super::trajectory::{constrain, Constraint, Curves};
use super::work::{FreeLoads, Work, WorkElement};
use crate::geom::MassProperties;
use crate::scene::model::{ConstrainedVar, Scene, Simulator};
use crate::scene::{ChangeKind, ElementKind, SceneDiff};
use crate::sim::{
    EquationFactory, ErrorKind, Motion, Options, Partition, SimError, Simulation, System,
    Tolerance, VarId,
};
use std::collections::HashMap;
use std::sync::Arc;

/// The smallest step, as a fraction of the simulated span: a component that needs shorter steps
/// stops with an error.
const MIN_STEP_FRACTION: f64 = 1e-12;

/// The shortest link time constant, as a fraction of the simulated span. A stiffer link would
/// need more than a million steps to follow (or, stepped over, would make its joint forces
/// ring from step to step instead of settling), so it stops the simulation with an error.
const MIN_TIME_CONSTANT_FRACTION: f64 = 1e-6;

/// A scene's bodies, their state variables and equations, ready to simulate.
///
/// Built once per scene by [`Model::compile`]; [`Model::simulation`] makes a
/// [`Simulation`] of it (any number of times, with any [`Options`]). After an edit,
/// [`Model::update`] shares the equations with the model of the scene before it where the edit
/// left them alone.
pub struct Model {
    bodies: Arc<[BodyModel]>,
    index: Arc<HashMap<String, usize>>,
    constraints: Arc<[Vec<Constraint>]>,
    springs: Vec<Spring>,
    system: System,
    factory: Arc<TapeFactory>,
    inputs: InteractionInputs,
    /// The bodies that can be pulled, for an interactive model.
    pullable: Option<Pullable>,
    simulator: Simulator,
    /// Per state variable, whether its equation reads nothing but state variables and inputs
    /// (contact loads, live mode's pushes and pulls): no time, no trajectory.
    state_only: Vec<bool>,
    /// The elements that do work on the bodies, for the energy ledger.
    works: Arc<[WorkElement]>,
}

impl Model {
    /// Turns `scene` into equations: mass properties, state variables and initial values,
    /// forces, torques and links as symbolic expressions, trajectory constraints.
    /// Each component's equations are compiled later, when a simulation is created.
    pub fn compile(scene: &Scene) -> Result<Model, PhysicsError> {
        Model::build(scene, None, None)
    }

    /// [`Model::compile`], with external inputs through which every moving body can be pushed
    /// and the `pullable` ones pulled while the simulation runs ([`Model::inputs`], see
    /// [`interaction`](super::interaction)). While no input is set the motion is the scene's.
    pub fn compile_interactive(scene: &Scene, pullable: &Pullable) -> Result<Model, PhysicsError> {
        Model::build(scene, Some(pullable), None)
    }

    /// The model of `scene`, an edit that `changes` describes of the scene this model was
    /// compiled from. An edit of only the initial values of moving bodies (or of only how the
    /// scene looks) leaves every equation as it was: the new model shares them, its bodies'
    /// and variables' initial values are read anew, and the links are located in the new text.
    /// Any other edit compiles `scene` as this model was compiled (interactive or not).
    pub fn update(&self, scene: &Scene, changes: &SceneDiff) -> Result<Model, PhysicsError> {
        if !self.equations_unchanged(scene, changes) {
            return Model::build(scene, self.pullable.as_ref(), Some(&self.inputs));
        }
        let mut bodies = self.bodies.to_vec();
        let mut system = self.system.clone();
        for name in &changes.initial_changed {
            let b = self.index[name.as_str()];
            let body = &mut bodies[b];
            body.initial = InitialState::of(&scene.bodies[b])?;
            let vars = body
                .vars
                .expect("only moving bodies' initial values change here");
            for (k, value) in body.initial_values().into_iter().enumerate() {
                system.set_initial(vars.at(k), value);
            }
        }
        let mut springs = self.springs.clone();
        for spring in &mut springs {
            spring.span = scene.links[spring.link].origin.command;
        }
        Ok(Model {
            bodies: bodies.into(),
            index: self.index.clone(),
            constraints: self.constraints.clone(),
            springs,
            system,
            factory: self.factory.clone(),
            inputs: self.inputs.clone(),
            pullable: self.pullable.clone(),
            simulator: scene.simulator.clone(),
            state_only: self.state_only.clone(),
            works: self.works.clone(),
        })
    }

    /// Whether `scene`, the edit `changes` describes, has this model's equations: its bodies
    /// are this model's, in the same order, and the edit changed nothing but the initial values
    /// of moving bodies and how things look.
    fn equations_unchanged(&self, scene: &Scene, changes: &SceneDiff) -> bool {
        let only_initial_or_looks = changes.changes.iter().all(|c| match (c.kind, c.change) {
            (ElementKind::Light | ElementKind::Camera, _) => true,
            (ElementKind::Body, ChangeKind::Changed(aspects)) => !aspects.equations,
            _ => false,
        });
        let same_bodies = scene.bodies.len() == self.bodies.len()
            && scene
                .bodies
                .iter()
                .zip(self.bodies.iter())
                .all(|(new, old)| new.name == old.name);
        let moving = |name: &String| {
            self.body_index(name)
                .is_some_and(|b| !self.bodies[b].is_fixed())
        };
        // Links are matched by index: the same bodies and tightness there.
        let same_links = self.springs.iter().all(|spring| {
            scene.links.get(spring.link).is_some_and(|link| {
                link.body1 == self.bodies[spring.bodies.0].name
                    && link.tightness.value == spring.tightness
            })
        });
        only_initial_or_looks
            && same_bodies
            && changes.equations_changed.is_empty()
            && changes.initial_changed.iter().all(moving)
            && same_links
    }

    /// Compiles `scene`; with the `earlier` inputs of a model of an earlier version of it,
    /// shares them when they are laid out alike (see [`InteractionInputs::or_same_as`]).
    fn build(
        scene: &Scene,
        pullable: Option<&Pullable>,
        earlier: Option<&InteractionInputs>,
    ) -> Result<Model, PhysicsError> {
        check_simulator(scene)?;
        let bodies = body_models(scene)?;
        let variables = bodies.iter().filter(|b| !b.is_fixed()).count() * BODY_VARIABLES;
        let inputs = InteractionInputs::new(bodies.len(), |b| !bodies[b].is_fixed(), pullable);
        let inputs = match earlier {
            Some(earlier) => inputs.or_same_as(earlier),
            None => inputs,
        };
        let mut assembly = Assembly::new(scene, bodies, variables, inputs.len())?;
        for force in &scene.forces {
            assembly.add_force(force)?;
        }
        for (index, link) in scene.links.iter().enumerate() {
            assembly.add_link(index, link)?;
        }
        for body in 0..scene.bodies.len() {
            if let Some((first, pull)) = inputs.block(body) {
                assembly.add_interaction(body, first, pull);
            }
            if let Some(first) = inputs.contact_block(body) {
                assembly.add_contact(body, first);
            }
        }
        let rhs = assembly.equations(variables);
        let Assembled {
            pool,
            bodies,
            symbols,
            springs,
            works,
        } = assembly.finish();

        let simulator = scene.simulator.clone();
        let mut system = System::new(simulator.start, simulator.finish);
        for body in &bodies {
            if body.vars.is_some() {
                for (name, value) in slot::NAMES.iter().zip(body.initial_values()) {
                    system.add_variable(format!("{}.{name}", body.name), value);
                }
            }
        }
        let curves = Curves::new(&scene.trajectories);
        let mut state_only = vec![true; rhs.len()];
        for (i, &node) in rhs.iter().enumerate() {
            let var = VarId(i as u32);
            let mut reads = Vec::new();
            let mut trajectories = Vec::new();
            for &symbol in pool.symbols(node) {
                let meaning = symbols.meaning(symbol);
                // Inputs leave a body moving by its state alone (it may sleep): its contact
                // loads are the collider's own, and live mode restarts, and so wakes, a body
                // whose push or pull it changes (`live::scene`).
                state_only[i] &= match meaning {
                    Meaning::State(_) | Meaning::Input(_) => true,
                    Meaning::Time | Meaning::Channel(_) => false,
                };
                match meaning {
                    Meaning::Time | Meaning::Input(_) => {}
                    Meaning::State(v) => reads.push(v),
                    Meaning::Channel(k) => trajectories.push(symbols.channels()[k].trajectory),
                }
            }
            system.set_reads(var, &reads);
            trajectories.sort_unstable();
            trajectories.dedup();
            for t in trajectories {
                for time in curves.breakpoints(t) {
                    system.add_breakpoint(var, time);
                }
            }
        }
        let constraints = constrain(&mut system, scene, &bodies, &curves)?;
        let index = bodies
            .iter()
            .enumerate()
            .map(|(i, b)| (b.name.clone(), i))
            .collect();
        Ok(Model {
            bodies: bodies.into(),
            index: Arc::new(index),
            constraints: constraints.into(),
            springs,
            system,
            factory: Arc::new(TapeFactory::new(pool, rhs, symbols, curves, inputs.clone())),
            inputs,
            pullable: pullable.cloned(),
            simulator,
            state_only,
            works: works.into(),
        })
    }

    /// The work each force, torque, link, push and pull did on the bodies in `motion` (of a
    /// simulation of this model) up to `until`, in the order the scene gives them.
    pub fn work(&self, motion: &Motion, until: f64) -> Vec<Work> {
        let evaluation = self.factory.evaluation(&self.bodies);
        let tracks = motion.tracks();
        self.works
            .iter()
            .map(|element| element.work(&evaluation, &tracks, until))
            .collect()
    }

    /// Every element's load on each moving body, compiled for evaluation at any state.
    pub(crate) fn free_loads(&self) -> FreeLoads {
        FreeLoads::compile(&self.works, &self.factory.evaluation(&self.bodies))
    }

    /// The bodies, in scene order.
    pub fn bodies(&self) -> &[BodyModel] {
        &self.bodies
    }

    /// The index of the body called `name`.
    pub fn body_index(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    /// The state variables: names `BODY.VAR`, initial values, what each equation reads,
    /// prescriptions and breakpoints.
    pub fn system(&self) -> &System {
        &self.system
    }

    /// The factory compiling each component's equations (for [`Simulation::update`]).
    pub fn factory(&self) -> &dyn EquationFactory {
        &*self.factory
    }

    /// Whether body `body` moves by its own state alone: its equations read no time,
    /// trajectory or other body's state, and no trajectory constrains it. Such a body, once at
    /// rest on its supports, stays at rest until something hits it, or live mode changes the
    /// push or pull on it (and restarts it).
    pub fn self_contained(&self, body: usize) -> bool {
        let Some(vars) = self.bodies[body].vars else {
            return false;
        };
        let own = |v: &VarId| (0..BODY_VARIABLES).any(|k| vars.at(k) == *v);
        self.constraints[body].is_empty()
            && (0..BODY_VARIABLES).all(|k| {
                let var = vars.at(k);
                self.state_only[var.index()] && self.system.variable(var).reads().iter().all(own)
            })
    }

    /// The external inputs that push and pull bodies (none unless the model was compiled
    /// interactive).
    pub fn inputs(&self) -> &InteractionInputs {
        &self.inputs
    }

    /// The scene's `simulator` settings.
    pub fn simulator(&self) -> &Simulator {
        &self.simulator
    }

    /// Simulation options following the scene: its tolerance bounds each step's local error
    /// (absolute and relative), and the first step is no longer than its output step.
    pub fn options(&self) -> Options {
        let mut options = Options::default();
        let tolerance = self.simulator.tolerance;
        options.step.tolerance = Tolerance::new(tolerance, tolerance);
        let span = self.simulator.finish - self.simulator.start;
        options.step.min_step = span * MIN_STEP_FRACTION;
        options.step.initial_step = options
            .step
            .initial_step
            .min(self.simulator.step)
            .max(options.step.min_step);
        options
    }

    /// A simulation of the model, nothing integrated yet. Fails, naming the bodies, their
    /// component and the start time, if a link's time constant `sqrt(m / k)` is shorter than a
    /// millionth of the simulated span.
    pub fn simulation(&self, options: Options) -> Result<Simulation, PhysicsError> {
        let simulation = Simulation::new(self.system.clone(), &*self.factory, options)
            .map_err(|e| self.describe(e, None))?;
        self.check_springs(simulation.partition())?;
        Ok(simulation)
    }

    /// Fails on the first link whose time constant is too short (see [`Model::simulation`]).
    pub(crate) fn check_springs(&self, partition: &Partition) -> Result<(), PhysicsError> {
        let span = self.simulator.finish - self.simulator.start;
        let shortest = span * MIN_TIME_CONSTANT_FRACTION;
        let Some(spring) = self.springs.iter().find(|s| s.time_constant < shortest) else {
            return Ok(());
        };
        let (first, second) = spring.bodies;
        let mut bodies = vec![first];
        bodies.extend(second);
        bodies.retain(|&b| !self.bodies[b].is_fixed());
        let moving = self.bodies[bodies[0]]
            .vars
            .expect("a stiff spring moves a body");
        let component = partition.component_of(moving.first);
        // The largest tightness that keeps the time constant: m / k = shortest².
        let mass = spring.tightness * spring.time_constant * spring.time_constant;
        let error = SimError {
            kind: ErrorKind::StepCollapse,
            message: format!(
                "the link of tightness {} settles in {:.3e} s, shorter than the shortest time \
                 the integrator resolves over this span ({shortest:.3e} s, a millionth of it); \
                 use a tightness below {:.3e}",
                spring.tightness,
                spring.time_constant,
                mass / (shortest * shortest)
            ),
            component: Some(component),
            time: Some(self.simulator.start),
            variables: bodies
                .iter()
                .map(|&b| {
                    self.system
                        .name(self.bodies[b].vars.expect("moving").at(0))
                        .to_string()
                })
                .collect(),
        };
        let mut failure = SimulationFailure::new(error, partition.members(component).len());
        failure.span = Some(spring.span);
        Err(failure.into())
    }

    /// A simulation error in the scene's terms: the bodies and the size of the component.
    pub fn describe(&self, error: SimError, partition: Option<&Partition>) -> PhysicsError {
        let size = match (partition, error.component) {
            (Some(p), Some(c)) if c.index() < p.len() => p.members(c).len(),
            _ => 0,
        };
        SimulationFailure::new(error, size).into()
    }

    /// The motion of the bodies, read from a simulation's (growing) tracks.
    pub fn motion(&self, motion: Motion) -> SceneMotion {
        SceneMotion::new(self.bodies.clone(), motion)
    }

    /// The intervals over which trajectories constrain body `body`.
    pub fn constraints(&self, body: usize) -> &[Constraint] {
        &self.constraints[body]
    }

    /// Whether a trajectory prescribes any of body `body`'s variables at `t`: collision
    /// response then treats the body as infinitely massive. Fixed bodies always count.
    pub fn is_constrained(&self, body: usize, t: f64) -> bool {
        self.bodies[body].is_fixed() || self.constraints[body].iter().any(|c| c.holds_at(t))
    }

    /// The kinds of variables of body `body` that trajectories prescribe at `t`.
    pub fn constrained_at(&self, body: usize, t: f64) -> Vec<ConstrainedVar> {
        let mut kinds: Vec<ConstrainedVar> = self.constraints[body]
            .iter()
            .filter(|c| c.holds_at(t))
            .map(|c| c.variable)
            .collect();
        kinds.dedup();
        kinds
    }
}

/// The bodies' mass properties and variable blocks (moving bodies numbered in scene order).
fn body_models(scene: &Scene) -> Result<Vec<BodyModel>, PhysicsError> {
    let shapes: HashMap<&str, usize> = scene
        .shapes
        .iter()
        .enumerate()
        .map(|(i, s)| (s.name.as_str(), i))
        .collect();
    let mut props: Vec<Option<MassProperties>> = vec![None; scene.shapes.len()];
    let mut bodies = Vec::with_capacity(scene.bodies.len());
    let mut next = 0u32;
    for body in &scene.bodies {
        let shape = match shapes.get(body.shape.as_str()) {
            Some(&s) => {
                if props[s].is_none() {
                    props[s] = Some(shape_mass_properties(&scene.shapes[s])?);
                }
                props[s].as_ref()
            }
            None => None,
        };
        let mut model = BodyModel::new(body, shape)?;
        if !body.fixed {
            model.vars = Some(BodyVars { first: VarId(next) });
            next += BODY_VARIABLES as u32;
        }
        bodies.push(model);
    }
    Ok(bodies)
}

fn check_simulator(scene: &Scene) -> Result<(), PhysicsError> {
    let s = &scene.simulator;
    let at = scene.simulator_origin.as_ref().map(|o| o.command);
    let problem = if !(s.start.is_finite() && s.finish.is_finite() && s.start < s.finish) {
        Some(format!(
            "simulator: start {} must be before finish {}, both finite",
            s.start, s.finish
        ))
    } else if !(s.step.is_finite() && s.step > 0.0) {
        Some(format!("simulator: step must be positive, got {}", s.step))
    } else if !(s.tolerance.is_finite() && s.tolerance > 0.0) {
        Some(format!(
            "simulator: tolerance must be positive, got {}",
            s.tolerance
        ))
    } else {
        None
    };
    match problem {
        Some(message) => Err(PhysicsError::model(message, at)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{diff, evaluate};

    /// The model of `new` as [`Model::update`] makes it from the model of `old`.
    fn updated(old: &str, new: &str) -> (Model, Model) {
        let (old, new) = (scene(old), scene(new));
        let before = Model::compile(&old).unwrap();
        let after = before.update(&new, &diff(&old, &new)).unwrap();
        (before, after)
    }

    fn scene(text: &str) -> Scene {
        evaluate(text).unwrap_or_else(|e| panic!("{}", e.diagnostic("test")))
    }

    fn model(text: &str) -> Model {
        Model::compile(&scene(text)).unwrap()
    }

    const TWO_BALLS: &str = "shape_set ball desc {sphere 0.5}
    body a shape ball init_pos {0 0 0} init_dpos {1 0 0}
    body b shape ball init_pos {5 0 0}
    force body a gravity {0 -9.81 0}
    link body1 a offset1 {0 0.5 0} point {0 3 0} tightness 20";

    /// `TWO_BALLS` with `a`'s line replaced.
    fn two_balls_with(a: &str) -> String {
        TWO_BALLS.replace("body a shape ball init_pos {0 0 0} init_dpos {1 0 0}", a)
    }

    #[test]
    fn an_edit_of_initial_values_shares_the_equations_and_equals_compiling_anew() {
        let new = two_balls_with("body a shape ball init_pos {0.25 -1.5 0} init_dpos {1 2 0}");
        let (before, after) = updated(TWO_BALLS, &new);
        assert!(Arc::ptr_eq(&before.factory, &after.factory));
        let fresh = model(&new);
        assert_eq!(after.bodies(), fresh.bodies());
        let initial = |m: &Model| -> Vec<f64> {
            m.system().variables().iter().map(|v| v.initial()).collect()
        };
        assert_eq!(initial(&after), initial(&fresh));
        assert_ne!(initial(&after), initial(&before));
        // The link is found where the new text has it.
        assert_eq!(after.springs, fresh.springs);
    }

    #[test]
    fn an_edit_of_the_equations_or_of_a_fixed_body_compiles_anew() {
        for new in [
            TWO_BALLS.replace("gravity {0 -9.81 0}", "gravity {0 -1 0}"),
            two_balls_with("body a shape ball init_pos {0 0 0} init_dpos {1 0 0} mass 3"),
            TWO_BALLS.replace(
                "body b shape ball init_pos {5 0 0}",
                "body b shape ball init_pos {6 0 0} fixed 1",
            ),
            format!("{TWO_BALLS}\nbody c shape ball init_pos {{9 0 0}}"),
        ] {
            let (before, after) = updated(TWO_BALLS, &new);
            assert!(!Arc::ptr_eq(&before.factory, &after.factory), "{new}");
            let fresh = model(&new);
            assert_eq!(after.bodies(), fresh.bodies(), "{new}");
            assert_eq!(after.system().len(), fresh.system().len(), "{new}");
        }
    }

    #[test]
    fn an_updated_model_keeps_its_interactive_inputs() {
        let old = scene(TWO_BALLS);
        let new = scene(&two_balls_with(
            "body a shape ball init_pos {1 0 0} init_dpos {1 0 0}",
        ));
        let before = Model::compile_interactive(&old, &Pullable::All).unwrap();
        let changes = diff(&old, &new);
        let after = before.update(&new, &changes).unwrap();
        assert_eq!(after.inputs().len(), before.inputs().len());
        assert!(!after.inputs().is_empty());
        let added = scene(&format!("{TWO_BALLS}\nbody c shape ball"));
        let recompiled = before.update(&added, &diff(&old, &added)).unwrap();
        assert!(recompiled.inputs().len() > before.inputs().len());
    }
}
