use super::*;
use crate::geom::shape::{Piece, Shape};
use nalgebra::{Translation3, UnitQuaternion};
use std::f64::consts::{FRAC_PI_4, SQRT_2};

fn cube() -> Convex {
    let mut pts = Vec::new();
    for i in 0..8 {
        let s = |k: usize| if i >> k & 1 == 1 { 0.5 } else { -0.5 };
        pts.push(Vector3::new(s(0), s(1), s(2)));
    }
    Convex::hull(&pts).unwrap()
}

fn pose(x: f64, y: f64, z: f64, rot: UnitQuaternion<f64>) -> Isometry3<f64> {
    Isometry3::from_parts(Translation3::new(x, y, z), rot)
}

fn at(x: f64, y: f64, z: f64) -> Isometry3<f64> {
    pose(x, y, z, UnitQuaternion::identity())
}

fn query(a: &Convex, pa: &Isometry3<f64>, b: &Convex, pb: &Isometry3<f64>) -> Contact {
    closest(a, pa, b, pb, &mut PairCache::default())
}

fn assert_vec(a: &Vector3<f64>, b: &Vector3<f64>, tol: f64) {
    assert!((a - b).norm() <= tol, "{a:?} vs {b:?}");
}

fn is_face(f: Feature) -> bool {
    matches!(f, Feature::Face(_))
}

#[test]
fn face_to_face_uses_the_face_normal() {
    let c = query(&cube(), &at(0.0, 0.0, 0.0), &cube(), &at(2.0, 0.3, -0.2));
    assert!((c.distance - 1.0).abs() < 1e-12);
    assert_vec(&c.normal, &Vector3::x(), 1e-12);
    assert!(is_face(c.feature_a) || is_face(c.feature_b), "{c:?}");
    assert_vec(&(c.point_b - c.point_a), &(c.normal * c.distance), 1e-12);
}

#[test]
fn face_normal_wins_over_the_closest_point_vector() {
    // B's corner hovers just off A's top face; at this range the closest-point vector is
    // rounding noise in any direction, but the face normal is exact.
    let tilt = UnitQuaternion::from_axis_angle(&Vector3::x_axis(), 0.3)
        * UnitQuaternion::from_axis_angle(&Vector3::z_axis(), 0.2);
    let mut lowest = Vector3::zeros();
    for i in 0..8 {
        let s = |k: usize| if i >> k & 1 == 1 { 0.5 } else { -0.5 };
        let v = tilt * Vector3::new(s(0), s(1), s(2));
        if v.y < lowest.y {
            lowest = v;
        }
    }
    let b = pose(0.1 - lowest.x, 0.5 + 1e-9 - lowest.y, 0.05 - lowest.z, tilt);
    let c = query(&cube(), &at(0.0, 0.0, 0.0), &cube(), &b);
    assert!((c.distance - 1e-9).abs() < 1e-12, "{}", c.distance);
    assert!(is_face(c.feature_a));
    assert!(matches!(c.feature_b, Feature::Vertex(_)));
    assert_eq!(c.normal, Vector3::y());
}

#[test]
fn vertex_to_vertex_uses_the_vector_between_them() {
    // Both cubes turned so a corner points along ±x.
    let diagonal = Vector3::repeat(1.0);
    let corner_out = UnitQuaternion::rotation_between(&diagonal, &Vector3::x()).unwrap();
    let corner_in = UnitQuaternion::rotation_between(&diagonal, &-Vector3::x()).unwrap();
    let half_diagonal = 3f64.sqrt() / 2.0;
    let c = query(
        &cube(),
        &pose(0.0, 0.0, 0.0, corner_out),
        &cube(),
        &pose(3.0, 0.0, 0.0, corner_in),
    );
    assert!(
        (c.distance - (3.0 - 2.0 * half_diagonal)).abs() < 1e-9,
        "{c:?}"
    );
    assert!(matches!(c.feature_a, Feature::Vertex(_)), "{c:?}");
    assert!(matches!(c.feature_b, Feature::Vertex(_)), "{c:?}");
    assert_vec(&c.normal, &Vector3::x(), 1e-9);
}

