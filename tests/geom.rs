//! Property tests of `asgard::geom` against independent brute-force references: hull structure
//! over random and degenerate clouds, GJK/EPA against vertex–face/edge–edge enumeration and the
//! separating-axis theorem, sweep-and-prune against all pairs, mass properties under motion.

use asgard::geom::broad::SweepAndPrune;
use asgard::geom::distance::{closest, Contact, PairCache};
use asgard::geom::{Aabb, Convex, ConvexHull, MassProperties};
use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use std::collections::BTreeSet;

type V3 = Vector3<f64>;

/// A fixed seed keeps every run of the suite identical.
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        rng_seed: RngSeed::Fixed(0x6e0_5eed),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn point(range: f64) -> impl Strategy<Value = V3> {
    [-range..range, -range..range, -range..range].prop_map(|[x, y, z]| V3::new(x, y, z))
}

fn cloud(range: f64, max: usize) -> impl Strategy<Value = Vec<V3>> {
    prop::collection::vec(point(range), 4..max)
}

/// Points on a 3×3×3 lattice: exact coplanar and collinear runs everywhere.
fn lattice_cloud() -> impl Strategy<Value = Vec<V3>> {
    prop::collection::vec([0i32..3, 0i32..3, 0i32..3], 4..40).prop_map(|ps| {
        ps.iter()
            .map(|p| V3::new(p[0].into(), p[1].into(), p[2].into()))
            .collect()
    })
}

/// A box surface sampled with points nudged off their faces far below the tolerance.
fn jittered_box() -> impl Strategy<Value = Vec<V3>> {
    prop::collection::vec(
        (0usize..6, -1.0..1.0f64, -1.0..1.0f64, -1e-11..1e-11f64),
        10..200,
    )
    .prop_map(|samples| {
        let mut pts: Vec<V3> = (0..8)
            .map(|i| V3::new(sign(i, 0), sign(i, 1), sign(i, 2)))
            .collect();
        for (face, u, v, nudge) in samples {
            let axis = face % 3;
            let side = if face < 3 { 1.0 } else { -1.0 };
            let mut p = V3::zeros();
            p[axis] = side + nudge;
            p[(axis + 1) % 3] = u;
            p[(axis + 2) % 3] = v;
            pts.push(p);
        }
        pts
    })
}

fn sign(i: usize, bit: usize) -> f64 {
    if i >> bit & 1 == 1 {
        1.0
    } else {
        -1.0
    }
}

fn rotation() -> impl Strategy<Value = UnitQuaternion<f64>> {
    (point(1.0), 0.0..std::f64::consts::PI).prop_map(|(axis, angle)| {
        if axis.norm() < 1e-3 {
            UnitQuaternion::identity()
        } else {
            UnitQuaternion::from_axis_angle(&nalgebra::Unit::new_normalize(axis), angle)
        }
    })
}

fn pose(range: f64) -> impl Strategy<Value = Isometry3<f64>> {
    (point(range), rotation()).prop_map(|(t, r)| Isometry3::from_parts(Translation3::from(t), r))
}

