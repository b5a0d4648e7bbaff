//! Building the equations of a scene: the bodies' state as expressions, the forces and torques
//! acting on each body, and the resolution of `$t` and `[NAME ATTR]` in the scene's
//! expressions.

use super::bodies::Bodies;
use super::body::{slot, BodyModel, BODY_VARIABLES};
use super::body_index::BodyIndex;
use super::error::PhysicsError;
use super::kinematics::{Kinematics, Steering};
use super::layout::{slot_holding, slot_of};
use super::links::Spring;
use super::symbols::{Channel, Meaning, SymbolTable, TIME};
use super::work::{self, ElementKind, Source, WorkElement};
use crate::lang::ast::{Part, WordKind};
use crate::lang::fxhash::FxHashMap;
use crate::lang::span::Span;
use crate::scene::model::{ConstrainedVar, ExprVec, Expression, Scene};
use crate::sim::VarId;
use crate::sym::{self, from_ast, Mat3, Node, Pool, Vec3};
use std::collections::HashMap;
use std::sync::Arc;

/// Attributes `[BODY ATTR]` may read.
const BODY_ATTRIBUTES: &str = "x y z dx dy dz rx ry rz drx dry drz mass";
/// Attributes `[TRAJECTORY ATTR]` may read.
const TRAJECTORY_ATTRIBUTES: &str = "x y z dx dy dz";

/// Everything expressions can refer to, as nodes.
///
/// Its per-body tables are maps holding only the bodies used, so that an update assembling a
/// few bodies of many costs what those few need.
pub(crate) struct World<'s> {
    pub bodies: Bodies,
    /// By body, its state as nodes, made when first used (an update assembling a few bodies
    /// makes only theirs and those they read).
    kinematics: FxHashMap<usize, Kinematics>,
    /// By body, the trajectories steering its angular velocity, until its kinematics take
    /// them.
    steering: FxHashMap<usize, Vec<Steering>>,
    pub symbols: SymbolTable,
    body_index: Arc<BodyIndex>,
    trajectory_index: HashMap<&'s str, usize>,
    /// By slot, the moving body holding it (for finding a variable's body; see
    /// [`slot_owners`]).
    slots: &'s [Option<usize>],
}

/// The forces and torques on one body, summed when the equations are written.
#[derive(Default)]
pub(crate) struct Load {
    pub forces: Vec<Vec3>,
    pub torques: Vec<Vec3>,
}

/// A scene's equations under construction.
pub(crate) struct Assembly<'s> {
    pub pool: Pool,
    pub world: World<'s>,
    /// By moving body, the loads added so far.
    pub loads: FxHashMap<usize, Load>,
    pub springs: Vec<Spring>,
    /// The elements that do work, for the energy ledger.
    pub works: Vec<WorkElement>,
}

/// What is left of an assembly once its equations are written.
pub(crate) struct Assembled {
    pub pool: Pool,
    pub bodies: Bodies,
    pub symbols: SymbolTable,
    pub springs: Vec<Spring>,
    pub works: Vec<WorkElement>,
    /// First integrals of groups of equations: the variables and the quantity their equations
    /// keep while everything else they read stays constant (see
    /// [`ComponentEquations::first_integral`](crate::sim::ComponentEquations::first_integral)).
    pub first_integrals: Vec<(Vec<VarId>, Node)>,
}

/// By slot, the moving body of `bodies` holding it.
pub(crate) fn slot_owners(bodies: &Bodies) -> Vec<Option<usize>> {
    let mut slots = Vec::new();
    for (i, body) in bodies.iter().enumerate() {
        if let Some(vars) = body.vars {
            let s = slot_of(vars);
            if slots.len() <= s {
                slots.resize(s + 1, None);
            }
            slots[s] = Some(i);
        }
    }
    slots
}

/// The scene's bodies and trajectories by name, each name checked to be used once.
pub(crate) type Names<'s> = (Arc<BodyIndex>, HashMap<&'s str, usize>);

/// Indexes the scene's bodies and trajectories by name; fails on a name defined twice.
pub(crate) fn names(scene: &Scene) -> Result<Names<'_>, PhysicsError> {
    Ok((body_names(scene)?, trajectory_names(scene)?))
}

