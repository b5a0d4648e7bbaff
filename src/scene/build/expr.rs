//! Capturing symbolic expressions (force and torque components, link points, camera values)
//! at the moment their element command runs.
//!
//! The expression is parsed with the language's `expr` grammar and then closed over the
//! interpreter's current state: every `$var` except `$t` (simulated time) becomes its current
//! value, and every `[cmd …]` has its words substituted and then either stays a symbolic
//! reference `[NAME ATTR]` (NAME a body or trajectory, or not a command yet: bodies may be
//! defined later) or is run now and replaced by its numeric result. An expression written in a
//! loop or a proc therefore captures the loop variables of its own iteration.

use super::args::{self, element_arg, literal_span};
use super::{attribute_problem, Expect, Shared};
use crate::lang::ast::{Command, Expr, ExprKind, Part, Script, UnaryOp, Word, WordKind};
use crate::lang::number::{format_double, parse_boolean, parse_number, Number};
use crate::lang::parse::parse_expr_with_depth;
use crate::lang::span::Span;
use crate::lang::{Arg, Exception, Interp, Value};
use crate::scene::expression::{fingerprint, reference_words};
use crate::scene::model::{ExprVec, Expression};

/// The expression written as `arg`.
pub(super) fn expression(
    interp: &mut Interp,
    shared: &Shared,
    arg: &Arg,
) -> Result<Expression, Exception> {
    let source = arg.value.as_str().to_string();
    let span = literal_span(arg);
    let max_depth = interp.limits().max_depth;
    let mut tree = match span {
        Some(at) => parse_expr_with_depth(&source, at.start, max_depth)
            .map_err(|e| Exception::error_at(e.message, e.span))?,
        None => {
            // Not written in this command: the spans inside would point elsewhere or nowhere,
            // so everything is located at the word that produced the value.
            let mut tree = parse_expr_with_depth(&source, 0, max_depth)
                .map_err(|e| Exception::error_at(e.message, arg.span))?;
            relocate(&mut tree, arg.span);
            tree
        }
    };
    Capture { interp, shared }.expr(&mut tree)?;
    let constant = constant_of(&tree);
    Ok(Expression {
        source,
        span,
        fingerprint: fingerprint(&tree),
        tree,
        constant,
    })
}

/// A component that was not written: zero, with an empty source.
pub(super) fn zero(span: Span) -> Expression {
    let tree = Expr {
        span,
        kind: ExprKind::Number("0".into()),
    };
    Expression {
        source: String::new(),
        span: None,
        fingerprint: fingerprint(&tree),
        tree,
        constant: Some(0.0),
    }
}

/// `{Ex Ey Ez}`: a list of three expressions.
pub(super) fn expression_vector(
    interp: &mut Interp,
    shared: &Shared,
    arg: &Arg,
    what: &str,
) -> Result<ExprVec, Exception> {
    let items = args::list(arg, what)?;
    let [x, y, z] = items else {
        return Err(Exception::error_at(
            format!(
                "{what} must be a vector of 3 components {{x y z}} (numbers or braced expressions), got {}",
                items.len()
            ),
            arg.span,
        ));
    };
    let (x, y, z) = (
        element_arg(arg, x),
        element_arg(arg, y),
        element_arg(arg, z),
    );
    Ok(ExprVec {
        x: expression(interp, shared, &x)?,
        y: expression(interp, shared, &y)?,
        z: expression(interp, shared, &z)?,
    })
}

/// The value of a tree that is just a (signed) number.
fn constant_of(tree: &Expr) -> Option<f64> {
    match &tree.kind {
        ExprKind::Number(text) => parse_number(text)
            .map(Number::as_f64)
            .filter(|v| v.is_finite()),
        ExprKind::Unary(UnaryOp::Neg, x) => constant_of(x).map(|v| -v),
        ExprKind::Unary(UnaryOp::Plus, x) => constant_of(x),
        _ => None,
    }
}

struct Capture<'a> {
    interp: &'a mut Interp,
    shared: &'a Shared,
}

