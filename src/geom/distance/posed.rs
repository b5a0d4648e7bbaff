//! A convex piece placed in the world, seen through its support function.
//!
//! Distance queries treat a sphere as its centre point plus a radius (dissertation 5.3.1), so
//! the "core" of a sphere is one point and the core of a hull is the hull.

use crate::geom::shape::Convex;
use nalgebra::{Isometry3, Vector3};

pub(super) type V3 = Vector3<f64>;

#[derive(Clone, Copy)]
pub(super) struct Posed<'a> {
    pub convex: &'a Convex,
    pub pose: Isometry3<f64>,
}

impl<'a> Posed<'a> {
    pub fn new(convex: &'a Convex, pose: &Isometry3<f64>) -> Posed<'a> {
        Posed {
            convex,
            pose: *pose,
        }
    }

    /// The core vertex farthest along the world direction `dir`, found from vertex `hint`:
    /// its index and world position.
    pub fn support(&self, dir: &V3, hint: usize) -> (usize, V3) {
        match self.convex {
            Convex::Sphere(_) => (0, self.pose.translation.vector),
            Convex::Hull(h) => {
                let local = self.pose.rotation.inverse_transform_vector(dir);
                let i = h.support_from(&local, hint);
                (i, self.world_point(&h.vertices()[i]))
            }
        }
    }

    /// World position of core vertex `i`, if there is one.
    pub fn vertex(&self, i: usize) -> Option<V3> {
        match self.convex {
            Convex::Sphere(_) => (i == 0).then_some(self.pose.translation.vector),
            Convex::Hull(h) => h.vertices().get(i).map(|v| self.world_point(v)),
        }
    }

    pub fn world_point(&self, p: &V3) -> V3 {
        self.pose.rotation * p + self.pose.translation.vector
    }

    /// The radius added around the core: a sphere's radius, 0 for a hull.
    pub fn radius(&self) -> f64 {
        match self.convex {
            Convex::Sphere(s) => s.radius(),
            Convex::Hull(_) => 0.0,
        }
    }

    /// World centre of a sphere around the piece.
    pub fn center(&self) -> V3 {
        self.convex.bounding_sphere().transformed(&self.pose).center
    }
}

/// A point of the Minkowski difference B − A with the core vertices it came from.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct SupportPoint {
    pub w: V3,
    pub a: V3,
    pub b: V3,
    pub ia: usize,
    pub ib: usize,
}

impl SupportPoint {
    pub fn new(ia: usize, a: V3, ib: usize, b: V3) -> SupportPoint {
        SupportPoint {
            w: b - a,
            a,
            b,
            ia,
            ib,
        }
    }
}

/// Supports of a pair of pieces, remembering the last vertices found to start the next climb.
pub(super) struct Pair<'a> {
    pub a: Posed<'a>,
    pub b: Posed<'a>,
    pub hint_a: usize,
    pub hint_b: usize,
}

impl Pair<'_> {
    /// The point of B − A farthest along `dir`: B's support along `dir` minus A's against it.
    pub fn support(&mut self, dir: &V3) -> SupportPoint {
        let (ia, a) = self.a.support(&-dir, self.hint_a);
        let (ib, b) = self.b.support(dir, self.hint_b);
        self.hint_a = ia;
        self.hint_b = ib;
        SupportPoint::new(ia, a, ib, b)
    }

    /// A length that sets the scale of tolerances for this pair: the sizes of the pieces.
    pub fn scale(&self) -> f64 {
        let size = |p: &Posed| p.convex.bounding_sphere().radius;
        (size(&self.a) + size(&self.b)).max(f64::MIN_POSITIVE)
    }
}
