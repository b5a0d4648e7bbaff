//! Shadows: a depth map of the bodies seen from the key light, which the mesh and ground
//! programs compare against.
//!
//! The key light is the brightest of the frame's lights. A directional light looks at the
//! bodies along its direction through an orthographic box fitted to their bounding sphere and
//! reaching down to the ground; a point light outside that sphere looks at it through a
//! perspective fitted to it; a point light among the bodies looks straight down with a wide
//! lens (shadows above it are not drawn: one map cannot see all around). The map's side is
//! the power of two nearest the bodies' size on the screen (256 to 2048 texels), so a texel
//! is about a pixel where the bodies are. The map is drawn only when what it sees changed:
//! turning the view, or redrawing a still frame, reuses it.

use super::RenderError;
use crate::render::frame::{Ground, Light};
use glow::HasContext;
use nalgebra::{Matrix4, Orthographic3, Perspective3, Point3, Vector3};

/// The sides a shadow map may have, in texels.
const SIZES: (u32, u32) = (256, 2048);
/// How far (texels) the shadow lookup moves off a surface along its normal, against acne.
const NORMAL_OFFSET_TEXELS: f64 = 1.5;
/// Polygon offset of the casters' depths (slope factor, units), against acne.
pub(super) const POLYGON_OFFSET: (f32, f32) = (1.5, 4.0);
/// The lens of a point light among the bodies, looking down.
const DOWNWARD_FOV: f64 = 2.1;

/// The side of the map for bodies whose bounding sphere looks `pixels` across on the screen.
pub(super) fn map_size(pixels: f64) -> u32 {
    let side = 2f64.powf(pixels.max(1.0).log2().round());
    (side.min(f64::from(SIZES.1)) as u32).max(SIZES.0)
}

/// The depth texture (32-bit float depths: cheaper for llvmpipe to compare against and to
/// read back than 24-bit ones, which it unpacks) and the framebuffer that draws into it.
pub(super) struct ShadowMap {
    pub framebuffer: glow::Framebuffer,
    pub texture: glow::Texture,
    pub size: u32,
}

impl ShadowMap {
    /// A map of `size` × `size` texels.
    ///
    /// # Safety
    /// `gl` must be current.
    pub unsafe fn new(gl: &glow::Context, size: u32) -> Result<ShadowMap, RenderError> {
        let texture = gl.create_texture().map_err(RenderError::Gl)?;
        gl.bind_texture(glow::TEXTURE_2D, Some(texture));
        gl.tex_image_2d(
            glow::TEXTURE_2D,
            0,
            glow::DEPTH_COMPONENT32F as i32,
            size as i32,
            size as i32,
            0,
            glow::DEPTH_COMPONENT,
            glow::FLOAT,
            glow::PixelUnpackData::Slice(None),
        );
        for (parameter, value) in [
            (glow::TEXTURE_MIN_FILTER, glow::LINEAR),
            (glow::TEXTURE_MAG_FILTER, glow::LINEAR),
            (glow::TEXTURE_WRAP_S, glow::CLAMP_TO_EDGE),
            (glow::TEXTURE_WRAP_T, glow::CLAMP_TO_EDGE),
            (glow::TEXTURE_COMPARE_MODE, glow::COMPARE_REF_TO_TEXTURE),
            (glow::TEXTURE_COMPARE_FUNC, glow::LEQUAL),
        ] {
            gl.tex_parameter_i32(glow::TEXTURE_2D, parameter, value as i32);
        }
        gl.bind_texture(glow::TEXTURE_2D, None);
        let framebuffer = gl.create_framebuffer().map_err(RenderError::Gl)?;
        gl.bind_framebuffer(glow::FRAMEBUFFER, Some(framebuffer));
        gl.framebuffer_texture_2d(
            glow::FRAMEBUFFER,
            glow::DEPTH_ATTACHMENT,
            glow::TEXTURE_2D,
            Some(texture),
            0,
        );
        gl.draw_buffers(&[glow::NONE]);
        gl.read_buffer(glow::NONE);
        let status = gl.check_framebuffer_status(glow::FRAMEBUFFER);
        gl.bind_framebuffer(glow::FRAMEBUFFER, None);
        if status != glow::FRAMEBUFFER_COMPLETE {
            gl.delete_framebuffer(framebuffer);
            gl.delete_texture(texture);
            return Err(RenderError::Gl(format!(
                "the shadow map's framebuffer is incomplete (status {status:#x})"
            )));
        }
        Ok(ShadowMap {
            framebuffer,
            texture,
            size,
        })
    }

