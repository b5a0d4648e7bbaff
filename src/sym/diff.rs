//! Symbolic differentiation and sparse Jacobians.
//!
//! Derivatives are memoized in the pool per (node, symbol), so the Jacobian entries of many
//! equations share the derivatives of their common subexpressions, and a subexpression that does
//! not mention the symbol is skipped at once (its derivative is 0) using the per-node symbol sets.
//! Non-smooth functions get their usual almost-everywhere derivatives: `abs` gives the sign
//! (taken as +1 at 0), `min`/`max`/select pick the derivative of the chosen branch, rounding
//! functions and comparisons give 0.

use super::ops::{Binary, Unary};
use super::pool::{Node, Pool, Symbol, Term};
use std::f64::consts::LN_10;

/// A structurally non-zero entry of a Jacobian: `∂equations[row] / ∂wrt[column]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JacobianEntry {
    pub row: usize,
    pub column: usize,
    pub value: Node,
}

impl Pool {
    /// `∂node/∂symbol`, simplified.
    pub fn diff(&mut self, node: Node, symbol: Symbol) -> Node {
        if !self.depends_on(node, symbol) {
            return Pool::ZERO;
        }
        // Children before parents, without recursion (expressions can be deep).
        let mut stack = vec![(node, false)];
        while let Some((n, children_done)) = stack.pop() {
            if self.derivatives.contains_key(&(n, symbol)) {
                continue;
            }
            if children_done {
                let d = self.derivative_of(n, symbol);
                self.derivatives.insert((n, symbol), d);
            } else {
                stack.push((n, true));
                self.for_each_child(n, |child| {
                    if self.depends_on(child, symbol)
                        && !self.derivatives.contains_key(&(child, symbol))
                    {
                        stack.push((child, false));
                    }
                });
            }
        }
        self.derivatives[&(node, symbol)]
    }

    /// The non-zero entries of the Jacobian of `equations` with respect to `wrt`, in row order
    /// and, within a row, column order. If a symbol occurs twice in `wrt`, the first column
    /// counts.
    pub fn jacobian(&mut self, equations: &[Node], wrt: &[Symbol]) -> Vec<JacobianEntry> {
        let mut column_of = super::hash::FastMap::default();
        for (column, &symbol) in wrt.iter().enumerate() {
            column_of.entry(symbol).or_insert(column);
        }
        let mut entries = Vec::new();
        for (row, &equation) in equations.iter().enumerate() {
            let first = entries.len();
            let columns: Vec<(usize, Symbol)> = self
                .symbols(equation)
                .iter()
                .filter_map(|s| column_of.get(s).map(|&c| (c, *s)))
                .collect();
            for (column, symbol) in columns {
                let value = self.diff(equation, symbol);
                if value != Pool::ZERO {
                    entries.push(JacobianEntry { row, column, value });
                }
            }
            entries[first..].sort_by_key(|e| e.column);
        }
        entries
    }

    /// The derivative of `node`, whose children's derivatives are already memoized (or zero
    /// because they do not depend on `s`).
    fn derivative_of(&mut self, node: Node, s: Symbol) -> Node {
        let d = |pool: &Pool, child: Node| {
            if pool.depends_on(child, s) {
                pool.derivatives[&(child, s)]
            } else {
                Pool::ZERO
            }
        };
        match self.term(node) {
            Term::Const(_) => Pool::ZERO,
            Term::Symbol(t) => {
                if t == s {
                    Pool::ONE
                } else {
                    Pool::ZERO
                }
            }
            Term::Sum { terms, .. } => {
                let parts: Vec<(f64, Node)> = terms.iter().map(|&(c, t)| (c, d(self, t))).collect();
                self.linear(0.0, &parts)
            }
            Term::Product(factors) => {
                // Σ eᵢ · (Π b^e) · bᵢ⁻¹ · dbᵢ, the powers merged by the product constructor.
                let factors = factors.to_vec();
                let mut parts = Vec::new();
                for (i, &(base, e)) in factors.iter().enumerate() {
                    if !self.depends_on(base, s) {
                        continue;
                    }
                    let db = d(self, base);
                    let others =
                        factors.iter().enumerate().map(
                            |(j, &(b, f))| {
                                if j == i {
                                    (b, f - 1)
                                } else {
                                    (b, f)
                                }
                            },
                        );
                    let part = self.product_from(others.chain([(db, 1)]));
                    parts.push((f64::from(e), part));
                }
                self.linear(0.0, &parts)
            }
            Term::Unary(f, a) => {
                let da = d(self, a);
                let slope = self.unary_slope(f, a, node);
                self.mul(slope, da)
            }
            Term::Binary(op, a, b) => {
                let (da, db) = (d(self, a), d(self, b));
                self.binary_derivative(op, node, a, b, da, db)
            }
            Term::Select(c, a, b) => {
                let (da, db) = (d(self, a), d(self, b));
                self.select(c, da, db)
            }
        }
    }

