use super::*;

fn v(x: f64, y: f64, z: f64) -> Vector3<f64> {
    Vector3::new(x, y, z)
}

fn cube_corners() -> Vec<Vector3<f64>> {
    let mut pts = Vec::new();
    for i in 0..8 {
        let bit = |k: usize| if i >> k & 1 == 1 { 0.5 } else { -0.5 };
        pts.push(v(bit(0), bit(1), bit(2)));
    }
    pts
}

#[test]
fn a_cube_has_six_square_faces() {
    let hull = ConvexHull::new(&cube_corners()).unwrap();
    assert_eq!(hull.vertices().len(), 8);
    assert_eq!(hull.faces().len(), 6);
    assert_eq!(hull.edges().len(), 12);
    for face in hull.faces() {
        assert_eq!(face.vertices.len(), 4);
        assert!((face.offset - 0.5).abs() < 1e-12);
        assert!((face.normal.abs().max() - 1.0).abs() < 1e-12);
        for &c in &face.vertices {
            assert!((face.normal.dot(&hull.vertices()[c]) - face.offset).abs() < 1e-12);
        }
    }
    for vtx in 0..8 {
        assert_eq!(hull.neighbors(vtx).count(), 3);
        assert_eq!(hull.vertex_faces(vtx).len(), 3);
    }
    assert!(hull.interior_points().is_empty());
}

#[test]
fn points_on_faces_edges_inside_and_duplicated_are_not_vertices() {
    let mut pts = cube_corners();
    let extra = [
        v(0.0, 0.0, 0.5),     // face centre
        v(0.5, 0.1, -0.2),    // on a face
        v(0.0, 0.5, 0.5),     // edge midpoint
        v(0.1, -0.2, 0.3),    // inside
        v(0.5, 0.5, 0.5),     // duplicate corner
        v(-0.5, -0.5, 0.499), // on an edge, near a corner
    ];
    pts.extend_from_slice(&extra);
    let hull = ConvexHull::new(&pts).unwrap();
    assert_eq!(hull.vertices().len(), 8);
    assert_eq!(hull.faces().len(), 6);
    assert_eq!(hull.edges().len(), 12);
    let mut sources = hull.source_indices().to_vec();
    sources.sort_unstable();
    assert_eq!(sources, (0..8).collect::<Vec<_>>());
    assert_eq!(hull.interior_points(), &[8, 9, 10, 11, 12, 13]);
}

#[test]
fn jitter_below_the_tolerance_leaves_faces_flat() {
    let mut pts = cube_corners();
    // A grid on every face, each point nudged off its plane by 1e-12 (tolerance ~1.7e-9).
    let mut k = 0u32;
    for axis in 0..3 {
        for side in [-0.5, 0.5] {
            for i in 0..5 {
                for j in 0..5 {
                    k += 1;
                    let nudge = if k % 2 == 0 { 1e-12 } else { -1e-12 };
                    let mut p = v(0.0, 0.0, 0.0);
                    p[axis] = side + nudge;
                    p[(axis + 1) % 3] = -0.4 + 0.2 * i as f64;
                    p[(axis + 2) % 3] = -0.4 + 0.2 * j as f64;
                    pts.push(p);
                }
            }
        }
    }
    let hull = ConvexHull::new(&pts).unwrap();
    assert_eq!(hull.faces().len(), 6);
    assert_eq!(hull.vertices().len(), 8);
    assert_eq!(hull.interior_points().len(), pts.len() - 8);
}

#[test]
fn too_few_points() {
    let err = ConvexHull::new(&cube_corners()[..3]).unwrap_err();
    assert_eq!(err, GeomError::TooFewPoints { count: 3 });
}

#[test]
fn flat_clouds_say_how_they_are_flat() {
    let plane: Vec<_> = (0..12)
        .map(|i| v(i as f64 % 4.0, (i / 4) as f64, 2.0))
        .collect();
    let err = ConvexHull::new(&plane).unwrap_err();
    assert_eq!(
        err.to_string(),
        "polyhedron has no volume: all 12 points lie in a plane"
    );
    let line: Vec<_> = (0..5).map(|i| v(i as f64, 2.0 * i as f64, 1.0)).collect();
    assert_eq!(
        ConvexHull::new(&line).unwrap_err(),
        GeomError::NoVolume {
            count: 5,
            degeneracy: Degeneracy::Collinear
        }
    );
    let point = vec![v(1.0, 2.0, 3.0); 4];
    assert_eq!(
        ConvexHull::new(&point).unwrap_err().to_string(),
        "polyhedron has no volume: all 4 points are the same point"
    );
    // Thinner than the tolerance is flat too.
    let mut sheet = plane.clone();
    sheet[5].z += 1e-12;
    assert!(matches!(
        ConvexHull::new(&sheet),
        Err(GeomError::NoVolume {
            degeneracy: Degeneracy::Coplanar,
            ..
        })
    ));
}

#[test]
fn non_finite_points_are_located() {
    let mut pts = cube_corners();
    pts[5].y = f64::NAN;
    assert_eq!(
        ConvexHull::new(&pts).unwrap_err(),
        GeomError::NonFinitePoint { index: 5 }
    );
}

#[test]
fn climbing_finds_the_same_support_as_scanning() {
    // 200 points on a sphere: every point is a vertex, so the climb has far to go.
    let pts: Vec<_> = (0..200)
        .map(|i| {
            let t = i as f64 * 2.399963;
            let z = 1.0 - 2.0 * (i as f64 + 0.5) / 200.0;
            let r = (1.0 - z * z).sqrt();
            v(r * t.cos(), r * t.sin(), z)
        })
        .collect();
    let hull = ConvexHull::new(&pts).unwrap();
    assert_eq!(hull.vertices().len(), 200);
    for k in 0..50 {
        let a = k as f64 * 0.7;
        let dir = v(a.cos(), a.sin() * 0.3, (a * 1.3).sin());
        let climbed = hull.support_from(&dir, k * 3);
        let scanned = (0..200)
            .max_by(|&x, &y| {
                hull.vertices()[x]
                    .dot(&dir)
                    .total_cmp(&hull.vertices()[y].dot(&dir))
            })
            .unwrap();
        assert_eq!(climbed, scanned);
    }
}

#[test]
fn near_duplicates_are_welded_to_the_first() {
    let mut pts = cube_corners();
    let tol = ConvexHull::new(&pts).unwrap().tolerance();
    // Within the tolerance of corner 7 (outside the cube), and of corner 0 (inside).
    pts.push(pts[7] + Vector3::new(0.4, 0.3, 0.2) * tol);
    pts.push(pts[0] + Vector3::new(0.5, 0.1, 0.6) * tol);
    let hull = ConvexHull::new(&pts).unwrap();
    assert_eq!(hull.vertices().len(), 8);
    assert_eq!(hull.interior_points(), &[8, 9]);
}
