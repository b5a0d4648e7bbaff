//! Tcl's numbers, in one place: which strings are numbers and booleans, how numbers print,
//! and integer arithmetic. The interpreter, the symbolic compiler (`sym::from_ast`), the scene
//! reader and the expression parser all read numbers here, so a literal means the same
//! everywhere.
//!
//! Integers are 64-bit (Tcl's bignums are not supported: an integer literal or arithmetic that
//! leaves the 64-bit range is an error naming the limit rather than a silently different
//! result). Literals follow Tcl 8.6 (`tclsh8.6`): decimal, `0x`, `0o`, `0b` and a leading `0`
//! meaning octal (`017` is 15, `08` is not a number); reals with optional fraction and
//! exponent (`.5`, `5.`, `1.e3`), `Inf`, `Infinity` and `NaN` in any case; an optional sign
//! and surrounding white space. Doubles print as Tcl 8.6 prints them with `tcl_precision` 0:
//! the shortest text that reads back to the same double, always with a `.` or an exponent so
//! that it stays a double (`1.0`, `1e+17`, `0.1`).

use super::operator::BinaryOp;
use std::fmt::{self, Write};

/// A number as the interpreter computes with it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number {
    Int(i64),
    Float(f64),
}

impl Number {
    pub fn as_f64(self) -> f64 {
        match self {
            Number::Int(i) => i as f64,
            Number::Float(f) => f,
        }
    }
}

/// Why a string is not a number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotANumber {
    /// It is not written as a number at all.
    Malformed,
    /// It is an integer, but outside the 64-bit range.
    TooLarge,
}

/// The error for a NaN where a number is wanted: the result of an expression, or a literal
/// (Tcl's wording).
pub const DOMAIN_ERROR: &str = "domain error: argument not in valid range";

/// The error for an integer literal or value outside 64 bits.
pub const TOO_LARGE: &str = "integer value too large to represent (Asgard integers are 64-bit)";

/// Parses a Tcl number: optional surrounding whitespace, a sign, then a decimal, `0x`, `0o`,
/// `0b` or (leading `0`) octal integer, or a decimal double, `Inf` or `NaN`. `None` if the
/// text is not a number, or an integer outside 64 bits ([`read_number`] tells which).
pub fn parse_number(text: &str) -> Option<Number> {
    read_number(text).ok()
}

/// [`parse_number`], saying why a text is not a number.
pub fn read_number(text: &str) -> Result<Number, NotANumber> {
    let t = text.trim_matches(|c: char| c.is_ascii_whitespace());
    let (negative, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        Some(_) => (false, t),
        None => return Err(NotANumber::Malformed),
    };
    match parse_unsigned_integer(digits) {
        Some(Some(magnitude)) => signed(magnitude, negative)
            .map(Number::Int)
            .ok_or(NotANumber::TooLarge),
        Some(None) => Err(NotANumber::TooLarge),
        None => parse_double(digits)
            .map(|f| Number::Float(if negative { -f } else { f }))
            .ok_or(NotANumber::Malformed),
    }
}

/// `true false yes no on off`, case-insensitively, or a unique prefix of one of them (Tcl's
/// boolean words; `o` alone is neither `on` nor `off`).
pub fn parse_boolean(s: &str) -> Option<bool> {
    let lower = s.to_ascii_lowercase();
    if lower.is_empty() {
        return None;
    }
    let is_prefix = |word: &str, min: usize| lower.len() >= min && word.starts_with(&lower);
    if is_prefix("true", 1) || is_prefix("yes", 1) || is_prefix("on", 2) {
        Some(true)
    } else if is_prefix("false", 1) || is_prefix("no", 1) || is_prefix("off", 2) {
        Some(false)
    } else {
        None
    }
}

/// Parses a Tcl integer (the subset of [`parse_number`] that `incr`, `lindex` and friends take).
pub fn parse_int(text: &str) -> Option<i64> {
    match parse_number(text)? {
        Number::Int(i) => Some(i),
        Number::Float(_) => None,
    }
}

fn signed(magnitude: u64, negative: bool) -> Option<i64> {
    if negative {
        if magnitude == 1 << 63 {
            Some(i64::MIN)
        } else {
            i64::try_from(magnitude).ok().map(|m| -m)
        }
    } else {
        i64::try_from(magnitude).ok()
    }
}

