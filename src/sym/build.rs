//! Constructors: every way to make a node, each simplifying as it builds.
//!
//! Sums are kept as linear combinations `c + Σ aᵢ·tᵢ` and products as `Π bᵢ^eᵢ` with integer
//! exponents (see [`Term`] for the invariants), which gives for free: constant folding, `x+0`,
//! `x-x`, `x*1`, `x*0`, `x/1`, `0/x`, `x^0`, `x^1`, `--x`, flattening of nested sums and products,
//! one node for `a*b` and `b*a`, and collection of like terms and of powers of the same base.
//! A multiple of a sum stays factored (`2*(x+1)`, so `x+1` remains one shared node) until it is
//! added to something, when it is flattened into the new sum.

use super::ops::{powi_signed, Binary, Unary};
use super::pool::{Node, Pool, Symbol, Term};

/// Reusable buffers of the constructors, kept in the pool so building does not allocate for
/// nodes that already exist.
#[derive(Default)]
pub(super) struct Scratch {
    terms: Vec<(f64, Node)>,
    factors: Vec<(Node, i64)>,
    product: Vec<(Node, i32)>,
}

/// Generates one-line constructors for functions of one argument.
macro_rules! unary_constructors {
    ($($name:ident => $op:ident),* $(,)?) => {
        $(
            #[doc = concat!("`", stringify!($name), "(a)`")]
            pub fn $name(&mut self, a: Node) -> Node {
                self.unary(Unary::$op, a)
            }
        )*
    };
}

/// Generates one-line constructors for functions and operators of two arguments.
macro_rules! binary_constructors {
    ($($name:ident => $op:ident),* $(,)?) => {
        $(
            #[doc = concat!("`", stringify!($name), "(a, b)`; see [`Binary::", stringify!($op), "`].")]
            pub fn $name(&mut self, a: Node, b: Node) -> Node {
                self.binary(Binary::$op, a, b)
            }
        )*
    };
}

impl Pool {
    /// A numeric constant. All NaNs become one NaN; -0 stays distinct from 0.
    pub fn constant(&mut self, value: f64) -> Node {
        self.intern(Term::Const(canonical(value)))
    }

    pub fn symbol(&mut self, symbol: Symbol) -> Node {
        self.intern(Term::Symbol(symbol))
    }

    pub fn add(&mut self, a: Node, b: Node) -> Node {
        self.linear(0.0, &[(1.0, a), (1.0, b)])
    }

    pub fn sub(&mut self, a: Node, b: Node) -> Node {
        self.linear(0.0, &[(1.0, a), (-1.0, b)])
    }

    pub fn neg(&mut self, a: Node) -> Node {
        self.linear(0.0, &[(-1.0, a)])
    }

    /// `factor * a`.
    pub fn scale(&mut self, a: Node, factor: f64) -> Node {
        self.linear(0.0, &[(factor, a)])
    }

    /// The sum of all `nodes` (0 when empty).
    pub fn sum(&mut self, nodes: &[Node]) -> Node {
        self.linear_from(0.0, nodes.iter().map(|&n| (1.0, n)))
    }

    /// `constant + Σ coefficient·node`, the general form of a sum.
    pub fn linear(&mut self, constant: f64, terms: &[(f64, Node)]) -> Node {
        self.linear_from(constant, terms.iter().copied())
    }

    pub fn mul(&mut self, a: Node, b: Node) -> Node {
        self.product_from([(a, 1), (b, 1)])
    }

    /// `a / b`, the product `a * b^-1` (so dividing by a constant `c` multiplies by `1/c`,
    /// which may round differently in the last bit; two constants divide exactly).
    pub fn div(&mut self, a: Node, b: Node) -> Node {
        if let (Some(x), Some(y)) = (self.as_constant(a), self.as_constant(b)) {
            return self.constant(x / y);
        }
        self.product_from([(a, 1), (b, -1)])
    }

    /// The product of all `nodes` (1 when empty).
    pub fn product(&mut self, nodes: &[Node]) -> Node {
        self.product_from(nodes.iter().map(|&n| (n, 1)))
    }

    /// `a` to an integer power.
    pub fn powi(&mut self, a: Node, exponent: i32) -> Node {
        self.product_from([(a, exponent)])
    }

