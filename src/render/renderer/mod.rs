//! The GL renderer: draws a [`Frame`] into the currently bound framebuffer.
//!
//! One `Renderer` owns the programs, buffers and targets of one `glow::Context`. Meshes are
//! uploaded once per key; each frame, the objects are grouped by mesh and drawn with one
//! instanced call per mesh and depth slab from a single instance-buffer upload (see
//! [`batches`]), so thousands of bodies cost a few dozen GL calls. A frame is drawn in passes:
//!
//! 1. **shadows** ([`shadow`]): the bodies' depths seen from the key light, when they or the
//!    light changed since the map was last drawn;
//! 2. **bodies**, lit by the frame's lights with the key light's shadows, a sky and ground
//!    hemisphere and a little specular (solid balls as impostors, by their own program);
//!    selected and hovered bodies get a coloured rim and an outline (the body pushed out a
//!    few pixels on the screen, behind itself);
//! 3. **ground**: a plane under the bodies with its grid, fading out towards its edge,
//!    darkened where shadows fall, drawn after the bodies so hidden parts cost nothing;
//! 4. markers, arrowheads and lines (links, vectors, trajectories), then **handles** over a
//!    cleared depth buffer so they always show;
//! 5. **anti-aliasing**: the passes above draw into a texture ([`post`]), which a final pass
//!    copies into the caller's framebuffer, smoothing edges on the way where bodies, their
//!    shadows on the ground and aids can make them ([`post::smoothing_bounds`]) and copying
//!    the rest as it is;
//! 6. the **axis gizmo** ([`gizmo`]) in the lower left corner.
//!
//! When a frame differs from the last one drawn only in a few items (a handle dragged, a
//! body hovered), passes 1 to 5 draw again only where those items were and are
//! ([`changes`]), over the pictures kept in the anti-aliasing pass's textures.
//!
//! Each of shadows, ground, grid, anti-aliasing and gizmo follows the frame's
//! [`Looks`](crate::render::frame::Looks). Drawing can also be run stage by stage
//! ([`Renderer::prepare`], [`Renderer::upload`], [`Renderer::submit`]) to time each, and
//! the passes of `submit` timed one by one ([`Renderer::time_passes`], [`passes`]).

mod batches;
mod changes;
mod cull;
mod gizmo;
mod gpu;
pub mod passes;
mod post;
mod prepare;
mod shadow;

use super::camera::Viewport;
use super::frame::{plane_axes, Frame, Light, Object, Rgba};
use super::mesh::{Mesh, MeshKey, MeshLibrary, MeshShape, Vertex};
use super::shader::{
    attribute, unit, GroundVariant, MeshProgram, MeshVariant, Programs, ShaderDialect, MAX_LIGHTS,
};
use batches::{fill_lines, Batch, Batches, Casters, Culling, Eye, MeshInfo, MeshRef, Partial};
use changes::{Kept, Region, Setting};
use cull::{DepthTiles, Footprint, Shown};
use glow::HasContext;
use gpu::{as_bytes, matrix_f32, GpuMesh, Instance, LineVertex, Primitive};
use nalgebra::{Matrix4, Point3, Vector3};
use passes::{PassClock, PassTimes};
use post::PictureTarget;
use prepare::{GroundValues, LightValues, Prepared};
use shadow::{ShadowMap, ShadowView};
use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::ops::Range;

/// The most a shadow darkens the ground (a share of its brightness).
const MAX_GROUND_SHADOW: f32 = 0.55;
/// How far (pixels) around a changed pixel the anti-aliasing pass's result may change: it
/// reads the diagonal neighbours and samples up to a pixel along the edge.
const ANTIALIAS_REACH: u32 = 2;
/// Triangles in the ground's fan.
const GROUND_SIDES: i32 = 48;
/// The gizmo's own light, in its eye space: from the upper right, in front.
const GIZMO_LIGHT: [f32; 4] = [0.35, 0.55, 0.76, 0.0];
/// The gizmo is drawn by the mesh program for one light without shadows.
const GIZMO_VARIANT: MeshVariant = MeshVariant {
    lights: 1,
    shadows: false,
    balls: false,
};

/// Why the renderer could not be set up or could not draw.
#[derive(Debug, Clone, PartialEq)]
pub enum RenderError {
    /// A shader failed to compile or link; the message is the driver's log.
    Shader(String),
    /// A GL object could not be created.
    Gl(String),
    /// The frame names a mesh that was never uploaded.
    MissingMesh { key: MeshKey, object: usize },
}

impl fmt::Display for RenderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RenderError::Shader(log) => write!(f, "renderer shaders: {log}"),
            RenderError::Gl(message) => write!(f, "GL: {message}"),
            RenderError::MissingMesh { key, object } => write!(
                f,
                "object {object} uses mesh {} which was not uploaded",
                key.0
            ),
        }
    }
}

impl std::error::Error for RenderError {}

/// The renderer's own meshes.
struct Builtin {
    /// Unit spheres by level of detail.
    spheres: Vec<GpuMesh>,
    arrowhead: GpuMesh,
    shaft: GpuMesh,
    disc: GpuMesh,
}

/// What the shadow map was last drawn from: the light's view, the map's size, the casters
/// and where they reach into the map.
struct ShadowDrawn {
    clip: Matrix4<f64>,
    size: u32,
    casters: Vec<(MeshRef, Instance)>,
    reach: Vec<Footprint>,
}

