//! Ray casting for picking: which piece of a shape the line through the mouse meets first,
//! and where, so the editor can select a body or put a link's end point on its surface
//! (dissertation 4.1.6: "the nearest point on the surface of the shape that is covered by the
//! mouse position").

use super::error::GeomError;
use super::shape::{Convex, Shape};
use nalgebra::{Isometry3, Vector3};

/// A half-line: the points `origin + t · direction` for `t >= 0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    origin: Vector3<f64>,
    direction: Vector3<f64>,
}

impl Ray {
    /// `direction` need not be unit length; hit parameters are in its units.
    pub fn new(origin: Vector3<f64>, direction: Vector3<f64>) -> Result<Ray, GeomError> {
        let finite = |v: &Vector3<f64>| v.iter().all(|c| c.is_finite());
        if finite(&origin) && finite(&direction) && direction.norm_squared() > 0.0 {
            Ok(Ray { origin, direction })
        } else {
            Err(GeomError::InvalidRay)
        }
    }

    pub fn origin(&self) -> Vector3<f64> {
        self.origin
    }

    pub fn direction(&self) -> Vector3<f64> {
        self.direction
    }

    pub fn at(&self, t: f64) -> Vector3<f64> {
        self.origin + self.direction * t
    }

    fn to_local(self, pose: &Isometry3<f64>) -> Ray {
        Ray {
            origin: pose.inverse_transform_point(&self.origin.into()).coords,
            direction: pose.inverse_transform_vector(&self.direction),
        }
    }
}

/// Where a ray first meets a surface.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// Ray parameter of the hit.
    pub t: f64,
    pub point: Vector3<f64>,
    /// Outward unit surface normal at the hit, world axes.
    pub normal: Vector3<f64>,
    /// Index of the piece hit in [`Shape::pieces`] (0 for a single convex piece).
    pub piece: usize,
}

/// The first surface point of `convex` placed at `pose` along `ray`. A ray starting inside
/// meets the surface where it leaves.
pub fn cast_convex(ray: &Ray, convex: &Convex, pose: &Isometry3<f64>) -> Option<RayHit> {
    let local = ray.to_local(pose);
    let (t, normal) = match convex {
        Convex::Sphere(s) => hit_sphere(&local, s.radius())?,
        Convex::Hull(h) => {
            let planes = h.faces().iter().map(|f| (f.normal, f.offset));
            hit_planes(&local, planes)?
        }
    };
    Some(RayHit {
        t,
        point: ray.at(t),
        normal: pose.rotation * normal,
        piece: 0,
    })
}

/// The first surface point of any piece of `shape` placed at `pose` along `ray`; pieces whose
/// bounding spheres the ray misses, or meets only beyond the best hit, are skipped.
pub fn cast_shape(ray: &Ray, shape: &Shape, pose: &Isometry3<f64>) -> Option<RayHit> {
    let mut best: Option<RayHit> = None;
    for (k, piece) in shape.pieces().iter().enumerate() {
        let bound = piece.bounding_sphere().transformed(pose);
        let shifted = Ray {
            origin: ray.origin - bound.center,
            direction: ray.direction,
        };
        let Some((near, far)) = sphere_roots(&shifted, bound.radius) else {
            continue;
        };
        if far < 0.0 || best.is_some_and(|b| b.t < near) {
            continue;
        }
        if let Some(hit) = cast_convex(ray, piece.convex(), &(pose * piece.offset())) {
            if best.is_none_or(|b| hit.t < b.t) {
                best = Some(RayHit { piece: k, ..hit });
            }
        }
    }
    best
}

/// Parameters where the ray's line crosses a sphere of `radius` at the origin, nearer first.
fn sphere_roots(ray: &Ray, radius: f64) -> Option<(f64, f64)> {
    let (o, d) = (ray.origin, ray.direction);
    let a = d.norm_squared();
    let half_b = o.dot(&d);
    let c = o.norm_squared() - radius * radius;
    let disc = half_b * half_b - a * c;
    if disc < 0.0 {
        return None;
    }
    // One root without cancellation, the other from the product of the roots.
    let q = -(half_b + half_b.signum() * disc.sqrt());
    if q == 0.0 {
        return Some((0.0, 0.0));
    }
    let (x, y) = (q / a, c / q);
    Some((x.min(y), x.max(y)))
}

/// Ray against a sphere of `radius` at the origin: the first crossing with `t >= 0`.
fn hit_sphere(ray: &Ray, radius: f64) -> Option<(f64, Vector3<f64>)> {
    let (near, far) = sphere_roots(ray, radius)?;
    let t = if near >= 0.0 { near } else { far };
    if t < 0.0 {
        return None;
    }
    let p = ray.at(t);
    let n = p.norm();
    Some((
        t,
        if n > 0.0 {
            p / n
        } else {
            -ray.direction.normalize()
        },
    ))
}

