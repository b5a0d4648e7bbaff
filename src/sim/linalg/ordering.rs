//! Fill-reducing column order for sparse LU: minimum degree on the pattern of `A + Aᵀ`.

use super::SparseMatrix;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// An elimination order of `pattern`'s columns: repeatedly eliminate the node of least degree
/// in the symmetric elimination graph (ties by lowest index, so the order is deterministic),
/// joining its neighbours into a clique. `order[k]` is the column eliminated at step `k`.
///
/// This is the plain algorithm on an explicit graph, without the quotient-graph and
/// supervariable refinements of AMD; it is meant for components of up to a few thousand
/// variables, where it runs in milliseconds once per pattern.
pub fn minimum_degree(pattern: &SparseMatrix) -> Vec<usize> {
    let n = pattern.n();
    let mut adjacent: Vec<Vec<usize>> = vec![Vec::new(); n];
    for c in 0..n {
        for (r, _) in pattern.column(c) {
            if r != c {
                adjacent[r].push(c);
                adjacent[c].push(r);
            }
        }
    }
    for list in &mut adjacent {
        list.sort_unstable();
        list.dedup();
    }
    let mut eliminated = vec![false; n];
    let mut heap: BinaryHeap<Reverse<(usize, usize)>> =
        (0..n).map(|v| Reverse((adjacent[v].len(), v))).collect();
    let mut order = Vec::with_capacity(n);
    let mut merged = Vec::new();
    while let Some(Reverse((degree, v))) = heap.pop() {
        if eliminated[v] || degree != adjacent[v].len() {
            continue;
        }
        eliminated[v] = true;
        order.push(v);
        let clique = std::mem::take(&mut adjacent[v]);
        for &u in &clique {
            merged.clear();
            merge_without(&adjacent[u], &clique, u, v, &mut merged);
            std::mem::swap(&mut adjacent[u], &mut merged);
            heap.push(Reverse((adjacent[u].len(), u)));
        }
    }
    order
}

/// Sorted union of `a` and `b` without `skip_a` and `skip_b`, into `out`.
fn merge_without(a: &[usize], b: &[usize], skip_a: usize, skip_b: usize, out: &mut Vec<usize>) {
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let next = match (a.get(i), b.get(j)) {
            (Some(&x), Some(&y)) if x == y => {
                i += 1;
                j += 1;
                x
            }
            (Some(&x), Some(&y)) if x < y => {
                i += 1;
                x
            }
            (Some(&x), None) => {
                i += 1;
                x
            }
            (_, Some(&y)) => {
                j += 1;
                y
            }
            (None, None) => break,
        };
        if next != skip_a && next != skip_b {
            out.push(next);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_arrow_matrix_eliminates_the_hub_at_the_end() {
        // Node 0 connects to every other node: eliminating it first would fill everything.
        let n = 6;
        let mut entries: Vec<(usize, usize)> = (0..n).map(|i| (i, i)).collect();
        for i in 1..n {
            entries.push((0, i));
            entries.push((i, 0));
        }
        let (m, _) = SparseMatrix::with_pattern(n, &entries);
        let order = minimum_degree(&m);
        assert_eq!(order.len(), n);
        // Once only one leaf is left the hub ties with it; either way nothing fills.
        assert!(order[n - 2..].contains(&0), "order {order:?}");
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..n).collect::<Vec<_>>());
    }

    #[test]
    fn merge_skips_and_deduplicates() {
        let mut out = Vec::new();
        merge_without(&[1, 3, 5, 7], &[2, 3, 6, 7, 9], 5, 9, &mut out);
        assert_eq!(out, vec![1, 2, 3, 6, 7]);
    }
}
