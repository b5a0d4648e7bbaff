//! Broad phase: which pairs of bodies' boxes overlap, so that exact distance queries run only
//! on those (dissertation 5.3.1: cheap bounding tests first).
//!
//! Sweep and prune, in slabs: the axis along which box centres are most spread is the sweep
//! axis, the next one is cut into slabs a few box widths wide, and each slab keeps its boxes
//! sorted by their lower bound on the sweep axis. A sweep of a slab meets each box only the
//! boxes that start before it ends, then checks the other two axes; a pair lying in several
//! slabs is reported by the one slab that holds the larger of their lower bounds on the slab
//! axis. Slabs cut the comparisons of a plain sweep by about their number. Between time steps
//! bodies move little, so each slab's order is repaired by insertion sort in close to linear
//! time and only boxes that crossed a slab boundary move between slabs; the layout is planned
//! again (with full sorts) only when the number of boxes changes, another axis becomes clearly
//! better, or the boxes outgrow the slabs.

use super::bounds::Aabb;

/// An axis must be this much more spread than the sweep axis to replace it.
const AXIS_SWITCH: f64 = 1.5;
/// A slab is at least this many mean box widths wide, so most boxes lie in one or two.
const SLAB_WIDTHS: f64 = 2.0;

/// A box in sweep order: its interval on the sweep axis and its bounds on the slab axis
/// (index 0) and the remaining axis (index 1).
#[derive(Clone, Copy, Debug)]
struct Entry {
    min: f64,
    max: f64,
    lo: [f64; 2],
    hi: [f64; 2],
    id: usize,
}

/// Which axis is swept, which is cut into slabs, and where the slabs lie.
#[derive(Clone, Copy, Debug, Default)]
struct Layout {
    sweep: usize,
    slab: usize,
    other: usize,
    origin: f64,
    width: f64,
    count: usize,
}

impl Layout {
    fn plan(boxes: &[Aabb]) -> Layout {
        let spreads = [0, 1, 2].map(|axis| spread(boxes, axis));
        let mut axes = [0, 1, 2];
        axes.sort_by(|&a, &b| spreads[b].total_cmp(&spreads[a]));
        let [sweep, slab, other] = axes;
        let single = Layout {
            sweep,
            slab,
            other,
            origin: 0.0,
            width: f64::INFINITY,
            count: 1,
        };
        let finite: Vec<&Aabb> = boxes
            .iter()
            .filter(|b| b.min[slab].is_finite() && b.max[slab].is_finite())
            .collect();
        if finite.is_empty() {
            return single;
        }
        let centre = |b: &Aabb| (b.min[slab] + b.max[slab]) / 2.0;
        let (lo, hi) = finite
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), b| {
                (lo.min(centre(b)), hi.max(centre(b)))
            });
        let mean_width = finite
            .iter()
            .map(|b| b.max[slab] - b.min[slab])
            .sum::<f64>()
            / finite.len() as f64;
        let width = (SLAB_WIDTHS * mean_width).max((hi - lo) / (finite.len() as f64).sqrt());
        if !(width > 0.0 && width.is_finite()) {
            return single;
        }
        Layout {
            origin: lo,
            width,
            count: (((hi - lo) / width).ceil() as usize).max(1),
            ..single
        }
    }

    /// Whether these boxes can keep this layout: the sweep axis is still about the best and
    /// the boxes have neither left the slabs far behind nor shrunk into a few of them.
    fn suits(&self, boxes: &[Aabb]) -> bool {
        let fresh = Layout::plan(boxes);
        let spreads = [0, 1, 2].map(|axis| spread(boxes, axis));
        if spreads[fresh.sweep] > AXIS_SWITCH * spreads[self.sweep] {
            return false;
        }
        if self.count == 1 || fresh.count == 1 {
            return self.count == fresh.count;
        }
        let span = self.width * self.count as f64;
        let fresh_end = fresh.origin + fresh.width * fresh.count as f64;
        fresh.origin >= self.origin - span / 2.0
            && fresh_end <= self.origin + 1.5 * span
            && fresh.width <= 2.0 * self.width
            && fresh.width >= self.width / 2.0
    }

    fn slab_of(&self, x: f64) -> usize {
        if self.count == 1 {
            return 0;
        }
        // A NaN converts to 0; its box overlaps nothing anyway.
        (((x - self.origin) / self.width).floor().max(0.0) as usize).min(self.count - 1)
    }

    /// The first and last slab the box lies in.
    fn span(&self, b: &Aabb) -> (usize, usize) {
        (
            self.slab_of(b.min[self.slab]),
            self.slab_of(b.max[self.slab]),
        )
    }

    fn entry(&self, b: &Aabb, id: usize) -> Entry {
        Entry {
            min: b.min[self.sweep],
            max: b.max[self.sweep],
            lo: [b.min[self.slab], b.min[self.other]],
            hi: [b.max[self.slab], b.max[self.other]],
            id,
        }
    }
}

