//! What each body's checked motion is known to sweep: the boxes of the check windows it was
//! checked over.
//!
//! A window in which only a few bodies are checked (those catching up after a back-up or an
//! incremental update) must still test them against every other body. Reading every other
//! body's state from the tracks to box it would make each such window cost as much as a full
//! one; the boxes recorded when those bodies were checked over the same stretch of time bound
//! them just as well, and cost a lookup. Records hold only while the motion they were taken
//! from stands: a truncation forgets what lies after its time.
//!
//! A tracked body's records cover its motion without gaps from the start to the time it is
//! checked to (every check of a body records what it swept, and a truncation moves both
//! back). So the bodies such a window has to look at are those whose records near the window
//! come close to a checked body: [`KnownBoxes::near`] finds them from a coarse map per
//! stretch of time without looking at every body's records.

use crate::geom::Aabb;
use crate::sim::memory::with_room;
use nalgebra::Vector3;
use std::sync::Arc;

/// One body stays inside `bounds` over `[from, to]`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Swept {
    from: f64,
    to: f64,
    bounds: Aabb,
}

/// Per body, boxes holding it over the windows it was checked over, in order of their start.
///
/// Each record lies within one stretch (see `stretches`): a window crossing into the next
/// stretch is recorded as two pieces with its box, and a piece is merged into the record
/// before it when they meet in the same stretch. So a body keeps about one record per window
/// of time however often it was checked; a body backed up thousands of times within one
/// window (a jam resolved again and again) would otherwise pile up a record per back-up, and
/// every truncation and lookup would walk them all.
///
/// Each body's records are shared on copy ([`KnownBoxes::inherit`]) and copied only when
/// changed, so that handing them to the collider of an edited scene costs nothing per record.
#[derive(Clone, Debug)]
pub(crate) struct KnownBoxes {
    bodies: Vec<Arc<Vec<Swept>>>,
    /// The longest span of a record (the check window): records starting earlier than a
    /// lookup by more than this cannot reach it.
    window: f64,
    /// Where the first stretch begins (the simulation's start).
    start: f64,
    /// Per stretch of time one window long from `start`, per column (see `columns`), a box
    /// holding every record of the column's body that ever reached into the stretch (empty
    /// if none did, and for the columns past its end). It only grows, so it stays a superset
    /// of what the records say through truncations and new records.
    stretches: Vec<Arc<Stretch>>,
    /// Each body's column in the stretches. An edit that adds or deletes bodies gives the
    /// added ones new columns and leaves the deleted ones' columns empty of bodies, instead
    /// of moving every box of every stretch (at 1,000 bodies, a few megabytes copied per
    /// update).
    columns: Vec<usize>,
    /// Each column's body, `None` for a deleted body's.
    column_bodies: Vec<Option<usize>>,
    /// The stretches before this one are forgotten (empty): no window reaches them any more.
    forgotten: usize,
}

/// The box holding nothing: the union with it changes nothing, and nothing overlaps it.
const EMPTY: Aabb = Aabb {
    min: Vector3::new(f64::INFINITY, f64::INFINITY, f64::INFINITY),
    max: Vector3::new(f64::NEG_INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY),
};

/// Columns per block of a [`Stretch`].
const BLOCK: usize = 32;

/// One stretch's boxes, per column, and per block of [`BLOCK`] columns a box holding theirs:
/// a lookup tests the blocks and only the columns of those its box meets. Testing every
/// column was most of the run after adding a body to 1,000 (the new body alone checked, each
/// of its windows against a thousand boxes). Both only grow, so a block's box holds its
/// columns' through every change.
#[derive(Clone, Debug, Default)]
struct Stretch {
    boxes: Vec<Aabb>,
    blocks: Vec<Aabb>,
}