/// An unsigned integer literal's magnitude: `None` when the text is not an integer literal,
/// `Some(None)` when it is one beyond 64 bits.
fn parse_unsigned_integer(digits: &str) -> Option<Option<u64>> {
    let bytes = digits.as_bytes();
    let (radix, body) = match bytes {
        [b'0', b'x' | b'X', ..] => (16, &digits[2..]),
        [b'0', b'o' | b'O', ..] => (8, &digits[2..]),
        [b'0', b'b' | b'B', ..] => (2, &digits[2..]),
        [b'0', _, ..] => (8, &digits[1..]),
        _ => (10, digits),
    };
    if body.is_empty() || !body.bytes().all(|b| (b as char).is_digit(radix)) {
        return None;
    }
    Some(u64::from_str_radix(body, radix).ok())
}

fn parse_double(digits: &str) -> Option<f64> {
    let lower = digits.to_ascii_lowercase();
    match lower.as_str() {
        "inf" | "infinity" => return Some(f64::INFINITY),
        "nan" => return Some(f64::NAN),
        _ => {}
    }
    // Rust's float syntax is wider than Tcl's (it takes "inf", "e5" is rejected by both);
    // require Tcl's shape: digits with an optional fraction and exponent, at least one digit.
    let b = digits.as_bytes();
    let int_digits = count_digits(b);
    let mut i = int_digits;
    let mut frac_digits = 0;
    let mut point_or_exponent = false;
    if b.get(i) == Some(&b'.') {
        point_or_exponent = true;
        i += 1;
        frac_digits = count_digits(&b[i..]);
        i += frac_digits;
    }
    if int_digits + frac_digits == 0 {
        return None;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        point_or_exponent = true;
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp_digits = count_digits(&b[i..]);
        if exp_digits == 0 {
            return None;
        }
        i += exp_digits;
    }
    // Digits alone are an integer (handled by the caller), never a double: "08" is nothing.
    if i != b.len() || !point_or_exponent {
        return None;
    }
    digits.parse().ok()
}

fn count_digits(b: &[u8]) -> usize {
    b.iter().take_while(|c| c.is_ascii_digit()).count()
}

/// Formats a double as Tcl does: shortest round-trip digits; exponent form below 1e-4 and from
/// 1e17 up; `Inf`, `-Inf`, `NaN`.
pub fn format_double(f: f64, out: &mut String) {
    if f.is_nan() {
        out.push_str("NaN");
        return;
    }
    if f.is_infinite() {
        out.push_str(if f > 0.0 { "Inf" } else { "-Inf" });
        return;
    }
    // `{:e}` gives the shortest round-trip digits as `d.ddde[-]x`.
    let sci = format!("{f:e}");
    let (mantissa, exponent) = sci.split_once('e').expect("exponent form");
    let exponent: i32 = exponent.parse().expect("integer exponent");
    let (negative, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if negative {
        out.push('-');
    }
    if !(-4..17).contains(&exponent) {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let sign = if exponent < 0 { '-' } else { '+' };
        let _ = write!(out, "e{sign}{}", exponent.abs());
    } else if exponent < 0 {
        out.push_str("0.");
        for _ in 0..(-exponent - 1) {
            out.push('0');
        }
        out.push_str(&digits);
    } else {
        let point = exponent as usize + 1;
        if digits.len() <= point {
            out.push_str(&digits);
            for _ in digits.len()..point {
                out.push('0');
            }
            out.push_str(".0");
        } else {
            out.push_str(&digits[..point]);
            out.push('.');
            out.push_str(&digits[point..]);
        }
    }
}

/// A number as text.
pub fn format_number(n: Number) -> String {
    match n {
        Number::Int(i) => i.to_string(),
        Number::Float(f) => {
            let mut s = String::new();
            format_double(f, &mut s);
            s
        }
    }
}

/// A double as a literal of the scene text: an integral value below 1e15 as an integer
/// (`2`, not `2.0`), any other as [`format_double`] prints it. Reads back to the same value.
pub fn format_literal(f: f64, out: &mut String) {
    let negative_zero = f == 0.0 && f.is_sign_negative();
    if f.fract() == 0.0 && f.abs() < 1e15 && !negative_zero {
        let _ = write!(out, "{f}");
    } else {
        format_double(f, out);
    }
}

/// `value` rounded to `digits` significant digits (1 to 17) as a literal
/// ([`format_literal`]): what a graphical edit writes into the text. A value that is not
/// finite is written as 0.
pub fn format_significant(value: f64, digits: usize) -> String {
    if value == 0.0 || !value.is_finite() {
        return "0".into();
    }
    let mut out = String::new();
    format_literal(round_significant(value, digits), &mut out);
    out
}

/// `value` rounded to `digits` significant digits (1 to 17).
pub fn round_significant(value: f64, digits: usize) -> f64 {
    format!("{:.*e}", digits.clamp(1, 17) - 1, value)
        .parse()
        .unwrap_or(value)
}

/// Why integer arithmetic has no result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArithError {
    DivideByZero,
    /// The result is outside 64 bits.
    Overflow,
    ZeroToNegativePower,
    NegativeShift,
}

