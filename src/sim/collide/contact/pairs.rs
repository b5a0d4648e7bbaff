//! The persistent pairs, kept by pair and by body: a back-up, a wake-up or an instant asks for
//! the pairs of one body many times over, and a pile holds hundreds of pairs, so that question
//! is answered from an index by body instead of a scan of every pair.

use super::solve::WarmCorner;
use crate::lang::fxhash::FxHashMap;
use std::collections::{BTreeMap, BTreeSet};

/// A persistent contact.
#[derive(Clone, Debug)]
pub(super) struct Persistent {
    /// When it became persistent (a back-up to before undoes it).
    pub since: f64,
    /// The last solve's impulses per corner, to start the next one from.
    pub warm: Vec<WarmCorner>,
    /// Its last solve's outcome (see `opens`).
    pub solved: Option<Solved>,
}

/// What a persistent pair's last solve gave.
#[derive(Clone, Copy, Debug)]
pub(super) struct Solved {
    /// When.
    pub time: f64,
    /// The pair's gap then (negative: overlap).
    pub gap: f64,
}

/// The persistent pairs `(i, j)`, `i < j`, in pair order, with each body's partners.
#[derive(Clone, Debug, Default)]
pub(super) struct Pairs {
    by_pair: BTreeMap<(usize, usize), Persistent>,
    /// Each body's partners, in index order: with `i < b < j`, the pairs `(i, b)` come first,
    /// as in `by_pair`.
    by_body: FxHashMap<usize, BTreeSet<usize>>,
}

impl Pairs {
    /// Whether `key` is persistent.
    pub fn contains(&self, key: (usize, usize)) -> bool {
        self.by_pair.contains_key(&key)
    }

    pub fn get(&self, key: (usize, usize)) -> Option<&Persistent> {
        self.by_pair.get(&key)
    }

    pub fn get_mut(&mut self, key: (usize, usize)) -> Option<&mut Persistent> {
        self.by_pair.get_mut(&key)
    }

    /// Makes `key` persistent with `pair` unless it already is.
    pub fn insert_new(&mut self, key: (usize, usize), pair: Persistent) {
        if self.by_pair.contains_key(&key) {
            return;
        }
        self.by_pair.insert(key, pair);
        self.by_body.entry(key.0).or_default().insert(key.1);
        self.by_body.entry(key.1).or_default().insert(key.0);
    }

    /// Ends the persistence of `key`.
    pub fn remove(&mut self, key: (usize, usize)) {
        if self.by_pair.remove(&key).is_some() {
            for (b, other) in [(key.0, key.1), (key.1, key.0)] {
                if let Some(partners) = self.by_body.get_mut(&b) {
                    partners.remove(&other);
                    if partners.is_empty() {
                        self.by_body.remove(&b);
                    }
                }
            }
        }
    }

    /// Every pair, in pair order.
    pub fn keys(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.by_pair.keys().copied()
    }

    /// Every pair with its record, in pair order.
    pub fn iter(&self) -> impl Iterator<Item = ((usize, usize), &Persistent)> + '_ {
        self.by_pair.iter().map(|(&key, pair)| (key, pair))
    }

    /// The pairs of body `b`, in pair order.
    pub fn of(&self, b: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.by_body
            .get(&b)
            .into_iter()
            .flatten()
            .map(move |&other| (b.min(other), b.max(other)))
    }

    /// Ends the pairs of body `b` whose record `undone` says so.
    pub fn remove_of(&mut self, b: usize, undone: impl Fn(&Persistent) -> bool) {
        let gone: Vec<(usize, usize)> = self
            .of(b)
            .filter(|key| undone(&self.by_pair[key]))
            .collect();
        for key in gone {
            self.remove(key);
        }
    }
}

impl FromIterator<((usize, usize), Persistent)> for Pairs {
    fn from_iter<I: IntoIterator<Item = ((usize, usize), Persistent)>>(iter: I) -> Pairs {
        let mut pairs = Pairs::default();
        for (key, pair) in iter {
            pairs.insert_new(key, pair);
        }
        pairs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(since: f64) -> Persistent {
        Persistent {
            since,
            warm: Vec::new(),
            solved: None,
        }
    }

    #[test]
    fn a_bodys_pairs_come_in_pair_order_and_follow_removals() {
        let mut pairs: Pairs = [
            ((1, 5), pair(0.0)),
            ((5, 9), pair(1.0)),
            ((2, 5), pair(2.0)),
        ]
        .into_iter()
        .collect();
        pairs.insert_new((0, 1), pair(3.0));
        assert_eq!(pairs.of(5).collect::<Vec<_>>(), [(1, 5), (2, 5), (5, 9)]);
        pairs.remove_of(5, |p| p.since >= 1.0);
        assert_eq!(pairs.of(5).collect::<Vec<_>>(), [(1, 5)]);
        assert_eq!(pairs.of(9).count(), 0);
        assert_eq!(pairs.keys().collect::<Vec<_>>(), [(0, 1), (1, 5)]);
        pairs.remove((1, 5));
        assert_eq!(pairs.of(1).collect::<Vec<_>>(), [(0, 1)]);
        assert!(!pairs.by_body.contains_key(&5));
    }

    #[test]
    fn inserting_a_persistent_pair_again_keeps_its_record() {
        let mut pairs = Pairs::default();
        pairs.insert_new((3, 4), pair(1.0));
        pairs.insert_new((3, 4), pair(2.0));
        assert_eq!(pairs.get((3, 4)).map(|p| p.since), Some(1.0));
    }
}
