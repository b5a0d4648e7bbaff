//! Evaluation of compiled `expr` expressions with Tcl's number rules: integer arithmetic stays
//! integer (division and modulo round toward negative infinity), any double operand makes the
//! operation floating-point, comparisons are numeric when both sides are numbers and textual
//! otherwise, and a NaN result is a domain error.

use super::{Exception, Interp};
use crate::lang::ast::{BinaryOp, UnaryOp};
use crate::lang::code::{CExpr, CExprKind, Code, ExprCode};
use crate::lang::number::{self, int_arith, parse_boolean, read_number, NotANumber, Number};
use crate::lang::value::Value;
use std::cmp::Ordering;

/// An operand as an operator sees it.
#[derive(Clone)]
enum Operand {
    Int(i64),
    Float(f64),
    Str(Value),
}

impl Operand {
    fn of(v: Value) -> Operand {
        match v.as_number() {
            Some(Number::Int(i)) => Operand::Int(i),
            Some(Number::Float(f)) => Operand::Float(f),
            None => Operand::Str(v),
        }
    }

    fn into_value(self) -> Value {
        match self {
            Operand::Int(i) => Value::from_int(i),
            Operand::Float(f) => Value::from_float(f),
            Operand::Str(v) => v,
        }
    }

    fn number(&self) -> Option<Number> {
        match self {
            Operand::Int(i) => Some(Number::Int(*i)),
            Operand::Float(f) => Some(Number::Float(*f)),
            Operand::Str(_) => None,
        }
    }

    fn text(&self) -> String {
        match self {
            Operand::Str(v) => v.as_str().to_string(),
            other => other.clone().into_value().as_str().to_string(),
        }
    }
}

fn domain_error() -> Exception {
    Exception::error(number::DOMAIN_ERROR)
}

fn overflow() -> Exception {
    Exception::error(number::ArithError::Overflow.to_string())
}

/// The message for an operand of the wrong kind for `op`.
fn bad_operand(x: &Operand, op: &str) -> Exception {
    if let Operand::Str(v) = x {
        if read_number(v.as_str()) == Err(NotANumber::TooLarge) {
            return Exception::error(number::TOO_LARGE);
        }
    }
    let what = match x {
        Operand::Str(v) if v.as_str().is_empty() => "empty string",
        Operand::Str(_) => "non-numeric string",
        Operand::Float(f) if f.is_nan() => "non-numeric floating-point value",
        Operand::Float(_) => "floating-point value",
        Operand::Int(_) => "integer",
    };
    Exception::error(format!("can't use {what} as operand of \"{op}\""))
}

/// A number for an arithmetic operator, or tclsh's complaint.
fn numeric(x: &Operand, op: &str) -> Result<Number, Exception> {
    match x {
        Operand::Float(f) if f.is_nan() => Err(bad_operand(x, op)),
        _ => x.number().ok_or_else(|| bad_operand(x, op)),
    }
}

fn integer(x: &Operand, op: &str) -> Result<i64, Exception> {
    match x {
        Operand::Int(i) => Ok(*i),
        _ => Err(bad_operand(x, op)),
    }
}

fn boolean(x: &Operand) -> Result<bool, Exception> {
    match x {
        Operand::Int(i) => Ok(*i != 0),
        Operand::Float(f) => Ok(*f != 0.0),
        Operand::Str(v) => parse_boolean(v.as_str()).ok_or_else(|| {
            Exception::error(format!("expected boolean value but got \"{}\"", v.as_str()))
        }),
    }
}

fn float_result(f: f64) -> Result<Operand, Exception> {
    if f.is_nan() {
        Err(domain_error())
    } else {
        Ok(Operand::Float(f))
    }
}

impl Interp {
    /// Evaluates a compiled expression in the current frame.
    /// Evaluates a compiled expression in the current frame; a NaN result is a domain error,
    /// as in Tcl.
    pub(super) fn eval_cexpr(&mut self, e: &ExprCode) -> Result<Value, Exception> {
        match self.operand(&e.root, &e.context)? {
            Operand::Float(f) if f.is_nan() => Err(domain_error()),
            result => Ok(result.into_value()),
        }
    }

    fn operand(&mut self, e: &CExpr, code: &Code) -> Result<Operand, Exception> {
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || self.operand_inner(e, code))
    }

    fn operand_inner(&mut self, e: &CExpr, code: &Code) -> Result<Operand, Exception> {
        match &e.kind {
            CExprKind::Const(v) => Ok(Operand::of(v.clone())),
            CExprKind::Subst(s) => Ok(Operand::of(self.subst(s, code)?)),
            CExprKind::Unary(op, x) => {
                let x = self.operand(x, code)?;
                unary(*op, x)
            }
            CExprKind::Binary(BinaryOp::And, a, b) => {
                let a = self.operand(a, code)?;
                if !boolean(&a)? {
                    return Ok(Operand::Int(0));
                }
                let b = self.operand(b, code)?;
                Ok(Operand::Int(i64::from(boolean(&b)?)))
            }
            CExprKind::Binary(BinaryOp::Or, a, b) => {
                let a = self.operand(a, code)?;
                if boolean(&a)? {
                    return Ok(Operand::Int(1));
                }
                let b = self.operand(b, code)?;
                Ok(Operand::Int(i64::from(boolean(&b)?)))
            }
            CExprKind::Binary(op, a, b) => {
                let a = self.operand(a, code)?;
                let b = self.operand(b, code)?;
                binary(*op, a, b)
            }
            CExprKind::Ternary(c, a, b) => {
                let c = self.operand(c, code)?;
                if boolean(&c)? {
                    self.operand(a, code)
                } else {
                    self.operand(b, code)
                }
            }
            CExprKind::Call(name, args) => {
                let mut values = Vec::with_capacity(args.len());
                for a in args {
                    values.push(self.operand(a, code)?);
                }
                call(name, &values)
            }
        }
    }
}

