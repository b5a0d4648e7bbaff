//! Readable infix text of an expression, in Tcl `expr` syntax.
//!
//! Used for `--stats`, error messages and debugging. Parentheses appear only where Tcl's
//! precedence needs them (plus around powers' bases for readability), so the text reads back to
//! the same value. Shared subexpressions are written out in full each time they occur.

use super::ops::{Binary, Notation};
use super::pool::{Node, Pool, Symbol, Term};
use crate::lang::number::format_double;
use crate::lang::operator::{BinaryOp, UNARY_PRECEDENCE};
use std::fmt;

/// How tightly a node binds as an operand, lowest first: `?:`, then one level above each
/// operator's precedence in the language's table, then unary operators and atoms.
const TERNARY: u8 = 0;
const OR: u8 = level(BinaryOp::Or);
const ADDITIVE: u8 = level(BinaryOp::Add);
const MULTIPLICATIVE: u8 = level(BinaryOp::Mul);
const POWER: u8 = level(BinaryOp::Pow);
const UNARY: u8 = UNARY_PRECEDENCE + 1;
const ATOM: u8 = UNARY + 1;

/// The binding of a node made by `op`.
const fn level(op: BinaryOp) -> u8 {
    op.precedence() + 1
}

/// An expression ready to format; see [`Pool::display`] and [`Pool::display_with`].
pub struct Shown<'a, F> {
    pool: &'a Pool,
    node: Node,
    names: F,
}

impl Pool {
    /// The expression as text, symbols written `$s<number>`.
    pub fn display(
        &self,
        node: Node,
    ) -> Shown<'_, impl Fn(Symbol, &mut fmt::Formatter<'_>) -> fmt::Result> {
        self.display_with(node, |symbol, f| write!(f, "$s{}", symbol.0))
    }

    /// The expression as text, each symbol written by `names` (e.g. as `[b1 x]` or `$t`).
    pub fn display_with<F>(&self, node: Node, names: F) -> Shown<'_, F>
    where
        F: Fn(Symbol, &mut fmt::Formatter<'_>) -> fmt::Result,
    {
        Shown {
            pool: self,
            node,
            names,
        }
    }
}

impl<F> fmt::Display for Shown<'_, F>
where
    F: Fn(Symbol, &mut fmt::Formatter<'_>) -> fmt::Result,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, self.node, TERNARY)
    }
}