impl Stretch {
    /// The boxes of `columns` columns, all empty, with room for more ([`with_room`]): an
    /// edit that adds a body gives it a new column in every stretch its motion reaches.
    fn empty(columns: usize) -> Stretch {
        let mut stretch = Stretch {
            boxes: Vec::with_capacity(with_room(columns)),
            blocks: Vec::with_capacity(with_room(columns.div_ceil(BLOCK))),
        };
        stretch.reach(columns);
        stretch
    }

    /// Makes room for `columns` columns (the new ones empty).
    fn reach(&mut self, columns: usize) {
        self.boxes.resize(columns, EMPTY);
        self.blocks.resize(columns.div_ceil(BLOCK), EMPTY);
    }

    /// Makes column `c`'s box hold `bounds` too.
    fn widen(&mut self, c: usize, bounds: &Aabb) {
        self.boxes[c] = self.boxes[c].union(bounds);
        self.blocks[c / BLOCK] = self.blocks[c / BLOCK].union(bounds);
    }

    fn is_empty(&self) -> bool {
        self.boxes.is_empty()
    }

    /// The columns whose boxes overlap `bounds`.
    fn overlapping<'a>(&'a self, bounds: &'a Aabb) -> impl Iterator<Item = usize> + 'a {
        (self.blocks.iter().enumerate())
            .filter(|(_, block)| block.overlaps(bounds))
            .flat_map(move |(k, _)| {
                let columns = k * BLOCK..((k + 1) * BLOCK).min(self.boxes.len());
                columns.filter(move |&c| self.boxes[c].overlaps(bounds))
            })
    }
}

impl KnownBoxes {
    /// Nothing known for `bodies` bodies checked in windows `window` long from `start`.
    pub fn new(bodies: usize, start: f64, window: f64) -> KnownBoxes {
        KnownBoxes {
            bodies: vec![Arc::default(); bodies],
            window,
            start,
            stretches: Vec::new(),
            columns: (0..bodies).collect(),
            column_bodies: (0..bodies).map(Some).collect(),
            forgotten: 0,
        }
    }

    /// The stretch holding time `t`.
    fn stretch(&self, t: f64) -> usize {
        ((t - self.start) / self.window).floor().max(0.0) as usize
    }

    /// The stretches `[from, to]` reaches into.
    fn stretches_of(&self, from: f64, to: f64) -> std::ops::RangeInclusive<usize> {
        self.stretch(from)..=self.stretch(to)
    }

    /// Makes body `b`'s box of each stretch `[from, to]` reaches into hold `bounds` too.
    fn mark(&mut self, b: usize, from: f64, to: f64, bounds: &Aabb) {
        for k in self.stretches_of(from, to) {
            self.widen(k, b, bounds);
        }
    }

    /// Makes body `b`'s box of stretch `k` hold `bounds` too.
    fn widen(&mut self, k: usize, b: usize, bounds: &Aabb) {
        let columns = self.column_bodies.len();
        if self.stretches.len() <= k {
            self.stretches
                .resize_with(k + 1, || Arc::new(Stretch::empty(columns)));
        }
        let stretch = Arc::make_mut(&mut self.stretches[k]);
        stretch.reach(columns);
        stretch.widen(self.columns[b], bounds);
    }

    /// Body `b` stays inside `bounds` over `[from, to]` (at most a window long). Supersedes
    /// what was recorded for `b` from `from` on.
    pub fn record(&mut self, b: usize, from: f64, to: f64, bounds: Aabb) {
        let list = Arc::make_mut(&mut self.bodies[b]);
        // Checks go forward in time: a record nearly always starts after the last one, and
        // the search through a long list would cost a cache miss per halving.
        let keep = match list.last() {
            Some(last) if last.from < from => list.len(),
            _ => list.partition_point(|s| s.from < from),
        };
        list.truncate(keep);
        let boundary = self.start + (self.stretch(from) + 1) as f64 * self.window;
        self.add(b, from, to.min(boundary), bounds);
        if to > boundary {
            self.add(b, boundary, to, bounds);
        }
    }

