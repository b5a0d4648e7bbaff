//! Rigid bodies as the simulator sees them: mass properties, the thirteen state variables and
//! their initial values.
//!
//! A moving body has, in this order and with consecutive variable ids:
//!
//! | offset | variables | meaning |
//! |---|---|---|
//! | 0..3 | `x y z` | position of the centre of mass (world) |
//! | 3..7 | `qw qx qy qz` | orientation quaternion (body → world), not kept at unit length |
//! | 7..10 | `dx dy dz` | linear velocity (world) |
//! | 10..13 | `Lx Ly Lz` | angular momentum about the centre of mass (world axes) |
//!
//! Angular momentum rather than angular velocity is the rotational state because its equation
//! is simply `L' = τ`: a torque-free body keeps `L` exactly, whatever the integration error, and
//! the gyroscopic term comes out of `ω = R I⁻¹ Rᵀ L` without being written. A fixed body has no
//! variables: it stays at its initial position and orientation.
//!
//! The shape is placed relative to the centre of mass: a point `p` of the shape (in the shape
//! set's coordinates) is at `position + R (p - center)` in the world.

use super::error::PhysicsError;
use crate::geom::MassProperties;
use crate::scene::model::{Body, ShapeSet};
use crate::scene::state::BodyState;
use crate::sim::VarId;
use nalgebra::{Matrix3, Quaternion, UnitQuaternion, Vector3};

/// Number of state variables of a moving body.
pub const BODY_VARIABLES: usize = 13;

/// Offsets of the state variables within a body's block, and their name suffixes.
pub(crate) mod slot {
    pub const POSITION: usize = 0;
    pub const ROTATION: usize = 3;
    pub const VELOCITY: usize = 7;
    pub const MOMENTUM: usize = 10;
    pub const NAMES: [&str; super::BODY_VARIABLES] = [
        "x", "y", "z", "qw", "qx", "qy", "qz", "dx", "dy", "dz", "Lx", "Ly", "Lz",
    ];
}

/// Newton steps [`BodyModel::keep_spin_energy`] takes at most (the first lands within
/// rounding of the level in practice: the miss is of the order of the tolerance).
const SPIN_LEVEL_ITERATIONS: usize = 3;

/// The thirteen variables of a moving body: ids `first .. first + 13`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BodyVars {
    pub first: VarId,
}

impl BodyVars {
    /// The variable at `offset` in the body's block (see the module documentation).
    pub fn at(self, offset: usize) -> VarId {
        VarId(self.first.0 + offset as u32)
    }

    pub fn position(self) -> [VarId; 3] {
        [0, 1, 2].map(|k| self.at(slot::POSITION + k))
    }

    /// `qw qx qy qz`.
    pub fn rotation(self) -> [VarId; 4] {
        [0, 1, 2, 3].map(|k| self.at(slot::ROTATION + k))
    }

    pub fn velocity(self) -> [VarId; 3] {
        [0, 1, 2].map(|k| self.at(slot::VELOCITY + k))
    }

    pub fn momentum(self) -> [VarId; 3] {
        [0, 1, 2].map(|k| self.at(slot::MOMENTUM + k))
    }

    /// All thirteen, in block order.
    pub fn all(self) -> impl Iterator<Item = VarId> {
        (0..BODY_VARIABLES).map(move |k| self.at(k))
    }
}

/// Mass properties and state layout of one body of the scene.
#[derive(Clone, Debug, PartialEq)]
pub struct BodyModel {
    pub name: String,
    pub mass: f64,
    /// Inertia tensor about the centre of mass, body axes.
    pub inertia: Matrix3<f64>,
    pub(crate) inverse_inertia: Matrix3<f64>,
    /// The centre of mass in the shape set's coordinates (where the shape is drawn from).
    pub center: Vector3<f64>,
    /// `None` for a fixed body.
    pub vars: Option<BodyVars>,
    /// The state at the start time.
    pub initial: InitialState,
    /// Whether the body's orientation turns by its `L` alone with an anisotropic inertia (no
    /// steering): its turning energy is then a first integral of those equations, which the
    /// integrator holds at every point over which `L` stays put, and reading between such
    /// points holds too ([`BodyModel::keep_spin_energy`]).
    pub(crate) free_spin: bool,
}

/// A body's state at the start, as the scene gives it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InitialState {
    pub position: Vector3<f64>,
    pub rotation: UnitQuaternion<f64>,
    pub velocity: Vector3<f64>,
    /// World axes.
    pub angular_velocity: Vector3<f64>,
}

