//! A body's state as expressions: position, orientation, velocities, and the motion of points
//! fixed in the body. Forces, links and `[b ATTR]` references are written in these terms.

use super::body::{BodyModel, BodyVars};
use super::rotation::{rotation_matrix, rotation_vector};
use super::symbols::state;
use crate::sym::{Mat3, Node, Pool, Quat, Vec3};
use nalgebra::Vector3;

/// A trajectory prescribing a body's angular velocity, as nodes: while `active` is 1 the body
/// turns at `omega` (and the momentum follows it, see `Assembly::equations`).
pub(crate) struct Steering {
    pub active: Node,
    pub omega: Vec3,
    /// The time derivative of `omega`.
    pub omega_rate: Vec3,
    /// How fast the momentum is pulled onto `R I Rᵀ omega` when the steering starts, 1/s.
    pub settle_rate: f64,
}

/// One body's state as nodes. For a fixed body everything is constant.
pub(crate) struct Kinematics {
    pub position: Vec3,
    /// The quaternion state; `None` for a fixed body.
    pub rotation: Option<Quat>,
    /// Body → world rotation matrix.
    pub matrix: Mat3,
    pub velocity: Vec3,
    /// The angular momentum state; `None` for a fixed body.
    pub momentum: Option<Vec3>,
    /// World angular velocity: `R I⁻¹ Rᵀ L` (or `L / I` for isotropic inertia), except while a
    /// steering trajectory gives it.
    pub omega: Vec3,
    /// Trajectories prescribing the angular velocity.
    pub steering: Vec<Steering>,
    /// `q' = ½ ω ⊗ q`; `None` for a fixed body.
    pub rotation_rate: Option<Quat>,
    /// The kinetic energy of turning, `½ (Rᵀ L) · I⁻¹ Rᵀ L`, when it depends on the
    /// orientation and the equation of `q` alone keeps it for a constant `L`: a first integral
    /// of the orientation's equations (no steering, inertia not a multiple of the identity).
    pub spin_energy: Option<Node>,
    /// The rotation vector, built on first use.
    rotation_vector: Option<Vec3>,
    fixed_rotation_vector: Vector3<f64>,
}

/// A point fixed in a body, as nodes.
pub(crate) struct BodyPoint {
    /// From the centre of mass to the point, world axes.
    pub arm: Vec3,
    pub position: Vec3,
    pub velocity: Vec3,
}

impl Kinematics {
    /// The state of a moving body with variables `vars`, turned by `steering` while it is
    /// active.
    pub fn moving(
        pool: &mut Pool,
        body: &BodyModel,
        vars: BodyVars,
        steering: Vec<Steering>,
    ) -> Kinematics {
        let position = Vec3::symbols(pool, vars.position().map(state));
        let rotation = Quat::symbols(pool, vars.rotation().map(state));
        let velocity = Vec3::symbols(pool, vars.velocity().map(state));
        let momentum = Vec3::symbols(pool, vars.momentum().map(state));
        let matrix = rotation_matrix(pool, rotation);
        // ω = R I⁻¹ Rᵀ L. Turning by it, q' = ½ ω ⊗ q equals ½ q ⊗ (I⁻¹ Rᵀ L) (the spin in
        // body axes; exact even for a quaternion off unit length), which skips one rotation.
        let (free, free_rate, spin_energy) = match body.isotropic_inertia() {
            Some(moment) => (momentum.scale_by(pool, 1.0 / moment), None, None),
            None => {
                let inverse = body.inverse_inertia;
                let inverse =
                    Mat3::constant(pool, [0, 1, 2].map(|i| [0, 1, 2].map(|j| inverse[(i, j)])));
                let body_momentum = matrix.transpose().mul_vec(pool, momentum);
                let body_omega = inverse.mul_vec(pool, body_momentum);
                let spin = rotation.mul(pool, Quat::pure(body_omega));
                let [w, x, y, z] = spin.to_array().map(|c| pool.scale(c, 0.5));
                let twice = body_momentum.dot(pool, body_omega);
                (
                    matrix.mul_vec(pool, body_omega),
                    Some(Quat::new(w, x, y, z)),
                    Some(pool.scale(twice, 0.5)),
                )
            }
        };
        let omega = steering.iter().rev().fold(free, |otherwise, s| {
            let [x, y, z] = [0, 1, 2]
                .map(|k| pool.select(s.active, s.omega.to_array()[k], otherwise.to_array()[k]));
            Vec3::new(x, y, z)
        });
        let rotation_rate = match free_rate {
            Some(rate) if steering.is_empty() => rate,
            _ => rotation.derivative(pool, omega),
        };
        let spin_energy = spin_energy.filter(|_| steering.is_empty());
        Kinematics {
            position,
            rotation: Some(rotation),
            matrix,
            velocity,
            momentum: Some(momentum),
            omega,
            steering,
            rotation_rate: Some(rotation_rate),
            spin_energy,
            rotation_vector: None,
            fixed_rotation_vector: Vector3::zeros(),
        }
    }

    /// The constant state of a fixed body.
    pub fn fixed(pool: &mut Pool, body: &BodyModel) -> Kinematics {
        let r = body.initial.rotation.to_rotation_matrix().into_inner();
        Kinematics {
            position: Vec3::constant(pool, body.initial.position.into()),
            rotation: None,
            matrix: Mat3::constant(pool, [0, 1, 2].map(|i| [0, 1, 2].map(|j| r[(i, j)]))),
            velocity: Vec3::zero(),
            momentum: None,
            omega: Vec3::zero(),
            steering: Vec::new(),
            rotation_rate: None,
            spin_energy: None,
            rotation_vector: None,
            fixed_rotation_vector: body.initial.rotation.scaled_axis(),
        }
    }

    /// The point at `offset` from the centre of mass in body coordinates.
    pub fn point(&self, pool: &mut Pool, offset: &Vector3<f64>) -> BodyPoint {
        let offset = Vec3::constant(pool, (*offset).into());
        self.point_at(pool, offset)
    }

    /// The point at `offset` (nodes, e.g. external inputs) from the centre of mass in body
    /// coordinates.
    pub fn point_at(&self, pool: &mut Pool, offset: Vec3) -> BodyPoint {
        let arm = self.matrix.mul_vec(pool, offset);
        let position = self.position.add(pool, arm);
        let spin = self.omega.cross(pool, arm);
        let velocity = self.velocity.add(pool, spin);
        BodyPoint {
            arm,
            position,
            velocity,
        }
    }

    /// The orientation as a rotation vector (`[b rx]`).
    pub fn rotation_vector(&mut self, pool: &mut Pool) -> Vec3 {
        if let Some(v) = self.rotation_vector {
            return v;
        }
        let v = match self.rotation {
            Some(q) => rotation_vector(pool, q),
            None => Vec3::constant(pool, self.fixed_rotation_vector.into()),
        };
        self.rotation_vector = Some(v);
        v
    }
}