#[test]
fn crossed_edges_use_the_normal_of_their_plane() {
    let a = pose(
        0.0,
        0.0,
        0.0,
        UnitQuaternion::from_axis_angle(&Vector3::z_axis(), FRAC_PI_4),
    );
    let b = pose(
        2.0,
        0.0,
        0.0,
        UnitQuaternion::from_axis_angle(&Vector3::y_axis(), FRAC_PI_4),
    );
    let c = query(&cube(), &a, &cube(), &b);
    assert!((c.distance - (2.0 - SQRT_2)).abs() < 1e-12, "{c:?}");
    assert!(matches!(c.feature_a, Feature::Edge(_)), "{c:?}");
    assert!(matches!(c.feature_b, Feature::Edge(_)), "{c:?}");
    assert_vec(&c.normal, &Vector3::x(), 1e-12);
}

#[test]
fn parallel_edges_fall_back_to_the_closest_point_vector() {
    let turn = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), FRAC_PI_4);
    let c = query(
        &cube(),
        &pose(0.0, 0.0, 0.0, turn),
        &cube(),
        &pose(2.0, 0.0, 0.4, turn),
    );
    // The nearest edges are both along z and overlap in z: no plane, so the closest points decide.
    assert!(matches!(c.feature_a, Feature::Edge(_)), "{c:?}");
    assert!(matches!(c.feature_b, Feature::Edge(_)), "{c:?}");
    assert!((c.distance - (2.0 - SQRT_2)).abs() < 1e-12, "{c:?}");
    assert_vec(&c.normal, &(c.point_b - c.point_a).normalize(), 1e-9);
}

#[test]
fn spheres_are_points_with_a_radius() {
    let ball = Convex::sphere(0.25).unwrap();
    // Against a face.
    let c = query(&cube(), &at(0.0, 0.0, 0.0), &ball, &at(2.0, 0.1, 0.2));
    assert!((c.distance - 1.25).abs() < 1e-12);
    assert!(is_face(c.feature_a));
    assert_eq!(c.feature_b, Feature::Center);
    assert_vec(&c.normal, &Vector3::x(), 1e-12);
    assert_vec(&c.point_b, &Vector3::new(1.75, 0.1, 0.2), 1e-12);
    // Against a corner: the vector from the corner to the centre.
    let c = query(&cube(), &at(0.0, 0.0, 0.0), &ball, &at(1.5, 1.5, 1.5));
    assert!(matches!(c.feature_a, Feature::Vertex(_)));
    assert_vec(&c.normal, &Vector3::repeat(1.0).normalize(), 1e-12);
    assert!((c.distance - (3f64.sqrt() - 0.25)).abs() < 1e-12);
    // Sphere against sphere.
    let big = Convex::sphere(1.0).unwrap();
    let c = query(&big, &at(1.0, 1.0, 1.0), &ball, &at(1.0, 4.0, 5.0));
    assert!((c.distance - 3.75).abs() < 1e-12);
    assert_vec(&c.normal, &Vector3::new(0.0, 0.6, 0.8), 1e-12);
}

#[test]
fn overlapping_boxes_report_depth_and_direction() {
    let c = query(&cube(), &at(0.0, 0.0, 0.0), &cube(), &at(0.8, 0.1, -0.05));
    assert!(c.intersecting());
    assert!((c.distance + 0.2).abs() < 1e-9, "{c:?}");
    assert_vec(&c.normal, &Vector3::x(), 1e-9);
    assert_vec(&(c.point_b - c.point_a), &(c.normal * c.distance), 1e-9);
}