impl InitialState {
    /// The start state `body` gives (a fixed body never moves), checked to be finite.
    pub(crate) fn of(body: &Body) -> Result<InitialState, PhysicsError> {
        let initial = InitialState {
            position: body.init_pos.value,
            rotation: UnitQuaternion::from_scaled_axis(body.init_rot.value),
            velocity: if body.fixed {
                Vector3::zeros()
            } else {
                body.init_dpos.value
            },
            angular_velocity: if body.fixed {
                Vector3::zeros()
            } else {
                body.init_drot.value
            },
        };
        let finite = [
            initial.position,
            body.init_rot.value,
            initial.velocity,
            initial.angular_velocity,
        ]
        .iter()
        .all(|v| v.iter().all(|c| c.is_finite()));
        if !finite {
            return Err(PhysicsError::model(
                format!("body {}: initial values must be finite", body.name),
                Some(body.origin.command),
            ));
        }
        Ok(initial)
    }
}

impl BodyModel {
    /// The body `body` with the mass properties of its shape (`shape_props`, unit density)
    /// overridden by a given mass or inertia, checked to be physical.
    pub(crate) fn new(
        body: &Body,
        shape_props: Option<&MassProperties>,
    ) -> Result<BodyModel, PhysicsError> {
        let at = Some(body.origin.command);
        let props = match shape_props {
            Some(props) => *props,
            None if body.mass.is_some() && body.inertia.is_some() => MassProperties {
                mass: 0.0,
                center: Vector3::zeros(),
                inertia: Matrix3::zeros(),
            },
            None => {
                return Err(PhysicsError::model(
                    format!(
                        "body {}: shape `{}` is not defined, and without a shape both `mass` and `inertia` must be given",
                        body.name, body.shape
                    ),
                    at,
                ))
            }
        };
        let mass = match &body.mass {
            Some(given) => given.value,
            None => props.mass,
        };
        if !(mass.is_finite() && mass > 0.0) {
            let span = body.mass.as_ref().and_then(|m| m.span).or(at);
            return Err(PhysicsError::model(
                format!(
                    "body {}: the mass must be positive and finite, got {mass}",
                    body.name
                ),
                span,
            ));
        }
        let inertia = match &body.inertia {
            Some(given) => given.value,
            // Computed inertia scales with the density the given mass implies.
            None => props.inertia * (mass / props.mass),
        };
        let inverse_inertia = checked_inverse(&inertia).ok_or_else(|| {
            let span = body.inertia.as_ref().and_then(|i| i.span).or(at);
            PhysicsError::model(
                format!(
                    "body {}: the inertia tensor must be symmetric positive definite, got {:?}",
                    body.name,
                    inertia.as_slice()
                ),
                span,
            )
        })?;
        let initial = InitialState::of(body)?;
        Ok(BodyModel {
            name: body.name.clone(),
            mass,
            inertia,
            inverse_inertia,
            center: props.center,
            vars: None,
            initial,
            free_spin: false,
        })
    }

    pub fn is_fixed(&self) -> bool {
        self.vars.is_none()
    }

    /// The world inertia tensor `R I Rᵀ` at orientation `rotation`.
    pub fn world_inertia(&self, rotation: &UnitQuaternion<f64>) -> Matrix3<f64> {
        let r = rotation.to_rotation_matrix().into_inner();
        r * self.inertia * r.transpose()
    }

    /// The angular velocity `R I⁻¹ Rᵀ L` of angular momentum `momentum` at `rotation`.
    pub fn angular_velocity(
        &self,
        rotation: &UnitQuaternion<f64>,
        momentum: &Vector3<f64>,
    ) -> Vector3<f64> {
        let r = rotation.to_rotation_matrix().into_inner();
        r * (self.inverse_inertia * (r.transpose() * momentum))
    }

    /// Turns the orientation among values `v` of the body's variables (block order) by the
    /// least rotation that gives it the turning energy `½ Lᵀ R I⁻¹ Rᵀ L` that orientation
    /// `start` has at the same `L`: a read between two computed points of a
    /// [free spin](BodyModel::free_spin), whose energy is the same at both. The track's cubic
    /// errs between the points by up to the tolerance, and its error across the energy's level
    /// would show as energy gained or lost (1.5e-5 of the tee's at the default tolerance);
    /// the exact motion stays on the level, as it stays on unit quaternions. Newton steps on
    /// a rotation `δ` in body axes, along which the energy changes by `δ · (ω_b × b)`, with
    /// `b = Rᵀ L` and `ω_b = I⁻¹ b`.
    pub(crate) fn keep_spin_energy(&self, v: &mut [f64; BODY_VARIABLES], start: [f64; 4]) {
        let q = slot::ROTATION;
        let momentum = Vector3::new(
            v[slot::MOMENTUM],
            v[slot::MOMENTUM + 1],
            v[slot::MOMENTUM + 2],
        );
        let energy = |rotation: &UnitQuaternion<f64>| {
            let b = rotation.inverse_transform_vector(&momentum);
            let w = self.inverse_inertia * b;
            (0.5 * b.dot(&w), w.cross(&b))
        };
        let unit = |w: f64, x: f64, y: f64, z: f64| {
            UnitQuaternion::new_normalize(Quaternion::new(w, x, y, z))
        };
        let (level, _) = energy(&unit(start[0], start[1], start[2], start[3]));
        let mut rotation = unit(v[q], v[q + 1], v[q + 2], v[q + 3]);
        for _ in 0..SPIN_LEVEL_ITERATIONS {
            let (value, gradient) = energy(&rotation);
            let norm = gradient.norm_squared();
            let miss = level - value;
            if miss.abs() <= 4.0 * f64::EPSILON * level || !norm.is_finite() || norm <= 0.0 {
                break;
            }
            rotation *= UnitQuaternion::from_scaled_axis(gradient * (miss / norm));
        }
        let turned = rotation.into_inner();
        v[q..q + 4].copy_from_slice(&[turned.w, turned.i, turned.j, turned.k]);
    }