/// Every structural promise of a hull, checked without trusting its own bookkeeping.
fn check_hull(points: &[V3], hull: &ConvexHull) -> Result<(), TestCaseError> {
    let tol = hull.tolerance();
    let (v, e, f) = (
        hull.vertices().len(),
        hull.edges().len(),
        hull.faces().len(),
    );
    prop_assert_eq!(
        v as i64 - e as i64 + f as i64,
        2,
        "Euler: V={} E={} F={}",
        v,
        e,
        f
    );
    // Vertices are input points; interior points are the rest, each exactly once.
    let mut seen = BTreeSet::new();
    for (k, &s) in hull.source_indices().iter().enumerate() {
        prop_assert_eq!(hull.vertices()[k], points[s]);
        prop_assert!(seen.insert(s));
    }
    for &s in hull.interior_points() {
        prop_assert!(seen.insert(s));
    }
    prop_assert_eq!(seen.len(), points.len());
    // Every input point is inside or on the hull.
    for (i, p) in points.iter().enumerate() {
        prop_assert!(
            hull.plane_distance(p) <= 4.0 * tol,
            "point {} outside by {}",
            i,
            hull.plane_distance(p)
        );
    }
    for (fi, face) in hull.faces().iter().enumerate() {
        prop_assert!(face.vertices.len() >= 3);
        prop_assert!((face.normal.norm() - 1.0).abs() < 1e-12);
        // Outward: no vertex of the hull is above the face's plane.
        for (k, q) in hull.vertices().iter().enumerate() {
            prop_assert!(
                face.normal.dot(q) - face.offset <= 4.0 * tol,
                "vertex {} above face {}",
                k,
                fi
            );
        }
        // Flat and convex, counter-clockwise about the outward normal.
        let n = face.vertices.len();
        for k in 0..n {
            let [a, b, c] =
                [k, (k + 1) % n, (k + 2) % n].map(|j| hull.vertices()[face.vertices[j]]);
            prop_assert!((face.normal.dot(&a) - face.offset).abs() <= 4.0 * tol);
            let turn = (b - a).cross(&(c - b)).dot(&face.normal);
            prop_assert!(
                turn >= -4.0 * tol * (c - a).norm(),
                "face {} bends the wrong way",
                fi
            );
        }
    }
    for edge in hull.edges() {
        let [f0, f1] = edge.faces;
        prop_assert!(f0 != f1);
        for f in [f0, f1] {
            let fv = &hull.faces()[f].vertices;
            prop_assert!(edge.vertices.iter().all(|x| fv.contains(x)));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(128))]

    #[test]
    fn hulls_of_random_clouds(points in cloud(5.0, 300)) {
        match ConvexHull::new(&points) {
            Ok(hull) => check_hull(&points, &hull)?,
            Err(e) => prop_assert!(e.to_string().starts_with("polyhedron has no volume")),
        }
    }

    #[test]
    fn hulls_of_lattice_clouds(points in lattice_cloud()) {
        // Lattice clouds may be flat; then the error must say so.
        match ConvexHull::new(&points) {
            Ok(hull) => {
                check_hull(&points, &hull)?;
                // Every vertex is a true corner: three of its faces have independent normals.
                for v in 0..hull.vertices().len() {
                    let normals: Vec<V3> = hull.vertex_faces(v).iter().map(|&f| hull.faces()[f].normal).collect();
                    let mut corner = false;
                    for i in 0..normals.len() {
                        for j in i + 1..normals.len() {
                            for k in j + 1..normals.len() {
                                corner |= normals[i].cross(&normals[j]).dot(&normals[k]).abs() > 1e-6;
                            }
                        }
                    }
                    prop_assert!(corner, "vertex {} is not a corner", v);
                }
            }
            Err(e) => prop_assert!(e.to_string().starts_with("polyhedron has no volume")),
        }
    }

    #[test]
    fn hulls_of_jittered_boxes_have_six_faces(points in jittered_box()) {
        let hull = ConvexHull::new(&points).unwrap();
        check_hull(&points, &hull)?;
        prop_assert_eq!(hull.faces().len(), 6);
        prop_assert_eq!(hull.vertices().len(), 8);
    }

    #[test]
    fn mass_properties_move_with_the_body(points in cloud(2.0, 40), motion in pose(5.0)) {
        let Ok(hull) = ConvexHull::new(&points) else { return Err(TestCaseError::reject("flat")) };
        let moved: Vec<V3> = points.iter().map(|p| motion.rotation * p + motion.translation.vector).collect();
        let here = MassProperties::of_hull(&hull);
        let there = MassProperties::of_hull(&ConvexHull::new(&moved).unwrap());
        let expected = here.transformed(&motion);
        let scale = here.inertia.norm().max(1e-12);
        prop_assert!((there.mass - here.mass).abs() <= 1e-9 * here.mass);
        prop_assert!((there.center - expected.center).norm() <= 1e-9);
        prop_assert!((there.inertia - expected.inertia).norm() <= 1e-9 * scale);
    }
}

#[test]
fn thousands_of_points() {
    // 4,000 points well inside a ball and 1,000 on its surface: the surface points are the hull.
    let mut state = 12345u64;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    let mut points = Vec::new();
    while points.len() < 4000 {
        let p = V3::new(next(), next(), next());
        if p.norm() < 0.9 {
            points.push(p);
        }
    }
    while points.len() < 5000 {
        let p = V3::new(next(), next(), next());
        if p.norm() > 0.1 {
            points.push(p.normalize());
        }
    }
    let hull = ConvexHull::new(&points).unwrap();
    assert_eq!(hull.vertices().len(), 1000);
    assert!(hull.source_indices().iter().all(|&s| s >= 4000));
    let v = hull.vertices().len() as i64;
    assert_eq!(v - hull.edges().len() as i64 + hull.faces().len() as i64, 2);
}

// ---- Distance against brute force ----

struct World {
    verts: Vec<V3>,
    faces: Vec<(V3, f64, Vec<V3>)>,
    edges: Vec<(V3, V3)>,
}

fn world(hull: &ConvexHull, pose: &Isometry3<f64>) -> World {
    let at = |p: &V3| pose.rotation * p + pose.translation.vector;
    let verts: Vec<V3> = hull.vertices().iter().map(at).collect();
    let faces = hull
        .faces()
        .iter()
        .map(|f| {
            let n = pose.rotation * f.normal;
            let corners: Vec<V3> = f.vertices.iter().map(|&i| verts[i]).collect();
            (n, n.dot(&corners[0]), corners)
        })
        .collect();
    let edges = hull
        .edges()
        .iter()
        .map(|e| (verts[e.vertices[0]], verts[e.vertices[1]]))
        .collect();
    World {
        verts,
        faces,
        edges,
    }
}

