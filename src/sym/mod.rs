//! Symbolic expressions: simplification, differentiation and compilation to an evaluation tape.

mod build;
mod diff;
mod display;
mod error;
mod eval;
mod from_ast;
mod hash;
mod number;
mod ops;
mod pool;
#[cfg(test)]
mod proptests;
mod symbols;
mod tape;
#[cfg(test)]
mod test_expr;
mod vec3;

pub use diff::JacobianEntry;
pub use display::Shown;
pub use error::Error;
pub use from_ast::from_ast;
pub use ops::{Binary, Notation, Unary};
pub use pool::{Node, Pool, Symbol, Term};
pub use tape::{Tape, TapeError, Workspace};
pub use vec3::{Mat3, Quat, Vec3};
