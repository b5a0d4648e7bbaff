//! The priority queue of components ready to take a step.

use crate::sim::graph::ComponentId;

/// Components that may take their next step, ordered by a key (smallest first), with removal.
///
/// Under event-driven scheduling the key is the component's last computed time, so the one
/// furthest behind goes first; ties go to the lower component id, which is a dependency
/// order. Under sequential scheduling every key is equal, so components go in dependency
/// order.
///
/// A 4-ary heap of 16-byte entries: with a hundred thousand components queued, a pop touches
/// half as many levels as a binary heap and each node's children share a cache line, which
/// matters because every step pops and pushes once. Removal is lazy: each component's entry
/// carries the component's push count, and an entry whose count is no longer current is
/// skipped when it reaches the top.
#[derive(Debug, Default)]
pub(crate) struct ReadyQueue {
    heap: Vec<Entry>,
    /// Per component: how many times it was pushed, and whether its latest entry is live.
    pushes: Vec<u32>,
    live: Vec<bool>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Entry {
    key: f64,
    component: u32,
    push: u32,
}

impl Entry {
    fn before(&self, other: &Entry) -> bool {
        match self.key.total_cmp(&other.key) {
            std::cmp::Ordering::Less => true,
            std::cmp::Ordering::Greater => false,
            std::cmp::Ordering::Equal => self.component < other.component,
        }
    }
}

const ARITY: usize = 4;

impl ReadyQueue {
    pub(crate) fn new(components: usize) -> ReadyQueue {
        ReadyQueue {
            heap: Vec::with_capacity(components),
            pushes: vec![0; components],
            live: vec![false; components],
        }
    }

    pub(crate) fn contains(&self, c: ComponentId) -> bool {
        self.live[c.index()]
    }

    /// Adds `c` with `key`; it must not be queued already.
    pub(crate) fn push(&mut self, c: ComponentId, key: f64) {
        debug_assert!(!self.contains(c));
        let push = self.pushes[c.index()].wrapping_add(1);
        self.pushes[c.index()] = push;
        self.live[c.index()] = true;
        self.heap.push(Entry {
            key,
            component: c.0,
            push,
        });
        self.sift_up(self.heap.len() - 1);
    }

    /// Takes `c` out of the queue if it is there.
    pub(crate) fn remove(&mut self, c: ComponentId) {
        self.live[c.index()] = false;
    }

    /// Takes out the component with the smallest key.
    pub(crate) fn pop(&mut self) -> Option<ComponentId> {
        while !self.heap.is_empty() {
            let top = self.heap.swap_remove(0);
            if !self.heap.is_empty() {
                self.sift_down(0);
            }
            let c = top.component as usize;
            if self.live[c] && self.pushes[c] == top.push {
                self.live[c] = false;
                return Some(ComponentId(top.component));
            }
        }
        None
    }

    fn sift_up(&mut self, mut i: usize) {
        let entry = self.heap[i];
        while i > 0 {
            let parent = (i - 1) / ARITY;
            if !entry.before(&self.heap[parent]) {
                break;
            }
            self.heap[i] = self.heap[parent];
            i = parent;
        }
        self.heap[i] = entry;
    }

    fn sift_down(&mut self, mut i: usize) {
        let entry = self.heap[i];
        let n = self.heap.len();
        loop {
            let first = ARITY * i + 1;
            if first >= n {
                break;
            }
            let mut best = first;
            for child in first + 1..(first + ARITY).min(n) {
                if self.heap[child].before(&self.heap[best]) {
                    best = child;
                }
            }
            if !self.heap[best].before(&entry) {
                break;
            }
            self.heap[i] = self.heap[best];
            i = best;
        }
        self.heap[i] = entry;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn pops_smallest_key_then_lowest_id_and_skips_removed() {
        let mut q = ReadyQueue::new(4);
        q.push(ComponentId(2), 1.0);
        q.push(ComponentId(0), 3.0);
        q.push(ComponentId(3), 1.0);
        q.push(ComponentId(1), 0.5);
        q.remove(ComponentId(3));
        assert!(!q.contains(ComponentId(3)));
        q.push(ComponentId(3), 5.0);
        let order: Vec<u32> = std::iter::from_fn(|| q.pop()).map(|c| c.0).collect();
        assert_eq!(order, vec![1, 2, 0, 3]);
    }

    proptest! {
        /// Interleaved pushes, removals and pops agree with a sorted list.
        #[test]
        fn behaves_like_a_sorted_set(ops in proptest::collection::vec((0u32..40, 0.0f64..10.0, 0u8..4), 1..300)) {
            let mut q = ReadyQueue::new(40);
            let mut model: Vec<(f64, u32)> = Vec::new();
            for (c, key, op) in ops {
                let id = ComponentId(c);
                match op {
                    0 | 1 if !q.contains(id) => {
                        q.push(id, key);
                        model.push((key, c));
                    }
                    2 => {
                        q.remove(id);
                        model.retain(|&(_, m)| m != c);
                    }
                    _ => {
                        model.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                        let expected = (!model.is_empty()).then(|| model.remove(0).1);
                        prop_assert_eq!(q.pop().map(|c| c.0), expected);
                    }
                }
            }
        }
    }
}
