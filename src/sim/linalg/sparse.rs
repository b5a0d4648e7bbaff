//! Sparse LU for large components (a chain of linked boxes gives hundreds of variables in one
//! component, each reading only its neighbours).
//!
//! Left-looking Gilbert–Peierls factorisation: column by column, a sparse triangular solve
//! whose non-zero pattern is found by a depth-first search through `L`, so the work is
//! proportional to the arithmetic actually done. Columns are taken in a minimum-degree order of
//! `A + Aᵀ` (computed once per pattern) to keep fill small; rows are pivoted by threshold
//! partial pivoting that prefers the diagonal, which keeps the fill-reducing order whenever it
//! is numerically safe. Pivots are compared in the row-equilibrated matrix (each row divided by
//! its largest magnitude, as KLU does): in the simulator's `I - h/2 J` stiff springs make a
//! velocity row's position entries dwarf its diagonal, and compared unscaled those entries won
//! every column, filling the factors to nearly half of dense.

use super::ordering::minimum_degree;
use super::Singular;

/// A square matrix in compressed sparse column form with a fixed pattern.
#[derive(Clone, Debug, PartialEq)]
pub struct SparseMatrix {
    n: usize,
    col_start: Vec<usize>,
    rows: Vec<usize>,
    values: Vec<f64>,
}

impl SparseMatrix {
    /// An `n × n` matrix whose pattern holds `entries` (`(row, col)`, any order, duplicates
    /// merged), all values zero. Also returns, for each entry, its storage position.
    ///
    /// # Panics
    /// If an entry lies outside the matrix.
    pub fn with_pattern(n: usize, entries: &[(usize, usize)]) -> (SparseMatrix, Vec<usize>) {
        let mut sorted: Vec<(usize, usize, usize)> = entries
            .iter()
            .enumerate()
            .map(|(k, &(r, c))| {
                assert!(
                    r < n && c < n,
                    "entry ({r}, {c}) outside the {n} x {n} matrix"
                );
                (c, r, k)
            })
            .collect();
        sorted.sort_unstable();
        let mut col_start = vec![0; n + 1];
        let mut rows = Vec::with_capacity(sorted.len());
        let mut positions = vec![0; entries.len()];
        for (i, &(c, r, k)) in sorted.iter().enumerate() {
            let repeat = i > 0 && sorted[i - 1].0 == c && sorted[i - 1].1 == r;
            if !repeat {
                rows.push(r);
                col_start[c + 1] += 1;
            }
            positions[k] = rows.len() - 1;
        }
        for c in 0..n {
            col_start[c + 1] += col_start[c];
        }
        let values = vec![0.0; rows.len()];
        let matrix = SparseMatrix {
            n,
            col_start,
            rows,
            values,
        };
        (matrix, positions)
    }

    pub fn n(&self) -> usize {
        self.n
    }

    /// Number of stored entries.
    pub fn nnz(&self) -> usize {
        self.rows.len()
    }

    /// Storage position of `(row, col)`, if it is in the pattern.
    pub fn position(&self, row: usize, col: usize) -> Option<usize> {
        let range = self.col_start[col]..self.col_start[col + 1];
        self.rows[range.clone()]
            .binary_search(&row)
            .ok()
            .map(|i| range.start + i)
    }

    /// `(row, value)` pairs of column `col`.
    pub fn column(&self, col: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let range = self.col_start[col]..self.col_start[col + 1];
        self.rows[range.clone()]
            .iter()
            .copied()
            .zip(self.values[range].iter().copied())
    }

    /// Row index of every stored value, in storage order.
    pub fn row_indices(&self) -> &[usize] {
        &self.rows
    }

    pub fn values(&self) -> &[f64] {
        &self.values
    }

    pub fn values_mut(&mut self) -> &mut [f64] {
        &mut self.values
    }

    /// `A x`.
    pub fn multiply(&self, x: &[f64]) -> Vec<f64> {
        let mut y = vec![0.0; self.n];
        for (c, &xc) in x.iter().enumerate() {
            for (r, v) in self.column(c) {
                y[r] += v * xc;
            }
        }
        y
    }
}

const NONE: usize = usize::MAX;

/// Pivots whose magnitude is at least this fraction of the column's largest candidate are
/// accepted on the diagonal.
const DIAGONAL_PREFERENCE: f64 = 0.1;