    /// `base ** exponent`. An integer constant exponent gives a product (so powers of one base
    /// combine); otherwise a real power, which is NaN for a negative base.
    pub fn pow(&mut self, base: Node, exponent: Node) -> Node {
        if let Some(e) = self.as_constant(exponent) {
            if let Some(b) = self.as_constant(base) {
                return self.constant(b.powf(e));
            }
            if e == e.trunc() && e.abs() <= f64::from(i32::MAX) {
                return self.powi(base, e as i32);
            }
        }
        if base == Pool::ONE {
            return Pool::ONE;
        }
        self.intern(Term::Binary(Binary::Pow, base, exponent))
    }

    /// A function of one argument, folded when the argument is constant.
    pub fn unary(&mut self, f: Unary, a: Node) -> Node {
        if let Some(v) = self.as_constant(a) {
            return self.constant(f.apply(v));
        }
        match (f, self.term(a)) {
            (Unary::Abs, Term::Sum { constant, terms }) if constant == 0.0 && terms.len() == 1 => {
                // |c·t| = |c|·|t| exactly.
                let (c, t) = terms[0];
                let abs_t = self.unary(Unary::Abs, t);
                return self.scale(abs_t, c.abs());
            }
            (Unary::Abs, Term::Unary(Unary::Abs, _)) => return a,
            (Unary::Abs, _) if self.is_boolean(a) => return a,
            (g, _) if g.is_rounding() && self.is_integral(a) => return a,
            _ => {}
        }
        self.intern(Term::Unary(f, a))
    }

    /// A function or operator of two arguments, folded when both are constant.
    pub fn binary(&mut self, op: Binary, a: Node, b: Node) -> Node {
        if let (Some(x), Some(y)) = (self.as_constant(a), self.as_constant(b)) {
            return self.constant(op.apply(x, y));
        }
        if op == Binary::Pow {
            return self.pow(a, b);
        }
        let (a, b) = if op.is_commutative() && b < a {
            (b, a)
        } else {
            (a, b)
        };
        if a == b {
            match op {
                Binary::Min | Binary::Max => return a,
                // Ignoring NaN: x == x and x <= x hold, x != x does not.
                Binary::Lt | Binary::Ne => return Pool::ZERO,
                Binary::Le | Binary::Eq => return Pool::ONE,
                Binary::And | Binary::Or => return self.truth(a),
                _ => {}
            }
        }
        // Identities with one constant argument (all for commutative operations, so it may be
        // either one).
        let constant_and_other = match (self.as_constant(a), self.as_constant(b)) {
            (Some(v), None) => Some((v, b)),
            (None, Some(v)) => Some((v, a)),
            _ => None,
        };
        if let Some((v, other)) = constant_and_other {
            match op {
                Binary::And if v == 0.0 => return Pool::ZERO,
                Binary::And => return self.truth(other),
                Binary::Or if v == 0.0 => return self.truth(other),
                Binary::Or => return Pool::ONE,
                Binary::Ne if v == 0.0 && self.is_boolean(other) => return other,
                Binary::Hypot if v == 0.0 => return self.unary(Unary::Abs, other),
                _ => {}
            }
        }
        self.intern(Term::Binary(op, a, b))
    }

    /// `condition != 0 ? then : otherwise`.
    pub fn select(&mut self, condition: Node, then: Node, otherwise: Node) -> Node {
        if let Some(c) = self.as_constant(condition) {
            return if c != 0.0 { then } else { otherwise };
        }
        if then == otherwise {
            return then;
        }
        if let Term::Binary(Binary::Ne, x, y) = self.term(condition) {
            // select already tests against zero.
            if x == Pool::ZERO {
                return self.select(y, then, otherwise);
            }
            if y == Pool::ZERO {
                return self.select(x, then, otherwise);
            }
        }
        if then == Pool::ONE && otherwise == Pool::ZERO && self.is_boolean(condition) {
            return condition;
        }
        self.intern(Term::Select(condition, then, otherwise))
    }

    unary_constructors! {
        sqrt => Sqrt, exp => Exp, log => Log, log10 => Log10,
        sin => Sin, cos => Cos, tan => Tan, asin => Asin, acos => Acos, atan => Atan,
        sinh => Sinh, cosh => Cosh, tanh => Tanh,
        abs => Abs, floor => Floor, ceil => Ceil, round => Round, trunc => Trunc,
    }

