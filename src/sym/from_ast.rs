//! Turning a parsed Tcl `expr` into a symbolic expression.
//!
//! The meaning follows Tcl 8.6 where it can be known before simulation: a subexpression made
//! only of integer literals is evaluated with the interpreter's integer rules
//! (`lang::number::int_arith`: `7/2` is 3, `-7%2` is 1, `2**-1` is 0, integer division by zero
//! and results beyond 64 bits are errors), `&&`, `||` and `?:` with a constant
//! condition evaluate only the branch Tcl would, and `int()`/`round()` of a constant give an
//! integer. Everything else is real arithmetic on `f64`, where Tcl's domain errors (such as
//! `sqrt(-1)`) become NaN because values are only known during simulation. Boolean words
//! (`true`, `off`, …) are 1 and 0 everywhere. Numbers and boolean words are read by
//! `lang::number`, as the interpreter reads them. Operands (`$t`, `[b1 x]`, …) are turned
//! into nodes by the caller's resolver, except literal text that reads as a number.

use super::error::Error;
use super::ops::Unary;
use super::pool::{Node, Pool};
use crate::lang::ast::{literal_parts, BinaryOp, Expr, ExprKind, Part, UnaryOp};
use crate::lang::number::{
    self, int_arith, parse_boolean, read_number, ArithError, NotANumber, Number,
};
use crate::lang::span::Span;

/// Converts `expr` into a node of `pool`. `resolve` is called for every operand that is not a
/// literal number, with the operand's parts and span; it returns the node standing for it (a
/// symbol, a constant, a trajectory value…) or an error for operands it does not accept.
pub fn from_ast<R>(pool: &mut Pool, expr: &Expr, resolve: R) -> Result<Node, Error>
where
    R: FnMut(&mut Pool, &[Part], Span) -> Result<Node, Error>,
{
    let mut converter = Converter { pool, resolve };
    let value = converter.value(expr)?;
    let node = converter.node(value);
    // A NaN literal standing alone is Tcl's domain error, as the interpreter reports it
    // (inside a larger expression it stays NaN, as domain errors do here).
    let literal = matches!(expr.kind, ExprKind::Number(_) | ExprKind::Operand(_));
    if literal && converter.pool.as_constant(node).is_some_and(f64::is_nan) {
        return Err(Error::new(number::DOMAIN_ERROR, expr.span));
    }
    Ok(node)
}

/// A converted subexpression: an exact Tcl integer while only integer literals are involved,
/// else a node.
#[derive(Clone, Copy)]
enum Value {
    Int(i64),
    Node(Node),
}

struct Converter<'p, R> {
    pool: &'p mut Pool,
    resolve: R,
}

