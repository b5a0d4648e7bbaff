//! Distance, closest points, closest features and contact normals between posed convex
//! pieces and between shapes (dissertation 5.3, 5.3.1–5.3.2).
//!
//! # Why GJK rather than Lin–Canny
//!
//! The dissertation tracked the closest features of each pair of polyhedra with the Lin–Canny
//! algorithm: a walk over the two feature graphs that, started from the previous answer,
//! costs almost nothing while the bodies move coherently. GJK (Gilbert–Johnson–Keerthi) gives
//! the same results — distance, closest points and the vertices, edges or faces they lie on —
//! and the same coherence when it is started from the simplex the previous query ended on
//! (kept in a [`PairCache`] that the caller owns per pair), with support queries that climb
//! from the previous support vertex. We use it because it asks only for a support function,
//! so spheres (a point plus a radius, exactly as the dissertation treats them) and hulls share
//! one code path and any convex primitive added later costs one function; because it has no
//! per-feature-pair case analysis to get wrong and does not cycle on the parallel and coplanar
//! configurations that make floating-point Lin–Canny fragile; and because when the shapes do
//! overlap it hands its final simplex straight to EPA for a penetration depth and direction,
//! which Lin–Canny cannot give (it only reports that the polyhedra intersect) and which live
//! mode needs to push bodies apart. The dissertation's contact normals are recovered from the
//! features GJK's final simplex rests on.

mod epa;
mod feature;
mod gjk;
mod posed;
mod simplex;
mod union;

pub use feature::Feature;
pub use union::{closest_between_shapes, ShapeContact, ShapePairCache};

use super::shape::Convex;
use nalgebra::{Isometry3, Vector3};
use posed::{Pair, Posed, SupportPoint, V3};

/// How two convex pieces stand to each other.
///
/// `point_b - point_a == distance * normal` in both cases: apart, the points are the closest
/// points; overlapping, they are the deepest points of each piece inside the other and
/// `-distance` is the penetration depth.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    /// Signed distance: positive apart, zero touching, negative by the penetration depth.
    pub distance: f64,
    pub point_a: Vector3<f64>,
    pub point_b: Vector3<f64>,
    /// Unit vector from A towards B. Apart: the dissertation's contact normal (a face normal
    /// when a face is the closest feature on either side, the vector between two closest
    /// vertices, the normal of two closest edges' plane, else the closest-point direction).
    /// Overlapping: the direction in which moving B by `-distance` separates the pieces.
    pub normal: Vector3<f64>,
    pub feature_a: Feature,
    pub feature_b: Feature,
}

impl Contact {
    /// True when the pieces touch or interpenetrate.
    pub fn intersecting(&self) -> bool {
        self.distance <= 0.0
    }
}

/// What one query between a pair of pieces leaves for the next: the support points its final
/// simplex rested on and the last support vertices. Owned by the caller, one per pair; a
/// fresh (default) cache gives a cold start. Stale or foreign contents are never wrong, only
/// slower.
#[derive(Clone, Debug, Default)]
pub struct PairCache {
    simplex: [(usize, usize); 4],
    len: usize,
    hint_a: usize,
    hint_b: usize,
}

impl PairCache {
    fn simplex(&self) -> &[(usize, usize)] {
        &self.simplex[..self.len]
    }

    fn remember(&mut self, points: &[SupportPoint], hint_a: usize, hint_b: usize) {
        self.len = points.len().min(4);
        for (slot, p) in self.simplex.iter_mut().zip(points) {
            *slot = (p.ia, p.ib);
        }
        self.hint_a = hint_a;
        self.hint_b = hint_b;
    }
}

/// How convex piece `b` placed at `pose_b` stands to `a` placed at `pose_a`.
pub fn closest(
    a: &Convex,
    pose_a: &Isometry3<f64>,
    b: &Convex,
    pose_b: &Isometry3<f64>,
    cache: &mut PairCache,
) -> Contact {
    if let (Convex::Sphere(sa), Convex::Sphere(sb)) = (a, b) {
        return between_spheres(
            &pose_a.translation.vector,
            sa.radius(),
            &pose_b.translation.vector,
            sb.radius(),
        );
    }
    let mut pair = Pair {
        a: Posed::new(a, pose_a),
        b: Posed::new(b, pose_b),
        hint_a: cache.hint_a,
        hint_b: cache.hint_b,
    };
    let (ra, rb) = (pair.a.radius(), pair.b.radius());
    match gjk::run(&mut pair, cache) {
        gjk::Outcome::Separated(s) => {
            let (ca, cb) = s.witnesses();
            let gap = (cb - ca).norm();
            let dir = (cb - ca) / gap;
            let weights = |pick: fn(&SupportPoint) -> usize| -> Vec<(usize, f64)> {
                s.points()
                    .iter()
                    .zip(s.weights())
                    .map(|(p, &w)| (pick(p), w))
                    .collect()
            };
            let feature_a = feature::classify(a, &weights(|p| p.ia));
            let feature_b = feature::classify(b, &weights(|p| p.ib));
            let distance = gap - ra - rb;
            let normal = if distance > 0.0 {
                feature::contact_normal(&pair.a, feature_a, &pair.b, feature_b, &dir)
            } else {
                // A sphere sunk into the other piece: its centre is still outside, and the
                // way out is straight away from the closest point.
                dir
            };
            Contact {
                distance,
                point_a: ca + dir * ra,
                point_b: cb - dir * rb,
                normal,
                feature_a,
                feature_b,
            }
        }
        gjk::Outcome::Overlapping(s) => match epa::run(&mut pair, &s) {
            Some(pen) => {
                let normal = -pen.normal;
                let (mut ca, mut cb) = (V3::zeros(), V3::zeros());
                for (p, &w) in pen.face.iter().zip(&pen.weights) {
                    ca += p.a * w;
                    cb += p.b * w;
                }
                let pick = |f: fn(&SupportPoint) -> usize| -> Vec<(usize, f64)> {
                    pen.face
                        .iter()
                        .zip(pen.weights)
                        .map(|(p, w)| (f(p), w))
                        .collect()
                };
                Contact {
                    distance: -(pen.depth + ra + rb),
                    point_a: ca + normal * ra,
                    point_b: cb - normal * rb,
                    normal,
                    feature_a: feature::classify(a, &pick(|p| p.ia)),
                    feature_b: feature::classify(b, &pick(|p| p.ib)),
                }
            }
            // A flat difference of cores (two points) has no penetration direction; two
            // spheres are answered before GJK, but any flat core is answered the same way.
            None => between_spheres(&pair.a.center(), ra, &pair.b.center(), rb),
        },
    }
}

/// Two spheres centred at `ca` and `cb`: apart or overlapping, the closest points lie on the
/// line of centres. This is what GJK finds for two points (its simplex is one point, its
/// witnesses the centres), written out: pairs of balls are most of a pile's queries.
fn between_spheres(ca: &V3, ra: f64, cb: &V3, rb: f64) -> Contact {
    let d = cb - ca;
    let gap = d.norm();
    // Coincident centres: every direction is as good.
    let normal = if gap > 0.0 { d / gap } else { V3::z() };
    Contact {
        distance: gap - ra - rb,
        point_a: ca + normal * ra,
        point_b: cb - normal * rb,
        normal,
        feature_a: Feature::Center,
        feature_b: Feature::Center,
    }
}

#[cfg(test)]
mod tests;
