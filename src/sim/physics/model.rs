//! A scene compiled to equations of motion: the [`Model`] the simulator runs.

use super::assemble::{names, slot_owners, Assembled, Assembly};
use super::bodies::Bodies;
use super::body::{shape_mass_properties, BodyModel, BODY_VARIABLES};
use super::body_index::BodyIndex;
use super::error::{PhysicsError, SimulationFailure};
use super::factory::TapeFactory;
use super::interaction::{InteractionInputs, Pullable};
use super::layout::{block, slot_of, variable_name, Layout};
use super::links::Spring;
use super::motion::SceneMotion;
use super::readers::{Element, Readers, Role};
use super::switches::Switches;
use super::symbols::{Meaning, SymbolTable, TIME};
use super::trajectory::{constrain, Constraint, Curves};
use super::work::{FreeLoads, Reuse, Source, Work, WorkElement};
use crate::geom::MassProperties;
use crate::lang::fxhash::FxHashMap;
use crate::scene::model::{Body, ConstrainedVar, Scene, Simulator};
use crate::sim::memory::refill;
use crate::sim::{
    EquationFactory, ErrorKind, Motion, Options, Partition, SimError, Simulation, System,
    Tolerance, VarId,
};
use crate::sym::{Node, Pool};
use std::collections::{HashMap, HashSet};
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
/// [`Model::update`] assembles again only the equations of the bodies the edit reached.
pub struct Model {
    pub(super) bodies: Bodies,
    pub(super) index: Arc<BodyIndex>,
    /// Per body, the intervals over which trajectories constrain it.
    pub(super) constraints: Vec<Vec<Constraint>>,
    pub(super) springs: Vec<Spring>,
    pub(super) system: System,
    pub(super) factory: TapeFactory,
    /// The bodies that can be pulled, for an interactive model.
    pub(super) pullable: Option<Pullable>,
    pub(super) simulator: Simulator,
    /// Per state variable, whether its equation reads nothing but state variables and inputs
    /// (contact loads, live mode's pushes and pulls): no time, no trajectory.
    pub(super) state_only: Vec<bool>,
    /// The elements that do work on the bodies, for the energy ledger, in scene order.
    pub(super) works: Vec<WorkElement>,
    /// The moving bodies' blocks of variables, by name.
    pub(super) layout: Layout,
    /// The scene's trajectories, in order: the channels the equations read are numbered by
    /// their place.
    pub(super) trajectories: Vec<String>,
    /// How many forces and links the scene has.
    pub(super) elements: (usize, usize),
    /// The pool's size when the model was last compiled whole.
    pub(super) compiled_nodes: usize,
    /// The scene's forces and links by the bodies they name (`None` after a failed update,
    /// until the next one makes it again).
    pub(super) readers: Option<Readers>,
    /// By slot, the moving body holding it.
    pub(super) slots: Vec<Option<usize>>,
    /// The scene's shape sets by name, kept across edits that add or remove none, so that an
    /// update finds an assembled body's shape without searching every shape set.
    pub(super) shapes: ShapeIndex,
}

/// The bodies (indices among the `n` now) whose loads [`FreeLoads::compile`] compiles anew
/// with `reuse`, or more: those the edit changed, those added, and those whose loads read a
/// body deleted. Every other body's earlier loads are taken.
fn compiled_anew(reuse: &Reuse<'_>, n: usize) -> Vec<usize> {
    let mut bodies: Vec<usize> = reuse.changed.iter().copied().collect();
    let mut kept = vec![false; n];
    for (old, new) in reuse.map.iter().enumerate() {
        match new {
            Some(new) => kept[*new] = true,
            None => bodies.extend(
                reuse
                    .earlier
                    .read_by(old)
                    .iter()
                    .filter_map(|&r| reuse.map[r]),
            ),
        }
    }
    bodies.extend((0..kept.len()).filter(|&b| !kept[b]));
    bodies.sort_unstable();
    bodies.dedup();
    bodies
}

