//! The scene language: a sandboxed dialect of Tcl in which every word keeps its place in the text.
//!
//! We do not embed an existing Tcl: the document needs byte spans for every word (errors at the
//! offending word, literals rewritten in place by graphical edits), and the interpreter must be
//! sandboxed by construction with hard limits instead of trusting a general-purpose one.

pub mod ast;
pub mod span;
