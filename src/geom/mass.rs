//! Mass, centre of mass and inertia tensor of shapes at unit density (dissertation 4.1.1: a
//! body's mass properties come from its shape unless the scene gives them).

use super::error::GeomError;
use super::hull::ConvexHull;
use nalgebra::{Isometry3, Matrix3, Vector3};
use std::f64::consts::PI;

/// Mass properties of a solid.
///
/// Built at unit density, so `mass` is also the volume; [`MassProperties::with_mass`] rescales
/// to a given mass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MassProperties {
    pub mass: f64,
    /// Centre of mass, in the frame the shape was described in.
    pub center: Vector3<f64>,
    /// Inertia tensor about `center`, axes of the same frame.
    pub inertia: Matrix3<f64>,
}

impl MassProperties {
    /// A convex polyhedron, exactly: the hull is cut into tetrahedra from an inner point to
    /// each face's triangles and their volumes and second moments summed.
    pub fn of_hull(hull: &ConvexHull) -> MassProperties {
        let verts = hull.vertices();
        let reference = verts.iter().sum::<Vector3<f64>>() / verts.len().max(1) as f64;
        // Second moments ∫ x xᵀ of the tetrahedron (0, e1, e2, e3).
        let canonical = Matrix3::new(2.0, 1.0, 1.0, 1.0, 2.0, 1.0, 1.0, 1.0, 2.0) / 120.0;
        let mut six_volume = 0.0;
        let mut moment = Vector3::zeros(); // 24 × first moment
        let mut second = Matrix3::zeros(); // ∫ x xᵀ about `reference`
        for face in hull.faces() {
            let a = verts[face.vertices[0]] - reference;
            for k in 1..face.vertices.len().saturating_sub(1) {
                let b = verts[face.vertices[k]] - reference;
                let c = verts[face.vertices[k + 1]] - reference;
                let m = Matrix3::from_columns(&[a, b, c]);
                let det = m.determinant();
                six_volume += det;
                moment += (a + b + c) * det;
                second += m * canonical * m.transpose() * det;
            }
        }
        let volume = six_volume / 6.0;
        let offset = moment / (4.0 * six_volume);
        let about_center = second - offset * offset.transpose() * volume;
        MassProperties {
            mass: volume,
            center: reference + offset,
            inertia: inertia_from_second_moments(&about_center),
        }
    }

    /// A solid sphere of `radius` centred on the origin.
    pub(crate) fn of_sphere(radius: f64) -> MassProperties {
        let mass = 4.0 / 3.0 * PI * radius.powi(3);
        MassProperties {
            mass,
            center: Vector3::zeros(),
            inertia: Matrix3::identity() * (0.4 * mass * radius * radius),
        }
    }

    /// The same solid placed by `offset` (a part's position and orientation in its shape).
    pub fn transformed(&self, offset: &Isometry3<f64>) -> MassProperties {
        let r = offset.rotation.to_rotation_matrix();
        MassProperties {
            mass: self.mass,
            center: offset.rotation * self.center + offset.translation.vector,
            inertia: r.matrix() * self.inertia * r.matrix().transpose(),
        }
    }

    /// Several solids in one frame taken as one rigid body (parallel-axis theorem).
    ///
    /// Where parts overlap, the overlap counts once per part, as if the parts were separate
    /// solids welded together. No parts give a massless body at the origin.
    pub fn union(parts: &[MassProperties]) -> MassProperties {
        let mass: f64 = parts.iter().map(|p| p.mass).sum();
        let center = if mass > 0.0 {
            parts
                .iter()
                .map(|p| p.center * p.mass)
                .sum::<Vector3<f64>>()
                / mass
        } else {
            Vector3::zeros()
        };
        let inertia = parts
            .iter()
            .map(|p| {
                let d = p.center - center;
                p.inertia + (Matrix3::identity() * d.norm_squared() - d * d.transpose()) * p.mass
            })
            .sum();
        MassProperties {
            mass,
            center,
            inertia,
        }
    }

    /// The same body with its density scaled so that it weighs `mass`.
    pub fn with_mass(&self, mass: f64) -> Result<MassProperties, GeomError> {
        if !(mass.is_finite() && mass > 0.0) || self.mass <= 0.0 {
            return Err(GeomError::InvalidMass { mass });
        }
        let scale = mass / self.mass;
        Ok(MassProperties {
            mass,
            center: self.center,
            inertia: self.inertia * scale,
        })
    }
}