/// The shortest link time constant a simulation of `simulator`'s span allows.
pub(super) fn shortest_time_constant(simulator: &Simulator) -> f64 {
    (simulator.finish - simulator.start) * MIN_TIME_CONSTANT_FRACTION
}

/// Shape sets by name (their places in [`Scene::shapes`]).
pub(super) type ShapeIndex = Arc<FxHashMap<String, usize>>;

/// The shape sets of `scene` by name.
pub(super) fn shape_index(scene: &Scene) -> ShapeIndex {
    let mut index = FxHashMap::default();
    for (i, s) in scene.shapes.iter().enumerate() {
        index.entry(s.name.clone()).or_insert(i);
    }
    Arc::new(index)
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

    /// Compiles `scene` whole; with the `earlier` layout and inputs of a model of an earlier
    /// version of it, keeps each body's variables and shares the inputs where they have room.
    pub(super) fn build(
        scene: &Scene,
        pullable: Option<&Pullable>,
        earlier: Option<(&Layout, &InteractionInputs)>,
    ) -> Result<Model, PhysicsError> {
        check_simulator(scene)?;
        let names = names(scene)?;
        let index = names.0.clone();
        let mut bodies = body_models(scene)?;
        let mut layout = earlier
            .map(|(layout, _)| layout.clone())
            .unwrap_or_default();
        let moving: HashSet<&str> = bodies
            .iter()
            .zip(&scene.bodies)
            .filter(|(_, body)| !body.fixed)
            .map(|(b, _)| b.name.as_str())
            .collect();
        let stopped: Vec<&str> = layout.names().filter(|n| !moving.contains(n)).collect();
        let moving_in_order = scene
            .bodies
            .iter()
            .filter(|b| !b.fixed)
            .map(|b| b.name.as_str());
        let plan = layout.plan(moving_in_order, stopped.into_iter());
        layout.apply(&plan);
        for (body, given) in bodies.iter_mut().zip(&scene.bodies) {
            if !given.fixed {
                body.vars = layout.slot(&body.name).map(block);
            }
        }
        let slots: Vec<Option<usize>> = bodies.iter().map(|b| b.vars.map(slot_of)).collect();
        let inputs = earlier
            .and_then(|(_, inputs)| inputs.rearranged(&slots, pullable))
            .unwrap_or_else(|| InteractionInputs::new(&slots, pullable));
        let bodies: Bodies = bodies.into();
        let slots = slot_owners(&bodies);
        let mut assembly = Assembly::new(
            scene,
            (bodies, &slots),
            Pool::new(),
            SymbolTable::new(),
            names,
        );
        let all: Vec<usize> = (0..scene.bodies.len()).collect();
        let forces: Vec<usize> = (0..scene.forces.len()).collect();
        let links: Vec<usize> = (0..scene.links.len()).collect();
        let elements = (forces.as_slice(), links.as_slice());
        let equations = assemble(&mut assembly, scene, &inputs, &all, elements)?;
        let Assembled {
            pool,
            mut bodies,
            symbols,
            springs,
            works,
            first_integrals,
        } = assembly.finish();
        for b in 0..bodies.len() {
            set_free_spin(&mut bodies, b, &first_integrals);
        }

        let simulator = scene.simulator.clone();
        let mut system = System::new(simulator.start, simulator.finish);
        for (s, owner) in layout.owners().into_iter().enumerate() {
            for k in 0..BODY_VARIABLES {
                system.add_variable(variable_name(owner, s, k), 0.0);
            }
        }
        for body in &bodies {
            if let Some(vars) = body.vars {
                for (k, value) in body.initial_values().into_iter().enumerate() {
                    system.set_initial(vars.at(k), value);
                }
            }
        }
        // Both by variable, with room for the variables of bodies an edit adds (see
        // [`refill`]): held at their length, the first edit adding a body copied them whole
        // into new memory.
        let (mut rhs, mut state_only) = (Vec::new(), Vec::new());
        refill(&mut rhs, system.len(), Pool::ZERO);
        for &(var, node) in &equations {
            rhs[var.index()] = node;
        }
        let curves = Curves::new(&scene.trajectories);
        refill(&mut state_only, rhs.len(), true);
        let mut reading = Reading::new(&pool, &symbols, &curves, &simulator);
        for (i, &node) in rhs.iter().enumerate() {
            state_only[i] = reading.declare(&mut system, VarId(i as u32), node);
        }
        let found = constrain(scene, &bodies, &curves, &index, |_| true)?;
        for (var, prescription) in found.prescriptions {
            system.prescribe(var, prescription);
        }
        let mut constraints = vec![Vec::new(); bodies.len()];
        for (b, list) in found.constraints {
            constraints[b] = list;
        }
        let compiled_nodes = pool.len();
        let shortest = shortest_time_constant(&simulator);
        Ok(Model {
            bodies,
            index,
            constraints,
            springs: (springs.into_iter())
                .map(|s| s.reported(shortest))
                .collect(),
            system,
            factory: TapeFactory::new(pool, rhs, first_integrals, symbols, curves, inputs),
            pullable: pullable.cloned(),
            simulator,
            state_only,
            works,
            layout,
            trajectories: scene.trajectories.iter().map(|t| t.name.clone()).collect(),
            elements: (scene.forces.len(), scene.links.len()),
            compiled_nodes,
            readers: Some(Readers::of(scene)),
            slots,
            shapes: shape_index(scene),
        })
    }

    /// The work each force, torque, link, push and pull did on the bodies in `motion` (of a
    /// simulation of this model) up to `until`, in the order the scene gives them; each
    /// force's and link's with the span of its command in `scene`, the scene this model was
    /// compiled or last updated for (the model keeps no spans, which every edit before them
    /// would move).
    pub fn work(&self, scene: &Scene, motion: &Motion, until: f64) -> Vec<Work> {
        let evaluation = self.factory.evaluation(&self.bodies, &self.slots);
        let tracks = motion.tracks();
        let span = |source: Source| match source {
            Source::Force(i) => scene.forces.get(i).map(|f| f.origin.command),
            Source::Link(i) => scene.links.get(i).map(|l| l.origin.command),
            Source::Body(_) => None,
        };
        self.works
            .iter()
            .map(|element| Work {
                span: span(element.source),
                ..element.work(&evaluation, &tracks, until)
            })
            .collect()
    }

    /// Every element's load on each moving body, compiled for evaluation at any state; with
    /// `reuse`, those of the bodies an edit left alone taken from before it. Only the work
    /// elements acting on the bodies compiled anew are handed over then (found through the
    /// name index, so the others are not visited).
    pub(crate) fn free_loads(&self, reuse: Option<Reuse<'_>>) -> FreeLoads {
        let evaluation = self.factory.evaluation(&self.bodies, &self.slots);
        let acting = (reuse.as_ref().zip(self.readers.as_ref())).map(|(reuse, readers)| {
            self.works_on(&compiled_anew(reuse, self.bodies.len()), readers)
        });
        let works = acting.as_deref().unwrap_or(self.works.as_slice());
        FreeLoads::compile(works, &evaluation, reuse)
    }

    /// The work elements acting on `bodies` (indices now), in order: each force and link
    /// whose load is on one of them (through `readers`, the scene's index) and each body's
    /// pushes and pulls.
    fn works_on(&self, bodies: &[usize], readers: &Readers) -> Vec<WorkElement> {
        let mut sources = Vec::new();
        for &b in bodies {
            sources.push(Source::Body(b));
            for (element, role) in readers.of_body(&self.bodies[b].name) {
                match (element, role) {
                    (Element::Force(i), Role::Acts) => sources.push(Source::Force(i as usize)),
                    (Element::Link(i), Role::Acts) => sources.push(Source::Link(i as usize)),
                    _ => {}
                }
            }
        }
        sources.sort_unstable();
        sources.dedup();
        let mut works = Vec::new();
        for source in sources {
            let from = self.works.partition_point(|w| w.source < source);
            let to = self.works.partition_point(|w| w.source <= source);
            works.extend_from_slice(&self.works[from..to]);
        }
        works
    }

    /// The bodies, in scene order.
    pub fn bodies(&self) -> &Bodies {
        &self.bodies
    }

    /// The index of the body called `name`.
    pub fn body_index(&self, name: &str) -> Option<usize> {
        self.index.get(name)
    }

    /// The place in the scene of the shape set called `name`, as the last compile or update
    /// indexed the scene's shape sets.
    pub(crate) fn shape_place(&self, name: &str) -> Option<usize> {
        self.shapes.get(name).copied()
    }

    /// The state variables: names `BODY.VAR`, initial values, what each equation reads,
    /// prescriptions and breakpoints.
    pub fn system(&self) -> &System {
        &self.system
    }

    /// The factory compiling each component's equations (for [`Simulation::update`]).
    pub fn factory(&self) -> &dyn EquationFactory {
        &self.factory
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
        &self.factory.inputs
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
        let simulation = Simulation::new(self.system.clone(), &self.factory, options)
            .map_err(|e| self.describe(e, None))?;
        self.check_springs(simulation.partition())?;
        Ok(simulation)
    }

    /// Fails on the first link whose time constant is too short (see [`Model::simulation`]).
    pub(crate) fn check_springs(&self, partition: &Partition) -> Result<(), PhysicsError> {
        let shortest = shortest_time_constant(&self.simulator);
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
        failure.span = spring.span;
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

/// Marks body `b` as turning freely if its orientation's equations keep a first integral
/// (see [`BodyModel::free_spin`]).
pub(super) fn set_free_spin(bodies: &mut Bodies, b: usize, first_integrals: &[(Vec<VarId>, Node)]) {
    let Some(vars) = bodies[b].vars else { return };
    let mut rotation = vars.rotation().to_vec();
    rotation.sort_unstable();
    let free = first_integrals
        .iter()
        .any(|(own, _)| own[..] == rotation[..]);
    if bodies[b].free_spin != free {
        bodies.get_mut(b).free_spin = free;
    }
}

/// The bodies' mass properties, in scene order (no variables yet).
fn body_models(scene: &Scene) -> Result<Vec<BodyModel>, PhysicsError> {
    let shapes: HashMap<&str, usize> = scene
        .shapes
        .iter()
        .enumerate()
        .map(|(i, s)| (s.name.as_str(), i))
        .collect();
    let mut props: Vec<Option<MassProperties>> = vec![None; scene.shapes.len()];
    let mut bodies = Vec::with_capacity(scene.bodies.len());
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
        bodies.push(BodyModel::new(body, shape)?);
    }
    Ok(bodies)
}

/// Body `body` of `scene` with its shape's mass properties (no variables yet); `place` is
/// where its shape set should be in the scene's (checked by name, and the shape searched for
/// when it misses).
pub(super) fn body_model(
    scene: &Scene,
    body: &Body,
    place: Option<usize>,
) -> Result<BodyModel, PhysicsError> {
    let indexed = place
        .and_then(|s| scene.shapes.get(s))
        .filter(|s| s.name == body.shape);
    let shape = indexed.or_else(|| scene.shapes.iter().find(|s| s.name == body.shape));
    let props = match shape {
        Some(shape) => Some(shape_mass_properties(shape)?),
        None => None,
    };
    BodyModel::new(body, props.as_ref())
}

/// Adds to `assembly` the `elements` (indices of the scene's forces and of its links) and the
/// pushes, pulls and contacts of the bodies `selected` (in scene order); returns the equations
/// of the selected bodies.
pub(super) fn assemble(
    assembly: &mut Assembly<'_>,
    scene: &Scene,
    inputs: &InteractionInputs,
    selected: &[usize],
    elements: (&[usize], &[usize]),
) -> Result<Vec<(VarId, Node)>, PhysicsError> {
    let (forces, links) = elements;
    for &index in forces {
        assembly.add_force(index, &scene.forces[index])?;
    }
    for &index in links {
        assembly.add_link(index, &scene.links[index])?;
    }
    for &body in selected {
        if let Some((first, pull)) = inputs.block(body) {
            assembly.add_interaction(body, first, pull);
        }
        if let Some(first) = inputs.contact_block(body) {
            assembly.add_contact(body, first);
        }
    }
    Ok(assembly.equations(selected.iter().copied()))
}

/// What declaring a variable's equation in the system needs to read its node.
pub(super) struct Reading<'a> {
    pool: &'a Pool,
    symbols: &'a SymbolTable,
    curves: &'a Curves,
    /// The times at which equations switch on time alone, over the simulated span.
    switches: Switches<'a>,
}