impl Capture<'_> {
    fn expr(&mut self, e: &mut Expr) -> Result<(), Exception> {
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || match &mut e.kind {
            ExprKind::Number(_) => Ok(()),
            ExprKind::Operand(parts) => {
                if let Some(kind) = self.operand(parts, e.span)? {
                    e.kind = kind;
                }
                Ok(())
            }
            ExprKind::Unary(_, x) => self.expr(x),
            ExprKind::Binary(_, a, b) => {
                self.expr(a)?;
                self.expr(b)
            }
            ExprKind::Ternary(c, a, b) => {
                self.expr(c)?;
                self.expr(a)?;
                self.expr(b)
            }
            ExprKind::Call(_, arguments) => arguments.iter_mut().try_for_each(|a| self.expr(a)),
        })
    }

    /// What an operand becomes: `None` to keep it (`$t`), else its replacement.
    fn operand(&mut self, parts: &[Part], span: Span) -> Result<Option<ExprKind>, Exception> {
        match parts {
            [Part::Variable {
                name, index: None, ..
            }] if name == "t" => Ok(None),
            [Part::Command { script, span: at }] => self.command(script, *at, span),
            _ => {
                if let Some(t) = parts.iter().find(|p| is_time(p)) {
                    return Err(Exception::error_at(
                        "$t (the simulated time) must be an operand of its own, not part of a word",
                        t.span(),
                    ));
                }
                let value = self.substitute(parts)?;
                let what = match parts {
                    [Part::Variable { name, .. }] => format!("${name}"),
                    _ => "this operand".to_string(),
                };
                number_kind(&value, span, &what).map(Some)
            }
        }
    }

    /// The value of a word's parts, without going through the interpreter for plain text.
    fn substitute(&mut self, parts: &[Part]) -> Result<Value, Exception> {
        if parts.iter().all(|p| matches!(p, Part::Text { .. })) {
            let text: String = parts
                .iter()
                .map(|p| match p {
                    Part::Text { text, .. } => text.as_str(),
                    _ => "",
                })
                .collect();
            return Ok(Value::from(text));
        }
        self.interp.substitute_parts(parts)
    }

    /// `[NAME ATTR]` written with two plain words (the usual case): decided without
    /// substituting anything, and kept in the tree as written. `None` when the command is not
    /// of that form or names a command to run now.
    fn literal_reference(
        &mut self,
        script: &Script,
    ) -> Result<Option<Option<ExprKind>>, Exception> {
        let Some([(name, name_span), (attr, attr_span)]) = reference_words(script) else {
            return Ok(None);
        };
        let known = self.known(&name);
        if known.is_none() && self.interp.has_command(&name) {
            return Ok(None);
        }
        self.check_reference(known, &name, name_span, &attr, attr_span)?;
        Ok(Some(None))
    }

    /// Whether `name` is a body (`Some(true)`), a trajectory (`Some(false)`) or neither yet.
    fn known(&self, name: &str) -> Option<bool> {
        let builder = self.shared.borrow();
        if builder.body_index(name).is_some() {
            Some(true)
        } else if builder.trajectory_index(name).is_some() {
            Some(false)
        } else {
            None
        }
    }

    /// Checks the attribute of a known body or trajectory now, or remembers the name to check
    /// at the end of the text.
    fn check_reference(
        &mut self,
        known: Option<bool>,
        name: &str,
        name_span: Span,
        attr: &str,
        attr_span: Span,
    ) -> Result<(), Exception> {
        match known {
            Some(is_body) => match attribute_problem(name, attr, is_body) {
                Some(problem) => Err(Exception::error_at(problem, attr_span)),
                None => Ok(()),
            },
            None => {
                self.shared.borrow_mut().refer(
                    name,
                    name_span,
                    Expect::Attribute(attr.to_string()),
                );
                Ok(())
            }
        }
    }

    /// `[…]`: a symbolic `[NAME ATTR]`, or a command run now for its numeric result.
    fn command(
        &mut self,
        script: &Script,
        part_span: Span,
        span: Span,
    ) -> Result<Option<ExprKind>, Exception> {
        if let Some(kept) = self.literal_reference(script)? {
            return Ok(kept);
        }
        let [command] = script.commands.as_slice() else {
            let part = Part::Command {
                script: script.clone(),
                span: part_span,
            };
            let value = self.interp.substitute_parts(&[part])?;
            return number_kind(&value, span, "the command's result").map(Some);
        };
        let mut words: Vec<Arg> = Vec::with_capacity(command.words.len());
        for word in &command.words {
            let value = match &word.kind {
                WordKind::Braced { text, .. } => Value::from(text.as_str()),
                WordKind::Quoted(parts) | WordKind::Bare(parts) => self.substitute(parts)?,
            };
            if word.expand {
                let items = value
                    .as_list()
                    .map_err(|m| Exception::error_at(m.to_string(), word.span))?;
                words.extend(items.iter().map(|v| Arg::new(v.clone(), word.span, false)));
            } else {
                words.push(Arg::new(value, word.span, word.literal().is_some()));
            }
        }
        let Some(first) = words.first() else {
            return Err(Exception::error_at(
                "expected a number, got an empty command",
                span,
            ));
        };
        let name = first.value.as_str();
        let known = self.known(name);
        let defined = self.interp.has_command(name);
        if words.len() == 2 && (known.is_some() || !defined) {
            let attr = words[1].value.as_str();
            self.check_reference(known, name, first.span, attr, words[1].span)?;
            return Ok(Some(ExprKind::Operand(vec![Part::Command {
                script: reference_script(&words, script.span, command.span),
                span: part_span,
            }])));
        }
        if !defined {
            return Err(Exception::error_at(
                format!("invalid command name \"{name}\""),
                first.span,
            ));
        }
        let value = self.interp.invoke(&words).map_err(|e| locate(e, span))?;
        number_kind(&value, span, "the command's result").map(Some)
    }
}

