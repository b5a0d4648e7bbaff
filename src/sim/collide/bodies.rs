//! What collision handling needs to know about each body: its shape placed about the centre of
//! mass, how far the shape reaches from it, its mass properties and restitution, when it is
//! infinitely massive, and its state read back from the tracks.

use crate::geom::Shape;
use crate::lang::fxhash::{FxHashMap, FxHashSet};
use crate::scene::model::{LinkTarget, Scene, ShapeSet};
use crate::sim::physics::trajectory::Constraint;
use crate::sim::physics::{BodyModel, Model, BODY_VARIABLES};
use crate::sim::schedule::StepContext;
use crate::sim::track::Cursor;
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

    /// The body's state just before `t` (before any jump there), if computed.
    pub fn state_before(&self, context: &StepContext<'_>, t: f64) -> Option<Kinematics> {
        self.read(context, t, true, &mut [Cursor::default(); BODY_VARIABLES])
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
            return Some(Kinematics {
                position: model.initial.position,
                rotation: model.initial.rotation,
                velocity: Vector3::zeros(),
                momentum: Vector3::zeros(),
                angular_velocity: Vector3::zeros(),
            });
        };
        let ids: [VarId; BODY_VARIABLES] = std::array::from_fn(|k| vars.at(k));
        let mut v = [0.0; BODY_VARIABLES];
        if !context.values(&ids, t, before, cursors, &mut v) {
            return None;
        }
        Some(self.kinematics(&v))
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

/// The scene's bodies with their shapes. `earlier(b)` gives body `b`'s collision body before
/// an edit that left its shape and equations alone, whose shape and reach it keeps.
pub(crate) fn collision_bodies<'a>(
    scene: &Scene,
    model: &Model,
    earlier: impl Fn(usize) -> Option<&'a CollisionBody>,
) -> Vec<CollisionBody> {
    let shapes: FxHashMap<&str, &ShapeSet> =
        scene.shapes.iter().map(|s| (s.name.as_str(), s)).collect();
    model
        .bodies()
        .iter()
        .enumerate()
        .map(|(i, body)| {
            let (restitution, friction) = (
                scene.bodies[i].restitution.value,
                scene.bodies[i].friction.value,
            );
            if let Some(before) = earlier(i) {
                return CollisionBody {
                    model: body.clone(),
                    restitution,
                    friction,
                    constraints: model.constraints(i).to_vec(),
                    self_contained: model.self_contained(i),
                    ..before.clone()
                };
            }
            let shape = shapes
                .get(scene.bodies[i].shape.as_str())
                .and_then(|s| s.geometry().ok());
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
                restitution,
                friction,
                constraints: model.constraints(i).to_vec(),
                self_contained: model.self_contained(i),
            }
        })
        .collect()
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