/// Indexes the scene's bodies by name; fails on a name defined twice.
pub(crate) fn body_names(scene: &Scene) -> Result<Arc<BodyIndex>, PhysicsError> {
    match BodyIndex::of(scene.bodies.iter().map(|b| b.name.as_str())) {
        Ok(index) => Ok(Arc::new(index)),
        Err(name) => {
            let twice = scene.bodies.iter().filter(|b| b.name == name).nth(1);
            Err(PhysicsError::model(
                format!("body {name} is defined twice"),
                twice.map(|b| b.origin.command),
            ))
        }
    }
}

/// Indexes the scene's trajectories by name; fails on a name defined twice.
pub(crate) fn trajectory_names(scene: &Scene) -> Result<HashMap<&str, usize>, PhysicsError> {
    let mut trajectory_index = HashMap::new();
    for (i, t) in scene.trajectories.iter().enumerate() {
        if trajectory_index.insert(t.name.as_str(), i).is_some() {
            return Err(PhysicsError::model(
                format!("trajectory {} is defined twice", t.name),
                Some(t.origin.command),
            ));
        }
    }
    Ok(trajectory_index)
}

impl<'s> Assembly<'s> {
    /// Starts from `bodies` (variables already assigned) with no forces, writing into `pool`
    /// with the numbering `symbols` (an earlier model's, when an update adds to them).
    /// `slots` gives each slot's body ([`slot_owners`] of `bodies`).
    pub fn new(
        scene: &'s Scene,
        (bodies, slots): (Bodies, &'s [Option<usize>]),
        mut pool: Pool,
        mut symbols: SymbolTable,
        names: Names<'s>,
    ) -> Assembly<'s> {
        let (body_index, trajectory_index) = names;
        let steering = steering(scene, &body_index, &mut pool, &mut symbols);
        Assembly {
            pool,
            world: World {
                kinematics: FxHashMap::default(),
                steering,
                bodies,
                symbols,
                body_index,
                trajectory_index,
                slots,
            },
            loads: FxHashMap::default(),
            springs: Vec::new(),
            works: Vec::new(),
        }
    }

    /// The node of a scene expression.
    pub fn expression(&mut self, e: &Expression) -> Result<Node, PhysicsError> {
        let world = &mut self.world;
        from_ast(&mut self.pool, &e.tree, |pool, parts, span| {
            world.operand(pool, parts, span)
        })
        .map_err(|e: sym::Error| PhysicsError::model(e.message, Some(e.span)))
    }

    pub fn expression_vector(&mut self, v: &ExprVec) -> Result<Vec3, PhysicsError> {
        Ok(Vec3::new(
            self.expression(&v.x)?,
            self.expression(&v.y)?,
            self.expression(&v.z)?,
        ))
    }

    /// The time derivative of `node` along the motion, as far as it follows from the kinematics:
    /// `∂/∂t`, plus for every position or orientation variable it reads the partial derivative
    /// times that variable's rate (`x' = dx`, `q' = ½ ω ⊗ q`), plus for every trajectory value
    /// or derivative it reads the partial times the next derivative. Velocities and momenta
    /// read by `node` count as constant (their rates are the forces being built).
    pub fn time_derivative(&mut self, node: Node) -> Node {
        let symbols = self.pool.symbols(node).to_vec();
        let mut terms = Vec::new();
        for s in symbols {
            let rate = match self.world.symbols.meaning(s) {
                Meaning::Time => Pool::ONE,
                Meaning::State(var) => match self.world.kinematic_rate(&mut self.pool, var) {
                    Some(rate) => rate,
                    None => continue,
                },
                // Constant between the steps where they are set.
                Meaning::Input(_) => continue,
                Meaning::Channel(k) => match self.world.symbols.channels()[k].derivative() {
                    Some(rate) => {
                        let symbol = self.world.symbols.channel(rate);
                        self.pool.symbol(symbol)
                    }
                    None => continue,
                },
            };
            let partial = self.pool.diff(node, s);
            terms.push(self.pool.mul(partial, rate));
        }
        self.pool.sum(&terms)
    }

