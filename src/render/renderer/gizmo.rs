//! The axis gizmo: in the lower left corner, arrows along the world's x (red), y (green) and
//! z (blue) axes, turned as the view is turned and lettered at their tips, so a viewer always
//! shows which way the scene's axes point.

use super::batches::{turn_from_z, Batches, MeshRef};
use super::gpu::{Instance, LineVertex};
use nalgebra::{Matrix4, Orthographic3, Point3, Translation3, UnitQuaternion, Vector3};
use std::ops::Range;

/// The gizmo's square on the screen, in pixels, and its distance from the picture's corner.
const SIZE_PIXELS: f64 = 92.0;
const MARGIN_PIXELS: f64 = 6.0;
/// Half the side of the gizmo's orthographic view, in axis lengths.
const HALF_VIEW: f64 = 1.45;
/// Shaft and arrowhead sizes, in axis lengths.
pub(super) const SHAFT_RADIUS: f64 = 0.075;
const HEAD_LENGTH: f64 = 0.34;
/// The arrowhead mesh is a cone of radius 0.35 and height 1: a head 0.34 long, 0.12 wide.
const HEAD_SCALE: f64 = HEAD_LENGTH;
/// Where the letters sit along their axes, and their half height.
const LETTER_AT: f64 = 1.28;
const LETTER_HALF: f64 = 0.13;

/// One axis of the gizmo: its direction, colour, and its letter as strokes (x0, y0, x1, y1)
/// in a box from −1 to 1.
struct Axis {
    direction: Vector3<f64>,
    colour: [f32; 4],
    letter: &'static [[f64; 4]],
}

const AXES: [Axis; 3] = [
    Axis {
        direction: Vector3::new(1.0, 0.0, 0.0),
        colour: [0.88, 0.26, 0.24, 1.0],
        letter: &[[-1.0, -1.0, 1.0, 1.0], [-1.0, 1.0, 1.0, -1.0]],
    },
    Axis {
        direction: Vector3::new(0.0, 1.0, 0.0),
        colour: [0.36, 0.72, 0.25, 1.0],
        letter: &[
            [-1.0, 1.0, 0.0, 0.0],
            [1.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, 0.0, -1.0],
        ],
    },
    Axis {
        direction: Vector3::new(0.0, 0.0, 1.0),
        colour: [0.26, 0.48, 0.94, 1.0],
        letter: &[
            [-1.0, 1.0, 1.0, 1.0],
            [1.0, 1.0, -1.0, -1.0],
            [-1.0, -1.0, 1.0, -1.0],
        ],
    },
];

/// The gizmo of one frame: its batches and letter strokes, and how it is seen.
pub(super) struct Gizmo {
    pub batches: Range<usize>,
    pub lines: Range<usize>,
    pub view: Matrix4<f64>,
    pub projection: Matrix4<f64>,
    /// x, y (from the bottom left), width and height in pixels.
    pub viewport: [i32; 4],
}

/// The gizmo for a view turned by `rotation`, in a picture `width` × `height` pixels, its
/// meshes added to `batches` and its letters to `lines`. `None` when the picture is too
/// small to hold it.
pub(super) fn gizmo(
    rotation: &UnitQuaternion<f64>,
    width: u32,
    height: u32,
    batches: &mut Batches,
    lines: &mut Vec<LineVertex>,
) -> Option<Gizmo> {
    let side = SIZE_PIXELS.min(f64::from(width.min(height)) / 3.0).floor();
    if side < 24.0 {
        return None;
    }
    let view = Translation3::new(0.0, 0.0, -4.0).to_homogeneous() * rotation.to_homogeneous();
    let projection =
        Orthographic3::new(-HALF_VIEW, HALF_VIEW, -HALF_VIEW, HALF_VIEW, 1.0, 7.0).to_homogeneous();
    let instance = |model: Matrix4<f64>, colour: [f32; 4]| Instance {
        model: std::array::from_fn(|i| model.as_slice()[i] as f32),
        colour,
        highlight: [0.0; 4],
    };
    let (mut shafts, mut heads) = (Vec::new(), Vec::new());
    let start_lines = lines.len();
    for Axis {
        direction: axis,
        colour,
        letter: strokes,
    } in AXES
    {
        let turn = turn_from_z(&axis).to_homogeneous();
        shafts.push(instance(turn, colour));
        let base = Translation3::from(axis * (1.0 - HEAD_LENGTH)).to_homogeneous();
        heads.push(instance(
            base * turn * Matrix4::new_scaling(HEAD_SCALE),
            colour,
        ));
        // Letters stand upright on the screen, next to the tip.
        let at = view.transform_point(&Point3::from(axis * LETTER_AT));
        let ink = colour.map(|c| c * 0.8);
        for [x0, y0, x1, y1] in strokes {
            for (x, y) in [(x0, y0), (x1, y1)] {
                lines.push(LineVertex {
                    position: [
                        (at.x + x * LETTER_HALF * 0.75) as f32,
                        (at.y + y * LETTER_HALF) as f32,
                        -1.5,
                    ],
                    colour: ink,
                });
            }
        }
    }
    let start = batches.list.len();
    batches.push(MeshRef::Shaft, shafts);
    batches.push(MeshRef::Arrowhead, heads);
    let margin = MARGIN_PIXELS as i32;
    Some(Gizmo {
        batches: start..batches.list.len(),
        lines: start_lines..lines.len(),
        view,
        projection,
        viewport: [margin, margin, side as i32, side as i32],
    })
}
