//! The one geometric predicate whose answer must never be wrong: which side of a plane a point
//! is on.
//!
//! The hull is built incrementally; if rounding ever told two neighbouring faces different
//! stories about the same point, the set of faces a new point sees would stop being a disc and
//! the surface would tear. Deciding the side exactly (a fast floating-point filter, then an
//! exact sum of floating-point expansions when the filter cannot tell) makes the construction
//! correct for any input, however degenerate.

use nalgebra::Vector3;
use std::cmp::Ordering;

/// Relative error bound of the filtered determinant (Shewchuk's `o3derrboundA`).
const FILTER_BOUND: f64 = (7.0 + 56.0 * f64::EPSILON / 2.0) * (f64::EPSILON / 2.0);

/// Which side of the plane through `a`, `b`, `c` the point `p` is on, decided exactly.
///
/// `Greater` means above: on the side towards which `(b - a) × (c - a)` points, the side from
/// which `a`, `b`, `c` appear counter-clockwise. `Equal` means exactly in the plane. Exact for
/// coordinates whose triple products neither overflow nor fall below the normal range.
pub(crate) fn orient(
    a: &Vector3<f64>,
    b: &Vector3<f64>,
    c: &Vector3<f64>,
    p: &Vector3<f64>,
) -> Ordering {
    let (ad, bd, cd) = (a - p, b - p, c - p);
    let bdxcdy = bd.x * cd.y;
    let cdxbdy = cd.x * bd.y;
    let cdxady = cd.x * ad.y;
    let adxcdy = ad.x * cd.y;
    let adxbdy = ad.x * bd.y;
    let bdxady = bd.x * ad.y;
    // det[a-p; b-p; c-p] is negative exactly when p is above.
    let det = ad.z * (bdxcdy - cdxbdy) + bd.z * (cdxady - adxcdy) + cd.z * (adxbdy - bdxady);
    let permanent = (bdxcdy.abs() + cdxbdy.abs()) * ad.z.abs()
        + (cdxady.abs() + adxcdy.abs()) * bd.z.abs()
        + (adxbdy.abs() + bdxady.abs()) * cd.z.abs();
    let bound = FILTER_BOUND * permanent;
    if det > bound {
        Ordering::Less
    } else if -det > bound {
        Ordering::Greater
    } else {
        exact_det_sign(a, b, c, p).reverse()
    }
}

/// Sign of det[a-p; b-p; c-p], computed without rounding.
///
/// By multilinearity the determinant equals det[a;b;c] - det[p;b;c] - det[a;p;c] - det[a;b;p]
/// (terms with p twice vanish), a signed sum of 24 products of three input coordinates, each
/// of which is split exactly into four floats and added into one non-overlapping expansion.
fn exact_det_sign(
    a: &Vector3<f64>,
    b: &Vector3<f64>,
    c: &Vector3<f64>,
    p: &Vector3<f64>,
) -> Ordering {
    let mut sum = Expansion::default();
    sum.add_det(a, b, c, 1.0);
    sum.add_det(p, b, c, -1.0);
    sum.add_det(a, p, c, -1.0);
    sum.add_det(a, b, p, -1.0);
    sum.sign()
}

/// An exact sum held as floats of increasing magnitude that do not overlap in their bits.
#[derive(Default)]
struct Expansion {
    terms: Vec<f64>,
}

impl Expansion {
    /// Adds `sign` × det[u; v; w].
    fn add_det(&mut self, u: &Vector3<f64>, v: &Vector3<f64>, w: &Vector3<f64>, sign: f64) {
        let products = [
            (u.x, v.y, w.z, 1.0),
            (u.x, v.z, w.y, -1.0),
            (u.y, v.x, w.z, -1.0),
            (u.y, v.z, w.x, 1.0),
            (u.z, v.x, w.y, 1.0),
            (u.z, v.y, w.x, -1.0),
        ];
        for (x, y, z, s) in products {
            self.add_product(x * sign * s, y, z);
        }
    }

    /// Adds x·y·z exactly: x·y = h + l, then h·z and l·z each split into two floats.
    fn add_product(&mut self, x: f64, y: f64, z: f64) {
        let (h, l) = two_product(x, y);
        let (hh, hl) = two_product(h, z);
        let (lh, ll) = two_product(l, z);
        for t in [ll, lh, hl, hh] {
            self.grow(t);
        }
    }