    /// Adds `force` and `torque` (about the centre of mass) on moving body `body` to its load,
    /// and to the work element `kind` of `source` (a new element unless `same` continues the
    /// last one, as a link's reaction on its second body does). The element holds no span:
    /// [`Model::work`](super::Model::work) reads its command's from the scene, so an edit
    /// that moves the text leaves the kept elements as they are.
    pub fn load(
        &mut self,
        body: usize,
        force: Vec3,
        torque: Option<Vec3>,
        element: (ElementKind, Source, bool),
    ) {
        let (kind, source, same) = element;
        let load = self.loads.entry(body).or_default();
        load.forces.push(force);
        load.torques.extend(torque);
        let vars = self.world.bodies[body]
            .vars
            .expect("a load is on a moving body");
        let part = work::Load {
            slot: slot_of(vars),
            force,
            torque: torque.unwrap_or(Vec3::zero()),
        };
        match self.works.last_mut() {
            Some(last) if same => last.parts.push(part),
            _ => self.works.push(WorkElement {
                kind,
                source,
                parts: vec![part],
            }),
        }
    }

    /// Adds `force` and `torque` on moving body `body` to its load without a work element:
    /// for loads whose values change over the motion, whose work their setter records.
    pub fn load_without_work(&mut self, body: usize, force: Vec3, torque: Vec3) {
        let load = self.loads.entry(body).or_default();
        load.forces.push(force);
        load.torques.push(torque);
    }

    pub fn body_index(&self, name: &str) -> Option<usize> {
        self.world.body_index.get(name)
    }

    pub fn trajectory_index(&self, name: &str) -> Option<usize> {
        self.world.trajectory_index.get(name).copied()
    }

    /// The value ([`Channel::VALUE`]) or a derivative of trajectory `trajectory`, as a vector
    /// of time-dependent inputs.
    pub fn trajectory_vector(&mut self, trajectory: usize, first: u8) -> Vec3 {
        trajectory_vector(&mut self.pool, &mut self.world.symbols, trajectory, first)
    }

    /// The pool, the bodies and the symbol numbering, once the equations are written.
    pub fn finish(self) -> Assembled {
        // A freely turning body's kinetic energy, for the equations of its orientation.
        let mut first_integrals: Vec<(Vec<VarId>, Node)> = self
            .world
            .kinematics
            .iter()
            .filter_map(|(&b, k)| {
                let mut vars = self.world.bodies[b].vars?.rotation().to_vec();
                vars.sort_unstable();
                Some((vars, k.spin_energy?))
            })
            .collect();
        // In variable order, whatever order the map holds the bodies in.
        first_integrals.sort_unstable_by_key(|(vars, _)| vars[0]);
        Assembled {
            pool: self.pool,
            bodies: self.world.bodies,
            symbols: self.world.symbols,
            springs: self.springs,
            works: self.works,
            first_integrals,
        }
    }

    /// The right-hand sides of the variables of the moving bodies among `bodies`:
    /// `x' = dx`, `q' = ½ ω ⊗ q`, `v' = F / m`, `L' = τ`.
    pub fn equations(&mut self, bodies: impl Iterator<Item = usize>) -> Vec<(VarId, Node)> {
        let mut rhs = Vec::new();
        for i in bodies {
            let Some(vars) = self.world.bodies[i].vars else {
                continue;
            };
            self.world.kinematics(&mut self.pool, i);
            let body = &self.world.bodies[i];
            let k = &self.world.kinematics[&i];
            let no_load = Load::default();
            let load = self.loads.get(&i).unwrap_or(&no_load);
            let force = sum_vectors(&mut self.pool, &load.forces);
            let torque = sum_vectors(&mut self.pool, &load.torques);
            let acceleration = force.scale_by(&mut self.pool, 1.0 / body.mass);
            let momentum_rate = steered_momentum_rate(&mut self.pool, body, k, torque);
            let rotation_rate = k
                .rotation_rate
                .expect("a moving body has a rotation rate")
                .to_array();
            let blocks: [(usize, &[Node]); 4] = [
                (slot::POSITION, &k.velocity.to_array()),
                (slot::ROTATION, &rotation_rate),
                (slot::VELOCITY, &acceleration.to_array()),
                (slot::MOMENTUM, &momentum_rate.to_array()),
            ];
            for (offset, nodes) in blocks {
                for (j, &node) in nodes.iter().enumerate() {
                    rhs.push((vars.at(offset + j), node));
                }
            }
        }
        rhs
    }
}

/// How quickly steering pulls a body's momentum onto the prescribed angular velocity: this
/// many time constants fit into the trajectory's shortest piece, so by a piece's end the
/// mismatch from its start has decayed by `e^-50`.
const STEERING_SETTLE: f64 = 50.0;