impl<R> Converter<'_, R>
where
    R: FnMut(&mut Pool, &[Part], Span) -> Result<Node, Error>,
{
    fn value(&mut self, expr: &Expr) -> Result<Value, Error> {
        match &expr.kind {
            ExprKind::Number(text) => self
                .literal(text)
                .ok_or_else(|| Error::new(format!("`{text}` is not a number"), expr.span)),
            ExprKind::Operand(parts) => {
                if let Some(text) = literal_parts(parts) {
                    if let Some(value) = self.literal(&text) {
                        return Ok(value);
                    }
                    if read_number(&text) == Err(NotANumber::TooLarge) {
                        return Err(Error::new(number::TOO_LARGE, expr.span));
                    }
                }
                let node = (self.resolve)(self.pool, parts, expr.span)?;
                Ok(Value::Node(node))
            }
            ExprKind::Unary(op, operand) => {
                if *op == UnaryOp::BitNot {
                    let what = format!("bitwise operator `{}`", UnaryOp::BitNot.symbol());
                    return Err(unsupported(&what, expr.span));
                }
                let value = self.value(operand)?;
                self.unary(*op, value)
                    .map_err(|e| Error::new(e.to_string(), expr.span))
            }
            ExprKind::Binary(op, left, right) => self.binary(*op, left, right, expr.span),
            ExprKind::Ternary(condition, then, otherwise) => {
                let condition = self.value(condition)?;
                match self.constant_truth(condition) {
                    Some(true) => self.value(then),
                    Some(false) => self.value(otherwise),
                    None => {
                        let condition = self.node(condition);
                        let then = self.node_of(then)?;
                        let otherwise = self.node_of(otherwise)?;
                        Ok(Value::Node(self.pool.select(condition, then, otherwise)))
                    }
                }
            }
            ExprKind::Call(name, args) => self.call(name, args, expr.span),
        }
    }

    fn node_of(&mut self, expr: &Expr) -> Result<Node, Error> {
        let value = self.value(expr)?;
        Ok(self.node(value))
    }

    fn node(&mut self, value: Value) -> Node {
        match value {
            Value::Int(i) => self.pool.constant(i as f64),
            Value::Node(n) => n,
        }
    }

    /// A number or boolean word as the interpreter reads it (`lang::number`); `None` for
    /// other text.
    fn literal(&mut self, text: &str) -> Option<Value> {
        match number::parse_number(text) {
            Some(Number::Int(i)) => Some(Value::Int(i)),
            Some(Number::Float(v)) => Some(Value::Node(self.pool.constant(v))),
            None => parse_boolean(text).map(|b| Value::Int(i64::from(b))),
        }
    }

    /// Whether a constant value is true (non-zero); `None` for a non-constant.
    fn constant_truth(&self, value: Value) -> Option<bool> {
        match value {
            Value::Int(i) => Some(i != 0),
            Value::Node(n) => self.pool.as_constant(n).map(|v| v != 0.0),
        }
    }

    /// A unary operator; negating the most negative integer overflows, as in the interpreter.
    fn unary(&mut self, op: UnaryOp, value: Value) -> Result<Value, ArithError> {
        Ok(match (op, value) {
            (UnaryOp::Plus, v) => v,
            (UnaryOp::Neg, Value::Int(i)) => {
                Value::Int(i.checked_neg().ok_or(ArithError::Overflow)?)
            }
            (UnaryOp::Neg, Value::Node(n)) => Value::Node(self.pool.neg(n)),
            (UnaryOp::Not, Value::Int(i)) => Value::Int(i64::from(i == 0)),
            (UnaryOp::Not, Value::Node(n)) => Value::Node(self.pool.not(n)),
            (UnaryOp::BitNot, v) => v, // rejected before the operand is converted
        })
    }

    fn binary(
        &mut self,
        op: BinaryOp,
        left: &Expr,
        right: &Expr,
        span: Span,
    ) -> Result<Value, Error> {
        if unsupported_binary(op).is_some() {
            return Err(rejection(op, span));
        }
        let a = self.value(left)?;
        if let BinaryOp::And | BinaryOp::Or = op {
            // Tcl does not evaluate the right side once the left decides.
            let decided = op == BinaryOp::Or;
            if self.constant_truth(a) == Some(decided) {
                return Ok(Value::Int(i64::from(decided)));
            }
        }
        let b = self.value(right)?;
        if let (Value::Int(x), Value::Int(y)) = (a, b) {
            return self.integer_binary(op, x, y, span);
        }
        let (a, b) = (self.node(a), self.node(b));
        let p = &mut *self.pool;
        Ok(Value::Node(match op {
            BinaryOp::Pow => p.pow(a, b),
            BinaryOp::Mul => p.mul(a, b),
            BinaryOp::Div => p.div(a, b),
            BinaryOp::Add => p.add(a, b),
            BinaryOp::Sub => p.sub(a, b),
            BinaryOp::Lt => p.lt(a, b),
            BinaryOp::Gt => p.gt(a, b),
            BinaryOp::Le => p.le(a, b),
            BinaryOp::Ge => p.ge(a, b),
            BinaryOp::Eq => p.eq(a, b),
            BinaryOp::Ne => p.ne(a, b),
            BinaryOp::And => p.and(a, b),
            BinaryOp::Or => p.or(a, b),
            _ => return Err(rejection(op, span)),
        }))
    }

    /// Tcl's integer arithmetic ([`number::int_arith`]), and comparisons and logic on
    /// integers; a result beyond 64 bits is an error, as in the interpreter.
    fn integer_binary(&mut self, op: BinaryOp, a: i64, b: i64, span: Span) -> Result<Value, Error> {
        if let Some(result) = int_arith(op, a, b) {
            return result
                .map(Value::Int)
                .map_err(|e| Error::new(e.to_string(), span));
        }
        let truth = match op {
            BinaryOp::Lt => a < b,
            BinaryOp::Gt => a > b,
            BinaryOp::Le => a <= b,
            BinaryOp::Ge => a >= b,
            BinaryOp::Eq => a == b,
            BinaryOp::Ne => a != b,
            BinaryOp::And => a != 0 && b != 0,
            BinaryOp::Or => a != 0 || b != 0,
            _ => return Err(rejection(op, span)),
        };
        Ok(Value::Int(i64::from(truth)))
    }

    fn call(&mut self, name: &str, args: &[Expr], span: Span) -> Result<Value, Error> {
        let unary = match name {
            "sqrt" => Some(Unary::Sqrt),
            "exp" => Some(Unary::Exp),
            "log" => Some(Unary::Log),
            "log10" => Some(Unary::Log10),
            "sin" => Some(Unary::Sin),
            "cos" => Some(Unary::Cos),
            "tan" => Some(Unary::Tan),
            "asin" => Some(Unary::Asin),
            "acos" => Some(Unary::Acos),
            "atan" => Some(Unary::Atan),
            "sinh" => Some(Unary::Sinh),
            "cosh" => Some(Unary::Cosh),
            "tanh" => Some(Unary::Tanh),
            "floor" => Some(Unary::Floor),
            "ceil" => Some(Unary::Ceil),
            _ => None,
        };
        if let Some(f) = unary {
            let [a] = self.arguments(name, args, span)?;
            let a = self.node(a);
            return Ok(Value::Node(self.pool.unary(f, a)));
        }
        match name {
            "abs" => {
                let [a] = self.arguments(name, args, span)?;
                Ok(match a {
                    Value::Int(i) => Value::Int(
                        i.checked_abs()
                            .ok_or_else(|| Error::new(ArithError::Overflow.to_string(), span))?,
                    ),
                    other => {
                        let n = self.node(other);
                        Value::Node(self.pool.abs(n))
                    }
                })
            }
            "double" => {
                let [a] = self.arguments(name, args, span)?;
                Ok(Value::Node(self.node(a)))
            }
            "int" | "entier" | "wide" => {
                let [a] = self.arguments(name, args, span)?;
                Ok(self.integer_of(a, Unary::Trunc))
            }
            "round" => {
                let [a] = self.arguments(name, args, span)?;
                Ok(self.integer_of(a, Unary::Round))
            }
            "isqrt" => {
                let [a] = self.arguments(name, args, span)?;
                let negative = match a {
                    Value::Int(i) => i < 0,
                    Value::Node(n) => self.pool.as_constant(n).is_some_and(|v| v < 0.0),
                };
                if negative {
                    return Err(Error::new("square root of negative argument", span));
                }
                let n = self.node(a);
                let root = self.pool.sqrt(n);
                Ok(self.integer_of(Value::Node(root), Unary::Floor))
            }
            "bool" => {
                let [a] = self.arguments(name, args, span)?;
                Ok(match a {
                    Value::Int(i) => Value::Int(i64::from(i != 0)),
                    Value::Node(n) => Value::Node(self.pool.ne(n, Pool::ZERO)),
                })
            }
            "pow" | "atan2" | "hypot" | "fmod" => {
                let [a, b] = self.arguments(name, args, span)?;
                let (a, b) = (self.node(a), self.node(b));
                let p = &mut *self.pool;
                Ok(Value::Node(match name {
                    "pow" => p.pow(a, b),
                    "atan2" => p.atan2(a, b),
                    "hypot" => p.hypot(a, b),
                    _ => p.fmod(a, b),
                }))
            }
            "min" | "max" => self.extremum(name == "min", args, span),
            "rand" | "srand" => Err(Error::new(
                format!("{name}() is not allowed: equations must give the same result every time"),
                span,
            )),
            _ => Err(Error::new(format!("unknown math function `{name}`"), span)),
        }
    }

    /// The arguments of a function of fixed arity.
    fn arguments<const N: usize>(
        &mut self,
        name: &str,
        args: &[Expr],
        span: Span,
    ) -> Result<[Value; N], Error> {
        if args.len() != N {
            let plural = if N == 1 { "" } else { "s" };
            return Err(Error::new(
                format!(
                    "math function `{name}` takes {N} argument{plural}, got {}",
                    args.len()
                ),
                span,
            ));
        }
        let mut values = [Value::Int(0); N];
        for (value, arg) in values.iter_mut().zip(args) {
            *value = self.value(arg)?;
        }
        Ok(values)
    }

    /// `int()`, `round()`, `isqrt()`: an integer when the argument is constant, else the
    /// rounding function.
    fn integer_of(&mut self, value: Value, rounding: Unary) -> Value {
        match value {
            Value::Int(i) => Value::Int(i),
            Value::Node(n) => {
                let rounded = self.pool.unary(rounding, n);
                match self.pool.as_constant(rounded) {
                    // In range of i64 (Tcl would keep larger values as big integers).
                    Some(v) if v.is_finite() && v.abs() < 9.2e18 => Value::Int(v as i64),
                    _ => Value::Node(rounded),
                }
            }
        }
    }

    fn extremum(&mut self, min: bool, args: &[Expr], span: Span) -> Result<Value, Error> {
        let name = if min { "min" } else { "max" };
        let Some((first, rest)) = args.split_first() else {
            return Err(Error::new(
                format!("math function `{name}` needs at least 1 argument"),
                span,
            ));
        };
        let mut acc = self.value(first)?;
        for arg in rest {
            let next = self.value(arg)?;
            acc = match (acc, next) {
                (Value::Int(a), Value::Int(b)) => Value::Int(if min { a.min(b) } else { a.max(b) }),
                (a, b) => {
                    let (a, b) = (self.node(a), self.node(b));
                    Value::Node(if min {
                        self.pool.min(a, b)
                    } else {
                        self.pool.max(a, b)
                    })
                }
            };
        }
        Ok(acc)
    }
}

