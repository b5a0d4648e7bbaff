//! Motion simulation (chapter 5): the numerical core.
//!
//! A scene becomes first-order equations `dx_i/dt = f_i(t, x)` (about thirteen per body). This
//! module integrates them, independent of where they come from:
//!
//! 1. [`system`]: the physics layer describes the variables (ids, display names such as
//!    `b1.x`, initial values), what each equation reads, prescribed intervals (trajectory
//!    constraints) and breakpoints in a [`System`], and implements an [`EquationFactory`] that
//!    builds, for any set of variables, a [`ComponentEquations`] evaluating `f` and the
//!    Jacobian with respect to those variables.
//! 2. [`graph`]: the reference graph is split into strongly connected components (iterative
//!    Tarjan); component ids are a topological order of the component DAG.
//! 3. [`integrate`]: each component takes its own adaptive steps with an embedded error
//!    estimate, never across a breakpoint: explicit (Dormand–Prince 5(4)) until it is found
//!    stiff, then implicit (ESDIRK4(3)6L[2]SA) solved by Newton–Raphson with its Jacobian
//!    ([`linalg`]: dense LU for small components, sparse LU for large ones).
//! 4. [`schedule`]: a [`Simulation`] advances the components event-driven — a component may
//!    step to `t` only when everything it reads is computed up to `t`, and the one furthest
//!    behind goes first — or all in one component ([`Strategy::Combined`]) or one after another
//!    ([`Strategy::Sequential`]). A step observer (collision detection) sees every step and may
//!    back components up to an earlier time with velocity jumps ([`BackUp`]); an edit resets
//!    only the components it affects ([`Simulation::update`]).
//! 5. [`track`] and [`motion`]: results are piecewise-linear tracks, one time array per
//!    component, readable through a [`Motion`] handle from any thread while a run goes on
//!    ([`Simulation::spawn`] runs on a worker thread with progress and cancellation).
//! 6. [`collide`]: collision detection over time, impulses and back-up, as the simulation's
//!    step observer; [`Solver`] owns a scene's model, simulation and collisions together and
//!    brings them up to date incrementally after an edit, within the [`RunLimits`] on output
//!    steps and memory ([`limits`]).
//!
//! # Plugging in equations
//!
//! The factory is called once per component with the component's own variables and the
//! variables of other components it reads; both lists fix the slot order of
//! [`ComponentEquations::eval`]. Declare the Jacobian's structure once: dense for small
//! components, the list of non-zero entries for large ones. Here the equations are
//! `x_i' = -k_i x_i + x_{i-1}` along a chain, so every variable is its own component and each
//! reads its predecessor as an input:
//!
//! ```
//! use asgard::sim::{
//!     ComponentEquations, ComponentSpec, EquationFactory, JacobianPattern, JacobianSink,
//!     Options, Simulation, System, VarId,
//! };
//!
//! struct Chain {
//!     rates: Vec<f64>,
//! }
//!
//! /// One component's evaluator: for each own variable, its rate and where its predecessor is.
//! struct Links {
//!     rows: Vec<(f64, Slot)>,
//! }
//!
//! #[derive(Clone, Copy)]
//! enum Slot {
//!     None,
//!     Own(usize),
//!     Input(usize),
//! }
//!
//! impl EquationFactory for Chain {
//!     fn build(&self, spec: &ComponentSpec<'_>) -> Result<Box<dyn ComponentEquations>, String> {
//!         let slot = |v: VarId| {
//!             if let Some(k) = spec.own.iter().position(|&o| o == v) {
//!                 Slot::Own(k)
//!             } else if let Some(k) = spec.inputs.iter().position(|&i| i == v) {
//!                 Slot::Input(k)
//!             } else {
//!                 Slot::None
//!             }
//!         };
//!         let rows = spec
//!             .own
//!             .iter()
//!             .map(|&v| {
//!                 let previous = v.0.checked_sub(1).map_or(Slot::None, |p| slot(VarId(p)));
//!                 (self.rates[v.index()], previous)
//!             })
//!             .collect();
//!         Ok(Box::new(Links { rows }))
//!     }
//! }
//!
//! impl ComponentEquations for Links {
//!     fn jacobian_pattern(&self) -> JacobianPattern {
//!         JacobianPattern::Dense
//!     }
//!
//!     fn eval(&mut self, _t: f64, own: &[f64], inputs: &[f64], f: &mut [f64], jac: &mut JacobianSink<'_>) {
//!         for (i, &(rate, previous)) in self.rows.iter().enumerate() {
//!             let drive = match previous {
//!                 Slot::None => 0.0,
//!                 Slot::Own(k) => {
//!                     jac.set(i, k, 1.0);
//!                     own[k]
//!                 }
//!                 Slot::Input(k) => inputs[k],
//!             };
//!             f[i] = -rate * own[i] + drive;
//!             jac.set(i, i, -rate);
//!         }
//!     }
//! }
//!
//! let mut system = System::new(0.0, 2.0);
//! let mut previous = None;
//! for i in 0..3 {
//!     let v = system.add_variable(format!("x{i}"), if i == 0 { 1.0 } else { 0.0 });
//!     if let Some(p) = previous {
//!         system.set_reads(v, &[p]);
//!     }
//!     previous = Some(v);
//! }
//! let factory = Chain { rates: vec![1.0, 2.0, 3.0] };
//! let mut sim = Simulation::new(system, &factory, Options::default()).unwrap();
//! assert_eq!(sim.partition().len(), 3);
//! sim.run_to_end().unwrap();
//! let x0 = sim.motion().value(VarId(0), 1.0).unwrap();
//! assert!((x0 - (-1.0f64).exp()).abs() < 1e-4);
//! println!("{}", sim.statistics());
//! ```
//!
//! # Conventions
//!
//! - Tolerances ([`StepControl`]) bound each step's estimated local truncation error and,
//!   optionally, the error of playing the track back by linear interpolation; the global error
//!   is at most the sum of the local errors.
//! - A value that jumps (a collision's velocity change, the start of a prescription) has two
//!   points at the same time in its track; lookups at that time return the value after the
//!   jump.
//! - Variable ids are stable across incremental updates; component ids are not (an edit may
//!   repartition), so collision bookkeeping should be kept by variable.
//! - Results do not depend on the order in which ready components are stepped: every
//!   strategy computes the same tracks for the same partition.

pub mod collide;
pub mod energy;
pub mod error;
pub mod graph;
pub mod integrate;
pub mod limits;
pub mod linalg;
pub mod memory;
pub mod motion;
pub mod options;
pub mod physics;
pub mod run;
pub mod schedule;
pub mod solver;
pub mod stats;
pub mod system;
pub mod track;

pub use error::{ErrorKind, SimError};
pub use graph::{ComponentId, Partition};
pub use integrate::{StepControl, Tolerance};
pub use limits::RunLimits;
pub use motion::{Motion, Sampler};
pub use options::{Options, Strategy};
pub use run::{Progress, RunControl, RunOutcome, Worker};
pub use schedule::{
    BackUp, Changes, Simulation, StepContext, StepObserver, StepReport, Truncation, UpdateReport,
};
pub use solver::{Solver, UpdateSummary};
pub use stats::{ComponentStats, Statistics};
pub use system::{
    ClosureEquations, ComponentEquations, ComponentSpec, Equation, EquationFactory,
    JacobianPattern, JacobianSink, Prescription, System, SystemError, VarId,
};
