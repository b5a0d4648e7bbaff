//! Shapes against shapes: every pair of pieces, nearest bounding spheres first, skipping pairs
//! whose bounding spheres are already farther apart than the best pair found (dissertation
//! 5.3.1: a union is tested piece by piece, with bounding spheres as the first filter).

use super::{closest, Contact, PairCache};
use crate::geom::shape::Shape;
use nalgebra::Isometry3;

/// The closest (or most deeply interpenetrating) pair of pieces of two shapes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShapeContact {
    pub contact: Contact,
    /// Index of A's piece in [`Shape::pieces`].
    pub piece_a: usize,
    pub piece_b: usize,
    /// How many piece pairs needed an exact query (the rest were culled by bounding spheres).
    pub pairs_tested: usize,
}

/// One [`PairCache`] per pair of pieces of two shapes; owned by the caller per pair of bodies.
#[derive(Clone, Debug, Default)]
pub struct ShapePairCache {
    pieces: (usize, usize),
    pairs: Vec<PairCache>,
}

/// How shape `b` placed at `pose_b` stands to shape `a` placed at `pose_a`.
pub fn closest_between_shapes(
    a: &Shape,
    pose_a: &Isometry3<f64>,
    b: &Shape,
    pose_b: &Isometry3<f64>,
    cache: &mut ShapePairCache,
) -> ShapeContact {
    let (na, nb) = (a.pieces().len(), b.pieces().len());
    if cache.pieces != (na, nb) {
        *cache = ShapePairCache {
            pieces: (na, nb),
            pairs: vec![PairCache::default(); na * nb],
        };
    }
    let mut query = |i: usize, j: usize| {
        let (pa, pb) = (&a.pieces()[i], &b.pieces()[j]);
        ShapeContact {
            contact: closest(
                pa.convex(),
                &(pose_a * pa.offset()),
                pb.convex(),
                &(pose_b * pb.offset()),
                &mut cache.pairs[i * nb + j],
            ),
            piece_a: i,
            piece_b: j,
            pairs_tested: 0,
        }
    };
    // One piece each (a ball, a box): no ordering to do.
    if (na, nb) == (1, 1) {
        return ShapeContact {
            pairs_tested: 1,
            ..query(0, 0)
        };
    }
    let sa: Vec<_> = a
        .pieces()
        .iter()
        .map(|p| p.bounding_sphere().transformed(pose_a))
        .collect();
    let sb: Vec<_> = b
        .pieces()
        .iter()
        .map(|p| p.bounding_sphere().transformed(pose_b))
        .collect();
    let mut order: Vec<(f64, usize, usize)> = (0..na)
        .flat_map(|i| (0..nb).map(move |j| (i, j)))
        .map(|(i, j)| (sa[i].gap(&sb[j]), i, j))
        .collect();
    order.sort_by(|x, y| x.0.total_cmp(&y.0));

    // A shape always has a piece, so `order` is never empty.
    let (_, i, j) = order[0];
    let mut best = query(i, j);
    let mut tested = 1;
    for &(bound, i, j) in &order[1..] {
        if bound >= best.contact.distance {
            break;
        }
        let found = query(i, j);
        tested += 1;
        if found.contact.distance < best.contact.distance {
            best = found;
        }
    }
    best.pairs_tested = tested;
    best
}
