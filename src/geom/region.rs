//! The contact region of two touching convex pieces: the corners of the patch over which a
//! face or an edge of one lies against the other.
//!
//! A distance query names one closest point. That is enough for a collision, which happens at
//! a point, but not for a body resting flat on another: pushed at one point of a face, a brick
//! pivots about it and presses in with the rest of the face. The region is found by clipping:
//! each piece's vertices within a slack of its extreme along the contact normal (a face, an
//! edge or a vertex) are projected onto the contact plane, and the two convex outlines are
//! intersected. A rigid body's velocity is linear in the point, so a region whose corners do
//! not approach does not approach anywhere.

use super::distance::Contact;
use super::shape::{Convex, Piece};
use nalgebra::{Isometry3, Point3, Vector2, Vector3};

/// Points of a region closer than this fraction of the slack are one corner.
const MERGE_FRACTION: f64 = 1e-3;

/// The corners of the region over which `a` and `b`, placed by their shapes' poses and
/// touching as `contact` says, lie against each other, on the plane midway between their
/// surfaces. Vertices less than `slack` short of a piece's extreme along the normal count as
/// lying on it, so that a face tilted by a little less rests flat. A sphere, or outlines that
/// meet only at a point, give the contact's own point.
pub fn contact_region(
    a: &Piece,
    pose_a: &Isometry3<f64>,
    b: &Piece,
    pose_b: &Isometry3<f64>,
    contact: &Contact,
    slack: f64,
) -> Vec<Vector3<f64>> {
    let n = contact.normal;
    let middle = (contact.point_a + contact.point_b) / 2.0;
    let (Some(outline_a), Some(outline_b)) = (
        extreme_vertices(a, &(pose_a * a.offset()), &n, slack),
        extreme_vertices(b, &(pose_b * b.offset()), &-n, slack),
    ) else {
        return vec![middle];
    };
    let (u, w) = plane_basis(&n);
    let flat = |points: &[Vector3<f64>]| -> Vec<Vector2<f64>> {
        let flat: Vec<Vector2<f64>> = points
            .iter()
            .map(|p| Vector2::new((p - middle).dot(&u), (p - middle).dot(&w)))
            .collect();
        convex_outline(flat)
    };
    let (pa, pb) = (flat(&outline_a), flat(&outline_b));
    let clipped = if pa.len() >= 3 {
        clip(&pb, &pa)
    } else if pb.len() >= 3 {
        clip(&pa, &pb)
    } else {
        Vec::new()
    };
    let mut corners: Vec<Vector2<f64>> = Vec::new();
    for p in clipped {
        if corners
            .iter()
            .all(|q| (p - q).norm() > MERGE_FRACTION * slack)
        {
            corners.push(p);
        }
    }
    if corners.len() < 2 {
        return vec![middle];
    }
    corners
        .into_iter()
        .map(|p| middle + u * p.x + w * p.y)
        .collect()
}

/// The world positions of the hull vertices of `piece` (at `pose`) within `slack` of its
/// extreme along `dir`; `None` for a sphere, which touches at a point.
fn extreme_vertices(
    piece: &Piece,
    pose: &Isometry3<f64>,
    dir: &Vector3<f64>,
    slack: f64,
) -> Option<Vec<Vector3<f64>>> {
    let Convex::Hull(hull) = piece.convex() else {
        return None;
    };
    let world: Vec<Vector3<f64>> = hull
        .vertices()
        .iter()
        .map(|v| pose.transform_point(&Point3::from(*v)).coords)
        .collect();
    let top = world
        .iter()
        .map(|p| p.dot(dir))
        .fold(f64::NEG_INFINITY, f64::max);
    Some(
        world
            .into_iter()
            .filter(|p| p.dot(dir) >= top - slack)
            .collect(),
    )
}