/// The factors `P A Q = L U` of a [`SparseMatrix`], with the column order `Q` fixed for the
/// matrix's pattern and the row order `P` chosen while factoring.
#[derive(Clone, Debug)]
pub struct SparseLu {
    n: usize,
    /// Column of `A` taken at step `k`.
    column_order: Vec<usize>,
    /// Row of `A` pivotal at step `k`, and its inverse.
    pivot_row: Vec<usize>,
    step_of_row: Vec<usize>,
    /// Strictly lower part of `L` by column (unit diagonal implied), rows in `A`'s numbering.
    l_start: Vec<usize>,
    l_rows: Vec<usize>,
    l_values: Vec<f64>,
    /// Strictly upper part of `U` by column, rows as step numbers; the diagonal apart.
    u_start: Vec<usize>,
    u_rows: Vec<usize>,
    u_values: Vec<f64>,
    u_diagonal: Vec<f64>,
    /// Reciprocal of each row's largest magnitude: the factors are of the row-equilibrated
    /// `D A`, so that pivots are compared on a common scale.
    row_scale: Vec<f64>,
    // Workspace reused across factorisations and solves.
    dense: Vec<f64>,
    mark: Vec<usize>,
    reach: Vec<usize>,
    dfs: Vec<(usize, usize)>,
    scratch: Vec<f64>,
}

impl SparseLu {
    /// Prepares to factor matrices with `pattern`'s structure: computes the fill-reducing
    /// column order once.
    pub fn new(pattern: &SparseMatrix) -> SparseLu {
        let n = pattern.n;
        SparseLu {
            n,
            column_order: minimum_degree(pattern),
            pivot_row: vec![NONE; n],
            step_of_row: vec![NONE; n],
            l_start: vec![0; n + 1],
            l_rows: Vec::new(),
            l_values: Vec::new(),
            u_start: vec![0; n + 1],
            u_rows: Vec::new(),
            u_values: Vec::new(),
            u_diagonal: vec![0.0; n],
            row_scale: vec![0.0; n],
            dense: vec![0.0; n],
            mark: vec![NONE; n],
            reach: Vec::with_capacity(n),
            dfs: Vec::new(),
            scratch: vec![0.0; n],
        }
    }

    /// Number of stored entries of `L` and `U` (diagonal included): a measure of fill.
    pub fn factor_nnz(&self) -> usize {
        self.l_rows.len() + self.u_rows.len() + self.n
    }

    /// Factors `a`, which must have the pattern given to [`SparseLu::new`]. Fails at the first
    /// column (of `a`) with no non-zero, finite pivot.
    pub fn factor(&mut self, a: &SparseMatrix) -> Result<(), Singular> {
        assert_eq!(a.n, self.n, "matrix size does not match the factorisation");
        self.step_of_row.fill(NONE);
        self.mark.fill(NONE);
        self.l_rows.clear();
        self.l_values.clear();
        self.u_rows.clear();
        self.u_values.clear();
        self.row_scale.fill(0.0);
        for (&r, v) in a.rows.iter().zip(&a.values) {
            self.row_scale[r] = self.row_scale[r].max(v.abs());
        }
        for s in &mut self.row_scale {
            *s = if *s > 0.0 && s.is_finite() {
                1.0 / *s
            } else {
                1.0
            };
        }
        for k in 0..self.n {
            let col = self.column_order[k];
            self.find_reach(a, col, k);
            for (r, v) in a.column(col) {
                self.dense[r] = v * self.row_scale[r];
            }
            // Sparse triangular solve with the columns of L found so far, in topological order.
            for &i in self.reach.iter().rev() {
                let step = self.step_of_row[i];
                if step == NONE {
                    continue;
                }
                let xi = self.dense[i];
                for p in self.l_start[step]..self.l_start[step + 1] {
                    self.dense[self.l_rows[p]] -= self.l_values[p] * xi;
                }
            }
            let pivot = self.choose_pivot(col).ok_or(Singular { column: col })?;
            let pivot_value = self.dense[pivot];
            for &i in &self.reach {
                let step = self.step_of_row[i];
                if step != NONE {
                    self.u_rows.push(step);
                    self.u_values.push(self.dense[i]);
                } else if i != pivot {
                    self.l_rows.push(i);
                    self.l_values.push(self.dense[i] / pivot_value);
                }
                self.dense[i] = 0.0;
            }
            self.u_diagonal[k] = pivot_value;
            self.step_of_row[pivot] = k;
            self.pivot_row[k] = pivot;
            self.l_start[k + 1] = self.l_rows.len();
            self.u_start[k + 1] = self.u_rows.len();
        }
        Ok(())
    }

