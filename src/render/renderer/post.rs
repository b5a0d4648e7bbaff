//! The picture drawn before anti-aliasing (a colour texture and a depth buffer of the
//! drawable's size, its depths 32-bit floats: llvmpipe tests them and culling reads them back
//! without converting) and the smoothed picture the anti-aliasing pass makes of it, which is
//! copied into the caller's framebuffer. Both are kept between frames, so a frame drawn
//! again only in a region (see [`super::changes`]) smooths only that region.
//!
//! Only the part of the picture where drawn geometry can make a hard edge is smoothed
//! ([`smoothing_bounds`]: around the bodies, their shadows on the ground and the aids drawn
//! as meshes); the rest, the background and the ground beyond, whose grid lines its own
//! shader draws soft, is copied as it is.

use super::batches::{ARROWHEAD_PIXELS, HIGHLIGHT_GROWTH, MARKER_PIXELS, SELECTED};
use super::changes::{sphere_region, Region};
use super::{RenderError, ANTIALIAS_REACH};
use crate::render::frame::{Ground, Light};
use glow::HasContext;
use nalgebra::{Matrix4, Point3};

/// The rectangle of a picture of `size` whose edges the anti-aliasing pass smooths,
/// for a frame that draws `spheres` (world, relative to the frame's origin: the bodies'
/// bounding spheres and their shadows on the ground ([`shadow_on_ground`]) and, of radius 0,
/// the points the aids are drawn at) through `view` and
/// `projection`, with handles of `handle_radius` pixels: each sphere's footprint grown by the
/// most an aid, an outline or a handle reaches beyond it on the screen and by the pass's own
/// reach. `None` when something reaches the eye (the whole picture).
pub(super) fn smoothing_bounds(
    spheres: impl IntoIterator<Item = (Point3<f64>, f64)>,
    view: &Matrix4<f64>,
    projection: &Matrix4<f64>,
    size: (u32, u32),
    handle_radius: f32,
) -> Option<Region> {
    let beyond = ARROWHEAD_PIXELS
        .max(MARKER_PIXELS)
        .max(SELECTED.outline_pixels)
        .max(f64::from(handle_radius) * HIGHLIGHT_GROWTH);
    let margin = beyond.ceil() as u32 + 1 + ANTIALIAS_REACH;
    let mut bounds = Region::EMPTY;
    for (centre, radius) in spheres {
        bounds = bounds.union(sphere_region(view, projection, size, &centre, radius, 0)?);
    }
    Some(bounds.grown(margin, size))
}

/// Where the shadow of the sphere `(centre, radius)` cast by `light` falls on `ground`: a
/// sphere around it on the ground as wide as the shadow (the sphere's radius over the cosine
/// of the light's angle to the ground's normal), or `None` when the light does not shine down
/// onto the ground past the sphere. Any consistent frame of reference.
pub(super) fn shadow_on_ground(
    (centre, radius): (Point3<f64>, f64),
    light: &Light,
    ground: &Ground,
) -> Option<(Point3<f64>, f64)> {
    let direction = match light {
        Light::Directional { direction, .. } => direction.into_inner(),
        Light::Point { position, .. } => (centre - position).try_normalize(1e-12)?,
    };
    let down = -direction.dot(&ground.normal);
    let height = ground.height_of(&centre);
    (down > 1e-6 && height > 0.0).then(|| {
        let along = height / down;
        // Grazing light: a shadow longer than this is clipped by the map anyway.
        let stretch = (1.0 / down).min(50.0);
        (centre + direction * along, radius * stretch)
    })
}

/// A framebuffer whose colour is a texture, with a depth buffer, and the framebuffer of the
/// smoothed picture.
pub(super) struct PictureTarget {
    pub framebuffer: glow::Framebuffer,
    pub colour: glow::Texture,
    depth: glow::Renderbuffer,
    pub smoothed: glow::Framebuffer,
    smoothed_colour: glow::Texture,
    pub width: u32,
    pub height: u32,
}

