//! Broad phase: which pairs of bodies' boxes overlap, so that exact distance queries run only
//! on those (dissertation 5.3.1: cheap bounding tests first).
//!
//! Sweep and prune: boxes are kept sorted by their lower bound along one axis; a sweep meets
//! each box only the boxes that start before it ends on that axis, then checks the other two
//! axes. Between time steps bodies move little, so the order is repaired by insertion sort in
//! close to linear time. The sweep axis is the one along which box centres are most spread,
//! re-chosen (with a full sort) only when another axis becomes clearly better.

use super::bounds::Aabb;

/// An axis must be this much more spread than the current one to become the sweep axis.
const AXIS_SWITCH: f64 = 1.5;

/// A box in sweep order: its interval on the sweep axis and its bounds on the other two.
#[derive(Clone, Copy, Debug)]
struct Entry {
    min: f64,
    max: f64,
    lo: [f64; 2],
    hi: [f64; 2],
    id: usize,
}

/// Sweep-and-prune over a set of boxes identified by their index.
#[derive(Clone, Debug, Default)]
pub struct SweepAndPrune {
    entries: Vec<Entry>,
    axis: usize,
    tests: usize,
}

impl SweepAndPrune {
    pub fn new() -> SweepAndPrune {
        SweepAndPrune::default()
    }

    /// Replaces the boxes; box `i` has id `i`. When the count is unchanged the previous order
    /// is repaired incrementally, which is fast when the boxes moved coherently.
    pub fn update(&mut self, boxes: &[Aabb]) {
        let spreads = [0, 1, 2].map(|axis| spread(boxes, axis));
        let best = (0..3)
            .max_by(|&a, &b| spreads[a].total_cmp(&spreads[b]))
            .unwrap_or(0);
        if boxes.len() != self.entries.len() || spreads[best] > AXIS_SWITCH * spreads[self.axis] {
            self.axis = best;
            self.entries = (0..boxes.len())
                .map(|id| entry(&boxes[id], id, self.axis))
                .collect();
            self.entries.sort_by(|a, b| a.min.total_cmp(&b.min));
        } else {
            for e in &mut self.entries {
                *e = entry(&boxes[e.id], e.id, self.axis);
            }
            insertion_sort(&mut self.entries);
        }
    }

    /// Every pair `(i, j)`, `i < j`, of overlapping boxes (touching counts) for which `keep(i,
    /// j)` is true, e.g. not two directly linked parts of one articulated body. Sorted.
    pub fn pairs(&mut self, mut keep: impl FnMut(usize, usize) -> bool) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut tests = 0;
        for (k, a) in self.entries.iter().enumerate() {
            for b in &self.entries[k + 1..] {
                if b.min > a.max {
                    break;
                }
                tests += 1;
                // The sweep axis is re-checked so that a box with a NaN bound overlaps nothing.
                let overlap = b.min <= a.max
                    && a.min <= b.max
                    && (0..2).all(|m| a.lo[m] <= b.hi[m] && b.lo[m] <= a.hi[m]);
                if overlap {
                    let pair = (a.id.min(b.id), a.id.max(b.id));
                    if keep(pair.0, pair.1) {
                        out.push(pair);
                    }
                }
            }
        }
        self.tests = tests;
        out.sort_unstable();
        out
    }

    /// How many box pairs the last [`SweepAndPrune::pairs`] compared.
    pub fn tests(&self) -> usize {
        self.tests
    }
}

fn entry(b: &Aabb, id: usize, axis: usize) -> Entry {
    let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
    Entry {
        min: b.min[axis],
        max: b.max[axis],
        lo: [b.min[u], b.min[v]],
        hi: [b.max[u], b.max[v]],
        id,
    }
}

fn insertion_sort(entries: &mut [Entry]) {
    for i in 1..entries.len() {
        let e = entries[i];
        let mut j = i;
        while j > 0 && entries[j - 1].min > e.min {
            entries[j] = entries[j - 1];
            j -= 1;
        }
        entries[j] = e;
    }
}