    /// Rows that become non-zero in column `col` of `L⁻¹ A`, left in `self.reach` in reverse
    /// topological order (a row after every row it updates).
    fn find_reach(&mut self, a: &SparseMatrix, col: usize, k: usize) {
        self.reach.clear();
        for (start, _) in a.column(col) {
            if self.mark[start] == k {
                continue;
            }
            self.mark[start] = k;
            self.dfs.push((start, 0));
            while let Some(&(node, next)) = self.dfs.last() {
                let step = self.step_of_row[node];
                let children = if step == NONE {
                    &[][..]
                } else {
                    &self.l_rows[self.l_start[step]..self.l_start[step + 1]]
                };
                let unvisited = children[next..].iter().position(|&c| self.mark[c] != k);
                let top = self.dfs.len() - 1;
                match unvisited {
                    Some(offset) => {
                        let child = children[next + offset];
                        self.dfs[top].1 = next + offset + 1;
                        self.mark[child] = k;
                        self.dfs.push((child, 0));
                    }
                    None => {
                        self.dfs.pop();
                        self.reach.push(node);
                    }
                }
            }
        }
    }

    /// The pivot row for the column just computed in `self.dense`: the diagonal row `col` if
    /// it is still free and large enough, else the largest free entry.
    fn choose_pivot(&self, col: usize) -> Option<usize> {
        let mut best = NONE;
        let mut best_abs = 0.0;
        for &i in &self.reach {
            if self.step_of_row[i] == NONE {
                let v = self.dense[i].abs();
                if v > best_abs || v.is_nan() {
                    best = i;
                    best_abs = v;
                }
            }
        }
        if !(best_abs > 0.0 && best_abs.is_finite()) {
            return None;
        }
        // Rows outside the reach hold zero in `dense`, so they never pass this test.
        let diagonal_free = self.step_of_row[col] == NONE;
        if diagonal_free && self.dense[col].abs() >= DIAGONAL_PREFERENCE * best_abs {
            Some(col)
        } else {
            Some(best)
        }
    }

