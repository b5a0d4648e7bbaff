//! Symbolic expressions: simplification, differentiation and compilation to an evaluation tape.

mod build;
mod diff;
mod display;
mod eval;
mod hash;
pub mod ops;
mod pool;
mod symbols;
mod tape;

pub use diff::JacobianEntry;
pub use display::Shown;
pub use ops::{Binary, Notation, Unary};
pub use pool::{Node, Pool, Symbol, Term};
pub use tape::{Tape, TapeError, Workspace};