    /// The initial values of the body's thirteen variables, in block order.
    pub(crate) fn initial_values(&self) -> [f64; BODY_VARIABLES] {
        let s = &self.initial;
        let q = s.rotation.into_inner();
        let momentum = self.world_inertia(&s.rotation) * s.angular_velocity;
        [
            s.position.x,
            s.position.y,
            s.position.z,
            q.w,
            q.i,
            q.j,
            q.k,
            s.velocity.x,
            s.velocity.y,
            s.velocity.z,
            momentum.x,
            momentum.y,
            momentum.z,
        ]
    }

    /// The state that values `v` of the body's thirteen variables (in block order) stand for,
    /// and the angular momentum among them. The quaternion is normalised: the integrator does
    /// not hold its length at one.
    pub(crate) fn state_of(&self, v: &[f64; BODY_VARIABLES]) -> (BodyState, Vector3<f64>) {
        let vector = |at: usize| Vector3::new(v[at], v[at + 1], v[at + 2]);
        let q = slot::ROTATION;
        let rotation =
            UnitQuaternion::new_normalize(Quaternion::new(v[q], v[q + 1], v[q + 2], v[q + 3]));
        let momentum = vector(slot::MOMENTUM);
        let state = BodyState {
            position: vector(slot::POSITION),
            rotation,
            velocity: vector(slot::VELOCITY),
            angular_velocity: self.angular_velocity(&rotation, &momentum),
        };
        (state, momentum)
    }

    /// The state variables of the body at `position` and `rotation` with `velocity` and
    /// angular momentum `momentum`: the inverse of [`BodyModel::state_of`].
    pub(crate) fn values_of(
        position: &Vector3<f64>,
        rotation: &UnitQuaternion<f64>,
        velocity: &Vector3<f64>,
        momentum: &Vector3<f64>,
    ) -> [f64; BODY_VARIABLES] {
        let mut v = [0.0; BODY_VARIABLES];
        v[slot::POSITION..slot::POSITION + 3].copy_from_slice(position.as_slice());
        let q = rotation.quaternion();
        v[slot::ROTATION..slot::ROTATION + 4].copy_from_slice(&[q.w, q.i, q.j, q.k]);
        v[slot::VELOCITY..slot::VELOCITY + 3].copy_from_slice(velocity.as_slice());
        v[slot::MOMENTUM..slot::MOMENTUM + 3].copy_from_slice(momentum.as_slice());
        v
    }

    /// The inertia is a multiple of the identity (a sphere, a cube): then `ω = L / I` in any
    /// orientation.
    pub(crate) fn isotropic_inertia(&self) -> Option<f64> {
        let d = self.inertia[(0, 0)];
        let isotropic = (0..3).all(|i| {
            (0..3).all(|j| {
                let want = if i == j { d } else { 0.0 };
                (self.inertia[(i, j)] - want).abs() <= 1e-12 * d.abs()
            })
        });
        isotropic.then_some(d)
    }
}

/// The inverse of a symmetric positive definite matrix, or `None`.
fn checked_inverse(m: &Matrix3<f64>) -> Option<Matrix3<f64>> {
    let scale = m.abs().max();
    let symmetric = (m - m.transpose()).abs().max() <= 1e-9 * scale;
    if !(symmetric && m.iter().all(|v| v.is_finite()) && scale > 0.0) {
        return None;
    }
    m.cholesky().map(|c| c.inverse())
}

/// The unit-density mass properties of `shape`, or an error located at its command.
///
/// Computed once per shape set: scenes instance one shape many times, and a hull's properties
/// cost far more than a body's. (`Scene::body_mass_properties` gives the same result for one
/// body at a time.)
pub(crate) fn shape_mass_properties(shape: &ShapeSet) -> Result<MassProperties, PhysicsError> {
    let props = shape.geometry().map(|g| g.mass_properties()).map_err(|e| {
        PhysicsError::model(
            format!("shape {}: {e}", shape.name),
            Some(shape.origin.command),
        )
    })?;
    if !(props.mass > 0.0 && props.mass.is_finite()) {
        return Err(PhysicsError::model(
            format!("shape {}: the shape has no volume", shape.name),
            Some(shape.origin.command),
        ));
    }
    Ok(props)
}
