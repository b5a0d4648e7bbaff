//! What a picture of a scene shows besides the bodies, and from where.

use super::palette;
use crate::render::camera::{Bounds, Camera};
use crate::render::frame::{Looks, Rgba};
use crate::scene::handles::{HandleKind, HandleScales};

/// Where the picture is seen from.
#[derive(Debug, Clone, PartialEq)]
pub enum CameraChoice {
    /// The scene's `camera` element at the frame's time; without one, the default view fitted
    /// to the bodies at that time.
    Scene,
    /// The default view (looking down −z, y up) fitted to these bounds: a movie fits once to
    /// the bounds of its whole motion so the view stays still.
    Fit(Bounds),
    /// This camera, as is.
    Given(Camera),
}

/// The options of a picture of a scene. The default shows the bodies, links and lights from
/// the scene's camera, with every look (ground, grid, shadows, anti-aliasing) but no handles,
/// vectors or trajectories.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameOptions {
    /// Draw the bodies as their edges only.
    pub wireframe: bool,
    /// The kinds of handle to show.
    pub handles: Vec<HandleKind>,
    /// The handle (an index into `scene::handles::handles`) under the pointer or being dragged.
    pub highlighted_handle: Option<usize>,
    /// Bodies drawn as selected (indices into the scene's bodies).
    pub selected_bodies: Vec<usize>,
    /// The body under the pointer (an index into the scene's bodies).
    pub hovered_body: Option<usize>,
    /// Ground, grid, shadows, anti-aliasing, gizmo.
    pub looks: Looks,
    /// Where the bodies move over the motion shown: the ground lies under these bounds, so
    /// it stays put while they move. `None`: the bounds a fitted camera is given, else the
    /// bodies' at the picture's time.
    pub stage: Option<Bounds>,
    /// Links as lines between their end points.
    pub links: bool,
    /// Velocity, angular velocity, force and torque vectors as arrows.
    pub vectors: bool,
    /// Trajectories as curves with their control points.
    pub trajectories: bool,
    /// How long vectors and vector handles are drawn.
    pub scales: HandleScales,
    pub background: Rgba,
    pub camera: CameraChoice,
}

impl Default for FrameOptions {
    fn default() -> Self {
        FrameOptions {
            wireframe: false,
            handles: Vec::new(),
            highlighted_handle: None,
            selected_bodies: Vec::new(),
            hovered_body: None,
            looks: Looks::default(),
            stage: None,
            links: true,
            vectors: false,
            trajectories: false,
            scales: HandleScales::default(),
            background: palette::BACKGROUND,
            camera: CameraChoice::Scene,
        }
    }
}

impl FrameOptions {
    /// Whether handles of `kind` are drawn (and picked): the kinds of [`FrameOptions::handles`],
    /// the camera's only in a picture not seen through the scene's camera, where they would sit
    /// at the eye and in the middle of the picture.
    pub fn shows_handles(&self, kind: HandleKind) -> bool {
        self.handles.contains(&kind) && !(kind.is_camera() && self.camera == CameraChoice::Scene)
    }

    /// Options for the editor: every handle, vector and trajectory shown, with the gizmo.
    pub fn editing(scales: HandleScales) -> FrameOptions {
        FrameOptions {
            handles: HandleKind::ALL.to_vec(),
            looks: Looks {
                gizmo: true,
                ..Looks::ALL
            },
            vectors: true,
            trajectories: true,
            scales,
            ..FrameOptions::default()
        }
    }
}