impl fmt::Display for ArithError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ArithError::DivideByZero => "divide by zero",
            ArithError::Overflow => "integer overflow: Asgard integers are 64-bit",
            ArithError::ZeroToNegativePower => "exponentiation of zero by negative power",
            ArithError::NegativeShift => "negative shift argument",
        })
    }
}

impl std::error::Error for ArithError {}

/// `x op y` for two integers with Tcl's rules: division rounds toward negative infinity and
/// the remainder takes the divisor's sign, a negative power of an integer other than ±1 is
/// 0, shifts right keep the sign. `None` when `op` is not an arithmetic, shift or bitwise
/// operator (comparisons and logic are not integer arithmetic).
pub fn int_arith(op: BinaryOp, x: i64, y: i64) -> Option<Result<i64, ArithError>> {
    use BinaryOp::*;
    let overflow = ArithError::Overflow;
    Some(match op {
        Add => x.checked_add(y).ok_or(overflow),
        Sub => x.checked_sub(y).ok_or(overflow),
        Mul => x.checked_mul(y).ok_or(overflow),
        Div | Mod if y == 0 => Err(ArithError::DivideByZero),
        Div => x.checked_div(y).ok_or(overflow).map(|q| {
            if x % y != 0 && ((x < 0) != (y < 0)) {
                q - 1
            } else {
                q
            }
        }),
        Mod => {
            let r = x.wrapping_rem(y);
            Ok(if r != 0 && (r < 0) != (y < 0) {
                r + y
            } else {
                r
            })
        }
        Pow => int_pow(x, y),
        Shl | Shr if y < 0 => Err(ArithError::NegativeShift),
        Shr => Ok(x >> y.min(63)),
        Shl if x == 0 => Ok(0),
        Shl => u32::try_from(y)
            .ok()
            .filter(|&y| y < 64)
            .map(|y| x << y)
            .filter(|shifted| shifted >> y == x)
            .ok_or(overflow),
        BitAnd => Ok(x & y),
        BitOr => Ok(x | y),
        BitXor => Ok(x ^ y),
        Lt | Gt | Le | Ge | Eq | Ne | StrEq | StrNe | In | Ni | And | Or => return None,
    })
}