/// Sweep-and-prune over a set of boxes identified by their index.
#[derive(Clone, Debug, Default)]
pub struct SweepAndPrune {
    layout: Layout,
    slabs: Vec<Vec<Entry>>,
    /// Per box, the slabs it lies in.
    spans: Vec<(usize, usize)>,
    tests: usize,
}

impl SweepAndPrune {
    pub fn new() -> SweepAndPrune {
        SweepAndPrune::default()
    }

    /// Replaces the boxes; box `i` has id `i`. When the count is unchanged the previous order
    /// is repaired incrementally, which is fast when the boxes moved coherently.
    pub fn update(&mut self, boxes: &[Aabb]) {
        if boxes.len() != self.spans.len() || !self.layout.suits(boxes) {
            self.rebuild(boxes);
            return;
        }
        let layout = self.layout;
        let spans: Vec<(usize, usize)> = boxes.iter().map(|b| layout.span(b)).collect();
        for (s, slab) in self.slabs.iter_mut().enumerate() {
            slab.retain_mut(|e| {
                let (first, last) = spans[e.id];
                *e = layout.entry(&boxes[e.id], e.id);
                first <= s && s <= last
            });
        }
        for (id, (&old, &new)) in self.spans.iter().zip(&spans).enumerate() {
            if old != new {
                for s in (new.0..=new.1).filter(|&s| s < old.0 || s > old.1) {
                    self.slabs[s].push(layout.entry(&boxes[id], id));
                }
            }
        }
        for slab in &mut self.slabs {
            insertion_sort(slab);
        }
        self.spans = spans;
    }

    fn rebuild(&mut self, boxes: &[Aabb]) {
        let layout = Layout::plan(boxes);
        self.layout = layout;
        self.spans = boxes.iter().map(|b| layout.span(b)).collect();
        self.slabs = vec![Vec::new(); layout.count];
        for (id, b) in boxes.iter().enumerate() {
            let (first, last) = self.spans[id];
            for slab in &mut self.slabs[first..=last] {
                slab.push(layout.entry(b, id));
            }
        }
        for slab in &mut self.slabs {
            slab.sort_by(|a, b| a.min.total_cmp(&b.min));
        }
    }

    /// Every pair `(i, j)`, `i < j`, of overlapping boxes (touching counts) for which `keep(i,
    /// j)` is true, e.g. not two directly linked parts of one articulated body. Sorted.
    pub fn pairs(&mut self, mut keep: impl FnMut(usize, usize) -> bool) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut tests = 0;
        for (s, slab) in self.slabs.iter().enumerate() {
            for (k, a) in slab.iter().enumerate() {
                for b in &slab[k + 1..] {
                    if b.min > a.max {
                        break;
                    }
                    tests += 1;
                    // The sweep axis is re-checked so that a box with a NaN bound overlaps
                    // nothing.
                    let overlap = b.min <= a.max
                        && a.min <= b.max
                        && (0..2).all(|m| a.lo[m] <= b.hi[m] && b.lo[m] <= a.hi[m]);
                    if overlap && self.layout.slab_of(a.lo[0].max(b.lo[0])) == s {
                        let pair = (a.id.min(b.id), a.id.max(b.id));
                        if keep(pair.0, pair.1) {
                            out.push(pair);
                        }
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
        // Boxes about 1 wide in 100: about 2% of pairs overlap on the sweep axis, and slabs
        // a few boxes wide leave a small fraction of those to compare.
        assert!(sap.tests() * 500 < all_pairs, "{} tests", sap.tests());
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