    /// Shewchuk's Grow-Expansion with zero elimination.
    fn grow(&mut self, b: f64) {
        let mut q = b;
        let mut kept = 0;
        for i in 0..self.terms.len() {
            let (s, err) = two_sum(q, self.terms[i]);
            q = s;
            if err != 0.0 {
                self.terms[kept] = err;
                kept += 1;
            }
        }
        self.terms.truncate(kept);
        if q != 0.0 {
            self.terms.push(q);
        }
    }

    /// The largest term outweighs all the others together, so it carries the sign.
    fn sign(&self) -> Ordering {
        match self.terms.last() {
            Some(t) if *t > 0.0 => Ordering::Greater,
            Some(t) if *t < 0.0 => Ordering::Less,
            _ => Ordering::Equal,
        }
    }
}

fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let err = (a - (s - bb)) + (b - bb);
    (s, err)
}

fn two_product(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    (p, a.mul_add(b, -p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn v(x: f64, y: f64, z: f64) -> Vector3<f64> {
        Vector3::new(x, y, z)
    }

    /// Exact reference for small integer coordinates.
    fn integer_orient(pts: [[i64; 3]; 4]) -> Ordering {
        let [a, b, c, p] = pts.map(|q| q.map(i128::from));
        let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let w = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
        let d = [p[0] - a[0], p[1] - a[1], p[2] - a[2]];
        let n = [
            u[1] * w[2] - u[2] * w[1],
            u[2] * w[0] - u[0] * w[2],
            u[0] * w[1] - u[1] * w[0],
        ];
        (n[0] * d[0] + n[1] * d[1] + n[2] * d[2]).cmp(&0)
    }

    #[test]
    fn above_is_where_the_normal_points() {
        let (a, b, c) = (v(0.0, 0.0, 0.0), v(1.0, 0.0, 0.0), v(0.0, 1.0, 0.0));
        assert_eq!(orient(&a, &b, &c, &v(0.2, 0.3, 1.0)), Ordering::Greater);
        assert_eq!(orient(&a, &b, &c, &v(0.2, 0.3, -1.0)), Ordering::Less);
        assert_eq!(orient(&a, &b, &c, &v(5.0, -7.0, 0.0)), Ordering::Equal);
    }

    #[test]
    fn exactly_coplanar_far_from_the_origin() {
        let o = v(1e9, -3e9, 7e8);
        let (a, b, c) = (
            o + v(1.0, 0.0, 0.0),
            o + v(0.0, 1.0, 0.0),
            o + v(1.0, 1.0, 0.0),
        );
        assert_eq!(orient(&a, &b, &c, &(o + v(3.0, 5.0, 0.0))), Ordering::Equal);
        assert_eq!(orient(&a, &b, &c, &(o + v(3.0, 5.0, 1e-7))), Ordering::Less);
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 512,
            rng_seed: proptest::test_runner::RngSeed::Fixed(0x0_41e7),
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        #[test]
        fn agrees_with_integer_arithmetic(
            pts in proptest::array::uniform4(proptest::array::uniform3(-1_000_000i64..1_000_000))
        ) {
            let f = pts.map(|q| v(q[0] as f64, q[1] as f64, q[2] as f64));
            prop_assert_eq!(orient(&f[0], &f[1], &f[2], &f[3]), integer_orient(pts));
        }

        #[test]
        fn exact_path_agrees_on_near_planar_integers(
            base in proptest::array::uniform3(-1_000_000i64..1_000_000),
            u in proptest::array::uniform3(-1000i64..1000),
            w in proptest::array::uniform3(-1000i64..1000),
            s in -1000i64..1000, t in -1000i64..1000, lift in -1i64..=1,
        ) {
            // p = base + s u + t w + a tiny lift: the float filter is undecided, the exact sum decides.
            let a = base;
            let b = [base[0] + u[0], base[1] + u[1], base[2] + u[2]];
            let c = [base[0] + w[0], base[1] + w[1], base[2] + w[2]];
            let p = [base[0] + s * u[0] + t * w[0] + lift, base[1] + s * u[1] + t * w[1], base[2] + s * u[2] + t * w[2]];
            let pts = [a, b, c, p];
            let f = pts.map(|q| v(q[0] as f64, q[1] as f64, q[2] as f64));
            prop_assert_eq!(exact_det_sign(&f[0], &f[1], &f[2], &f[3]).reverse(), integer_orient(pts));
            prop_assert_eq!(orient(&f[0], &f[1], &f[2], &f[3]), integer_orient(pts));
        }
    }
}
