//! The scene's `camera` element as the renderer's viewing state, the default fitted view and
//! the ground.

use super::values::Values;
use crate::render::camera::{Bounds, Camera, Viewport};
use crate::render::frame::{Ground, Rgba};
use crate::scene::model::Camera as SceneCamera;
use nalgebra::{Point3, UnitQuaternion, Vector3};

/// A view in the terms of the scene's `camera` element (4.1.7): `pos` is where the eye is,
/// `rot` the rotation vector that turns the default view (looking down −z with y up) into the
/// camera's, `centre` the point that rotation and scaling keep in place, and `scale` the
/// magnification about that centre (at scale 1 the eye is at `pos`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ViewSettings {
    pub pos: Vector3<f64>,
    pub rot: Vector3<f64>,
    pub scale: f64,
    pub centre: Vector3<f64>,
}

impl ViewSettings {
    /// The renderer's viewing state for these settings, with the default lens.
    pub fn camera(&self) -> Camera {
        let rotation = UnitQuaternion::from_scaled_axis(self.rot).inverse();
        Camera {
            translation: -(rotation * (self.pos - self.centre)),
            rotation,
            scale: self.scale,
            centre: Point3::from(self.centre),
            ..Camera::default()
        }
    }

    /// The settings that give `camera` (its lens aside).
    pub fn of(camera: &Camera) -> ViewSettings {
        ViewSettings {
            pos: camera.centre.coords - camera.rotation.inverse() * camera.translation,
            rot: camera.rotation.inverse().scaled_axis(),
            scale: camera.scale,
            centre: camera.centre.coords,
        }
    }
}

/// The view a `camera` element gives at the time of `values`, or `None` when one of its values
/// cannot be computed then.
pub(super) fn scene_camera(camera: &SceneCamera, values: &Values) -> Option<Camera> {
    let settings = ViewSettings {
        pos: values.camera_value(&camera.pos)?,
        rot: values.camera_value(&camera.rot)?,
        scale: camera.scale.value,
        centre: values.camera_value(&camera.center)?,
    };
    Some(settings.camera())
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

/// How far the ground reaches from under the bodies, in radii of their bounds: far enough to
/// fill the picture behind them before it fades.
const GROUND_REACH: f64 = 8.0;

/// A horizontal ground (normal +y) at height `level` under `bounds`, its grid's spacing a
/// round number (1, 2 or 5 times a power of ten) near a fifth of the bounds' radius, the grid
/// aligned with the world's axes (a major line every five through the origin).
pub(super) fn ground(bounds: &Bounds, level: f64, colour: Rgba, line_colour: Rgba) -> Ground {
    let radius = bounds.radius().max(1e-3);
    let spacing = round_spacing(radius / 5.0);
    let centre = bounds.centre();
    let major = 5.0 * spacing;
    let snap = |x: f64| (x / major).round() * major;
    Ground {
        origin: Point3::new(snap(centre.x), level, snap(centre.z)),
        normal: Vector3::y_axis(),
        spacing,
        extent: GROUND_REACH * radius,
        colour,
        line_colour,
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
    fn view_settings_round_trip_through_the_camera() {
        let settings = ViewSettings {
            pos: Vector3::new(1.0, 2.0, 9.0),
            rot: Vector3::new(0.1, -0.4, 0.2),
            scale: 1.5,
            centre: Vector3::new(0.5, 0.0, -1.0),
        };
        let camera = settings.camera();
        let back = ViewSettings::of(&camera);
        assert!((back.pos - settings.pos).norm() < 1e-12);
        assert!((back.rot - settings.rot).norm() < 1e-12);
        assert!((back.centre - settings.centre).norm() < 1e-12);
        assert_eq!(back.scale, 1.5);
        // At scale 1 the eye is at `pos`.
        let unscaled = ViewSettings {
            scale: 1.0,
            ..settings
        }
        .camera();
        assert!((unscaled.eye().coords - settings.pos).norm() < 1e-12);
    }

    #[test]
    fn spacing_is_round() {
        assert_eq!(round_spacing(1.0), 1.0);
        assert_eq!(round_spacing(0.23), 0.2);
        assert_eq!(round_spacing(4.2), 5.0);
        assert_eq!(round_spacing(80.0), 100.0);
    }

    #[test]
    fn the_ground_lies_at_its_level_and_reaches_past_the_bounds() {
        let bounds = Bounds {
            min: Point3::new(-3.0, -2.0, -1.0),
            max: Point3::new(5.0, 4.0, 1.0),
        };
        let ground = ground(&bounds, -2.5, [1.0; 4], [0.0; 4]);
        assert_eq!(ground.origin.y, -2.5);
        assert_eq!(ground.spacing, 1.0);
        assert_eq!(ground.origin.x % 5.0, 0.0);
        assert!(ground.extent >= 5.0 * bounds.radius(), "{}", ground.extent);
    }
}
