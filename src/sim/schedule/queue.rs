//! The priority queue of components ready to take a step.

use crate::sim::graph::ComponentId;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// Components that may take their next step, ordered by a key (smallest first), with removal.
///
/// Under event-driven scheduling the key is the component's last computed time, so the one
/// furthest behind goes first; ties go to the lower component id, which is a dependency
/// order. Under sequential scheduling every key is equal, so components go in dependency
/// order. Removal is lazy: an entry whose generation no longer matches its component's is
/// skipped when it reaches the top.
#[derive(Debug, Default)]
pub(crate) struct ReadyQueue {
    heap: BinaryHeap<Reverse<Entry>>,
    /// The generation of each component's live entry, if it has one.
    live: Vec<Option<u64>>,
    generation: u64,
}

#[derive(Debug, PartialEq)]
struct Entry {
    key: f64,
    component: ComponentId,
    generation: u64,
}

impl Eq for Entry {}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key
            .total_cmp(&other.key)
            .then(self.component.cmp(&other.component))
    }
}

impl ReadyQueue {
    pub(crate) fn new(components: usize) -> ReadyQueue {
        ReadyQueue {
            heap: BinaryHeap::new(),
            live: vec![None; components],
            generation: 0,
        }
    }

    pub(crate) fn contains(&self, c: ComponentId) -> bool {
        self.live[c.index()].is_some()
    }

    /// Adds `c` with `key`; it must not be queued already.
    pub(crate) fn push(&mut self, c: ComponentId, key: f64) {
        debug_assert!(!self.contains(c));
        self.generation += 1;
        self.live[c.index()] = Some(self.generation);
        self.heap.push(Reverse(Entry {
            key,
            component: c,
            generation: self.generation,
        }));
    }

    /// Takes `c` out of the queue if it is there.
    pub(crate) fn remove(&mut self, c: ComponentId) {
        self.live[c.index()] = None;
    }

    /// Takes out the component with the smallest key.
    pub(crate) fn pop(&mut self) -> Option<ComponentId> {
        while let Some(Reverse(entry)) = self.heap.pop() {
            let c = entry.component;
            if self.live[c.index()] == Some(entry.generation) {
                self.live[c.index()] = None;
                return Some(c);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
