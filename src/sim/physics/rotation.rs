//! Orientation: the quaternion state, symbolically and numerically.
//!
//! A body's orientation is a quaternion `q` whose length the integrator does not hold at
//! exactly one, so every use goes through a form that is invariant under scaling `q`: the
//! rotation matrix carries `2/|q|²` instead of 2, and the rotation vector uses the direction of
//! the vector part. The scene speaks in rotation vectors (`init_rot`, `[b rx]`, rotation
//! trajectories): axis times angle, right-hand rule, angle in `[0, π]`.

use crate::sym::{Mat3, Node, Pool, Quat, Vec3};
use nalgebra::{Matrix3, Vector3};

/// The rotation matrix of `q / |q|`.
pub(crate) fn rotation_matrix(pool: &mut Pool, q: Quat) -> Mat3 {
    let Quat { w, x, y, z } = q;
    let mut square = |a: Node| pool.mul(a, a);
    let (ww, xx, yy, zz) = (square(w), square(x), square(y), square(z));
    let norm = pool.sum(&[ww, xx, yy, zz]);
    let two = pool.constant(2.0);
    let s = pool.div(two, norm);
    let mut diagonal = |a: Node, b: Node| {
        let both = pool.add(a, b);
        let scaled = pool.mul(s, both);
        pool.sub(Pool::ONE, scaled)
    };
    let (d0, d1, d2) = (diagonal(yy, zz), diagonal(xx, zz), diagonal(xx, yy));
    let mut off = |a: Node, b: Node, sign: f64, c: Node, d: Node| {
        let ab = pool.mul(a, b);
        let cd = pool.mul(c, d);
        let sum = pool.linear(0.0, &[(1.0, ab), (sign, cd)]);
        pool.mul(s, sum)
    };
    Mat3::new([
        [d0, off(x, y, -1.0, w, z), off(x, z, 1.0, w, y)],
        [off(x, y, 1.0, w, z), d1, off(y, z, -1.0, w, x)],
        [off(x, z, -1.0, w, y), off(y, z, 1.0, w, x), d2],
    ])
}

/// The rotation vector of `q` (angle in `[0, π]`), as an expression of its components.
///
/// With `v` the vector part, the vector is `v · 2 atan2(|v|, |w|) / |v| · sign(w)`. Near the
/// identity that quotient is replaced by its series `2/w (1 - |v|²/(3w²))`, which is exact to
/// rounding there and keeps the derivative finite at zero rotation.
pub(crate) fn rotation_vector(pool: &mut Pool, q: Quat) -> Vec3 {
    let v = q.vector();
    let vv = v.norm_squared(pool);
    let w = q.w;
    let ww = pool.mul(w, w);
    let length = pool.sqrt(vv);
    let abs_w = pool.abs(w);
    let angle = pool.atan2(length, abs_w);
    let twice = pool.scale(angle, 2.0);
    let general = pool.div(twice, length);
    let negative = pool.lt(w, Pool::ZERO);
    let minus = pool.neg(general);
    let general = pool.select(negative, minus, general);
    // 2/w (1 - vv/(3 ww))
    let ratio = pool.div(vv, ww);
    let correction = pool.linear(1.0, &[(-1.0 / 3.0, ratio)]);
    let two_over_w = {
        let two = pool.constant(2.0);
        pool.div(two, w)
    };
    let series = pool.mul(two_over_w, correction);
    let tiny = pool.scale(ww, 1e-12);
    let near_identity = pool.lt(vv, tiny);
    let factor = pool.select(near_identity, series, general);
    v.scale(pool, factor)
}

