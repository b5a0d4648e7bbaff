//! From a surface of triangles to the faces a person sees: coplanar triangles merged into
//! convex polygons, and points that only sit on an edge or inside a face dropped from the
//! polygons' corners.
//!
//! "Coplanar" means within the hull tolerance. Each face is grown from its largest triangle and
//! only ever stays a disc (a triangle joins when it adds a new corner or fills a notch, never
//! when it would pinch the rim), so every face has one boundary loop. Where two faces meet
//! along a chain of nearly collinear edges, the chain is straightened once (Douglas–Peucker
//! within the tolerance) and both faces use the result, so they keep agreeing on their edge.

use super::quickhull::Triangle;
use nalgebra::Vector3;

const NONE: usize = usize::MAX;

/// A merged face: its corners (input point indices, counter-clockwise from outside) and plane.
pub(super) struct Facet {
    pub corners: Vec<usize>,
    pub normal: Vector3<f64>,
    pub offset: f64,
}

/// One edge of a region's boundary loop: it starts at `from` and has region `across` beyond it.
#[derive(Clone, Copy)]
struct Rim {
    from: usize,
    across: usize,
}

pub(super) fn merge(points: &[Vector3<f64>], tris: &[Triangle], tol: f64) -> Vec<Facet> {
    let region = grow_regions(points, tris, tol);
    let count = region.iter().copied().max().map_or(0, |m| m + 1);
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); count];
    for (t, &r) in region.iter().enumerate() {
        members[r].push(t);
    }
    let loops: Vec<Vec<Rim>> = members
        .iter()
        .enumerate()
        .map(|(r, ts)| boundary_loop(tris, &region, r, ts))
        .collect();
    let keep = straighten_chains(points, &loops, tol);

    let mut facets = Vec::new();
    for (r, rim) in loops.iter().enumerate() {
        let corners: Vec<usize> = rim.iter().map(|e| e.from).filter(|&v| keep[v]).collect();
        if corners.len() < 3 {
            continue;
        }
        // The area-weighted normal of the region's triangles is reliable even when the
        // straightened polygon is thin.
        let mut sum = Vector3::zeros();
        for &t in &members[r] {
            let [a, b, c] = tris[t].v.map(|i| points[i]);
            sum += (b - a).cross(&(c - a));
        }
        let normal = sum.normalize();
        let offset = members[r]
            .iter()
            .flat_map(|&t| tris[t].v)
            .map(|i| normal.dot(&points[i]))
            .fold(f64::NEG_INFINITY, f64::max);
        facets.push(Facet {
            corners,
            normal,
            offset,
        });
    }
    facets
}

/// Labels every triangle with the face (region) it belongs to.
fn grow_regions(points: &[Vector3<f64>], tris: &[Triangle], tol: f64) -> Vec<usize> {
    let area2: Vec<f64> = tris
        .iter()
        .map(|t| {
            let [a, b, c] = t.v.map(|i| points[i]);
            (b - a).cross(&(c - a)).norm()
        })
        .collect();
    let mut seeds: Vec<usize> = (0..tris.len()).collect();
    seeds.sort_by(|&s, &t| area2[t].total_cmp(&area2[s]));

    let mut region = vec![NONE; tris.len()];
    // Which region last took each point as a corner: membership test for the growing region.
    let mut stamp = vec![NONE; points.len()];
    let mut next = 0;
    for seed in seeds {
        if region[seed] != NONE {
            continue;
        }
        let r = next;
        next += 1;
        let [a, b, c] = tris[seed].v.map(|i| points[i]);
        let n = (b - a).cross(&(c - a)).normalize();
        let d = n.dot(&a);
        let in_plane = |i: usize| (n.dot(&points[i]) - d).abs() <= tol;

        region[seed] = r;
        for v in tris[seed].v {
            stamp[v] = r;
        }
        let mut queue: Vec<usize> = tris[seed].adj.to_vec();
        while let Some(t) = queue.pop() {
            if region[t] != NONE || !tris[t].v.iter().all(|&v| in_plane(v)) {
                continue;
            }
            let shared = tris[t].adj.iter().filter(|&&u| region[u] == r).count();
            if shared == 1 {
                // The corner opposite the shared edge must be new, or the rim would pinch.
                let i = (0..3).find(|&i| region[tris[t].adj[i]] == r).unwrap_or(0);
                let opposite = tris[t].v[(i + 2) % 3];
                if stamp[opposite] == r {
                    continue;
                }
            }
            region[t] = r;
            for v in tris[t].v {
                stamp[v] = r;
            }
            queue.extend(tris[t].adj.iter().filter(|&&u| region[u] == NONE));
        }
    }
    region
}

