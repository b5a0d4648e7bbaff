//! Located errors as the outside world sees them, and their GNU-style diagnostic form.
//!
//! Inside the interpreter an error travels as an [`Exception`](super::Exception) (which also
//! carries `break`, `continue` and `return`); what leaves [`Interp::eval_source`]
//! (super::Interp::eval_source) or the parser is an [`Error`]: a message, the span of the text it
//! is about, and the errorInfo-like trail of the commands it passed through.

use super::span::{LineIndex, Span};
use std::fmt;

/// A parse or evaluation error located in the scene text.
#[derive(Clone, Debug, PartialEq)]
pub struct Error {
    /// What went wrong, in tclsh's wording where tclsh has one.
    pub message: String,
    /// The offending word, or the innermost command that was running.
    pub span: Span,
    /// The trail of commands the error passed through (Tcl's `errorInfo`), starting with the
    /// message itself. Empty for parse errors.
    pub trail: String,
}

impl Error {
    pub fn new(message: impl Into<String>, span: Span) -> Error {
        Error {
            message: message.into(),
            span,
            trail: String::new(),
        }
    }

    /// This error as `FILE:LINE:COL: error: MESSAGE`, `text` being the text the span refers to.
    pub fn diagnostic(&self, file: &str, text: &str) -> String {
        diagnostic(file, text, self.span, &self.message)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at bytes {})", self.message, self.span)
    }
}

impl std::error::Error for Error {}

/// Formats a message about `span` of `text` as a GNU-style diagnostic,
/// `FILE:LINE:COL: error: MESSAGE`, with a 1-based line and column (columns count characters).
pub fn diagnostic(file: &str, text: &str, span: Span, message: &str) -> String {
    let at = LineIndex::new(text).line_col(text, span.start);
    format!("{file}:{at}: error: {message}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagnostic_is_gnu_style_and_one_based() {
        let text = "set a 1\nfoo bar\n";
        let e = Error::new("invalid command name \"foo\"", Span::new(8, 15));
        assert_eq!(
            e.diagnostic("s.asg", text),
            "s.asg:2:1: error: invalid command name \"foo\""
        );
    }
}