/// By body, the trajectories attached to its angular velocity, as nodes.
fn steering(
    scene: &Scene,
    body_index: &BodyIndex,
    pool: &mut Pool,
    symbols: &mut SymbolTable,
) -> FxHashMap<usize, Vec<Steering>> {
    let mut steering: FxHashMap<usize, Vec<Steering>> = FxHashMap::default();
    for (ti, trajectory) in scene.trajectories.iter().enumerate() {
        let shortest = trajectory
            .pieces
            .iter()
            .map(|p| p.end() - p.start())
            .filter(|&d| d > 0.0)
            .fold(f64::INFINITY, f64::min);
        for attachment in &trajectory.attachments {
            // Unknown bodies are reported with the other constraints.
            let Some(b) = body_index.get(attachment.body.as_str()) else {
                continue;
            };
            if attachment.variable != ConstrainedVar::AngularVelocity || !shortest.is_finite() {
                continue;
            }
            let active = symbols.channel(Channel {
                trajectory: ti,
                component: Channel::ACTIVE,
            });
            steering.entry(b).or_default().push(Steering {
                active: pool.symbol(active),
                omega: trajectory_vector(pool, symbols, ti, Channel::VALUE),
                omega_rate: trajectory_vector(pool, symbols, ti, Channel::RATE),
                settle_rate: STEERING_SETTLE / shortest,
            });
        }
    }
    steering
}

/// `L'`: the torque, except while a steering trajectory gives the angular velocity `ω`. Then
/// `L` must follow `R I Rᵀ ω`, whose rate is `R I Rᵀ ω' + ω × (R I Rᵀ ω)`; a mismatch when
/// the steering starts decays at the settle rate.
fn steered_momentum_rate(pool: &mut Pool, body: &BodyModel, k: &Kinematics, torque: Vec3) -> Vec3 {
    let Some(momentum) = k.momentum else {
        return torque;
    };
    if k.steering.is_empty() {
        return torque;
    }
    let i = body.inertia;
    let inertia = Mat3::constant(pool, [0, 1, 2].map(|r| [0, 1, 2].map(|c| i[(r, c)])));
    let world = k.matrix.mul(pool, inertia).mul(pool, k.matrix.transpose());
    k.steering.iter().rev().fold(torque, |otherwise, s| {
        let target = world.mul_vec(pool, s.omega);
        let follow = world.mul_vec(pool, s.omega_rate);
        let gyroscopic = s.omega.cross(pool, target);
        let mismatch = target.sub(pool, momentum).scale_by(pool, s.settle_rate);
        let steer = follow.add(pool, gyroscopic).add(pool, mismatch);
        let [x, y, z] =
            [0, 1, 2].map(|c| pool.select(s.active, steer.to_array()[c], otherwise.to_array()[c]));
        Vec3::new(x, y, z)
    })
}

/// The channels `first..first + 3` of trajectory `trajectory` as a vector of nodes.
fn trajectory_vector(
    pool: &mut Pool,
    symbols: &mut SymbolTable,
    trajectory: usize,
    first: u8,
) -> Vec3 {
    let [x, y, z] = [0, 1, 2].map(|k| {
        let symbol = symbols.channel(Channel {
            trajectory,
            component: first + k,
        });
        pool.symbol(symbol)
    });
    Vec3::new(x, y, z)
}

/// Component-wise sum of vectors.
fn sum_vectors(pool: &mut Pool, vectors: &[Vec3]) -> Vec3 {
    let [x, y, z] = [0, 1, 2].map(|k| {
        let parts: Vec<Node> = vectors.iter().map(|v| v.to_array()[k]).collect();
        pool.sum(&parts)
    });
    Vec3::new(x, y, z)
}

