//! Tcl's numbers: which strings are numbers, and how numbers print.
//!
//! Integers are 64-bit (Tcl's bignums are not supported: arithmetic that leaves the 64-bit
//! range is an error rather than a silently different result). Doubles print as Tcl 8.6 prints
//! them with `tcl_precision` 0: the shortest text that reads back to the same double, always
//! with a `.` or an exponent so that it stays a double (`1.0`, `1e+17`, `0.1`).

use std::fmt::Write;

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

/// Parses a Tcl number: optional surrounding whitespace, a sign, then a decimal, `0x`, `0o`,
/// `0b`, `0d` or (leading `0`) octal integer, or a decimal double, `Inf` or `NaN`.
/// `None` if the text is not a number, or an integer outside 64 bits.
pub fn parse_number(text: &str) -> Option<Number> {
    let t = text.trim_matches(|c: char| c.is_ascii_whitespace());
    let (negative, digits) = match t.as_bytes().first()? {
        b'-' => (true, &t[1..]),
        b'+' => (false, &t[1..]),
        _ => (false, t),
    };
    if let Some(magnitude) = parse_unsigned_integer(digits) {
        return signed(magnitude, negative).map(Number::Int);
    }
    parse_double(digits).map(|f| Number::Float(if negative { -f } else { f }))
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

fn parse_unsigned_integer(digits: &str) -> Option<u64> {
    let bytes = digits.as_bytes();
    let (radix, body) = match bytes {
        [b'0', b'x' | b'X', ..] => (16, &digits[2..]),
        [b'0', b'o' | b'O', ..] => (8, &digits[2..]),
        [b'0', b'b' | b'B', ..] => (2, &digits[2..]),
        [b'0', b'd' | b'D', ..] => (10, &digits[2..]),
        [b'0', _, ..] => (8, &digits[1..]),
        _ => (10, digits),
    };
    if body.is_empty() || !body.bytes().all(|b| (b as char).is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(body, radix).ok()
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
    }
}
