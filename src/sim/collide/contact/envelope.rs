//! A symmetric matrix stored by rows within its envelope, and its Cholesky factorisation.
//!
//! An island's contact conditions are coupled only through the bodies they share: a stack's
//! contact between boxes 7 and 8 reads nothing of the contact between boxes 1 and 2. With the
//! conditions ordered so that coupled ones are near each other (see `exact::order`), every
//! row's nonzero entries left of the diagonal start a short way left of it (its *envelope*),
//! and a Cholesky factor has no entry outside the envelope of the matrix it factors. So a
//! stack of forty boxes, 960 conditions, factors in about 40 times 24² multiply-adds instead
//! of the 960³ / 3 of a dense factorisation.

/// A symmetric matrix: for each row `i`, the entries of columns `first[i]..=i`.
#[derive(Clone)]
pub(super) struct Envelope {
    first: Vec<usize>,
    /// Where row `i`'s entries start in `values`.
    start: Vec<usize>,
    values: Vec<f64>,
}

impl Envelope {
    /// A zero matrix whose row `i` may hold entries from column `first[i]` (≤ `i`) on.
    pub fn zeros(first: Vec<usize>) -> Envelope {
        let mut start = Vec::with_capacity(first.len() + 1);
        let mut size = 0;
        for (i, &f) in first.iter().enumerate() {
            debug_assert!(f <= i);
            start.push(size);
            size += i + 1 - f;
        }
        start.push(size);
        Envelope {
            first,
            start,
            values: vec![0.0; size],
        }
    }

    /// The multiply-adds of factorising a matrix of this envelope (about the sum of the squares
    /// of its rows' widths): what the caller bounds before the work.
    pub fn work(first: &[usize]) -> usize {
        first
            .iter()
            .enumerate()
            .map(|(i, &f)| (i + 1 - f).pow(2))
            .sum()
    }

    pub fn len(&self) -> usize {
        self.first.len()
    }

    /// The columns row `i` holds.
    pub fn columns(&self, i: usize) -> std::ops::RangeInclusive<usize> {
        self.first[i]..=i
    }

    /// The entry at row `i`, column `j ≤ i` within the envelope.
    pub fn at(&self, i: usize, j: usize) -> f64 {
        self.values[self.start[i] + j - self.first[i]]
    }

    pub fn set(&mut self, i: usize, j: usize, value: f64) {
        let at = self.start[i] + j - self.first[i];
        self.values[at] = value;
    }

    fn row(&self, i: usize) -> &[f64] {
        &self.values[self.start[i]..self.start[i + 1]]
    }

    /// The matrix times `x`.
    pub fn mul(&self, x: &[f64]) -> Vec<f64> {
        let mut y = vec![0.0; self.len()];
        for i in 0..self.len() {
            let f = self.first[i];
            let row = self.row(i);
            for (k, &a) in row.iter().enumerate() {
                let j = f + k;
                y[i] += a * x[j];
                if j != i {
                    y[j] += a * x[i];
                }
            }
        }
        y
    }

    /// The Cholesky factor `L` (lower, in the same envelope, made in place of this matrix)
    /// with `L Lᵀ` this matrix, or `None` when it is not positive definite.
    pub fn cholesky(self) -> Option<Envelope> {
        let mut l = self;
        for i in 0..l.len() {
            let fi = l.first[i];
            for j in fi..=i {
                // Entries of rows i and j both hold columns from the later of their firsts.
                let from = fi.max(l.first[j]);
                let mut sum = l.at(i, j);
                for k in from..j {
                    sum -= l.at(i, k) * l.at(j, k);
                }
                if j == i {
                    if !(sum > 0.0 && sum.is_finite()) {
                        return None;
                    }
                    l.set(i, i, sum.sqrt());
                } else {
                    l.set(i, j, sum / l.at(j, j));
                }
            }
        }
        Some(l)
    }

    /// With this matrix a Cholesky factor `L`: the `x` with `L Lᵀ x = b`.
    pub fn solve_factored(&self, b: &[f64]) -> Vec<f64> {
        let n = self.len();
        let mut y = b.to_vec();
        for i in 0..n {
            let f = self.first[i];
            let row = self.row(i);
            let mut sum = y[i];
            for (k, &a) in row[..i - f].iter().enumerate() {
                sum -= a * y[f + k];
            }
            y[i] = sum / row[i - f];
        }
        // Lᵀ x = y, by columns of Lᵀ (rows of L), last first.
        for i in (0..n).rev() {
            let f = self.first[i];
            let row = self.row(i);
            y[i] /= row[i - f];
            let xi = y[i];
            for (k, &a) in row[..i - f].iter().enumerate() {
                y[f + k] -= a * xi;
            }
        }
        y
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{DMatrix, DVector};

    /// A banded symmetric positive definite matrix with a wider row, as an envelope and dense.
    fn example() -> (Envelope, DMatrix<f64>) {
        let first = vec![0, 0, 1, 0, 2, 4];
        let n = first.len();
        let mut e = Envelope::zeros(first.clone());
        let mut d = DMatrix::zeros(n, n);
        for i in 0..n {
            for j in first[i]..=i {
                let v = if i == j {
                    10.0 + i as f64
                } else {
                    1.0 / (1.0 + (i + 2 * j) as f64)
                };
                e.set(i, j, v);
                d[(i, j)] = v;
                d[(j, i)] = v;
            }
        }
        (e, d)
    }

    #[test]
    fn a_product_equals_the_dense_one() {
        let (e, d) = example();
        let x: Vec<f64> = (0..6).map(|i| (i as f64 - 2.5).powi(3)).collect();
        let y = e.mul(&x);
        let expected = &d * DVector::from_vec(x);
        for i in 0..6 {
            assert!((y[i] - expected[i]).abs() < 1e-12, "{i}");
        }
    }

    #[test]
    fn a_factored_solve_inverts_the_matrix() {
        let (e, d) = example();
        let b: Vec<f64> = (0..6).map(|i| 1.0 + i as f64).collect();
        let x = e.cholesky().unwrap().solve_factored(&b);
        let back = &d * DVector::from_vec(x);
        for i in 0..6 {
            assert!((back[i] - b[i]).abs() < 1e-12, "{i}: {}", back[i]);
        }
    }

    #[test]
    fn a_matrix_that_is_not_positive_definite_has_no_factor() {
        let mut e = Envelope::zeros(vec![0, 0]);
        e.set(0, 0, 1.0);
        e.set(1, 0, 2.0);
        e.set(1, 1, 1.0);
        assert!(e.cholesky().is_none());
    }

    #[test]
    fn the_work_is_the_sum_of_the_squared_widths() {
        assert_eq!(Envelope::work(&[0, 0, 1, 0]), 1 + 4 + 4 + 16);
    }
}
