//! The parse tree of the scene language: scripts, commands, words and `expr` expressions.
//!
//! Every node carries the [`Span`] of the bytes it was parsed from, in the coordinates of the
//! whole scene text (a fragment parsed later, such as a braced `foreach` body, is parsed with the
//! offset of its braces so its spans still point into the original text). The scene model keeps
//! these spans to report errors at the offending word and to rewrite literals in place.

pub use super::operator::{BinaryOp, UnaryOp};
use super::span::Span;
use std::borrow::Cow;

/// A sequence of commands, as in a file, a braced body or a `[...]` substitution.
#[derive(Clone, Debug, PartialEq)]
pub struct Script {
    pub span: Span,
    pub commands: Vec<Command>,
}

/// One command: its words, the first naming the command.
#[derive(Clone, Debug, PartialEq)]
pub struct Command {
    pub span: Span,
    pub words: Vec<Word>,
}

/// One word of a command.
#[derive(Clone, Debug, PartialEq)]
pub struct Word {
    /// The whole word including any braces, quotes or `{*}` prefix.
    pub span: Span,
    /// `{*}` prefix: the word's value is split as a list into several arguments.
    pub expand: bool,
    pub kind: WordKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum WordKind {
    /// `{...}`: the text between the braces, taken literally (backslash-newline aside).
    /// `content` is the span of that text, without the braces.
    Braced { text: String, content: Span },
    /// `"..."`: substitutions inside quotes. The parts' spans exclude the quotes.
    Quoted(Vec<Part>),
    /// A bare word with substitutions.
    Bare(Vec<Part>),
}

impl Word {
    /// The word's value when it involves no substitution at all (braced, or bare/quoted text
    /// with at most backslash escapes), else `None`. Graphical editing may rewrite only such
    /// literal words. See [`WordKind::literal`].
    pub fn literal(&self) -> Option<Cow<'_, str>> {
        self.kind.literal()
    }
}

impl WordKind {
    /// The text of a word without substitutions: the text between braces, or the text of a
    /// bare or quoted word whose parts are all text. This is the one reader of literal words:
    /// the interpreter's compiler, the scene's element commands and references `[NAME ATTR]`,
    /// patches and the equations all read words through it.
    pub fn literal(&self) -> Option<Cow<'_, str>> {
        match self {
            WordKind::Braced { text, .. } => Some(Cow::Borrowed(text)),
            WordKind::Quoted(parts) | WordKind::Bare(parts) => literal_parts(parts),
        }
    }
}

/// The text of `parts` when every part is text (borrowed when there is one), else `None`.
pub fn literal_parts(parts: &[Part]) -> Option<Cow<'_, str>> {
    match parts {
        [Part::Text { text, .. }] => Some(Cow::Borrowed(text)),
        _ => parts
            .iter()
            .map(|part| match part {
                Part::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect::<Option<String>>()
            .map(Cow::Owned),
    }
}

/// A piece of a bare or quoted word.
#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    /// Literal text after backslash substitution.
    Text { text: String, span: Span },
    /// `$name`, `${name}` or `$name(index)`; the index has its own substitutions.
    Variable {
        name: String,
        index: Option<Vec<Part>>,
        span: Span,
    },
    /// `[script]`.
    Command { script: Script, span: Span },
}

impl Part {
    pub fn span(&self) -> Span {
        match self {
            Part::Text { span, .. } | Part::Variable { span, .. } | Part::Command { span, .. } => {
                *span
            }
        }
    }
}

/// A parsed `expr` expression (Tcl 8.6 grammar). The interpreter evaluates it with Tcl's
/// integer/floating-point rules; the symbolic layer turns the same tree into equations.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub span: Span,
    pub kind: ExprKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A numeric literal as written (`3`, `0x1f`, `2.5e-3`, `Inf`), or a boolean literal.
    Number(String),
    /// An operand with substitutions: `$x`, `$a(i)`, `[cmd]`, `"quoted $text"` or `{braced}`.
    /// Braced operands are a single `Part::Text`.
    Operand(Vec<Part>),
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `cond ? then : else`
    Ternary(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `name(arg, ...)`, a math function.
    Call(String, Vec<Expr>),
}