/// Ray against the intersection of half-spaces `normal · x <= offset` (Cyrus–Beck clipping).
fn hit_planes(
    ray: &Ray,
    planes: impl Iterator<Item = (Vector3<f64>, f64)>,
) -> Option<(f64, Vector3<f64>)> {
    let (mut enter, mut leave) = (f64::NEG_INFINITY, f64::INFINITY);
    let (mut enter_normal, mut leave_normal) = (Vector3::zeros(), Vector3::zeros());
    for (n, offset) in planes {
        let towards = n.dot(&ray.direction);
        let room = offset - n.dot(&ray.origin);
        if towards == 0.0 {
            if room < 0.0 {
                return None;
            }
        } else if towards < 0.0 {
            let t = room / towards;
            if t > enter {
                enter = t;
                enter_normal = n;
            }
        } else {
            let t = room / towards;
            if t < leave {
                leave = t;
                leave_normal = n;
            }
        }
    }
    if enter > leave || leave < 0.0 {
        None
    } else if enter >= 0.0 {
        Some((enter, enter_normal))
    } else {
        Some((leave, leave_normal))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::shape::Piece;
    use nalgebra::{Translation3, UnitQuaternion};
    use std::f64::consts::FRAC_PI_4;

    fn cube() -> Convex {
        let mut pts = Vec::new();
        for i in 0..8 {
            let s = |k: usize| if i >> k & 1 == 1 { 0.5 } else { -0.5 };
            pts.push(Vector3::new(s(0), s(1), s(2)));
        }
        Convex::hull(&pts).unwrap()
    }

    fn ray(o: [f64; 3], d: [f64; 3]) -> Ray {
        Ray::new(Vector3::from(o), Vector3::from(d)).unwrap()
    }

    #[test]
    fn ray_into_a_cube_face() {
        let hit = cast_convex(
            &ray([-5.0, 0.2, 0.3], [2.0, 0.0, 0.0]),
            &cube(),
            &Isometry3::identity(),
        )
        .unwrap();
        assert!((hit.t - 2.25).abs() < 1e-12);
        assert!((hit.point - Vector3::new(-0.5, 0.2, 0.3)).norm() < 1e-12);
        assert!((hit.normal + Vector3::x()).norm() < 1e-12);
    }

    #[test]
    fn ray_into_a_turned_and_moved_cube() {
        let pose = Isometry3::from_parts(
            Translation3::new(10.0, 0.0, 0.0),
            UnitQuaternion::from_axis_angle(&Vector3::z_axis(), FRAC_PI_4),
        );
        // Straight down -x onto the corner edge at x = 10 + √2/2.
        let hit = cast_convex(&ray([20.0, 0.0, 0.1], [-1.0, 0.0, 0.0]), &cube(), &pose).unwrap();
        assert!((hit.point.x - (10.0 + 0.5 * 2f64.sqrt())).abs() < 1e-12);
        // Slightly off the edge along y: the face turned towards +x+y.
        let hit = cast_convex(&ray([20.0, 0.1, 0.0], [-1.0, 0.0, 0.0]), &cube(), &pose).unwrap();
        let n = Vector3::new(1.0, 1.0, 0.0).normalize();
        assert!((hit.normal - n).norm() < 1e-12);
        assert!((hit.point.x - (10.0 + 0.5 * 2f64.sqrt() - 0.1)).abs() < 1e-12);
    }

    #[test]
    fn misses_and_rays_pointing_away() {
        let id = Isometry3::identity();
        assert!(cast_convex(&ray([-5.0, 0.6, 0.0], [1.0, 0.0, 0.0]), &cube(), &id).is_none());
        assert!(cast_convex(&ray([-5.0, 0.0, 0.0], [-1.0, 0.0, 0.0]), &cube(), &id).is_none());
        let ball = Convex::sphere(1.0).unwrap();
        assert!(cast_convex(&ray([-5.0, 1.01, 0.0], [1.0, 0.0, 0.0]), &ball, &id).is_none());
        assert_eq!(
            Ray::new(Vector3::zeros(), Vector3::zeros()),
            Err(GeomError::InvalidRay)
        );
    }

    #[test]
    fn ray_into_a_sphere_and_out_of_one() {
        let ball = Convex::sphere(2.0).unwrap();
        let pose = Isometry3::translation(0.0, 0.0, 5.0);
        let hit = cast_convex(&ray([0.0, 1.2, -5.0], [0.0, 0.0, 1.0]), &ball, &pose).unwrap();
        // z where y = 1.2 meets the sphere: 5 - √(4 - 1.44) = 3.4.
        assert!((hit.t - 8.4).abs() < 1e-12);
        assert!((hit.normal - Vector3::new(0.0, 0.6, -0.8)).norm() < 1e-12);
        let inside = cast_convex(&ray([0.0, 0.0, 5.0], [1.0, 0.0, 0.0]), &ball, &pose).unwrap();
        assert!((inside.t - 2.0).abs() < 1e-12);
        assert!((inside.normal - Vector3::x()).norm() < 1e-12);
    }

    #[test]
    fn nearest_piece_of_a_union() {
        let shape = Shape::new(vec![
            Piece::new(cube(), Translation3::new(5.0, 0.0, 0.0).into()),
            Piece::new(
                Convex::sphere(0.5).unwrap(),
                Translation3::new(2.0, 0.0, 0.0).into(),
            ),
            Piece::new(cube(), Translation3::new(0.0, 3.0, 0.0).into()),
        ])
        .unwrap();
        let pose = Isometry3::translation(0.0, 0.0, 1.0);
        let hit = cast_shape(&ray([10.0, 0.0, 1.0], [-1.0, 0.0, 0.0]), &shape, &pose).unwrap();
        assert_eq!(hit.piece, 0);
        assert!((hit.t - 4.5).abs() < 1e-12);
        let hit = cast_shape(&ray([10.0, 0.45, 1.2], [-1.0, 0.0, 0.0]), &shape, &pose).unwrap();
        assert_eq!(hit.piece, 0);
        let hit = cast_shape(&ray([2.0, 0.0, 10.0], [0.0, 0.0, -1.0]), &shape, &pose).unwrap();
        assert_eq!(hit.piece, 1);
        assert!((hit.point - Vector3::new(2.0, 0.0, 1.5)).norm() < 1e-12);
        assert!(cast_shape(&ray([2.0, 1.5, 10.0], [0.0, 0.0, -1.0]), &shape, &pose).is_none());
    }
}
