//! Reading an element command's words: `option value` pairs and the values themselves, with
//! errors located at the offending word (dissertation 4.2.3).
//!
//! A value is *literal* when it was written as a word of the element's own command with no
//! substitution; only then does it keep its span ([`literal_span`]), which is what makes the
//! parameter graphically editable (4.2.2). Errors inside a literal list point at the element;
//! errors in a substituted value point at the word that produced it.

use crate::lang::number::parse_number;
use crate::lang::span::Span;
use crate::lang::{Arg, Exception, Value};
use crate::scene::model::{Color, Param, Vec3};

/// The `option value` words of one element command, checked against the options it accepts.
pub(super) struct Options<'a> {
    command: &'static str,
    /// (option, the option's word, the value's word), in the order written.
    found: Vec<(&'static str, &'a Arg, &'a Arg)>,
}

impl<'a> Options<'a> {
    /// Reads `args[first..]` as pairs. Every option may appear once, except those listed in
    /// `repeatable`.
    pub fn parse(
        args: &'a [Arg],
        first: usize,
        command: &'static str,
        valid: &'static [&'static str],
        repeatable: &[&str],
    ) -> Result<Options<'a>, Exception> {
        let mut found: Vec<(&'static str, &'a Arg, &'a Arg)> = Vec::new();
        let mut rest = args.get(first..).unwrap_or(&[]);
        while let [name, tail @ ..] = rest {
            let Some(option) = valid.iter().copied().find(|v| *v == name.value.as_str()) else {
                return Err(Exception::error_at(
                    format!(
                        "unknown option \"{}\" for {command}: expected {}",
                        name.value,
                        one_of(valid)
                    ),
                    name.span,
                ));
            };
            let [value, tail @ ..] = tail else {
                return Err(Exception::error_at(
                    format!("option \"{option}\" of {command} needs a value"),
                    name.span,
                ));
            };
            if !repeatable.contains(&option) && found.iter().any(|(o, _, _)| *o == option) {
                return Err(Exception::error_at(
                    format!("option \"{option}\" is given twice in this {command} command"),
                    name.span,
                ));
            }
            found.push((option, name, value));
            rest = tail;
        }
        Ok(Options { command, found })
    }

    /// The value word of `option`, if given.
    pub fn get(&self, option: &str) -> Option<&'a Arg> {
        self.found
            .iter()
            .find(|(o, _, _)| *o == option)
            .map(|(_, _, v)| *v)
    }

    /// Every value of a repeatable option, in order.
    pub fn all(&self, option: &'a str) -> impl Iterator<Item = &'a Arg> + '_ {
        self.found
            .iter()
            .filter(move |(o, _, _)| *o == option)
            .map(|(_, _, v)| *v)
    }

    /// The value of a required option, or an error at `command_span`.
    pub fn require(&self, option: &str, command_span: Span) -> Result<&'a Arg, Exception> {
        self.get(option).ok_or_else(|| {
            Exception::error_at(
                format!("{} needs option \"{option}\"", self.command),
                command_span,
            )
        })
    }

    /// Of several mutually exclusive groups of options, the one given: its index, and the
    /// word and value of its first option. A second group is an error at its first option.
    pub fn exclusive(
        &self,
        groups: &[&[&str]],
    ) -> Result<Option<(usize, &'a Arg, &'a Arg)>, Exception> {
        let mut chosen: Option<(usize, &str, &'a Arg, &'a Arg)> = None;
        for &(option, word, value) in &self.found {
            let Some(g) = groups.iter().position(|g| g.contains(&option)) else {
                continue;
            };
            match chosen {
                None => chosen = Some((g, option, word, value)),
                Some((c, first, _, _)) if c != g => {
                    return Err(Exception::error_at(
                        format!(
                            "option \"{option}\" cannot be combined with \"{first}\" in {}",
                            self.command
                        ),
                        word.span,
                    ))
                }
                Some(_) => {}
            }
        }
        Ok(chosen.map(|(g, _, word, value)| (g, word, value)))
    }
}

/// `a, b or c`.
pub(super) fn one_of(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [one] => (*one).to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// The span of the value when it is a literal word of the element's command.
pub(super) fn literal_span(arg: &Arg) -> Option<Span> {
    if arg.literal {
        arg.value.origin()
    } else {
        None
    }
}

/// Where to report a problem with `element`, a piece of `arg`'s value (a list element).
pub(super) fn element_span(arg: &Arg, element: &Value) -> Span {
    if arg.literal {
        element.origin().unwrap_or(arg.span)
    } else {
        arg.span
    }
}

/// A piece of an argument's value seen as an argument of its own (a list element), keeping
/// its literal span when the whole argument was literal.
pub(super) fn element_arg(arg: &Arg, element: &Value) -> Arg {
    Arg::new(
        element.clone(),
        element_span(arg, element),
        arg.literal && element.origin().is_some(),
    )
}

/// The list elements of an argument.
pub(super) fn list<'v>(arg: &'v Arg, what: &str) -> Result<&'v [Value], Exception> {
    arg.value
        .as_list()
        .map_err(|m| Exception::error_at(format!("{what} is not a valid list: {m}"), arg.span))
}

