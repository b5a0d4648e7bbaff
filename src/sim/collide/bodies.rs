//! What collision handling needs to know about each body: its shape placed about the centre of
//! mass, how far the shape reaches from it, its mass properties and restitution, when it is
//! infinitely massive, and its state read back from the tracks.

use crate::geom::Shape;
use crate::lang::fxhash::FxHashSet;
use crate::scene::model::{LinkTarget, Scene, ShapeSet};
use crate::sim::memory::with_room;
use crate::sim::motion::Tracks;
use crate::sim::physics::trajectory::Constraint;
use crate::sim::physics::{BodyModel, Model, BODY_VARIABLES};
use crate::sim::schedule::StepContext;
use crate::sim::track::{Cursor, Side};
use crate::sim::VarId;
use nalgebra::{Isometry3, Matrix3, Translation3, UnitQuaternion, Vector3};

/// One body as collision handling sees it.
#[derive(Clone, Debug)]
pub(crate) struct CollisionBody {
    pub model: BodyModel,
    /// `None` when the body has no shape (given mass and inertia only): it collides with
    /// nothing.
    pub shape: Option<Shape>,
    /// The distance from the centre of mass to the farthest point of the shape.
    pub reach: f64,
    /// How fast the shape's surface can move per unit of angular speed about the centre of
    /// mass ([`Shape::spin_reach`]): at most `reach`, nothing for a ball.
    pub spin_reach: f64,
    pub restitution: f64,
    /// The coefficient of friction in resting contact.
    pub friction: f64,
    /// Intervals over which a trajectory prescribes some of its variables.
    pub constraints: Vec<Constraint>,
    /// Moves by its own state alone ([`Model::self_contained`]), so it may sleep at rest.
    pub self_contained: bool,
}

impl CollisionBody {
    /// Takes scene body `i`'s restitution and friction, for a body taken over from before an
    /// edit (a collision property, changed without changing the body's equations).
    fn recoefficient(&mut self, scene: &Scene, i: usize) {
        self.restitution = scene.bodies[i].restitution.value;
        self.friction = scene.bodies[i].friction.value;
    }

    /// Infinitely massive at `t`: fixed, or following a trajectory.
    pub fn immovable(&self, t: f64) -> bool {
        self.model.is_fixed() || self.constraints.iter().any(|c| c.holds_at(t))
    }

    /// Never moves at all (fixed).
    pub fn is_fixed(&self) -> bool {
        self.model.is_fixed()
    }

    /// Where the shape is when the body is in `state`.
    pub fn pose(&self, state: &Kinematics) -> Isometry3<f64> {
        Translation3::from(state.position) * state.rotation * Translation3::from(-self.model.center)
    }

    /// The body's state at `t` (after any jump there), if computed.
    pub fn state(&self, context: &StepContext<'_>, t: f64) -> Option<Kinematics> {
        self.read(context, t, false, &mut [Cursor::default(); BODY_VARIABLES])
    }

    /// The body's state just before `t` (before any jump there), if computed.
    pub fn state_before(&self, context: &StepContext<'_>, t: f64) -> Option<Kinematics> {
        self.read(context, t, true, &mut [Cursor::default(); BODY_VARIABLES])
    }

    /// As [`CollisionBody::state`], starting the search of the tracks where `cursors` (one
    /// per state variable) left off and leaving them at `t`: cheap for reads at increasing
    /// times.
    pub fn state_from(
        &self,
        context: &StepContext<'_>,
        t: f64,
        cursors: &mut [Cursor; BODY_VARIABLES],
    ) -> Option<Kinematics> {
        self.read(context, t, false, cursors)
    }

