//! Questions about captured expressions: what they refer to, whether two are the same
//! expression wherever they are written, and how they read.
//!
//! After capture an expression tree holds only numbers, operators, math functions, `$t` and
//! symbolic references `[NAME ATTR]` (see `build::expr`).

use super::fingerprint::Digest;
use super::model::{ExprVec, Expression};
use crate::lang::ast::{Expr, ExprKind, Part, Script, Word};
use crate::lang::operator::UNARY_PRECEDENCE;
use crate::lang::span::Span;
use std::borrow::Cow;
use std::fmt::Write;

/// A symbolic reference `[NAME ATTR]` in an expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    /// A body or trajectory name.
    pub name: String,
    /// The attribute: `x`, `dy`, `mass`, … (see [`super::attribute`]).
    pub attr: String,
    /// The `[…]` in the text (or the word the expression came from).
    pub span: Span,
    pub name_span: Span,
    pub attr_span: Span,
}

impl Reference {
    /// The reference an operand's parts make: exactly one `[…]` holding one command of two
    /// literal words. This is the one reader of references: the scene's checks, the
    /// renderer's values of camera and light expressions and the equations of motion read
    /// `[NAME ATTR]` through it.
    pub fn read(parts: &[Part]) -> Option<Reference> {
        let (script, span) = bracketed(parts)?;
        Reference::in_script(script, span)
    }

    /// The reference a `[…]` holding `script` at `span` makes, if it is one.
    pub fn in_script(script: &Script, span: Span) -> Option<Reference> {
        let [(name, name_span), (attr, attr_span)] = reference_words(script)?;
        Some(Reference {
            name: name.into_owned(),
            attr: attr.into_owned(),
            span,
            name_span,
            attr_span,
        })
    }
}

