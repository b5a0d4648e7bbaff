//! The bodies of a model by name, kept across edits that add or delete bodies at a cost that
//! follows the edit.
//!
//! Each name holds a *key* that stays its own while the body is in the scene, and a table
//! gives each key's place (see [`keys`](super::keys)); an edit that adds or deletes a body
//! hashes only the names added and removed, and sets the places again from the first move on
//! in a pass over a contiguous list of keys. Holding places in the hash map instead had every entry renumbered after an
//! edit near the top, a pass over every entry of the map.

use super::keys::{Keys, FEW_MOVES};
use crate::lang::fxhash::FxHashMap;

/// The bodies by name: see the module documentation.
#[derive(Clone, Debug, Default)]
pub(crate) struct BodyIndex {
    keys: FxHashMap<String, u32>,
    /// By key, its body's place.
    places: Keys,
    /// By place, its body's key.
    by_place: Vec<u32>,
}

impl BodyIndex {
    /// The index of `names`, in order; on a name used twice, that name.
    pub fn of<'a>(names: impl ExactSizeIterator<Item = &'a str>) -> Result<BodyIndex, &'a str> {
        let mut keys = FxHashMap::default();
        keys.reserve(names.len());
        for (i, name) in names.enumerate() {
            if keys.insert(name.to_string(), i as u32).is_some() {
                return Err(name);
            }
        }
        let n = keys.len();
        Ok(BodyIndex {
            keys,
            places: Keys::identity(n),
            by_place: (0..n as u32).collect(),
        })
    }

    /// The place of the body called `name`.
    pub fn get(&self, name: &str) -> Option<usize> {
        let &key = self.keys.get(name)?;
        Some(self.places.place(key) as usize)
    }

    /// Whether a body is called `name`.
    pub fn contains(&self, name: &str) -> bool {
        self.keys.contains_key(name)
    }

    /// Every name and its place, in no order.
    #[cfg(test)]
    pub fn iter(&self) -> impl Iterator<Item = (&str, usize)> {
        (self.keys.iter()).map(|(name, &key)| (name.as_str(), self.places.place(key) as usize))
    }

    /// Moves the index through an edit that `removed` the named bodies (their places before
    /// it, ascending) and `added` the named ones (their places after it, ascending) and kept
    /// the others in their order. An added name already held keeps its body (the caller
    /// checks the names are new).
    pub fn splice(&mut self, removed: &[(usize, &str)], added: &[(usize, &str)]) {
        for &(_, name) in removed {
            if let Some(key) = self.keys.remove(name) {
                self.places.release(key);
            }
        }
        let new_len = self.by_place.len() + added.len() - removed.len();
        let mut keys = Vec::with_capacity(added.len());
        for &(_, name) in added {
            let key = self.places.take();
            self.keys.entry(name.to_string()).or_insert(key);
            keys.push(key);
        }
        let first = if removed.len() + added.len() <= FEW_MOVES {
            for &(o, _) in removed.iter().rev() {
                self.by_place.remove(o);
            }
            for (&(j, _), &key) in added.iter().zip(&keys) {
                self.by_place.insert(j, key);
            }
            let first_removed = removed.first().map_or(new_len, |&(o, _)| o);
            first_removed.min(added.first().map_or(new_len, |&(j, _)| j))
        } else {
            let mut gone = removed.iter().map(|&(o, _)| o).peekable();
            let kept = (self.by_place.iter().enumerate())
                .filter(|&(o, _)| gone.next_if_eq(&o).is_none())
                .map(|(_, &key)| key);
            let mut kept = kept.collect::<Vec<_>>().into_iter();
            let mut new = added.iter().zip(&keys).peekable();
            self.by_place = (0..new_len)
                .map(|j| match new.next_if(|&(&(a, _), _)| a == j) {
                    Some((_, &key)) => key,
                    None => kept.next().expect("the kept bodies fill the other places"),
                })
                .collect();
            0
        };
        self.places.set_places(self.by_place.iter().copied(), first);
        debug_assert_eq!(self.keys.len(), self.by_place.len(), "names are new");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(index: &BodyIndex, names: &[String]) {
        let mut got: Vec<(&str, usize)> = index.iter().collect();
        got.sort_by_key(|&(_, i)| i);
        let expected: Vec<(&str, usize)> = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), i))
            .collect();
        assert_eq!(got, expected);
        for (i, name) in names.iter().enumerate() {
            assert_eq!(index.get(name), Some(i));
        }
    }

    /// Bodies added and removed at the top, in the middle and at the end, few and many, edit
    /// after edit: the index equals one made afresh, and keys are taken again.
    #[test]
    fn splicing_equals_indexing_anew() {
        let mut names: Vec<String> = (0..100).map(|i| format!("b{i}")).collect();
        let mut index = BodyIndex::of(names.iter().map(String::as_str)).unwrap();
        let mut made = 0;
        let edits: Vec<(Vec<usize>, Vec<usize>)> = vec![
            (vec![], vec![0]),
            (vec![50], vec![]),
            (vec![99], vec![10, 99]),
            ((0..60).step_by(3).collect(), vec![]),
            (vec![], (20..60).collect()),
            (vec![0, 1, 2], vec![0, 1, 2, 3]),
        ];
        for (removed, added) in edits {
            let gone: Vec<(usize, String)> =
                removed.iter().map(|&o| (o, names[o].clone())).collect();
            for &o in removed.iter().rev() {
                names.remove(o);
            }
            for &j in &added {
                names.insert(j, format!("new{made}"));
                made += 1;
            }
            let gone: Vec<(usize, &str)> = gone.iter().map(|(o, n)| (*o, n.as_str())).collect();
            let new: Vec<(usize, &str)> = added.iter().map(|&j| (j, names[j].as_str())).collect();
            index.splice(&gone, &new);
            check(&index, &names);
            assert!(
                index.places.len() <= names.len() + 20,
                "keys are taken again"
            );
        }
    }

    #[test]
    fn a_name_used_twice_is_reported() {
        let names = ["a", "b", "a"];
        assert_eq!(BodyIndex::of(names.into_iter()).err(), Some("a"));
    }
}
