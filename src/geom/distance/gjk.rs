//! Gilbert–Johnson–Keerthi: the distance between two convex cores as the distance from the
//! origin to their Minkowski difference B − A, found by growing and shrinking a simplex of
//! support points, started from the simplex the previous query ended on.

use super::posed::{Pair, SupportPoint};
use super::simplex::Simplex;
use super::PairCache;

/// Iteration cap; polytopes converge in far fewer steps, this only bounds rounding loops.
const MAX_ITERATIONS: usize = 128;
/// Stop when the distance is known to this relative accuracy.
const RELATIVE_ACCURACY: f64 = 1e-10;
/// Cores closer than this fraction of their size count as touching.
const TOUCHING: f64 = 1e-12;

pub(super) enum Outcome {
    /// The cores are apart; the simplex holds the nearest point of B − A with its weights.
    Separated(Simplex),
    /// The origin is inside (or within the touching tolerance of) B − A.
    Overlapping(Simplex),
}

pub(super) fn run(pair: &mut Pair, cache: &mut PairCache) -> Outcome {
    let touching = TOUCHING * pair.scale();
    let mut simplex = Simplex::default();
    for &(ia, ib) in cache.simplex() {
        if let (Some(a), Some(b)) = (pair.a.vertex(ia), pair.b.vertex(ib)) {
            if !simplex.contains(ia, ib) {
                simplex.push(SupportPoint::new(ia, a, ib, b));
            }
        }
    }
    if simplex.points().is_empty() {
        let d = pair.b.center() - pair.a.center();
        let d = if d.norm_squared() > 0.0 {
            d
        } else {
            nalgebra::Vector3::x()
        };
        simplex.push(pair.support(&-d));
    }
    let outcome = descend(pair, simplex, touching);
    let s = match &outcome {
        Outcome::Separated(s) | Outcome::Overlapping(s) => s,
    };
    cache.remember(s.points(), pair.hint_a, pair.hint_b);
    outcome
}

fn descend(pair: &mut Pair, mut simplex: Simplex, touching: f64) -> Outcome {
    let Some(mut v) = simplex.reduce() else {
        return Outcome::Overlapping(simplex);
    };
    for _ in 0..MAX_ITERATIONS {
        let vv = v.norm_squared();
        if vv <= touching * touching {
            return Outcome::Overlapping(simplex);
        }
        let w = pair.support(&-v);
        // v·w/|v| is a lower bound of the distance, |v| an upper one.
        if vv - v.dot(&w.w) <= RELATIVE_ACCURACY * vv || simplex.contains(w.ia, w.ib) {
            break;
        }
        let before = simplex;
        simplex.push(w);
        match simplex.reduce() {
            None => return Outcome::Overlapping(simplex),
            Some(next) if next.norm_squared() < vv => v = next,
            Some(_) => {
                simplex = before;
                break;
            }
        }
    }
    Outcome::Separated(simplex)
}
