//! The picture drawn before anti-aliasing (a colour texture and a depth buffer of the
//! drawable's size) and the smoothed picture the anti-aliasing pass makes of it, which is
//! copied into the caller's framebuffer. Both are kept between frames, so a frame drawn
//! again only in a region (see [`super::changes`]) smooths only that region.

use super::RenderError;
use glow::HasContext;

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
            glow::DEPTH_COMPONENT24,
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
