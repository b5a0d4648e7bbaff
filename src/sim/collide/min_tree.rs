//! The minimum of many changing times, kept up to date in `O(log n)` per change: how far every
//! body is computed, and how far every body is checked for collisions, among thousands.

/// A tournament tree over `n` values; the root holds their minimum.
#[derive(Clone, Debug)]
pub(crate) struct MinTree {
    /// Leaves start at `size`; node `k` holds the minimum of nodes `2k` and `2k + 1`.
    nodes: Vec<f64>,
    size: usize,
}

impl MinTree {
    /// `len` values, all `value`.
    pub fn new(len: usize, value: f64) -> MinTree {
        let size = len.next_power_of_two().max(1);
        let mut nodes = vec![f64::INFINITY; 2 * size];
        for leaf in &mut nodes[size..size + len] {
            *leaf = value;
        }
        for k in (1..size).rev() {
            nodes[k] = nodes[2 * k].min(nodes[2 * k + 1]);
        }
        MinTree { nodes, size }
    }

    pub fn get(&self, i: usize) -> f64 {
        self.nodes[self.size + i]
    }

    pub fn set(&mut self, i: usize, value: f64) {
        let mut k = self.size + i;
        self.nodes[k] = value;
        while k > 1 {
            k /= 2;
            let m = self.nodes[2 * k].min(self.nodes[2 * k + 1]);
            if self.nodes[k] == m {
                break;
            }
            self.nodes[k] = m;
        }
    }

    /// The smallest value (infinite when empty).
    pub fn min(&self) -> f64 {
        self.nodes[1]
    }

    /// The indices of the values below `limit`, in increasing order, found in `O(k log n)`
    /// for `k` of them.
    pub fn below(&self, limit: f64) -> Vec<usize> {
        let mut found = Vec::new();
        let mut stack = vec![1];
        while let Some(k) = stack.pop() {
            if self.nodes[k] >= limit {
                continue;
            }
            if k >= self.size {
                found.push(k - self.size);
            } else {
                stack.extend([2 * k + 1, 2 * k]);
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::MinTree;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn the_root_is_the_minimum(
            len in 1usize..40,
            changes in proptest::collection::vec((0usize..40, -1e3f64..1e3), 0..80),
        ) {
            let mut tree = MinTree::new(len, 5.0);
            let mut plain = vec![5.0; len];
            for (i, v) in changes {
                let i = i % len;
                tree.set(i, v);
                plain[i] = v;
                prop_assert_eq!(tree.get(i), v);
                prop_assert_eq!(tree.min(), plain.iter().copied().fold(f64::INFINITY, f64::min));
            }
        }
    }

    proptest! {
        #[test]
        fn below_lists_exactly_the_smaller_values(
            values in proptest::collection::vec(0.0f64..10.0, 0..40),
            limit in 0.0f64..10.0,
        ) {
            let mut tree = MinTree::new(values.len(), f64::INFINITY);
            for (i, &v) in values.iter().enumerate() {
                tree.set(i, v);
            }
            let plain: Vec<usize> = (0..values.len()).filter(|&i| values[i] < limit).collect();
            prop_assert_eq!(tree.below(limit), plain);
        }
    }

    #[test]
    fn an_empty_tree_has_no_minimum() {
        assert_eq!(MinTree::new(0, 1.0).min(), f64::INFINITY);
    }
}