/// The name and attribute words, with their spans, of an operand that is a reference
/// (see [`Reference::read`]), borrowed where written literally.
fn operand_words(parts: &[Part]) -> Option<[(Cow<'_, str>, Span); 2]> {
    reference_words(bracketed(parts)?.0)
}

/// The script and span of an operand that is exactly one `[…]`.
fn bracketed(parts: &[Part]) -> Option<(&Script, Span)> {
    let [Part::Command { script, span }] = parts else {
        return None;
    };
    Some((script, *span))
}

/// The name and attribute words, with their spans, of a `[…]` holding `script` when it is
/// a reference: one command of two literal words, neither expanded with `{*}`.
pub fn reference_words(script: &Script) -> Option<[(Cow<'_, str>, Span); 2]> {
    let [command] = script.commands.as_slice() else {
        return None;
    };
    let [name, attr] = command.words.as_slice() else {
        return None;
    };
    Some([literal_word(name)?, literal_word(attr)?])
}

/// A word's literal text and span, when it has no substitution and is not expanded.
fn literal_word(word: &Word) -> Option<(Cow<'_, str>, Span)> {
    Some((word.literal().filter(|_| !word.expand)?, word.span))
}

impl Expression {
    /// The `[NAME ATTR]` references, in the order written.
    pub fn references(&self) -> Vec<Reference> {
        let mut found = Vec::new();
        visit(&self.tree, &mut |e| {
            if let ExprKind::Operand(parts) = &e.kind {
                found.extend(Reference::read(parts));
            }
        });
        found
    }

    /// Whether a `[NAME ATTR]` reference names something `wanted` accepts: what
    /// [`references`](Expression::references) finds, without copying a name (a model update
    /// asks this of every force and link in the scene).
    pub fn refers_to(&self, wanted: &dyn Fn(&str) -> bool) -> bool {
        let mut found = false;
        visit(&self.tree, &mut |e| {
            if let ExprKind::Operand(parts) = &e.kind {
                if let [Part::Command { script, .. }] = parts.as_slice() {
                    found = found
                        || reference_words(script).is_some_and(|[(name, _), _]| wanted(&name));
                }
            }
        });
        found
    }

    /// Whether the expression reads the simulated time `$t`.
    pub fn uses_time(&self) -> bool {
        let mut uses = false;
        visit(&self.tree, &mut |e| {
            if let ExprKind::Operand(parts) = &e.kind {
                uses |= matches!(parts.as_slice(), [Part::Variable { name, .. }] if name == "t");
            }
        });
        uses
    }

    /// Whether two expressions compute the same thing, wherever and however they were
    /// written (spans and source text are ignored; `[b$i x]` and `[b1 x]` are the same when
    /// `$i` was 1). Equal [`fingerprint`]s, computed when the expressions were captured,
    /// answer without reading the trees; the trees are compared only when they differ.
    pub fn same_as(&self, other: &Expression) -> bool {
        self.fingerprint == other.fingerprint || same_tree(&self.tree, &other.tree)
    }

    /// Whether graphical editing can set this component: it is a literal number of the
    /// element's command, or it was not written (and can be added).
    pub fn is_settable(&self) -> bool {
        self.source.is_empty() || (self.span.is_some() && self.constant.is_some())
    }

    /// The captured expression in infix form, with variables replaced by their values:
    /// `-10 * [b1 mass]`.
    pub fn display(&self) -> String {
        let mut out = String::new();
        write_expr(&self.tree, &mut out);
        out
    }
}

impl ExprVec {
    pub fn components(&self) -> [&Expression; 3] {
        [&self.x, &self.y, &self.z]
    }

    pub fn same_as(&self, other: &ExprVec) -> bool {
        self.x.same_as(&other.x) && self.y.same_as(&other.y) && self.z.same_as(&other.z)
    }

    /// Whether graphical editing can set the whole vector (see [`Expression::is_settable`]).
    pub fn is_settable(&self) -> bool {
        self.components().iter().all(|c| c.is_settable())
    }

    /// The vector's value when every component is a plain number.
    pub fn constant(&self) -> Option<super::model::Vec3> {
        Some(super::model::Vec3::new(
            self.x.constant?,
            self.y.constant?,
            self.z.constant?,
        ))
    }
}

/// Calls `f` on every node of the tree, parents first.
fn visit(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
        f(e);
        match &e.kind {
            ExprKind::Number(_) | ExprKind::Operand(_) => {}
            ExprKind::Unary(_, x) => visit(x, f),
            ExprKind::Binary(_, a, b) => {
                visit(a, f);
                visit(b, f);
            }
            ExprKind::Ternary(c, a, b) => {
                visit(c, f);
                visit(a, f);
                visit(b, f);
            }
            ExprKind::Call(_, arguments) => arguments.iter().for_each(|a| visit(a, f)),
        }
    })
}

/// The digest (see `scene::fingerprint`) of what makes two expression trees compute the same
/// thing: numbers as written, operators, function names, references by name and attribute
/// (however the `[…]` was written), any other operand by its text; not spans or source text.
/// Two trees [`same_tree`] takes for the same have the same digest but for one case: a
/// reference and an operand that is not one but reads the same (`{[b x]}`, braced).
pub(crate) fn fingerprint(tree: &Expr) -> u128 {
    let mut d = Digest::new(b'E');
    encode(tree, &mut d);
    d.finish()
}

/// Writes `e` to `d` for [`fingerprint`]: a tag per node, then its contents.
fn encode(e: &Expr, d: &mut Digest) {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, || match &e.kind {
        ExprKind::Number(x) => {
            d.byte(b'N').text(x);
        }
        ExprKind::Operand(parts) => match operand_words(parts) {
            Some([(name, _), (attr, _)]) => {
                d.byte(b'R').text(&name).text(&attr);
            }
            None => {
                let mut written = String::new();
                write_parts(parts, &mut written);
                d.byte(b'O').text(&written);
            }
        },
        ExprKind::Unary(op, x) => {
            d.byte(b'U').text(op.symbol());
            encode(x, d);
        }
        ExprKind::Binary(op, a, b) => {
            d.byte(b'B').text(op.symbol());
            encode(a, d);
            encode(b, d);
        }
        ExprKind::Ternary(c, a, b) => {
            d.byte(b'T');
            encode(c, d);
            encode(a, d);
            encode(b, d);
        }
        ExprKind::Call(f, arguments) => {
            d.byte(b'C').text(f).count(arguments.len());
            arguments.iter().for_each(|a| encode(a, d));
        }
    })
}

