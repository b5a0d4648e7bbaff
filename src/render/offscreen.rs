//! Off-screen rendering with no display: an EGL surfaceless context and a framebuffer object.
//!
//! Used by the slave process for embedded renditions and by batch export. Works with no X
//! server and no `DISPLAY`: the display comes from Mesa's surfaceless platform, the context is
//! OpenGL 3.3 core (or OpenGL ES 3.0 on request) with no surface, and drawing goes to a
//! framebuffer object with colour and depth renderbuffers that is read back after each frame.

use super::frame::Frame;
use super::image::RgbaImage;
use super::mesh::{Mesh, MeshKey, MeshLibrary};
use super::renderer::{RenderError, Renderer};
use super::shader::ShaderDialect;
use glow::HasContext;
use khronos_egl as egl;
use std::fmt;

/// `EGL_PLATFORM_SURFACELESS_MESA`: a display that needs no window system.
const PLATFORM_SURFACELESS_MESA: egl::Enum = 0x31DD;

/// Why the off-screen target could not be created or used.
#[derive(Debug, Clone, PartialEq)]
pub enum OffscreenError {
    /// libEGL could not be loaded or lacks EGL 1.5.
    LoadEgl(String),
    /// An EGL call failed; `step` says which.
    Egl {
        step: &'static str,
        error: String,
    },
    /// The framebuffer object is incomplete (GL status code).
    IncompleteFramebuffer(u32),
    /// The requested size is zero or beyond the driver's limit.
    BadSize {
        width: u32,
        height: u32,
        max: u32,
    },
    Render(RenderError),
}

