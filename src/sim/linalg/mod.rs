//! Linear algebra for the Newton iterations: dense LU for small components, sparse LU with a
//! fill-reducing order for large ones.

mod dense;
mod ordering;
mod sparse;

pub use dense::DenseLu;
pub use ordering::minimum_degree;
pub use sparse::{SparseLu, SparseMatrix};

use std::fmt;

/// A matrix had no usable pivot at a factorisation step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Singular {
    /// The elimination step (column of the permuted matrix) that failed.
    pub column: usize,
}

impl fmt::Display for Singular {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "singular matrix: no usable pivot at step {}",
            self.column
        )
    }
}

impl std::error::Error for Singular {}