impl<F> Shown<'_, F>
where
    F: Fn(Symbol, &mut fmt::Formatter<'_>) -> fmt::Result,
{
    /// Writes `node`, in parentheses if it binds less tightly than `min`.
    fn write(&self, f: &mut fmt::Formatter<'_>, node: Node, min: u8) -> fmt::Result {
        if self.precedence(node) < min {
            f.write_str("(")?;
            self.write_bare(f, node)?;
            f.write_str(")")
        } else {
            self.write_bare(f, node)
        }
    }

    fn write_bare(&self, f: &mut fmt::Formatter<'_>, node: Node) -> fmt::Result {
        match self.pool.term(node) {
            Term::Const(v) => write_number(f, v),
            Term::Symbol(s) => (self.names)(s, f),
            Term::Sum { constant, terms } => {
                for (i, &(c, t)) in terms.iter().enumerate() {
                    if i == 0 {
                        if c == -1.0 {
                            f.write_str("-")?;
                            self.write(f, t, self.negated_operand_precedence(t))?;
                        } else {
                            self.write_scaled(f, c, t)?;
                        }
                    } else {
                        f.write_str(if c < 0.0 { " - " } else { " + " })?;
                        self.write_scaled(f, c.abs(), t)?;
                    }
                }
                if constant != 0.0 {
                    f.write_str(if constant < 0.0 { " - " } else { " + " })?;
                    write_number(f, constant.abs())?;
                }
                Ok(())
            }
            Term::Product(factors) => self.write_product(f, None, factors),
            Term::Unary(func, a) => {
                write!(f, "{}(", func.name())?;
                self.write(f, a, TERNARY)?;
                f.write_str(")")
            }
            Term::Binary(op, a, b) => match op.notation() {
                Notation::Function(name) => {
                    write!(f, "{name}(")?;
                    self.write(f, a, TERNARY)?;
                    f.write_str(", ")?;
                    self.write(f, b, TERNARY)?;
                    f.write_str(")")
                }
                // Right-associative; the base parenthesized unless atomic, for readability.
                Notation::Infix(tcl) if tcl.is_right_associative() => {
                    self.write(f, a, ATOM)?;
                    f.write_str(tcl.symbol())?;
                    self.write(f, b, level(tcl))
                }
                Notation::Infix(tcl) => {
                    self.write(f, a, level(tcl))?;
                    write!(f, " {} ", tcl.symbol())?;
                    self.write(f, b, level(tcl) + 1)
                }
            },
            Term::Select(c, a, b) => {
                self.write(f, c, OR)?;
                f.write_str(" ? ")?;
                self.write(f, a, TERNARY)?;
                f.write_str(" : ")?;
                self.write(f, b, TERNARY)
            }
        }
    }

    /// Writes `c·t` for a term of a sum (`c` positive unless it is the first term).
    fn write_scaled(&self, f: &mut fmt::Formatter<'_>, c: f64, t: Node) -> fmt::Result {
        if c == 1.0 {
            return self.write(f, t, MULTIPLICATIVE);
        }
        match self.pool.term(t) {
            Term::Product(factors) => self.write_product(f, Some(c), factors),
            _ => {
                write_number(f, c)?;
                f.write_str("*")?;
                self.write(f, t, POWER)
            }
        }
    }

    /// Writes `coefficient * numerator / denominator`.
    fn write_product(
        &self,
        f: &mut fmt::Formatter<'_>,
        coefficient: Option<f64>,
        factors: &[(Node, i32)],
    ) -> fmt::Result {
        let mut first = true;
        if let Some(c) = coefficient {
            write_number(f, c)?;
            first = false;
        }
        for &(base, e) in factors.iter().filter(|&&(_, e)| e > 0) {
            if !first {
                f.write_str("*")?;
            }
            first = false;
            self.write_power(f, base, e)?;
        }
        if first {
            f.write_str("1")?;
        }
        for &(base, e) in factors.iter().filter(|&&(_, e)| e < 0) {
            f.write_str("/")?;
            self.write_power(f, base, -e)?;
        }
        Ok(())
    }

    fn write_power(&self, f: &mut fmt::Formatter<'_>, base: Node, exponent: i32) -> fmt::Result {
        if exponent == 1 {
            self.write(f, base, POWER)
        } else {
            self.write(f, base, ATOM)?;
            write!(f, "**{exponent}")
        }
    }

    /// How tightly `t` must bind to be written after a unary minus without parentheses.
    fn negated_operand_precedence(&self, t: Node) -> u8 {
        if self.starts_with_power(t) {
            ATOM
        } else {
            MULTIPLICATIVE
        }
    }

    /// Whether the text of `node` begins with a power, which a leading unary minus would
    /// capture (Tcl reads `-x**2` as `(-x)**2`).
    fn starts_with_power(&self, node: Node) -> bool {
        match self.pool.term(node) {
            Term::Product(factors) => factors
                .iter()
                .find(|&&(_, e)| e > 0)
                .is_some_and(|&(base, e)| e > 1 || self.starts_with_power(base)),
            Term::Binary(Binary::Pow, _, _) => true,
            _ => false,
        }
    }

    fn precedence(&self, node: Node) -> u8 {
        match self.pool.term(node) {
            Term::Const(v) => {
                if v.is_sign_negative() && !v.is_nan() {
                    UNARY
                } else {
                    ATOM
                }
            }
            Term::Symbol(_) | Term::Unary(..) => ATOM,
            Term::Sum { constant, terms } => match terms {
                // `-t`: as tight as `t` itself, up to unary; parenthesized `t` counts as atomic.
                [(c, t)] if constant == 0.0 && *c == -1.0 => {
                    let own = self.precedence(*t);
                    if own < self.negated_operand_precedence(*t) {
                        UNARY
                    } else {
                        own.min(UNARY)
                    }
                }
                [_] if constant == 0.0 => MULTIPLICATIVE,
                _ => ADDITIVE,
            },
            Term::Product(factors) => match factors {
                [(_, e)] if *e > 1 => POWER,
                _ => MULTIPLICATIVE,
            },
            Term::Binary(op, _, _) => match op.notation() {
                Notation::Infix(tcl) => level(tcl),
                Notation::Function(_) => ATOM,
            },
            Term::Select(..) => TERNARY,
        }
    }
}

/// A constant as Tcl reads it back to the same value: integral values below 1e16 as
/// integers (`4*$x`), the others as the language prints doubles ([`format_double`]).
fn write_number(f: &mut fmt::Formatter<'_>, v: f64) -> fmt::Result {
    let negative_zero = v == 0.0 && v.is_sign_negative();
    if v.fract() == 0.0 && v.abs() < 1e16 && !negative_zero {
        write!(f, "{v}")
    } else {
        let mut text = String::new();
        format_double(v, &mut text);
        f.write_str(&text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn infix_text_with_minimal_parentheses() {
        let mut p = Pool::new();
        let [x, y, z] = [0, 1, 2].map(|i| p.symbol(Symbol(i)));
        let cases: Vec<(Node, &str)> = {
            let two_y = p.scale(y, 2.0);
            let sum = p.linear(-3.0, &[(1.0, x), (2.0, two_y)]);
            let x2 = p.powi(x, 2);
            let minus_x2 = p.neg(x2);
            let z2 = p.powi(z, -2);
            let xy = p.mul(x, y);
            let ratio = p.mul(xy, z2);
            let inverse = p.powi(x, -1);
            let two_over = p.scale(inverse, 2.0);
            let x_plus_1 = p.linear(1.0, &[(1.0, x)]);
            let square = p.powi(x_plus_1, 2);
            let half = p.constant(-0.5);
            let root = p.pow(x, half);
            let lt = p.lt(x, y);
            let sel = p.select(lt, x, y);
            let scaled_lt = p.scale(lt, 2.0);
            let minus_sum = p.neg(x_plus_1);
            let sin = p.sin(x);
            let minus_two = p.constant(-2.0);
            let power_of_negative = p.pow(minus_two, x);
            let atan2 = p.atan2(x, y);
            let int = p.trunc(y);
            let and = p.and(lt, z);
            let big = p.constant(1e20);
            let tiny = p.constant(-1.5e-7);
            let inf = p.constant(f64::NEG_INFINITY);
            let nan = p.constant(f64::NAN);
            vec![
                (sum, "$s0 + 4*$s1 - 3"),
                (minus_x2, "-($s0**2)"),
                (ratio, "$s0*$s1/$s2**2"),
                (two_over, "2/$s0"),
                (square, "($s0 + 1)**2"),
                (root, "$s0**-0.5"),
                (sel, "$s0 < $s1 ? $s0 : $s1"),
                (scaled_lt, "2*($s0 < $s1)"),
                (minus_sum, "-($s0 + 1)"),
                (sin, "sin($s0)"),
                (power_of_negative, "(-2)**$s0"),
                (atan2, "atan2($s0, $s1)"),
                (int, "int($s1)"),
                (and, "$s2 && $s0 < $s1"),
                (big, "1e+20"),
                (tiny, "-1.5e-7"),
                (inf, "-Inf"),
                (nan, "NaN"),
            ]
        };
        for (node, text) in cases {
            assert_eq!(p.display(node).to_string(), text);
        }
        let named = p.display_with(x, |s, f| write!(f, "[b1 x{}]", s.0));
        assert_eq!(named.to_string(), "[b1 x0]");
    }
}