/// Draws frames for one GL context. The context must be current whenever a method is called
/// and when the renderer is dropped.
pub struct Renderer {
    gl: glow::Context,
    dialect: ShaderDialect,
    programs: Programs,
    meshes: HashMap<MeshKey, GpuMesh>,
    builtin: Builtin,
    instance_buffer: glow::Buffer,
    /// The bodies culling found not hidden after the first pass.
    late_buffer: glow::Buffer,
    caster_buffer: glow::Buffer,
    line_array: glow::VertexArray,
    line_buffer: glow::Buffer,
    /// Bound for draws whose vertices come from `gl_VertexID` alone.
    empty_array: glow::VertexArray,
    shadow_map: Option<ShadowMap>,
    /// What the shadow map holds.
    shadow_drawn: Option<ShadowDrawn>,
    /// What the light saw when the map was last drawn with culling.
    shadow_shown: Shown,
    /// The casters culling found not hidden after the map's first pass.
    shadow_late_buffer: glow::Buffer,
    picture: Option<PictureTarget>,
    /// Per-frame work, kept to avoid reallocating every frame.
    batches: Batches,
    casters: Casters,
    lines: Vec<LineVertex>,
    /// What the eye saw in the last frames drawn with culling.
    shown: Shown,
    /// Depths read back for culling.
    depths: Vec<f32>,
    prepared: Option<Prepared>,
    /// The picture the picture target holds, for redrawing only what changed.
    kept: Option<Kept>,
    /// The region the last frame was drawn in (`None`: the whole picture).
    drawn_region: Option<Region>,
    /// The picture target's smoothed picture is the last frame's (that frame was drawn
    /// again only in a region; a whole frame is smoothed straight into its destination).
    smoothed_kept: std::cell::Cell<bool>,
    /// Times each pass, when the benchmark asks ([`Renderer::time_passes`]).
    passes: RefCell<Option<PassClock>>,
}

