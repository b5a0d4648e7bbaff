//! Motion simulation (chapter 5): equations of motion, partitioning into strongly connected
//! components, trapezoidal integration with Newton-Raphson, event-driven scheduling, collisions.

pub mod error;
pub mod graph;
pub mod integrate;
pub mod linalg;
pub mod motion;
pub mod options;
pub mod run;
pub mod schedule;
pub mod stats;
pub mod system;
pub mod track;

pub use error::{ErrorKind, SimError};
pub use graph::{ComponentId, Partition};
pub use integrate::{StepControl, Tolerance};
pub use motion::{Motion, Sampler};
pub use options::{Options, Strategy};
pub use run::{Progress, RunControl, RunOutcome, Worker};
pub use schedule::{
    BackUp, Changes, Simulation, StepContext, StepObserver, StepReport, Truncation, UpdateReport,
};
pub use stats::{ComponentStats, Statistics};
pub use system::{
    ClosureEquations, ComponentEquations, ComponentSpec, Equation, EquationFactory,
    JacobianPattern, JacobianSink, Prescription, System, SystemError, VarId,
};
