//! A GTK `GLArea` drawing [`Frame`]s with the renderer that off-screen pictures use.
//!
//! GL functions come from libepoxy (`render::epoxy`), the library GTK itself resolves GL
//! through. The renderer lives while the area is realized; meshes are uploaded before each
//! draw when missing. The owner supplies the frame to draw for a size in pixels.

use crate::render::camera::Viewport;
use crate::render::epoxy::{load_gl, EpoxyLibrary};
use crate::render::frame::Frame;
use crate::render::mesh::{Mesh, MeshKey, MeshLibrary};
use crate::render::renderer::Renderer;
use crate::render::shader::ShaderDialect;
use gtk::glib;
use gtk::prelude::*;
use gtk4 as gtk;
use std::cell::RefCell;
use std::rc::Rc;

/// What a [`GlView`] asks its owner before each draw.
pub trait Scenery {
    /// Calls `draw` with the frame to draw in a picture of this size and the meshes it uses
    /// (those not uploaded yet are), unless there is nothing to draw.
    fn with_frame(&self, viewport: &Viewport, draw: &mut dyn FnMut(&MeshLibrary, &Frame));
}

struct Gl {
    renderer: Renderer,
    _library: EpoxyLibrary,
}

/// The GL area and its renderer.
#[derive(Clone)]
pub struct GlView {
    pub area: gtk::GLArea,
    gl: Rc<RefCell<Option<Gl>>>,
    /// Meshes to upload again before the next draw (replaced under a key already used).
    replaced: Rc<RefCell<Vec<(MeshKey, Mesh)>>>,
    error: Rc<RefCell<Option<String>>>,
}

impl GlView {
    /// A GL area drawing what `scenery` gives. `on_error` hears why drawing failed.
    pub fn new(scenery: Rc<dyn Scenery>, on_error: impl Fn(&str) + 'static) -> GlView {
        let area = gtk::GLArea::new();
        area.set_has_depth_buffer(true);
        area.set_hexpand(true);
        area.set_vexpand(true);
        let view = GlView {
            area: area.clone(),
            gl: Rc::new(RefCell::new(None)),
            replaced: Rc::new(RefCell::new(Vec::new())),
            error: Rc::new(RefCell::new(None)),
        };
        let on_error = Rc::new(on_error);
        {
            let view = view.clone();
            let on_error = on_error.clone();
            area.connect_realize(move |area| {
                if let Err(e) = view.realize(area) {
                    on_error(&e);
                    *view.error.borrow_mut() = Some(e);
                }
            });
        }
        {
            let gl = view.gl.clone();
            area.connect_unrealize(move |area| {
                area.make_current();
                // The renderer deletes its GL objects while the area's context is current.
                gl.borrow_mut().take();
            });
        }
        {
            let view = view.clone();
            area.connect_render(move |area, _| {
                if let Err(e) = view.render(area, scenery.as_ref()) {
                    let repeated = view.error.borrow().as_deref() == Some(e.as_str());
                    if !repeated {
                        on_error(&e);
                        *view.error.borrow_mut() = Some(e);
                    }
                }
                glib::Propagation::Stop
            });
        }
        view
    }

    fn realize(&self, area: &gtk::GLArea) -> Result<(), String> {
        area.make_current();
        if let Some(error) = area.error() {
            return Err(format!("no OpenGL for this window: {error}"));
        }
        // SAFETY: the area's context was just made current, and it is current in every
        // render and unrealize handler, where the renderer is used and dropped.
        let (gl, library) = unsafe { load_gl() }.map_err(|e| e.to_string())?;
        let es = area.context().is_some_and(|c| c.uses_es());
        let dialect = if es {
            ShaderDialect::Gles30
        } else {
            ShaderDialect::Gl33Core
        };
        let renderer = Renderer::new(gl, dialect).map_err(|e| e.to_string())?;
        *self.gl.borrow_mut() = Some(Gl {
            renderer,
            _library: library,
        });
        Ok(())
    }

    fn render(&self, area: &gtk::GLArea, scenery: &dyn Scenery) -> Result<(), String> {
        let mut gl = self.gl.borrow_mut();
        let Some(gl) = gl.as_mut() else {
            return Ok(());
        };
        let scale = area.scale_factor().max(1);
        let (width, height) = (
            (area.width() * scale).max(0) as u32,
            (area.height() * scale).max(0) as u32,
        );
        let viewport = Viewport::new(f64::from(width), f64::from(height));
        for (key, mesh) in self.replaced.borrow_mut().drain(..) {
            gl.renderer
                .upload_mesh(key, &mesh)
                .map_err(|e| e.to_string())?;
        }
        let mut result = Ok(());
        scenery.with_frame(&viewport, &mut |meshes, frame| {
            result = gl
                .renderer
                .upload_missing(meshes)
                .and_then(|()| gl.renderer.draw(frame, width, height))
                .map_err(|e| e.to_string());
        });
        if result.is_ok() {
            *self.error.borrow_mut() = None;
        }
        result
    }

    /// Uploads `mesh` under `key` before the next draw, replacing what the key held.
    pub fn replace_mesh(&self, key: MeshKey, mesh: Mesh) {
        self.replaced.borrow_mut().push((key, mesh));
    }

    /// Draws again soon.
    pub fn redraw(&self) {
        self.area.queue_render();
    }

    /// The area's size in pixels as the renderer sees it.
    pub fn viewport(&self) -> Viewport {
        let scale = f64::from(self.area.scale_factor().max(1));
        Viewport::new(
            f64::from(self.area.width()) * scale,
            f64::from(self.area.height()) * scale,
        )
    }

    /// A pointer position in widget coordinates as a point of the picture.
    pub fn picture_point(&self, x: f64, y: f64) -> nalgebra::Point2<f64> {
        let scale = f64::from(self.area.scale_factor().max(1));
        nalgebra::Point2::new(x * scale, y * scale)
    }
}