impl World<'_> {
    /// Body `body`'s state as nodes, made on first use.
    pub fn kinematics(&mut self, pool: &mut Pool, body: usize) -> &mut Kinematics {
        let b = &self.bodies[body];
        let steering = &mut self.steering;
        self.kinematics.entry(body).or_insert_with(|| match b.vars {
            Some(vars) => {
                let steering = steering.remove(&body).unwrap_or_default();
                Kinematics::moving(pool, b, vars, steering)
            }
            None => Kinematics::fixed(pool, b),
        })
    }

    /// The body owning variable `var` and the variable's offset in its block.
    fn owner(&self, var: VarId) -> Option<(usize, usize)> {
        let body = (*self.slots.get(slot_holding(var))?)?;
        Some((body, var.index() % BODY_VARIABLES))
    }

    /// The rate of a position or orientation variable, if it is one.
    fn kinematic_rate(&mut self, pool: &mut Pool, var: VarId) -> Option<Node> {
        let (body, offset) = self.owner(var)?;
        let k = self.kinematics(pool, body);
        match offset {
            o if o < slot::ROTATION => Some(k.velocity.to_array()[o - slot::POSITION]),
            o if o < slot::VELOCITY => Some(k.rotation_rate?.to_array()[o - slot::ROTATION]),
            _ => None,
        }
    }

    /// Resolves an operand of a scene expression: `$t`, or `[NAME ATTR]`.
    fn operand(&mut self, pool: &mut Pool, parts: &[Part], span: Span) -> Result<Node, sym::Error> {
        match parts {
            [Part::Variable {
                name, index: None, ..
            }] if name == "t" => Ok(pool.symbol(TIME)),
            [Part::Command { script, .. }] => {
                let words = match script.commands.as_slice() {
                    [command] => command
                        .words
                        .iter()
                        .map(literal_word)
                        .collect::<Option<Vec<(&str, Span)>>>(),
                    _ => None,
                };
                match words.as_deref() {
                    Some(&[(name, name_span), (attr, attr_span)]) => {
                        self.reference(pool, name, name_span, attr, attr_span)
                    }
                    _ => Err(sym::Error::new(
                        "expected a reference [NAME ATTR] to a body or trajectory",
                        span,
                    )),
                }
            }
            _ => Err(sym::Error::new(
                "only numbers, $t and [NAME ATTR] references may appear in an expression of time and state",
                span,
            )),
        }
    }

    /// `[name attr]`.
    fn reference(
        &mut self,
        pool: &mut Pool,
        name: &str,
        name_span: Span,
        attr: &str,
        attr_span: Span,
    ) -> Result<Node, sym::Error> {
        if let Some(body) = self.body_index.get(name) {
            return self.body_attribute(pool, body, attr).ok_or_else(|| {
                sym::Error::new(
                    format!(
                        "body {name} has no attribute `{attr}`; expected one of {BODY_ATTRIBUTES}"
                    ),
                    attr_span,
                )
            });
        }
        if let Some(&trajectory) = self.trajectory_index.get(name) {
            let component = ["x", "y", "z", "dx", "dy", "dz"]
                .iter()
                .position(|&a| a == attr)
                .ok_or_else(|| {
                    sym::Error::new(
                        format!("trajectory {name} has no attribute `{attr}`; expected one of {TRAJECTORY_ATTRIBUTES}"),
                        attr_span,
                    )
                })?;
            let symbol = self.symbols.channel(Channel {
                trajectory,
                component: component as u8,
            });
            return Ok(pool.symbol(symbol));
        }
        Err(sym::Error::new(
            format!("`{name}` is neither a body nor a trajectory"),
            name_span,
        ))
    }

    fn body_attribute(&mut self, pool: &mut Pool, body: usize, attr: &str) -> Option<Node> {
        let mass = self.bodies[body].mass;
        let k = self.kinematics(pool, body);
        let axis = |name: &str, names: [&str; 3]| names.iter().position(|&n| n == name);
        if let Some(i) = axis(attr, ["x", "y", "z"]) {
            return Some(k.position.to_array()[i]);
        }
        if let Some(i) = axis(attr, ["dx", "dy", "dz"]) {
            return Some(k.velocity.to_array()[i]);
        }
        if let Some(i) = axis(attr, ["rx", "ry", "rz"]) {
            return Some(k.rotation_vector(pool).to_array()[i]);
        }
        if let Some(i) = axis(attr, ["drx", "dry", "drz"]) {
            return Some(k.omega.to_array()[i]);
        }
        (attr == "mass").then(|| pool.constant(mass))
    }
}

/// A word without substitutions, with its span.
fn literal_word(word: &crate::lang::ast::Word) -> Option<(&str, Span)> {
    match &word.kind {
        WordKind::Braced { text, .. } => Some((text.as_str(), word.span)),
        WordKind::Bare(parts) | WordKind::Quoted(parts) => match parts.as_slice() {
            [Part::Text { text, .. }] => Some((text.as_str(), word.span)),
            _ => None,
        },
    }
}
