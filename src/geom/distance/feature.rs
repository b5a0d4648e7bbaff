//! Closest features and the contact normal the dissertation derives from them (5.3.2,
//! figure 5.13): a face's normal when a face is the closest feature on either side, the vector
//! between two vertices, and the normal of the plane of two edges.

use super::posed::{Posed, V3};
use crate::geom::hull::ConvexHull;
use crate::geom::shape::Convex;

/// Below this sine of the angle between them, two edges count as parallel.
const PARALLEL: f64 = 1e-6;

/// A feature of a convex piece: where its closest point (or deepest point) lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature {
    /// A hull vertex, index into [`ConvexHull::vertices`].
    Vertex(usize),
    /// A hull edge, index into [`ConvexHull::edges`].
    Edge(usize),
    /// A hull face, index into [`ConvexHull::faces`].
    Face(usize),
    /// A sphere, which distance queries treat as its centre point plus its radius.
    Center,
}

/// The smallest feature of `convex` holding the core vertices `verts` (index, weight) that a
/// simplex ended on. Vertices with the least weight are let go when no single feature holds
/// them all (rounding can leave a simplex spanning two faces).
pub(super) fn classify(convex: &Convex, verts: &[(usize, f64)]) -> Feature {
    let Convex::Hull(hull) = convex else {
        return Feature::Center;
    };
    let mut merged: Vec<(usize, f64)> = Vec::new();
    for &(v, w) in verts {
        match merged.iter_mut().find(|(u, _)| *u == v) {
            Some(m) => m.1 += w,
            None => merged.push((v, w)),
        }
    }
    merged.sort_by(|x, y| y.1.total_cmp(&x.1));
    let significant = merged.iter().filter(|m| m.1 > 1e-9).count().max(1);
    merged.truncate(significant);
    loop {
        let ids: Vec<usize> = merged.iter().map(|m| m.0).collect();
        let found = match ids.len() {
            0 => return Feature::Vertex(0),
            1 => return Feature::Vertex(ids[0]),
            2 => hull
                .edge_between(ids[0], ids[1])
                .map(Feature::Edge)
                .or_else(|| common_face(hull, &ids).map(Feature::Face)),
            _ => common_face(hull, &ids).map(Feature::Face),
        };
        if let Some(f) = found {
            return f;
        }
        merged.pop();
    }
}

fn common_face(hull: &ConvexHull, ids: &[usize]) -> Option<usize> {
    hull.vertex_faces(ids[0])
        .iter()
        .copied()
        .find(|&f| ids[1..].iter().all(|v| hull.vertex_faces(*v).contains(&f)))
}

/// The contact normal, a unit vector pointing from A towards B.
///
/// `towards_b` is the unit vector from A's closest point to B's; it orients the edge–edge
/// normal and is the answer when no face or pair of crossing edges decides.
pub(super) fn contact_normal(a: &Posed, fa: Feature, b: &Posed, fb: Feature, towards_b: &V3) -> V3 {
    let face_normal = |p: &Posed, f: Feature| match (p.convex, f) {
        (Convex::Hull(h), Feature::Face(i)) => Some(p.pose.rotation * h.faces()[i].normal),
        _ => None,
    };
    let edge_direction = |p: &Posed, f: Feature| match (p.convex, f) {
        (Convex::Hull(h), Feature::Edge(i)) => {
            let [s, e] = h.edges()[i].vertices;
            Some(p.pose.rotation * (h.vertices()[e] - h.vertices()[s]))
        }
        _ => None,
    };
    let from_a = face_normal(a, fa);
    let from_b = face_normal(b, fb).map(|n| -n);
    match (from_a, from_b) {
        (Some(na), Some(nb)) => {
            return if na.dot(towards_b) >= nb.dot(towards_b) {
                na
            } else {
                nb
            }
        }
        (Some(n), None) | (None, Some(n)) => return n,
        (None, None) => {}
    }
    if let (Some(ea), Some(eb)) = (edge_direction(a, fa), edge_direction(b, fb)) {
        let n = ea.cross(&eb);
        if n.norm() > PARALLEL * ea.norm() * eb.norm() {
            let n = n.normalize();
            return if n.dot(towards_b) < 0.0 { -n } else { n };
        }
    }
    *towards_b
}
