//! The scene: the elements a scene text defines, with the spans that tie them to the text.
//!
//! - [`evaluate`] runs a scene text in the sandboxed interpreter with the element commands
//!   (`shape_set`, `body`, `force`, `torque`, `link`, `trajectory`, `lightsource`, `camera`,
//!   `simulator`; see docs/LANGUAGE.md) and returns the [`Scene`], or the located
//!   [`SceneError`] that stopped it. Warnings ride along in [`Scene::warnings`].
//! - [`model`] is the evaluated scene the simulator, the renderer and the editor read. Each
//!   element keeps its [`model::Origin`] (the command that made it, and whether that command
//!   made only it) and each editable parameter the span of its literal ([`model::Param`]):
//!   together they are the source map of dissertation 4.2.2. [`ElementRef`] names any element;
//!   [`Scene::element_at`] finds the element a place in the text defines.
//! - [`Scene::highlights`] lists every graphically editable literal with the [`Target`] a drag
//!   addresses; [`patch`] turns a drag into the smallest text edit, or refuses with a reason.
//! - [`diff`] compares two evaluations: elements added, removed and changed, which aspect
//!   (initial values, equations, appearance), and which bodies' equations or initial values
//!   changed, so the simulator resets only those (5.2.5).
//! - Trajectories evaluate as curves ([`model::Trajectory::position`], `velocity`,
//!   `segments` for drawing); shapes convert to `geom` geometry and bodies give their mass
//!   properties ([`Scene::body_mass_properties`]); captured expressions say what they refer
//!   to ([`model::Expression::references`]).
//! - [`camera_aim`] shows the `camera` command as where it stands and what it looks at, and
//!   turns such a placing back into its rotation (the Camera fields, the camera's handles).
//! - [`describe`] and [`scene_json`] are the two reports of `asgard check`.
//! - [`starting_overlap`] finds bodies that start inside each other, which the simulation
//!   refuses (`sim::Solver`) and `asgard check` reports at the later body.
//!
//! # Example
//!
//! A drag of body b3 becomes a text edit, and the diff tells the simulator what to redo:
//!
//! ```
//! use asgard::scene::{diff, evaluate, patch, EditValue, InitVar, Target};
//! use nalgebra::Vector3;
//!
//! let text = "shape_set ball desc {sphere 0.5}\n\
//!             body b3 shape ball init_pos {10 -1.17 0} ;# the ball\n\
//!             force body b3 y {-9.8 * [b3 mass]}\n";
//! let scene = evaluate(text)?;
//! let b3 = scene.bodies.iter().position(|b| b.name == "b3").unwrap();
//! let target = Target::BodyInit { body: b3, var: InitVar::Pos };
//! let drag = EditValue::Vector(Vector3::new(9.5, -1.2, 0.0));
//! let edited = patch(text, &scene, target, drag)?.apply(text);
//! assert!(edited.contains("body b3 shape ball init_pos {9.5 -1.2 0} ;# the ball\n"));
//!
//! let changes = diff(&scene, &evaluate(&edited)?);
//! assert_eq!(changes.changes.len(), 1);
//! assert!(changes.initial_changed.contains("b3"));
//! assert!(changes.equations_changed.is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod attribute;
mod build;
pub mod camera_aim;
mod color;
mod curve;
mod describe;
mod diff;
mod element;
mod error;
mod expression;
mod fingerprint;
pub mod handles;
mod json;
mod mass;
pub mod model;
mod overlap;
mod patch;
pub mod shapes;
mod source_map;
pub mod state;

pub use build::element_words;
pub use curve::BezierSegment;
pub use describe::describe;
pub use diff::{diff, Aspects, ChangeKind, ElementChange, SceneDiff};
pub use element::{ElementKind, ElementRef};
pub use error::{SceneError, Warning};
pub use expression::{reference_words, Reference};
pub use json::{error_json, scene_json};
pub use model::Scene;
pub use overlap::{
    deepest_overlap, starting_overlap, starting_overlap_after_edit, Overlap, OVERLAP_TOLERANCE,
};
pub use patch::{
    patch, patch_with_digits, EditValue, PatchError, Replacement, TextEdit, DRAG_DIGITS,
};
pub use source_map::{Highlight, InitVar, Target};

use crate::lang::Limits;

/// Evaluates a scene text with the default interpreter limits.
pub fn evaluate(text: &str) -> Result<Scene, SceneError> {
    evaluate_with_limits(text, Limits::default())
}

/// Evaluates a scene text with the given limits on commands run, nesting, memory and time.
pub fn evaluate_with_limits(text: &str, limits: Limits) -> Result<Scene, SceneError> {
    build::run(text, limits)
}
