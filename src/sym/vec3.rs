//! Vectors, quaternions and 3×3 matrices whose components are nodes, for writing the physics
//! the way it is thought: offsets rotated by a body's orientation, spring forces, torques `d×F`,
//! quaternion kinematics. Every operation builds simplified nodes in the given pool.
//!
//! Quaternions are `w + xi + yj + zk` (scalar first) with Hamilton's product, as nalgebra's.

use super::pool::{Node, Pool, Symbol};

/// A 3-vector of nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Vec3 {
    pub x: Node,
    pub y: Node,
    pub z: Node,
}

impl Vec3 {
    pub fn new(x: Node, y: Node, z: Node) -> Vec3 {
        Vec3 { x, y, z }
    }

    pub fn zero() -> Vec3 {
        Vec3::new(Pool::ZERO, Pool::ZERO, Pool::ZERO)
    }

    pub fn constant(pool: &mut Pool, v: [f64; 3]) -> Vec3 {
        let [x, y, z] = v.map(|c| pool.constant(c));
        Vec3::new(x, y, z)
    }

    pub fn symbols(pool: &mut Pool, s: [Symbol; 3]) -> Vec3 {
        let [x, y, z] = s.map(|c| pool.symbol(c));
        Vec3::new(x, y, z)
    }

    pub fn to_array(self) -> [Node; 3] {
        [self.x, self.y, self.z]
    }

    /// Applies `f` to each component.
    fn map(self, mut f: impl FnMut(Node) -> Node) -> Vec3 {
        Vec3::new(f(self.x), f(self.y), f(self.z))
    }

    /// Applies `f` to pairs of components.
    fn zip(self, other: Vec3, mut f: impl FnMut(Node, Node) -> Node) -> Vec3 {
        Vec3::new(f(self.x, other.x), f(self.y, other.y), f(self.z, other.z))
    }

    pub fn add(self, pool: &mut Pool, other: Vec3) -> Vec3 {
        self.zip(other, |a, b| pool.add(a, b))
    }

    pub fn sub(self, pool: &mut Pool, other: Vec3) -> Vec3 {
        self.zip(other, |a, b| pool.sub(a, b))
    }

    pub fn neg(self, pool: &mut Pool) -> Vec3 {
        self.map(|a| pool.neg(a))
    }

    /// `s · self` for a node `s`.
    pub fn scale(self, pool: &mut Pool, s: Node) -> Vec3 {
        self.map(|a| pool.mul(s, a))
    }

    /// `k · self` for a number `k`.
    pub fn scale_by(self, pool: &mut Pool, k: f64) -> Vec3 {
        self.map(|a| pool.scale(a, k))
    }

    pub fn dot(self, pool: &mut Pool, other: Vec3) -> Node {
        let x = pool.mul(self.x, other.x);
        let y = pool.mul(self.y, other.y);
        let z = pool.mul(self.z, other.z);
        pool.sum(&[x, y, z])
    }

    pub fn cross(self, pool: &mut Pool, other: Vec3) -> Vec3 {
        let mut component = |a: Node, b: Node, c: Node, d: Node| {
            let ab = pool.mul(a, b);
            let cd = pool.mul(c, d);
            pool.sub(ab, cd)
        };
        Vec3::new(
            component(self.y, other.z, self.z, other.y),
            component(self.z, other.x, self.x, other.z),
            component(self.x, other.y, self.y, other.x),
        )
    }

    pub fn norm_squared(self, pool: &mut Pool) -> Node {
        self.dot(pool, self)
    }

    pub fn norm(self, pool: &mut Pool) -> Node {
        let squared = self.norm_squared(pool);
        pool.sqrt(squared)
    }
}

/// A quaternion of nodes, `w + xi + yj + zk`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Quat {
    pub w: Node,
    pub x: Node,
    pub y: Node,
    pub z: Node,
}

impl Quat {
    pub fn new(w: Node, x: Node, y: Node, z: Node) -> Quat {
        Quat { w, x, y, z }
    }

    /// The quaternion `0 + v`.
    pub fn pure(v: Vec3) -> Quat {
        Quat::new(Pool::ZERO, v.x, v.y, v.z)
    }