    binary_constructors! {
        atan2 => Atan2, hypot => Hypot, fmod => Fmod, min => Min, max => Max,
        lt => Lt, le => Le, eq => Eq, ne => Ne, and => And, or => Or,
    }

    /// `a > b` (stored as `b < a`).
    pub fn gt(&mut self, a: Node, b: Node) -> Node {
        self.binary(Binary::Lt, b, a)
    }

    /// `a >= b` (stored as `b <= a`).
    pub fn ge(&mut self, a: Node, b: Node) -> Node {
        self.binary(Binary::Le, b, a)
    }

    /// `!a`: 1 when `a` is zero.
    pub fn not(&mut self, a: Node) -> Node {
        self.binary(Binary::Eq, a, Pool::ZERO)
    }

    /// `a != 0` as 0 or 1.
    fn truth(&mut self, a: Node) -> Node {
        self.binary(Binary::Ne, a, Pool::ZERO)
    }

    /// The node's value is always 0 or 1.
    fn is_boolean(&self, node: Node) -> bool {
        match self.term(node) {
            Term::Const(v) => v == 0.0 || v == 1.0,
            Term::Binary(op, _, _) => op.is_boolean(),
            _ => false,
        }
    }

    /// The node's value is always an integer (or not finite).
    fn is_integral(&self, node: Node) -> bool {
        match self.term(node) {
            Term::Unary(f, _) => f.is_rounding(),
            _ => self.is_boolean(node),
        }
    }

    pub(super) fn linear_from(
        &mut self,
        constant: f64,
        terms: impl IntoIterator<Item = (f64, Node)>,
    ) -> Node {
        let mut acc = std::mem::take(&mut self.scratch.terms);
        acc.clear();
        // `None` until a constant contributes, so folding a lone constant is exact (-(0) is -0).
        let mut k = (constant != 0.0).then_some(constant);
        let mut inputs = 0;
        let mut last_sum = None;
        for (c, n) in terms {
            if c == 0.0 {
                continue; // x*0 = 0, ignoring NaN and infinite x.
            }
            inputs += 1;
            if self.sum_part(n).is_some() {
                last_sum = Some((c, n));
            }
            self.expand(c, n, &mut k, &mut acc);
        }
        if let (1, Some((c, sum)), 0.0) = (inputs, last_sum, constant) {
            self.scratch.terms = acc;
            return self.multiple_of_sum(c, sum);
        }
        acc.sort_by_key(|&(_, n)| n);
        let mut kept = 0;
        for i in 0..acc.len() {
            if kept > 0 && acc[kept - 1].1 == acc[i].1 {
                acc[kept - 1].0 += acc[i].0;
            } else {
                acc[kept] = acc[i];
                kept += 1;
            }
        }
        acc.truncate(kept);
        acc.retain(|&(c, _)| c != 0.0); // x - x = 0, ignoring NaN and infinite x.
        for term in acc.iter_mut() {
            term.0 = canonical(term.0);
        }
        let node = match (acc.as_slice(), k) {
            ([], k) => self.constant(k.unwrap_or(0.0)),
            (&[(c, n)], k) if c == 1.0 && k.is_none_or(|k| k == 0.0) => n,
            (terms, k) => {
                let constant = canonical(k.filter(|&k| k != 0.0).unwrap_or(0.0));
                self.intern(Term::Sum { constant, terms })
            }
        };
        self.scratch.terms = acc;
        node
    }

    /// Adds `c·n` to a linear combination under construction, flattening sums.
    fn expand(&self, c: f64, n: Node, k: &mut Option<f64>, acc: &mut Vec<(f64, Node)>) {
        match self.term(n) {
            Term::Const(v) => *k = Some(k.map_or(c * v, |k| k + c * v)),
            Term::Sum { constant, terms } => {
                if constant != 0.0 {
                    *k = Some(k.map_or(c * constant, |k| k + c * constant));
                }
                for &(d, m) in terms {
                    self.expand(c * d, m, k, acc);
                }
            }
            _ => acc.push((c, n)),
        }
    }