/// The description of a Tcl operator that has no meaning on real-valued equations.
fn unsupported_binary(op: BinaryOp) -> Option<String> {
    let kind = match op {
        BinaryOp::StrEq | BinaryOp::StrNe => "string comparison",
        BinaryOp::In | BinaryOp::Ni => "list membership",
        BinaryOp::BitAnd | BinaryOp::BitXor | BinaryOp::BitOr => "bitwise operator",
        BinaryOp::Shl | BinaryOp::Shr => "shift operator",
        _ => return None,
    };
    Some(format!("{kind} `{}`", op.symbol()))
}

/// The error for a binary operator without a meaning on real values.
fn rejection(op: BinaryOp, span: Span) -> Error {
    match unsupported_binary(op) {
        Some(what) => unsupported(&what, span),
        None => Error::new(
            "`%` is Tcl's integer remainder and needs integer operands; use fmod(a, b) for real values",
            span,
        ),
    }
}

fn unsupported(what: &str, span: Span) -> Error {
    Error::new(
        format!("{what} is not supported in expressions of time and state"),
        span,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sym::test_expr::parse;
    use crate::sym::Symbol;

    const T: Symbol = Symbol(0);
    const X: Symbol = Symbol(1);
    const Y: Symbol = Symbol(2);

    /// Resolves `$t` to time, `[b1 x]`/`[b1 y]` to state symbols, `[b1 mass]` to 2, and
    /// rejects everything else, as the simulator's resolver would.
    fn resolve(pool: &mut Pool, parts: &[Part], span: Span) -> Result<Node, Error> {
        match parts {
            [Part::Variable { name, .. }] if name == "t" => Ok(pool.symbol(T)),
            [Part::Command { script, .. }] => {
                let words: Vec<_> = script.commands[0]
                    .words
                    .iter()
                    .filter_map(|w| w.literal())
                    .collect();
                match words.iter().map(|w| w.as_ref()).collect::<Vec<_>>()[..] {
                    ["b1", "x"] => Ok(pool.symbol(X)),
                    ["b1", "y"] => Ok(pool.symbol(Y)),
                    ["b1", "mass"] => Ok(pool.constant(2.0)),
                    _ => Err(Error::new("not a body attribute", span)),
                }
            }
            _ => Err(Error::new(
                "only $t and body attributes may appear here",
                span,
            )),
        }
    }

    fn convert(text: &str) -> Result<(Pool, Node), Error> {
        let mut pool = Pool::new();
        let node = from_ast(&mut pool, &parse(text), resolve)?;
        Ok((pool, node))
    }

    /// The value of `text` at t, x, y.
    fn value_at(text: &str, t: f64, x: f64, y: f64) -> f64 {
        let (pool, node) = convert(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        pool.eval(node, |s| [t, x, y][s.0 as usize])
    }

    fn constant(text: &str) -> f64 {
        let (pool, node) = convert(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        pool.as_constant(node)
            .unwrap_or_else(|| panic!("{text} is not constant: {}", pool.display(node)))
    }

    fn error(text: &str) -> (String, &str) {
        let e = convert(text).map(|_| ()).expect_err(text);
        (e.message, &text[e.span.start..e.span.end])
    }

    #[test]
    fn scene_force_expressions() {
        assert_eq!(constant("-10 * [b1 mass]"), -20.0);
        let inverse_square = "-[b1 x] / pow(hypot([b1 x],[b1 y]),3)";
        assert_eq!(value_at(inverse_square, 0.0, 3.0, 4.0), -3.0 / 125.0);
        assert_eq!(
            value_at("sin($t) * 2.5 + $t**2", 2.0, 0.0, 0.0),
            2f64.sin() * 2.5 + 4.0
        );
        assert_eq!(value_at("$t > 1 ? 3 : -[b1 y]", 2.0, 0.0, 5.0), 3.0);
        assert_eq!(value_at("$t > 1 ? 3 : -[b1 y]", 0.5, 0.0, 5.0), -5.0);
        assert_eq!(value_at("{2.5} * $t + \" 4 \"", 2.0, 0.0, 0.0), 9.0);
        let mut pool = Pool::new();
        let pieces = |texts: &[&str]| {
            let parts = texts.iter().map(|t| Part::Text {
                text: t.to_string(),
                span: Span::new(0, 1),
            });
            Expr {
                span: Span::new(0, 1),
                kind: ExprKind::Operand(parts.collect()),
            }
        };
        let split = from_ast(&mut pool, &pieces(&["1", "2.5"]), resolve).unwrap();
        assert_eq!(pool.as_constant(split), Some(12.5));
        assert_eq!(value_at("!($t < 1) && [b1 x] || 0", 2.0, 1.0, 0.0), 1.0);
        assert_eq!(
            value_at("fmod($t, 0.75) + atan2([b1 y], [b1 x])", 2.0, 1.0, 1.0),
            0.5 + 0.25 * std::f64::consts::PI
        );
        assert_eq!(
            value_at("max($t, [b1 x], 3) + min($t, 1)", 2.0, 5.0, 0.0),
            6.0
        );
        assert_eq!(
            value_at(
                "abs(-$t) + int(-$t * 1.5) + round($t * 1.25)",
                2.0,
                0.0,
                0.0
            ),
            2.0 - 3.0 + 3.0
        );
    }

    #[test]
    fn integer_constants_follow_tcl() {
        // Values checked against tclsh 8.6.
        let cases = [
            ("7/2", 3.0),
            ("-7/2", -4.0),
            ("-7%2", 1.0),
            ("7%-2", -1.0),
            ("2**-1", 0.0),
            ("1**-3", 1.0),
            ("(-1)**-3", -1.0),
            ("2**3", 8.0),
            ("3 ** 2 ** 2", 81.0),
            ("-2 ** 2", 4.0),
            ("2 ** -2.0", 0.25),
            ("0x10 + 0o7 + 0b1 + 017", 39.0),
            ("-7/2.0", -3.5),
            ("int(2.5)/2", 1.0),
            ("round(7.5)/2", 4.0),
            ("round(-0.5)", -1.0),
            ("isqrt(17)", 4.0),
            ("isqrt(2.7)", 1.0),
            ("abs(-7)/2", 3.0),
            ("min(3,2)/2", 1.0),
            ("double(7)/2", 3.5),
            ("floor(3)/2", 1.5),
            ("pow(2,3)/3", 8.0 / 3.0),
            ("bool(2.5) + !0.0 + !2", 2.0),
            ("true + 1", 2.0),
            ("1.0/0", f64::INFINITY),
            ("1 < 2", 1.0),
        ];
        for (text, want) in cases {
            assert_eq!(constant(text), want, "{text}");
        }
    }

    #[test]
    fn only_the_branch_tcl_evaluates_is_converted() {
        assert_eq!(constant("0 && (1/0)"), 0.0);
        assert_eq!(constant("1 || (1/0)"), 1.0);
        assert_eq!(constant("1 ? 2 : (1/0)"), 2.0);
        assert_eq!(constant("0 ? [b1 q] : 5"), 5.0);
    }

    #[test]
    fn errors_point_at_the_offending_node() {
        let unsupported = "is not supported in expressions of time and state";
        for (text, located, what) in [
            ("1 + ($t eq 1)", "$t eq 1", "string comparison `eq`"),
            ("$t in {1 2}", "$t in {1 2}", "list membership `in`"),
            ("2 * ($t << 1)", "$t << 1", "shift operator `<<`"),
            ("[b1 x] & 1", "[b1 x] & 1", "bitwise operator `&`"),
            ("1 - ~$t", "~$t", "bitwise operator `~`"),
        ] {
            let (message, span) = error(text);
            assert_eq!(span, located, "{text}");
            assert_eq!(message, format!("{what} {unsupported}"), "{text}");
        }
        let (message, span) = error("$t + [b1 x] % 2");
        assert_eq!(span, "[b1 x] % 2");
        assert!(message.contains("use fmod(a, b)"), "{message}");
        assert_eq!(error("$t + 1/(2-2)"), ("divide by zero".into(), "1/(2-2)"));
        assert_eq!(error("$t + 5 % 0").1, "5 % 0");
        assert_eq!(
            error("0**-1 * $t").0,
            "exponentiation of zero by negative power"
        );
        assert_eq!(error("isqrt(-4)").0, "square root of negative argument");
        let overflow = "integer overflow: Asgard integers are 64-bit";
        assert_eq!(error("$t + (9223372036854775807 + 1)").0, overflow);
        assert_eq!(error("-(-9223372036854775807 - 1)").0, overflow);
        assert_eq!(error("abs(-9223372036854775807 - 1)").0, overflow);
        assert_eq!(
            error("2 * sin($t, 1)"),
            (
                "math function `sin` takes 1 argument, got 2".into(),
                "sin($t, 1)"
            )
        );
        assert_eq!(
            error("foo($t)"),
            ("unknown math function `foo`".into(), "foo($t)")
        );
        assert_eq!(error("min()").1, "min()");
        assert!(error("rand() * $t").0.contains("not allowed"));
        assert_eq!(
            error("$t * [b1 q]"),
            ("not a body attribute".into(), "[b1 q]")
        );
        assert_eq!(error("$t * {abc}").1, "{abc}");
    }
}