impl PictureTarget {
    /// # Safety
    /// `gl` must be current.
    pub unsafe fn new(
        gl: &glow::Context,
        width: u32,
        height: u32,
    ) -> Result<PictureTarget, RenderError> {
        let colour = colour_texture(gl, width, height)?;
        let smoothed_colour = colour_texture(gl, width, height)?;
        let depth = gl.create_renderbuffer().map_err(RenderError::Gl)?;
        gl.bind_renderbuffer(glow::RENDERBUFFER, Some(depth));
        gl.renderbuffer_storage(
            glow::RENDERBUFFER,
            glow::DEPTH_COMPONENT32F,
            width as i32,
            height as i32,
        );
        gl.bind_renderbuffer(glow::RENDERBUFFER, None);
        let framebuffer = gl.create_framebuffer().map_err(RenderError::Gl)?;
        gl.bind_framebuffer(glow::FRAMEBUFFER, Some(framebuffer));
        gl.framebuffer_texture_2d(
            glow::FRAMEBUFFER,
            glow::COLOR_ATTACHMENT0,
            glow::TEXTURE_2D,
            Some(colour),
            0,
        );
        gl.framebuffer_renderbuffer(
            glow::FRAMEBUFFER,
            glow::DEPTH_ATTACHMENT,
            glow::RENDERBUFFER,
            Some(depth),
        );
        let mut status = gl.check_framebuffer_status(glow::FRAMEBUFFER);
        let smoothed = gl.create_framebuffer().map_err(RenderError::Gl)?;
        gl.bind_framebuffer(glow::FRAMEBUFFER, Some(smoothed));
        gl.framebuffer_texture_2d(
            glow::FRAMEBUFFER,
            glow::COLOR_ATTACHMENT0,
            glow::TEXTURE_2D,
            Some(smoothed_colour),
            0,
        );
        if status == glow::FRAMEBUFFER_COMPLETE {
            status = gl.check_framebuffer_status(glow::FRAMEBUFFER);
        }
        let target = PictureTarget {
            framebuffer,
            colour,
            depth,
            smoothed,
            smoothed_colour,
            width,
            height,
        };
        if status != glow::FRAMEBUFFER_COMPLETE {
            target.delete(gl);
            return Err(RenderError::Gl(format!(
                "the {width}×{height} picture framebuffer is incomplete (status {status:#x})"
            )));
        }
        Ok(target)
    }

    /// # Safety
    /// `gl` must be current and the target unused after.
    pub unsafe fn delete(&self, gl: &glow::Context) {
        gl.delete_framebuffer(self.framebuffer);
        gl.delete_texture(self.colour);
        gl.delete_renderbuffer(self.depth);
        gl.delete_framebuffer(self.smoothed);
        gl.delete_texture(self.smoothed_colour);
    }
}

