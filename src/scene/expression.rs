//! Questions about captured expressions: what they refer to, whether two are the same
//! expression wherever they are written, and how they read.
//!
//! After capture an expression tree holds only numbers, operators, math functions, `$t` and
//! symbolic references `[NAME ATTR]` (see `build::expr`).

use super::model::{ExprVec, Expression};
use crate::lang::ast::{BinaryOp, Expr, ExprKind, Part, UnaryOp, WordKind};
use crate::lang::span::Span;
use std::fmt::Write;

/// A symbolic reference `[NAME ATTR]` in an expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    /// A body or trajectory name.
    pub name: String,
    /// The attribute: `x`, `dy`, `mass`, …
    pub attr: String,
    /// The `[…]` in the text (or the word the expression came from).
    pub span: Span,
}

impl Expression {
    /// The `[NAME ATTR]` references, in the order written.
    pub fn references(&self) -> Vec<Reference> {
        let mut found = Vec::new();
        visit(&self.tree, &mut |e| {
            if let Some((name, attr, span)) = reference(e) {
                found.push(Reference {
                    name: name.to_string(),
                    attr: attr.to_string(),
                    span,
                });
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
    /// `$i` was 1).
    pub fn same_as(&self, other: &Expression) -> bool {
        same_tree(&self.tree, &other.tree)
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

/// `[NAME ATTR]` as name, attribute and span, if the node is one.
fn reference(e: &Expr) -> Option<(&str, &str, Span)> {
    let ExprKind::Operand(parts) = &e.kind else {
        return None;
    };
    let [Part::Command { script, span }] = parts.as_slice() else {
        return None;
    };
    let [command] = script.commands.as_slice() else {
        return None;
    };
    let [name, attr] = command.words.as_slice() else {
        return None;
    };
    Some((word_text(&name.kind)?, word_text(&attr.kind)?, *span))
}

fn word_text(kind: &WordKind) -> Option<&str> {
    match kind {
        WordKind::Bare(parts) | WordKind::Quoted(parts) => match parts.as_slice() {
            [Part::Text { text, .. }] => Some(text),
            _ => None,
        },
        WordKind::Braced { text, .. } => Some(text),
    }
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

fn same_operand(a: &Expr, b: &Expr) -> bool {
    if let (Some((n1, a1, _)), Some((n2, a2, _))) = (reference(a), reference(b)) {
        return n1 == n2 && a1 == a2;
    }
    let mut x = String::new();
    let mut y = String::new();
    write_expr(a, &mut x);
    write_expr(b, &mut y);
    x == y
}

/// How tightly an operator binds (higher is tighter), as in Tcl's `expr`.
fn precedence(op: BinaryOp) -> u8 {
    use BinaryOp::*;
    match op {
        Pow => 12,
        Mul | Div | Mod => 11,
        Add | Sub => 10,
        Shl | Shr => 9,
        Lt | Gt | Le | Ge => 8,
        Eq | Ne => 7,
        StrEq | StrNe => 6,
        In | Ni => 5,
        BitAnd => 4,
        BitXor => 3,
        BitOr => 2,
        And => 1,
        Or => 0,
    }
}

fn operator(op: BinaryOp) -> &'static str {
    use BinaryOp::*;
    match op {
        Pow => "**",
        Mul => "*",
        Div => "/",
        Mod => "%",
        Add => "+",
        Sub => "-",
        Shl => "<<",
        Shr => ">>",
        Lt => "<",
        Gt => ">",
        Le => "<=",
        Ge => ">=",
        Eq => "==",
        Ne => "!=",
        StrEq => "eq",
        StrNe => "ne",
        In => "in",
        Ni => "ni",
        BitAnd => "&",
        BitXor => "^",
        BitOr => "|",
        And => "&&",
        Or => "||",
    }
}

/// The precedence of a node as an operand: atoms bind tightest, `?:` loosest.
fn binding(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Binary(op, _, _) => precedence(*op) + 1,
        ExprKind::Ternary(..) => 0,
        ExprKind::Unary(..) => 14,
        _ => 15,
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
            out.push_str(match op {
                UnaryOp::Neg => "-",
                UnaryOp::Plus => "+",
                UnaryOp::Not => "!",
                UnaryOp::BitNot => "~",
            });
            write_operand(x, 14, out);
        }
        ExprKind::Binary(op, a, b) => {
            let p = precedence(*op) + 1;
            // `**` groups to the right, the others to the left.
            let (left, right) = if *op == BinaryOp::Pow {
                (p + 1, p)
            } else {
                (p, p + 1)
            };
            write_operand(a, left, out);
            let _ = write!(out, " {} ", operator(*op));
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
                    let words: Vec<&str> = command
                        .words
                        .iter()
                        .map(|w| word_text(&w.kind).unwrap_or("…"))
                        .collect();
                    out.push_str(&words.join(" "));
                }
                out.push(']');
            }
        }
    }
}