    /// Appends `[from, to]` (within one stretch) to body `b`'s records, merged into the last
    /// one when that reaches it in the same stretch.
    fn add(&mut self, b: usize, from: f64, to: f64, bounds: Aabb) {
        let same_stretch = self.bodies[b]
            .last()
            .is_some_and(|last| self.stretch(last.from) == self.stretch(from));
        let list = Arc::make_mut(&mut self.bodies[b]);
        match list.last_mut() {
            Some(last) if same_stretch && last.to >= from && to - last.from <= self.window => {
                last.to = last.to.max(to);
                last.bounds = last.bounds.union(&bounds);
            }
            _ => list.push(Swept { from, to, bounds }),
        }
        let last = *list.last().expect("just recorded");
        self.mark(b, last.from, last.to, &last.bounds);
    }

    /// Body `b`'s motion after `time` changed: forgets the records starting at or after it and
    /// ends those running past it there (they still hold the motion up to `time`).
    pub fn truncate(&mut self, b: usize, time: f64) {
        let list = Arc::make_mut(&mut self.bodies[b]);
        let keep = list.partition_point(|s| s.from < time);
        list.truncate(keep);
        // A record spans at most a window: only those starting within one of `time` reach it.
        let reaching = list.partition_point(|s| s.from < time - self.window);
        for s in &mut list[reaching..] {
            s.to = s.to.min(time);
        }
    }

    /// Takes over what `other` (checked in the same windows, before an edit) knows: the
    /// records of each of its bodies `o` that `keep(o)` names as body `b` here, and the
    /// stretch boxes of every body `map` carries over (`map[o]`: its index here), which stay
    /// supersets of the records (a body not kept is checked again from the start). The
    /// stretches are shared, not copied: a body keeps its column, an added body takes a new
    /// one; only when the columns left without a body outnumber the bodies are the boxes
    /// moved into columns in body order.
    pub fn inherit(
        &mut self,
        other: &KnownBoxes,
        map: &[Option<usize>],
        keep: impl Fn(usize) -> Option<usize>,
    ) {
        for o in 0..map.len() {
            if let Some(b) = keep(o) {
                self.bodies[b] = other.bodies[o].clone();
            }
        }
        let n = self.bodies.len();
        self.forgotten = other.forgotten;
        self.stretches = other.stretches.clone();
        let same = map.len() == n && map.iter().enumerate().all(|(o, &b)| b == Some(o));
        if same {
            self.columns.clone_from(&other.columns);
            self.column_bodies.clone_from(&other.column_bodies);
            return;
        }
        let mut columns = vec![usize::MAX; n];
        let mut column_bodies = other.column_bodies.clone();
        for (o, &c) in other.columns.iter().enumerate() {
            column_bodies[c] = map[o];
            if let Some(b) = map[o] {
                columns[b] = c;
            }
        }
        for (b, c) in columns.iter_mut().enumerate() {
            if *c == usize::MAX {
                *c = column_bodies.len();
                column_bodies.push(Some(b));
            }
        }
        (self.columns, self.column_bodies) = (columns, column_bodies);
        if self.column_bodies.len() > 2 * n.max(1) {
            self.compact();
        }
    }

    /// Moves the boxes into columns in body order, dropping the columns without a body.
    fn compact(&mut self) {
        let columns = &self.columns;
        for stretch in &mut self.stretches {
            if stretch.is_empty() {
                continue;
            }
            let mut moved = Stretch::empty(columns.len());
            for (b, &c) in columns.iter().enumerate() {
                if let Some(bounds) = stretch.boxes.get(c) {
                    moved.widen(b, bounds);
                }
            }
            *stretch = Arc::new(moved);
        }
        self.columns = (0..self.bodies.len()).collect();
        self.column_bodies = (0..self.bodies.len()).map(Some).collect();
    }

