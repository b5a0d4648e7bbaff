//! GL function loading from libepoxy, for drawing inside a GTK `GLArea`.
//!
//! GTK resolves GL through libepoxy, which knows whether the area's context is GLX, EGL, GL or
//! GLES. The `epoxy` crate no longer builds, so the functions are taken from `libepoxy.so.0`
//! directly: each GL function `glFoo` is exported as a variable `epoxy_glFoo` holding a
//! pointer to epoxy's dispatch function.
//!
//! Use in a GTK editor (GTK itself stays outside this module):
//!
//! ```text
//! area.connect_realize(|area| {
//!     area.make_current();
//!     let (gl, library) = unsafe { asgard::render::epoxy::load_gl() }?;
//!     let dialect = if area.api() == gdk::GLAPI::GLES { ShaderDialect::Gles30 } else { ShaderDialect::Gl33Core };
//!     let renderer = Renderer::new(gl, dialect)?;   // keep `library` alive as long as `renderer`
//! });
//! area.connect_render(|area, _| { renderer.draw(&frame, width, height); glib::Propagation::Stop });
//! ```
//!
//! In the render handler GTK has already bound the area's framebuffer and viewport;
//! `Renderer::draw` does not change the framebuffer binding. Ask the area for a depth buffer
//! (`set_has_depth_buffer(true)`).

use std::ffi::c_void;
use std::fmt;

/// The loaded libepoxy; the GL context's function pointers are valid while it lives.
pub struct EpoxyLibrary {
    _library: libloading::Library,
}

/// libepoxy could not be loaded.
#[derive(Debug, Clone, PartialEq)]
pub struct EpoxyError(pub String);

impl fmt::Display for EpoxyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot load libepoxy.so.0: {}", self.0)
    }
}

impl std::error::Error for EpoxyError {}

/// Loads the GL functions of the current context through libepoxy.
///
/// # Safety
/// A GL context must be current on this thread (GTK's `GLArea::make_current`) and must be
/// current whenever the returned context is used. Keep the returned [`EpoxyLibrary`] alive as
/// long as the `glow::Context`.
pub unsafe fn load_gl() -> Result<(glow::Context, EpoxyLibrary), EpoxyError> {
    let library =
        libloading::Library::new("libepoxy.so.0").map_err(|e| EpoxyError(e.to_string()))?;
    let gl = glow::Context::from_loader_function(|name| {
        let symbol = format!("epoxy_{name}\0");
        match library.get::<*const *const c_void>(symbol.as_bytes()) {
            Ok(variable) => **variable,
            Err(_) => std::ptr::null(),
        }
    });
    Ok((gl, EpoxyLibrary { _library: library }))
}