fn is_time(part: &Part) -> bool {
    matches!(part, Part::Variable { name, index: None, .. } if name == "t")
}

/// `[NAME ATTR]` with its words substituted, as plain text words.
fn reference_script(words: &[Arg], script: Span, command: Span) -> Script {
    let words = words
        .iter()
        .map(|w| Word {
            span: w.span,
            expand: false,
            kind: WordKind::Bare(vec![Part::Text {
                text: w.value.as_str().to_string(),
                span: w.span,
            }]),
        })
        .collect();
    Script {
        span: script,
        commands: vec![Command {
            span: command,
            words,
        }],
    }
}

/// An error raised without a place is about the operand that ran the command.
fn locate(e: Exception, span: Span) -> Exception {
    match e {
        Exception::Error(mut state) => {
            state.span.get_or_insert(span);
            Exception::Error(state)
        }
        other => other,
    }
}

/// A substituted value as a tree node: a number (negative ones as a negation, as the parser
/// would give them), or an error naming `what` was not numeric.
fn number_kind(value: &Value, span: Span, what: &str) -> Result<ExprKind, Exception> {
    let signed = |negative: bool, text: String| {
        let number = ExprKind::Number(text);
        if negative {
            ExprKind::Unary(UnaryOp::Neg, Box::new(Expr { span, kind: number }))
        } else {
            number
        }
    };
    match value.as_number() {
        Some(Number::Int(i)) if i != i64::MIN => Ok(signed(i < 0, i.unsigned_abs().to_string())),
        Some(n) if n.as_f64().is_finite() => {
            let f = n.as_f64();
            let mut text = String::new();
            format_double(f.abs(), &mut text);
            Ok(signed(f < 0.0, text))
        }
        Some(_) => Err(Exception::error_at(
            format!("{what} must be a finite number, got \"{value}\""),
            span,
        )),
        None => match parse_boolean(value.as_str()) {
            Some(b) => Ok(ExprKind::Number(u8::from(b).to_string())),
            None => Err(Exception::error_at(
                format!(
                    "{what} is \"{value}\", not a number: an expression of time and state may use only numbers, $t, [BODY ATTR] and [TRAJECTORY ATTR]"
                ),
                span,
            )),
        },
    }
}

/// Puts every span of a tree at `span` (for a value not written in the element's command).
fn relocate(e: &mut Expr, span: Span) {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
        e.span = span;
        match &mut e.kind {
            ExprKind::Number(_) => {}
            ExprKind::Operand(parts) => relocate_parts(parts, span),
            ExprKind::Unary(_, x) => relocate(x, span),
            ExprKind::Binary(_, a, b) => {
                relocate(a, span);
                relocate(b, span);
            }
            ExprKind::Ternary(c, a, b) => {
                relocate(c, span);
                relocate(a, span);
                relocate(b, span);
            }
            ExprKind::Call(_, arguments) => arguments.iter_mut().for_each(|a| relocate(a, span)),
        }
    })
}

fn relocate_parts(parts: &mut [Part], at: Span) {
    for part in parts {
        match part {
            Part::Text { span, .. } => *span = at,
            Part::Variable { index, span, .. } => {
                *span = at;
                if let Some(index) = index {
                    relocate_parts(index, at);
                }
            }
            Part::Command { script, span } => {
                *span = at;
                relocate_script(script, at);
            }
        }
    }
}

fn relocate_script(script: &mut Script, at: Span) {
    script.span = at;
    for command in &mut script.commands {
        command.span = at;
        for word in &mut command.words {
            word.span = at;
            match &mut word.kind {
                WordKind::Braced { content, .. } => *content = at,
                WordKind::Quoted(parts) | WordKind::Bare(parts) => relocate_parts(parts, at),
            }
        }
    }
}
