//! Islands: the groups of bodies that can touch one another, directly or through others.
//!
//! Within a check window, two bodies whose swept boxes overlap may meet; the islands of the
//! window are the connected groups of that relation (union–find over the candidate pairs). A
//! collision can change only the motion of its own island over the window, so each island
//! resolves its own earliest instant and backs up only its own bodies: a collision in one
//! corner of a crowd costs nothing in another. Contact islands (bodies resting on each other)
//! are the same structure over the persistent contacts.

use crate::lang::fxhash::FxHashMap;

/// Union–find over body indices; bodies never joined are islands of one. Dense: an entry per
/// body index up to the largest joined, so that a join is a few array reads rather than a few
/// hash look-ups (a pile's window checks joined every body of the pile at each of their
/// instants). A window check reuses one (`clear` undoes only what was joined).
#[derive(Debug, Default)]
pub(crate) struct Islands {
    /// Per body index, its parent's index plus one; zero for a root.
    parent: Vec<usize>,
    /// The bodies whose entry is not zero.
    joined: Vec<usize>,
}

impl Islands {
    /// The islands of `pairs`.
    pub fn of(pairs: impl IntoIterator<Item = (usize, usize)>) -> Islands {
        let mut islands = Islands::default();
        for (i, j) in pairs {
            islands.join(i, j);
        }
        islands
    }

    /// `b`'s parent, if it is not a root.
    fn parent_of(&self, b: usize) -> Option<usize> {
        self.parent.get(b).and_then(|&p| p.checked_sub(1))
    }

    /// The representative of `b`'s island: the smallest index in it.
    pub fn find(&mut self, b: usize) -> usize {
        let mut root = b;
        while let Some(p) = self.parent_of(root) {
            root = p;
        }
        // Path halving keeps later finds short.
        let mut x = b;
        while let Some(p) = self.parent_of(x).filter(|&p| p != root) {
            self.parent[x] = root + 1;
            x = p;
        }
        root
    }

    /// Puts `i` and `j` in one island.
    pub fn join(&mut self, i: usize, j: usize) {
        let (a, b) = (self.find(i), self.find(j));
        if a != b {
            // The smaller index becomes the root, so the grouping does not depend on the
            // order the pairs came in.
            let (root, child) = if a < b { (a, b) } else { (b, a) };
            if self.parent.len() <= child {
                self.parent.resize(child + 1, 0);
            }
            self.parent[child] = root + 1;
            self.joined.push(child);
        }
    }

    /// Every body an island of one again, in time proportional to the joins made.
    pub fn clear(&mut self) {
        for b in self.joined.drain(..) {
            self.parent[b] = 0;
        }
    }

    /// Groups `items` by the island of the body `body(item)` names, keeping their order
    /// within each group; the groups are in the order of their first item.
    pub fn group<T: Copy>(&mut self, items: &[T], body: impl Fn(&T) -> usize) -> Vec<Vec<T>> {
        let mut index: FxHashMap<usize, usize> = FxHashMap::default();
        let mut groups: Vec<Vec<T>> = Vec::new();
        for item in items {
            let root = self.find(body(item));
            let g = *index.entry(root).or_insert_with(|| {
                groups.push(Vec::new());
                groups.len() - 1
            });
            groups[g].push(*item);
        }
        groups
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_chain_into_islands_and_strangers_stay_apart() {
        let mut islands = Islands::of([(1, 2), (5, 6), (2, 3)]);
        assert_eq!(islands.find(1), islands.find(3));
        assert_eq!(islands.find(5), islands.find(6));
        assert_ne!(islands.find(1), islands.find(5));
        assert_eq!(islands.find(9), 9);
        let groups = islands.group(&[(3, 'a'), (6, 'b'), (1, 'c'), (9, 'd')], |x| x.0);
        assert_eq!(
            groups,
            vec![vec![(3, 'a'), (1, 'c')], vec![(6, 'b')], vec![(9, 'd')]]
        );
        assert_eq!(islands.find(3), 1);
        islands.clear();
        assert!([1, 2, 3, 5, 6].iter().all(|&b| islands.find(b) == b));
        islands.join(6, 2);
        assert_eq!((islands.find(6), islands.find(1)), (2, 1));
    }
}