fn unary(op: UnaryOp, x: Operand) -> Result<Operand, Exception> {
    match op {
        UnaryOp::Neg => match numeric(&x, "-")? {
            Number::Int(i) => i.checked_neg().map(Operand::Int).ok_or_else(overflow),
            Number::Float(f) => Ok(Operand::Float(-f)),
        },
        UnaryOp::Plus => numeric(&x, "+").map(|_| x),
        UnaryOp::Not => match &x {
            Operand::Str(v) => match parse_boolean(v.as_str()) {
                Some(b) => Ok(Operand::Int(i64::from(!b))),
                None => Err(bad_operand(&x, "!")),
            },
            _ => Ok(Operand::Int(i64::from(!boolean(&x)?))),
        },
        UnaryOp::BitNot => Ok(Operand::Int(!integer(&x, "~")?)),
    }
}

fn binary(op: BinaryOp, a: Operand, b: Operand) -> Result<Operand, Exception> {
    use BinaryOp::*;
    let sym = op.symbol();
    match op {
        Add | Sub | Mul | Div | Pow => {
            let x = numeric(&a, sym)?;
            let y = numeric(&b, sym)?;
            match (x, y) {
                (Number::Int(x), Number::Int(y)) => integer_arith(op, x, y),
                _ => float_result(float_arith(op, x.as_f64(), y.as_f64())),
            }
        }
        Mod | Shl | Shr => integer_arith(op, integer(&a, sym)?, integer(&b, sym)?),
        BitAnd | BitOr | BitXor => integer_arith(op, integer(&a, sym)?, integer(&b, sym)?),
        Lt | Gt | Le | Ge | Eq | Ne => {
            let ord = compare(&a, &b);
            let truth = match op {
                Lt => ord == Some(Ordering::Less),
                Gt => ord == Some(Ordering::Greater),
                Le => matches!(ord, Some(Ordering::Less | Ordering::Equal)),
                Ge => matches!(ord, Some(Ordering::Greater | Ordering::Equal)),
                Eq => ord == Some(Ordering::Equal),
                _ => ord != Some(Ordering::Equal),
            };
            Ok(Operand::Int(i64::from(truth)))
        }
        StrEq | StrNe => {
            let same = a.text() == b.text();
            Ok(Operand::Int(i64::from(same == (op == StrEq))))
        }
        In | Ni => {
            let needle = a.text();
            let list = b.into_value();
            let items = list
                .as_list()
                .map_err(|m| Exception::error(m.to_string()))?;
            let found = items.iter().any(|v| v.as_str() == needle);
            Ok(Operand::Int(i64::from(found == (op == In))))
        }
        And | Or => unreachable!("short-circuit operators are evaluated by the caller"),
    }
}

/// Numeric comparison when both are numbers, else string comparison. `None` for NaN.
fn compare(a: &Operand, b: &Operand) -> Option<Ordering> {
    match (a.number(), b.number()) {
        (Some(Number::Int(x)), Some(Number::Int(y))) => Some(x.cmp(&y)),
        (Some(x), Some(y)) => x.as_f64().partial_cmp(&y.as_f64()),
        _ => Some(a.text().cmp(&b.text())),
    }
}

/// `x op y` with Tcl's integer rules ([`number::int_arith`]).
fn integer_arith(op: BinaryOp, x: i64, y: i64) -> Result<Operand, Exception> {
    match int_arith(op, x, y) {
        Some(result) => result
            .map(Operand::Int)
            .map_err(|e| Exception::error(e.to_string())),
        None => unreachable!("{} is not integer arithmetic", op.symbol()),
    }
}

fn float_arith(op: BinaryOp, x: f64, y: f64) -> f64 {
    use BinaryOp::*;
    match op {
        Add => x + y,
        Sub => x - y,
        Mul => x * y,
        Div => x / y,
        Pow => x.powf(y),
        _ => unreachable!("not an arithmetic operator"),
    }
}