impl<'a> Reading<'a> {
    pub fn new(
        pool: &'a Pool,
        symbols: &'a SymbolTable,
        curves: &'a Curves,
        simulator: &Simulator,
    ) -> Reading<'a> {
        Reading {
            pool,
            symbols,
            curves,
            switches: Switches::new(pool, TIME, simulator.start, simulator.finish),
        }
    }

    /// Declares in `system` what the equation `node` of variable `var` reads (the reference
    /// graph's arcs) and where it breaks: the times its switches on time flip and where the
    /// trajectories it reads break. Returns whether it reads nothing but state variables and
    /// inputs.
    pub fn declare(&mut self, system: &mut System, var: VarId, node: Node) -> bool {
        let mut reads = Vec::new();
        let mut trajectories = Vec::new();
        let mut state_only = true;
        for &symbol in self.pool.symbols(node) {
            let meaning = self.symbols.meaning(symbol);
            // Inputs leave a body moving by its state alone (it may sleep): its contact loads
            // are the collider's own, and live mode restarts, and so wakes, a body whose push
            // or pull it changes (`live::scene`).
            state_only &= match meaning {
                Meaning::State(_) | Meaning::Input(_) => true,
                Meaning::Time | Meaning::Channel(_) => false,
            };
            match meaning {
                Meaning::Time | Meaning::Input(_) => {}
                Meaning::State(v) => reads.push(v),
                Meaning::Channel(k) => {
                    trajectories.push(self.symbols.channels()[k].trajectory);
                }
            }
        }
        system.set_reads(var, &reads);
        trajectories.sort_unstable();
        trajectories.dedup();
        let mut breakpoints = self.switches.times(node);
        for t in trajectories {
            breakpoints.extend(self.curves.breakpoints(t));
        }
        system.add_breakpoints(var, &breakpoints);
        state_only
    }
}