impl fmt::Display for OffscreenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OffscreenError::LoadEgl(e) => write!(f, "cannot load libEGL 1.5: {e}"),
            OffscreenError::Egl { step, error } => write!(f, "EGL {step} failed: {error}"),
            OffscreenError::IncompleteFramebuffer(status) => {
                write!(f, "off-screen framebuffer incomplete (status {status:#x})")
            }
            OffscreenError::BadSize { width, height, max } => write!(
                f,
                "off-screen size {width}×{height} is invalid: each side must be 1 to {max} pixels"
            ),
            OffscreenError::Render(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for OffscreenError {}

impl From<RenderError> for OffscreenError {
    fn from(e: RenderError) -> Self {
        OffscreenError::Render(e)
    }
}

type Egl = egl::DynamicInstance<egl::EGL1_5>;

/// What EGL needs to know to make a context for one shader dialect.
struct Api {
    name: &'static str,
    api: egl::Enum,
    renderable_bit: egl::Int,
    context_attributes: &'static [egl::Int],
}

impl Api {
    fn of(dialect: ShaderDialect) -> Api {
        match dialect {
            ShaderDialect::Gl33Core => Api {
                name: "OpenGL 3.3 core",
                api: egl::OPENGL_API,
                renderable_bit: egl::OPENGL_BIT,
                context_attributes: &[
                    egl::CONTEXT_MAJOR_VERSION,
                    3,
                    egl::CONTEXT_MINOR_VERSION,
                    3,
                    egl::CONTEXT_OPENGL_PROFILE_MASK,
                    egl::CONTEXT_OPENGL_CORE_PROFILE_BIT,
                    egl::NONE,
                ],
            },
            ShaderDialect::Gles30 => Api {
                name: "OpenGL ES 3.0",
                api: egl::OPENGL_ES_API,
                renderable_bit: egl::OPENGL_ES3_BIT,
                context_attributes: &[
                    egl::CONTEXT_MAJOR_VERSION,
                    3,
                    egl::CONTEXT_MINOR_VERSION,
                    0,
                    egl::NONE,
                ],
            },
        }
    }
}

/// A framebuffer object with colour and depth renderbuffers.
struct Target {
    framebuffer: glow::Framebuffer,
    colour: glow::Renderbuffer,
    depth: glow::Renderbuffer,
}

/// An off-screen GL context with its renderer and framebuffer.
///
/// The context is made current on the calling thread by every method, so several targets
/// can be used from one thread; a target stays on the thread that created it.
pub struct OffscreenTarget {
    egl: Egl,
    /// The EGL client API of the context (OpenGL or OpenGL ES).
    api: egl::Enum,
    display: egl::Display,
    context: egl::Context,
    /// `None` only while dropping, so the renderer is deleted while its context is current.
    renderer: Option<Renderer>,
    target: Target,
    width: u32,
    height: u32,
}

impl OffscreenTarget {
    /// Creates a surfaceless OpenGL 3.3 core context and a `width` × `height` framebuffer.
    pub fn new(width: u32, height: u32) -> Result<OffscreenTarget, OffscreenError> {
        Self::with_dialect(width, height, ShaderDialect::Gl33Core)
    }

    /// Like [`OffscreenTarget::new`], with a context of the API that `dialect` names: OpenGL
    /// 3.3 core or OpenGL ES 3.0 (the API GTK may pick for a `GLArea`).
    pub fn with_dialect(
        width: u32,
        height: u32,
        dialect: ShaderDialect,
    ) -> Result<OffscreenTarget, OffscreenError> {
        let api = Api::of(dialect);
        // SAFETY: libEGL is the system's EGL implementation; the instance keeps it loaded.
        let egl =
            unsafe { Egl::load_required() }.map_err(|e| OffscreenError::LoadEgl(e.to_string()))?;
        let egl_error = |step| {
            move |error: egl::Error| OffscreenError::Egl {
                step,
                error: error.to_string(),
            }
        };
        // SAFETY: the surfaceless platform takes the default native display and no attributes.
        let display = unsafe {
            egl.get_platform_display(
                PLATFORM_SURFACELESS_MESA,
                egl::DEFAULT_DISPLAY,
                &[egl::ATTRIB_NONE],
            )
        }
        .map_err(egl_error("getting the surfaceless display"))?;
        egl.initialize(display)
            .map_err(egl_error("initialising the display"))?;
        let config_attributes = [
            egl::SURFACE_TYPE,
            0,
            egl::RENDERABLE_TYPE,
            api.renderable_bit,
            egl::NONE,
        ];
        let config = egl
            .choose_first_config(display, &config_attributes)
            .map_err(egl_error("choosing a config"))?
            .ok_or(OffscreenError::Egl {
                step: "choosing a config",
                error: format!("no {} config without surfaces", api.name),
            })?;
        egl.bind_api(api.api)
            .map_err(egl_error("binding the client API"))?;
        let context = egl
            .create_context(display, config, None, api.context_attributes)
            .map_err(egl_error("creating the context"))?;
        egl.make_current(display, None, None, Some(context))
            .map_err(egl_error("making the context current"))?;
        // SAFETY: the context is current; EGL returns entry points for it (null when absent).
        let gl = unsafe {
            glow::Context::from_loader_function(|name| {
                egl.get_proc_address(name)
                    .map_or(std::ptr::null(), |f| f as *const std::ffi::c_void)
            })
        };
        let set_up = Renderer::new(gl, dialect)
            .map_err(OffscreenError::from)
            .and_then(|renderer| {
                // SAFETY: the context is current.
                let target = unsafe {
                    check_size(renderer.gl(), width, height)
                        .and_then(|_| create_target(renderer.gl(), width, height))
                }?;
                Ok((renderer, target))
            });
        match set_up {
            Ok((renderer, target)) => Ok(OffscreenTarget {
                egl,
                api: api.api,
                display,
                context,
                renderer: Some(renderer),
                target,
                width,
                height,
            }),
            Err(e) => {
                let _ = egl.make_current(display, None, None, None);
                let _ = egl.destroy_context(display, context);
                Err(e)
            }
        }
    }

    /// Makes no context current on the calling thread, so that another library's context (a
    /// GTK viewer's on the same thread) can be made current there; the next drawing makes
    /// this target's current again.
    pub fn release_current(&self) {
        let _ = self.egl.make_current(self.display, None, None, None);
    }

    /// Makes this target's context current on the calling thread.
    pub fn make_current(&self) -> Result<(), OffscreenError> {
        self.egl
            .bind_api(self.api)
            .map_err(|error| OffscreenError::Egl {
                step: "binding the client API",
                error: error.to_string(),
            })?;
        self.egl
            .make_current(self.display, None, None, Some(self.context))
            .map_err(|error| OffscreenError::Egl {
                step: "making the context current",
                error: error.to_string(),
            })
    }

    /// The renderer, with its context made current.
    pub fn renderer(&mut self) -> Result<&mut Renderer, OffscreenError> {
        self.make_current()?;
        Ok(self.renderer.as_mut().expect("renderer lives until drop"))
    }

    /// Uploads a mesh under `key` (see [`Renderer::upload_mesh`]).
    pub fn upload_mesh(&mut self, key: MeshKey, mesh: &Mesh) -> Result<(), OffscreenError> {
        Ok(self.renderer()?.upload_mesh(key, mesh)?)
    }

    /// Uploads every mesh of `library` not uploaded yet.
    pub fn upload_missing(&mut self, library: &MeshLibrary) -> Result<(), OffscreenError> {
        Ok(self.renderer()?.upload_missing(library)?)
    }

    pub fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    /// Changes the picture size, reallocating the renderbuffers.
    pub fn resize(&mut self, width: u32, height: u32) -> Result<(), OffscreenError> {
        self.make_current()?;
        let gl = self
            .renderer
            .as_ref()
            .expect("renderer lives until drop")
            .gl();
        // SAFETY: the context is current and the renderbuffers belong to this target.
        unsafe {
            check_size(gl, width, height)?;
            storage(gl, &self.target, width, height)?;
        }
        self.width = width;
        self.height = height;
        Ok(())
    }

    /// Draws `frame` and reads the picture back, rows from top to bottom.
    pub fn render(&mut self, frame: &Frame) -> Result<RgbaImage, OffscreenError> {
        let (width, height) = (self.width, self.height);
        self.bind()?.draw(frame, width, height)?;
        self.read_back()
    }

    /// The renderer with this target's context current and its framebuffer bound: to draw a
    /// frame of [`OffscreenTarget::size`] stage by stage (as the benchmark does) before
    /// [`OffscreenTarget::read_back`].
    pub fn bind(&mut self) -> Result<&mut Renderer, OffscreenError> {
        let framebuffer = self.target.framebuffer;
        let renderer = self.renderer()?;
        // SAFETY: the context is current; the framebuffer belongs to this target.
        unsafe {
            renderer
                .gl()
                .bind_framebuffer(glow::FRAMEBUFFER, Some(framebuffer));
        }
        Ok(renderer)
    }

    /// The picture drawn last, rows from top to bottom.
    pub fn read_back(&mut self) -> Result<RgbaImage, OffscreenError> {
        let (width, height) = (self.width, self.height);
        let framebuffer = self.target.framebuffer;
        let renderer = self.renderer()?;
        let row = 4 * width as usize;
        let mut pixels = vec![0u8; row * height as usize];
        // SAFETY: the context is current; the framebuffer belongs to this target; `pixels`
        // holds exactly width × height RGBA bytes and pack alignment 4 matches RGBA rows.
        unsafe {
            let gl = renderer.gl();
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(framebuffer));
            gl.pixel_store_i32(glow::PACK_ALIGNMENT, 4);
            gl.read_pixels(
                0,
                0,
                width as i32,
                height as i32,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                glow::PixelPackData::Slice(Some(&mut pixels)),
            );
            gl.bind_framebuffer(glow::FRAMEBUFFER, None);
        }
        flip_rows(&mut pixels, row);
        Ok(RgbaImage {
            width,
            height,
            pixels,
        })
    }
}