    /// # Safety
    /// `gl` must be current and the map unused after.
    pub unsafe fn delete(&self, gl: &glow::Context) {
        gl.delete_framebuffer(self.framebuffer);
        gl.delete_texture(self.texture);
    }
}

/// How the key light sees the scene.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ShadowView {
    /// The light among the frame's effective lights.
    pub light: usize,
    /// The map's side, in texels.
    pub size: u32,
    /// World (relative to the frame's origin) to the light's eye, and that to its clip space.
    pub view: Matrix4<f64>,
    pub projection: Matrix4<f64>,
    /// `projection × view`.
    pub clip: Matrix4<f64>,
    /// World (relative) to shadow-map texture coordinates and depth, all in 0 to 1.
    pub texture: Matrix4<f64>,
    /// The world length of a texel where the bodies are.
    pub texel: f64,
    /// How far lookups move off surfaces along their normals.
    pub normal_offset: f64,
}

/// The view of the brightest of `lights` onto bodies within the sphere `(centre, radius)`
/// (world), reaching down to `ground`, for a map of `size` texels a side; `origin` is the
/// frame's origin. `None` without lights or bodies.
pub(super) fn shadow_view(
    lights: &[Light],
    (centre, radius): (Point3<f64>, f64),
    ground: Option<&Ground>,
    origin: &Point3<f64>,
    size: u32,
) -> Option<ShadowView> {
    if !(radius.is_finite() && radius > 0.0) {
        return None;
    }
    let (light, key) = lights.iter().enumerate().max_by(|a, b| {
        let brightness = |l: &Light| -> f32 {
            match l {
                Light::Directional { colour, .. } | Light::Point { colour, .. } => {
                    colour.iter().sum()
                }
            }
        };
        brightness(a.1)
            .total_cmp(&brightness(b.1))
            .then(b.0.cmp(&a.0))
    })?;
    // How far below the sphere's centre the ground lies, along a direction.
    let to_ground = |direction: &Vector3<f64>| -> f64 {
        ground.map_or(0.0, |g| {
            let down = -direction.dot(&g.normal);
            if down > 1e-3 {
                (g.height_of(&centre) / down).clamp(0.0, 50.0 * radius)
            } else {
                0.0
            }
        })
    };
    let relative = centre - origin.coords;
    let texels = f64::from(size);
    let (view, projection, texel) = match key {
        Light::Directional { direction, .. } => {
            let d = direction.into_inner();
            let reach = radius.max(to_ground(&d));
            let eye = Point3::from(relative) - d * radius * 2.0;
            let view = Matrix4::look_at_rh(&eye, &Point3::from(relative), &up_for(&d));
            let box_ = Orthographic3::new(
                -radius,
                radius,
                -radius,
                radius,
                radius,
                3.0 * radius + reach,
            );
            (view, box_.to_homogeneous(), 2.0 * radius / texels)
        }
        Light::Point { position, .. } => {
            let from = Point3::from(position.coords - origin.coords);
            let offset = Point3::from(relative) - from;
            let distance = offset.norm();
            let (target, fov, near) = if distance > 1.05 * radius {
                let half = (radius / distance).asin() * 1.1;
                (
                    Point3::from(relative),
                    2.0 * half,
                    (distance - radius).max(distance * 0.01),
                )
            } else {
                (from - Vector3::y() * radius, DOWNWARD_FOV, radius * 0.01)
            };
            let d = (target - from).normalize();
            let far = distance + radius + to_ground(&d);
            let view = Matrix4::look_at_rh(&from, &target, &up_for(&d));
            let lens = Perspective3::new(1.0, fov.min(3.0), near, far.max(near * 2.0));
            let texel = 2.0 * distance.max(radius) * (fov / 2.0).tan() / texels;
            (view, lens.to_homogeneous(), texel)
        }
    };
    let bias = Matrix4::new_translation(&Vector3::repeat(0.5)) * Matrix4::new_scaling(0.5);
    let clip = projection * view;
    Some(ShadowView {
        light,
        size,
        view,
        projection,
        clip,
        texture: bias * clip,
        texel,
        normal_offset: NORMAL_OFFSET_TEXELS * texel,
    })
}