    /// How far the body turned from `from` to just before `to`: `∫ ω dt` along the computed
    /// motion, by Simpson's rule on each interval between the points of its tracks (the middle
    /// read through the tracks' cubics), so that a constant torque's work `T · ∫ ω dt` is
    /// read to the integrator's accuracy however many steps the interval spans. `None` where
    /// the motion is not computed.
    pub fn turned(&self, tracks: &Tracks, from: f64, to: f64) -> Option<Vector3<f64>> {
        let Some(vars) = self.model.vars else {
            return Some(Vector3::zeros());
        };
        let mut times = vec![from, to];
        let mut seen = Vec::new();
        for k in 0..BODY_VARIABLES {
            let (c, _) = tracks.location(vars.at(k))?;
            if seen.contains(&c) {
                continue;
            }
            seen.push(c);
            let track = tracks.read(c);
            // The points are in time order: find the interval's by bisection, not by reading
            // the whole track (a long run's tracks hold hundreds of thousands).
            let points = track.times();
            let first = points.partition_point(|&t| t <= from);
            let last = points.partition_point(|&t| t < to);
            times.extend_from_slice(&points[first..last.max(first)]);
        }
        times.sort_by(f64::total_cmp);
        times.dedup();
        let mut cursors = [Cursor::default(); BODY_VARIABLES];
        let mut spin = |t: f64, side: Side| {
            self.state_in(tracks, t, side, &mut cursors)
                .map(|s| s.angular_velocity)
        };
        let mut turned = Vector3::zeros();
        let mut start = spin(from, Side::After)?;
        for pair in times.windows(2) {
            let (t0, t1) = (pair[0], pair[1]);
            let middle = spin(0.5 * (t0 + t1), Side::After)?;
            let end = spin(t1, Side::Before)?;
            turned += (t1 - t0) / 6.0 * (start + 4.0 * middle + end);
            if t1 < to {
                start = spin(t1, Side::After)?;
            }
        }
        Some(turned)
    }

    /// The body's state at `t` on `side` of any jump there, read from `tracks` (outside a
    /// step, where there is no [`StepContext`]); `cursors` as for
    /// [`CollisionBody::state_from`].
    pub fn state_in(
        &self,
        tracks: &Tracks,
        t: f64,
        side: Side,
        cursors: &mut [Cursor; BODY_VARIABLES],
    ) -> Option<Kinematics> {
        let Some(vars) = self.model.vars else {
            return Some(self.at_rest());
        };
        let mut v = [0.0; BODY_VARIABLES];
        for (k, (value, cursor)) in v.iter_mut().zip(cursors.iter_mut()).enumerate() {
            *value = tracks.value(vars.at(k), t, side, cursor)?;
        }
        Some(self.kinematics(&v))
    }

    fn read(
        &self,
        context: &StepContext<'_>,
        t: f64,
        before: bool,
        cursors: &mut [Cursor; BODY_VARIABLES],
    ) -> Option<Kinematics> {
        let model = &self.model;
        let Some(vars) = model.vars else {
            return Some(self.at_rest());
        };
        let ids: [VarId; BODY_VARIABLES] = std::array::from_fn(|k| vars.at(k));
        let mut v = [0.0; BODY_VARIABLES];
        if !context.values(&ids, t, before, cursors, &mut v) {
            return None;
        }
        Some(self.kinematics(&v))
    }

    /// A fixed body's state: where it was placed, still.
    fn at_rest(&self) -> Kinematics {
        Kinematics {
            position: self.model.initial.position,
            rotation: self.model.initial.rotation,
            velocity: Vector3::zeros(),
            momentum: Vector3::zeros(),
            angular_velocity: Vector3::zeros(),
        }
    }

    /// The state whose state variables have the values `v`.
    pub fn kinematics(&self, v: &[f64; BODY_VARIABLES]) -> Kinematics {
        let (state, momentum) = self.model.state_of(v);
        Kinematics {
            position: state.position,
            rotation: state.rotation,
            velocity: state.velocity,
            momentum,
            angular_velocity: state.angular_velocity,
        }
    }

    /// The state variables of state `s`: the inverse of [`CollisionBody::kinematics`].
    pub fn values(&self, s: &Kinematics) -> [f64; BODY_VARIABLES] {
        BodyModel::values_of(&s.position, &s.rotation, &s.velocity, &s.momentum)
    }