    /// Overwrites `b` with the solution of `A x = b` for the last factored `A`.
    pub fn solve(&mut self, b: &mut [f64]) {
        for (bi, s) in b.iter_mut().zip(&self.row_scale) {
            *bi *= s;
        }
        let z = &mut self.scratch;
        for k in 0..self.n {
            let zk = b[self.pivot_row[k]];
            z[k] = zk;
            for p in self.l_start[k]..self.l_start[k + 1] {
                b[self.l_rows[p]] -= self.l_values[p] * zk;
            }
        }
        for k in (0..self.n).rev() {
            let zk = z[k] / self.u_diagonal[k];
            z[k] = zk;
            for p in self.u_start[k]..self.u_start[k + 1] {
                z[self.u_rows[p]] -= self.u_values[p] * zk;
            }
        }
        for k in 0..self.n {
            b[self.column_order[k]] = z[k];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::linalg::DenseLu;
    use proptest::prelude::*;

    fn build(n: usize, entries: &[(usize, usize, f64)]) -> SparseMatrix {
        let pattern: Vec<(usize, usize)> = entries.iter().map(|&(r, c, _)| (r, c)).collect();
        let (mut m, positions) = SparseMatrix::with_pattern(n, &pattern);
        for (&(_, _, v), &p) in entries.iter().zip(&positions) {
            m.values_mut()[p] += v;
        }
        m
    }

    fn to_dense(m: &SparseMatrix) -> Vec<f64> {
        let n = m.n();
        let mut d = vec![0.0; n * n];
        for c in 0..n {
            for (r, v) in m.column(c) {
                d[r * n + c] = v;
            }
        }
        d
    }

    fn sparse_systems() -> impl Strategy<Value = (usize, Vec<(usize, usize, f64)>, Vec<f64>)> {
        (1usize..40).prop_flat_map(|n| {
            let entry = (0..n, 0..n, -5.0f64..5.0);
            (
                Just(n),
                proptest::collection::vec(entry, 0..4 * n),
                proptest::collection::vec(-3.0f64..3.0, n),
            )
        })
    }

    proptest! {
        /// Random sparse matrices made non-singular by a shifted "diagonal" that is sometimes
        /// off the true diagonal, so row pivoting is exercised; the solution must match.
        #[test]
        fn solves_like_dense_lu((n, mut entries, x) in sparse_systems(), shift in 0usize..3) {
            for i in 0..n {
                entries.push(((i + shift) % n, i, 25.0));
            }
            let a = build(n, &entries);
            let mut lu = SparseLu::new(&a);
            lu.factor(&a).unwrap();
            let mut b = a.multiply(&x);
            lu.solve(&mut b);
            let mut dense = DenseLu::new(n);
            dense.factor(&to_dense(&a)).unwrap();
            let mut reference = a.multiply(&x);
            dense.solve(&mut reference);
            for ((got, want), exact) in b.iter().zip(&reference).zip(&x) {
                prop_assert!((got - want).abs() <= 1e-9 * (1.0 + want.abs()));
                prop_assert!((got - exact).abs() <= 1e-8 * (1.0 + exact.abs()));
            }
        }
    }

    #[test]
    fn refactoring_with_new_values_reuses_the_pattern() {
        let entries = [(0, 0, 2.0), (1, 0, 1.0), (0, 1, 1.0), (1, 1, 3.0)];
        let mut a = build(2, &entries);
        let mut lu = SparseLu::new(&a);
        lu.factor(&a).unwrap();
        let mut b = vec![3.0, 4.0];
        lu.solve(&mut b);
        assert!((b[0] - 1.0).abs() < 1e-15 && (b[1] - 1.0).abs() < 1e-15);
        a.values_mut().copy_from_slice(&[0.0, 1.0, 1.0, 0.0]);
        lu.factor(&a).unwrap();
        let mut b = vec![5.0, 7.0];
        lu.solve(&mut b);
        assert_eq!(b, vec![7.0, 5.0]);
    }

    #[test]
    fn reports_singular_matrices() {
        let a = build(3, &[(0, 0, 1.0), (1, 1, 1.0), (2, 1, 1.0)]);
        let mut lu = SparseLu::new(&a);
        assert!(lu.factor(&a).is_err());
    }

    /// Factors `a` and checks that the factors solve `a x = b` to `tolerance`; returns the
    /// number of entries the factors hold.
    fn factor_and_check(a: &SparseMatrix, tolerance: f64) -> usize {
        let mut lu = SparseLu::new(a);
        lu.factor(a).unwrap();
        let x: Vec<f64> = (0..a.n()).map(|i| (i as f64).sin()).collect();
        let mut b = a.multiply(&x);
        lu.solve(&mut b);
        for (got, want) in b.iter().zip(&x) {
            assert!((got - want).abs() < tolerance, "{got} vs {want}");
        }
        lu.factor_nnz()
    }

    /// A block-tridiagonal chain (like linked bodies) factors with little fill.
    #[test]
    fn a_chain_of_blocks_factors_with_little_fill() {
        let blocks = 20;
        let size = 13;
        let n = blocks * size;
        let mut entries = Vec::new();
        for b in 0..blocks {
            for i in 0..size {
                for j in 0..size {
                    let v = if i == j { 30.0 } else { 0.5 };
                    entries.push((b * size + i, b * size + j, v));
                    if b + 1 < blocks && i < 3 && j < 3 {
                        entries.push((b * size + i, (b + 1) * size + j, -1.0));
                        entries.push(((b + 1) * size + i, b * size + j, -1.0));
                    }
                }
            }
        }
        let a = build(n, &entries);
        let fill = factor_and_check(&a, 1e-12);
        assert!(fill < 2 * a.nnz(), "fill {fill} vs {}", a.nnz());
    }

    /// The Newton matrix `I - h/2 J` of a square net of masses on springs: per mass a
    /// position `x` and a velocity `v`, `x' = v`, `v' = k Σ (x_neighbour - x)`.
    fn spring_net(side: usize, half_step: f64, stiffness: f64) -> SparseMatrix {
        let x = |i: usize| 2 * i;
        let v = |i: usize| 2 * i + 1;
        let mut entries = Vec::new();
        for i in 0..side * side {
            let (row, col) = (i / side, i % side);
            let neighbours: Vec<usize> = [
                (row > 0).then(|| i - side),
                (row + 1 < side).then(|| i + side),
                (col > 0).then(|| i - 1),
                (col + 1 < side).then(|| i + 1),
            ]
            .into_iter()
            .flatten()
            .collect();
            entries.push((x(i), x(i), 1.0));
            entries.push((x(i), v(i), -half_step));
            entries.push((v(i), v(i), 1.0));
            entries.push((v(i), x(i), half_step * stiffness * neighbours.len() as f64));
            for j in neighbours {
                entries.push((v(i), x(j), -half_step * stiffness));
            }
        }
        build(2 * side * side, &entries)
    }

    /// Stiff springs (`h/2 k` far above 1) give velocity rows whose position entries dwarf
    /// every diagonal. Compared unscaled, partial pivoting would take them and undo the
    /// fill-reducing order (chain.asg's factors held 45 % of dense that way, 41 times this
    /// net's entries); the stiff net must fill in no more than a soft one.
    #[test]
    fn stiff_springs_fill_in_no_more_than_soft_ones() {
        let soft = factor_and_check(&spring_net(12, 1e-3, 1.0), 1e-12);
        let stiff = factor_and_check(&spring_net(12, 1e-3, 1e6), 1e-9);
        assert!(stiff <= soft, "stiff {stiff} vs soft {soft}");
    }
}
