//! The interface the physics layer implements: per-component evaluators of `f` and its Jacobian.

use super::variable::{System, VarId};

/// What a component's evaluator is built for: the variables it integrates (`own`, in this
/// order) and the variables of other components its equations read (`inputs`, in this order,
/// sorted by id). Both orders are the slot orders of [`ComponentEquations::eval`].
#[derive(Clone, Copy, Debug)]
pub struct ComponentSpec<'a> {
    pub system: &'a System,
    pub own: &'a [VarId],
    pub inputs: &'a [VarId],
}

/// Builds the evaluator of one strongly connected component. The physics layer implements this
/// (compiling the component's equations and their symbolic Jacobian to a tape); tests implement
/// it with hand-written closures ([`ClosureEquations`](super::ClosureEquations)).
///
/// The simulator calls it once per component when a simulation is created, and again only for
/// components whose equations changed in an incremental update.
pub trait EquationFactory {
    /// The evaluator for `spec.own`, or a message saying why it cannot be built.
    fn build(&self, spec: &ComponentSpec<'_>) -> Result<Box<dyn ComponentEquations>, String>;
}

/// Evaluates `f` for one component's own variables, and its Jacobian with respect to them.
pub trait ComponentEquations: Send {
    /// The structure of `∂f/∂own`, declared once: dense for small components, the list of
    /// structurally non-zero entries for large ones (the simulator then uses a sparse LU).
    fn jacobian_pattern(&self) -> JacobianPattern;

    /// Writes `f_i(t, x)` for every own variable into `f` (same order as `own`) and, when
    /// `jacobian` wants it, `∂f_i/∂own_j` into `jacobian`.
    ///
    /// `own` holds the component's variables, `inputs` the other components' variables it
    /// reads, interpolated by the scheduler at `t`. Non-finite results are allowed: the
    /// integrator detects them and reports the variables.
    fn eval(
        &mut self,
        t: f64,
        own: &[f64],
        inputs: &[f64],
        f: &mut [f64],
        jacobian: &mut JacobianSink<'_>,
    );

    /// A *first integral* of the equations, if they have one: a function `I(own)` that the
    /// exact motion keeps constant as long as the inputs stay what they are (the kinetic
    /// energy of a body turning freely, for the equations of its orientation). Returns its
    /// value at `own` with `inputs`, and writes its gradient with respect to `own` into
    /// `gradient`. The integrator then holds it at its value over every step on which the
    /// inputs do not change, so that it does not drift with the integration error.
    fn first_integral(
        &mut self,
        t: f64,
        own: &[f64],
        inputs: &[f64],
        gradient: &mut [f64],
    ) -> Option<f64> {
        let _ = (t, own, inputs, gradient);
        None
    }
}

/// The declared structure of a component's Jacobian `∂f/∂own`.
#[derive(Clone, Debug, PartialEq)]
pub enum JacobianPattern {
    /// Every entry may be non-zero; values are stored row-major, `n * n` of them.
    Dense,
    /// Only these `(row, col)` entries may be non-zero; values are stored in this order.
    Sparse(Vec<(u32, u32)>),
}

/// Where an evaluator writes its Jacobian. All values are zero when `eval` is called, so an
/// evaluator need only write non-zero entries. Either write through [`JacobianSink::set`] or,
/// faster, fill [`JacobianSink::values`] in the declared layout (row-major for
/// [`JacobianPattern::Dense`], declaration order for [`JacobianPattern::Sparse`]).
pub struct JacobianSink<'a> {
    values: Option<&'a mut [f64]>,
    layout: &'a JacobianLayout,
    stray: Option<(usize, usize)>,
}

impl<'a> JacobianSink<'a> {
    pub(crate) fn new(values: Option<&'a mut [f64]>, layout: &'a JacobianLayout) -> Self {
        JacobianSink {
            values,
            layout,
            stray: None,
        }
    }

    /// False when the simulator only needs `f` (then writing is skipped silently).
    pub fn is_wanted(&self) -> bool {
        self.values.is_some()
    }

    /// The values in the declared layout, if wanted.
    pub fn values(&mut self) -> Option<&mut [f64]> {
        self.values.as_deref_mut()
    }

    /// Sets `∂f_row/∂own_col`. Writing an entry outside a sparse pattern is an evaluator bug:
    /// the value is dropped and the simulator reports the entry as an error.
    pub fn set(&mut self, row: usize, col: usize, value: f64) {
        let Some(values) = self.values.as_deref_mut() else {
            return;
        };
        match self.layout.position(row, col) {
            Some(k) => values[k] = value,
            None => {
                self.stray.get_or_insert((row, col));
            }
        }
    }