impl Drop for OffscreenTarget {
    fn drop(&mut self) {
        if self.make_current().is_ok() {
            if let Some(renderer) = self.renderer.take() {
                // SAFETY: the context is current; nothing uses the target's objects after.
                unsafe {
                    let gl = renderer.gl();
                    gl.delete_framebuffer(self.target.framebuffer);
                    gl.delete_renderbuffer(self.target.colour);
                    gl.delete_renderbuffer(self.target.depth);
                }
                drop(renderer);
            }
        }
        // The display is shared by every context of the process, so it is not terminated.
        let _ = self.egl.make_current(self.display, None, None, None);
        let _ = self.egl.destroy_context(self.display, self.context);
    }
}

/// Checks that the driver can allocate a `width` × `height` renderbuffer.
unsafe fn check_size(gl: &glow::Context, width: u32, height: u32) -> Result<(), OffscreenError> {
    let max = gl.get_parameter_i32(glow::MAX_RENDERBUFFER_SIZE).max(1) as u32;
    if width == 0 || height == 0 || width > max || height > max {
        return Err(OffscreenError::BadSize { width, height, max });
    }
    Ok(())
}

unsafe fn create_target(
    gl: &glow::Context,
    width: u32,
    height: u32,
) -> Result<Target, OffscreenError> {
    let gl_error = |e: String| OffscreenError::Render(RenderError::Gl(e));
    let target = Target {
        framebuffer: gl.create_framebuffer().map_err(gl_error)?,
        colour: gl.create_renderbuffer().map_err(gl_error)?,
        depth: gl.create_renderbuffer().map_err(gl_error)?,
    };
    storage(gl, &target, width, height)?;
    gl.bind_framebuffer(glow::FRAMEBUFFER, Some(target.framebuffer));
    gl.framebuffer_renderbuffer(
        glow::FRAMEBUFFER,
        glow::COLOR_ATTACHMENT0,
        glow::RENDERBUFFER,
        Some(target.colour),
    );
    gl.framebuffer_renderbuffer(
        glow::FRAMEBUFFER,
        glow::DEPTH_ATTACHMENT,
        glow::RENDERBUFFER,
        Some(target.depth),
    );
    let status = gl.check_framebuffer_status(glow::FRAMEBUFFER);
    gl.bind_framebuffer(glow::FRAMEBUFFER, None);
    if status != glow::FRAMEBUFFER_COMPLETE {
        return Err(OffscreenError::IncompleteFramebuffer(status));
    }
    Ok(target)
}

