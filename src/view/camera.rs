//! Camera control: where a view looks from and how the mouse moves it (dissertation 4.1.7).
//!
//! The unshifted mouse buttons position the view, in the graphical viewer, the shape editor
//! and a rendition alike: the left button rotates the scene on a virtual sphere, the middle
//! button translates it in the plane of the screen, and the right button scales it (vertical
//! motion) or turns it about the axis out of the screen (horizontal motion), as in DDN; the
//! wheel zooms. [`ViewCamera`] is which camera a view uses: the scene's, a default fitted to
//! the scene, or one the user moved. The projection itself is `render::camera`'s.

use crate::render::camera::{Camera, Viewport};
use nalgebra::Point2;

/// The mouse buttons, numbered as X11 and GDK number them (and as hosts forward them).
pub mod button {
    pub const LEFT: u32 = 1;
    pub const MIDDLE: u32 = 2;
    pub const RIGHT: u32 = 3;
}

/// Magnification per wheel step towards the screen.
const ZOOM_PER_STEP: f64 = 1.1;

/// How a drag with an unshifted button moves the view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewDrag {
    Rotate,
    Translate,
    ScaleAndRoll,
}

impl ViewDrag {
    /// The positioning a button does, if any.
    pub fn for_button(pressed: u32) -> Option<ViewDrag> {
        match pressed {
            button::LEFT => Some(ViewDrag::Rotate),
            button::MIDDLE => Some(ViewDrag::Translate),
            button::RIGHT => Some(ViewDrag::ScaleAndRoll),
            _ => None,
        }
    }

    /// Moves `camera` for pointer motion from `from` to `to`.
    pub fn apply(
        self,
        camera: &mut Camera,
        from: Point2<f64>,
        to: Point2<f64>,
        viewport: &Viewport,
    ) {
        match self {
            ViewDrag::Rotate => camera.rotate_virtual_sphere(from, to, viewport),
            ViewDrag::Translate => camera.translate_in_screen_plane(from, to, viewport),
            ViewDrag::ScaleAndRoll => camera.scale_and_roll(from, to, viewport),
        }
    }
}

/// Zooms `camera` by `steps` wheel steps (positive: towards the user, smaller).
pub fn zoom(camera: &mut Camera, steps: f64) {
    camera.scale *= ZOOM_PER_STEP.powf(-steps);
}

/// Which camera a view draws with.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Source {
    /// Not chosen yet: the next picture follows the scene's camera if it has one, else fits
    /// a default view ([`ViewCamera::fitted`]).
    Default,
    /// The default view, fitted to the scene; fitted again after [`ViewCamera::refit`].
    Fitted(Camera),
    /// The scene's `camera` element, which may move.
    Scene,
    /// A view the user moved, kept whatever the scene does.
    Own(Camera),
}

/// Where a view looks from: the scene's camera, a default fitted to the scene, or one the
/// user moved; and the camera of the last picture, which pointer positions refer to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ViewCamera {
    source: Source,
    shown: Option<Camera>,
}

/// What the next picture is to be drawn with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CameraUse {
    /// This camera.
    Given(Camera),
    /// The scene's camera element.
    Scene,
    /// A default view is wanted: fit one, and tell [`ViewCamera::fitted`].
    Fit,
}

impl Default for ViewCamera {
    fn default() -> ViewCamera {
        ViewCamera {
            source: Source::Default,
            shown: None,
        }
    }
}

impl ViewCamera {
    /// What the next picture uses, given whether the scene has a camera element.
    pub fn next(&self, scene_has_camera: bool) -> CameraUse {
        match self.source {
            Source::Fitted(camera) | Source::Own(camera) => CameraUse::Given(camera),
            Source::Scene => CameraUse::Scene,
            Source::Default if scene_has_camera => CameraUse::Scene,
            Source::Default => CameraUse::Fit,
        }
    }

    /// The default view was fitted as `camera`; or, when the scene has a camera, that is
    /// followed from now on.
    pub fn fitted(&mut self, camera: Camera, scene_has_camera: bool) {
        self.source = if scene_has_camera {
            Source::Scene
        } else {
            Source::Fitted(camera)
        };
    }

    /// A picture was drawn with `camera`.
    pub fn shown(&mut self, camera: Camera) {
        self.shown = Some(camera);
    }

    /// The camera of the last picture, which pointer positions refer to.
    pub fn last_shown(&self) -> Option<Camera> {
        self.shown
    }

    /// The camera a move starts from: the view's own, else the last picture's.
    pub fn current(&self) -> Option<Camera> {
        match self.source {
            Source::Own(camera) | Source::Fitted(camera) => Some(camera),
            Source::Default | Source::Scene => self.shown,
        }
    }

    /// The user moved the view to `camera`: kept from now on.
    pub fn moved(&mut self, camera: Camera) {
        self.source = Source::Own(camera);
        self.shown = Some(camera);
    }

    /// Fits the default view again at the next picture, unless the user moved the view.
    pub fn refit(&mut self) {
        if let Source::Fitted(_) = self.source {
            self.source = Source::Default;
        }
    }

    /// Forgets the user's view: the scene's camera or a fitted default from the next picture.
    pub fn reset(&mut self) {
        self.source = Source::Default;
    }
}

/// Pointer travel (pixels) below which a press and release count as a click, not a drag.
pub const CLICK_SLOP: f64 = 4.0;

/// How near (pixels) the pointer must be to a handle or vertex to take it.
pub const PICK_RADIUS: f64 = 8.0;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wheel_zooms_out_towards_the_user() {
        let mut camera = Camera::default();
        zoom(&mut camera, 1.0);
        assert!(camera.scale < 1.0);
        zoom(&mut camera, -1.0);
        assert!((camera.scale - 1.0).abs() < 1e-12);
    }

    #[test]
    fn a_view_is_fitted_once_kept_when_moved_and_reset_on_request() {
        let mut view = ViewCamera::default();
        assert_eq!(view.next(false), CameraUse::Fit);
        assert_eq!(view.next(true), CameraUse::Scene);
        let fitted = Camera {
            scale: 2.0,
            ..Camera::default()
        };
        view.fitted(fitted, false);
        assert_eq!(view.next(false), CameraUse::Given(fitted));
        view.refit();
        assert_eq!(view.next(false), CameraUse::Fit);
        let moved = Camera {
            scale: 3.0,
            ..Camera::default()
        };
        view.moved(moved);
        view.refit();
        assert_eq!(view.next(true), CameraUse::Given(moved));
        assert_eq!(view.current(), Some(moved));
        view.reset();
        assert_eq!(view.next(true), CameraUse::Scene);
        assert_eq!(view.current(), Some(moved), "the last picture's camera");
    }
}