impl Renderer {
    /// Creates the programs and built-in meshes. `gl` must be current on this thread.
    pub fn new(gl: glow::Context, dialect: ShaderDialect) -> Result<Renderer, RenderError> {
        crate::sim::memory::keep_freed_memory();
        // SAFETY: the caller makes `gl` current; every GL object created here is owned by the
        // renderer and deleted in `Drop`.
        unsafe {
            let programs = Programs::new(&gl, dialect).map_err(RenderError::Shader)?;
            let built =
                |mesh: Result<Mesh, _>| GpuMesh::upload(&gl, &mesh.expect("valid built-in mesh"));
            let spheres = (0..=batches::MAX_SPHERE_LEVEL)
                .map(|level| built(Mesh::sphere(1.0, level)))
                .collect::<Result<Vec<_>, _>>()?;
            let builtin = Builtin {
                spheres,
                arrowhead: built(Mesh::cone(0.35, 1.0, 12))?,
                shaft: built(Mesh::prism(gizmo::SHAFT_RADIUS, 1.0, 10))?,
                disc: GpuMesh::upload(&gl, &disc())?,
            };
            let line_array = gl.create_vertex_array().map_err(RenderError::Gl)?;
            let line_buffer = gl.create_buffer().map_err(RenderError::Gl)?;
            gl.bind_vertex_array(Some(line_array));
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(line_buffer));
            let stride = std::mem::size_of::<LineVertex>() as i32;
            gl.enable_vertex_attrib_array(attribute::POSITION);
            gl.vertex_attrib_pointer_f32(attribute::POSITION, 3, glow::FLOAT, false, stride, 0);
            gl.enable_vertex_attrib_array(attribute::LINE_COLOUR);
            gl.vertex_attrib_pointer_f32(attribute::LINE_COLOUR, 4, glow::FLOAT, false, stride, 12);
            gl.bind_vertex_array(None);
            let shadow_late_buffer = gl.create_buffer().map_err(RenderError::Gl)?;
            Ok(Renderer {
                instance_buffer: gl.create_buffer().map_err(RenderError::Gl)?,
                late_buffer: gl.create_buffer().map_err(RenderError::Gl)?,
                caster_buffer: gl.create_buffer().map_err(RenderError::Gl)?,
                empty_array: gl.create_vertex_array().map_err(RenderError::Gl)?,
                gl,
                dialect,
                programs,
                meshes: HashMap::new(),
                builtin,
                line_array,
                line_buffer,
                shadow_map: None,
                shadow_drawn: None,
                shadow_shown: Shown::default(),
                shadow_late_buffer,
                picture: None,
                batches: Batches::default(),
                casters: Casters::default(),
                lines: Vec::new(),
                shown: Shown::default(),
                depths: Vec::new(),
                prepared: None,
                kept: None,
                drawn_region: None,
                smoothed_kept: std::cell::Cell::new(false),
                passes: RefCell::new(None),
            })
        }
    }

    /// Times the passes of every frame drawn from now on (`true`) or stops (`false`): each
    /// pass then waits for GL to finish it, which makes frames slower (see [`passes`]).
    pub fn time_passes(&mut self, on: bool) {
        *self.passes.get_mut() = on.then(PassClock::new);
    }

    /// What each pass took since timing was turned on or these were last taken (nothing
    /// when timing is off).
    pub fn pass_times(&mut self) -> PassTimes {
        self.passes
            .get_mut()
            .as_mut()
            .map_or_else(PassTimes::default, PassClock::take)
    }

    /// Ends pass `name` when passes are timed.
    fn pass_done(&self, name: &'static str) {
        if let Some(clock) = self.passes.borrow_mut().as_mut() {
            clock.end(&self.gl, name);
        }
    }

    /// The part of the picture the last frame drew: `None` when it drew the whole picture,
    /// else the rectangle `[x0, y0, x1, y1]` of pixels (`x0..x1` × `y0..y1`, rows from the
    /// bottom) it drew again over the picture it kept, empty when nothing had changed (see
    /// [`changes`]). Tests and benchmarks read it.
    pub fn last_region(&self) -> Option<[u32; 4]> {
        self.drawn_region.map(|r| [r.x0, r.y0, r.x1, r.y1])
    }

    /// The GL context, for callers that need to read back or bind framebuffers.
    pub fn gl(&self) -> &glow::Context {
        &self.gl
    }

    /// Uploads `mesh` under `key`, replacing what was uploaded there before.
    pub fn upload_mesh(&mut self, key: MeshKey, mesh: &Mesh) -> Result<(), RenderError> {
        // SAFETY: the context is current (type invariant); the old buffers are no longer used.
        unsafe {
            let gpu = GpuMesh::upload(&self.gl, mesh)?;
            if let Some(old) = self.meshes.insert(key, gpu) {
                old.delete(&self.gl);
                self.shadow_drawn = None;
                self.kept = None;
            }
        }
        Ok(())
    }

    /// Uploads every mesh of `library` whose key has not been uploaded yet.
    pub fn upload_missing(&mut self, library: &MeshLibrary) -> Result<(), RenderError> {
        for (key, mesh) in library.iter() {
            if !self.meshes.contains_key(&key) {
                self.upload_mesh(key, mesh)?;
            }
        }
        Ok(())
    }

    /// Draws `frame` into the bound framebuffer, whose drawable size is `width` × `height`
    /// pixels. Clears colour and depth first; the framebuffer needs a depth buffer. An empty
    /// drawable (a side of 0, as while a window is being laid out) draws nothing.
    ///
    /// The same as [`Renderer::prepare`], [`Renderer::upload`] and [`Renderer::submit`] in
    /// turn; the benchmark calls those one by one to time each stage.
    pub fn draw(&mut self, frame: &Frame, width: u32, height: u32) -> Result<(), RenderError> {
        self.prepare(frame, width, height)?;
        self.upload();
        self.submit()
    }

    /// The second stage of [`Renderer::draw`]: the prepared instances, shadow casters and
    /// lines into their GL buffers.
    pub fn upload(&mut self) {
        let Some(prepared) = &self.prepared else {
            return;
        };
        // SAFETY: the context is current (type invariant); the buffers belong to this renderer.
        unsafe {
            let gl = &self.gl;
            for (buffer, bytes) in [
                (self.instance_buffer, as_bytes(&self.batches.instances)),
                (self.line_buffer, as_bytes(&self.lines)),
            ] {
                gl.bind_buffer(glow::ARRAY_BUFFER, Some(buffer));
                gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, bytes, glow::STREAM_DRAW);
            }
            if prepared.shadow_stale {
                gl.bind_buffer(glow::ARRAY_BUFFER, Some(self.caster_buffer));
                gl.buffer_data_u8_slice(
                    glow::ARRAY_BUFFER,
                    as_bytes(&self.casters.instances),
                    glow::STREAM_DRAW,
                );
            }
            gl.bind_buffer(glow::ARRAY_BUFFER, None);
        }
    }

    /// The last stage of [`Renderer::draw`]: the GL calls that draw the prepared and uploaded
    /// frame into the framebuffer bound now.
    pub fn submit(&mut self) -> Result<(), RenderError> {
        let Some(prepared) = self.prepared.take() else {
            return Ok(());
        };
        // SAFETY: the context is current (type invariant); all buffers, arrays, textures and
        // framebuffers bound here belong to this renderer or are the caller's framebuffer, and
        // each draw reads only the uploaded ranges.
        unsafe {
            let destination = self
                .gl
                .get_parameter_framebuffer(glow::DRAW_FRAMEBUFFER_BINDING);
            if let Some(clock) = self.passes.get_mut() {
                clock.start(&self.gl);
            }
            if let Some(view) = prepared.shadow.as_ref().filter(|_| prepared.shadow_stale) {
                self.draw_shadow_map(view, prepared.shadow_region)?;
            }
            self.pass_done("shadow map");
            let programs = &mut self.programs;
            programs
                .prepare_mesh(&self.gl, prepared.mesh_variant())
                .and_then(|()| programs.prepare_mesh(&self.gl, prepared.ball_variant()))
                .and_then(|()| programs.prepare_mesh(&self.gl, prepared.aid_variant()))
                .and_then(|()| programs.prepare_mesh(&self.gl, GIZMO_VARIANT))
                .map_err(RenderError::Shader)?;
            if let Some(variant) = prepared.ground_variant() {
                programs
                    .prepare_ground(&self.gl, variant)
                    .map_err(RenderError::Shader)?;
            }
            let into = if prepared.antialias {
                Some(
                    self.picture_target(prepared.width, prepared.height)?
                        .framebuffer,
                )
            } else {
                destination
            };
            if prepared.region.is_none_or(|r| !r.is_empty()) {
                self.draw_bodies(&prepared, into);
                if prepared.culling {
                    self.draw_late_bodies(&prepared);
                }
                self.pass_done("bodies");
            }
            self.draw_rest(&prepared, destination);
        }
        self.kept = prepared.keep;
        self.drawn_region = prepared.region;
        Ok(())
    }

    /// Clears `into` and draws the bodies (those of the first pass, when culling).
    unsafe fn draw_bodies(&self, prepared: &Prepared, into: Option<glow::Framebuffer>) {
        let gl = &self.gl;
        let (width, height) = (prepared.width, prepared.height);
        gl.bind_framebuffer(glow::FRAMEBUFFER, into);
        gl.viewport(0, 0, width as i32, height as i32);
        if let Some(region) = prepared.region {
            scissor(gl, region);
        }
        let [r, g, b, a] = prepared.background;
        gl.clear_color(r, g, b, a);
        gl.clear(glow::COLOR_BUFFER_BIT | glow::DEPTH_BUFFER_BIT);
        gl.enable(glow::DEPTH_TEST);
        gl.depth_func(glow::LEQUAL);
        gl.depth_mask(true);
        gl.enable(glow::BLEND);
        gl.blend_func_separate(
            glow::SRC_ALPHA,
            glow::ONE_MINUS_SRC_ALPHA,
            glow::ONE,
            glow::ONE_MINUS_SRC_ALPHA,
        );
        if prepared.opaque {
            gl.disable(glow::BLEND);
        }
        gl.front_face(glow::CCW);
        gl.cull_face(glow::BACK);
        gl.active_texture(glow::TEXTURE0 + unit::SHADOW_MAP);
        gl.bind_texture(
            glow::TEXTURE_2D,
            self.shadow_map.as_ref().map(|m| m.texture),
        );
        // Uniforms stay with their program: the ball program's are set once for the frame.
        self.use_mesh_program(self.programs.mesh(prepared.ball_variant()), prepared);
        let mesh = self.programs.mesh(prepared.mesh_variant());
        self.use_mesh_program(mesh, prepared);

        let batches = &self.batches;
        let objects = &batches.list[batches.objects.clone()];
        if prepared.wireframe {
            gl.disable(glow::CULL_FACE);
            gl.uniform_1_i32(mesh.lit.as_ref(), 0);
            self.draw_batches(objects, self.instance_buffer, Primitive::Edges);
        } else {
            gl.enable(glow::CULL_FACE);
            self.draw_solid_bodies(prepared, objects, self.instance_buffer);
        }
    }

    /// Draws the bodies' `batches` from `instances` with the mesh program in use, switching
    /// to the ball program for balls and back.
    unsafe fn draw_solid_bodies(
        &self,
        prepared: &Prepared,
        batches: &[Batch],
        instances: glow::Buffer,
    ) {
        let gl = &self.gl;
        let mesh = self.programs.mesh(prepared.mesh_variant()).program;
        let ball = self.programs.mesh(prepared.ball_variant()).program;
        for batch in batches {
            let is_ball = batch.mesh == MeshRef::Ball;
            if is_ball {
                gl.use_program(Some(ball));
            }
            self.draw_batches(std::slice::from_ref(batch), instances, Primitive::Triangles);
            if is_ball {
                gl.use_program(Some(mesh));
            }
        }
    }

    /// Culling's second pass: reads the depth drawn so far, draws the late bodies it does not
    /// hide, and reads the depth again to tell which bodies the next frame draws first.
    unsafe fn draw_late_bodies(&mut self, prepared: &Prepared) {
        let (width, height) = (prepared.width, prepared.height);
        self.read_depths(width, height);
        let tiles = DepthTiles::new(&self.depths, width, height);
        self.batches.fill_late(&tiles);
        let gl = &self.gl;
        gl.bind_buffer(glow::ARRAY_BUFFER, Some(self.late_buffer));
        gl.buffer_data_u8_slice(
            glow::ARRAY_BUFFER,
            as_bytes(&self.batches.culled.instances),
            glow::STREAM_DRAW,
        );
        self.draw_solid_bodies(prepared, &self.batches.culled.list, self.late_buffer);
        let culled = &self.batches.culled;
        if self.shown.due(culled.bodies()) {
            self.read_depths(width, height);
            let tiles = DepthTiles::new(&self.depths, width, height);
            self.batches.culled.shown(&tiles, &mut self.shown.bodies);
        } else {
            culled.add_drawn(&mut self.shown.bodies);
        }
    }

    /// The depth buffer of the bound framebuffer, into `depths`.
    unsafe fn read_depths(&mut self, width: u32, height: u32) {
        self.depths.resize(width as usize * height as usize, 0.0);
        let bytes = std::slice::from_raw_parts_mut(
            self.depths.as_mut_ptr().cast::<u8>(),
            std::mem::size_of_val(self.depths.as_slice()),
        );
        self.gl.pixel_store_i32(glow::PACK_ALIGNMENT, 4);
        self.gl.read_pixels(
            0,
            0,
            width as i32,
            height as i32,
            glow::DEPTH_COMPONENT,
            glow::FLOAT,
            glow::PixelPackData::Slice(Some(bytes)),
        );
    }

    /// Outlines, ground, markers, arrowheads, lines and handles, over the bodies.
    unsafe fn draw_aids(&self, prepared: &Prepared) {
        let gl = &self.gl;
        let (width, height) = (prepared.width, prepared.height);
        gl.enable(glow::BLEND);
        let batches = &self.batches;
        let outlines = &batches.list[batches.outlines.clone()];
        if !outlines.is_empty() {
            let outline = &self.programs.outline;
            gl.use_program(Some(outline.program));
            let view = matrix_f32(&prepared.view);
            gl.uniform_matrix_4_f32_slice(outline.view.as_ref(), false, &view);
            let projection = matrix_f32(&prepared.projection);
            gl.uniform_matrix_4_f32_slice(outline.projection.as_ref(), false, &projection);
            gl.uniform_2_f32(
                outline.pixel.as_ref(),
                2.0 / width as f32,
                2.0 / height as f32,
            );
            gl.enable(glow::CULL_FACE);
            self.draw_batches(outlines, self.instance_buffer, Primitive::Triangles);
        }

        if let Some(ground) = &prepared.ground {
            self.draw_ground(prepared, ground);
        }
        self.pass_done("ground");
        // Editing aids are lit but take no shadows: they are not part of the scene.
        self.use_mesh_program(self.programs.mesh(prepared.aid_variant()), prepared);
        gl.enable(glow::CULL_FACE);
        for range in [batches.markers.clone(), batches.arrowheads.clone()] {
            self.draw_batches(
                &batches.list[range],
                self.instance_buffer,
                Primitive::Triangles,
            );
        }

        if prepared.antialias {
            // Line pixels get alpha 0, which tells the anti-aliasing pass to keep them.
            gl.blend_func_separate(
                glow::SRC_ALPHA,
                glow::ONE_MINUS_SRC_ALPHA,
                glow::ZERO,
                glow::ZERO,
            );
        }
        self.draw_lines(
            &(prepared.projection * prepared.view),
            prepared.lines.clone(),
        );
        gl.blend_func_separate(
            glow::SRC_ALPHA,
            glow::ONE_MINUS_SRC_ALPHA,
            glow::ONE,
            glow::ONE_MINUS_SRC_ALPHA,
        );

        // Handles always show: they are drawn over everything, far to near.
        let handles = &batches.list[batches.handles.clone()];
        if !handles.is_empty() {
            let program = &self.programs.handle;
            gl.use_program(Some(program.program));
            let view = matrix_f32(&prepared.view);
            gl.uniform_matrix_4_f32_slice(program.view.as_ref(), false, &view);
            let projection = matrix_f32(&prepared.projection);
            gl.uniform_matrix_4_f32_slice(program.projection.as_ref(), false, &projection);
            gl.uniform_1_f32(program.per_pixel.as_ref(), prepared.per_pixel as f32);
            gl.disable(glow::DEPTH_TEST);
            gl.disable(glow::CULL_FACE);
            self.draw_batches(handles, self.instance_buffer, Primitive::Triangles);
            gl.enable(glow::DEPTH_TEST);
        }
        self.pass_done("aids");
    }

    /// Every pass after the bodies: outlines, ground, aids, handles, then (anti-aliased) into
    /// `destination`, and the gizmo.
    unsafe fn draw_rest(&self, prepared: &Prepared, destination: Option<glow::Framebuffer>) {
        let gl = &self.gl;
        let (width, height) = (prepared.width, prepared.height);
        if prepared.region.is_none_or(|r| !r.is_empty()) {
            self.draw_aids(prepared);
        }
        gl.disable(glow::SCISSOR_TEST);
        if prepared.antialias {
            self.antialias(
                destination,
                (width, height),
                prepared.region,
                prepared.smoothing,
            );
            self.pass_done("smoothing");
        }
        if let Some(gizmo) = &prepared.gizmo {
            self.draw_gizmo(gizmo, prepared);
            self.pass_done("gizmo");
        }

        gl.disable(glow::CULL_FACE);
        gl.bind_vertex_array(None);
        gl.use_program(None);
        gl.active_texture(glow::TEXTURE0);
    }

    /// Draws the shadow map of the prepared casters (in two passes when culling them), or
    /// only its `region`, and keeps what it holds.
    unsafe fn draw_shadow_map(
        &mut self,
        view: &ShadowView,
        region: Option<Region>,
    ) -> Result<(), RenderError> {
        if self
            .shadow_map
            .as_ref()
            .is_some_and(|m| m.size != view.size)
        {
            if let Some(old) = self.shadow_map.take() {
                old.delete(&self.gl);
            }
        }
        if self.shadow_map.is_none() {
            self.shadow_map = Some(ShadowMap::new(&self.gl, view.size)?);
        }
        let gl = &self.gl;
        let map = self.shadow_map.as_ref().expect("made above");
        gl.bind_framebuffer(glow::FRAMEBUFFER, Some(map.framebuffer));
        let side = view.size as i32;
        gl.viewport(0, 0, side, side);
        gl.depth_mask(true);
        if let Some(region) = region {
            scissor(gl, region);
        }
        gl.clear(glow::DEPTH_BUFFER_BIT);
        gl.enable(glow::DEPTH_TEST);
        gl.depth_func(glow::LEQUAL);
        gl.enable(glow::CULL_FACE);
        gl.cull_face(glow::BACK);
        gl.enable(glow::POLYGON_OFFSET_FILL);
        let (factor, units) = shadow::POLYGON_OFFSET;
        gl.polygon_offset(factor, units);
        let depth = &self.programs.depth;
        gl.use_program(Some(depth.program));
        gl.uniform_matrix_4_f32_slice(depth.light.as_ref(), false, &matrix_f32(&view.clip));
        self.draw_depths(&self.casters.list, self.caster_buffer);
        if self.casters.culled.active() {
            self.read_depths(view.size, view.size);
            let tiles = DepthTiles::new(&self.depths, view.size, view.size);
            self.casters.fill_late(&tiles);
            let gl = &self.gl;
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(self.shadow_late_buffer));
            gl.buffer_data_u8_slice(
                glow::ARRAY_BUFFER,
                as_bytes(&self.casters.culled.instances),
                glow::STREAM_DRAW,
            );
            self.draw_depths(&self.casters.culled.list, self.shadow_late_buffer);
            let culled = &self.casters.culled;
            if self.shadow_shown.due(culled.bodies()) {
                self.read_depths(view.size, view.size);
                let tiles = DepthTiles::new(&self.depths, view.size, view.size);
                let culled = &self.casters.culled;
                culled.shown(&tiles, &mut self.shadow_shown.bodies);
            } else {
                culled.add_drawn(&mut self.shadow_shown.bodies);
            }
        }
        self.gl.disable(glow::POLYGON_OFFSET_FILL);
        self.gl.disable(glow::SCISSOR_TEST);
        self.shadow_drawn = Some(ShadowDrawn {
            clip: view.clip,
            size: view.size,
            casters: std::mem::take(&mut self.casters.all),
            reach: std::mem::take(&mut self.casters.reach),
        });
        Ok(())
    }

    /// Draws `batches` of `instances` with the program in use, triangles only.
    unsafe fn draw_depths(&self, batches: &[Batch], instances: glow::Buffer) {
        for batch in batches {
            self.gpu_mesh(batch.mesh).draw(
                &self.gl,
                instances,
                batch.first,
                batch.count,
                Primitive::Triangles,
            );
        }
    }

    /// The texture target of the anti-aliased picture, made or resized for `width` × `height`.
    unsafe fn picture_target(
        &mut self,
        width: u32,
        height: u32,
    ) -> Result<&PictureTarget, RenderError> {
        if self
            .picture
            .as_ref()
            .is_some_and(|p| (p.width, p.height) != (width, height))
        {
            if let Some(old) = self.picture.take() {
                old.delete(&self.gl);
            }
        }
        if self.picture.is_none() {
            self.picture = Some(PictureTarget::new(&self.gl, width, height)?);
        }
        Ok(self.picture.as_ref().expect("made above"))
    }

    /// Smooths the picture's edges into `destination`, within `bounds` (`None`: the whole
    /// picture), copying the rest. A frame drawn again only in `region` smooths only in and
    /// around it, into the smoothed picture (kept since the last such frame, and smoothed
    /// whole first when it is not), and copies that into `destination`: a copy costs a
    /// software rasteriser less than smoothing. A whole frame is smoothed straight into
    /// `destination`, without the copy.
    unsafe fn antialias(
        &self,
        destination: Option<glow::Framebuffer>,
        (width, height): (u32, u32),
        region: Option<Region>,
        bounds: Option<Region>,
    ) {
        let gl = &self.gl;
        let Some(picture) = &self.picture else {
            return;
        };
        let kept = region.is_some();
        let whole = Region {
            x0: 0,
            y0: 0,
            x1: width,
            y1: height,
        };
        // The pixels this frame changes, and those of them the pass smooths.
        let changed = region
            .filter(|_| self.smoothed_kept.get())
            .map_or(whole, |r| r.grown(ANTIALIAS_REACH, (width, height)));
        let smoothed = bounds.map_or(changed, |b| changed.intersection(b));
        self.smoothed_kept.set(kept);
        let into = if kept {
            Some(picture.smoothed)
        } else {
            destination
        };
        if smoothed != changed && !changed.is_empty() {
            blit(gl, Some(picture.framebuffer), into, changed);
        }
        gl.bind_framebuffer(glow::FRAMEBUFFER, into);
        gl.viewport(0, 0, width as i32, height as i32);
        if !smoothed.is_empty() {
            if smoothed != whole {
                scissor(gl, smoothed);
            }
            gl.disable(glow::DEPTH_TEST);
            gl.disable(glow::BLEND);
            gl.disable(glow::CULL_FACE);
            let program = &self.programs.antialias;
            gl.use_program(Some(program.program));
            gl.uniform_2_f32(
                program.texel.as_ref(),
                1.0 / width as f32,
                1.0 / height as f32,
            );
            gl.active_texture(glow::TEXTURE0 + unit::PICTURE);
            gl.bind_texture(glow::TEXTURE_2D, Some(picture.colour));
            gl.bind_vertex_array(Some(self.empty_array));
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
            gl.bind_texture(glow::TEXTURE_2D, None);
            gl.active_texture(glow::TEXTURE0 + unit::SHADOW_MAP);
            gl.disable(glow::SCISSOR_TEST);
            gl.enable(glow::DEPTH_TEST);
            gl.enable(glow::BLEND);
        }
        if kept {
            blit(gl, Some(picture.smoothed), destination, whole);
            gl.bind_framebuffer(glow::FRAMEBUFFER, destination);
        }
    }

    /// The gizmo, over a cleared depth buffer in its corner.
    unsafe fn draw_gizmo(&self, gizmo: &gizmo::Gizmo, prepared: &Prepared) {
        let gl = &self.gl;
        let [x, y, w, h] = gizmo.viewport;
        gl.enable(glow::SCISSOR_TEST);
        gl.scissor(x, y, w, h);
        gl.viewport(x, y, w, h);
        gl.depth_mask(true);
        gl.clear(glow::DEPTH_BUFFER_BIT);
        gl.enable(glow::DEPTH_TEST);
        gl.enable(glow::CULL_FACE);
        let lights = LightValues {
            count: 1,
            positions: std::array::from_fn(|i| GIZMO_LIGHT.get(i).copied().unwrap_or(0.0)),
            colours: std::array::from_fn(|i| if i < 3 { 0.75 } else { 0.0 }),
            shadow_light: -1,
            up: [0.0, 1.0, 0.0],
            ambient: 0.45,
        };
        let mesh = self.programs.mesh(GIZMO_VARIANT);
        gl.use_program(Some(mesh.program));
        gl.uniform_matrix_4_f32_slice(mesh.view.as_ref(), false, &matrix_f32(&gizmo.view));
        gl.uniform_matrix_4_f32_slice(
            mesh.projection.as_ref(),
            false,
            &matrix_f32(&gizmo.projection),
        );
        gl.uniform_1_i32(mesh.lit.as_ref(), 1);
        set_lights(gl, mesh, &lights);
        self.draw_batches(
            &self.batches.list[gizmo.batches.clone()],
            self.instance_buffer,
            Primitive::Triangles,
        );
        gl.disable(glow::DEPTH_TEST);
        self.draw_lines(&gizmo.projection, gizmo.lines.clone());
        gl.enable(glow::DEPTH_TEST);
        gl.disable(glow::SCISSOR_TEST);
        gl.viewport(0, 0, prepared.width as i32, prepared.height as i32);
    }

    /// Selects the mesh program `p` and sets the frame's uniforms: matrices, lights, shadows.
    unsafe fn use_mesh_program(&self, p: &MeshProgram, prepared: &Prepared) {
        let gl = &self.gl;
        gl.use_program(Some(p.program));
        set_view_uniforms(
            gl,
            [&p.view, &p.projection, &p.shadow, &p.normal_offset],
            prepared,
        );
        gl.uniform_1_i32(p.lit.as_ref(), 1);
        set_lights(gl, p, &prepared.lights);
    }

    /// The ground: depth-tested against the bodies but not writing depth, so what is drawn
    /// after it (lines, markers) still shows where it passes below.
    unsafe fn draw_ground(&self, prepared: &Prepared, ground: &GroundValues) {
        let gl = &self.gl;
        let Some(variant) = prepared.ground_variant() else {
            return;
        };
        let p = self.programs.ground(variant);
        gl.use_program(Some(p.program));
        set_view_uniforms(
            gl,
            [&p.view, &p.projection, &p.shadow, &p.normal_offset],
            prepared,
        );
        gl.uniform_3_f32_slice(p.origin.as_ref(), &ground.origin);
        gl.uniform_3_f32_slice(p.axis_u.as_ref(), &ground.axis_u);
        gl.uniform_3_f32_slice(p.axis_v.as_ref(), &ground.axis_v);
        gl.uniform_3_f32_slice(p.normal.as_ref(), &ground.normal);
        gl.uniform_1_f32(p.extent.as_ref(), ground.extent);
        gl.uniform_1_i32(p.sides.as_ref(), GROUND_SIDES);
        gl.uniform_1_f32(p.spacing.as_ref(), ground.spacing);
        gl.uniform_4_f32_slice(p.colour.as_ref(), &ground.colour);
        gl.uniform_4_f32_slice(p.line_colour.as_ref(), &ground.line_colour);
        gl.uniform_1_f32(p.key_share.as_ref(), ground.key_share);
        gl.disable(glow::CULL_FACE);
        gl.depth_mask(false);
        gl.bind_vertex_array(Some(self.empty_array));
        gl.draw_arrays(glow::TRIANGLE_FAN, 0, GROUND_SIDES + 2);
        gl.depth_mask(true);
    }

    fn gpu_mesh(&self, mesh: MeshRef) -> &GpuMesh {
        match mesh {
            MeshRef::Scene(key) => &self.meshes[&key],
            MeshRef::Sphere(level) => &self.builtin.spheres[level as usize],
            MeshRef::Arrowhead => &self.builtin.arrowhead,
            MeshRef::Shaft => &self.builtin.shaft,
            MeshRef::Disc | MeshRef::Ball => &self.builtin.disc,
        }
    }

    /// Draws each batch with one instanced call from `instances`.
    unsafe fn draw_batches(
        &self,
        batches: &[Batch],
        instances: glow::Buffer,
        primitive: Primitive,
    ) {
        for batch in batches {
            self.gpu_mesh(batch.mesh).draw(
                &self.gl,
                instances,
                batch.first,
                batch.count,
                primitive,
            );
        }
    }

    unsafe fn draw_lines(&self, view_projection: &Matrix4<f64>, range: Range<usize>) {
        if range.is_empty() {
            return;
        }
        let gl = &self.gl;
        gl.use_program(Some(self.programs.line.program));
        gl.uniform_matrix_4_f32_slice(
            self.programs.line.view_projection.as_ref(),
            false,
            &matrix_f32(view_projection),
        );
        gl.bind_vertex_array(Some(self.line_array));
        gl.draw_arrays(glow::LINES, range.start as i32, range.len() as i32);
    }
}