/// Walks the rim of region `r` (a disc) counter-clockwise from outside.
fn boundary_loop(tris: &[Triangle], region: &[usize], r: usize, members: &[usize]) -> Vec<Rim> {
    let start = members.iter().find_map(|&t| {
        (0..3)
            .find(|&i| region[tris[t].adj[i]] != r)
            .map(|i| (t, i))
    });
    let Some(start) = start else {
        return Vec::new();
    };
    let mut rim = Vec::new();
    let (mut t, mut i) = start;
    // Each rim edge is visited once; the bound only guards against a broken surface.
    for _ in 0..3 * tris.len() {
        rim.push(Rim {
            from: tris[t].v[i],
            across: region[tris[t].adj[i]],
        });
        // Turn around the edge's end point inside the region until the next rim edge.
        let end = tris[t].v[(i + 1) % 3];
        let (mut u, mut j) = (t, (i + 1) % 3);
        while region[tris[u].adj[j]] == r {
            let w = tris[u].adj[j];
            let into = (0..3).find(|&k| tris[w].v[(k + 1) % 3] == end).unwrap_or(0);
            u = w;
            j = (into + 1) % 3;
        }
        (t, i) = (u, j);
        if (t, i) == start {
            break;
        }
    }
    rim
}

/// Decides, per point, whether it stays a corner of the hull.
///
/// A point where three or more faces meet always stays. A point on the chain between exactly
/// two faces stays only if the chain bends there by more than the tolerance; each chain is
/// decided once, from the side of the face with the smaller index.
fn straighten_chains(points: &[Vector3<f64>], loops: &[Vec<Rim>], tol: f64) -> Vec<bool> {
    let mut keep = vec![false; points.len()];
    let mut corner = vec![false; points.len()];
    for rim in loops {
        for k in 0..rim.len() {
            let before = rim[(k + rim.len() - 1) % rim.len()].across;
            if rim[k].across != before {
                corner[rim[k].from] = true;
                keep[rim[k].from] = true;
            }
        }
    }
    for (r, rim) in loops.iter().enumerate() {
        let Some(first) = (0..rim.len()).find(|&k| corner[rim[k].from]) else {
            // A rim with one neighbour all round cannot be straightened against anything.
            for e in rim {
                keep[e.from] = true;
            }
            continue;
        };
        let mut chain = vec![rim[first].from];
        let mut across = rim[first].across;
        for step in 1..=rim.len() {
            let e = rim[(first + step) % rim.len()];
            chain.push(e.from);
            if corner[e.from] {
                if r < across {
                    mark_bends(points, &chain, tol, &mut keep);
                }
                chain = vec![e.from];
                across = e.across;
            }
        }
    }
    keep
}

/// Douglas–Peucker: marks the interior points of `chain` needed to stay within `tol` of it.
fn mark_bends(points: &[Vector3<f64>], chain: &[usize], tol: f64, keep: &mut [bool]) {
    let mut spans = vec![(0, chain.len() - 1)];
    while let Some((s, e)) = spans.pop() {
        if e <= s + 1 {
            continue;
        }
        let (p, q) = (points[chain[s]], points[chain[e]]);
        let far = (s + 1..e)
            .map(|k| (k, distance_to_segment(&points[chain[k]], &p, &q)))
            .max_by(|x, y| x.1.total_cmp(&y.1));
        if let Some((k, d)) = far {
            if d > tol {
                keep[chain[k]] = true;
                spans.push((s, k));
                spans.push((k, e));
            }
        }
    }
}

fn distance_to_segment(x: &Vector3<f64>, p: &Vector3<f64>, q: &Vector3<f64>) -> f64 {
    let pq = q - p;
    let len2 = pq.norm_squared();
    let t = if len2 > 0.0 {
        ((x - p).dot(&pq) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (x - (p + pq * t)).norm()
}
