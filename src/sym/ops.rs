//! The operations an expression can apply, and what they compute on `f64` values.
//!
//! These functions are the single definition of the numeric meaning of every node: constant
//! folding, the DAG evaluator and the tape all call them, so the three agree bit for bit.

use crate::lang::operator::BinaryOp;

/// A function of one argument. Names follow Tcl's `expr` math functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Unary {
    Sqrt,
    Exp,
    /// Natural logarithm (Tcl's `log`).
    Log,
    Log10,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Abs,
    Floor,
    Ceil,
    /// Round half away from zero, as Tcl's `round`.
    Round,
    /// Round toward zero (Tcl's `int`, `entier`, `wide` on a real value).
    Trunc,
}

impl Unary {
    pub fn apply(self, x: f64) -> f64 {
        match self {
            Unary::Sqrt => x.sqrt(),
            Unary::Exp => x.exp(),
            Unary::Log => x.ln(),
            Unary::Log10 => x.log10(),
            Unary::Sin => x.sin(),
            Unary::Cos => x.cos(),
            Unary::Tan => x.tan(),
            Unary::Asin => x.asin(),
            Unary::Acos => x.acos(),
            Unary::Atan => x.atan(),
            Unary::Sinh => x.sinh(),
            Unary::Cosh => x.cosh(),
            Unary::Tanh => x.tanh(),
            Unary::Abs => x.abs(),
            Unary::Floor => x.floor(),
            Unary::Ceil => x.ceil(),
            Unary::Round => x.round(),
            Unary::Trunc => x.trunc(),
        }
    }

    /// The Tcl math function that computes it.
    pub fn name(self) -> &'static str {
        match self {
            Unary::Sqrt => "sqrt",
            Unary::Exp => "exp",
            Unary::Log => "log",
            Unary::Log10 => "log10",
            Unary::Sin => "sin",
            Unary::Cos => "cos",
            Unary::Tan => "tan",
            Unary::Asin => "asin",
            Unary::Acos => "acos",
            Unary::Atan => "atan",
            Unary::Sinh => "sinh",
            Unary::Cosh => "cosh",
            Unary::Tanh => "tanh",
            Unary::Abs => "abs",
            Unary::Floor => "floor",
            Unary::Ceil => "ceil",
            Unary::Round => "round",
            Unary::Trunc => "int",
        }
    }

    /// True for the rounding functions, whose results are integers and whose derivative is zero
    /// almost everywhere.
    pub fn is_rounding(self) -> bool {
        matches!(
            self,
            Unary::Floor | Unary::Ceil | Unary::Round | Unary::Trunc
        )
    }
}

/// A function or operator of two arguments. Comparisons and logical operators yield 0 or 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Binary {
    /// `a ** b` with a real or symbolic exponent (integer constant exponents are products).
    Pow,
    Atan2,
    Hypot,
    /// Remainder of truncated division, sign of the dividend (C `fmod`, Tcl `fmod`).
    Fmod,
    /// The smaller argument; a NaN argument is ignored (as `f64::min`).
    Min,
    /// The larger argument; a NaN argument is ignored (as `f64::max`).
    Max,
    Lt,
    Le,
    Eq,
    Ne,
    /// 1 when both arguments are non-zero.
    And,
    /// 1 when either argument is non-zero.
    Or,
}

impl Binary {
    pub fn apply(self, a: f64, b: f64) -> f64 {
        match self {
            Binary::Pow => a.powf(b),
            Binary::Atan2 => a.atan2(b),
            Binary::Hypot => a.hypot(b),
            Binary::Fmod => a % b,
            Binary::Min => a.min(b),
            Binary::Max => a.max(b),
            Binary::Lt => truth(a < b),
            Binary::Le => truth(a <= b),
            Binary::Eq => truth(a == b),
            Binary::Ne => truth(a != b),
            Binary::And => truth(a != 0.0 && b != 0.0),
            Binary::Or => truth(a != 0.0 || b != 0.0),
        }
    }

    /// Swapping the arguments does not change the result, so the pool orders them canonically.
    pub fn is_commutative(self) -> bool {
        matches!(
            self,
            Binary::Hypot
                | Binary::Min
                | Binary::Max
                | Binary::Eq
                | Binary::Ne
                | Binary::And
                | Binary::Or
        )
    }

    /// The result is always 0 or 1.
    pub fn is_boolean(self) -> bool {
        matches!(
            self,
            Binary::Lt | Binary::Le | Binary::Eq | Binary::Ne | Binary::And | Binary::Or
        )
    }

    /// How Tcl writes it: a function call such as `atan2(a, b)` or an infix operator such
    /// as `a < b`.
    pub fn notation(self) -> Notation {
        match self {
            Binary::Pow => Notation::Infix(BinaryOp::Pow),
            Binary::Atan2 => Notation::Function("atan2"),
            Binary::Hypot => Notation::Function("hypot"),
            Binary::Fmod => Notation::Function("fmod"),
            Binary::Min => Notation::Function("min"),
            Binary::Max => Notation::Function("max"),
            Binary::Lt => Notation::Infix(BinaryOp::Lt),
            Binary::Le => Notation::Infix(BinaryOp::Le),
            Binary::Eq => Notation::Infix(BinaryOp::Eq),
            Binary::Ne => Notation::Infix(BinaryOp::Ne),
            Binary::And => Notation::Infix(BinaryOp::And),
            Binary::Or => Notation::Infix(BinaryOp::Or),
        }
    }
}

/// How a binary operation is written in Tcl.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notation {
    Function(&'static str),
    /// The language's operator (its spelling and precedence are in its table).
    Infix(BinaryOp),
}

/// 1.0 for true, 0.0 for false.
pub(crate) fn truth(b: bool) -> f64 {
    if b {
        1.0
    } else {
        0.0
    }
}

/// The condition of a select: any non-zero value (NaN included) chooses the first branch.
pub(crate) fn select(condition: f64, then: f64, otherwise: f64) -> f64 {
    if condition != 0.0 {
        then
    } else {
        otherwise
    }
}

/// `x` raised to a positive integer power. Squares and cubes are plain multiplications, which
/// the tape also uses, so both agree exactly.
pub(crate) fn powi(x: f64, n: u32) -> f64 {
    match n {
        1 => x,
        2 => x * x,
        3 => x * x * x,
        // Exponents come from `i32` factors, so `n` fits; saturating keeps this total.
        _ => x.powi(i32::try_from(n).unwrap_or(i32::MAX)),
    }
}

/// `x` raised to a non-zero integer power: negative powers are the reciprocal of the positive
/// one, as products evaluate them.
pub(crate) fn powi_signed(x: f64, n: i32) -> f64 {
    if n >= 0 {
        powi(x, n.unsigned_abs())
    } else {
        1.0 / powi(x, n.unsigned_abs())
    }
}