    /// The world inverse inertia `R I⁻¹ Rᵀ` at `rotation`.
    pub fn inverse_world_inertia(&self, rotation: &UnitQuaternion<f64>) -> Matrix3<f64> {
        let r = rotation.to_rotation_matrix().into_inner();
        r * self.model.inverse_inertia * r.transpose()
    }
}

/// A body's state as collision handling uses it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Kinematics {
    pub position: Vector3<f64>,
    pub rotation: UnitQuaternion<f64>,
    pub velocity: Vector3<f64>,
    /// World axes, about the centre of mass.
    pub momentum: Vector3<f64>,
    pub angular_velocity: Vector3<f64>,
}

impl Kinematics {
    /// The velocity of the body's point at `point` (world).
    pub fn point_velocity(&self, point: &Vector3<f64>) -> Vector3<f64> {
        self.velocity + self.angular_velocity.cross(&(point - self.position))
    }
}

/// The scene's bodies with their shapes. `earlier[b]` is body `b`'s collision body before an
/// edit that left its shape and equations alone: it is taken over as it is, with the
/// restitution and friction the scene gives now (the only things such an edit may have
/// changed in it); `earlier` may be empty.
pub(crate) fn collision_bodies(
    scene: &Scene,
    model: &Model,
    mut earlier: Vec<Option<CollisionBody>>,
) -> Vec<CollisionBody> {
    let shape_set = shape_sets(scene, model);
    let n = model.bodies().len();
    // With room, so that the next edit adding a body inserts it in this memory.
    let mut bodies = Vec::with_capacity(with_room(n));
    bodies.extend(
        (0..n).map(|i| match earlier.get_mut(i).and_then(Option::take) {
            Some(mut before) => {
                before.recoefficient(scene, i);
                before
            }
            None => collision_body(scene, model, i, &shape_set),
        }),
    );
    bodies
}

/// At most this many bodies inserted before others by [`collision_bodies_in_place`]: each
/// insertion moves every body after it.
const MAX_INSERTED: usize = 16;

/// Whether [`collision_bodies_in_place`] can take the edit `map` describes (each earlier
/// body's index now, of `n` bodies): the earlier bodies kept keep their order, and at most
/// [`MAX_INSERTED`] bodies are added before the last of them.
pub(crate) fn keeps_order(map: &[Option<usize>], n: usize) -> bool {
    let mut places = map.iter().flatten();
    let mut last = None;
    let in_order = places.all(|&b| {
        let after = last.is_none_or(|l| b > l);
        last = Some(b);
        after
    });
    if !in_order {
        return false;
    }
    // In order, the last kept body's place is at least the number kept less one.
    let kept = map.iter().flatten().count();
    let inserted_before = last.map_or(0, |l| l + 1 - kept);
    kept <= n && inserted_before <= MAX_INSERTED
}

/// [`collision_bodies`] after an edit that kept the earlier bodies in their order
/// ([`keeps_order`]; `map`: each earlier body's index now): `bodies`, the collider's before
/// the edit, are kept in their own memory, the deleted ones removed, those `changed` made
/// again and the added ones inserted at their places. Moving a thousand bodies through a
/// vector of options into a new one was a tenth of the first update after adding a body, most
/// of it the new memory's page faults; an insertion moves the bodies after it within the
/// memory they have (made with room, see [`collision_bodies`]).
pub(crate) fn collision_bodies_in_place(
    scene: &Scene,
    model: &Model,
    mut bodies: Vec<CollisionBody>,
    map: &[Option<usize>],
    changed: &std::collections::HashSet<usize>,
) -> Vec<CollisionBody> {
    let shape_set = shape_sets(scene, model);
    let n = model.bodies().len();
    let mut old = 0;
    bodies.retain(|_| {
        old += 1;
        map[old - 1].is_some()
    });
    // `bodies[..i]` are in their places; `bodies[i..]` are the kept ones still to place.
    let mut places = map.iter().flatten().copied().peekable();
    for i in 0..n {
        if places.next_if_eq(&i).is_none() {
            bodies.insert(i, collision_body(scene, model, i, &shape_set));
        } else if changed.contains(&i) {
            bodies[i] = collision_body(scene, model, i, &shape_set);
        } else {
            bodies[i].recoefficient(scene, i);
        }
    }
    bodies
}

