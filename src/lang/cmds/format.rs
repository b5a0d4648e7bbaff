//! `format`: C printf conversions as Tcl 8.6 does them (`%d %i %u %x %X %o %c %s %f %e %E %g
//! %G %%`, flags `- + space 0 #`, width, precision, `*`, and `%n$` positions), on 64-bit
//! integers.

use super::arity;
use crate::lang::interp::{Arg, Exception, Interp};
use crate::lang::number::Number;
use crate::lang::value::Value;

/// One parsed conversion specifier.
#[derive(Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    zero: bool,
    alt: bool,
    width: usize,
    precision: Option<usize>,
    conversion: char,
}

pub fn format_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    arity(args, 1, None, "formatString ?arg ...?")?;
    let fmt: Vec<char> = args[1].value.as_str().chars().collect();
    let values = &args[2..];
    let mut next_arg = 0usize;
    let mut positional: Option<bool> = None;
    let mut out = String::new();
    let mut i = 0;
    let take = |next_arg: &mut usize| -> Result<Value, Exception> {
        let v = values
            .get(*next_arg)
            .map(|a| a.value.clone())
            .ok_or_else(|| Exception::error("not enough arguments for all format specifiers"))?;
        *next_arg += 1;
        Ok(v)
    };
    let ended = || Exception::error("format string ended in middle of field specifier");
    while i < fmt.len() {
        if fmt[i] != '%' {
            out.push(fmt[i]);
            i += 1;
            continue;
        }
        i += 1;
        if fmt.get(i) == Some(&'%') {
            out.push('%');
            i += 1;
            continue;
        }
        // An XPG position `N$`.
        let digits = fmt[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        let is_position = digits > 0 && fmt.get(i + digits) == Some(&'$');
        if positional.is_some_and(|p| p != is_position) {
            return Err(Exception::error(
                "cannot mix \"%\" and \"%n$\" conversion specifiers",
            ));
        }
        positional = Some(is_position);
        if is_position {
            let n: usize = fmt[i..i + digits]
                .iter()
                .collect::<String>()
                .parse()
                .unwrap_or(0);
            if n == 0 || n > values.len() {
                return Err(Exception::error("\"%n$\" argument index out of range"));
            }
            next_arg = n - 1;
            i += digits + 1;
        }
        let mut spec = Spec::default();
        while let Some(&c) = fmt.get(i) {
            match c {
                '-' => spec.left = true,
                '+' => spec.plus = true,
                ' ' => spec.space = true,
                '0' => spec.zero = true,
                '#' => spec.alt = true,
                _ => break,
            }
            i += 1;
        }
        if fmt.get(i) == Some(&'*') {
            let w = super::int_of(&take(&mut next_arg)?)?;
            if w < 0 {
                spec.left = true;
            }
            spec.width = w.unsigned_abs() as usize;
            i += 1;
        } else {
            let n = fmt[i..].iter().take_while(|c| c.is_ascii_digit()).count();
            spec.width = fmt[i..i + n]
                .iter()
                .collect::<String>()
                .parse()
                .unwrap_or(0);
            i += n;
        }
        if fmt.get(i) == Some(&'.') {
            i += 1;
            if fmt.get(i) == Some(&'*') {
                let p = super::int_of(&take(&mut next_arg)?)?;
                spec.precision = Some(p.max(0) as usize);
                i += 1;
            } else {
                let n = fmt[i..].iter().take_while(|c| c.is_ascii_digit()).count();
                spec.precision = Some(
                    fmt[i..i + n]
                        .iter()
                        .collect::<String>()
                        .parse()
                        .unwrap_or(0),
                );
                i += n;
            }
        }
        while matches!(fmt.get(i), Some('h' | 'l' | 'L' | 'j' | 'z' | 't')) {
            i += 1;
        }
        let Some(&conversion) = fmt.get(i) else {
            // tclsh looks for the argument before the conversion character.
            take(&mut next_arg)?;
            return Err(ended());
        };
        spec.conversion = conversion;
        // Width and precision can ask for any size: check before building the field.
        interp.check_memory(out.len() + spec.width + spec.precision.unwrap_or(0))?;
        i += 1;
        let field = convert(&spec, take(&mut next_arg)?)?;
        interp.check_memory(out.len() + field.len())?;
        pad(&spec, &field, &mut out);
    }
    Ok(Value::from(out))
}

/// The text of one conversion before padding to the width.
fn convert(spec: &Spec, v: Value) -> Result<String, Exception> {
    let int = |v: &Value| super::int_of(v);
    let float = |v: &Value| {
        v.as_number().map(Number::as_f64).ok_or_else(|| {
            Exception::error(format!("expected floating-point number but got \"{v}\""))
        })
    };
    Ok(match spec.conversion {
        'd' | 'i' => {
            let n = int(&v)?;
            let digits = min_digits(n.unsigned_abs().to_string(), spec.precision);
            signed(spec, n < 0, digits)
        }
        'u' => min_digits((int(&v)? as u64).to_string(), spec.precision),
        'x' | 'X' | 'o' => {
            let n = int(&v)? as u64;
            let mut digits = match spec.conversion {
                'x' => format!("{n:x}"),
                'X' => format!("{n:X}"),
                _ => format!("{n:o}"),
            };
            digits = min_digits(digits, spec.precision);
            match spec.conversion {
                'x' if spec.alt => digits.insert_str(0, "0x"),
                'X' if spec.alt => digits.insert_str(0, "0X"),
                'o' if spec.alt && !digits.starts_with('0') => digits.insert(0, '0'),
                _ => {}
            }
            digits
        }
        'c' => {
            let n = int(&v)?;
            u32::try_from(n)
                .ok()
                .and_then(char::from_u32)
                .unwrap_or('\u{fffd}')
                .to_string()
        }
        's' => match spec.precision {
            Some(p) => v.as_str().chars().take(p).collect(),
            None => v.as_str().to_string(),
        },
        'f' | 'e' | 'E' | 'g' | 'G' => {
            let f = float(&v)?;
            let body = float_text(spec, f.abs());
            signed(spec, f.is_sign_negative() && !f.is_nan(), body)
        }
        other => {
            return Err(Exception::error(format!("bad field specifier \"{other}\"")));
        }
    })
}