    /// `f'(a)`, where `value` is the node `f(a)` itself.
    fn unary_slope(&mut self, f: Unary, a: Node, value: Node) -> Node {
        match f {
            Unary::Sqrt => {
                let inverse = self.powi(value, -1);
                self.scale(inverse, 0.5)
            }
            Unary::Exp => value,
            Unary::Log => self.powi(a, -1),
            Unary::Log10 => {
                let inverse = self.powi(a, -1);
                self.scale(inverse, 1.0 / LN_10)
            }
            Unary::Sin => self.cos(a),
            Unary::Cos => {
                let sin = self.sin(a);
                self.neg(sin)
            }
            Unary::Tan => {
                let square = self.powi(value, 2);
                self.linear(1.0, &[(1.0, square)])
            }
            Unary::Asin | Unary::Acos => {
                let square = self.powi(a, 2);
                let one_minus = self.linear(1.0, &[(-1.0, square)]);
                let root = self.sqrt(one_minus);
                let sign = if f == Unary::Asin { 1 } else { -1 };
                let inverse = self.powi(root, -1);
                self.scale(inverse, f64::from(sign))
            }
            Unary::Atan => {
                let square = self.powi(a, 2);
                let one_plus = self.linear(1.0, &[(1.0, square)]);
                self.powi(one_plus, -1)
            }
            Unary::Sinh => self.cosh(a),
            Unary::Cosh => self.sinh(a),
            Unary::Tanh => {
                let square = self.powi(value, 2);
                self.linear(1.0, &[(-1.0, square)])
            }
            Unary::Abs => {
                let negative = self.lt(a, Pool::ZERO);
                let minus_one = self.constant(-1.0);
                self.select(negative, minus_one, Pool::ONE)
            }
            Unary::Floor | Unary::Ceil | Unary::Round | Unary::Trunc => Pool::ZERO,
        }
    }

    /// The derivative of `value = op(a, b)` given the derivatives of the arguments.
    fn binary_derivative(
        &mut self,
        op: Binary,
        value: Node,
        a: Node,
        b: Node,
        da: Node,
        db: Node,
    ) -> Node {
        match op {
            Binary::Pow => {
                if db == Pool::ZERO {
                    // b · a^(b-1) · da
                    let b_minus_one = self.linear(-1.0, &[(1.0, b)]);
                    let lower = self.pow(a, b_minus_one);
                    self.product(&[b, lower, da])
                } else if da == Pool::ZERO {
                    // a^b · ln a · db
                    let log = self.log(a);
                    self.product(&[value, log, db])
                } else {
                    // a^b · (db · ln a + b · da / a)
                    let log = self.log(a);
                    let from_exponent = self.mul(db, log);
                    let from_base = self.product_from([(b, 1), (da, 1), (a, -1)]);
                    let inner = self.add(from_exponent, from_base);
                    self.mul(value, inner)
                }
            }
            Binary::Atan2 => {
                // (b·da - a·db) / (a² + b²)
                let b_da = self.mul(b, da);
                let a_db = self.mul(a, db);
                let numerator = self.sub(b_da, a_db);
                let a2 = self.powi(a, 2);
                let b2 = self.powi(b, 2);
                let denominator = self.add(a2, b2);
                self.div(numerator, denominator)
            }
            Binary::Hypot => {
                // (a·da + b·db) / hypot(a, b)
                let a_da = self.mul(a, da);
                let b_db = self.mul(b, db);
                let numerator = self.add(a_da, b_db);
                self.div(numerator, value)
            }
            Binary::Fmod => {
                // fmod(a, b) = a - b·trunc(a/b)
                let quotient = self.div(a, b);
                let whole = self.trunc(quotient);
                let from_b = self.mul(whole, db);
                self.sub(da, from_b)
            }
            Binary::Min => {
                let first = self.le(a, b);
                self.select(first, da, db)
            }
            Binary::Max => {
                let first = self.le(b, a);
                self.select(first, da, db)
            }
            Binary::Lt | Binary::Le | Binary::Eq | Binary::Ne | Binary::And | Binary::Or => {
                Pool::ZERO
            }
        }
    }
}