/// (Re)allocates the renderbuffers' storage.
unsafe fn storage(
    gl: &glow::Context,
    target: &Target,
    width: u32,
    height: u32,
) -> Result<(), OffscreenError> {
    gl.bind_renderbuffer(glow::RENDERBUFFER, Some(target.colour));
    gl.renderbuffer_storage(glow::RENDERBUFFER, glow::RGBA8, width as i32, height as i32);
    gl.bind_renderbuffer(glow::RENDERBUFFER, Some(target.depth));
    gl.renderbuffer_storage(
        glow::RENDERBUFFER,
        glow::DEPTH_COMPONENT24,
        width as i32,
        height as i32,
    );
    gl.bind_renderbuffer(glow::RENDERBUFFER, None);
    match gl.get_error() {
        glow::NO_ERROR => Ok(()),
        code => Err(OffscreenError::Render(RenderError::Gl(format!(
            "allocating {width}×{height} renderbuffers failed (error {code:#x})"
        )))),
    }
}

/// GL reads rows bottom-up; pictures are stored top-down.
fn flip_rows(pixels: &mut [u8], row: usize) {
    let rows = pixels.len() / row.max(1);
    for y in 0..rows / 2 {
        let (top, bottom) = pixels.split_at_mut((rows - 1 - y) * row);
        top[y * row..(y + 1) * row].swap_with_slice(&mut bottom[..row]);
    }
}

#[cfg(test)]
mod tests {
    use super::flip_rows;

    #[test]
    fn flipping_reverses_row_order() {
        let mut pixels: Vec<u8> = (0..12).collect();
        flip_rows(&mut pixels, 4);
        assert_eq!(pixels, vec![8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3]);
    }
}
