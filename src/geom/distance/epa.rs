//! Expanding Polytope Algorithm: how deep two overlapping cores interpenetrate, as the
//! distance from the origin to the boundary of B − A, found by growing a polytope inside
//! B − A from GJK's final simplex towards the boundary face nearest the origin.

use super::posed::{Pair, SupportPoint, V3};
use super::simplex::{triangle_weights, Simplex};

const MAX_ITERATIONS: usize = 128;
/// Depth accuracy as a fraction of the pair's size.
const ACCURACY: f64 = 1e-10;

/// The boundary face of B − A nearest the origin.
pub(super) struct Penetration {
    /// Distance from the origin to the face.
    pub depth: f64,
    /// The face's outward unit normal in B − A; moving B by `-normal · depth` separates.
    pub normal: V3,
    pub face: [SupportPoint; 3],
    /// Weights of the origin's projection on the face.
    pub weights: [f64; 3],
}

struct Triangle {
    v: [usize; 3],
    normal: V3,
    /// Distance of the plane from the origin; infinite for a sliver with no usable normal.
    dist: f64,
    alive: bool,
}

/// `None` only when B − A is flat (two points), which has no interior to measure.
pub(super) fn run(pair: &mut Pair, simplex: &Simplex) -> Option<Penetration> {
    let tol = ACCURACY * pair.scale();
    let mut verts: Vec<SupportPoint> = simplex.points().to_vec();
    if !complete_tetrahedron(pair, &mut verts, tol) {
        return None;
    }
    let inside = verts.iter().map(|p| p.w).sum::<V3>() / 4.0;
    let mut faces: Vec<Triangle> = Vec::new();
    for [i, j, k] in [[0, 1, 2], [0, 3, 1], [0, 2, 3], [1, 3, 2]] {
        let mut t = make_triangle(&verts, [i, j, k]);
        if t.normal.dot(&(verts[i].w - inside)) < 0.0 {
            t = make_triangle(&verts, [i, k, j]);
        }
        faces.push(t);
    }

    for _ in 0..MAX_ITERATIONS {
        let best = nearest_face(&faces)?;
        let n = faces[best].normal;
        let w = pair.support(&n);
        if n.dot(&w.w) - faces[best].dist <= tol
            || verts.iter().any(|p| p.ia == w.ia && p.ib == w.ib)
        {
            break;
        }
        verts.push(w);
        let apex = verts.len() - 1;
        // Faces that see the new point go; the edges only one of them had form the rim.
        let mut rim: Vec<(usize, usize)> = Vec::new();
        for f in faces.iter_mut().filter(|f| f.alive) {
            if f.normal.dot(&(w.w - verts[f.v[0]].w)) > 0.0 {
                f.alive = false;
                for k in 0..3 {
                    let e = (f.v[k], f.v[(k + 1) % 3]);
                    if let Some(pos) = rim.iter().position(|&r| r == (e.1, e.0)) {
                        rim.swap_remove(pos);
                    } else {
                        rim.push(e);
                    }
                }
            }
        }
        for (a, b) in rim {
            faces.push(make_triangle(&verts, [a, b, apex]));
        }
        faces.retain(|f| f.alive);
    }
    // Coplanar faces can tie for nearest within rounding; the witness points come from the one
    // the origin projects into.
    let nearest = nearest_face(&faces)?;
    let limit = faces[nearest].dist + tol;
    let mut ties: Vec<&Triangle> = faces
        .iter()
        .filter(|f| f.alive && f.dist <= limit)
        .collect();
    ties.sort_by(|f, g| f.dist.total_cmp(&g.dist));
    let projected = ties.iter().find_map(|f| {
        let face = f.v.map(|i| verts[i]);
        projection_weights(&face, &(f.normal * f.dist)).map(|w| (*f, face, w))
    });
    let (f, face, weights) = match projected {
        Some(found) => found,
        None => {
            let f = &faces[nearest];
            let face = f.v.map(|i| verts[i]);
            (f, face, triangle_weights(&face))
        }
    };
    Some(Penetration {
        depth: f.dist.max(0.0),
        normal: f.normal,
        weights,
        face,
    })
}

