//! The system interface: what the simulator needs to know about a scene's equations.
//!
//! A scene becomes first-order equations `dx_i/dt = f_i(t, x)`, about thirteen per body. The
//! physics layer describes them in two parts:
//!
//! - a [`System`]: the variables ([`VarId`], display names such as `b1.x`, initial values), for
//!   each equation the variables it reads (the reference graph that partitioning uses),
//!   prescribed intervals ([`Prescription`], trajectory constraints) and breakpoints;
//! - an [`EquationFactory`]: given one strongly connected component's own variables and the
//!   other variables it reads, it builds a [`ComponentEquations`] that evaluates `f` and the
//!   Jacobian `∂f/∂own` (dense, or sparse with a pattern declared up front).
//!
//! [`ClosureEquations`] is a factory over hand-written closures, used by the tests and
//! benchmarks and handy for small systems.

mod closure;
mod equations;
mod prescription;
mod variable;

pub use closure::{ClosureEquations, Equation, ScalarFn, Values};
pub(crate) use equations::JacobianLayout;
pub use equations::{
    ComponentEquations, ComponentSpec, EquationFactory, JacobianPattern, JacobianSink,
};
pub use prescription::{PrescribedFn, Prescription};
pub use variable::{System, SystemError, VarId, Variable};
