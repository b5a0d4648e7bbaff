//! The executable form of parsed scripts and expressions, cached on the values they came from.
//!
//! The parse tree ([`ast`]) is the public, editable description of the text; running it
//! directly would rebuild every literal word's [`Value`] and re-read every number on each
//! pass of a loop. Compiling turns literal words into ready values (remembering their origin in
//! the text), numbers in expressions into numbers, and keeps variable and command
//! substitutions as a small tree. A compiled script is cached on the [`Value`] holding its text,
//! so a `proc` or loop body is parsed once however often it runs.
//!
//! A script is *located* when its text is an unmodified literal of the scene text: its spans
//! are real positions. Scripts built at run time (`eval "body b$i"`) are not; errors and
//! argument spans inside them fall back to the innermost located command.

use super::ast::{self, BinaryOp, ExprKind, Part, UnaryOp, Word, WordKind};
use super::number::parse_number;
use super::span::Span;
use super::value::Value;
use std::rc::Rc;

/// What a value's code cache holds.
pub(super) enum Compiled {
    Script(Rc<Code>),
    Expr(Rc<ExprCode>),
}

/// A compiled expression with the script context its substitutions run in.
pub(super) struct ExprCode {
    /// A script without commands carrying the expression's source, base and locatedness.
    pub context: Code,
    pub root: CExpr,
}

/// A compiled script.
pub(super) struct Code {
    /// The text the spans point into, starting at byte `base` (for the errorInfo trail).
    pub source: Rc<str>,
    pub base: usize,
    pub located: bool,
    pub commands: Vec<CCommand>,
}

impl Code {
    /// The source text of a span of this script.
    pub fn text_of(&self, span: Span) -> &str {
        let start = span.start.saturating_sub(self.base).min(self.source.len());
        let end = span
            .end
            .saturating_sub(self.base)
            .clamp(start, self.source.len());
        self.source.get(start..end).unwrap_or("")
    }

    /// The text of a command as tclsh quotes it in errorInfo: its words and the blanks after
    /// them, up to its terminator.
    pub fn text_of_command(&self, span: Span) -> &str {
        let text = self.text_of(span);
        let start = span.start.saturating_sub(self.base).min(self.source.len());
        let end = start + text.len();
        let blanks = self.source.as_bytes()[end..]
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count();
        &self.source[start..end + blanks]
    }

    /// The 1-based line within this script of byte `offset` of the text.
    pub fn line_of(&self, offset: usize) -> usize {
        let upto = offset.saturating_sub(self.base).min(self.source.len());
        1 + self.source.as_bytes()[..upto]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
    }
}

pub(super) struct CCommand {
    pub span: Span,
    pub words: Vec<CWord>,
}

pub(super) struct CWord {
    pub span: Span,
    pub expand: bool,
    /// No substitution: braced, or plain text with at most backslash sequences.
    pub literal: bool,
    pub subst: Subst,
}

/// How to compute a word's (or an array index's, or an expression operand's) value.
pub(super) enum Subst {
    /// Fixed text.
    Const(Value),
    /// Exactly one variable or command substitution: its value is used as it is.
    One(CPart),
    /// Several parts concatenated.
    Concat(Vec<CPart>),
}

pub(super) enum CPart {
    Text(Rc<str>),
    Var(VarRef),
    Script(Rc<Code>),
}

pub(super) struct VarRef {
    pub name: Rc<str>,
    pub index: Option<Box<Subst>>,
    pub span: Span,
}

/// A compiled `expr` expression.
pub(super) struct CExpr {
    pub kind: CExprKind,
}

pub(super) enum CExprKind {
    /// A literal number or boolean word.
    Const(Value),
    Subst(Subst),
    Unary(UnaryOp, Box<CExpr>),
    Binary(BinaryOp, Box<CExpr>, Box<CExpr>),
    Ternary(Box<CExpr>, Box<CExpr>, Box<CExpr>),
    Call(Rc<str>, Vec<CExpr>),
}

/// Compiles a parsed script. `source` is the text of the script, `base` its offset in the
/// scene text; `located` tells whether spans are real positions.
pub(super) fn compile_script(
    script: ast::Script,
    source: Rc<str>,
    base: usize,
    located: bool,
) -> Code {
    let mut c = Compiler {
        source: source.clone(),
        base,
        located,
    };
    let commands = c.commands(script);
    Code {
        source,
        base,
        located,
        commands,
    }
}

