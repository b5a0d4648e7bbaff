//! The first-order equations of one rigid body held by six critically damped springs to fixed
//! points, written with the `sym` vector algebra: the realistic system the `sym` benchmark
//! compiles and the `sym_body` tests check.
//!
//! Each spring's offset is rotated by the body's quaternion; the spring and damper force
//! F = -k x - 2 sqrt(k m) v acts at the attachment point and makes a torque d×F; gravity pulls;
//! the quaternion follows ½ ω ⊗ q; angular momentum maps to angular velocity through the world
//! inertia tensor R I⁻¹ Rᵀ. State: position (0..3), quaternion (3..7), velocity (7..10),
//! angular momentum (10..13); symbol n is state variable n.

use asgard::sym::{Mat3, Node, Pool, Quat, Symbol, Vec3};
use nalgebra::Matrix3;

pub const STATE: usize = 13;
pub const MASS: f64 = 2.0;
pub const STIFFNESS: f64 = 40.0;

/// Where the springs attach, in body coordinates (symmetric, so they sum to zero).
pub const OFFSETS: [[f64; 3]; 6] = [
    [0.5, 0.0, 0.0],
    [-0.5, 0.0, 0.0],
    [0.0, 0.4, 0.0],
    [0.0, -0.4, 0.0],
    [0.0, 0.0, 0.3],
    [0.0, 0.0, -0.3],
];

/// The first-order equations of the body, in state order.
pub fn body_equations(pool: &mut Pool) -> Vec<Node> {
    let symbols: Vec<Symbol> = (0..STATE as u32).map(Symbol).collect();
    let position = Vec3::symbols(pool, [symbols[0], symbols[1], symbols[2]]);
    let rotation = Quat::symbols(pool, [symbols[3], symbols[4], symbols[5], symbols[6]]);
    let velocity = Vec3::symbols(pool, [symbols[7], symbols[8], symbols[9]]);
    let momentum = Vec3::symbols(pool, [symbols[10], symbols[11], symbols[12]]);

    // ω = R I⁻¹ Rᵀ L with a full (non-diagonal) body inertia tensor.
    let inertia = Matrix3::new(0.9, 0.1, 0.0, 0.1, 0.7, 0.05, 0.0, 0.05, 0.5);
    let inverse = inertia
        .try_inverse()
        .expect("the inertia tensor is invertible");
    let inverse = Mat3::constant(pool, [0, 1, 2].map(|i| [0, 1, 2].map(|j| inverse[(i, j)])));
    let r = rotation.to_matrix(pool);
    let body_momentum = r.transpose().mul_vec(pool, momentum);
    let body_omega = inverse.mul_vec(pool, body_momentum);
    let omega = r.mul_vec(pool, body_omega);

    let damping = 2.0 * (STIFFNESS * MASS).sqrt();
    let mut force = Vec3::constant(pool, [0.0, -9.81 * MASS, 0.0]);
    let mut torque = Vec3::zero();
    for offset in OFFSETS {
        let anchor = Vec3::constant(pool, offset.map(|c| 2.0 * c + 0.1));
        let offset = Vec3::constant(pool, offset);
        let arm = rotation.rotate(pool, offset);
        let point = position.add(pool, arm);
        let stretch = point.sub(pool, anchor);
        let spin = omega.cross(pool, arm);
        let point_velocity = velocity.add(pool, spin);
        let spring = stretch.scale_by(pool, -STIFFNESS);
        let damper = point_velocity.scale_by(pool, -damping);
        let link = spring.add(pool, damper);
        force = force.add(pool, link);
        let moment = arm.cross(pool, link);
        torque = torque.add(pool, moment);
    }

    let acceleration = force.scale_by(pool, 1.0 / MASS);
    let spin_rate = rotation.derivative(pool, omega);
    let mut equations = Vec::with_capacity(STATE);
    equations.extend(velocity.to_array());
    equations.extend(spin_rate.to_array());
    equations.extend(acceleration.to_array());
    equations.extend(torque.to_array());
    equations
}

/// A plausible state: displaced, turned (unit quaternion), moving, spinning.
pub fn sample_state() -> [f64; STATE] {
    let norm = (0.9f64 * 0.9 + 0.1 * 0.1 + 0.3 * 0.3 + 0.2 * 0.2).sqrt();
    [
        0.1,
        -0.2,
        0.05,
        0.9 / norm,
        0.1 / norm,
        0.3 / norm,
        0.2 / norm,
        0.3,
        0.0,
        -0.1,
        0.02,
        0.1,
        -0.05,
    ]
}
