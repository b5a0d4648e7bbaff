//! Bringing a [`Model`] up to date after an edit at a cost that follows the edit (5.2.5).
//!
//! [`scene::diff`](crate::scene::diff) names the bodies whose equations or initial values
//! changed. Those, the bodies whose forces and links name them (their equations read the
//! changed body's mass, shape or place as constants, or no longer compile when it is gone),
//! and the added bodies are *assembled again*: their forces, torques, links and contacts are
//! built into the model's pool, next to the equations of every other body, which stay as they
//! were (the pool is hash-consed, so what the new equations share with the old is not built
//! twice). Every other body keeps its variables (see [`layout`](super::layout)), its equations
//! and its constraints; a body whose initial values alone changed gets them anew.
//!
//! All that can fail (an expression that no longer compiles, a trajectory that clashes) is
//! done before the model changes, so a failed update leaves it as it was (with a few unused
//! nodes in its pool). The model is compiled whole instead when the trajectories are added,
//! removed or reordered (the channels the equations read are numbered by their place), when
//! the simulator settings change, when its inputs have no room for the new slots, and when the
//! pool has grown to twice what compiling anew would make.

use super::assemble::{body_names, trajectory_names, Assembled, Assembly};
use super::body::{BodyModel, InitialState, BODY_VARIABLES};
use super::error::PhysicsError;
use super::layout::{block, slot_of, variable_name};
use super::model::{assemble, body_model, check_simulator, Model, Reading};
use super::trajectory::{constrain, Curves};
use super::work::Source;
use crate::lang::fxhash::FxHashSet;
use crate::scene::model::{ForceValue, LinkTarget, Scene};
use crate::scene::{ChangeKind, ElementKind, SceneDiff};
use crate::sim::Changes;
use crate::sym::Pool;
use std::collections::{HashMap, HashSet};

/// Nodes the pool may hold beyond twice its size when compiled whole before an update
/// compiles the model whole again, dropping the equations edits left unused.
const POOL_SLACK: usize = 100_000;

/// The names of the bodies an edit reached (hashed cheaply: an update tests every force
/// and link of the scene against them).
type Affected = FxHashSet<String>;

/// What [`Model::update`] changed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelUpdate {
    /// The variables whose equations (or what they read, their prescriptions or breakpoints)
    /// changed, and those whose initial values alone did: for
    /// [`Simulation::update`](crate::sim::Simulation::update).
    pub changes: Changes,
    /// The bodies (scene indices after the edit) whose equations or initial values changed.
    pub bodies: HashSet<usize>,
    /// Whether the model was compiled whole.
    pub compiled: bool,
}

impl Model {
    /// Moves this model, compiled from a scene, to `scene`, an edit that `changes` describes
    /// of it: only the bodies the edit reached are assembled again (see the module
    /// documentation). Returns what changed, by variable and by body. On an error in `scene`
    /// the model is unchanged.
    pub fn update(
        &mut self,
        scene: &Scene,
        changes: &SceneDiff,
    ) -> Result<ModelUpdate, PhysicsError> {
        check_simulator(scene)?;
        let affected = self.affected(scene, changes);
        let same_trajectories = self
            .trajectories
            .iter()
            .map(String::as_str)
            .eq(scene.trajectories.iter().map(|t| t.name.as_str()));
        let grown = self.factory.pool.len() > 2 * self.compiled_nodes + POOL_SLACK;
        if scene.simulator != self.simulator || !same_trajectories || grown {
            return self.compile_anew(scene, &affected, changes);
        }
        self.update_bodies(scene, &affected, changes)
    }

