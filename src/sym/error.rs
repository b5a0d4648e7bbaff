//! The error of turning a parsed expression into a symbolic one.

use crate::lang::span::Span;
use std::fmt;

/// Why an expression cannot become an equation, located at the offending node: an unsupported
/// operator or function, a malformed number, an operand the caller could not resolve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub message: String,
    pub span: Span,
}

impl Error {
    pub fn new(message: impl Into<String>, span: Span) -> Error {
        Error {
            message: message.into(),
            span,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (bytes {})", self.message, self.span)
    }
}

impl std::error::Error for Error {}