    /// The first entry written outside the declared pattern, if any.
    pub(crate) fn stray_entry(&self) -> Option<(usize, usize)> {
        self.stray
    }
}

/// Maps `(row, col)` to the storage position of a declared Jacobian pattern.
#[derive(Clone, Debug)]
pub(crate) struct JacobianLayout {
    n: usize,
    /// For sparse patterns: `(row, col, position)` sorted by `(row, col)`.
    sparse: Option<Vec<(u32, u32, u32)>>,
}

impl JacobianLayout {
    /// The layout of `pattern` for an `n`-variable component, or a message naming the first
    /// entry outside `n × n`.
    pub(crate) fn new(n: usize, pattern: &JacobianPattern) -> Result<JacobianLayout, String> {
        let sparse = match pattern {
            JacobianPattern::Dense => None,
            JacobianPattern::Sparse(entries) => {
                let mut index = Vec::with_capacity(entries.len());
                for (k, &(row, col)) in entries.iter().enumerate() {
                    if row as usize >= n || col as usize >= n {
                        return Err(format!(
                            "Jacobian entry {k} at ({row}, {col}) lies outside the {n} x {n} matrix"
                        ));
                    }
                    index.push((row, col, k as u32));
                }
                index.sort_unstable();
                if let Some(w) = index
                    .windows(2)
                    .find(|w| (w[0].0, w[0].1) == (w[1].0, w[1].1))
                {
                    return Err(format!(
                        "Jacobian entry ({}, {}) is declared twice",
                        w[0].0, w[0].1
                    ));
                }
                Some(index)
            }
        };
        Ok(JacobianLayout { n, sparse })
    }

    pub(crate) fn n(&self) -> usize {
        self.n
    }

    /// Number of stored values.
    pub(crate) fn len(&self) -> usize {
        match &self.sparse {
            None => self.n * self.n,
            Some(index) => index.len(),
        }
    }

    pub(crate) fn is_sparse(&self) -> bool {
        self.sparse.is_some()
    }

    /// `(row, col)` of every stored value, in storage order.
    pub(crate) fn entries(&self) -> Vec<(usize, usize)> {
        match &self.sparse {
            None => (0..self.n * self.n)
                .map(|k| (k / self.n, k % self.n))
                .collect(),
            Some(index) => {
                let mut entries = vec![(0, 0); index.len()];
                for &(row, col, k) in index {
                    entries[k as usize] = (row as usize, col as usize);
                }
                entries
            }
        }
    }

    fn position(&self, row: usize, col: usize) -> Option<usize> {
        if row >= self.n || col >= self.n {
            return None;
        }
        match &self.sparse {
            None => Some(row * self.n + col),
            Some(index) => index
                .binary_search_by(|&(r, c, _)| (r as usize, c as usize).cmp(&(row, col)))
                .ok()
                .map(|i| index[i].2 as usize),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_set_writes_declared_entries_and_flags_strays() {
        let layout =
            JacobianLayout::new(3, &JacobianPattern::Sparse(vec![(2, 0), (0, 1)])).unwrap();
        let mut values = vec![0.0; 2];
        let mut sink = JacobianSink::new(Some(&mut values), &layout);
        sink.set(0, 1, 5.0);
        sink.set(2, 0, 7.0);
        sink.set(1, 1, 9.0);
        assert_eq!(sink.stray_entry(), Some((1, 1)));
        assert_eq!(values, vec![7.0, 5.0]);
    }

    #[test]
    fn dense_set_is_row_major() {
        let layout = JacobianLayout::new(2, &JacobianPattern::Dense).unwrap();
        let mut values = vec![0.0; 4];
        let mut sink = JacobianSink::new(Some(&mut values), &layout);
        sink.set(1, 0, 3.0);
        assert_eq!(values, vec![0.0, 0.0, 3.0, 0.0]);
    }

    #[test]
    fn patterns_outside_the_matrix_or_repeated_are_rejected() {
        let outside = JacobianLayout::new(2, &JacobianPattern::Sparse(vec![(0, 2)]));
        assert!(outside.unwrap_err().contains("outside the 2 x 2"));
        let twice = JacobianLayout::new(2, &JacobianPattern::Sparse(vec![(1, 1), (1, 1)]));
        assert!(twice.unwrap_err().contains("declared twice"));
    }
}