    /// The bodies whose equations must be assembled again: those `changes` names (and the
    /// fixed bodies that moved, and the bodies deleted), and those whose forces or links name
    /// any of them.
    fn affected(&self, scene: &Scene, changes: &SceneDiff) -> Affected {
        let mut changed: Affected = changes.equations_changed.iter().cloned().collect();
        for name in &changes.initial_changed {
            let body = self.index.get(name).and_then(|&i| scene.bodies.get(i));
            let body = body
                .filter(|b| &b.name == name)
                .or_else(|| scene.body(name));
            if body.is_some_and(|b| b.fixed) {
                changed.insert(name.clone());
            }
        }
        for c in &changes.changes {
            if let (ElementKind::Body, ChangeKind::Removed, Some(old)) = (c.kind, c.change, c.old) {
                changed.insert(self.bodies[old].name.clone());
            }
        }
        if changed.is_empty() {
            return changed;
        }
        let named = |name: &str| changed.contains(name);
        let mut affected = changed.clone();
        for force in &scene.forces {
            let reads = match &force.value {
                ForceValue::Components(v) => v.components().iter().any(|c| c.refers_to(&named)),
                _ => false,
            };
            if reads {
                affected.insert(force.body.clone());
            }
        }
        for link in &scene.links {
            let (reads, second) = match &link.target {
                LinkTarget::Body { body2, .. } => (named(body2), Some(body2)),
                LinkTarget::Point(v) => (v.components().iter().any(|c| c.refers_to(&named)), None),
                LinkTarget::Trajectory(_) => (false, None),
            };
            if reads || named(&link.body1) {
                affected.insert(link.body1.clone());
                affected.extend(second.cloned());
            }
        }
        affected
    }

    /// [`Model::update`] by compiling `scene` whole, keeping each body's variables.
    fn compile_anew(
        &mut self,
        scene: &Scene,
        affected: &Affected,
        changes: &SceneDiff,
    ) -> Result<ModelUpdate, PhysicsError> {
        let model = Model::build(
            scene,
            self.pullable.as_ref(),
            Some((&self.layout, &self.factory.inputs)),
        )?;
        let shared = model.inputs().shared_with(self.inputs());
        let old_owners: Vec<Option<String>> = self
            .layout
            .owners()
            .into_iter()
            .map(|o| o.map(str::to_string))
            .collect();
        let mut update = ModelUpdate {
            compiled: true,
            ..ModelUpdate::default()
        };
        for (s, owner) in model.layout.owners().into_iter().enumerate() {
            let kept = old_owners.get(s).is_some_and(|o| o.as_deref() == owner);
            let equations = !shared || !kept || owner.is_some_and(|n| affected.contains(n));
            let initial = owner.is_some_and(|n| changes.initial_changed.contains(n));
            let list = if equations {
                &mut update.changes.equations
            } else if initial {
                &mut update.changes.initial_values
            } else {
                continue;
            };
            list.extend(block(s).all());
        }
        for (b, body) in model.bodies.iter().enumerate() {
            let name = &body.name;
            if !shared || affected.contains(name) || changes.initial_changed.contains(name) {
                update.bodies.insert(b);
            }
        }
        *self = model;
        Ok(update)
    }