fn min_digits(digits: String, precision: Option<usize>) -> String {
    match precision {
        Some(p) if digits.len() < p => format!("{}{digits}", "0".repeat(p - digits.len())),
        _ => digits,
    }
}

/// Adds the sign (or the `+`/space flag's mark) to a magnitude.
fn signed(spec: &Spec, negative: bool, magnitude: String) -> String {
    let sign = if negative {
        "-"
    } else if spec.plus {
        "+"
    } else if spec.space {
        " "
    } else {
        ""
    };
    format!("{sign}{magnitude}")
}

/// Pads a field to the width: spaces on the left or right, or zeros after the sign/prefix.
fn pad(spec: &Spec, field: &str, out: &mut String) {
    let len = field.chars().count();
    if len >= spec.width {
        out.push_str(field);
        return;
    }
    let fill = spec.width - len;
    if spec.left {
        out.push_str(field);
        out.extend(std::iter::repeat_n(' ', fill));
    } else if spec.zero && spec.conversion != 'c' {
        let numeric = !matches!(spec.conversion, 's');
        let mut prefix_len = 0;
        if numeric {
            if field.starts_with(['-', '+', ' ']) {
                prefix_len = 1;
            }
            if field[prefix_len..].starts_with("0x") || field[prefix_len..].starts_with("0X") {
                prefix_len += 2;
            }
        }
        out.push_str(&field[..prefix_len]);
        out.extend(std::iter::repeat_n('0', fill));
        out.push_str(&field[prefix_len..]);
    } else {
        out.extend(std::iter::repeat_n(' ', fill));
        out.push_str(field);
    }
}

/// `%f %e %E %g %G` of a non-negative magnitude.
fn float_text(spec: &Spec, f: f64) -> String {
    if f.is_infinite() {
        return "Inf".into();
    }
    if f.is_nan() {
        return "NaN".into();
    }
    let precision = spec.precision.unwrap_or(6);
    match spec.conversion {
        'f' => {
            let mut s = format!("{f:.precision$}");
            if spec.alt && precision == 0 {
                s.push('.');
            }
            s
        }
        'e' | 'E' => {
            let s = exponent_form(f, precision, spec.alt);
            if spec.conversion == 'E' {
                s.to_uppercase()
            } else {
                s
            }
        }
        _ => {
            let s = general_form(f, precision, spec.alt);
            if spec.conversion == 'G' {
                s.to_uppercase()
            } else {
                s
            }
        }
    }
}

/// C's `%.Ne`: one digit, a point, N digits, and an exponent of at least two digits.
fn exponent_form(f: f64, precision: usize, alt: bool) -> String {
    let s = format!("{f:.precision$e}");
    let (mantissa, exp) = s.split_once('e').expect("exponent form");
    let exp: i32 = exp.parse().expect("integer exponent");
    let sign = if exp < 0 { '-' } else { '+' };
    let point = if alt && precision == 0 { "." } else { "" };
    format!("{mantissa}{point}e{sign}{:02}", exp.abs())
}

/// C's `%.Ng`: `%e` or `%f` by the exponent, trailing zeros removed unless `#`.
fn general_form(f: f64, precision: usize, alt: bool) -> String {
    let p = precision.max(1);
    // The exponent after rounding to p significant digits.
    let rounded = format!("{f:.prec$e}", prec = p - 1);
    let exp: i32 = rounded
        .split_once('e')
        .and_then(|(_, e)| e.parse().ok())
        .unwrap_or(0);
    let mut s = if exp < -4 || exp >= p as i32 {
        exponent_form(f, p - 1, alt)
    } else {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        format!("{f:.decimals$}")
    };
    if !alt {
        let (body, exp_part) = match s.find('e') {
            Some(k) => (s[..k].to_string(), s[k..].to_string()),
            None => (s.clone(), String::new()),
        };
        let body = if body.contains('.') {
            body.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            body
        };
        s = body + &exp_part;
    } else if !s.contains('.') {
        s.push('.');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(conversion: char, precision: Option<usize>, alt: bool) -> Spec {
        Spec {
            conversion,
            precision,
            alt,
            ..Spec::default()
        }
    }

    #[test]
    fn floats_format_like_c() {
        assert_eq!(
            float_text(&spec('e', None, false), 12345.678),
            "1.234568e+04"
        );
        assert_eq!(float_text(&spec('g', None, false), 12345.678), "12345.7");
        assert_eq!(float_text(&spec('g', None, false), 0.0001234), "0.0001234");
        assert_eq!(
            float_text(&spec('g', None, false), 123456789.0),
            "1.23457e+08"
        );
        assert_eq!(float_text(&spec('g', None, true), 1.5), "1.50000");
        assert_eq!(float_text(&spec('g', None, false), 100000.0), "100000");
        assert_eq!(float_text(&spec('g', None, false), 1000000.0), "1e+06");
        assert_eq!(float_text(&spec('g', None, false), 0.0), "0");
        assert_eq!(float_text(&spec('f', Some(0), false), 2.5), "2");
        assert_eq!(float_text(&spec('f', Some(0), false), 3.5), "4");
        assert_eq!(float_text(&spec('g', Some(3), false), 1.23456), "1.23");
    }
}