    /// Forgets what lies wholly before `time`: no window reaches back before it any more.
    /// Keeps a long live run's memory bounded.
    pub fn forget_before(&mut self, time: f64) {
        let current = *self.stretches_of(time, time).start();
        let done = current.min(self.stretches.len());
        if done <= self.forgotten {
            return;
        }
        for stretch in &mut self.stretches[self.forgotten..done] {
            *stretch = Arc::default();
        }
        self.forgotten = done;
        // A record spans at most a window: those starting a window before `time` end before it.
        for list in &mut self.bodies {
            let gone = list.partition_point(|s| s.from < time - self.window);
            if gone > 0 {
                Arc::make_mut(list).drain(..gone);
            }
        }
    }

    /// The start of the first record of body `b` whose box overlaps `bounds`, if any.
    pub fn first_overlap(&self, b: usize, bounds: &Aabb) -> Option<f64> {
        self.bodies[b]
            .iter()
            .find(|s| s.bounds.overlaps(bounds))
            .map(|s| s.from)
    }

    /// Adds to `found` every body whose records over `[from, to]` may overlap `bounds` (and
    /// some that do not), each at most once per stretch.
    pub fn near(&self, bounds: &Aabb, from: f64, to: f64, found: &mut Vec<usize>) {
        for k in self.stretches_of(from, to) {
            let Some(stretch) = self.stretches.get(k) else {
                break;
            };
            found.extend((stretch.overlapping(bounds)).filter_map(|c| self.column_bodies[c]));
        }
    }