    /// [`Model::update`] by assembling the `affected` bodies again into this model. Bodies
    /// that stay where they were in the scene keep their places, tables and elements without
    /// being looked up by name; only an edit that adds or deletes a body maps them anew.
    fn update_bodies(
        &mut self,
        scene: &Scene,
        affected: &Affected,
        changes: &SceneDiff,
    ) -> Result<ModelUpdate, PhysicsError> {
        let same_bodies = scene.bodies.len() == self.bodies.len()
            && scene
                .bodies
                .iter()
                .zip(self.bodies.iter())
                .all(|(new, old)| new.name == old.name);
        let index = if same_bodies {
            // The model's names, checked for duplicates when they were compiled.
            self.index.clone()
        } else {
            body_names(scene)?
        };
        // Each body of the model before the edit: its place after it, and whether it is
        // assembled again.
        let body_map: Vec<Option<usize>> = if same_bodies {
            (0..self.bodies.len()).map(Some).collect()
        } else {
            self.bodies
                .iter()
                .map(|b| index.get(&b.name).copied())
                .collect()
        };
        let mut old_touched = vec![false; self.bodies.len()];
        for name in affected {
            if let Some(&o) = self.index.get(name) {
                old_touched[o] = true;
            }
        }
        let selected: Vec<usize> = {
            let mut list: Vec<usize> = affected
                .iter()
                .filter_map(|n| index.get(n).copied())
                .collect();
            list.sort_unstable();
            list
        };
        let mut is_selected = vec![false; scene.bodies.len()];
        for &b in &selected {
            is_selected[b] = true;
        }

        // The bodies after the edit: the selected ones anew, the others as they were.
        let mut bodies: Vec<BodyModel> = if same_bodies {
            self.bodies.to_vec()
        } else {
            let mut bodies = Vec::with_capacity(scene.bodies.len());
            for (i, body) in scene.bodies.iter().enumerate() {
                bodies.push(match self.index.get(&body.name) {
                    Some(&o) if !is_selected[i] => self.bodies[o].clone(),
                    _ => body_model(scene, body)?,
                });
            }
            bodies
        };
        for &i in &selected {
            bodies[i] = body_model(scene, &scene.bodies[i])?;
        }
        for name in &changes.initial_changed {
            if let Some(&i) = index.get(name) {
                if !is_selected[i] {
                    bodies[i].initial = InitialState::of(&scene.bodies[i])?;
                }
            }
        }
        let mut stopped: Vec<(usize, &str)> = affected
            .iter()
            .filter_map(|n| Some((*self.index.get(n)?, n.as_str())))
            .filter(|&(o, _)| self.bodies[o].vars.is_some())
            .filter(|(_, n)| index.get(*n).is_none_or(|&i| scene.bodies[i].fixed))
            .collect();
        stopped.sort_unstable();
        let moving = selected
            .iter()
            .filter(|&&i| !scene.bodies[i].fixed)
            .map(|&i| scene.bodies[i].name.as_str());
        let plan = self.layout.plan(moving, stopped.iter().map(|&(_, n)| n));
        let taken: HashMap<&str, usize> = plan
            .taken
            .iter()
            .map(|(name, slot)| (name.as_str(), *slot))
            .collect();
        for &i in &selected {
            let body = &mut bodies[i];
            if !scene.bodies[i].fixed {
                let slot = self
                    .layout
                    .slot(&body.name)
                    .or(taken.get(body.name.as_str()).copied());
                body.vars = slot.map(block);
            }
        }
        let inputs = if same_bodies && plan.taken.is_empty() && plan.freed.is_empty() {
            Some(self.factory.inputs.clone())
        } else {
            let slots: Vec<Option<usize>> = bodies.iter().map(|b| b.vars.map(slot_of)).collect();
            self.factory
                .inputs
                .rearranged(&slots, self.pullable.as_ref())
        };
        let Some(inputs) = inputs else {
            return self.compile_anew(scene, affected, changes);
        };

        // Everything that can fail, before anything changes.
        let names = (index.clone(), trajectory_names(scene)?);
        let (forces, links) = elements_to_assemble(scene, changes, affected, &index);
        let pool = std::mem::take(&mut self.factory.pool);
        let symbols = std::mem::take(&mut self.factory.symbols);
        let mut assembly = Assembly::new(scene, bodies, pool, symbols, names);
        let built = assemble(&mut assembly, scene, &inputs, &selected, (&forces, &links));
        let Assembled {
            pool,
            bodies,
            symbols,
            springs,
            works,
            first_integrals,
        } = assembly.finish();
        self.factory.pool = pool;
        self.factory.symbols = symbols;
        let equations = built?;
        let curves = Curves::new(&scene.trajectories);
        let only = |b: usize| is_selected[b];
        let found = constrain(scene, &bodies, &curves, &index, only)?;

        // From here on nothing fails.
        self.bodies = bodies.into();
        let forces = element_map(
            changes,
            ElementKind::Force,
            self.elements.0,
            scene.forces.len(),
        );
        let links = element_map(
            changes,
            ElementKind::Link,
            self.elements.1,
            scene.links.len(),
        );
        let made = self.system.len() / BODY_VARIABLES;
        self.layout.apply(&plan);
        let mut update = ModelUpdate::default();
        let system = &mut self.system;
        let rhs = &mut self.factory.rhs;
        let mut new_slots: Vec<(usize, &str)> = plan
            .taken
            .iter()
            .filter(|&&(_, s)| s >= made)
            .map(|(name, s)| (*s, name.as_str()))
            .collect();
        new_slots.sort_unstable();
        for (s, owner) in new_slots {
            debug_assert_eq!(
                system.len(),
                s * BODY_VARIABLES,
                "new slots are made in turn"
            );
            for k in 0..BODY_VARIABLES {
                system.add_variable(variable_name(Some(owner), s, k), 0.0);
            }
        }
        rhs.resize(system.len(), Pool::ZERO);
        self.state_only.resize(system.len(), true);
        for (s, owner) in plan
            .freed
            .iter()
            .map(|(_, s)| (*s, None))
            .chain(plan.taken.iter().map(|(name, s)| (*s, Some(name.as_str()))))
        {
            for (k, var) in block(s).all().enumerate() {
                system.rename(var, variable_name(owner, s, k));
                system.clear_equation(var);
                system.set_initial(var, 0.0);
                rhs[var.index()] = Pool::ZERO;
                self.state_only[var.index()] = true;
                update.changes.equations.push(var);
            }
        }
        for &b in &selected {
            let Some(vars) = self.bodies[b].vars else {
                continue;
            };
            for (k, value) in self.bodies[b].initial_values().into_iter().enumerate() {
                system.clear_equation(vars.at(k));
                system.set_initial(vars.at(k), value);
            }
            update.changes.equations.extend(vars.all());
        }
        let mut reading = Reading::new(
            &self.factory.pool,
            &self.factory.symbols,
            &curves,
            &self.simulator,
        );
        for (var, node) in equations {
            rhs[var.index()] = node;
            self.state_only[var.index()] = reading.declare(system, var, node);
        }
        for (var, prescription) in found.prescriptions {
            system.prescribe(var, prescription);
        }
        for name in &changes.initial_changed {
            let Some(&b) = index.get(name) else { continue };
            update.bodies.insert(b);
            if is_selected[b] {
                continue;
            }
            if let Some(vars) = self.bodies[b].vars {
                for (k, value) in self.bodies[b].initial_values().into_iter().enumerate() {
                    system.set_initial(vars.at(k), value);
                }
                update.changes.initial_values.extend(vars.all());
            }
        }
        update.changes.equations.sort_unstable();
        update.changes.equations.dedup();
        // First integrals: those of equations assembled again (or cleared) are new.
        let changed = &update.changes.equations;
        let integrals = &mut self.factory.first_integrals;
        integrals.retain(|(vars, _)| vars.iter().all(|v| changed.binary_search(v).is_err()));
        for (vars, node) in first_integrals {
            if vars.iter().all(|v| changed.binary_search(v).is_ok()) {
                integrals.push((vars, node));
            }
        }
        update.bodies.extend(selected.iter().copied());

        let old_constraints = std::mem::take(&mut self.constraints);
        self.constraints = if same_bodies {
            old_constraints
        } else {
            let mut constraints = vec![Vec::new(); scene.bodies.len()];
            for (o, list) in old_constraints.into_iter().enumerate() {
                if let Some(b) = body_map[o] {
                    constraints[b] = list;
                }
            }
            constraints
        };
        for &b in &selected {
            self.constraints[b].clear();
        }
        for (b, list) in found.constraints {
            self.constraints[b] = list;
        }

        // Springs and work elements: those of the bodies assembled again are new; the others
        // follow their elements and bodies to their new places.
        self.springs.retain(|s| {
            let (a, b) = s.bodies;
            !old_touched[a] && b.is_none_or(|b| !old_touched[b])
        });
        for spring in &mut self.springs {
            spring.link = links[spring.link].expect("a kept link is in the new scene");
            spring.span = scene.links[spring.link].origin.command;
            let (a, b) = spring.bodies;
            spring.bodies = (
                body_map[a].expect("a kept spring's body is in the new scene"),
                b.and_then(|b| body_map[b]),
            );
        }
        self.springs.extend(springs);
        self.springs.sort_by_key(|s| s.link);
        self.works
            .retain(|w| w.parts.iter().all(|p| !old_touched[p.body]));
        for work in &mut self.works {
            for part in &mut work.parts {
                part.body = body_map[part.body].expect("a kept element's body is in the scene");
            }
            match &mut work.source {
                Source::Force(i) => {
                    *i = forces[*i].expect("a kept force is in the new scene");
                    work.span = Some(scene.forces[*i].origin.command);
                }
                Source::Link(i) => {
                    *i = links[*i].expect("a kept link is in the new scene");
                    work.span = Some(scene.links[*i].origin.command);
                }
                Source::Body(b) => {
                    *b = body_map[*b].expect("a kept body is in the new scene");
                }
            }
        }
        self.works.extend(works);
        self.works.sort_by_key(|w| w.source);

        self.index = index;
        self.factory.curves = curves;
        self.factory.inputs = inputs;
        self.elements = (scene.forces.len(), scene.links.len());
        Ok(update)
    }
}

