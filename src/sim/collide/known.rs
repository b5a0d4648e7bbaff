//! What each body's checked motion is known to sweep: the boxes of the check windows it was
//! checked over.
//!
//! A window in which only a few bodies are checked (those catching up after a back-up or an
//! incremental update) must still test them against every other body. Reading every other
//! body's state from the tracks to box it would make each such window cost as much as a full
//! one; the boxes recorded when those bodies were checked over the same stretch of time bound
//! them just as well, and cost a lookup. Records hold only while the motion they were taken
//! from stands: a truncation forgets what lies after its time.

use crate::geom::Aabb;

/// One body stays inside `bounds` over `[from, to]`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Swept {
    from: f64,
    to: f64,
    bounds: Aabb,
}

/// Per body, boxes holding it over the windows it was checked over, in order of their start.
///
/// Windows shifted by back-ups overlap; a record is merged into the one before it while the
/// two span no more than one window, so a body keeps about two records per window of time
/// however often it was checked.
#[derive(Clone, Debug)]
pub(crate) struct KnownBoxes {
    bodies: Vec<Vec<Swept>>,
    /// The longest span of a record (the check window): records starting earlier than a
    /// lookup by more than this cannot reach it.
    window: f64,
}

impl KnownBoxes {
    /// Nothing known for `bodies` bodies checked in windows `window` long.
    pub fn new(bodies: usize, window: f64) -> KnownBoxes {
        KnownBoxes {
            bodies: vec![Vec::new(); bodies],
            window,
        }
    }

    /// Body `b` stays inside `bounds` over `[from, to]` (at most a window long). Supersedes
    /// what was recorded for `b` from `from` on.
    pub fn record(&mut self, b: usize, from: f64, to: f64, bounds: Aabb) {
        let list = &mut self.bodies[b];
        // Checks go forward in time: a record nearly always starts after the last one, and
        // the search through a long list would cost a cache miss per halving.
        let keep = match list.last() {
            Some(last) if last.from < from => list.len(),
            _ => list.partition_point(|s| s.from < from),
        };
        list.truncate(keep);
        match list.last_mut() {
            Some(last) if last.to >= from && to - last.from <= self.window => {
                last.to = last.to.max(to);
                last.bounds = last.bounds.union(&bounds);
            }
            _ => list.push(Swept { from, to, bounds }),
        }
    }

    /// Body `b`'s motion after `time` changed: forgets the records starting at or after it and
    /// ends those running past it there (they still hold the motion up to `time`).
    pub fn truncate(&mut self, b: usize, time: f64) {
        let list = &mut self.bodies[b];
        let keep = list.partition_point(|s| s.from < time);
        list.truncate(keep);
        // A record spans at most a window: only those starting within one of `time` reach it.
        let reaching = list.partition_point(|s| s.from < time - self.window);
        for s in &mut list[reaching..] {
            s.to = s.to.min(time);
        }
    }

    /// Copies what `other` knows about its body `from` as what this knows about body `to`.
    pub fn copy_body(&mut self, to: usize, other: &KnownBoxes, from: usize) {
        self.bodies[to].clone_from(&other.bodies[from]);
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
    use nalgebra::Vector3;

    fn cube(x: f64) -> Aabb {
        Aabb::new(Vector3::repeat(x), Vector3::repeat(x + 1.0))
    }

    #[test]
    fn a_lookup_joins_the_records_overlapping_it() {
        let mut known = KnownBoxes::new(1, 0.1);
        known.record(0, 0.0, 0.1, cube(0.0));
        known.record(0, 0.1, 0.2, cube(1.0));
        known.record(0, 0.2, 0.3, cube(5.0));
        let joined = known.over(0, 0.05, 0.15).unwrap();
        assert_eq!(joined, cube(0.0).union(&cube(1.0)));
        assert_eq!(known.over(0, 0.21, 0.3), Some(cube(5.0)));
    }

    #[test]
    fn nothing_is_claimed_beyond_or_between_the_records() {
        let mut known = KnownBoxes::new(2, 0.1);
        known.record(0, 0.0, 0.1, cube(0.0));
        assert_eq!(known.over(0, 0.05, 0.15), None);
        assert_eq!(known.over(1, 0.0, 0.1), None);
        known.record(0, 0.2, 0.3, cube(0.0));
        assert_eq!(known.over(0, 0.05, 0.25), None);
    }

    #[test]
    fn a_truncation_keeps_only_the_motion_before_it() {
        let mut known = KnownBoxes::new(1, 0.1);
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
    fn records_within_one_window_merge() {
        let mut known = KnownBoxes::new(1, 0.1);
        known.record(0, 0.0, 0.05, cube(0.0));
        known.record(0, 0.02, 0.07, cube(1.0));
        assert_eq!(known.bodies[0].len(), 1);
        assert_eq!(known.over(0, 0.0, 0.07), Some(cube(0.0).union(&cube(1.0))));
        known.record(0, 0.07, 0.12, cube(2.0));
        assert_eq!(known.bodies[0].len(), 2);
        assert_eq!(known.over(0, 0.08, 0.12), Some(cube(2.0)));
    }

    #[test]
    fn a_new_record_supersedes_the_later_ones() {
        let mut known = KnownBoxes::new(1, 0.1);
        known.record(0, 0.0, 0.1, cube(0.0));
        known.record(0, 0.1, 0.2, cube(1.0));
        known.record(0, 0.05, 0.15, cube(3.0));
        assert_eq!(known.over(0, 0.12, 0.15), Some(cube(3.0)));
        assert_eq!(known.over(0, 0.12, 0.18), None);
    }
}
