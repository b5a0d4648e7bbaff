//! The scene: the elements a scene text defines, with the spans that tie them to the text.
//!
//! - [`evaluate`] runs a scene text in the sandboxed interpreter with the element commands
//!   registered and returns the [`Scene`] (or the located [`SceneError`] that stopped it).
//! - [`model`] is the evaluated scene that the simulator, the renderer and the editor read.

mod build;
mod color;
mod curve;
mod describe;
mod diff;
mod element;
mod error;
mod expression;
pub mod handles;
mod json;
mod mass;
pub mod model;
mod patch;
pub mod shapes;
mod source_map;
pub mod state;

pub use curve::BezierSegment;
pub use describe::describe;
pub use diff::{diff, Aspects, ChangeKind, ElementChange, SceneDiff};
pub use element::{ElementKind, ElementRef};
pub use error::{SceneError, Warning};
pub use expression::Reference;
pub use json::{error_json, scene_json};
pub use model::Scene;
pub use patch::{
    format_number, patch, patch_with_digits, EditValue, PatchError, Replacement, TextEdit,
    DRAG_DIGITS,
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
