//! The scene language: a sandboxed dialect of Tcl in which every word keeps its place in the text.
//!
//! We do not embed an existing Tcl: the document needs byte spans for every word (errors at the
//! offending word, literals rewritten in place by graphical edits), and the interpreter must be
//! sandboxed by construction with hard limits instead of trusting a general-purpose one.
//!
//! The pieces, in the order text flows through them:
//! - [`parse`] turns text into the [`ast`] (one level at a time: braced bodies stay text until
//!   they run, and are then parsed at their own offset so their spans are still positions in the
//!   whole text). [`parse_expr`] does the same for `expr` expressions.
//! - `code` compiles a parse tree into the form the interpreter runs, cached on the [`Value`]
//!   that holds the script text, so loop and proc bodies are parsed once.
//! - [`value`] is Tcl's "everything is a string" with cached list and number forms and an
//!   optional origin span for unmodified literals of the text.
//! - [`interp`] evaluates: frames, variables, procs, errors, limits, and the embedding API that
//!   the scene's element commands are built on. The built-in commands live in `cmds`.
//! - [`budget`] measures the memory an evaluation holds (through the process's counting
//!   allocator) and its time, for the limits, where the parser and built-ins can poll them.
//! - [`error`] is the located error that leaves the interpreter, printable as a GNU-style
//!   diagnostic.

pub mod ast;
pub mod budget;
mod cmds;
mod code;
pub mod error;
pub(crate) mod fxhash;
pub mod interp;
pub mod list;
pub mod number;
pub mod operator;
pub mod parse;
pub mod span;
pub mod value;

pub use cmds::builtin_names;
pub use error::{diagnostic, Error};
pub use interp::{Arg, Exception, Interp, Limits, NativeFn, Output};
pub use parse::{parse_expr, parse_script};
pub use span::{LineCol, LineIndex, Span};
pub use value::Value;