    /// A box holding body `b` over all of `[from, to]`, if its records cover that interval.
    pub fn over(&self, b: usize, from: f64, to: f64) -> Option<Aabb> {
        let list = &self.bodies[b];
        let first = list.partition_point(|s| s.from < from - self.window);
        let mut covered = from;
        let mut bounds: Option<Aabb> = None;
        for s in list[first..].iter().take_while(|s| s.from <= to) {
            if s.to < from {
                continue;
            }
            if s.from > covered {
                return None;
            }
            covered = covered.max(s.to);
            bounds = Some(bounds.map_or(s.bounds, |b| b.union(&s.bounds)));
        }
        if covered >= to {
            bounds
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube(x: f64) -> Aabb {
        Aabb::new(Vector3::repeat(x), Vector3::repeat(x + 1.0))
    }

    #[test]
    fn near_finds_bodies_in_every_block_of_columns() {
        // Bodies 3 apart over several blocks, one of them later next to where another was.
        let n = 3 * BLOCK + 5;
        let mut known = KnownBoxes::new(n, 0.0, 0.1);
        for b in 0..n {
            known.record(b, 0.0, 0.1, cube(3.0 * b as f64));
        }
        known.record(5, 0.3, 0.4, cube(3.0 * (2 * BLOCK + 1) as f64));
        let near = |known: &KnownBoxes, b: usize, from: f64, to: f64| {
            let mut found = Vec::new();
            known.near(&cube(3.0 * b as f64), from, to, &mut found);
            found.sort_unstable();
            found.dedup();
            found
        };
        for b in [0, BLOCK - 1, BLOCK, 2 * BLOCK + 1, n - 1] {
            assert_eq!(near(&known, b, 0.0, 0.1), vec![b]);
        }
        assert_eq!(
            near(&known, 2 * BLOCK + 1, 0.15, 0.2),
            vec![5, 2 * BLOCK + 1]
        );
        // Boxes moved into columns in body order keep their blocks' boxes.
        known.compact();
        assert_eq!(near(&known, BLOCK + 2, 0.0, 0.1), vec![BLOCK + 2]);
        assert_eq!(
            near(&known, 2 * BLOCK + 1, 0.15, 0.2),
            vec![5, 2 * BLOCK + 1]
        );
    }

    #[test]
    fn a_lookup_joins_the_records_overlapping_it() {
        let mut known = KnownBoxes::new(1, 0.0, 0.1);
        known.record(0, 0.0, 0.1, cube(0.0));
        known.record(0, 0.1, 0.2, cube(1.0));
        known.record(0, 0.2, 0.3, cube(5.0));
        let joined = known.over(0, 0.05, 0.15).unwrap();
        assert_eq!(joined, cube(0.0).union(&cube(1.0)));
        assert_eq!(known.over(0, 0.21, 0.3), Some(cube(5.0)));
    }

    #[test]
    fn nothing_is_claimed_beyond_or_between_the_records() {
        let mut known = KnownBoxes::new(2, 0.0, 0.1);
        known.record(0, 0.0, 0.1, cube(0.0));
        assert_eq!(known.over(0, 0.05, 0.15), None);
        assert_eq!(known.over(1, 0.0, 0.1), None);
        known.record(0, 0.2, 0.3, cube(0.0));
        assert_eq!(known.over(0, 0.05, 0.25), None);
    }

    #[test]
    fn a_truncation_keeps_only_the_motion_before_it() {
        let mut known = KnownBoxes::new(1, 0.0, 0.1);
        known.record(0, 0.0, 0.1, cube(0.0));
        known.record(0, 0.1, 0.2, cube(1.0));
        known.truncate(0, 0.15);
        assert_eq!(known.over(0, 0.11, 0.15), Some(cube(1.0)));
        assert_eq!(known.over(0, 0.1, 0.16), None);
        known.truncate(0, 0.1);
        assert_eq!(known.over(0, 0.05, 0.1), Some(cube(0.0)));
        assert_eq!(known.over(0, 0.05, 0.11), None);
    }

    #[test]
    fn records_within_one_stretch_merge() {
        let mut known = KnownBoxes::new(1, 0.0, 0.1);
        known.record(0, 0.0, 0.05, cube(0.0));
        known.record(0, 0.02, 0.07, cube(1.0));
        assert_eq!(known.bodies[0].len(), 1);
        assert_eq!(known.over(0, 0.0, 0.07), Some(cube(0.0).union(&cube(1.0))));
        // Crossing into the next stretch: its first piece joins the record of this one.
        known.record(0, 0.07, 0.12, cube(2.0));
        assert_eq!(known.bodies[0].len(), 2);
        assert_eq!(known.over(0, 0.11, 0.12), Some(cube(2.0)));
        let all = cube(0.0).union(&cube(2.0));
        assert_eq!(known.over(0, 0.08, 0.12), Some(all));
    }

    #[test]
    fn a_body_backed_up_again_and_again_keeps_about_one_record_per_window() {
        // A jam resolved every millionth of a window: each back-up truncates the body just
        // after the start of its last check, which then runs a whole window on.
        let mut known = KnownBoxes::new(1, 0.0, 0.1);
        let mut t = 0.0;
        for k in 0..10_000 {
            known.record(0, t, t + 0.1, cube(f64::from(k) * 1e-4));
            t += 1e-5;
            known.truncate(0, t);
        }
        assert!(
            known.bodies[0].len() <= 2,
            "{} records",
            known.bodies[0].len()
        );
        let all = cube(0.0).union(&cube(0.9999));
        assert_eq!(known.over(0, 0.0, t), Some(all));
        // Pieces keep the box of the whole check they came from.
        known.record(0, 0.15, 0.25, cube(7.0));
        assert_eq!(known.over(0, 0.2, 0.25), Some(cube(7.0)));
        assert_eq!(known.over(0, 0.15, 0.2).map(|b| b.max), Some(cube(7.0).max));
    }

    #[test]
    fn near_finds_the_bodies_whose_records_overlap_a_box_over_an_interval() {
        let mut known = KnownBoxes::new(3, 0.0, 0.1);
        known.record(0, 0.0, 0.1, cube(0.0));
        known.record(0, 0.1, 0.2, cube(5.0));
        known.record(1, 0.0, 0.1, cube(3.0));
        known.record(2, 0.05, 0.15, cube(0.5));
        fn near(known: &KnownBoxes, from: f64, to: f64, x: f64) -> Vec<usize> {
            let mut found = Vec::new();
            known.near(&cube(x), from, to, &mut found);
            found.sort_unstable();
            found.dedup();
            found
        }
        assert_eq!(near(&known, 0.0, 0.1, 0.0), vec![0, 2]);
        assert_eq!(near(&known, 0.15, 0.2, 5.5), vec![0]);
        assert_eq!(near(&known, 0.0, 0.05, 3.5), vec![1]);
        // A truncation never hides a body: the map stays a superset of the records.
        known.truncate(0, 0.05);
        assert_eq!(near(&known, 0.0, 0.1, 0.0), vec![0, 2]);
    }

    #[test]
    fn a_copied_body_is_found_where_the_original_was() {
        let mut old = KnownBoxes::new(2, 0.0, 0.1);
        old.record(1, 0.0, 0.1, cube(2.0));
        old.record(1, 0.1, 0.2, cube(4.0));
        let mut new = KnownBoxes::new(3, 0.0, 0.1);
        new.inherit(&old, &[None, Some(2)], |o| (o == 1).then_some(2));
        let mut found = Vec::new();
        new.near(&cube(4.0), 0.12, 0.18, &mut found);
        assert_eq!(found, vec![2]);
        assert_eq!(new.over(2, 0.0, 0.2), Some(cube(2.0).union(&cube(4.0))));
    }

    #[test]
    fn bodies_added_and_deleted_edit_after_edit_are_found_at_their_boxes() {
        // Each edit deletes the first of three bodies and adds one at the end: the deleted
        // bodies' columns pile up until they outnumber the bodies and are compacted.
        let mut xs = vec![0.0, 10.0, 20.0];
        let mut known = KnownBoxes::new(3, 0.0, 0.1);
        for (b, &x) in xs.iter().enumerate() {
            known.record(b, 0.0, 0.1, cube(x));
        }
        for edit in 0..10 {
            let mut next = KnownBoxes::new(3, 0.0, 0.1);
            next.inherit(&known, &[None, Some(0), Some(1)], |o| o.checked_sub(1));
            xs.remove(0);
            xs.push(30.0 + 10.0 * f64::from(edit));
            next.record(2, 0.0, 0.1, cube(xs[2]));
            known = next;
            for (b, &x) in xs.iter().enumerate() {
                let mut found = Vec::new();
                known.near(&cube(x), 0.0, 0.1, &mut found);
                found.dedup();
                assert_eq!(found, vec![b], "edit {edit}");
                assert_eq!(known.over(b, 0.0, 0.1), Some(cube(x)), "edit {edit}");
            }
            assert!(known.column_bodies.len() <= 6, "edit {edit}");
        }
    }

    #[test]
    fn forgetting_drops_what_lies_a_window_before() {
        let mut known = KnownBoxes::new(1, 0.0, 0.1);
        for k in 0..10 {
            let t = f64::from(k) * 0.1;
            known.record(0, t, t + 0.1, cube(f64::from(k)));
        }
        known.forget_before(0.55);
        assert_eq!(known.over(0, 0.55, 0.6), Some(cube(5.0)));
        assert_eq!(known.over(0, 0.95, 1.0), Some(cube(9.0)));
        assert!(known.bodies[0].len() <= 6);
        assert!(known.stretches[..5].iter().all(|s| s.is_empty()));
        let mut found = Vec::new();
        known.near(&cube(7.0), 0.7, 0.8, &mut found);
        found.dedup();
        assert_eq!(found, vec![0]);
    }

    #[test]
    fn a_new_record_supersedes_the_later_ones() {
        let mut known = KnownBoxes::new(1, 0.0, 0.1);
        known.record(0, 0.0, 0.1, cube(0.0));
        known.record(0, 0.1, 0.2, cube(1.0));
        known.record(0, 0.05, 0.15, cube(3.0));
        assert_eq!(known.over(0, 0.12, 0.15), Some(cube(3.0)));
        assert_eq!(known.over(0, 0.12, 0.18), None);
    }
}