/// Compiles a parsed expression (see [`compile_script`] for the arguments).
pub(super) fn compile_expr(
    expr: ast::Expr,
    source: Rc<str>,
    base: usize,
    located: bool,
) -> ExprCode {
    let root = Compiler {
        source: source.clone(),
        base,
        located,
    }
    .expr(expr);
    ExprCode {
        context: Code {
            source,
            base,
            located,
            commands: Vec::new(),
        },
        root,
    }
}

/// Compiles loose parts (an embedder's `substitute_parts`, or `subst`'s text).
pub(super) fn compile_parts(
    parts: Vec<Part>,
    source: Rc<str>,
    base: usize,
    located: bool,
) -> Subst {
    Compiler {
        source,
        base,
        located,
    }
    .parts(parts)
}

struct Compiler {
    source: Rc<str>,
    base: usize,
    located: bool,
}

impl Compiler {
    fn commands(&mut self, script: ast::Script) -> Vec<CCommand> {
        script
            .commands
            .into_iter()
            .map(|command| CCommand {
                span: command.span,
                words: command.words.into_iter().map(|w| self.word(w)).collect(),
            })
            .collect()
    }

    /// A value for literal text at `span`, remembering its origin when the text is exactly
    /// what is written there (no backslash sequence or folded newline changed its length).
    fn literal(&self, text: String, span: Span) -> Value {
        if self.located && text.len() == span.len() {
            Value::literal(text, span)
        } else {
            Value::from(text)
        }
    }

    fn word(&mut self, word: Word) -> CWord {
        let literal = word.literal().is_some();
        let subst = match word.kind {
            WordKind::Braced { text, content } => Subst::Const(self.literal(text, content)),
            WordKind::Quoted(parts) | WordKind::Bare(parts) => self.parts(parts),
        };
        CWord {
            span: word.span,
            expand: word.expand,
            literal,
            subst,
        }
    }

    fn parts(&mut self, parts: Vec<Part>) -> Subst {
        if parts.is_empty() {
            return Subst::Const(Value::empty());
        }
        if parts.len() == 1 {
            return match parts.into_iter().next().expect("one part") {
                Part::Text { text, span } => Subst::Const(self.literal(text, span)),
                other => Subst::One(self.part(other)),
            };
        }
        Subst::Concat(parts.into_iter().map(|p| self.part(p)).collect())
    }

    fn part(&mut self, part: Part) -> CPart {
        match part {
            Part::Text { text, .. } => CPart::Text(text.into()),
            Part::Variable { name, index, span } => CPart::Var(VarRef {
                name: name.into(),
                index: index.map(|parts| Box::new(self.parts(parts))),
                span,
            }),
            Part::Command { script, .. } => {
                let commands = self.commands(script);
                CPart::Script(Rc::new(Code {
                    source: self.source.clone(),
                    base: self.base,
                    located: self.located,
                    commands,
                }))
            }
        }
    }

    fn expr(&mut self, expr: ast::Expr) -> CExpr {
        let kind = match expr.kind {
            ExprKind::Number(text) => {
                let value =
                    parse_number(&text).map_or_else(|| Value::from(text), Value::from_number);
                CExprKind::Const(value)
            }
            ExprKind::Operand(parts) => match self.parts(parts) {
                Subst::Const(v) => CExprKind::Const(v),
                other => CExprKind::Subst(other),
            },
            ExprKind::Unary(op, x) => CExprKind::Unary(op, Box::new(self.expr(*x))),
            ExprKind::Binary(op, a, b) => {
                CExprKind::Binary(op, Box::new(self.expr(*a)), Box::new(self.expr(*b)))
            }
            ExprKind::Ternary(c, a, b) => CExprKind::Ternary(
                Box::new(self.expr(*c)),
                Box::new(self.expr(*a)),
                Box::new(self.expr(*b)),
            ),
            ExprKind::Call(name, args) => CExprKind::Call(
                name.into(),
                args.into_iter().map(|a| self.expr(a)).collect(),
            ),
        };
        CExpr { kind }
    }
}