pub(super) fn check_simulator(scene: &Scene) -> Result<(), PhysicsError> {
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

    /// The model of `old` moved to `new` by [`Model::update`], and what changed.
    fn updated(old: &str, new: &str) -> (Model, super::super::ModelUpdate) {
        let (old, new) = (scene(old), scene(new));
        let mut model = Model::compile(&old).unwrap();
        let update = model.update(&new, &diff(&old, &new)).unwrap();
        (model, update)
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

    fn initial(m: &Model) -> Vec<f64> {
        m.system().variables().map(|v| v.initial()).collect()
    }

    /// Whether the updated model `after` has what compiling its scene `new` anew gives, with
    /// its variables where `after` keeps them.
    fn same_as_compiled(after: &Model, new: &str) {
        let fresh = model(new);
        assert_eq!(after.bodies().len(), fresh.bodies().len(), "{new}");
        for (a, f) in after.bodies().iter().zip(fresh.bodies()) {
            assert_eq!(
                (&a.name, a.mass, a.initial),
                (&f.name, f.mass, f.initial),
                "{new}"
            );
            assert_eq!(a.vars.is_some(), f.vars.is_some(), "{new}");
        }
        assert_eq!(after.springs.len(), fresh.springs.len(), "{new}");
        for (a, f) in after.springs.iter().zip(&fresh.springs) {
            assert_eq!((a.link, a.span, a.tightness), (f.link, f.span, f.tightness));
        }
        let sources = |m: &Model| -> Vec<_> { m.works.iter().map(|w| w.source).collect() };
        assert_eq!(sources(after), sources(&fresh), "{new}");
        let names = |m: &Model| -> Vec<(String, usize)> {
            let mut list: Vec<_> = m.index.iter().map(|(n, i)| (n.to_string(), i)).collect();
            list.sort_unstable();
            list
        };
        assert_eq!(names(after), names(&fresh), "{new}");
        let shapes = |m: &Model| -> Vec<(String, usize)> {
            let mut list: Vec<_> = m.shapes.iter().map(|(n, &i)| (n.clone(), i)).collect();
            list.sort_unstable();
            list
        };
        assert_eq!(shapes(after), shapes(&fresh), "{new}");
        let constrained =
            |m: &Model| -> Vec<usize> { m.constraints.iter().map(Vec::len).collect() };
        assert_eq!(constrained(after), constrained(&fresh), "{new}");
        let slots = super::super::assemble::slot_owners(&after.bodies);
        assert_eq!(after.slots, slots, "{new}");
    }

    #[test]
    fn an_edit_of_initial_values_assembles_nothing_and_equals_compiling_anew() {
        let new = two_balls_with("body a shape ball init_pos {0.25 -1.5 0} init_dpos {1 2 0}");
        let before = model(TWO_BALLS);
        let (after, update) = updated(TWO_BALLS, &new);
        assert_eq!(after.factory.pool.len(), before.factory.pool.len());
        assert!(update.changes.equations.is_empty());
        assert_eq!(update.changes.initial_values.len(), BODY_VARIABLES);
        same_as_compiled(&after, &new);
        assert_eq!(initial(&after), initial(&model(&new)));
        assert_ne!(initial(&after), initial(&before));
    }

    #[test]
    fn an_edit_of_one_bodys_equations_assembles_that_body_alone() {
        for new in [
            TWO_BALLS.replace("gravity {0 -9.81 0}", "gravity {0 -1 0}"),
            two_balls_with("body a shape ball init_pos {0 0 0} init_dpos {1 0 0} mass 3"),
            TWO_BALLS.replace("tightness 20", "tightness 30"),
            format!("{TWO_BALLS}\nforce body b x {{[a x] - [b x]}}"),
        ] {
            let (after, update) = updated(TWO_BALLS, &new);
            assert!(!update.compiled, "{new}");
            let b = after.body_index("b").unwrap();
            let reset = |name: &str| {
                let vars = after.bodies()[after.body_index(name).unwrap()]
                    .vars
                    .unwrap();
                update.changes.equations.contains(&vars.first)
            };
            assert_eq!(
                (reset("a"), reset("b")),
                (
                    !new.contains("[a x] - [b x]"),
                    new.contains("[a x] - [b x]")
                ),
                "{new}"
            );
            assert_eq!(update.bodies.contains(&b), reset("b"));
            same_as_compiled(&after, &new);
        }
    }

    #[test]
    fn forces_and_links_added_or_removed_leave_the_index_and_work_elements_as_compiled() {
        let three = format!(
            "{TWO_BALLS}\nforce body b x {{[a x] - [b x]}}\n\
             link body1 b offset1 {{0 0.5 0}} point {{5 3 0}} tightness 10"
        );
        let front = three.replacen(
            "force body a",
            "force body b y {1}\nlink body1 b offset1 {0 0.5 0} point {5 4 0} tightness 5\n\
             force body a",
            1,
        );
        let fewer = three.replace("force body a gravity {0 -9.81 0}\n", "");
        assert_ne!(fewer, three);
        for (old, new) in [
            (&three, &front),
            (&front, &three),
            (&three, &fewer),
            (&fewer, &three),
        ] {
            let (after, update) = updated(old, new);
            assert!(!update.compiled, "{new}");
            same_as_compiled(&after, new);
            let fresh = Readers::of(&scene(new));
            let named = |readers: &Readers, body: &str| {
                let mut list: Vec<_> = readers
                    .of_body(body)
                    .map(|(e, role)| (e, role == super::super::readers::Role::Acts))
                    .collect();
                list.sort_unstable();
                list
            };
            for body in ["a", "b"] {
                let readers = after.readers.as_ref().expect("kept after an update");
                assert_eq!(named(readers, body), named(&fresh, body), "{body}: {new}");
            }
        }
    }

    /// A spring too stiff for the span keeps its link's span, read again after an edit that
    /// moves the text before it, so the error names the link where it is; the others keep
    /// none.
    #[test]
    fn a_stiff_link_is_reported_where_it_is_after_an_edit_before_it() {
        let stiff =
            format!("{TWO_BALLS}\nlink body1 b offset1 {{0 0 0}} point {{5 1 0}} tightness 1e12");
        let before = stiff.replacen(
            "body b",
            "body c shape ball init_pos {9 0 0}\nforce body c gravity {0 -1 0}\nbody b",
            1,
        );
        for (old, new) in [(&stiff, &before), (&before, &stiff)] {
            let (after, _) = updated(old, new);
            same_as_compiled(&after, new);
            assert_eq!(after.springs.iter().filter(|s| s.span.is_some()).count(), 1);
            let span = |m: &Model| match m.simulation(m.options()) {
                Err(PhysicsError::Simulation(failure)) => failure.span,
                _ => panic!("too stiff"),
            };
            let fresh = model(new);
            assert_eq!(span(&after), span(&fresh), "{new}");
            assert!(span(&after).is_some());
        }
    }

    #[test]
    fn a_body_added_at_the_top_takes_a_new_block_and_moves_no_other_body() {
        let new = TWO_BALLS.replacen('\n', "\nbody c shape ball init_pos {9 0 0}\n", 1);
        let before = model(TWO_BALLS);
        let (after, update) = updated(TWO_BALLS, &new);
        same_as_compiled(&after, &new);
        for name in ["a", "b"] {
            let vars = |m: &Model| m.bodies()[m.body_index(name).unwrap()].vars;
            assert_eq!(vars(&after), vars(&before), "{name} kept its variables");
        }
        let c = after.bodies()[0].vars.unwrap();
        assert_eq!(update.changes.equations, c.all().collect::<Vec<_>>());
        assert_eq!(update.bodies, HashSet::from([0]));
        assert_eq!(after.system().name(c.first), "c.x");
    }

    #[test]
    fn a_deleted_body_frees_its_block_for_the_next_body_added() {
        let without_b = TWO_BALLS.replace("body b shape ball init_pos {5 0 0}", "");
        let before = model(TWO_BALLS);
        let b = before.bodies()[1].vars.unwrap();
        let (mut after, update) = updated(TWO_BALLS, &without_b);
        same_as_compiled(&after, &without_b);
        assert_eq!(update.changes.equations, b.all().collect::<Vec<_>>());
        assert!(after.system().name(b.first).starts_with("(unused"));
        assert_eq!(after.system().len(), before.system().len());
        let with_c = format!("{without_b}\nbody c shape ball init_pos {{7 0 0}}");
        let (old, new) = (scene(&without_b), scene(&with_c));
        after.update(&new, &diff(&old, &new)).unwrap();
        assert_eq!(after.bodies()[1].vars, Some(b), "c takes b's block");
        assert_eq!(after.system().name(b.first), "c.x");
        same_as_compiled(&after, &with_c);
    }

    #[test]
    fn bodies_added_or_deleted_before_others_leave_them_as_compiled() {
        let base = "shape_set ball desc {sphere 0.5}
        body a shape ball init_pos {0 0 0}
        body b shape ball init_pos {2 0 0}
        body c shape ball init_pos {4 0 0}
        body d shape ball init_pos {6 0 0} fixed 1
        trajectory up points { {0 0 0 0} {1 0 1 0} } body c var pos
        force body c gravity {0 -9.81 0}
        link body1 a body2 c tightness 5";
        // The added body with a shape set of its own before the others.
        let added = base
            .replace("body b", "body e shape small init_pos {8 0 0}\nbody b")
            .replace(
                "shape_set ball",
                "shape_set small desc {sphere 0.2}\nshape_set ball",
            );
        let deleted = base.replace("body b shape ball init_pos {2 0 0}", "");
        let both = added.replace("body b shape ball init_pos {2 0 0}", "");
        for (old, new) in [
            (base, &added),
            (&added, &base.to_string()),
            (base, &deleted),
            (&deleted, &both),
        ] {
            let (after, _) = updated(old, new);
            same_as_compiled(&after, new);
        }
        // Bodies that swap places (the diff says they are out of order): indexed anew.
        let swapped = base
            .replace("body b shape ball init_pos {2 0 0}", "")
            .replace("body d", "body b shape ball init_pos {2 0 0}\nbody d");
        let (after, _) = updated(&added, &swapped);
        same_as_compiled(&after, &swapped);
        // A body added that cannot be modelled (its inertia is not positive definite), with a
        // shape set added before the others: the update fails, the model is as it was (its
        // name and shape indices too) and updates again.
        let old = scene(base);
        let mut model = Model::compile(&old).unwrap();
        let bad = scene(&added.replace(
            "body e shape small",
            "body e shape ball inertia {{1 2 0} {2 1 0} {0 0 1}}",
        ));
        assert!(model.update(&bad, &diff(&old, &bad)).is_err());
        same_as_compiled(&model, base);
        let new = scene(&deleted);
        model.update(&new, &diff(&old, &new)).unwrap();
        same_as_compiled(&model, &deleted);
    }

    #[test]
    fn a_failed_update_leaves_the_model_as_it_was() {
        let old = scene(TWO_BALLS);
        let bad = scene(&two_balls_with(
            // Symmetric with a positive diagonal, so the scene reads it, but not positive
            // definite, so the body cannot be modelled.
            "body a shape ball init_pos {0 0 0} init_dpos {1 0 0} inertia {{1 2 0} {2 1 0} {0 0 1}}",
        ));
        let mut model = Model::compile(&old).unwrap();
        let reads = |m: &Model| -> Vec<Vec<VarId>> {
            m.system().variables().map(|v| v.reads().to_vec()).collect()
        };
        let before = (reads(&model), model.works.len(), model.springs.len());
        assert!(model.update(&bad, &diff(&old, &bad)).is_err());
        assert_eq!(
            (reads(&model), model.works.len(), model.springs.len()),
            before
        );
        // And it still updates.
        let new = scene(&two_balls_with("body a shape ball init_pos {1 0 0}"));
        model.update(&new, &diff(&old, &new)).unwrap();
    }

    #[test]
    fn an_updated_model_keeps_its_interactive_inputs() {
        let old = scene(TWO_BALLS);
        let new = scene(&two_balls_with(
            "body a shape ball init_pos {1 0 0} init_dpos {1 0 0}",
        ));
        let mut model = Model::compile_interactive(&old, &Pullable::All).unwrap();
        let before = model.inputs().clone();
        model.update(&new, &diff(&old, &new)).unwrap();
        assert!(model.inputs().shared_with(&before));
        assert!(!model.inputs().is_empty());
        let added = scene(&format!(
            "{TWO_BALLS}\nbody c shape ball init_pos {{9 0 0}}"
        ));
        model.update(&added, &diff(&new, &added)).unwrap();
        assert!(model.inputs().shared_with(&before), "room for a third body");
        assert!(model.inputs().can_pull(2));
    }
}
