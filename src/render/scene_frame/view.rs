//! The scene's `camera` element as the renderer's viewing state, the default fitted view and
//! the ground grid.

use super::values::Values;
use crate::render::camera::{Bounds, Camera, Viewport};
use crate::render::frame::Grid;
use crate::scene::model::Camera as SceneCamera;
use nalgebra::{Point3, UnitQuaternion, Vector3};

/// The view a `camera` element gives at the time of `values`, or `None` when one of its values
/// cannot be computed then.
///
/// `pos` is where the eye is, `rot` the rotation vector that turns the default view (looking
/// down −z with y up) into the camera's, `center` the point rotation and scaling keep in
/// place, and `scale` magnifies about that centre (at scale 1 the eye is at `pos`).
pub(super) fn scene_camera(camera: &SceneCamera, values: &Values) -> Option<Camera> {
    let eye = values.camera_value(&camera.pos)?;
    let turn = values.camera_value(&camera.rot)?;
    let centre = Point3::from(values.camera_value(&camera.center)?);
    let rotation = UnitQuaternion::from_scaled_axis(turn).inverse();
    Some(Camera {
        translation: -(rotation * (eye - centre.coords)),
        rotation,
        scale: camera.scale.value,
        centre,
        ..Camera::default()
    })
}

/// How far the default view looks down onto the scene and turns about the vertical, in
/// radians: enough to show depth, little enough that motion in the x-y plane reads as such.
const DEFAULT_PITCH: f64 = 0.3;
const DEFAULT_YAW: f64 = -0.35;

/// The default view: from a little above and to the right of the +z axis, fitted to `bounds`.
pub(super) fn fitted(bounds: &Bounds, viewport: &Viewport) -> Camera {
    let mut camera = Camera {
        rotation: UnitQuaternion::from_axis_angle(&Vector3::x_axis(), DEFAULT_PITCH)
            * UnitQuaternion::from_axis_angle(&Vector3::y_axis(), DEFAULT_YAW),
        ..Camera::default()
    };
    camera.fit(bounds, viewport);
    camera
}

/// Lines drawn on each side of the grid's centre lines.
const GRID_HALF_COUNT: f64 = 10.0;

/// A horizontal grid (normal +y) just under `bounds`, its spacing a round number (1, 2 or 5
/// times a power of ten) near a fifth of the bounds' radius.
pub(super) fn ground_grid(bounds: &Bounds, colour: [f32; 4]) -> Grid {
    let radius = bounds.radius().max(1e-3);
    let spacing = round_spacing(radius / 5.0);
    let centre = bounds.centre();
    let snap = |x: f64| (x / spacing).round() * spacing;
    let half_count = (radius * 2.0 / spacing)
        .ceil()
        .clamp(4.0, GRID_HALF_COUNT * 4.0);
    Grid {
        centre: Point3::new(snap(centre.x), bounds.min.y, snap(centre.z)),
        normal: Vector3::y_axis(),
        spacing,
        half_count: half_count as u32,
        colour,
    }
}

/// The round number (1, 2 or 5 × 10ⁿ) nearest above `length`'s magnitude class.
fn round_spacing(length: f64) -> f64 {
    let power = 10f64.powf(length.log10().floor());
    let mantissa = length / power;
    let step = if mantissa < 1.5 {
        1.0
    } else if mantissa < 3.5 {
        2.0
    } else if mantissa < 7.5 {
        5.0
    } else {
        10.0
    };
    step * power
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spacing_is_round() {
        assert_eq!(round_spacing(1.0), 1.0);
        assert_eq!(round_spacing(0.23), 0.2);
        assert_eq!(round_spacing(4.2), 5.0);
        assert_eq!(round_spacing(80.0), 100.0);
    }

    #[test]
    fn grid_lies_under_the_bounds() {
        let bounds = Bounds {
            min: Point3::new(-3.0, -2.0, -1.0),
            max: Point3::new(5.0, 4.0, 1.0),
        };
        let grid = ground_grid(&bounds, [1.0; 4]);
        assert_eq!(grid.centre.y, -2.0);
        assert_eq!(grid.spacing, 1.0);
        let reach = grid.spacing * f64::from(grid.half_count);
        assert!(reach >= 8.0, "grid too small: {reach}");
    }
}
