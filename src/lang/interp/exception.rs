//! The ways a command can end other than by returning a value: errors, `return`, `break` and
//! `continue`. Native commands raise errors with [`Exception::error`] or, to point at one of
//! their arguments, [`Exception::error_at`].

use crate::lang::span::Span;
use crate::lang::value::Value;

/// Tcl's completion codes, as `catch` and `return -code` number them.
pub const CODE_OK: i64 = 0;
pub const CODE_ERROR: i64 = 1;
pub const CODE_RETURN: i64 = 2;
pub const CODE_BREAK: i64 = 3;
pub const CODE_CONTINUE: i64 = 4;

/// A non-normal completion of a command.
#[derive(Clone, Debug)]
pub enum Exception {
    Error(Box<ErrorState>),
    /// `return` (or `return -code …`) travelling up to the proc it leaves.
    Return(Box<ReturnState>),
    Break,
    Continue,
}

/// An error on its way up the evaluation.
#[derive(Clone, Debug)]
pub struct ErrorState {
    pub message: Value,
    /// The offending word, or (filled in on the way up) the innermost command running.
    pub span: Option<Span>,
    /// Tcl's `errorInfo`: the message and the commands the error passed through.
    pub trail: String,
    /// Tcl's `errorCode`.
    pub code: Value,
    /// Whether the trail already names the command that raised the error.
    pub(super) trail_started: bool,
    /// The trail was given by the raising command itself (`error msg info`), which therefore
    /// does not add itself to it.
    pub(super) given_trail: bool,
    /// The line, within the innermost script, of the command that raised the error.
    pub(super) line: usize,
    /// A resource limit was hit: `catch` does not stop it.
    pub limit: bool,
}

impl ErrorState {
    /// Replaces the errorInfo trail (`return -errorinfo`); the commands the error passes
    /// through from here on are added to it.
    pub fn set_trail(&mut self, trail: &str) {
        self.trail = trail.to_string();
        self.trail_started = true;
    }

    /// Replaces the errorInfo trail from the command raising the error (`error msg info`),
    /// which is then not added to it; the commands around it are.
    pub fn set_own_trail(&mut self, trail: &str) {
        self.set_trail(trail);
        self.given_trail = true;
    }
}

#[derive(Clone, Debug)]
pub struct ReturnState {
    pub value: Value,
    /// The completion code the `return` asks for in the proc's caller.
    pub code: i64,
    /// How many proc levels up the code takes effect (`return -level`); 0 means the code is
    /// already in effect (a non-standard completion code such as `return -code 7` made when
    /// leaving a proc).
    pub level: i64,
    /// `-errorinfo`/`-errorcode` given to `return -code error`.
    pub error_info: Option<Value>,
    pub error_code: Option<Value>,
}

impl Exception {
    /// An error with a message, located at the innermost command running.
    pub fn error(message: impl Into<String>) -> Exception {
        Exception::error_value(Value::from(message.into()), None)
    }

    /// An error about the word at `span`.
    pub fn error_at(message: impl Into<String>, span: Span) -> Exception {
        Exception::error_value(Value::from(message.into()), Some(span))
    }

    pub(super) fn error_value(message: Value, span: Option<Span>) -> Exception {
        let trail = message.as_str().to_string();
        Exception::Error(Box::new(ErrorState {
            message,
            span,
            trail,
            code: Value::from("NONE"),
            trail_started: false,
            given_trail: false,
            line: 1,
            limit: false,
        }))
    }

    /// An error for a resource limit: located at the command running, not catchable.
    pub(super) fn limit(message: String) -> Exception {
        let mut e = Exception::error(message);
        if let Exception::Error(state) = &mut e {
            state.limit = true;
        }
        e
    }

    /// The Tcl completion code of this exception.
    pub fn code(&self) -> i64 {
        match self {
            Exception::Error(_) => CODE_ERROR,
            Exception::Return(_) => CODE_RETURN,
            Exception::Break => CODE_BREAK,
            Exception::Continue => CODE_CONTINUE,
        }
    }

    /// The error message, or the value a `return` carries; empty for `break`/`continue`.
    pub fn value(&self) -> Value {
        match self {
            Exception::Error(e) => e.message.clone(),
            Exception::Return(r) => r.value.clone(),
            Exception::Break | Exception::Continue => Value::empty(),
        }
    }
}

/// A "wrong # args" error in tclsh's wording, for the command named by `args[0]`.
pub fn wrong_args(usage: &str) -> Exception {
    Exception::error(format!("wrong # args: should be \"{usage}\""))
}