#[test]
fn a_sphere_sunk_into_a_box() {
    let ball = Convex::sphere(0.5).unwrap();
    // Centre outside the box: depth from the closest point.
    let c = query(&cube(), &at(0.0, 0.0, 0.0), &ball, &at(0.0, 0.0, 0.9));
    assert!((c.distance + 0.1).abs() < 1e-12);
    assert_vec(&c.normal, &Vector3::z(), 1e-12);
    // Centre inside the box: EPA finds the nearest face, the radius is added.
    let c = query(&cube(), &at(0.0, 0.0, 0.0), &ball, &at(0.3, 0.0, 0.1));
    assert!((c.distance + 0.7).abs() < 1e-9, "{c:?}");
    assert_vec(&c.normal, &Vector3::x(), 1e-9);
    // Concentric spheres.
    let c = query(&ball, &at(1.0, 2.0, 3.0), &ball, &at(1.0, 2.0, 3.0));
    assert!((c.distance + 1.0).abs() < 1e-12);
}

#[test]
fn touching_boxes_are_intersecting_at_depth_zero() {
    let c = query(&cube(), &at(0.0, 0.0, 0.0), &cube(), &at(1.0, 0.5, 0.0));
    assert!(c.intersecting());
    assert!(c.distance.abs() < 1e-9, "{c:?}");
    assert!(c.normal.x > 0.999, "{c:?}");
}

#[test]
fn warm_start_agrees_with_cold_start_along_a_motion() {
    let mut warm = PairCache::default();
    let a = cube();
    let b = cube();
    for step in 0..200 {
        let t = step as f64 * 0.02;
        let pa = pose(
            0.0,
            0.0,
            0.0,
            UnitQuaternion::from_euler_angles(t, 0.3 * t, 0.0),
        );
        let pb = pose(
            3.0 - t,
            0.2 * t.sin(),
            0.1,
            UnitQuaternion::from_euler_angles(0.0, t, 0.5 * t),
        );
        let hot = closest(&a, &pa, &b, &pb, &mut warm);
        let cold = query(&a, &pa, &b, &pb);
        assert!(
            (hot.distance - cold.distance).abs() < 1e-9,
            "step {step}: {} vs {}",
            hot.distance,
            cold.distance
        );
    }
}

#[test]
fn a_cache_from_another_pair_only_costs_time() {
    let ball = Convex::sphere(1.0).unwrap();
    let mut cache = PairCache::default();
    closest(
        &cube(),
        &at(0.0, 0.0, 0.0),
        &cube(),
        &at(3.0, 0.0, 0.0),
        &mut cache,
    );
    let c = closest(
        &ball,
        &at(0.0, 0.0, 0.0),
        &cube(),
        &at(3.0, 0.0, 0.0),
        &mut cache,
    );
    assert!((c.distance - 1.5).abs() < 1e-12);
}

#[test]
fn unions_cull_far_pairs_and_return_the_closest() {
    let row = |n: usize| {
        Shape::new(
            (0..n)
                .map(|k| {
                    Piece::new(
                        Convex::sphere(0.5).unwrap(),
                        Translation3::new(2.0 * k as f64, 0.0, 0.0).into(),
                    )
                })
                .collect(),
        )
        .unwrap()
    };
    let (a, b) = (row(5), row(5));
    let mut cache = ShapePairCache::default();
    let c = closest_between_shapes(&a, &at(0.0, 0.0, 0.0), &b, &at(20.0, 0.0, 0.0), &mut cache);
    assert_eq!((c.piece_a, c.piece_b), (4, 0));
    assert!((c.contact.distance - 11.0).abs() < 1e-12);
    assert_eq!(c.pairs_tested, 1);
    // A box piece of B dipping into A's second sphere wins over everything else.
    let b = Shape::new(vec![
        Piece::new(Convex::sphere(0.5).unwrap(), Isometry3::identity()),
        Piece::new(cube(), Translation3::new(0.0, -5.0, 0.0).into()),
    ])
    .unwrap();
    let c = closest_between_shapes(&a, &at(0.0, 0.0, 0.0), &b, &at(2.0, 5.6, 0.0), &mut cache);
    assert_eq!((c.piece_a, c.piece_b), (1, 1));
    assert!((c.contact.distance + 0.4).abs() < 1e-9, "{c:?}");
}