    /// If `n` is a sum or a multiple of one, the multiplier and the sum.
    fn sum_part(&self, n: Node) -> Option<(f64, Node)> {
        match self.term(n) {
            Term::Sum {
                constant: 0.0,
                terms: &[(c, t)],
            } => match self.term(t) {
                Term::Sum { .. } => Some((c, t)),
                _ => None,
            },
            Term::Sum { .. } => Some((1.0, n)),
            _ => None,
        }
    }

    /// `c` times a sum, kept factored (`2*(x+1)` is not expanded to `2*x + 2`): the sum stays one
    /// shared node, and `c·(s·y)` and `(c·s)·y` are the same product. Sums are flattened as soon
    /// as anything is added to them.
    fn multiple_of_sum(&mut self, c: f64, n: Node) -> Node {
        let (inner, sum) = self.sum_part(n).unwrap_or((1.0, n));
        let c = canonical(c * inner);
        if c == 1.0 {
            sum
        } else if c == 0.0 {
            self.constant(c)
        } else {
            self.intern(Term::Sum {
                constant: 0.0,
                terms: &[(c, sum)],
            })
        }
    }

    pub(super) fn product_from(&mut self, factors: impl IntoIterator<Item = (Node, i32)>) -> Node {
        let mut acc = std::mem::take(&mut self.scratch.factors);
        acc.clear();
        let mut coefficient = 1.0;
        for (n, e) in factors {
            if e != 0 {
                self.collect_factor(n, i64::from(e), &mut coefficient, &mut acc);
            }
        }
        if coefficient == 0.0 {
            // x*0 = 0, ignoring NaN and infinite x.
            self.scratch.factors = acc;
            return self.constant(coefficient);
        }
        merge_powers(&mut acc);
        if !acc.iter().all(|&(_, e)| fits_exponent(e)) {
            // Exponents beyond ±(2³¹-1) (from powers of powers) become real powers.
            for factor in acc.iter_mut() {
                if !fits_exponent(factor.1) {
                    let exponent = self.constant(factor.1 as f64);
                    *factor = (
                        self.intern(Term::Binary(Binary::Pow, factor.0, exponent)),
                        1,
                    );
                }
            }
            merge_powers(&mut acc);
        }
        let mut product = std::mem::take(&mut self.scratch.product);
        product.clear();
        product.extend(acc.iter().map(|&(n, e)| (n, e as i32)));
        self.scratch.factors = acc;
        let node = match product.as_slice() {
            [] => Pool::ONE,
            &[(n, 1)] => n,
            factors => self.intern(Term::Product(factors)),
        };
        self.scratch.product = product;
        self.scale(node, coefficient)
    }

    /// Adds `node^exponent` to a product under construction: constants and the coefficients of
    /// scaled terms go into `coefficient`, products are flattened.
    fn collect_factor(
        &self,
        node: Node,
        exponent: i64,
        coefficient: &mut f64,
        acc: &mut Vec<(Node, i64)>,
    ) {
        match self.term(node) {
            Term::Const(v) => *coefficient *= constant_power(v, exponent),
            Term::Sum { constant, terms } if constant == 0.0 && terms.len() == 1 => {
                let (c, t) = terms[0];
                *coefficient *= constant_power(c, exponent);
                self.collect_factor(t, exponent, coefficient, acc);
            }
            Term::Product(factors) => {
                acc.extend(factors.iter().map(|&(b, e)| (b, i64::from(e) * exponent)));
            }
            _ => acc.push((node, exponent)),
        }
    }
}

/// Sorts factors by base, adds the exponents of equal bases and drops zero exponents
/// (`x * x^-1` is 1, ignoring x = 0).
fn merge_powers(acc: &mut Vec<(Node, i64)>) {
    acc.sort_by_key(|&(n, _)| n);
    let mut kept = 0;
    for i in 0..acc.len() {
        if kept > 0 && acc[kept - 1].0 == acc[i].0 {
            acc[kept - 1].1 += acc[i].1;
        } else {
            acc[kept] = acc[i];
            kept += 1;
        }
    }
    acc.truncate(kept);
    acc.retain(|&(_, e)| e != 0);
}

/// One bit pattern for all NaNs, so equal terms hash and compare equal.
fn canonical(v: f64) -> f64 {
    if v.is_nan() {
        f64::NAN
    } else {
        v
    }
}

