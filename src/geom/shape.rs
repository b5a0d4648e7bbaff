//! Shapes as the simulator and editor see them: a rigid union of convex pieces (hulls and
//! spheres), each placed in the shape's frame (dissertation 4.1.1, `shape_set … desc {sub pos
//! {…} sphere R …}`).

use super::bounds::{Aabb, BoundingSphere};
use super::error::GeomError;
use super::hull::ConvexHull;
use super::mass::MassProperties;
use nalgebra::{Isometry3, Point3, Vector3};

/// A solid sphere centred on its piece's origin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sphere {
    radius: f64,
}

impl Sphere {
    pub fn new(radius: f64) -> Result<Sphere, GeomError> {
        if radius.is_finite() && radius > 0.0 {
            Ok(Sphere { radius })
        } else {
            Err(GeomError::InvalidRadius { radius })
        }
    }

    pub fn radius(&self) -> f64 {
        self.radius
    }
}

/// One convex solid.
#[derive(Clone, Debug)]
pub enum Convex {
    Hull(ConvexHull),
    Sphere(Sphere),
}

impl Convex {
    /// The convex hull of `points`.
    pub fn hull(points: &[Vector3<f64>]) -> Result<Convex, GeomError> {
        ConvexHull::new(points).map(Convex::Hull)
    }

    pub fn sphere(radius: f64) -> Result<Convex, GeomError> {
        Sphere::new(radius).map(Convex::Sphere)
    }

    /// A sphere around the solid in its own frame.
    pub fn bounding_sphere(&self) -> BoundingSphere {
        match self {
            Convex::Hull(h) => h.bounding_sphere(),
            Convex::Sphere(s) => BoundingSphere {
                center: Vector3::zeros(),
                radius: s.radius,
            },
        }
    }

    pub fn mass_properties(&self) -> MassProperties {
        match self {
            Convex::Hull(h) => MassProperties::of_hull(h),
            Convex::Sphere(s) => MassProperties::of_sphere(s.radius),
        }
    }

    /// The point of the solid placed at `pose` farthest along the world direction `dir`.
    pub fn support(&self, pose: &Isometry3<f64>, dir: &Vector3<f64>) -> Vector3<f64> {
        let local = pose.rotation.inverse_transform_vector(dir);
        let extreme = match self {
            Convex::Hull(h) => h.vertices()[h.support(&local)],
            Convex::Sphere(s) => match local.try_normalize(0.0) {
                Some(unit) => unit * s.radius,
                None => Vector3::zeros(),
            },
        };
        pose.rotation * extreme + pose.translation.vector
    }

    /// The exact box around the solid placed at `pose`.
    pub fn aabb(&self, pose: &Isometry3<f64>) -> Aabb {
        let mut min = Vector3::zeros();
        let mut max = Vector3::zeros();
        for k in 0..3 {
            let axis = Vector3::ith(k, 1.0);
            max[k] = self.support(pose, &axis)[k];
            min[k] = self.support(pose, &-axis)[k];
        }
        Aabb { min, max }
    }
}

/// A convex solid placed in a shape.
#[derive(Clone, Debug)]
pub struct Piece {
    convex: Convex,
    offset: Isometry3<f64>,
    bound: BoundingSphere,
}

impl Piece {
    /// `convex` placed by `offset` in the shape's frame (a `sub pos {…}` is a translation).
    pub fn new(convex: Convex, offset: Isometry3<f64>) -> Piece {
        let bound = convex.bounding_sphere().transformed(&offset);
        Piece {
            convex,
            offset,
            bound,
        }
    }

    pub fn convex(&self) -> &Convex {
        &self.convex
    }

    /// Where the piece sits in the shape's frame.
    pub fn offset(&self) -> &Isometry3<f64> {
        &self.offset
    }

    /// A sphere around the piece, in the shape's frame.
    pub fn bounding_sphere(&self) -> BoundingSphere {
        self.bound
    }
}

/// A rigid union of convex pieces: what a body's `shape` names.
#[derive(Clone, Debug)]
pub struct Shape {
    pieces: Vec<Piece>,
    bound: BoundingSphere,
}

