//! From a scene to equations of motion (dissertation 5.1), and the bodies' motion back.
//!
//! [`Model::compile`] turns a [`Scene`](crate::scene::Scene) into the simulator's terms:
//!
//! - every moving body gets thirteen state variables with consecutive ids (see [`body`](BodyVars)):
//!   position `x y z`, quaternion `qw qx qy qz`, velocity `dx dy dz`, world angular momentum
//!   `Lx Ly Lz`, named `BODY.VAR`. Fixed bodies get none. Mass, centre of mass and inertia come
//!   from the shape at unit density unless given;
//! - forces, torques and links become symbolic expressions of time,
//!   the state and trajectory values, summed per body into `x' = dx`, `q' = ½ ω ⊗ q`,
//!   `v' = F/m`, `L' = τ` with `ω = R I⁻¹ Rᵀ L`;
//! - what each equation reads gives the reference graph that partitioning splits (a free body
//!   under a constant force falls apart into ten small components, linked bodies form one);
//! - trajectories attached to bodies become prescriptions of their variables, or for an
//!   angular velocity a switch in the equations ([`trajectory`]); `[T x]` and trajectory-valued
//!   forces and links read the curves as time-dependent inputs.
//!
//! [`Model::compile_interactive`] adds external inputs through which bodies are pushed and
//! pulled while a simulation runs (live mode, [`interaction`]): values set between steps,
//! read by the compiled equations, so nothing is recompiled when they change.
//!
//! [`Model::simulation`] creates a [`Simulation`](crate::sim::Simulation); its factory compiles
//! each component's derivatives and Jacobian into one tape. [`Model::motion`] reads the
//! result per body ([`SceneMotion`], [`BodySampler`] for playback), also while a worker
//! thread still computes it. Failures come back as [`PhysicsError`]s that name the bodies,
//! the component and the time, or the offending word of the scene text.
//!
//! ```
//! use asgard::scene::evaluate;
//! use asgard::sim::physics::Model;
//!
//! let scene = evaluate(
//!     "simulator finish 1 step 0.1
//!      shape_set ball desc {sub pos {0 0 0} sphere 0.5}
//!      body b shape ball init_pos {0 10 0} init_dpos {1 0 0} mass 2
//!      force body b x 0 y {-9.81 * [b mass]} z 0",
//! )?;
//! let model = Model::compile(&scene)?;
//! let mut simulation = model.simulation(model.options())?;
//! simulation.run_to_end().map_err(|e| model.describe(e, Some(simulation.partition())))?;
//! let state = model.motion(simulation.motion()).state(0, 1.0).unwrap();
//! assert!((state.position.y - (10.0 - 9.81 / 2.0)).abs() < 1e-9);
//! assert!((state.position.x - 1.0).abs() < 1e-12);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # For collision handling
//!
//! Body `i`'s variables are `model.bodies()[i].vars` (`None` when fixed); the velocity is at
//! offsets 7..10 and the angular momentum at 10..13 of the block ([`BodyVars::velocity`],
//! [`BodyVars::momentum`]). An impulse `J` at world arm `r` from the centre of mass changes
//! them by `J / m` and `r × J` ([`crate::sim::BackUp`] jumps). While [`Model::is_constrained`]
//! the body counts as infinitely massive. Shapes are placed with the centre of mass at
//! [`BodyModel::center`] in the shape set's coordinates.

mod assemble;
mod bodies;
pub mod body;
mod body_index;
mod error;
mod factory;
mod forces;
pub mod interaction;
mod keys;
mod kinematics;
mod layout;
mod links;
mod model;
mod motion;
mod readers;
mod rotation;
mod switches;
mod symbols;
#[cfg(test)]
mod tests;
pub mod trajectory;
mod update;
pub mod work;

pub use bodies::Bodies;
pub use body::{BodyModel, BodyVars, InitialState, BODY_VARIABLES};
pub use error::{PhysicsError, SimulationFailure};
pub use interaction::{InteractionInputs, Pull, Pullable};
pub use model::Model;
pub use motion::{BodySampler, BodyState, BodyTrack, SceneMotion};
pub use rotation::angular_velocity_from_rate;
pub use trajectory::Constraint;
pub use update::{BodyMoves, ModelUpdate};
pub use work::{ElementKind as WorkKind, Work};
pub(crate) use work::{FreeLoads, Reuse};
