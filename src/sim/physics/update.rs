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

use super::assemble::{body_names, slot_owners, trajectory_names, Assembled, Assembly};
use super::bodies::Bodies;
use super::body::{BodyModel, InitialState, BODY_VARIABLES};
use super::body_index::BodyIndex;
use super::error::PhysicsError;
use super::layout::{block, slot_of, variable_name};
use super::model::{
    assemble, body_model, check_simulator, set_free_spin, shape_index, shortest_time_constant,
    Model, Reading, ShapeIndex,
};
use super::readers::{moves, Element, Readers, Role};
use super::trajectory::{constrain, Curves};
use super::work::{Source, WorkElement};
use crate::lang::fxhash::{FxHashMap, FxHashSet};
use crate::scene::model::{Body, LinkTarget, Scene};
use crate::scene::{ChangeKind, ElementChange, ElementKind, SceneDiff};
use crate::sim::Changes;
use crate::sym::Pool;
use std::collections::{HashMap, HashSet};
use std::hash::BuildHasher;
use std::sync::Arc;

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
    /// How the bodies before the edit pair up with those after it.
    pub moved: BodyMoves,
}

/// How [`Model::update`] paired the bodies before an edit with those after it, for the
/// collider to take the unchanged bodies over without looking each up by name.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum BodyMoves {
    /// Not paired (the model was compiled whole): pair them by name.
    #[default]
    ByName,
    /// Every body kept its place.
    Kept,
    /// Each body before the edit: its place after it (`None` if deleted).
    Moved(Vec<Option<usize>>),
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
        let forces = places(
            changes,
            ElementKind::Force,
            self.elements.0,
            scene.forces.len(),
        );
        let links = places(
            changes,
            ElementKind::Link,
            self.elements.1,
            scene.links.len(),
        );
        // Left out of the model until the update succeeds: an update that fails leaves the
        // index to be made again from the scene of the next one.
        let readers = match self.readers.take() {
            Some(mut readers) => {
                readers.follow(scene, changes, forces.as_deref(), links.as_deref());
                readers
            }
            None => Readers::of(scene),
        };
        let affected = self.affected(scene, changes, &readers);
        let same_trajectories = self
            .trajectories
            .iter()
            .map(String::as_str)
            .eq(scene.trajectories.iter().map(|t| t.name.as_str()));
        let grown = self.factory.pool.len() > 2 * self.compiled_nodes + POOL_SLACK;
        if scene.simulator != self.simulator || !same_trajectories || grown {
            return self.compile_anew(scene, &affected, changes);
        }
        let result = self.update_bodies(scene, &affected, changes, (readers, &forces, &links));
        if result.is_err() && !changes.bodies_in_place {
            // The name index may have been spliced for the failed edit: made again from the
            // bodies, which are as they were.
            let names = self.bodies.iter().map(|b| b.name.as_str());
            let index = BodyIndex::of(names).expect("the model's names were checked");
            self.index = Arc::new(index);
        }
        result
    }

    /// The bodies whose equations must be assembled again: those `changes` names (and the
    /// fixed bodies that moved, and the bodies deleted), and those whose forces or links name
    /// any of them (found through `readers`, the index of `scene`'s elements).
    fn affected(&self, scene: &Scene, changes: &SceneDiff, readers: &Readers) -> Affected {
        let mut changed: Affected = changes.equations_changed.iter().cloned().collect();
        for name in &changes.initial_changed {
            let body = self.index.get(name).and_then(|i| scene.bodies.get(i));
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
        let mut affected = changed.clone();
        for name in &changed {
            for (element, role) in readers.of_body(name) {
                match element {
                    Element::Force(i) if role == Role::Reads => {
                        affected.insert(scene.forces[i as usize].body.clone());
                    }
                    Element::Force(_) => {}
                    Element::Link(i) => {
                        let link = &scene.links[i as usize];
                        affected.insert(link.body1.clone());
                        affected.extend(second(&link.target).map(str::to_string));
                    }
                }
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
        (readers, forces, links): (Readers, &Places, &Places),
    ) -> Result<ModelUpdate, PhysicsError> {
        let same_bodies = changes.bodies_in_place
            || scene.bodies.len() == self.bodies.len()
                && scene
                    .bodies
                    .iter()
                    .zip(self.bodies.iter())
                    .all(|(new, old)| new.name == old.name);
        // The bodies removed (places before the edit) and added (places after it).
        let body_moves = moves(changes, ElementKind::Body);
        let (bodies_removed, bodies_added) = (&body_moves.0[..], &body_moves.1[..]);
        // For each body after the edit, its place before it (`None` if added), when the edit
        // added or removed bodies and kept the others in order.
        let spliced = (!same_bodies)
            .then(|| self.body_places(scene, changes, (bodies_removed, bodies_added)))
            .flatten();
        // Otherwise (bodies moved) the names are indexed anew.
        let fresh = match (same_bodies, &spliced) {
            (false, None) => Some(body_names(scene)?),
            _ => None,
        };
        // Each body of the model before the edit: its place after it.
        let body_map: Places = match (&spliced, &fresh) {
            (Some(from), _) => {
                let mut map = vec![None; self.bodies.len()];
                for (j, o) in from.iter().enumerate() {
                    if let Some(o) = *o {
                        map[o] = Some(j);
                    }
                }
                Some(map)
            }
            (None, Some(index)) => Some((self.bodies.iter()).map(|b| index.get(&b.name)).collect()),
            (None, None) => None,
        };
        // The bodies reached, before the edit and after it, as sorted lists rather than a
        // flag per body: an edit reaches a few bodies of many.
        let sorted = |index: &BodyIndex| {
            let mut list: Vec<usize> = affected.iter().filter_map(|n| index.get(n)).collect();
            list.sort_unstable();
            list
        };
        let touched = sorted(&self.index);
        let old_touched = |b: usize| touched.binary_search(&b).is_ok();
        let mut stopped: Vec<(usize, &str)> = affected
            .iter()
            .filter_map(|n| Some((self.index.get(n)?, n.as_str())))
            .filter(|&(o, _)| self.bodies[o].vars.is_some())
            .filter(|&(o, _)| place(&body_map, o).is_none_or(|i| scene.bodies[i].fixed))
            .collect();
        stopped.sort_unstable();
        let index = match (fresh, &spliced, &body_map) {
            (Some(index), _, _) => index,
            (None, Some(_), _) => {
                let mut index = std::mem::take(&mut self.index);
                let removed: Vec<(usize, &str)> = (bodies_removed.iter())
                    .map(|&o| (o, self.bodies[o].name.as_str()))
                    .collect();
                let added: Vec<(usize, &str)> = (bodies_added.iter())
                    .map(|&j| (j, scene.bodies[j].name.as_str()))
                    .collect();
                Arc::make_mut(&mut index).splice(&removed, &added);
                index
            }
            // The model's names, checked for duplicates when they were compiled.
            _ => self.index.clone(),
        };
        let selected = sorted(&index);
        let is_selected = |b: usize| selected.binary_search(&b).is_ok();

        // Shape sets added or removed move the others: the index follows them, in place once
        // nothing can fail (copying it would cost a name per shape set); until then a shape
        // is found through the old index and the move. (A place is checked against the shape
        // set's name when used, so a stale one costs a search.)
        let shapes_moved = changes
            .changes
            .iter()
            .filter(|c| c.kind == ElementKind::Shape);
        let (added, removed) = shapes_moved.fold((0, 0), |(a, r), c| match c.change {
            ChangeKind::Added => (a + 1, r),
            ChangeKind::Removed => (a, r + 1),
            _ => (a, r),
        });
        let old_shapes = (scene.shapes.len() + removed).checked_sub(added);
        let shapes = match old_shapes
            .and_then(|n| places(changes, ElementKind::Shape, n, scene.shapes.len()))
        {
            Some(map) => {
                let added = (changes.changes.iter())
                    .filter_map(|c| match (c.kind, c.change, c.new) {
                        (ElementKind::Shape, ChangeKind::Added, Some(j)) => {
                            Some((scene.shapes[j].name.as_str(), j))
                        }
                        _ => None,
                    })
                    .collect();
                ShapeMove::Spliced(map, added)
            }
            None if added + removed > 0 => ShapeMove::Anew(shape_index(scene)),
            None => ShapeMove::Kept,
        };
        let old_shapes = &self.shapes;
        let shape_of = |body: &Body| -> Result<BodyModel, PhysicsError> {
            let place = match &shapes {
                ShapeMove::Kept => old_shapes.get(&body.shape).copied(),
                ShapeMove::Spliced(map, added) => (added.get(body.shape.as_str()).copied())
                    .or_else(|| map.get(*old_shapes.get(&body.shape)?).copied().flatten()),
                ShapeMove::Anew(index) => index.get(&body.shape).copied(),
            };
            body_model(scene, body, place)
        };
        // The bodies after the edit: the selected ones anew, the others as they were.
        let mut bodies: Bodies = if same_bodies {
            self.bodies.clone()
        } else if spliced.is_some() {
            // Added bodies are in `selected`: made below.
            self.bodies
                .spliced(bodies_removed, bodies_added, |j| shape_of(&scene.bodies[j]))?
        } else {
            let mut bodies = Vec::with_capacity(scene.bodies.len());
            for (i, body) in scene.bodies.iter().enumerate() {
                bodies.push(match self.index.get(&body.name) {
                    Some(o) if !is_selected(i) => self.bodies.shared(o),
                    _ => Arc::new(shape_of(body)?),
                });
            }
            bodies.into_iter().collect()
        };
        for &i in &selected {
            bodies.set(i, shape_of(&scene.bodies[i])?);
        }
        for name in &changes.initial_changed {
            if let Some(i) = index.get(name) {
                if !is_selected(i) {
                    bodies.get_mut(i).initial = InitialState::of(&scene.bodies[i])?;
                }
            }
        }
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
            if !scene.bodies[i].fixed {
                let name = scene.bodies[i].name.as_str();
                let slot = self.layout.slot(name).or(taken.get(name).copied());
                bodies.get_mut(i).vars = slot.map(block);
            }
        }
        // By slot, the moving body holding it after the edit (`None` while it holds).
        let slots_held = same_bodies && plan.taken.is_empty() && plan.freed.is_empty();
        let owners = match (slots_held, &spliced) {
            (true, _) => None,
            (false, Some(_)) => Some(moved_slots(
                &self.slots,
                &body_map,
                (&bodies, &selected),
                &plan.freed,
            )),
            (false, None) => Some(slot_owners(&bodies)),
        };
        let inputs = match &owners {
            None => Some(self.factory.inputs.clone()),
            Some(owners) => {
                // Each body's slot from the slot table: a pass over a list rather than a
                // pointer followed per body.
                let mut slots = vec![None; bodies.len()];
                for (s, b) in owners.iter().enumerate() {
                    if let Some(b) = *b {
                        slots[b] = Some(s);
                    }
                }
                self.factory
                    .inputs
                    .rearranged(&slots, self.pullable.as_ref())
            }
        };
        let Some(inputs) = inputs else {
            return self.compile_anew(scene, affected, changes);
        };

        // Everything that can fail, before anything changes.
        let names = (index.clone(), trajectory_names(scene)?);
        let (to_force, to_link) =
            elements_to_assemble(scene, changes, affected, (&index, &readers));
        let pool = std::mem::take(&mut self.factory.pool);
        let symbols = std::mem::take(&mut self.factory.symbols);
        let slots = owners.as_deref().unwrap_or(&self.slots);
        let mut assembly = Assembly::new(scene, (bodies, slots), pool, symbols, names);
        let built = assemble(
            &mut assembly,
            scene,
            &inputs,
            &selected,
            (&to_force, &to_link),
        );
        let Assembled {
            pool,
            mut bodies,
            symbols,
            springs,
            works,
            first_integrals,
        } = assembly.finish();
        self.factory.pool = pool;
        self.factory.symbols = symbols;
        let equations = built?;
        let curves = Curves::new(&scene.trajectories);
        let only = is_selected;
        let found = constrain(scene, &bodies, &curves, &index, only)?;

        // From here on nothing fails.
        for &b in &selected {
            set_free_spin(&mut bodies, b, &first_integrals);
        }
        self.bodies = bodies;
        self.readers = Some(readers);
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
            let Some(b) = index.get(name) else { continue };
            update.bodies.insert(b);
            if is_selected(b) {
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

        if let Some(map) = &body_map {
            let mut constraints = vec![Vec::new(); scene.bodies.len()];
            for (o, list) in std::mem::take(&mut self.constraints)
                .into_iter()
                .enumerate()
            {
                if let Some(b) = map[o] {
                    constraints[b] = list;
                }
            }
            self.constraints = constraints;
        }
        if let Some(owners) = owners {
            self.slots = owners;
        }
        for &b in &selected {
            self.constraints[b].clear();
        }
        for (b, list) in found.constraints {
            self.constraints[b] = list;
        }

        // Springs and work elements: those of the bodies assembled again are new; the others
        // follow their elements and bodies to their new places.
        let body_at = |b: usize| place(&body_map, b);
        self.springs.retain(|s| {
            let (a, b) = s.bodies;
            !old_touched(a) && b.is_none_or(|b| !old_touched(b))
        });
        if links.is_some() || body_map.is_some() {
            for spring in &mut self.springs {
                spring.link = place(links, spring.link).expect("a kept link is in the new scene");
                let (a, b) = spring.bodies;
                spring.bodies = (
                    body_at(a).expect("a kept spring's body is in the new scene"),
                    b.and_then(body_at),
                );
            }
        }
        // Only a spring too stiff keeps its span (see `Spring::span`), so the others' spans
        // are not read again from the scene; there are none unless the scene fails.
        for spring in self.springs.iter_mut().filter(|s| s.span.is_some()) {
            spring.span = Some(scene.links[spring.link].origin.command);
        }
        // Into their places by link (a sort would copy every spring).
        let shortest = shortest_time_constant(&self.simulator);
        for spring in springs {
            let spring = spring.reported(shortest);
            let at = self.springs.partition_point(|s| s.link <= spring.link);
            self.springs.insert(at, spring);
        }
        let again = (to_force.as_slice(), to_link.as_slice(), selected.as_slice());
        self.follow_works(works, again, (forces, links, &body_map));
        update.moved = body_map.map_or(BodyMoves::Kept, BodyMoves::Moved);

        self.index = index;
        match shapes {
            ShapeMove::Kept => {}
            ShapeMove::Spliced(map, added) => {
                let added = added.into_iter().map(|(name, j)| (j, name));
                splice_names(Arc::make_mut(&mut self.shapes), &map, added);
            }
            ShapeMove::Anew(index) => self.shapes = index,
        }
        self.factory.curves = curves;
        self.factory.inputs = inputs;
        self.elements = (scene.forces.len(), scene.links.len());
        Ok(update)
    }
}

impl Model {
    /// Moves the work elements through an edit: those of the elements assembled again (`again`:
    /// the forces and links, sorted, and the bodies whose pushes and pulls were) and of
    /// elements removed give way to the new `works`; the others follow their elements (or, for
    /// pushes and pulls, their bodies) to their new `places`. A work element's source says
    /// which bodies it acts on, so its loads are not read (they name the bodies by slot, which
    /// stays theirs: see [`work::Load`](super::work::Load)); when the edit moved nothing and
    /// the new elements replace as many old ones of the same sources, they take their places
    /// without moving the rest.
    fn follow_works(
        &mut self,
        mut works: Vec<WorkElement>,
        again: (&[usize], &[usize], &[usize]),
        (forces, links, bodies): (&Places, &Places, &Places),
    ) {
        // The elements are sorted by source: forces, links, then bodies. A kind whose
        // elements kept their places is not visited; its dropped elements are found by
        // source.
        let kinds: [(SourceOf, _, _); 3] = [
            (Source::Force, again.0, forces),
            (Source::Link, again.1, links),
            (Source::Body, again.2, bodies),
        ];
        let mut dropped = Vec::new();
        for (of, again, map) in kinds {
            let first = self.works.partition_point(|w| w.source < of(0));
            let end = self.works.partition_point(|w| w.source <= of(usize::MAX));
            let Some(map) = map else {
                for &j in again {
                    let from = self.works.partition_point(|w| w.source < of(j));
                    let to = self.works.partition_point(|w| w.source <= of(j));
                    dropped.extend(from..to);
                }
                continue;
            };
            for (k, work) in self.works[first..end].iter_mut().enumerate() {
                let (Source::Force(i) | Source::Link(i) | Source::Body(i)) = &mut work.source;
                let kept = map[*i].map(|j| {
                    *i = j;
                    again.binary_search(&j).is_err()
                });
                if kept != Some(true) {
                    dropped.push(first + k);
                }
            }
        }
        works.sort_by_key(|w| w.source);
        let in_place = dropped.len() == works.len()
            && dropped
                .iter()
                .zip(&works)
                .all(|(&k, w)| self.works[k].source == w.source);
        if in_place {
            for (k, work) in dropped.into_iter().zip(works) {
                self.works[k] = work;
            }
            return;
        }
        let mut k = 0;
        let mut drop = dropped.into_iter().peekable();
        self.works.retain(|_| {
            let gone = drop.next_if_eq(&k).is_some();
            k += 1;
            !gone
        });
        if works.len() > FEW_WORKS {
            self.works.extend(works);
            self.works.sort_by_key(|w| w.source);
            return;
        }
        // Each after the kept ones of its source and the new ones before it, as the stable
        // sort would put it, without sorting every element.
        for work in works {
            let at = self.works.partition_point(|w| w.source <= work.source);
            self.works.insert(at, work);
        }
    }
}

impl Model {
    /// For each body of `scene`, its place in this model (`None` if added), when the edit
    /// `changes` describes added or removed bodies and kept the others in their order, and
    /// the added bodies' names are new; `None` otherwise (bodies moved, or a name is used
    /// twice), for the caller to index the names anew (and report the name used twice).
    /// The diff says whether the kept bodies are in order, so their names are not compared
    /// (at 10,000 bodies, a cache miss or two each, a millisecond in all).
    fn body_places(
        &self,
        scene: &Scene,
        changes: &SceneDiff,
        (gone, added): (&[usize], &[usize]),
    ) -> Option<Vec<Option<usize>>> {
        if !changes.bodies_in_order {
            return None;
        }
        let mut removed = vec![false; self.bodies.len()];
        for &i in gone {
            removed[i] = true;
        }
        let mut kept = (0..removed.len()).filter(|&i| !removed[i]);
        let mut places = Vec::with_capacity(scene.bodies.len());
        for j in 0..scene.bodies.len() {
            if added.binary_search(&j).is_ok() {
                places.push(None);
                continue;
            }
            let i = kept.next()?;
            debug_assert_eq!(
                self.bodies[i].name, scene.bodies[j].name,
                "paired by the diff"
            );
            places.push(Some(i));
        }
        if kept.next().is_some() {
            return None;
        }
        let mut names = FxHashSet::default();
        for &j in added {
            let name = scene.bodies[j].name.as_str();
            let kept = self.index.get(name).is_some_and(|i| !removed[i]);
            if kept || !names.insert(name) {
                return None;
            }
        }
        Some(places)
    }
}

/// `slots`, by slot the moving body holding it, after an edit that moved the bodies to their
/// places in `map`, freed the slots `freed` and assembled the `selected` ones of `bodies`
/// again (those that took or kept a slot among them): [`slot_owners`] of `bodies` without visiting every body.
fn moved_slots(
    slots: &[Option<usize>],
    map: &Places,
    (bodies, selected): (&Bodies, &[usize]),
    freed: &[(String, usize)],
) -> Vec<Option<usize>> {
    let mut slots: Vec<Option<usize>> = slots
        .iter()
        .map(|b| b.and_then(|b| place(map, b)))
        .collect();
    for &(_, s) in freed {
        slots[s] = None;
    }
    for &b in selected {
        if let Some(vars) = bodies[b].vars {
            let s = slot_of(vars);
            if slots.len() <= s {
                slots.resize(s + 1, None);
            }
            slots[s] = Some(b);
        }
    }
    while slots.last() == Some(&None) {
        slots.pop();
    }
    slots
}

/// Moves `index`, names by place, through an edit that moved each old place to its place in
/// `map` (`None` if removed) and `added` the named places: only the names added and removed
/// are hashed; the others change their places in turn.
fn splice_names<'a, S: BuildHasher>(
    index: &mut HashMap<String, usize, S>,
    map: &[Option<usize>],
    added: impl Iterator<Item = (usize, &'a str)>,
) {
    index.retain(|_, i| match map.get(*i).copied().flatten() {
        Some(j) => {
            *i = j;
            true
        }
        None => false,
    });
    for (j, name) in added {
        index.entry(name.to_string()).or_insert(j);
    }
}

/// How an edit moved the shape sets, for [`Model::update`] to find the bodies' shapes with
/// the model's index before moving it.
enum ShapeMove<'a> {
    /// None added or removed: the index holds.
    Kept,
    /// Each shape set's place after the edit, and the added ones' places by name.
    Spliced(Vec<Option<usize>>, FxHashMap<&'a str, usize>),
    /// Moved otherwise: the index made anew.
    Anew(ShapeIndex),
}

/// A kind of work element's source, by its element's or body's place.
type SourceOf = fn(usize) -> Source;

/// New work elements beyond which [`Model::follow_works`] sorts them in with the kept ones
/// rather than putting each in its place.
const FEW_WORKS: usize = 16;

/// For each element before an edit, its place after it (`None` if removed); `None` for all
/// when every element kept its place.
pub(super) type Places = Option<Vec<Option<usize>>>;

/// Where element `i` before an edit is after it.
fn place(places: &Places, i: usize) -> Option<usize> {
    match places {
        None => Some(i),
        Some(map) => map[i],
    }
}

/// The forces and links (indices in `scene`) to assemble again: those acting on a body the
/// edit reached (found through `readers`), and those it added or changed that name no body of
/// `index` (for [`assemble`] to report).
fn elements_to_assemble(
    scene: &Scene,
    changes: &SceneDiff,
    affected: &Affected,
    (index, readers): (&BodyIndex, &Readers),
) -> (Vec<usize>, Vec<usize>) {
    let mut forces = Vec::new();
    let mut links = Vec::new();
    for name in affected {
        for (element, role) in readers.of_body(name) {
            match (element, role) {
                (Element::Force(i), Role::Acts) => forces.push(i as usize),
                (Element::Link(i), Role::Acts) => links.push(i as usize),
                _ => {}
            }
        }
    }
    let unknown = |name: &str| !index.contains(name);
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
/// it (`None` if removed); `None` if none was added or removed. Elements keep their order:
/// those neither removed nor added pair up in turn, changed ones included.
pub(super) fn places(
    changes: &SceneDiff,
    kind: ElementKind,
    old_len: usize,
    new_len: usize,
) -> Places {
    let moved = |c: &&ElementChange| {
        c.kind == kind && matches!(c.change, ChangeKind::Added | ChangeKind::Removed)
    };
    if old_len == new_len && !changes.changes.iter().any(|c| moved(&c)) {
        return None;
    }
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
    Some(
        removed
            .iter()
            .map(|&gone| if gone { None } else { next.next() })
            .collect(),
    )
}

/// The second body a link names, if it joins two.
fn second(target: &LinkTarget) -> Option<&str> {
    match target {
        LinkTarget::Body { body2, .. } => Some(body2.as_str()),
        _ => None,
    }
}