fn point_triangle(p: &V3, a: &V3, b: &V3, c: &V3) -> f64 {
    let n = (b - a).cross(&(c - a));
    if n.norm_squared() > 0.0 {
        let inside = [(a, b), (b, c), (c, a)]
            .iter()
            .all(|(s, e)| (*e - *s).cross(&(p - *s)).dot(&n) >= 0.0);
        if inside {
            return (p - a).dot(&n).abs() / n.norm();
        }
    }
    [(a, b), (b, c), (c, a)]
        .iter()
        .map(|(s, e)| segment_segment(p, p, s, e))
        .fold(f64::INFINITY, f64::min)
}

/// Distance between segments pq and rs by minimising over a fine parameter search refined
/// analytically: the closed form for the interior pair, then every endpoint projection.
fn segment_segment(p: &V3, q: &V3, r: &V3, s: &V3) -> f64 {
    let point_segment = |x: &V3, a: &V3, b: &V3| {
        let ab = b - a;
        let t = if ab.norm_squared() > 0.0 {
            ((x - a).dot(&ab) / ab.norm_squared()).clamp(0.0, 1.0)
        } else {
            0.0
        };
        (x - (a + ab * t)).norm()
    };
    let mut best = point_segment(p, r, s)
        .min(point_segment(q, r, s))
        .min(point_segment(r, p, q))
        .min(point_segment(s, p, q));
    let (d1, d2, w) = (q - p, s - r, p - r);
    let (a, b, c, d, e) = (
        d1.dot(&d1),
        d1.dot(&d2),
        d2.dot(&d2),
        d1.dot(&w),
        d2.dot(&w),
    );
    let den = a * c - b * b;
    if den > 1e-14 * a * c {
        let (u, v) = ((b * e - c * d) / den, (a * e - b * d) / den);
        if (0.0..=1.0).contains(&u) && (0.0..=1.0).contains(&v) {
            best = best.min(((p + d1 * u) - (r + d2 * v)).norm());
        }
    }
    best
}

fn polygon_distance(p: &V3, corners: &[V3]) -> f64 {
    (1..corners.len() - 1)
        .map(|k| point_triangle(p, &corners[0], &corners[k], &corners[k + 1]))
        .fold(f64::INFINITY, f64::min)
}

/// Separating-axis theorem: the least overlap over all candidate axes, negative if apart.
fn sat_overlap(a: &World, b: &World) -> f64 {
    let mut axes: Vec<V3> = a.faces.iter().chain(&b.faces).map(|f| f.0).collect();
    for (p, q) in &a.edges {
        for (r, s) in &b.edges {
            let n = (q - p).cross(&(s - r));
            if n.norm() > 1e-9 * (q - p).norm() * (s - r).norm() {
                axes.push(n.normalize());
            }
        }
    }
    let span = |w: &World, n: &V3| {
        w.verts
            .iter()
            .map(|v| n.dot(v))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
                (lo.min(x), hi.max(x))
            })
    };
    axes.iter()
        .map(|n| {
            let (alo, ahi) = span(a, n);
            let (blo, bhi) = span(b, n);
            (ahi - blo).min(bhi - alo)
        })
        .fold(f64::INFINITY, f64::min)
}

/// Signed distance between two polyhedra by enumeration: vertex–face and edge–edge apart,
/// separating-axis depth when overlapping.
fn reference_distance(a: &World, b: &World) -> f64 {
    let overlap = sat_overlap(a, b);
    if overlap >= 0.0 {
        return -overlap;
    }
    let mut best = f64::INFINITY;
    for v in &a.verts {
        for f in &b.faces {
            best = best.min(polygon_distance(v, &f.2));
        }
    }
    for v in &b.verts {
        for f in &a.faces {
            best = best.min(polygon_distance(v, &f.2));
        }
    }
    for (p, q) in &a.edges {
        for (r, s) in &b.edges {
            best = best.min(segment_segment(p, q, r, s));
        }
    }
    best
}

fn inside_or_on(w: &World, p: &V3, tol: f64) -> bool {
    w.faces.iter().all(|(n, d, _)| n.dot(p) - d <= tol)
}