impl Shape {
    pub fn new(pieces: Vec<Piece>) -> Result<Shape, GeomError> {
        if pieces.is_empty() {
            return Err(GeomError::EmptyShape);
        }
        let spheres: Vec<BoundingSphere> = pieces.iter().map(|p| p.bound).collect();
        Ok(Shape {
            bound: BoundingSphere::enclosing(&spheres),
            pieces,
        })
    }

    /// A shape of one piece at the shape's origin.
    pub fn single(convex: Convex) -> Shape {
        let piece = Piece::new(convex, Isometry3::identity());
        Shape {
            bound: piece.bound,
            pieces: vec![piece],
        }
    }

    pub fn pieces(&self) -> &[Piece] {
        &self.pieces
    }

    /// The point of the shape placed at `pose` farthest along the world direction `dir`.
    pub fn support(&self, pose: &Isometry3<f64>, dir: &Vector3<f64>) -> Vector3<f64> {
        self.pieces
            .iter()
            .map(|p| p.convex.support(&(pose * p.offset), dir))
            .max_by(|a, b| a.dot(dir).total_cmp(&b.dot(dir)))
            .unwrap_or(pose.translation.vector)
    }

    /// A sphere around the whole shape placed at `pose`.
    pub fn bounding_sphere(&self, pose: &Isometry3<f64>) -> BoundingSphere {
        self.bound.transformed(pose)
    }

    /// The exact box around the shape placed at `pose`.
    pub fn aabb(&self, pose: &Isometry3<f64>) -> Aabb {
        let mut boxes = self
            .pieces
            .iter()
            .map(|p| p.convex.aabb(&(pose * p.offset)));
        let first = boxes.next().unwrap_or(Aabb {
            min: pose.translation.vector,
            max: pose.translation.vector,
        });
        boxes.fold(first, |acc, b| acc.union(&b))
    }

    /// How fast the shape's surface can move per unit of angular speed when the shape turns
    /// about the point `about` (in the shape's frame): the distance to the farthest vertex,
    /// but for a sphere piece only that of its centre, since a sphere turning about its own
    /// centre does not move its surface. A rolling ball therefore approaches what it rolls on
    /// no faster than its centre does.
    pub fn spin_reach(&self, about: &Vector3<f64>) -> f64 {
        self.pieces
            .iter()
            .map(|p| match &p.convex {
                Convex::Sphere(_) => (p.offset.translation.vector - about).norm(),
                Convex::Hull(h) => h
                    .vertices()
                    .iter()
                    .map(|v| (p.offset * Point3::from(*v) - Point3::from(*about)).norm())
                    .fold(0.0, f64::max),
            })
            .fold(0.0, f64::max)
    }

