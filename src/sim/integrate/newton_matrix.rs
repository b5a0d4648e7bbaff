//! The Newton matrix `I - h γ J` of an implicit step, assembled from the evaluator's Jacobian
//! and factored densely or sparsely.

use crate::sim::linalg::{DenseLu, Singular, SparseLu, SparseMatrix};
use crate::sim::system::JacobianLayout;

/// Components up to this size are factored densely even when their Jacobian is declared sparse:
/// below it dense LU is faster than the sparse bookkeeping.
const DENSE_UP_TO: usize = 16;

/// `I - h γ J`, with the rows of prescribed variables replaced by identity rows so their
/// Newton updates are zero.
pub(crate) enum NewtonMatrix {
    Dense {
        n: usize,
        /// Row-major storage position of each Jacobian value.
        positions: Vec<usize>,
        matrix: Vec<f64>,
        lu: DenseLu,
    },
    Sparse {
        /// Storage position of each Jacobian value.
        positions: Vec<usize>,
        /// Storage position of each diagonal entry.
        diagonal: Vec<usize>,
        /// Storage positions of each row's entries (for identity rows).
        row_positions: Vec<Vec<usize>>,
        matrix: SparseMatrix,
        lu: Box<SparseLu>,
    },
}

impl NewtonMatrix {
    pub(crate) fn new(layout: &JacobianLayout) -> NewtonMatrix {
        let n = layout.n();
        let entries = layout.entries();
        if !layout.is_sparse() || n <= DENSE_UP_TO {
            return NewtonMatrix::Dense {
                n,
                positions: entries.iter().map(|&(r, c)| r * n + c).collect(),
                matrix: vec![0.0; n * n],
                lu: DenseLu::new(n),
            };
        }
        let mut pattern = entries;
        let jacobian_len = pattern.len();
        pattern.extend((0..n).map(|i| (i, i)));
        let (matrix, all_positions) = SparseMatrix::with_pattern(n, &pattern);
        let mut row_positions = vec![Vec::new(); n];
        for (p, &r) in matrix.row_indices().iter().enumerate() {
            row_positions[r].push(p);
        }
        NewtonMatrix::Sparse {
            positions: all_positions[..jacobian_len].to_vec(),
            diagonal: all_positions[jacobian_len..].to_vec(),
            row_positions,
            lu: Box::new(SparseLu::new(&matrix)),
            matrix,
        }
    }

    /// Forms `I - scale * J` from the Jacobian values `jacobian` (in the layout's order),
    /// with identity rows for `fixed` variables, and factors it.
    pub(crate) fn factor(
        &mut self,
        jacobian: &[f64],
        scale: f64,
        fixed: &[usize],
    ) -> Result<(), Singular> {
        match self {
            NewtonMatrix::Dense {
                n,
                positions,
                matrix,
                lu,
            } => {
                matrix.fill(0.0);
                for (&p, &j) in positions.iter().zip(jacobian) {
                    matrix[p] = -scale * j;
                }
                for i in 0..*n {
                    matrix[i * *n + i] += 1.0;
                }
                for &i in fixed {
                    matrix[i * *n..(i + 1) * *n].fill(0.0);
                    matrix[i * *n + i] = 1.0;
                }
                lu.factor(matrix)
            }
            NewtonMatrix::Sparse {
                positions,
                diagonal,
                row_positions,
                matrix,
                lu,
            } => {
                let values = matrix.values_mut();
                values.fill(0.0);
                for (&p, &j) in positions.iter().zip(jacobian) {
                    values[p] = -scale * j;
                }
                for &p in diagonal.iter() {
                    values[p] += 1.0;
                }
                for &i in fixed {
                    for &p in &row_positions[i] {
                        values[p] = 0.0;
                    }
                    values[diagonal[i]] = 1.0;
                }
                lu.factor(matrix)
            }
        }
    }

    /// Overwrites `b` with the solution for the last factored matrix.
    pub(crate) fn solve(&mut self, b: &mut [f64]) {
        match self {
            NewtonMatrix::Dense { lu, .. } => lu.solve(b),
            NewtonMatrix::Sparse { lu, .. } => lu.solve(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::system::JacobianPattern;

    /// The same tridiagonal Jacobian through the dense and the sparse path gives the same
    /// solutions, with a fixed row honoured by both.
    #[test]
    fn dense_and_sparse_assembly_agree() {
        let n: usize = 40;
        let mut entries = Vec::new();
        let mut values = Vec::new();
        for i in 0..n {
            for j in i.saturating_sub(1)..(i + 2).min(n) {
                entries.push((i as u32, j as u32));
                values.push(if i == j { -3.0 } else { 1.0 + i as f64 * 0.01 });
            }
        }
        let sparse_layout =
            JacobianLayout::new(n, &JacobianPattern::Sparse(entries.clone())).unwrap();
        let dense_layout = JacobianLayout::new(n, &JacobianPattern::Dense).unwrap();
        let mut dense_values = vec![0.0; n * n];
        for (&(r, c), &v) in entries.iter().zip(&values) {
            dense_values[r as usize * n + c as usize] = v;
        }
        let mut sparse = NewtonMatrix::new(&sparse_layout);
        assert!(matches!(sparse, NewtonMatrix::Sparse { .. }));
        let mut dense = NewtonMatrix::new(&dense_layout);
        let fixed = [3, 17];
        sparse.factor(&values, 0.05, &fixed).unwrap();
        dense.factor(&dense_values, 0.05, &fixed).unwrap();
        let rhs: Vec<f64> = (0..n).map(|i| (i as f64 * 0.3).cos()).collect();
        let (mut a, mut b) = (rhs.clone(), rhs.clone());
        sparse.solve(&mut a);
        dense.solve(&mut b);
        for (x, y) in a.iter().zip(&b) {
            assert!((x - y).abs() < 1e-12);
        }
        assert_eq!(a[3], rhs[3]);
        assert_eq!(a[17], rhs[17]);
    }
}