/// I = tr(C)·1 − C for second moments C = ∫ x xᵀ dm.
fn inertia_from_second_moments(c: &Matrix3<f64>) -> Matrix3<f64> {
    Matrix3::identity() * c.trace() - c
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Translation3, UnitQuaternion};

    fn box_hull(size: Vector3<f64>, center: Vector3<f64>) -> ConvexHull {
        let mut pts = Vec::new();
        for i in 0..8 {
            let s = |k: usize| if i >> k & 1 == 1 { 0.5 } else { -0.5 };
            pts.push(center + Vector3::new(s(0) * size.x, s(1) * size.y, s(2) * size.z));
        }
        ConvexHull::new(&pts).unwrap()
    }

    fn box_inertia(m: f64, s: Vector3<f64>) -> Matrix3<f64> {
        Matrix3::from_diagonal(&Vector3::new(
            m * (s.y * s.y + s.z * s.z) / 12.0,
            m * (s.x * s.x + s.z * s.z) / 12.0,
            m * (s.x * s.x + s.y * s.y) / 12.0,
        ))
    }

    fn assert_close(a: &Matrix3<f64>, b: &Matrix3<f64>, tol: f64) {
        assert!((a - b).abs().max() <= tol, "{a} vs {b}");
    }

    #[test]
    fn box_off_the_origin() {
        let size = Vector3::new(2.0, 3.0, 4.0);
        let center = Vector3::new(1.0, -2.0, 5.0);
        let m = MassProperties::of_hull(&box_hull(size, center));
        assert!((m.mass - 24.0).abs() < 1e-12);
        assert!((m.center - center).norm() < 1e-12);
        assert_close(&m.inertia, &box_inertia(24.0, size), 1e-12);
    }

    #[test]
    fn pendulum_rod_is_a_ten_by_one_by_one_box() {
        let size = Vector3::new(10.0, 1.0, 1.0);
        let m = MassProperties::of_hull(&box_hull(size, Vector3::zeros()))
            .with_mass(10.0)
            .unwrap();
        assert!((m.mass - 10.0).abs() < 1e-12);
        assert_close(
            &m.inertia,
            &Matrix3::from_diagonal(&Vector3::new(10.0 / 6.0, 1010.0 / 12.0, 1010.0 / 12.0)),
            1e-11,
        );
    }

    #[test]
    fn sphere() {
        let m = MassProperties::of_sphere(0.5);
        let mass = 4.0 / 3.0 * PI * 0.125;
        assert!((m.mass - mass).abs() < 1e-15);
        assert_close(
            &m.inertia,
            &(Matrix3::identity() * 0.4 * mass * 0.25),
            1e-15,
        );
    }

    #[test]
    fn two_offset_boxes_obey_the_parallel_axis_theorem() {
        // Unit cubes centred at (±1, 0, 0): mass 2, centre 0, Iyy = Izz = 2(1/6 + 1).
        let cube = MassProperties::of_hull(&box_hull(Vector3::repeat(1.0), Vector3::zeros()));
        let parts = [
            cube.transformed(&Translation3::new(1.0, 0.0, 0.0).into()),
            cube.transformed(&Translation3::new(-1.0, 0.0, 0.0).into()),
        ];
        let u = MassProperties::union(&parts);
        assert!((u.mass - 2.0).abs() < 1e-12);
        assert!(u.center.norm() < 1e-12);
        let expected = Matrix3::from_diagonal(&Vector3::new(1.0 / 3.0, 7.0 / 3.0, 7.0 / 3.0));
        assert_close(&u.inertia, &expected, 1e-12);
    }

    #[test]
    fn rotating_a_part_rotates_its_tensor() {
        let size = Vector3::new(10.0, 1.0, 1.0);
        let rod = MassProperties::of_hull(&box_hull(size, Vector3::zeros()));
        let quarter = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), PI / 2.0);
        let turned = rod.transformed(&Isometry3::from_parts(Translation3::identity(), quarter));
        let expected = box_hull(Vector3::new(1.0, 10.0, 1.0), Vector3::zeros());
        assert_close(
            &turned.inertia,
            &MassProperties::of_hull(&expected).inertia,
            1e-10,
        );
    }

    #[test]
    fn hull_of_a_tetrahedron_matches_the_closed_form() {
        // Corner tetrahedron (0, e1, e2, e3): V = 1/6, centre 1/4, products of inertia.
        let pts = [Vector3::zeros(), Vector3::x(), Vector3::y(), Vector3::z()];
        let m = MassProperties::of_hull(&ConvexHull::new(&pts).unwrap());
        assert!((m.mass - 1.0 / 6.0).abs() < 1e-15);
        assert!((m.center - Vector3::repeat(0.25)).norm() < 1e-15);
        // About the corner: ∫x² = 1/60, ∫xy = 1/120; shift by V c cᵀ.
        let c = Matrix3::from_element(1.0 / 120.0) + Matrix3::identity() / 120.0
            - Matrix3::from_element(1.0 / 96.0);
        assert_close(&m.inertia, &inertia_from_second_moments(&c), 1e-15);
    }

    #[test]
    fn bad_masses_are_refused() {
        let m = MassProperties::of_sphere(1.0);
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(matches!(
                m.with_mass(bad),
                Err(GeomError::InvalidMass { .. })
            ));
        }
    }
}