/// An RGBA texture of `width` × `height`, sampled linearly and clamped at its edges.
unsafe fn colour_texture(
    gl: &glow::Context,
    width: u32,
    height: u32,
) -> Result<glow::Texture, RenderError> {
    let colour = gl.create_texture().map_err(RenderError::Gl)?;
    gl.bind_texture(glow::TEXTURE_2D, Some(colour));
    gl.tex_image_2d(
        glow::TEXTURE_2D,
        0,
        glow::RGBA8 as i32,
        width as i32,
        height as i32,
        0,
        glow::RGBA,
        glow::UNSIGNED_BYTE,
        glow::PixelUnpackData::Slice(None),
    );
    for (parameter, value) in [
        (glow::TEXTURE_MIN_FILTER, glow::LINEAR),
        (glow::TEXTURE_MAG_FILTER, glow::LINEAR),
        (glow::TEXTURE_WRAP_S, glow::CLAMP_TO_EDGE),
        (glow::TEXTURE_WRAP_T, glow::CLAMP_TO_EDGE),
    ] {
        gl.tex_parameter_i32(glow::TEXTURE_2D, parameter, value as i32);
    }
    gl.bind_texture(glow::TEXTURE_2D, None);
    Ok(colour)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::camera::{Camera, Viewport};

    #[test]
    fn the_smoothing_bounds_hold_what_is_drawn_and_no_more() {
        let camera = Camera::default();
        let size = (640, 480);
        let viewport = Viewport::new(640.0, 480.0);
        let view = camera.view_matrix();
        let projection = camera.projection_matrix(viewport.aspect(), 1.0, 100.0);
        let bounds = |spheres: &[(Point3<f64>, f64)]| {
            smoothing_bounds(spheres.iter().copied(), &view, &projection, size, 6.0)
        };
        let ball = (Point3::new(0.5, 0.2, 0.0), 0.3);
        let around = bounds(&[ball]).expect("the ball is in view");
        // Its outline, in GL window coordinates (rows from the bottom), lies inside with the
        // pass's reach to spare; the bounds are far smaller than the picture.
        for point in [
            Point3::new(0.8, 0.2, 0.0),
            Point3::new(0.2, 0.2, 0.0),
            Point3::new(0.5, 0.5, 0.0),
            Point3::new(0.5, -0.1, 0.0),
        ] {
            let seen = camera.project(&point, &viewport).unwrap();
            let (x, y) = (seen.x as u32, 480 - seen.y as u32);
            assert!(
                around.x0 + ANTIALIAS_REACH <= x && x + ANTIALIAS_REACH < around.x1,
                "{around:?} {x}"
            );
            assert!(
                around.y0 + ANTIALIAS_REACH <= y && y + ANTIALIAS_REACH < around.y1,
                "{around:?} {y}"
            );
        }
        let area = (around.x1 - around.x0) * (around.y1 - around.y0);
        assert!(area < 640 * 480 / 4, "{around:?}");
        // An aid's point (radius 0) far off grows the bounds towards it.
        let with_aid = bounds(&[ball, (Point3::new(-2.0, -1.0, 0.0), 0.0)]).unwrap();
        assert!(with_aid.x0 < around.x0 && with_aid.y0 < around.y0);
        // Nothing drawn: nothing smoothed; something reaching the eye: everything.
        assert!(bounds(&[]).unwrap().is_empty());
        assert_eq!(bounds(&[ball, (Point3::new(0.0, 0.0, 9.5), 1.0)]), None);
    }

    #[test]
    fn a_shadow_on_the_ground_lies_along_the_light() {
        use nalgebra::{Unit, Vector3};
        let ground = Ground {
            origin: Point3::new(0.0, -1.0, 0.0),
            normal: Vector3::y_axis(),
            spacing: 1.0,
            extent: 20.0,
            colour: [1.0; 4],
            line_colour: [1.0; 4],
        };
        let sun = |x: f64, y: f64| Light::Directional {
            direction: Unit::new_normalize(Vector3::new(x, y, 0.0)),
            colour: [1.0; 3],
        };
        let ball = (Point3::new(0.0, 1.0, 0.0), 0.5);
        let (at, r) = shadow_on_ground(ball, &sun(0.0, -1.0), &ground).unwrap();
        assert!((at - Point3::new(0.0, -1.0, 0.0)).norm() < 1e-12 && (r - 0.5).abs() < 1e-12);
        // At 60° from the normal the shadow lies 2 × tan 60° aside and twice as long.
        let (at, r) = shadow_on_ground(ball, &sun(3f64.sqrt(), -1.0), &ground).unwrap();
        assert!((at - Point3::new(2.0 * 3f64.sqrt(), -1.0, 0.0)).norm() < 1e-9);
        assert!((r - 1.0).abs() < 1e-9);
        let lamp = Light::Point {
            position: Point3::new(0.0, 3.0, 0.0),
            colour: [1.0; 3],
        };
        let (at, _) = shadow_on_ground((Point3::new(1.0, 1.0, 0.0), 0.5), &lamp, &ground).unwrap();
        assert!((at - Point3::new(2.0, -1.0, 0.0)).norm() < 1e-9);
        assert_eq!(
            shadow_on_ground(ball, &sun(0.0, 1.0), &ground),
            None,
            "light from below"
        );
        let under = (Point3::new(0.0, -2.0, 0.0), 0.5);
        assert_eq!(
            shadow_on_ground(under, &sun(0.0, -1.0), &ground),
            None,
            "under the ground"
        );
    }
}