/// The world angular velocity of a body whose orientation is `exp([r]×)` while the rotation
/// vector changes at rate `rate`: `ω = J(r) ṙ`, with `J` the left Jacobian of the rotation
/// group, `I + (1 - cos θ)/θ² [r]× + (θ - sin θ)/θ³ [r]×²`.
pub fn angular_velocity_from_rate(r: &Vector3<f64>, rate: &Vector3<f64>) -> Vector3<f64> {
    let theta2 = r.norm_squared();
    let (a, b) = if theta2 < 1e-8 {
        (0.5 - theta2 / 24.0, 1.0 / 6.0 - theta2 / 120.0)
    } else {
        let theta = theta2.sqrt();
        (
            (1.0 - theta.cos()) / theta2,
            (theta - theta.sin()) / (theta2 * theta),
        )
    };
    let cross = r.cross_matrix();
    (Matrix3::identity() + cross * a + cross * cross * b) * rate
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sym::Symbol;
    use nalgebra::{Quaternion, UnitQuaternion};

    fn eval_quat_expr(
        build: impl Fn(&mut Pool, Quat) -> Vec<Node>,
        q: Quaternion<f64>,
    ) -> Vec<f64> {
        let mut pool = Pool::new();
        let symbols = Quat::symbols(&mut pool, [Symbol(0), Symbol(1), Symbol(2), Symbol(3)]);
        let nodes = build(&mut pool, symbols);
        let values = [q.w, q.i, q.j, q.k];
        pool.eval_many(&nodes, |s| values[s.0 as usize])
    }

    #[test]
    fn matrix_is_the_rotation_of_the_normalised_quaternion() {
        let unit = UnitQuaternion::from_scaled_axis(Vector3::new(0.3, -1.2, 0.7));
        let scaled = unit.into_inner() * 1.7;
        let got = eval_quat_expr(
            |pool, q| {
                let m = rotation_matrix(pool, q);
                m.rows.iter().flat_map(|r| r.to_array()).collect()
            },
            scaled,
        );
        let want = unit.to_rotation_matrix().into_inner();
        for i in 0..3 {
            for j in 0..3 {
                assert!((got[i * 3 + j] - want[(i, j)]).abs() < 1e-14);
            }
        }
    }

    #[test]
    fn rotation_vector_round_trips_across_angles_and_signs() {
        for r in [
            Vector3::new(0.0, 0.0, 0.0),
            Vector3::new(1e-9, -2e-9, 0.0),
            Vector3::new(1e-3, 2e-3, -1e-3),
            Vector3::new(0.3, -1.2, 0.7),
            Vector3::new(0.0, 3.0, 0.0),
        ] {
            let unit = UnitQuaternion::from_scaled_axis(r);
            for sign in [1.0, -1.0] {
                let q = unit.into_inner() * (sign * 0.8);
                let got = eval_quat_expr(|pool, q| rotation_vector(pool, q).to_array().to_vec(), q);
                for k in 0..3 {
                    assert!(
                        (got[k] - r[k]).abs() <= 1e-12 * (1.0 + r.norm()),
                        "{r:?} sign {sign}: {got:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn angular_velocity_matches_the_rotation_matrix_derivative() {
        let r = |t: f64| Vector3::new(0.4 * t, 1.0 - t * t, 0.3 + 0.5 * t.sin());
        let rate = |t: f64| Vector3::new(0.4, -2.0 * t, 0.5 * t.cos());
        for t in [0.0, 0.7, 1.3] {
            let h = 1e-6;
            let at = |t: f64| UnitQuaternion::from_scaled_axis(r(t)).to_rotation_matrix();
            let derivative = (at(t + h).into_inner() - at(t - h).into_inner()) / (2.0 * h);
            let spin = derivative * at(t).into_inner().transpose();
            let want = Vector3::new(spin[(2, 1)], spin[(0, 2)], spin[(1, 0)]);
            let got = angular_velocity_from_rate(&r(t), &rate(t));
            assert!((got - want).norm() < 1e-8, "t {t}: {got:?} vs {want:?}");
        }
        let small = angular_velocity_from_rate(&Vector3::new(1e-5, 0.0, 0.0), &Vector3::y());
        assert!((small - Vector3::y()).norm() < 1e-5);
    }
}
