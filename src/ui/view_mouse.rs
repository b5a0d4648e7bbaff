//! The unshifted mouse buttons position the view (4.1.7), in the graphical viewer and the
//! shape editor alike: the left button rotates the scene on a virtual sphere, the middle
//! button translates it in the plane of the screen, and the right button scales it (vertical
//! motion) or turns it about the axis out of the screen (horizontal motion), as in DDN.

use crate::render::camera::{Camera, Viewport};
use nalgebra::Point2;

/// GDK's numbers of the three mouse buttons.
pub const LEFT: u32 = 1;
pub const MIDDLE: u32 = 2;
pub const RIGHT: u32 = 3;

/// How a drag with an unshifted button moves the view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewDrag {
    Rotate,
    Translate,
    ScaleAndRoll,
}

impl ViewDrag {
    /// The positioning a button does, if any.
    pub fn for_button(button: u32) -> Option<ViewDrag> {
        match button {
            LEFT => Some(ViewDrag::Rotate),
            MIDDLE => Some(ViewDrag::Translate),
            RIGHT => Some(ViewDrag::ScaleAndRoll),
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

/// Pointer travel (pixels) below which a press and release count as a click, not a drag.
pub const CLICK_SLOP: f64 = 4.0;

/// How near (pixels) the pointer must be to a handle or vertex to take it.
pub const PICK_RADIUS: f64 = 8.0;
