//! Bounding volumes: the cheap tests that keep exact geometry from running on far-apart pairs.

use nalgebra::{Isometry3, Vector3};

/// An axis-aligned box in world coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    pub min: Vector3<f64>,
    pub max: Vector3<f64>,
}

impl Aabb {
    pub fn new(min: Vector3<f64>, max: Vector3<f64>) -> Aabb {
        Aabb { min, max }
    }

    /// True when the boxes share a point (touching counts).
    pub fn overlaps(&self, other: &Aabb) -> bool {
        (0..3).all(|k| self.min[k] <= other.max[k] && other.min[k] <= self.max[k])
    }

    /// The smallest box holding both; the simulator unions a body's boxes over a time
    /// interval to get the swept box it hands to the broad phase.
    pub fn union(&self, other: &Aabb) -> Aabb {
        Aabb {
            min: self.min.inf(&other.min),
            max: self.max.sup(&other.max),
        }
    }

    /// The box grown by `margin` on every side.
    pub fn expanded(&self, margin: f64) -> Aabb {
        let m = Vector3::repeat(margin);
        Aabb {
            min: self.min - m,
            max: self.max + m,
        }
    }
}

/// A sphere enclosing a shape (not necessarily the smallest one).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoundingSphere {
    pub center: Vector3<f64>,
    pub radius: f64,
}

impl BoundingSphere {
    /// The sphere around `points`, centred on their bounding box.
    pub(crate) fn around(points: &[Vector3<f64>]) -> BoundingSphere {
        let Some(first) = points.first() else {
            return BoundingSphere {
                center: Vector3::zeros(),
                radius: 0.0,
            };
        };
        let (lo, hi) = points
            .iter()
            .fold((*first, *first), |(lo, hi), p| (lo.inf(p), hi.sup(p)));
        let center = (lo + hi) / 2.0;
        let radius = points
            .iter()
            .map(|p| (p - center).norm())
            .fold(0.0, f64::max);
        BoundingSphere { center, radius }
    }

    /// The sphere enclosing all of `spheres`, centred on their bounding box.
    pub(crate) fn enclosing(spheres: &[BoundingSphere]) -> BoundingSphere {
        let Some(first) = spheres.first() else {
            return BoundingSphere {
                center: Vector3::zeros(),
                radius: 0.0,
            };
        };
        let r = |s: &BoundingSphere| Vector3::repeat(s.radius);
        let (lo, hi) = spheres.iter().fold(
            (first.center - r(first), first.center + r(first)),
            |(lo, hi), s| (lo.inf(&(s.center - r(s))), hi.sup(&(s.center + r(s)))),
        );
        let center = (lo + hi) / 2.0;
        let radius = spheres
            .iter()
            .map(|s| (s.center - center).norm() + s.radius)
            .fold(0.0, f64::max);
        BoundingSphere { center, radius }
    }

    /// The same sphere after moving its owner by `pose`.
    pub fn transformed(&self, pose: &Isometry3<f64>) -> BoundingSphere {
        BoundingSphere {
            center: pose.rotation * self.center + pose.translation.vector,
            radius: self.radius,
        }
    }

    /// A lower bound of the signed distance between anything inside the two spheres
    /// (negative when they overlap: minus a bound on the penetration depth).
    pub fn gap(&self, other: &BoundingSphere) -> f64 {
        (self.center - other.center).norm() - self.radius - other.radius
    }

    pub fn aabb(&self) -> Aabb {
        let r = Vector3::repeat(self.radius);
        Aabb {
            min: self.center - r,
            max: self.center + r,
        }
    }
}