fn int_pow(base: i64, exp: i64) -> Result<i64, ArithError> {
    match (base, exp) {
        (0, e) if e < 0 => Err(ArithError::ZeroToNegativePower),
        (1, _) => Ok(1),
        (-1, e) => Ok(if e % 2 == 0 { 1 } else { -1 }),
        (0, 0) => Ok(1),
        (0, _) => Ok(0),
        (_, e) if e < 0 => Ok(0),
        (b, e) => u32::try_from(e)
            .ok()
            .and_then(|e| b.checked_pow(e))
            .ok_or(ArithError::Overflow),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(f: f64) -> String {
        format_number(Number::Float(f))
    }

    #[test]
    fn doubles_print_like_tclsh() {
        assert_eq!(d(1.0), "1.0");
        assert_eq!(d(1e16), "10000000000000000.0");
        assert_eq!(d(1e17), "1e+17");
        assert_eq!(d(1.0 / 3.0), "0.3333333333333333");
        assert_eq!(d(1e-5), "1e-5");
        assert_eq!(d(0.0001), "0.0001");
        assert_eq!(d(1.5e300), "1.5e+300");
        assert_eq!(d(-0.0), "-0.0");
        assert_eq!(d(123456789012.0), "123456789012.0");
        assert_eq!(d(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(d(f64::INFINITY), "Inf");
        assert_eq!(d(-2.5e-7), "-2.5e-7");
    }

    #[test]
    fn literals_are_short_and_read_back() {
        let literal = |f: f64| {
            let mut s = String::new();
            format_literal(f, &mut s);
            s
        };
        assert_eq!(literal(4.0), "4");
        assert_eq!(literal(-0.0), "-0.0");
        assert_eq!(literal(0.25), "0.25");
        assert_eq!(literal(1e15), "1000000000000000.0");
        assert_eq!(literal(1e20), "1e+20");
        assert_eq!(literal(-1.5e-7), "-1.5e-7");
        assert_eq!(literal(f64::NEG_INFINITY), "-Inf");
        assert_eq!(format_significant(1.0 / 3.0, 3), "0.333");
        assert_eq!(format_significant(2.0000001, 4), "2");
        assert_eq!(format_significant(-12345.678, 2), "-12000");
        assert_eq!(format_significant(f64::NAN, 4), "0");
        for f in [0.1, 1.0 / 3.0, 123456.789, 1e-9, 6.02e23] {
            assert_eq!(parse_number(&literal(f)).map(Number::as_f64), Some(f));
        }
    }

    #[test]
    fn numbers_parse_like_tcl() {
        assert_eq!(parse_number("010"), Some(Number::Int(8)));
        assert_eq!(parse_number(" 0x1f "), Some(Number::Int(31)));
        assert_eq!(parse_number("-0b101"), Some(Number::Int(-5)));
        assert_eq!(parse_number("08"), None);
        assert_eq!(parse_number("08.5"), Some(Number::Float(8.5)));
        assert_eq!(parse_number(".5"), Some(Number::Float(0.5)));
        assert_eq!(parse_number("5."), Some(Number::Float(5.0)));
        assert_eq!(parse_number("1e3"), Some(Number::Float(1000.0)));
        assert_eq!(parse_number("-inf"), Some(Number::Float(f64::NEG_INFINITY)));
        assert_eq!(parse_number("1e"), None);
        assert_eq!(parse_number("abc"), None);
        assert_eq!(parse_number(""), None);
        assert_eq!(
            parse_number("-9223372036854775808"),
            Some(Number::Int(i64::MIN))
        );
        assert_eq!(parse_number("9223372036854775808"), None);
        assert_eq!(
            read_number("0x1ffffffffffffffff"),
            Err(NotANumber::TooLarge)
        );
        assert_eq!(read_number("0d17"), Err(NotANumber::Malformed));
        assert_eq!(read_number(" "), Err(NotANumber::Malformed));
    }

    #[test]
    fn booleans_are_words_and_their_prefixes() {
        assert_eq!(parse_boolean("TRUE"), Some(true));
        assert_eq!(parse_boolean("tru"), Some(true));
        assert_eq!(parse_boolean("of"), Some(false));
        assert_eq!(parse_boolean("o"), None);
        assert_eq!(parse_boolean(""), None);
    }

    #[test]
    fn integer_arithmetic_follows_tcl() {
        let op = |op, x, y| int_arith(op, x, y).unwrap();
        use BinaryOp::*;
        assert_eq!(op(Div, -7, 2), Ok(-4));
        assert_eq!(op(Mod, -7, 2), Ok(1));
        assert_eq!(op(Mod, 7, -2), Ok(-1));
        assert_eq!(op(Mod, i64::MIN, -1), Ok(0));
        assert_eq!(op(Div, 1, 0), Err(ArithError::DivideByZero));
        assert_eq!(op(Div, i64::MIN, -1), Err(ArithError::Overflow));
        assert_eq!(op(Pow, 2, -1), Ok(0));
        assert_eq!(op(Pow, 0, -1), Err(ArithError::ZeroToNegativePower));
        assert_eq!(op(Pow, 1, 5_000_000_000), Ok(1));
        assert_eq!(op(Pow, -1, 5_000_000_001), Ok(-1));
        assert_eq!(op(Pow, 2, 63), Err(ArithError::Overflow));
        assert_eq!(op(Shl, 1, 62), Ok(1 << 62));
        assert_eq!(op(Shl, 1, 63), Err(ArithError::Overflow));
        assert_eq!(op(Shr, -1, 70), Ok(-1));
        assert_eq!(op(Shl, 1, -1), Err(ArithError::NegativeShift));
        assert_eq!(int_arith(Lt, 1, 2), None);
    }

    #[test]
    fn numbers_are_compact() {
        assert_eq!(format_significant(9.5, 6), "9.5");
        assert_eq!(format_significant(-1.2, 6), "-1.2");
        assert_eq!(format_significant(0.0, 6), "0");
        assert_eq!(format_significant(-0.0, 6), "0");
        assert_eq!(format_significant(1.0 / 3.0, 6), "0.333333");
        assert_eq!(format_significant(2.0 / 3.0, 6), "0.666667");
        assert_eq!(format_significant(1234567.0, 6), "1234570");
        assert_eq!(format_significant(1e-7, 6), "1e-7");
        assert_eq!(format_significant(-2.5e-8, 6), "-2.5e-8");
        assert_eq!(format_significant(3e20, 6), "3e+20");
        assert_eq!(format_significant(12.0, 6), "12");
        assert_eq!(format_significant(0.1 + 0.2, 6), "0.3");
        // What is written reads back (through the language's own number parser) as the
        // rounded value.
        for v in [
            9.5,
            -1.2,
            1.0 / 3.0,
            1e-7,
            123456.7,
            -98765.4321,
            6.02214076e23,
        ] {
            let text = format_significant(v, 6);
            assert_eq!(
                parse_number(&text).unwrap().as_f64(),
                round_significant(v, 6),
                "{text}"
            );
        }
    }
}
