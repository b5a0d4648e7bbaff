//! Symbolic expressions: simplification, differentiation and compilation to an evaluation tape.
//!
//! The simulator turns a scene into first-order equations `y' = f(t, y)`, integrates them with
//! the trapezoidal rule and Newton–Raphson using the *symbolic* Jacobian, and partitions them by
//! which variables each equation reads (dissertation 5.1-5.2). This module is the algebra it
//! does that with:
//!
//! - [`Pool`] stores expressions as a DAG of hash-consed [`Node`]s: building an expression that
//!   already exists returns the same node, so common subexpressions are stored once. Leaves are
//!   constants and [`Symbol`]s, opaque numbers the caller chooses (state variables, time,
//!   inputs from other components, trajectory values). The constructors (`add`, `mul`, `pow`,
//!   `sin`, `lt`, `select`, …) simplify as they build; see *Simplification* below.
//! - [`from_ast`] turns a parsed Tcl `expr` (a force written in the scene) into a node, calling
//!   back for every operand (`$t`, `[b1 x]`) so the caller decides what it stands for.
//!   Unsupported operators and functions are an [`Error`] located at the offending node.
//! - [`Pool::diff`] differentiates, memoized per (node, symbol) so the many entries of a Jacobian
//!   share work; [`Pool::jacobian`] lists the structurally non-zero entries of a system's
//!   Jacobian; [`Pool::symbols`] gives the symbols a node depends on in constant time.
//! - [`Tape::compile`] turns a list of nodes (say a component's derivatives and its Jacobian
//!   entries) into a flat register program; [`Tape::eval`] runs it without allocating, in a
//!   [`Workspace`] the caller reuses. It computes exactly what [`Pool::eval`] (walking the DAG)
//!   computes, bit for bit, an order of magnitude faster.
//! - [`Vec3`], [`Quat`] and [`Mat3`] hold nodes, for writing the physics with vectors and
//!   quaternions.
//! - [`Pool::display`] writes an expression as Tcl `expr` text, for `--stats` and messages.
//! - [`Pool::import`] copies expressions into another pool (to differentiate and compile them
//!   in a short-lived pool while a large one stays unchanged).
//!
//! # Example
//!
//! A driven, damped oscillator `x'' = -4x - 0.5x' + sin t` as a first-order system, its
//! Jacobian, and one tape that evaluates both:
//!
//! ```
//! use asgard::sym::{Pool, Symbol, Tape};
//!
//! let mut pool = Pool::new();
//! // The caller numbers its symbols: here time is 0, x is 1 and x' is 2.
//! let (t, x, dx) = (Symbol(0), Symbol(1), Symbol(2));
//! let (t_node, x_node, dx_node) = (pool.symbol(t), pool.symbol(x), pool.symbol(dx));
//! let spring = pool.scale(x_node, -4.0);
//! let damping = pool.scale(dx_node, -0.5);
//! let drive = pool.sin(t_node);
//! let acceleration = pool.sum(&[spring, damping, drive]);
//! assert_eq!(pool.display(acceleration).to_string(), "-4*$s1 - 0.5*$s2 + sin($s0)");
//!
//! // y = (x, x'), y' = (x', x''). Only structurally non-zero Jacobian entries are listed.
//! let equations = [dx_node, acceleration];
//! let jacobian = pool.jacobian(&equations, &[x, dx]);
//! assert_eq!(jacobian.len(), 3); // ∂x'/∂x is zero
//! assert_eq!(pool.symbols(acceleration), &[t, x, dx]);
//!
//! // One tape for the equations and the Jacobian; symbol n is read from input slot n.
//! let mut outputs = equations.to_vec();
//! outputs.extend(jacobian.iter().map(|entry| entry.value));
//! let tape = Tape::compile(&pool, &outputs, |symbol| Some(symbol.0 as usize))?;
//! let mut workspace = tape.workspace();
//! let mut values = vec![0.0; outputs.len()];
//! tape.eval(&[0.0, 1.0, 0.25], &mut values, &mut workspace)?;
//! assert_eq!(values, [0.25, -4.125, 1.0, -4.0, -0.5]);
//! # Ok::<(), asgard::sym::TapeError>(())
//! ```
//!
//! A force from the scene text goes through [`from_ast`]; the resolver maps each operand:
//!
//! ```
//! use asgard::lang::ast::{BinaryOp, Expr, ExprKind, Part};
//! use asgard::lang::span::Span;
//! use asgard::sym::{from_ast, Error, Pool, Symbol};
//!
//! // The tree of `-10 * $t`, as the language parser produces it.
//! let leaf = |kind, start, end| Box::new(Expr { span: Span::new(start, end), kind });
//! let t = Part::Variable { name: "t".into(), index: None, span: Span::new(6, 8) };
//! let tree = Expr {
//!     span: Span::new(0, 8),
//!     kind: ExprKind::Binary(
//!         BinaryOp::Mul,
//!         leaf(ExprKind::Number("-10".into()), 0, 3),
//!         leaf(ExprKind::Operand(vec![t]), 6, 8),
//!     ),
//! };
//! let mut pool = Pool::new();
//! let force = from_ast(&mut pool, &tree, |pool, parts, span| match parts {
//!     [Part::Variable { name, .. }] if name == "t" => Ok(pool.symbol(Symbol(0))),
//!     _ => Err(Error::new("only $t may appear here", span)),
//! })?;
//! assert_eq!(pool.eval(force, |_| 0.5), -5.0);
//! # Ok::<(), Error>(())
//! ```
//!
//! # Simplification
//!
//! Sums are stored as `c + Σ aᵢ·tᵢ` and products as `Π bᵢ^eᵢ` with integer exponents, in a
//! canonical order (see [`Term`]). Building therefore folds constants, applies `x+0 = x`,
//! `x*1 = x`, `x*0 = 0`, `x-x = 0`, `x/1 = x`, `0/x = 0`, `x^0 = 1`, `x^1 = x`, `--x = x`,
//! flattens nested sums and products, makes `a*b` and `b*a` one node, and collects like terms
//! (`2x + 3x = 5x`) and powers (`x·x = x²`, `x³/x = x²`). Functions fold on constants; `abs`,
//! `floor` and friends are idempotent; comparisons of a node with itself, logical operators with
//! a constant side and selects with a constant condition or equal branches reduce.
//!
//! These rules treat symbols as ordinary finite numbers. Where IEEE special values behave
//! differently the rule still applies, deliberately: `x*0`, `x-x` and `x/x` (any cancelling
//! powers) give 0, 0 and 1 even if `x` is infinite, NaN or (for `x/x`) zero; `x == x` and
//! `x <= x` give 1 and `x != x` gives 0 even for NaN; `x*0` is +0 whatever the sign of `x`.
//! Constant folding itself is exact IEEE arithmetic (`1/0` is Inf, `0/0` NaN), and rules that
//! would be wrong for ordinary values are not applied: `(x²)^0.5` is not `x`, `sqrt(x)²` is not
//! `x`, and only integer powers of one base combine. Collecting terms reorders additions, and
//! dividing by a constant multiplies by its reciprocal, so results may differ from a literal
//! left-to-right evaluation in the last bits. A multiple of a sum stays factored, `2*(x+1)`,
//! until something is added to it.

mod build;
mod diff;
mod display;
mod error;
mod eval;
mod from_ast;
mod hash;
mod import;
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
