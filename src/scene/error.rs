//! What evaluating a scene text can report: one located error that stops it, and warnings that
//! do not (dissertation 4.2.3).
//!
//! Errors inside an element command point at the offending word (`body b1 shape box init_pos`
//! points at `init_pos`); other errors point at the innermost command that was running.

use crate::lang::span::{LineCol, LineIndex, Span};
use std::fmt;

/// The error that stopped the evaluation of a scene text.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneError {
    pub message: String,
    /// The offending word, or the command that was running.
    pub span: Span,
    /// Where `span` starts, 1-based.
    pub at: LineCol,
    /// The commands the error passed through (Tcl's errorInfo), for a detailed report.
    pub trail: String,
}

impl SceneError {
    /// An error about `span` of `text`.
    pub fn new(message: impl Into<String>, span: Span, text: &str) -> SceneError {
        SceneError {
            message: message.into(),
            span,
            at: LineIndex::new(text).line_col(text, span.start),
            trail: String::new(),
        }
    }

    pub(crate) fn from_lang(e: crate::lang::Error, text: &str) -> SceneError {
        let mut error = SceneError::new(e.message, e.span, text);
        error.trail = e.trail;
        error
    }

    /// `FILE:LINE:COL: error: MESSAGE`, as compilers print it (the form of
    /// [`crate::lang::diagnostic`], from the line and column already found).
    pub fn diagnostic(&self, file: &str) -> String {
        format!("{file}:{}: error: {}", self.at, self.message)
    }
}

impl fmt::Display for SceneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.at, self.message)
    }
}

impl std::error::Error for SceneError {}

/// Something in a scene that is legal but probably not what the author meant.
#[derive(Clone, Debug, PartialEq)]
pub struct Warning {
    pub message: String,
    pub span: Span,
    pub at: LineCol,
}

impl Warning {
    /// `FILE:LINE:COL: warning: MESSAGE`.
    pub fn diagnostic(&self, file: &str) -> String {
        format!("{file}:{}: warning: {}", self.at, self.message)
    }
}