impl Drop for Renderer {
    fn drop(&mut self) {
        // SAFETY: the context is current (type invariant) and nothing uses these objects after.
        unsafe {
            let gl = &self.gl;
            let builtin = &self.builtin;
            for mesh in self.meshes.values().chain(&builtin.spheres).chain([
                &builtin.arrowhead,
                &builtin.shaft,
                &builtin.disc,
            ]) {
                mesh.delete(gl);
            }
            for buffer in [
                self.instance_buffer,
                self.late_buffer,
                self.caster_buffer,
                self.shadow_late_buffer,
                self.line_buffer,
            ] {
                gl.delete_buffer(buffer);
            }
            gl.delete_vertex_array(self.line_array);
            gl.delete_vertex_array(self.empty_array);
            if let Some(map) = &self.shadow_map {
                map.delete(gl);
            }
            if let Some(picture) = &self.picture {
                picture.delete(gl);
            }
            self.programs.delete(gl);
        }
    }
}

/// Sets the uniforms the mesh and ground programs share, at their locations `[view,
/// projection, shadow, normal_offset]`: the view and projection matrices, and the shadow map's
/// texture matrix and normal offset (identity and 0 without shadows).
unsafe fn set_view_uniforms(
    gl: &glow::Context,
    at: [&Option<glow::UniformLocation>; 4],
    prepared: &Prepared,
) {
    let [view, projection, shadow_at, offset_at] = at;
    gl.uniform_matrix_4_f32_slice(view.as_ref(), false, &matrix_f32(&prepared.view));
    gl.uniform_matrix_4_f32_slice(
        projection.as_ref(),
        false,
        &matrix_f32(&prepared.projection),
    );
    let (shadow, offset) = prepared
        .shadow
        .as_ref()
        .map_or((Matrix4::identity(), 0.0), |s| (s.texture, s.normal_offset));
    gl.uniform_matrix_4_f32_slice(shadow_at.as_ref(), false, &matrix_f32(&shadow));
    gl.uniform_1_f32(offset_at.as_ref(), offset as f32);
}