/// An up vector not parallel to `direction`.
fn up_for(direction: &Vector3<f64>) -> Vector3<f64> {
    if direction.y.abs() > 0.9 {
        Vector3::z()
    } else {
        Vector3::y()
    }
}

/// The sphere (centre, radius) around spheres.
pub(super) fn enclosing(
    spheres: impl IntoIterator<Item = (Point3<f64>, f64)>,
) -> Option<(Point3<f64>, f64)> {
    let spheres: Vec<_> = spheres.into_iter().collect();
    let (mut lo, mut hi) = (
        Vector3::repeat(f64::INFINITY),
        Vector3::repeat(f64::NEG_INFINITY),
    );
    for (c, r) in &spheres {
        lo = lo.inf(&(c.coords - Vector3::repeat(*r)));
        hi = hi.sup(&(c.coords + Vector3::repeat(*r)));
    }
    if spheres.is_empty() || !lo.iter().chain(hi.iter()).all(|x| x.is_finite()) {
        return None;
    }
    let centre = Point3::from((lo + hi) / 2.0);
    let radius = spheres
        .iter()
        .map(|(c, r)| (c - centre).norm() + r)
        .fold(0.0, f64::max);
    Some((centre, radius.max(1e-6)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Unit;

    #[test]
    fn the_map_is_about_as_fine_as_the_screen() {
        assert_eq!(map_size(500.0), 512);
        assert_eq!(map_size(800.0), 1024);
        assert_eq!(map_size(3.0), 256);
        assert_eq!(map_size(1e6), 2048);
    }

    fn in_map(view: &ShadowView, p: Point3<f64>) -> bool {
        let t = view.texture * p.to_homogeneous();
        let t = t.xyz() / t.w;
        t.iter().all(|c| (0.0..=1.0).contains(c))
    }

    #[test]
    fn the_bodies_and_their_shadow_on_the_ground_are_in_the_map() {
        let sun = Light::Directional {
            direction: Unit::new_normalize(Vector3::new(0.45, -1.0, -0.55)),
            colour: [1.0; 3],
        };
        let ground = Ground {
            origin: Point3::new(0.0, -3.0, 0.0),
            normal: Vector3::y_axis(),
            spacing: 1.0,
            extent: 20.0,
            colour: [1.0; 4],
            line_colour: [1.0; 4],
        };
        let origin = Point3::new(1.0, 0.0, 0.0);
        let view =
            shadow_view(&[sun], (Point3::origin(), 1.0), Some(&ground), &origin, 512).unwrap();
        let relative = |p: Point3<f64>| Point3::from(p - origin.coords);
        assert!(in_map(&view, relative(Point3::new(0.0, 0.9, 0.0))));
        // Where the top of the sphere's shadow falls on the ground.
        let d = Vector3::new(0.45, -1.0, -0.55);
        let shadow = Point3::new(0.0, 1.0, 0.0) + d * 4.0;
        assert!(in_map(&view, relative(shadow)), "{shadow:?}");
    }

    #[test]
    fn the_brightest_light_casts() {
        let lights = [
            Light::Point {
                position: Point3::new(0.0, 10.0, 0.0),
                colour: [0.2; 3],
            },
            Light::Point {
                position: Point3::new(10.0, 10.0, 0.0),
                colour: [0.9; 3],
            },
        ];
        let view = shadow_view(
            &lights,
            (Point3::origin(), 1.0),
            None,
            &Point3::origin(),
            512,
        )
        .unwrap();
        assert_eq!(view.light, 1);
        assert!(in_map(&view, Point3::new(0.5, 0.5, 0.0)));
    }
}