/// Whether a product can hold the exponent. The range is symmetric so that negating or
/// decrementing a stored exponent (as differentiation does) cannot overflow.
fn fits_exponent(exponent: i64) -> bool {
    exponent.unsigned_abs() <= i32::MAX as u64
}

/// `value^exponent` for a constant factor, with the same rounding a product uses.
fn constant_power(value: f64, exponent: i64) -> f64 {
    if fits_exponent(exponent) {
        powi_signed(value, exponent as i32)
    } else {
        value.powf(exponent as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool_with_symbols() -> (Pool, Node, Node, Node) {
        let mut p = Pool::new();
        let x = p.symbol(Symbol(0));
        let y = p.symbol(Symbol(1));
        let z = p.symbol(Symbol(2));
        (p, x, y, z)
    }

    #[test]
    fn constants_fold_exactly() {
        let mut p = Pool::new();
        let a = p.constant(0.3);
        let b = p.constant(0.1);
        let q = p.div(a, b);
        assert_eq!(p.as_constant(q), Some(0.3 / 0.1));
        let s = p.add(a, b);
        assert_eq!(p.as_constant(s), Some(0.3 + 0.1));
        let zero = p.constant(0.0);
        let minus_zero = p.neg(zero);
        assert!(p.as_constant(minus_zero).unwrap().is_sign_negative());
        let sin = p.sin(a);
        assert_eq!(p.as_constant(sin), Some(0.3f64.sin()));
        let two = p.constant(2.0);
        let pow = p.pow(two, b);
        assert_eq!(p.as_constant(pow), Some(2f64.powf(0.1)));
        let lt = p.lt(b, a);
        assert_eq!(lt, Pool::ONE);
        let nan1 = p.constant(f64::NAN);
        let nan2 = p.constant(-f64::NAN);
        assert_eq!(nan1, nan2);
    }

    #[test]
    fn additive_and_multiplicative_identities() {
        let (mut p, x, _, _) = pool_with_symbols();
        let (zero, one) = (Pool::ZERO, Pool::ONE);
        assert_eq!(p.add(x, zero), x);
        assert_eq!(p.add(zero, x), x);
        assert_eq!(p.sub(x, zero), x);
        assert_eq!(p.mul(x, one), x);
        assert_eq!(p.mul(one, x), x);
        assert_eq!(p.mul(x, zero), zero);
        assert_eq!(p.div(x, one), x);
        assert_eq!(p.div(zero, x), zero);
        assert_eq!(p.sub(x, x), zero);
        assert_eq!(p.powi(x, 0), one);
        assert_eq!(p.powi(x, 1), x);
        assert_eq!(p.pow(x, zero), one);
        assert_eq!(p.pow(x, one), x);
        assert_eq!(p.pow(one, x), one);
        let minus = p.neg(x);
        assert_eq!(p.neg(minus), x);
        assert_eq!(p.div(x, x), one);
    }

    #[test]
    fn commutative_forms_are_one_node() {
        let (mut p, x, y, z) = pool_with_symbols();
        let xy = p.mul(x, y);
        assert_eq!(p.mul(y, x), xy);
        let xy_z = p.mul(xy, z);
        let yz = p.mul(y, z);
        assert_eq!(p.mul(x, yz), xy_z);
        let sum = p.add(x, y);
        assert_eq!(p.add(y, x), sum);
        let sum3 = p.add(sum, z);
        let yz_sum = p.add(y, z);
        assert_eq!(p.add(x, yz_sum), sum3);
        assert_eq!(p.sum(&[z, y, x]), sum3);
        assert_eq!(p.product(&[z, x, y]), xy_z);
        assert_eq!(p.min(x, y), p.min(y, x));
        assert_eq!(p.hypot(x, y), p.hypot(y, x));
        assert_eq!(p.gt(x, y), p.lt(y, x));
        assert_eq!(p.ge(x, y), p.le(y, x));
    }

    #[test]
    fn like_terms_and_powers_collect() {
        let (mut p, x, y, _) = pool_with_symbols();
        // 2x + 3x = 5x
        let two_x = p.scale(x, 2.0);
        let three_x = p.scale(x, 3.0);
        let five_x = p.scale(x, 5.0);
        assert_eq!(p.add(two_x, three_x), five_x);
        // x * x * x = x^3, x^3 / x = x^2
        let x2 = p.mul(x, x);
        assert_eq!(x2, p.powi(x, 2));
        let x3 = p.mul(x2, x);
        assert_eq!(p.div(x3, x), x2);
        // (2x)(3y) = 6xy
        let three_y = p.scale(y, 3.0);
        let xy = p.mul(x, y);
        let six_xy = p.scale(xy, 6.0);
        assert_eq!(p.mul(two_x, three_y), six_xy);
        // (x^2)^3 = x^6, (2x)^2 = 4x^2
        let x6 = p.powi(x, 6);
        assert_eq!(p.powi(x2, 3), x6);
        let four_x2 = p.scale(x2, 4.0);
        assert_eq!(p.powi(two_x, 2), four_x2);
        // Constants collect: (x + 1) + 2 = x + 3
        let x_plus_1 = p.linear(1.0, &[(1.0, x)]);
        let two = p.constant(2.0);
        assert_eq!(p.add(x_plus_1, two), p.linear(3.0, &[(1.0, x)]));
        // x/2 is 0.5x
        assert_eq!(p.div(x, two), p.scale(x, 0.5));
    }

    #[test]
    fn multiples_of_sums_stay_factored_until_added_to() {
        let (mut p, x, y, _) = pool_with_symbols();
        let s = p.linear(1.0, &[(1.0, x)]);
        let two_s = p.scale(s, 2.0);
        assert!(
            matches!(p.term(two_s), Term::Sum { constant, terms } if constant == 0.0 && terms == [(2.0, s)])
        );
        let two = p.constant(2.0);
        assert_eq!(p.mul(two, s), two_s);
        assert_eq!(p.mul(s, two), two_s);
        let half = p.scale(two_s, 0.5);
        assert_eq!(half, s);
        let minus = p.neg(s);
        assert_eq!(p.neg(minus), s);
        // c·(s·y) and (c·s)·y are one node.
        let sy = p.mul(s, y);
        let two_sy = p.scale(sy, 2.0);
        assert_eq!(p.mul(two_s, y), two_sy);
        // Adding flattens: 2(x + 1) - 2x = 2.
        let two_x = p.scale(x, 2.0);
        let difference = p.sub(two_s, two_x);
        assert_eq!(p.as_constant(difference), Some(2.0));
    }

    #[test]
    fn huge_integer_powers_become_real_powers() {
        let (mut p, x, _, _) = pool_with_symbols();
        let big = p.powi(x, 100_000);
        let bigger = p.powi(big, 100_000);
        match p.term(bigger) {
            Term::Binary(Binary::Pow, base, exponent) => {
                assert_eq!(base, x);
                assert_eq!(p.as_constant(exponent), Some(1e10));
            }
            other => panic!("expected a real power, got {other:?}"),
        }
    }

    #[test]
    fn function_and_logic_identities() {
        let (mut p, x, y, _) = pool_with_symbols();
        let abs = p.abs(x);
        assert_eq!(p.abs(abs), abs);
        let minus_two_x = p.scale(x, -2.0);
        assert_eq!(p.abs(minus_two_x), p.scale(abs, 2.0));
        let floor = p.floor(x);
        assert_eq!(p.ceil(floor), floor);
        let lt = p.lt(x, y);
        assert_eq!(p.round(lt), lt);
        assert_eq!(p.abs(lt), lt);
        assert_eq!(p.lt(x, x), Pool::ZERO);
        assert_eq!(p.le(x, x), Pool::ONE);
        assert_eq!(p.max(x, x), x);
        assert_eq!(p.and(lt, Pool::ONE), lt);
        assert_eq!(p.and(x, Pool::ZERO), Pool::ZERO);
        assert_eq!(p.or(x, Pool::ONE), Pool::ONE);
        assert_eq!(p.ne(lt, Pool::ZERO), lt);
        assert_eq!(p.select(Pool::ONE, x, y), x);
        assert_eq!(p.select(Pool::ZERO, x, y), y);
        assert_eq!(p.select(lt, x, x), x);
        assert_eq!(p.select(lt, Pool::ONE, Pool::ZERO), lt);
        let x_nonzero = p.ne(x, Pool::ZERO);
        assert_eq!(p.select(x_nonzero, x, y), p.select(x, x, y));
        assert_eq!(p.hypot(x, Pool::ZERO), abs);
    }
}
