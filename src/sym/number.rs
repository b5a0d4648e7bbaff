//! Numeric literals as Tcl 8.6 reads them.
//!
//! Integers: decimal, `0x` hexadecimal, `0o` octal, `0b` binary, and a leading `0` meaning octal
//! (Tcl 8.6 still does that: `017` is 15, `08` is not a number). Reals: decimal with optional
//! fraction and exponent (`.5`, `5.`, `1.e3`, `2.5E-3`), and `Inf`, `Infinity`, `NaN` in any
//! case. An optional sign is accepted. Tcl would keep integers beyond 64 bits exact; here they
//! become the nearest real.

/// A parsed literal: Tcl keeps integers and reals apart because integer arithmetic differs
/// (`7/2` is 3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Number {
    Int(i64),
    Real(f64),
}

/// The literal's value, or `None` if `text` is not a Tcl number.
pub(crate) fn parse_number(text: &str) -> Option<Number> {
    let (negative, body) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let prefixed = |prefixes: [&str; 2]| prefixes.iter().find_map(|p| body.strip_prefix(p));
    let (radix, digits) = if let Some(digits) = prefixed(["0x", "0X"]) {
        (16, digits)
    } else if let Some(digits) = prefixed(["0o", "0O"]) {
        (8, digits)
    } else if let Some(digits) = prefixed(["0b", "0B"]) {
        (2, digits)
    } else if !body.is_empty() && body.bytes().all(|b| b.is_ascii_digit()) {
        if body.len() > 1 && body.starts_with('0') {
            (8, &body[1..])
        } else {
            (10, body)
        }
    } else {
        return text.parse::<f64>().ok().map(Number::Real);
    };
    integer(digits, radix, negative)
}

/// A Tcl boolean word used as an operand: `true`, `yes`, `on` are 1; `false`, `no`, `off` 0.
pub(crate) fn parse_boolean(text: &str) -> Option<bool> {
    match text.to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" => Some(true),
        "false" | "no" | "off" => Some(false),
        _ => None,
    }
}

fn integer(digits: &str, radix: u32, negative: bool) -> Option<Number> {
    if digits.is_empty() {
        return None;
    }
    let mut exact: Option<u128> = Some(0);
    let mut approximate = 0.0f64;
    for c in digits.chars() {
        let d = c.to_digit(radix)?;
        exact = exact
            .and_then(|v| v.checked_mul(u128::from(radix)))
            .and_then(|v| v.checked_add(u128::from(d)));
        approximate = approximate * f64::from(radix) + f64::from(d);
    }
    let signed = exact.and_then(|v| {
        if negative {
            0i64.checked_sub_unsigned(u64::try_from(v).ok()?)
        } else {
            i64::try_from(v).ok()
        }
    });
    Some(match (signed, exact) {
        (Some(v), _) => Number::Int(v),
        (None, Some(v)) => Number::Real(if negative { -(v as f64) } else { v as f64 }),
        (None, None) => Number::Real(if negative { -approximate } else { approximate }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_in_every_radix() {
        let cases = [
            ("0", 0),
            ("00", 0),
            ("42", 42),
            ("017", 15),
            ("0x1F", 31),
            ("0X1f", 31),
            ("0o17", 15),
            ("0O17", 15),
            ("0b101", 5),
            ("0B11", 3),
            ("+3", 3),
            ("-7", -7),
            ("9223372036854775807", i64::MAX),
            ("-9223372036854775808", i64::MIN),
        ];
        for (text, value) in cases {
            assert_eq!(parse_number(text), Some(Number::Int(value)), "{text}");
        }
    }

    #[test]
    fn reals_and_special_values() {
        let cases = [
            ("1e3", 1000.0),
            ("1E+3", 1000.0),
            (".5", 0.5),
            ("5.", 5.0),
            ("1.e1", 10.0),
            ("08.5", 8.5),
            ("08e1", 80.0),
            ("2.5e-3", 2.5e-3),
            ("1e400", f64::INFINITY),
            ("Inf", f64::INFINITY),
            ("-Infinity", f64::NEG_INFINITY),
            ("inf", f64::INFINITY),
            ("9223372036854775808", 9223372036854775808.0),
            ("0xffffffffffffffffff", 4722366482869645213695.0),
        ];
        for (text, value) in cases {
            assert_eq!(parse_number(text), Some(Number::Real(value)), "{text}");
        }
        assert!(matches!(parse_number("NaN"), Some(Number::Real(v)) if v.is_nan()));
        let long = format!("0x{}", "f".repeat(40));
        assert!(matches!(parse_number(&long), Some(Number::Real(v)) if v > 1e48));
    }

    #[test]
    fn malformed_literals_are_rejected() {
        for text in [
            "", "0x", "0o", "0b2", "0o8", "08", "1e", ".e1", "1_000", "0d17", "abc", "1.5.2",
            "--3", " 3",
        ] {
            assert_eq!(parse_number(text), None, "{text:?}");
        }
    }

    #[test]
    fn booleans() {
        assert_eq!(parse_boolean("TRUE"), Some(true));
        assert_eq!(parse_boolean("off"), Some(false));
        assert_eq!(parse_boolean("tru"), None);
    }
}