    pub fn symbols(pool: &mut Pool, s: [Symbol; 4]) -> Quat {
        let [w, x, y, z] = s.map(|c| pool.symbol(c));
        Quat::new(w, x, y, z)
    }

    pub fn to_array(self) -> [Node; 4] {
        [self.w, self.x, self.y, self.z]
    }

    /// The vector part `(x, y, z)`.
    pub fn vector(self) -> Vec3 {
        Vec3::new(self.x, self.y, self.z)
    }

    /// The Hamilton product `self ⊗ other`.
    pub fn mul(self, pool: &mut Pool, other: Quat) -> Quat {
        let (a, b) = (self, other);
        let mut combine = |terms: [(f64, Node, Node); 4]| {
            let products = terms.map(|(sign, p, q)| (sign, pool.mul(p, q)));
            pool.linear(0.0, &products)
        };
        Quat::new(
            combine([
                (1.0, a.w, b.w),
                (-1.0, a.x, b.x),
                (-1.0, a.y, b.y),
                (-1.0, a.z, b.z),
            ]),
            combine([
                (1.0, a.w, b.x),
                (1.0, a.x, b.w),
                (1.0, a.y, b.z),
                (-1.0, a.z, b.y),
            ]),
            combine([
                (1.0, a.w, b.y),
                (-1.0, a.x, b.z),
                (1.0, a.y, b.w),
                (1.0, a.z, b.x),
            ]),
            combine([
                (1.0, a.w, b.z),
                (1.0, a.x, b.y),
                (-1.0, a.y, b.x),
                (1.0, a.z, b.w),
            ]),
        )
    }

    pub fn conjugate(self, pool: &mut Pool) -> Quat {
        Quat::new(self.w, pool.neg(self.x), pool.neg(self.y), pool.neg(self.z))
    }

    /// `v` rotated by this quaternion, which must have unit length:
    /// `v + 2w(u×v) + 2u×(u×v)` with `u` the vector part (equal to `q v q*` for unit `q`).
    pub fn rotate(self, pool: &mut Pool, v: Vec3) -> Vec3 {
        let u = self.vector();
        let uv = u.cross(pool, v);
        let uuv = u.cross(pool, uv);
        let w_uv = uv.scale(pool, self.w);
        let sum = w_uv.add(pool, uuv);
        let twice = sum.scale_by(pool, 2.0);
        v.add(pool, twice)
    }

    /// The time derivative of the orientation when the body turns with angular velocity
    /// `omega` given in world coordinates: `½ ω ⊗ q`.
    pub fn derivative(self, pool: &mut Pool, omega: Vec3) -> Quat {
        let product = Quat::pure(omega).mul(pool, self);
        let [w, x, y, z] = product.to_array().map(|c| pool.scale(c, 0.5));
        Quat::new(w, x, y, z)
    }

    /// The rotation matrix of this unit quaternion (columns are the rotated axes).
    pub fn to_matrix(self, pool: &mut Pool) -> Mat3 {
        let Quat { w, x, y, z } = self;
        let mut entry = |diagonal: bool, terms: [(f64, Node, Node); 2]| {
            let products = terms.map(|(k, a, b)| (k, pool.mul(a, b)));
            pool.linear(if diagonal { 1.0 } else { 0.0 }, &products)
        };
        Mat3::new([
            [
                entry(true, [(-2.0, y, y), (-2.0, z, z)]),
                entry(false, [(2.0, x, y), (-2.0, w, z)]),
                entry(false, [(2.0, x, z), (2.0, w, y)]),
            ],
            [
                entry(false, [(2.0, x, y), (2.0, w, z)]),
                entry(true, [(-2.0, x, x), (-2.0, z, z)]),
                entry(false, [(2.0, y, z), (-2.0, w, x)]),
            ],
            [
                entry(false, [(2.0, x, z), (-2.0, w, y)]),
                entry(false, [(2.0, y, z), (2.0, w, x)]),
                entry(true, [(-2.0, x, x), (-2.0, y, y)]),
            ],
        ])
    }
}

