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

#[cfg(test)]
mod tests {
    use super::*;

    fn xy() -> (Pool, Node, Node) {
        let mut p = Pool::new();
        let x = p.symbol(Symbol(0));
        let y = p.symbol(Symbol(1));
        (p, x, y)
    }

    const X: Symbol = Symbol(0);
    const Y: Symbol = Symbol(1);

    fn at(p: &Pool, n: Node, x: f64, y: f64) -> f64 {
        p.eval(n, |s| if s == X { x } else { y })
    }

    #[test]
    fn elementary_rules_give_simplified_nodes() {
        let (mut p, x, y) = xy();
        let xy = p.mul(x, y);
        assert_eq!(p.diff(xy, X), y);
        let x3 = p.powi(x, 3);
        let x2 = p.powi(x, 2);
        assert_eq!(p.diff(x3, X), p.scale(x2, 3.0));
        let sin = p.sin(x);
        assert_eq!(p.diff(sin, X), p.cos(x));
        let exp = p.exp(x);
        assert_eq!(p.diff(exp, X), exp);
        let sum = p.linear(4.0, &[(2.0, x), (-3.0, xy)]);
        let want = p.linear(2.0, &[(-3.0, y)]);
        assert_eq!(p.diff(sum, X), want);
        assert_eq!(p.diff(y, X), Pool::ZERO);
        assert_eq!(p.diff(x, X), Pool::ONE);
    }

    #[test]
    fn real_powers_differentiate_in_base_and_exponent() {
        let (mut p, x, y) = xy();
        let power = p.pow(x, y);
        let dx = p.diff(power, X);
        let dy = p.diff(power, Y);
        let (a, b) = (1.7f64, 0.6f64);
        assert!((at(&p, dx, a, b) - b * a.powf(b - 1.0)).abs() < 1e-14);
        assert!((at(&p, dy, a, b) - a.powf(b) * a.ln()).abs() < 1e-14);
        let half = p.constant(0.5);
        let root = p.pow(x, half);
        let d = p.diff(root, X);
        assert!((at(&p, d, 4.0, 0.0) - 0.25).abs() < 1e-15);
    }

    #[test]
    fn non_smooth_functions_get_almost_everywhere_derivatives() {
        let (mut p, x, y) = xy();
        let abs = p.abs(x);
        let d_abs = p.diff(abs, X);
        assert_eq!(
            (at(&p, d_abs, -2.0, 0.0), at(&p, d_abs, 3.0, 0.0)),
            (-1.0, 1.0)
        );
        let min = p.min(x, y);
        let d_min = p.diff(min, X);
        assert_eq!(
            (at(&p, d_min, 1.0, 2.0), at(&p, d_min, 3.0, 2.0)),
            (1.0, 0.0)
        );
        let max = p.max(x, y);
        let d_max = p.diff(max, Y);
        assert_eq!(
            (at(&p, d_max, 1.0, 2.0), at(&p, d_max, 3.0, 2.0)),
            (1.0, 0.0)
        );
        for step in [p.floor(x), p.ceil(x), p.round(x), p.trunc(x), p.lt(x, y)] {
            assert_eq!(p.diff(step, X), Pool::ZERO);
        }
        let x2 = p.powi(x, 2);
        let condition = p.lt(x, y);
        let select = p.select(condition, x2, y);
        let d = p.diff(select, X);
        assert_eq!((at(&p, d, 1.5, 2.0), at(&p, d, 3.0, 2.0)), (3.0, 0.0));
        let fmod = p.fmod(x, y);
        let d_fmod = p.diff(fmod, Y);
        assert_eq!(at(&p, d_fmod, 7.5, 2.0), -3.0);
    }

    #[test]
    fn derivatives_are_memoized_and_independent_parts_skipped() {
        let (mut p, x, y) = xy();
        let sin = p.sin(x);
        let e = p.mul(sin, y);
        let d = p.diff(e, X);
        let size = p.len();
        assert_eq!(p.diff(e, X), d);
        assert_eq!(p.len(), size, "a memoized derivative creates no nodes");
        let cos_y = p.cos(y);
        let size = p.len();
        assert_eq!(p.diff(cos_y, X), Pool::ZERO);
        assert_eq!(p.len(), size, "independent subexpressions are not visited");
    }

    #[test]
    fn deep_expressions_differentiate_without_recursion() {
        // Deep enough to overflow the stack of a recursive differentiator in a debug build.
        // (Each derivative of the chain is a product of all the cosines before it, so the
        // pool grows quadratically with the depth.)
        let (mut p, x, _) = xy();
        let mut e = x;
        for _ in 0..3000 {
            e = p.sin(e);
        }
        let d = p.diff(e, X);
        let mut want = 1.0;
        let mut v = 0.1f64;
        for _ in 0..3000 {
            want *= v.cos();
            v = v.sin();
        }
        assert!((at(&p, d, 0.1, 0.0) - want).abs() <= 1e-12 * want.abs());
    }

    #[test]
    fn jacobian_is_sparse_and_ordered() {
        let (mut p, x, y) = xy();
        let z = p.symbol(Symbol(7));
        let first = p.mul(x, z); // depends on x and z, not y
        let second = p.sin(y);
        let entries = p.jacobian(&[first, second], &[Symbol(7), X, Y]);
        let want = vec![
            JacobianEntry {
                row: 0,
                column: 0,
                value: x,
            },
            JacobianEntry {
                row: 0,
                column: 1,
                value: z,
            },
            JacobianEntry {
                row: 1,
                column: 2,
                value: p.cos(y),
            },
        ];
        assert_eq!(entries, want);
    }
}