/// Copies `region` of the colour of framebuffer `from` into the same pixels of `to`, and
/// leaves `to` bound for drawing.
unsafe fn blit(
    gl: &glow::Context,
    from: Option<glow::Framebuffer>,
    to: Option<glow::Framebuffer>,
    region: Region,
) {
    gl.bind_framebuffer(glow::READ_FRAMEBUFFER, from);
    gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, to);
    let (x0, y0, x1, y1) = (
        region.x0 as i32,
        region.y0 as i32,
        region.x1 as i32,
        region.y1 as i32,
    );
    gl.blit_framebuffer(
        x0,
        y0,
        x1,
        y1,
        x0,
        y0,
        x1,
        y1,
        glow::COLOR_BUFFER_BIT,
        glow::NEAREST,
    );
}

/// Limits drawing and clearing to `region`.
unsafe fn scissor(gl: &glow::Context, region: Region) {
    gl.enable(glow::SCISSOR_TEST);
    gl.scissor(
        region.x0 as i32,
        region.y0 as i32,
        (region.x1 - region.x0) as i32,
        (region.y1 - region.y0) as i32,
    );
}

/// A square from −1 to 1 in x and y, facing +z: the handles' discs are drawn on it.
fn disc() -> Mesh {
    let corner = |x: f32, y: f32| Vertex {
        position: [x, y, 0.0],
        normal: [0.0, 0.0, 1.0],
    };
    Mesh {
        shape: MeshShape::Polyhedron,
        vertices: vec![
            corner(-1.0, -1.0),
            corner(1.0, -1.0),
            corner(1.0, 1.0),
            corner(-1.0, 1.0),
        ],
        triangles: vec![[0, 1, 2], [0, 2, 3]],
        edges: vec![[0, 1], [1, 2], [2, 3], [3, 0]],
        polygons: vec![vec![0, 1, 2, 3]],
    }
}

/// Sets the light uniforms of mesh program `p`, which is in use.
unsafe fn set_lights(gl: &glow::Context, p: &MeshProgram, lights: &LightValues) {
    let count = lights.count;
    gl.uniform_4_f32_slice(p.light_position.as_ref(), &lights.positions[..4 * count]);
    gl.uniform_3_f32_slice(p.light_colour.as_ref(), &lights.colours[..3 * count]);
    gl.uniform_1_i32(p.shadow_light.as_ref(), lights.shadow_light);
    gl.uniform_3_f32_slice(p.up.as_ref(), &lights.up);
    gl.uniform_1_f32(p.ambient.as_ref(), lights.ambient);
}