fn check_contact(c: &Contact) -> Result<(), TestCaseError> {
    prop_assert!((c.normal.norm() - 1.0).abs() < 1e-9);
    prop_assert!(
        ((c.point_b - c.point_a) - c.normal * c.distance).norm() < 1e-6,
        "{:?}",
        c
    );
    Ok(())
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn gjk_and_epa_match_brute_force(
        pa in cloud(1.0, 16), pb in cloud(1.0, 16), posa in pose(1.5), posb in pose(1.5)
    ) {
        let (Ok(ha), Ok(hb)) = (ConvexHull::new(&pa), ConvexHull::new(&pb)) else {
            return Err(TestCaseError::reject("flat"));
        };
        let (wa, wb) = (world(&ha, &posa), world(&hb, &posb));
        let expected = reference_distance(&wa, &wb);
        let c = closest(&Convex::Hull(ha), &posa, &Convex::Hull(hb), &posb, &mut PairCache::default());
        prop_assert!((c.distance - expected).abs() <= 1e-6, "gjk {} vs reference {}", c.distance, expected);
        check_contact(&c)?;
        if c.distance > 0.0 {
            // The closest points lie on the pieces.
            prop_assert!(inside_or_on(&wa, &c.point_a, 1e-7));
            prop_assert!(inside_or_on(&wb, &c.point_b, 1e-7));
            // The normal never points back into A.
            prop_assert!(c.normal.dot(&(c.point_b - c.point_a)) > 0.0);
        }
    }

    #[test]
    fn spheres_against_hulls_match_brute_force(
        pa in cloud(1.0, 16), posa in pose(1.0), centre in point(2.5), radius in 0.05..1.0f64
    ) {
        let Ok(ha) = ConvexHull::new(&pa) else { return Err(TestCaseError::reject("flat")) };
        let wa = world(&ha, &posa);
        let outside = wa.faces.iter().map(|(n, d, _)| n.dot(&centre) - d).fold(f64::NEG_INFINITY, f64::max);
        let core = if outside <= 0.0 {
            outside // inside: the nearest face plane is the nearest boundary point
        } else {
            wa.faces.iter().map(|f| polygon_distance(&centre, &f.2)).fold(f64::INFINITY, f64::min)
        };
        let ball = Convex::sphere(radius).unwrap();
        let at = Isometry3::translation(centre.x, centre.y, centre.z);
        let c = closest(&Convex::Hull(ha), &posa, &ball, &at, &mut PairCache::default());
        prop_assert!((c.distance - (core - radius)).abs() <= 1e-6, "{} vs {}", c.distance, core - radius);
        check_contact(&c)?;
    }

    #[test]
    fn warm_starts_agree_with_cold_starts(
        pa in cloud(1.0, 40), pb in cloud(1.0, 40),
        start in pose(2.0), drift in point(0.05), spin in point(0.05)
    ) {
        let (Ok(a), Ok(b)) = (Convex::hull(&pa), Convex::hull(&pb)) else {
            return Err(TestCaseError::reject("flat"));
        };
        let mut cache = PairCache::default();
        let fixed = Isometry3::identity();
        let mut p = start;
        p.translation.vector += V3::new(2.5, 0.0, 0.0);
        for _ in 0..30 {
            p.translation.vector += drift;
            p.rotation = UnitQuaternion::new(spin) * p.rotation;
            let warm = closest(&a, &fixed, &b, &p, &mut cache);
            let cold = closest(&a, &fixed, &b, &p, &mut PairCache::default());
            prop_assert!((warm.distance - cold.distance).abs() <= 1e-7, "{} vs {}", warm.distance, cold.distance);
        }
    }
}

// ---- Broad phase against all pairs ----

fn boxes(n: usize) -> impl Strategy<Value = Vec<Aabb>> {
    prop::collection::vec((point(10.0), point(1.0)), 0..n).prop_map(|bs| {
        bs.into_iter()
            .map(|(c, h)| Aabb::new(c - h.abs(), c + h.abs()))
            .collect()
    })
}

fn all_pairs(bs: &[Aabb], keep: impl Fn(usize, usize) -> bool) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for i in 0..bs.len() {
        for j in i + 1..bs.len() {
            if bs[i].overlaps(&bs[j]) && keep(i, j) {
                out.push((i, j));
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(config(128))]

    #[test]
    fn sweep_and_prune_matches_all_pairs(
        start in boxes(150), moves in prop::collection::vec(point(0.5), 150), steps in 1usize..6, modulus in 2usize..5
    ) {
        let keep = |i: usize, j: usize| (i * 7 + j) % modulus != 0;
        let mut sap = SweepAndPrune::new();
        let mut bs = start;
        for step in 0..steps {
            sap.update(&bs);
            prop_assert_eq!(sap.pairs(keep), all_pairs(&bs, keep), "step {}", step);
            for (b, m) in bs.iter_mut().zip(&moves) {
                b.min += m;
                b.max += m;
            }
        }
        // A change in the number of boxes starts over.
        bs.truncate(bs.len() / 2);
        sap.update(&bs);
        prop_assert_eq!(sap.pairs(keep), all_pairs(&bs, keep));
    }
}