/// Two unit vectors that span the plane normal to the unit vector `n`.
pub(crate) fn plane_basis(n: &Vector3<f64>) -> (Vector3<f64>, Vector3<f64>) {
    let helper = if n.x.abs() < 0.6 {
        Vector3::x()
    } else {
        Vector3::y()
    };
    let u = n.cross(&helper).normalize();
    (u, n.cross(&u))
}

/// The convex hull of `points`, counter-clockwise, without collinear points (Andrew's monotone
/// chain): one point, the two ends of a segment, or a polygon.
fn convex_outline(mut points: Vec<Vector2<f64>>) -> Vec<Vector2<f64>> {
    points.sort_by(|p, q| p.x.total_cmp(&q.x).then(p.y.total_cmp(&q.y)));
    points.dedup();
    if points.len() < 3 {
        return points;
    }
    let mut hull: Vec<Vector2<f64>> = Vec::with_capacity(2 * points.len());
    for pass in 0..2 {
        let start = hull.len();
        let ordered: Box<dyn Iterator<Item = &Vector2<f64>>> = if pass == 0 {
            Box::new(points.iter())
        } else {
            Box::new(points.iter().rev())
        };
        for &p in ordered {
            while hull.len() >= start + 2
                && cross(&hull[hull.len() - 2], &hull[hull.len() - 1], &p) <= 0.0
            {
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop();
    }
    hull
}

/// Twice the signed area of the triangle `o, a, b` (positive when counter-clockwise).
fn cross(o: &Vector2<f64>, a: &Vector2<f64>, b: &Vector2<f64>) -> f64 {
    (a - o).perp(&(b - o))
}

/// The part of `subject` (a point, a segment or a convex polygon) inside the convex,
/// counter-clockwise polygon `clipper` (Sutherland–Hodgman).
fn clip(subject: &[Vector2<f64>], clipper: &[Vector2<f64>]) -> Vec<Vector2<f64>> {
    let mut out: Vec<Vector2<f64>> = subject.to_vec();
    for k in 0..clipper.len() {
        if out.is_empty() {
            break;
        }
        let (e0, e1) = (clipper[k], clipper[(k + 1) % clipper.len()]);
        let inside = |p: &Vector2<f64>| cross(&e0, &e1, p) >= 0.0;
        let input = std::mem::take(&mut out);
        // A segment is not a closed loop: its two ends are joined once.
        let edges = if input.len() == 2 { 1 } else { input.len() };
        if input.len() == 1 {
            if inside(&input[0]) {
                out.push(input[0]);
            }
            continue;
        }
        for i in 0..edges {
            let (p, q) = (input[i], input[(i + 1) % input.len()]);
            let (pin, qin) = (inside(&p), inside(&q));
            if pin {
                out.push(p);
            }
            if pin != qin {
                let (dp, dq) = (cross(&e0, &e1, &p), cross(&e0, &e1, &q));
                out.push(p + (q - p) * (dp / (dp - dq)));
            }
            if input.len() == 2 && qin {
                out.push(q);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::distance::{closest, PairCache};
    use nalgebra::{Translation3, UnitQuaternion};

    fn cuboid(half: Vector3<f64>) -> Piece {
        let mut corners = Vec::new();
        for x in [-1.0, 1.0] {
            for y in [-1.0, 1.0] {
                for z in [-1.0, 1.0] {
                    corners.push(Vector3::new(x * half.x, y * half.y, z * half.z));
                }
            }
        }
        Piece::new(Convex::hull(&corners).unwrap(), Isometry3::identity())
    }

    fn region(a: &Piece, pa: Isometry3<f64>, b: &Piece, pb: Isometry3<f64>) -> Vec<Vector3<f64>> {
        let contact = closest(a.convex(), &pa, b.convex(), &pb, &mut PairCache::default());
        contact_region(a, &pa, b, &pb, &contact, 1e-3)
    }

    fn sorted(mut points: Vec<Vector3<f64>>) -> Vec<[i64; 3]> {
        let mut keys: Vec<[i64; 3]> = points
            .drain(..)
            .map(|p| [0, 1, 2].map(|k| (p[k] * 1e6).round() as i64))
            .collect();
        keys.sort();
        keys
    }

    #[test]
    fn a_brick_lying_across_another_touches_it_over_their_overlap() {
        let brick = cuboid(Vector3::new(0.2, 0.1, 0.1));
        let below = Isometry3::identity();
        // Shifted half a brick along x and resting a hair above: the overlap is 0.2 by 0.2.
        let above = Isometry3::from_parts(
            Translation3::new(0.2, 0.2 + 1e-9, 0.0),
            UnitQuaternion::identity(),
        );
        let corners = sorted(region(&brick, below, &brick, above));
        let y = 100_000; // 0.1 m, midway between the faces to the rounding
        assert_eq!(
            corners,
            vec![
                [0, y, -100_000],
                [0, y, 100_000],
                [200_000, y, -100_000],
                [200_000, y, 100_000]
            ]
        );
    }

    #[test]
    fn a_slightly_tilted_face_within_the_slack_rests_flat() {
        let brick = cuboid(Vector3::new(0.2, 0.1, 0.1));
        let tilt = UnitQuaternion::from_euler_angles(0.0, 0.0, 1e-3);
        let floor = cuboid(Vector3::new(2.0, 0.1, 2.0));
        let above = Isometry3::from_parts(Translation3::new(0.0, 0.2 + 2.1e-4, 0.0), tilt);
        let corners = region(&floor, Isometry3::identity(), &brick, above);
        assert_eq!(corners.len(), 4, "{corners:?}");
    }

    #[test]
    fn a_brick_on_its_edge_touches_along_the_edge() {
        let brick = cuboid(Vector3::new(0.2, 0.1, 0.1));
        let floor = cuboid(Vector3::new(2.0, 0.1, 2.0));
        let tilt = UnitQuaternion::from_euler_angles(0.3, 0.0, 0.0);
        let lowest: f64 = (tilt * Vector3::<f64>::new(0.0, -0.1, -0.1))
            .y
            .min((tilt * Vector3::new(0.0, -0.1, 0.1)).y);
        let above = Isometry3::from_parts(Translation3::new(0.0, 0.1 - lowest + 1e-9, 0.0), tilt);
        let corners = region(&floor, Isometry3::identity(), &brick, above);
        assert_eq!(corners.len(), 2, "{corners:?}");
        assert!(((corners[0] - corners[1]).norm() - 0.4).abs() < 1e-6);
    }

    #[test]
    fn a_sphere_touches_at_a_point() {
        let ball = Piece::new(Convex::sphere(0.5).unwrap(), Isometry3::identity());
        let floor = cuboid(Vector3::new(2.0, 0.1, 2.0));
        let above = Isometry3::translation(0.3, 0.6, 0.0);
        let corners = region(&floor, Isometry3::identity(), &ball, above);
        assert_eq!(corners.len(), 1);
        assert!((corners[0] - Vector3::new(0.3, 0.1, 0.0)).norm() < 1e-6);
    }

    #[test]
    fn crossing_edges_touch_at_a_point() {
        let bar = cuboid(Vector3::new(0.5, 0.05, 0.05));
        let roll = UnitQuaternion::from_euler_angles(std::f64::consts::FRAC_PI_4, 0.0, 0.0);
        let below = Isometry3::from_parts(Translation3::identity(), roll);
        let across =
            UnitQuaternion::from_euler_angles(0.0, std::f64::consts::FRAC_PI_2, 0.0) * roll;
        let height = 2.0 * 0.05 * std::f64::consts::SQRT_2;
        let above = Isometry3::from_parts(Translation3::new(0.0, height + 1e-9, 0.0), across);
        let corners = region(&bar, below, &bar, above);
        assert_eq!(corners.len(), 1, "{corners:?}");
    }
}