/// The scene's shape sets by name, found through the model's index and checked by name (the
/// index is the scene's after `Model::update`, but a search costs nothing a body taken over
/// pays): indexing every shape set here was a tenth of `Collider::after_edit` for one body
/// added.
fn shape_sets<'a>(scene: &'a Scene, model: &'a Model) -> impl Fn(&str) -> Option<&'a ShapeSet> {
    move |name: &str| {
        (model.shape_place(name).and_then(|i| scene.shapes.get(i)))
            .filter(|s| s.name == name)
            .or_else(|| scene.shapes.iter().find(|s| s.name == name))
    }
}

/// Body `i` of `model` as the collider sees it, made anew.
fn collision_body<'a>(
    scene: &'a Scene,
    model: &Model,
    i: usize,
    shape_set: &impl Fn(&str) -> Option<&'a ShapeSet>,
) -> CollisionBody {
    let body = &model.bodies()[i];
    let shape = shape_set(&scene.bodies[i].shape).and_then(|s| s.geometry().ok());
    let reach = shape.as_ref().map_or(0.0, |shape| {
        let sphere = shape.bounding_sphere(&Isometry3::identity());
        (sphere.center - body.center).norm() + sphere.radius
    });
    let spin_reach = shape
        .as_ref()
        .map_or(0.0, |shape| shape.spin_reach(&body.center));
    CollisionBody {
        model: body.clone(),
        shape,
        reach,
        spin_reach,
        restitution: scene.bodies[i].restitution.value,
        friction: scene.bodies[i].friction.value,
        constraints: model.constraints(i).to_vec(),
        self_contained: model.self_contained(i),
    }
}

/// Pairs `(i, j)`, `i < j`, of directly linked parts of one articulated body: they do not
/// collide (5.3.1), so that a joint can be modelled by overlapping rods. Other parts of the
/// same articulated body do collide (a chain can hit itself).
pub(crate) fn linked_parts(scene: &Scene, model: &Model) -> FxHashSet<(usize, usize)> {
    let mut pairs = FxHashSet::default();
    for link in &scene.links {
        let LinkTarget::Body { body2, .. } = &link.target else {
            continue;
        };
        let (Some(a), Some(b)) = (model.body_index(&link.body1), model.body_index(body2)) else {
            continue;
        };
        let (art_a, art_b) = (&scene.bodies[a].artbody, &scene.bodies[b].artbody);
        if a != b && art_a.is_some() && art_a == art_b {
            pairs.insert((a.min(b), a.max(b)));
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::{keeps_order, MAX_INSERTED};

    #[test]
    fn order_kept_when_bodies_are_added_or_deleted_but_not_reordered() {
        // Kept in place, added at the end, added at the top, one deleted.
        assert!(keeps_order(&[Some(0), Some(1), Some(2)], 3));
        assert!(keeps_order(&[Some(0), Some(1)], 5));
        assert!(keeps_order(&[Some(1), Some(2)], 3));
        assert!(keeps_order(&[Some(0), None, Some(1)], 2));
        // Two bodies swapped.
        assert!(!keeps_order(&[Some(1), Some(0)], 2));
        // Too many added before the last kept body: each insertion moves those after it.
        let n = MAX_INSERTED + 2;
        assert!(keeps_order(&[Some(n - 2), Some(n - 1)], n));
        assert!(!keeps_order(&[Some(n - 1)], n));
        // Any number added after the last.
        assert!(keeps_order(&[Some(0)], 10 * MAX_INSERTED));
    }
}