/// A 3×3 matrix of nodes, stored by rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mat3 {
    pub rows: [Vec3; 3],
}

impl Mat3 {
    pub fn new(rows: [[Node; 3]; 3]) -> Mat3 {
        Mat3 {
            rows: rows.map(|[x, y, z]| Vec3::new(x, y, z)),
        }
    }

    pub fn constant(pool: &mut Pool, rows: [[f64; 3]; 3]) -> Mat3 {
        Mat3 {
            rows: rows.map(|r| Vec3::constant(pool, r)),
        }
    }

    pub fn transpose(self) -> Mat3 {
        let [a, b, c] = self.rows;
        Mat3::new([[a.x, b.x, c.x], [a.y, b.y, c.y], [a.z, b.z, c.z]])
    }

    pub fn mul_vec(self, pool: &mut Pool, v: Vec3) -> Vec3 {
        let [a, b, c] = self.rows;
        Vec3::new(a.dot(pool, v), b.dot(pool, v), c.dot(pool, v))
    }

    pub fn mul(self, pool: &mut Pool, other: Mat3) -> Mat3 {
        let columns = other.transpose().rows;
        let rows = self
            .rows
            .map(|row| columns.map(|column| row.dot(pool, column)));
        Mat3::new(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Matrix3, Quaternion, UnitQuaternion, Vector3};
    use proptest::prelude::*;

    /// Symbols 0..7: a vector (0..3), a second vector (3..6) and a quaternion (6..10).
    struct Fixture {
        pool: Pool,
        a: Vec3,
        b: Vec3,
        q: Quat,
        values: [f64; 10],
    }

    fn fixture(a: [f64; 3], b: [f64; 3], q: [f64; 4]) -> Fixture {
        let mut pool = Pool::new();
        let va = Vec3::symbols(&mut pool, [Symbol(0), Symbol(1), Symbol(2)]);
        let vb = Vec3::symbols(&mut pool, [Symbol(3), Symbol(4), Symbol(5)]);
        let quat = Quat::symbols(&mut pool, [Symbol(6), Symbol(7), Symbol(8), Symbol(9)]);
        let n = q.iter().map(|c| c * c).sum::<f64>().sqrt();
        let unit = q.map(|c| c / n);
        let mut values = [0.0; 10];
        values[..3].copy_from_slice(&a);
        values[3..6].copy_from_slice(&b);
        values[6..].copy_from_slice(&unit);
        Fixture {
            pool,
            a: va,
            b: vb,
            q: quat,
            values,
        }
    }

    impl Fixture {
        fn eval(&self, n: Node) -> f64 {
            self.pool.eval(n, |s| self.values[s.0 as usize])
        }

        fn vec(&self, v: Vec3) -> Vector3<f64> {
            Vector3::new(self.eval(v.x), self.eval(v.y), self.eval(v.z))
        }

        fn quat(&self, q: Quat) -> Quaternion<f64> {
            Quaternion::new(
                self.eval(q.w),
                self.eval(q.x),
                self.eval(q.y),
                self.eval(q.z),
            )
        }

        fn numeric(&self) -> (Vector3<f64>, Vector3<f64>, UnitQuaternion<f64>) {
            let v = &self.values;
            (
                Vector3::new(v[0], v[1], v[2]),
                Vector3::new(v[3], v[4], v[5]),
                UnitQuaternion::new_unchecked(Quaternion::new(v[6], v[7], v[8], v[9])),
            )
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * (1.0 + a.abs().max(b.abs()))
    }

    fn close_vec(a: Vector3<f64>, b: Vector3<f64>) -> bool {
        a.iter().zip(b.iter()).all(|(x, y)| close(*x, *y))
    }

    fn component() -> impl Strategy<Value = f64> {
        -10.0..10.0f64
    }

    fn quaternion() -> impl Strategy<Value = [f64; 4]> {
        prop::array::uniform4(-1.0..1.0f64).prop_filter("not too short", |q| {
            q.iter().map(|c| c * c).sum::<f64>() > 0.01
        })
    }

    proptest! {
        #![proptest_config(crate::sym::proptests::deterministic(200))]

        #[test]
        fn vector_algebra_matches_nalgebra(
            a in prop::array::uniform3(component()),
            b in prop::array::uniform3(component()),
            q in quaternion(),
        ) {
            let mut f = fixture(a, b, q);
            let (na, nb, _) = f.numeric();
            let p = &mut f.pool;
            let sum = f.a.add(p, f.b);
            let difference = f.a.sub(p, f.b);
            let two = p.constant(2.5);
            let scaled = f.a.scale(p, two);
            let negated = f.a.neg(p);
            let dot = f.a.dot(p, f.b);
            let cross = f.a.cross(p, f.b);
            let norm = f.a.norm(p);
            prop_assert!(close_vec(f.vec(sum), na + nb));
            prop_assert!(close_vec(f.vec(difference), na - nb));
            prop_assert!(close_vec(f.vec(scaled), na * 2.5));
            prop_assert!(close_vec(f.vec(negated), -na));
            prop_assert!(close(f.eval(dot), na.dot(&nb)));
            prop_assert!(close_vec(f.vec(cross), na.cross(&nb)));
            prop_assert!(close(f.eval(norm), na.norm()));
        }

        #[test]
        fn quaternion_algebra_matches_nalgebra(
            a in prop::array::uniform3(component()),
            q in quaternion(),
            r in quaternion(),
        ) {
            let mut f = fixture(a, [0.0; 3], q);
            let (na, _, nq) = f.numeric();
            let p = &mut f.pool;
            let other = Quat::new(p.constant(r[0]), p.constant(r[1]), p.constant(r[2]), p.constant(r[3]));
            let nr = Quaternion::new(r[0], r[1], r[2], r[3]);
            let product = f.q.mul(p, other);
            let conjugate = f.q.conjugate(p);
            let rotated = f.q.rotate(p, f.a);
            let matrix = f.q.to_matrix(p);
            let by_matrix = matrix.mul_vec(p, f.a);
            let back = matrix.transpose().mul_vec(p, by_matrix);
            let want_product = nq.into_inner() * nr;
            let got_product = f.quat(product);
            prop_assert!(close_vec(got_product.imag(), want_product.imag()));
            prop_assert!(close(got_product.w, want_product.w));
            prop_assert!(close_vec(f.quat(conjugate).imag(), -nq.imag()));
            prop_assert!(close_vec(f.vec(rotated), nq * na));
            prop_assert!(close_vec(f.vec(by_matrix), nq.to_rotation_matrix() * na));
            prop_assert!(close_vec(f.vec(back), na));
        }

        #[test]
        fn quaternion_derivative_matches_nalgebra(
            omega in prop::array::uniform3(component()),
            q in quaternion(),
        ) {
            let mut f = fixture([0.0; 3], omega, q);
            let (_, nomega, nq) = f.numeric();
            let derivative = f.q.derivative(&mut f.pool, f.b);
            let want = Quaternion::from_imag(nomega) * nq.into_inner() * 0.5;
            let got = f.quat(derivative);
            prop_assert!(close(got.w, want.w));
            prop_assert!(close_vec(got.imag(), want.imag()));
        }

        #[test]
        fn matrix_products_match_nalgebra(
            m in prop::array::uniform9(component()),
            q in quaternion(),
        ) {
            let mut f = fixture([0.0; 3], [0.0; 3], q);
            let (_, _, nq) = f.numeric();
            let rows = [[m[0], m[1], m[2]], [m[3], m[4], m[5]], [m[6], m[7], m[8]]];
            let constant = Mat3::constant(&mut f.pool, rows);
            let rotation = f.q.to_matrix(&mut f.pool);
            let product = rotation.mul(&mut f.pool, constant);
            let want = nq.to_rotation_matrix().into_inner() * Matrix3::from_row_slice(&m);
            for (i, row) in product.rows.iter().enumerate() {
                let got = f.vec(*row);
                for j in 0..3 {
                    prop_assert!(close(got[j], want[(i, j)]));
                }
            }
        }
    }
}
