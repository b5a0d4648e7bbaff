//! Live mode (issue 8 §3): the scene advancing in real time while the user pulls bodies with
//! the mouse and pushes them with keys, and recording a live run as a trajectory.
//!
//! A [`SceneAdvance`] is the driver's scene module. It owns an interactive compilation of the
//! scene ([`Model::compile_interactive`](crate::sim::physics::Model::compile_interactive)) and
//! a [`Simulation`](crate::sim::Simulation) of it whose end time moves on by the driver's
//! fixed dt at every update, so live motion comes from the same equations, integrator and
//! scheduler as a precomputed run. Pulls and pushes are external inputs of those equations:
//! [`LiveControls`] changes their values between steps, never the equations. Collisions are
//! handled by the same [`Collider`](crate::sim::collide::Collider) as in a precomputed run,
//! its windows closing at the end of every update, so what an update shows has its
//! collisions handled; the controls report them ([`LiveControls::collisions`]).
//!
//! ```
//! use asgard::live::{scene::{LiveOptions, SceneAdvance}, Module};
//! use asgard::scene::evaluate;
//! use nalgebra::Vector3;
//!
//! let scene = evaluate(
//!     "shape_set ball desc {sub pos {0 0 0} sphere 0.5}
//!      body b shape ball init_pos {0 0 0} mass 2",
//! )?;
//! let options = LiveOptions { record: vec![0], ..LiveOptions::default() };
//! let (mut advance, controls) = SceneAdvance::new(&scene, &options)?;
//! controls.grab(0, Vector3::zeros())?;
//! controls.move_target(Vector3::new(1.0, 0.0, 0.0))?;
//! for _ in 0..100 {
//!     advance.update(0.01); // the driver does this in real time
//! }
//! let line = controls.spring_line().unwrap();
//! assert!((line.from - line.to).norm() < 0.01); // after ten time constants
//! let trajectory = controls.recording().to_trajectory(0)?;
//! assert!(trajectory.starts_with("trajectory b_recorded points {{0 0 0 0} "));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod advance;
mod controls;
pub mod fit;
mod recording;

pub use advance::{LiveOptions, SceneAdvance, DEFAULT_PULL_TIME_CONSTANT};
pub use controls::{ControlError, LiveControls, SpringLine};
pub use recording::{rotation_name, Recording, RecordingError};