/// Variance of the box centres along `axis`.
fn spread(boxes: &[Aabb], axis: usize) -> f64 {
    if boxes.is_empty() {
        return 0.0;
    }
    let n = boxes.len() as f64;
    let centres = boxes.iter().map(|b| (b.min[axis] + b.max[axis]) / 2.0);
    let mean = centres.clone().sum::<f64>() / n;
    centres.map(|c| (c - mean) * (c - mean)).sum::<f64>() / n
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Vector3;

    /// A deterministic scatter of `n` small boxes in a cube of side `side`.
    fn scatter(n: usize, side: f64, seed: u64) -> Vec<Aabb> {
        let mut state = seed;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        (0..n)
            .map(|_| {
                let c = Vector3::new(next(), next(), next()) * side;
                let h = Vector3::new(next(), next(), next()) * 0.5 + Vector3::repeat(0.25);
                Aabb::new(c - h, c + h)
            })
            .collect()
    }

    fn brute_force(boxes: &[Aabb]) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for i in 0..boxes.len() {
            for j in i + 1..boxes.len() {
                if boxes[i].overlaps(&boxes[j]) {
                    out.push((i, j));
                }
            }
        }
        out
    }

    #[test]
    fn ten_thousand_boxes_cost_far_fewer_tests_than_all_pairs() {
        let boxes = scatter(10_000, 100.0, 7);
        let mut sap = SweepAndPrune::new();
        sap.update(&boxes);
        let pairs = sap.pairs(|_, _| true);
        let all_pairs = 10_000 * 9_999 / 2;
        assert!(!pairs.is_empty());
        // Boxes about 1 wide in 100: about 2% of pairs overlap on the sweep axis.
        assert!(sap.tests() * 20 < all_pairs, "{} tests", sap.tests());
        assert!(pairs.len() <= sap.tests());
    }

    #[test]
    fn the_filter_removes_pairs() {
        let boxes = scatter(300, 10.0, 3);
        let mut sap = SweepAndPrune::new();
        sap.update(&boxes);
        let everything = sap.pairs(|_, _| true);
        let odd = sap.pairs(|i, j| (i + j) % 2 == 1);
        let expected: Vec<_> = everything
            .iter()
            .copied()
            .filter(|(i, j)| (i + j) % 2 == 1)
            .collect();
        assert_eq!(odd, expected);
        assert_eq!(everything, brute_force(&boxes));
    }

    #[test]
    fn the_axis_follows_the_spread() {
        // Boxes strung along z: sweeping x would compare every pair.
        let mut boxes: Vec<Aabb> = (0..200)
            .map(|k| {
                let c = Vector3::new(0.0, 0.0, 3.0 * k as f64);
                Aabb::new(c - Vector3::repeat(1.0), c + Vector3::repeat(1.0))
            })
            .collect();
        let mut sap = SweepAndPrune::new();
        sap.update(&boxes);
        assert!(sap.pairs(|_, _| true).is_empty());
        assert!(sap.tests() == 0, "{}", sap.tests());
        // Rotate the string onto x; the sweep axis follows.
        for b in &mut boxes {
            let (lo, hi) = (b.min, b.max);
            b.min = Vector3::new(lo.z, lo.x, lo.y);
            b.max = Vector3::new(hi.z, hi.x, hi.y);
        }
        sap.update(&boxes);
        assert!(sap.pairs(|_, _| true).is_empty());
        assert_eq!(sap.tests(), 0);
    }

    #[test]
    fn nan_boxes_do_not_panic() {
        let mut boxes = scatter(50, 5.0, 11);
        boxes[7].min.x = f64::NAN;
        let mut sap = SweepAndPrune::new();
        sap.update(&boxes);
        let pairs = sap.pairs(|_, _| true);
        assert!(pairs.iter().all(|&(i, j)| i != 7 && j != 7));
    }
}