/// Barycentric weights of `q` (a point in the face's plane) when it lies in the face.
fn projection_weights(face: &[SupportPoint; 3], q: &V3) -> Option<[f64; 3]> {
    let [a, b, c] = face.map(|p| p.w);
    let (v0, v1, v2) = (b - a, c - a, q - a);
    let (d00, d01, d11) = (v0.dot(&v0), v0.dot(&v1), v1.dot(&v1));
    let (d20, d21) = (v2.dot(&v0), v2.dot(&v1));
    let den = d00 * d11 - d01 * d01;
    if den <= 0.0 {
        return None;
    }
    let v = (d11 * d20 - d01 * d21) / den;
    let w = (d00 * d21 - d01 * d20) / den;
    let u = 1.0 - v - w;
    const SLACK: f64 = -1e-9;
    (u >= SLACK && v >= SLACK && w >= SLACK).then(|| {
        let clamp = [u.max(0.0), v.max(0.0), w.max(0.0)];
        let sum: f64 = clamp.iter().sum();
        clamp.map(|x| x / sum)
    })
}

fn make_triangle(verts: &[SupportPoint], v: [usize; 3]) -> Triangle {
    let [a, b, c] = v.map(|i| verts[i].w);
    let n = (b - a).cross(&(c - a));
    let len = n.norm();
    let scale = (b - a).norm() * (c - a).norm();
    if len > 1e-12 * scale && len > 0.0 {
        let normal = n / len;
        Triangle {
            v,
            normal,
            dist: normal.dot(&a),
            alive: true,
        }
    } else {
        Triangle {
            v,
            normal: V3::zeros(),
            dist: f64::INFINITY,
            alive: true,
        }
    }
}

fn nearest_face(faces: &[Triangle]) -> Option<usize> {
    (0..faces.len())
        .filter(|&f| faces[f].alive && faces[f].dist.is_finite())
        .min_by(|&f, &g| faces[f].dist.total_cmp(&faces[g].dist))
}

/// Grows GJK's simplex (which may be a point, segment or triangle when the cores only just
/// touch) into a tetrahedron of B − A whose every corner stands more than `tol` off the span
/// of the ones before it. False when B − A is flat.
fn complete_tetrahedron(pair: &mut Pair, verts: &mut Vec<SupportPoint>, tol: f64) -> bool {
    if verts.is_empty() {
        return false;
    }
    // Each round keeps the corners that pass and adds one that passes the next test.
    for _ in 0..4 {
        let n = independent_prefix(verts, tol);
        verts.truncate(n);
        let o = verts[0].w;
        let directions: Vec<V3> = match n {
            1 => vec![V3::x(), V3::y(), V3::z(), -V3::x(), -V3::y(), -V3::z()],
            2 => {
                let d = (verts[1].w - o).normalize();
                let least = (0..3)
                    .min_by(|&i, &j| d[i].abs().total_cmp(&d[j].abs()))
                    .unwrap_or(0);
                let e1 = d.cross(&V3::ith(least, 1.0)).normalize();
                let e2 = d.cross(&e1);
                vec![e1, e2, -e1, -e2]
            }
            3 => {
                let n = (verts[1].w - o).cross(&(verts[2].w - o)).normalize();
                vec![n, -n]
            }
            _ => return true,
        };
        let found = directions.iter().map(|d| pair.support(d)).find(|w| {
            let mut candidate = verts.clone();
            candidate.push(*w);
            independent_prefix(&candidate, tol) == n + 1
        });
        match found {
            Some(w) => verts.push(w),
            None => return false,
        }
    }
    false
}

/// How many leading corners each stand more than `tol` off the span of the ones before.
fn independent_prefix(verts: &[SupportPoint], tol: f64) -> usize {
    let o = verts[0].w;
    if verts.len() < 2 || (verts[1].w - o).norm() <= tol {
        return 1;
    }
    let d = (verts[1].w - o).normalize();
    if verts.len() < 3 || (verts[2].w - o).cross(&d).norm() <= tol {
        return 2;
    }
    let n = d.cross(&(verts[2].w - o)).normalize();
    if verts.len() < 4 || n.dot(&(verts[3].w - o)).abs() <= tol {
        return 3;
    }
    4
}