/// A finite number from a value, or an error at `span` naming `what` it should be.
pub(super) fn number_at(value: &Value, span: Span, what: &str) -> Result<f64, Exception> {
    match value.as_float() {
        Some(v) if v.is_finite() => Ok(v),
        Some(_) => Err(Exception::error_at(
            format!("{what} must be a finite number, got \"{value}\""),
            span,
        )),
        None => Err(Exception::error_at(
            format!("expected a number for {what}, got \"{value}\""),
            span,
        )),
    }
}

pub(super) fn number(arg: &Arg, what: &str) -> Result<Param<f64>, Exception> {
    let value = number_at(&arg.value, arg.span, what)?;
    Ok(Param {
        value,
        span: literal_span(arg),
    })
}

/// A number that must be greater than zero.
pub(super) fn positive(arg: &Arg, what: &str) -> Result<Param<f64>, Exception> {
    let param = number(arg, what)?;
    if param.value <= 0.0 {
        return Err(Exception::error_at(
            format!("{what} must be greater than 0, got {}", arg.value),
            arg.span,
        ));
    }
    Ok(param)
}

/// A number that must not be negative.
pub(super) fn non_negative(arg: &Arg, what: &str) -> Result<Param<f64>, Exception> {
    let param = number(arg, what)?;
    if param.value < 0.0 {
        return Err(Exception::error_at(
            format!("{what} must not be negative, got {}", arg.value),
            arg.span,
        ));
    }
    Ok(param)
}

/// Three numbers `{x y z}`.
pub(super) fn vector(arg: &Arg, what: &str) -> Result<Param<Vec3>, Exception> {
    if let Some(value) = plain_vector(arg.value.as_str()) {
        return Ok(Param {
            value,
            span: literal_span(arg),
        });
    }
    let items = list(arg, what)?;
    if items.len() != 3 {
        return Err(Exception::error_at(
            format!(
                "{what} must be a vector of 3 numbers {{x y z}}, got {} element{}",
                items.len(),
                if items.len() == 1 { "" } else { "s" }
            ),
            arg.span,
        ));
    }
    let mut v = Vec3::zeros();
    for (slot, item) in v.iter_mut().zip(items) {
        *slot = number_at(item, element_span(arg, item), what)?;
    }
    Ok(Param {
        value: v,
        span: literal_span(arg),
    })
}

/// Three finite numbers separated by white space and nothing else: the common case, read
/// without making list elements. Anything else goes the general way, which also explains
/// what is wrong.
fn plain_vector(text: &str) -> Option<Vec3> {
    if text.contains(|c: char| "{}\"\\\x0b".contains(c)) {
        return None;
    }
    let mut words = text.split_ascii_whitespace();
    let mut v = Vec3::zeros();
    for slot in v.iter_mut() {
        *slot = parse_number(words.next()?)?.as_f64();
        if !slot.is_finite() {
            return None;
        }
    }
    words.next().is_none().then_some(v)
}

pub(super) fn boolean(arg: &Arg, what: &str) -> Result<bool, Exception> {
    arg.value.as_bool().ok_or_else(|| {
        Exception::error_at(
            format!(
                "expected a boolean for {what} (1 or 0, true or false, yes or no, on or off), got \"{}\"",
                arg.value
            ),
            arg.span,
        )
    })
}

pub(super) fn color(arg: &Arg) -> Result<Param<Color>, Exception> {
    let text = arg.value.as_str();
    let items: Option<Vec<&str>> = arg
        .value
        .as_list()
        .ok()
        .map(|items| items.iter().map(Value::as_str).collect());
    let value =
        Color::parse(text, items.as_deref()).map_err(|m| Exception::error_at(m, arg.span))?;
    Ok(Param {
        value,
        span: literal_span(arg),
    })
}

/// An element name: one word that can also be written inside `[NAME ATTR]`.
pub(super) fn name(arg: &Arg, what: &str) -> Result<String, Exception> {
    let text = arg.value.as_str();
    let bad = |c: char| c.is_whitespace() || "{}[]$\"\\;".contains(c);
    if text.is_empty() || text.contains(bad) {
        return Err(Exception::error_at(
            format!(
                "bad {what} name \"{text}\": a name is one word without spaces, braces, brackets, quotes, $, ; or \\"
            ),
            arg.span,
        ));
    }
    Ok(text.to_string())
}
