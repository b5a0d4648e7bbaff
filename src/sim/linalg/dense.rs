//! Dense LU factorisation with partial pivoting, for small components (a free body's twelve or
//! thirteen variables).

use super::Singular;

/// The factors `P A = L U` of a square matrix, kept between solves.
#[derive(Clone, Debug)]
pub struct DenseLu {
    n: usize,
    /// `L` below the diagonal (unit diagonal implied) and `U` on and above it, row-major.
    lu: Vec<f64>,
    /// Row exchanged with row `k` at step `k`.
    swaps: Vec<usize>,
}

impl DenseLu {
    pub fn new(n: usize) -> DenseLu {
        DenseLu {
            n,
            lu: vec![0.0; n * n],
            swaps: vec![0; n],
        }
    }

    pub fn n(&self) -> usize {
        self.n
    }

    /// Factors the row-major `n × n` matrix `a`. Fails at the first column with no non-zero,
    /// finite pivot.
    pub fn factor(&mut self, a: &[f64]) -> Result<(), Singular> {
        let n = self.n;
        assert_eq!(
            a.len(),
            n * n,
            "matrix size does not match the factorisation"
        );
        self.lu.copy_from_slice(a);
        let lu = &mut self.lu;
        for k in 0..n {
            let mut pivot_row = k;
            let mut pivot_abs = lu[k * n + k].abs();
            for i in k + 1..n {
                let candidate = lu[i * n + k].abs();
                if candidate > pivot_abs {
                    pivot_row = i;
                    pivot_abs = candidate;
                }
            }
            if !(pivot_abs > 0.0 && pivot_abs.is_finite()) {
                return Err(Singular { column: k });
            }
            self.swaps[k] = pivot_row;
            if pivot_row != k {
                for j in 0..n {
                    lu.swap(k * n + j, pivot_row * n + j);
                }
            }
            let pivot = lu[k * n + k];
            let (upper, lower) = lu.split_at_mut((k + 1) * n);
            let pivot_tail = &upper[k * n + k + 1..k * n + n];
            for row in lower.chunks_exact_mut(n) {
                let l = row[k] / pivot;
                row[k] = l;
                if l != 0.0 {
                    for (x, &u) in row[k + 1..].iter_mut().zip(pivot_tail) {
                        *x -= l * u;
                    }
                }
            }
        }
        Ok(())
    }

    /// Overwrites `b` with the solution of `A x = b` for the last factored `A`.
    pub fn solve(&self, b: &mut [f64]) {
        let n = self.n;
        for (k, &p) in self.swaps.iter().enumerate() {
            b.swap(k, p);
        }
        for i in 0..n {
            let row = &self.lu[i * n..i * n + i];
            let s: f64 = row.iter().zip(&b[..i]).map(|(l, x)| l * x).sum();
            b[i] -= s;
        }
        for i in (0..n).rev() {
            let row = &self.lu[i * n + i + 1..(i + 1) * n];
            let s: f64 = row.iter().zip(&b[i + 1..]).map(|(u, x)| u * x).sum();
            b[i] = (b[i] - s) / self.lu[i * n + i];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn multiply(a: &[f64], x: &[f64]) -> Vec<f64> {
        let n = x.len();
        (0..n)
            .map(|i| (0..n).map(|j| a[i * n + j] * x[j]).sum())
            .collect()
    }

    proptest! {
        #[test]
        fn solves_random_systems(
            (n, a, x) in (1usize..12).prop_flat_map(|n| (
                Just(n),
                proptest::collection::vec(-10.0f64..10.0, n * n),
                proptest::collection::vec(-10.0f64..10.0, n),
            ))
        ) {
            let mut a = a;
            // Keep the matrix comfortably non-singular while still needing pivoting.
            for i in 0..n {
                a[i * n + (i + 1) % n] += 40.0;
            }
            let mut b = multiply(&a, &x);
            let mut lu = DenseLu::new(n);
            lu.factor(&a).unwrap();
            lu.solve(&mut b);
            for (got, want) in b.iter().zip(&x) {
                prop_assert!((got - want).abs() <= 1e-9 * (1.0 + want.abs()));
            }
        }
    }

    #[test]
    fn pivots_past_a_zero_diagonal() {
        let a = [0.0, 1.0, 2.0, 0.0];
        let mut lu = DenseLu::new(2);
        lu.factor(&a).unwrap();
        let mut b = [3.0, 4.0];
        lu.solve(&mut b);
        assert_eq!(b, [2.0, 3.0]);
    }

    #[test]
    fn reports_the_singular_column() {
        let a = [1.0, 2.0, 2.0, 4.0];
        let mut lu = DenseLu::new(2);
        assert_eq!(lu.factor(&a), Err(Singular { column: 1 }));
        let nan = [f64::NAN, 0.0, 0.0, 1.0];
        assert_eq!(lu.factor(&nan), Err(Singular { column: 0 }));
    }
}