/// The math functions of `expr`.
fn call(name: &str, args: &[Operand]) -> Result<Operand, Exception> {
    let arity = |n: usize| -> Result<(), Exception> {
        match args.len().cmp(&n) {
            Ordering::Less => Err(Exception::error(format!(
                "not enough arguments for math function \"{name}\""
            ))),
            Ordering::Greater => Err(Exception::error(format!(
                "too many arguments for math function \"{name}\""
            ))),
            Ordering::Equal => Ok(()),
        }
    };
    let num = |i: usize| -> Result<Number, Exception> {
        match &args[i] {
            Operand::Str(v) => Err(Exception::error(format!(
                "expected number but got \"{}\"",
                v.as_str()
            ))),
            other => Ok(other.number().expect("numeric operand")),
        }
    };
    let float = |i: usize| -> Result<f64, Exception> {
        match &args[i] {
            Operand::Str(v) => Err(Exception::error(format!(
                "expected floating-point number but got \"{}\"",
                v.as_str()
            ))),
            other => Ok(other.number().expect("numeric operand").as_f64()),
        }
    };
    let unary_float = |f: fn(f64) -> f64| -> Result<Operand, Exception> {
        arity(1)?;
        float_result(f(float(0)?))
    };
    match name {
        "abs" => {
            arity(1)?;
            match num(0)? {
                Number::Int(i) => i.checked_abs().map(Operand::Int).ok_or_else(overflow),
                Number::Float(f) => Ok(Operand::Float(f.abs())),
            }
        }
        "int" | "wide" => {
            arity(1)?;
            match num(0)? {
                Number::Int(i) => Ok(Operand::Int(i)),
                Number::Float(f) => float_to_int(f, true),
            }
        }
        "entier" => {
            arity(1)?;
            match num(0)? {
                Number::Int(i) => Ok(Operand::Int(i)),
                Number::Float(f) => float_to_int(f, false),
            }
        }
        "round" => {
            arity(1)?;
            match num(0)? {
                Number::Int(i) => Ok(Operand::Int(i)),
                Number::Float(f) => float_to_int(f.round(), false),
            }
        }
        "double" => {
            arity(1)?;
            Ok(Operand::Float(num(0)?.as_f64()))
        }
        "bool" => {
            arity(1)?;
            Ok(Operand::Int(i64::from(boolean(&args[0])?)))
        }
        "isqrt" => {
            arity(1)?;
            let n = num(0)?;
            if n.as_f64() < 0.0 {
                return Err(Exception::error("square root of negative argument"));
            }
            let root = match n {
                Number::Int(i) => integer_sqrt(i),
                Number::Float(f) => f.sqrt().floor() as i64,
            };
            Ok(Operand::Int(root))
        }
        "max" | "min" => {
            if args.is_empty() {
                return Err(Exception::error(format!(
                    "not enough arguments to math function \"{name}\""
                )));
            }
            let mut best = args[0].clone();
            for (i, candidate) in args.iter().enumerate() {
                float(i)?;
                let ord = compare(candidate, &best);
                let better = if name == "max" {
                    ord == Some(Ordering::Greater)
                } else {
                    ord == Some(Ordering::Less)
                };
                if better {
                    best = candidate.clone();
                }
            }
            Ok(best)
        }
        "pow" | "atan2" | "fmod" | "hypot" => {
            arity(2)?;
            let (x, y) = (float(0)?, float(1)?);
            let r = match name {
                "pow" => x.powf(y),
                "atan2" => x.atan2(y),
                "fmod" => x % y,
                _ => x.hypot(y),
            };
            float_result(r)
        }
        "acos" => unary_float(f64::acos),
        "asin" => unary_float(f64::asin),
        "atan" => unary_float(f64::atan),
        "ceil" => unary_float(f64::ceil),
        "cos" => unary_float(f64::cos),
        "cosh" => unary_float(f64::cosh),
        "exp" => unary_float(f64::exp),
        "floor" => unary_float(f64::floor),
        "log" => unary_float(f64::ln),
        "log10" => unary_float(f64::log10),
        "sin" => unary_float(f64::sin),
        "sinh" => unary_float(f64::sinh),
        "sqrt" => unary_float(f64::sqrt),
        "tan" => unary_float(f64::tan),
        "tanh" => unary_float(f64::tanh),
        _ => Err(Exception::error(format!(
            "invalid command name \"tcl::mathfunc::{name}\""
        ))),
    }
}

/// A double truncated to an integer. `wrap` keeps the low 64 bits as `int()` does in Tcl 8.6;
/// otherwise a value outside 64 bits is an overflow.
fn float_to_int(f: f64, wrap: bool) -> Result<Operand, Exception> {
    if !f.is_finite() {
        return Err(Exception::error("integer value too large to represent"));
    }
    let t = f.trunc();
    if t >= -(2f64.powi(63)) && t < 2f64.powi(63) {
        return Ok(Operand::Int(t as i64));
    }
    if !wrap {
        return Err(overflow());
    }
    // The low 64 bits of the exact integer value of `t`.
    let modulus = 2f64.powi(64);
    let low = t.rem_euclid(modulus);
    Ok(Operand::Int(low as u64 as i64))
}

fn integer_sqrt(n: i64) -> i64 {
    let mut r = (n as f64).sqrt() as i64;
    while r > 0 && r.checked_mul(r).is_none_or(|sq| sq > n) {
        r -= 1;
    }
    while (r + 1).checked_mul(r + 1).is_some_and(|sq| sq <= n) {
        r += 1;
    }
    r
}