fn same_tree(a: &Expr, b: &Expr) -> bool {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, || match (&a.kind, &b.kind) {
        (ExprKind::Number(x), ExprKind::Number(y)) => x == y,
        (ExprKind::Operand(_), ExprKind::Operand(_)) => same_operand(a, b),
        (ExprKind::Unary(p, x), ExprKind::Unary(q, y)) => p == q && same_tree(x, y),
        (ExprKind::Binary(p, x1, x2), ExprKind::Binary(q, y1, y2)) => {
            p == q && same_tree(x1, y1) && same_tree(x2, y2)
        }
        (ExprKind::Ternary(x1, x2, x3), ExprKind::Ternary(y1, y2, y3)) => {
            same_tree(x1, y1) && same_tree(x2, y2) && same_tree(x3, y3)
        }
        (ExprKind::Call(f, xs), ExprKind::Call(g, ys)) => {
            f == g && xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| same_tree(x, y))
        }
        _ => false,
    })
}

/// Whether two operands are the same: two references by name and attribute (compared as
/// written, without copying them: a scene comparison meets one or more in every force and
/// link), anything else by its text.
fn same_operand(a: &Expr, b: &Expr) -> bool {
    if let (ExprKind::Operand(x), ExprKind::Operand(y)) = (&a.kind, &b.kind) {
        if let (Some([(n, _), (r, _)]), Some([(m, _), (s, _)])) =
            (operand_words(x), operand_words(y))
        {
            return n == m && r == s;
        }
    }
    let mut x = String::new();
    let mut y = String::new();
    write_expr(a, &mut x);
    write_expr(b, &mut y);
    x == y
}

/// The precedence of a node as an operand: atoms bind tightest, `?:` loosest.
fn binding(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Binary(op, _, _) => op.precedence() + 1,
        ExprKind::Ternary(..) => 0,
        ExprKind::Unary(..) => UNARY_PRECEDENCE + 1,
        _ => UNARY_PRECEDENCE + 2,
    }
}

fn write_operand(e: &Expr, min: u8, out: &mut String) {
    if binding(e) < min {
        out.push('(');
        write_expr(e, out);
        out.push(')');
    } else {
        write_expr(e, out);
    }
}

fn write_expr(e: &Expr, out: &mut String) {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, || match &e.kind {
        ExprKind::Number(text) => out.push_str(text),
        ExprKind::Operand(parts) => write_parts(parts, out),
        ExprKind::Unary(op, x) => {
            out.push_str(op.symbol());
            write_operand(x, UNARY_PRECEDENCE + 1, out);
        }
        ExprKind::Binary(op, a, b) => {
            let p = op.precedence() + 1;
            // `**` groups to the right, the others to the left.
            let (left, right) = if op.is_right_associative() {
                (p + 1, p)
            } else {
                (p, p + 1)
            };
            write_operand(a, left, out);
            let _ = write!(out, " {} ", op.symbol());
            write_operand(b, right, out);
        }
        ExprKind::Ternary(c, a, b) => {
            write_operand(c, 1, out);
            out.push_str(" ? ");
            write_operand(a, 1, out);
            out.push_str(" : ");
            write_expr(b, out);
        }
        ExprKind::Call(name, arguments) => {
            out.push_str(name);
            out.push('(');
            for (i, a) in arguments.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_expr(a, out);
            }
            out.push(')');
        }
    })
}

fn write_parts(parts: &[Part], out: &mut String) {
    for part in parts {
        match part {
            Part::Text { text, .. } => out.push_str(text),
            Part::Variable { name, .. } => {
                out.push('$');
                out.push_str(name);
            }
            Part::Command { script, .. } => {
                out.push('[');
                for (i, command) in script.commands.iter().enumerate() {
                    if i > 0 {
                        out.push_str("; ");
                    }
                    let words: Vec<Cow<'_, str>> = command
                        .words
                        .iter()
                        .map(|w| w.literal().unwrap_or(Cow::Borrowed("…")))
                        .collect();
                    out.push_str(&words.join(" "));
                }
                out.push(']');
            }
        }
    }
}