    /// Mass properties of the union at unit density, in the shape's frame (overlapping
    /// pieces count their overlap once each).
    pub fn mass_properties(&self) -> MassProperties {
        let parts: Vec<MassProperties> = self
            .pieces
            .iter()
            .map(|p| p.convex.mass_properties().transformed(&p.offset))
            .collect();
        MassProperties::union(&parts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Translation3, UnitQuaternion};
    use std::f64::consts::PI;

    fn cube(half: f64) -> Convex {
        let mut pts = Vec::new();
        for i in 0..8 {
            let s = |k: usize| if i >> k & 1 == 1 { half } else { -half };
            pts.push(Vector3::new(s(0), s(1), s(2)));
        }
        Convex::hull(&pts).unwrap()
    }

    #[test]
    fn box_of_a_turned_cube() {
        let pose = Isometry3::from_parts(
            Translation3::new(1.0, 2.0, 3.0),
            UnitQuaternion::from_axis_angle(&Vector3::z_axis(), PI / 4.0),
        );
        let b = cube(0.5).aabb(&pose);
        let h = 0.5 * 2f64.sqrt();
        assert!((b.min - Vector3::new(1.0 - h, 2.0 - h, 2.5)).norm() < 1e-12);
        assert!((b.max - Vector3::new(1.0 + h, 2.0 + h, 3.5)).norm() < 1e-12);
    }

    #[test]
    fn union_bounds_cover_every_piece() {
        let shape = Shape::new(vec![
            Piece::new(cube(0.5), Translation3::new(-5.0, 0.0, 0.0).into()),
            Piece::new(
                Convex::sphere(1.0).unwrap(),
                Translation3::new(5.0, 0.0, 0.0).into(),
            ),
        ])
        .unwrap();
        let pose = Isometry3::translation(0.0, 10.0, 0.0);
        let b = shape.aabb(&pose);
        assert!((b.min - Vector3::new(-5.5, 9.0, -1.0)).norm() < 1e-12);
        assert!((b.max - Vector3::new(6.0, 11.0, 1.0)).norm() < 1e-12);
        let s = shape.bounding_sphere(&pose);
        for piece in shape.pieces() {
            let p = piece.bounding_sphere().transformed(&pose);
            assert!((p.center - s.center).norm() + p.radius <= s.radius + 1e-12);
        }
    }

    /// A unit ball whose centre is 3 above the centre of a cube of half-size 0.5.
    fn sphere_on_a_stick() -> Shape {
        Shape::new(vec![
            Piece::new(cube(0.5), Isometry3::identity()),
            Piece::new(
                Convex::sphere(1.0).unwrap(),
                Translation3::new(0.0, 3.0, 0.0).into(),
            ),
        ])
        .unwrap()
    }

    #[test]
    fn supports_of_a_sphere_on_a_stick() {
        let shape = sphere_on_a_stick();
        let quarter = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), PI / 2.0);
        let pose = Isometry3::from_parts(Translation3::new(1.0, 0.0, 0.0), quarter);
        // Turned a quarter about z, the sphere sits at (-2, 0, 0) and reaches x = -3.
        let far = shape.support(&pose, &-Vector3::x());
        assert!((far - Vector3::new(-3.0, 0.0, 0.0)).norm() < 1e-12);
        let up = shape.support(&pose, &Vector3::new(0.0, 1.0, 1.0));
        let expected = Vector3::new(-2.0, 0.0, 0.0) + Vector3::new(0.0, 1.0, 1.0).normalize();
        assert!((up - expected).norm() < 1e-12);
    }

    #[test]
    fn spin_moves_a_box_corner_but_not_a_ball_surface() {
        let ball = Shape::new(vec![Piece::new(
            Convex::sphere(1.0).unwrap(),
            Isometry3::identity(),
        )])
        .unwrap();
        assert_eq!(ball.spin_reach(&Vector3::zeros()), 0.0);
        assert_eq!(ball.spin_reach(&Vector3::new(0.0, 3.0, 4.0)), 5.0);
        let stick = sphere_on_a_stick();
        // About the cube's centre: the ball's centre, 3 away, beyond the cube's corners.
        assert!((stick.spin_reach(&Vector3::zeros()) - 3.0).abs() < 1e-12);
        let corner = 0.75f64.sqrt();
        let cube_only = Shape::new(vec![Piece::new(cube(0.5), Isometry3::identity())]).unwrap();
        assert!((cube_only.spin_reach(&Vector3::zeros()) - corner).abs() < 1e-12);
    }

    #[test]
    fn empty_shapes_and_bad_radii_are_refused() {
        assert_eq!(Shape::new(vec![]).unwrap_err(), GeomError::EmptyShape);
        assert_eq!(
            Convex::sphere(-1.0).unwrap_err().to_string(),
            "sphere radius must be a positive finite number, got -1"
        );
    }

    #[test]
    fn mass_of_a_shape_with_a_sphere_on_a_box() {
        let shape = Shape::new(vec![
            Piece::new(cube(0.5), Isometry3::identity()),
            Piece::new(
                Convex::sphere(0.5).unwrap(),
                Translation3::new(0.0, 2.0, 0.0).into(),
            ),
        ])
        .unwrap();
        let m = shape.mass_properties();
        let ms = PI / 6.0;
        assert!((m.mass - (1.0 + ms)).abs() < 1e-12);
        assert!((m.center.y - 2.0 * ms / (1.0 + ms)).abs() < 1e-12);
    }
}