/// The forces and links (indices in `scene`) to assemble again: those acting on a body the
/// edit reached, and those it added or changed that name no body of `index` (for
/// [`assemble`] to report).
fn elements_to_assemble(
    scene: &Scene,
    changes: &SceneDiff,
    affected: &Affected,
    index: &HashMap<String, usize>,
) -> (Vec<usize>, Vec<usize>) {
    let mut forces = Vec::new();
    let mut links = Vec::new();
    if !affected.is_empty() {
        let reached = |name: &str| affected.contains(name);
        forces.extend((0..scene.forces.len()).filter(|&i| reached(&scene.forces[i].body)));
        links.extend((0..scene.links.len()).filter(|&i| {
            let link = &scene.links[i];
            reached(&link.body1) || second(&link.target).is_some_and(reached)
        }));
    }
    let unknown = |name: &str| !index.contains_key(name);
    for c in &changes.changes {
        let (ChangeKind::Added | ChangeKind::Changed(_), Some(j)) = (c.change, c.new) else {
            continue;
        };
        match c.kind {
            ElementKind::Force if unknown(&scene.forces[j].body) => forces.push(j),
            ElementKind::Link => {
                let link = &scene.links[j];
                if unknown(&link.body1) || second(&link.target).is_some_and(unknown) {
                    links.push(j);
                }
            }
            _ => {}
        }
    }
    for list in [&mut forces, &mut links] {
        list.sort_unstable();
        list.dedup();
    }
    (forces, links)
}

/// For each element of `kind` (forces or links) of the scene before an edit, its place after
/// it (`None` if removed). Elements keep their order: those neither removed nor added pair up
/// in turn, changed ones included.
fn element_map(
    changes: &SceneDiff,
    kind: ElementKind,
    old_len: usize,
    new_len: usize,
) -> Vec<Option<usize>> {
    let mut removed = vec![false; old_len];
    let mut added = vec![false; new_len];
    for c in changes.changes.iter().filter(|c| c.kind == kind) {
        match (c.change, c.old, c.new) {
            (ChangeKind::Removed, Some(i), _) => removed[i] = true,
            (ChangeKind::Added, _, Some(j)) => added[j] = true,
            _ => {}
        }
    }
    let mut next = (0..new_len).filter(|&j| !added[j]);
    removed
        .iter()
        .map(|&gone| if gone { None } else { next.next() })
        .collect()
}

/// The second body a link names, if it joins two.
fn second(target: &LinkTarget) -> Option<&str> {
    match target {
        LinkTarget::Body { body2, .. } => Some(body2.as_str()),
        _ => None,
    }
}
