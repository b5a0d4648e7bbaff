//! The GL renderer: draws a [`Frame`] into the currently bound framebuffer.
//!
//! One `Renderer` owns the programs and buffers of one `glow::Context`. Meshes are uploaded
//! once per key; each frame, the objects are grouped by mesh and drawn with one instanced
//! call per mesh from a single instance-buffer upload, so thousands of objects cost a handful
//! of GL calls. Objects are shaded with Lambert plus ambient light, handles are drawn on top of
//! everything, and selected objects are brightened and outlined.

use super::camera::{Camera, Viewport};
use super::frame::{Frame, Light, Rgba};
use super::mesh::{Mesh, MeshKey, MeshLibrary};
use super::shader::{attribute, LineProgram, MeshProgram, ShaderDialect, MAX_LIGHTS};
use glow::HasContext;
use nalgebra::{Matrix4, Point3, Translation3, UnitQuaternion, Vector3};
use std::collections::HashMap;
use std::fmt;

/// Colour of the outline drawn over selected objects.
const SELECTION_OUTLINE: Rgba = [1.0, 0.85, 0.1, 1.0];
/// How far selected objects' colours move towards white.
const SELECTION_BRIGHTEN: f32 = 0.35;
/// How far a highlighted handle's colour moves towards white, and how much it grows.
const HIGHLIGHT_BRIGHTEN: f32 = 0.5;
const HIGHLIGHT_GROWTH: f64 = 1.5;
/// Arrowhead length on the screen, in pixels (at most half the arrow).
const ARROWHEAD_PIXELS: f64 = 14.0;
/// Radius of trajectory control-point markers, in pixels.
const MARKER_PIXELS: f64 = 3.5;
/// Clip-space pull towards the eye that keeps outlines in front of the faces they border.
const OUTLINE_DEPTH_BIAS: f32 = 2e-4;
/// Level of detail of the sphere used for handles and markers.
const HANDLE_SPHERE_LEVEL: u32 = 1;

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

/// One instance of a mesh: its model-view matrix (column-major) and colour. `repr(C)` with only
/// `f32` fields, so it is uploaded as is.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
struct Instance {
    model: [f32; 16],
    colour: [f32; 4],
}

/// One line end point: position and colour.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
struct LineVertex {
    position: [f32; 3],
    colour: [f32; 4],
}

/// A mesh in GPU memory: its vertex array and index buffers.
struct GpuMesh {
    vertex_array: glow::VertexArray,
    vertices: glow::Buffer,
    triangles: glow::Buffer,
    edges: glow::Buffer,
    triangle_indices: i32,
    edge_indices: i32,
    /// Distance from the mesh origin to its farthest vertex, for the clipping planes.
    radius: f64,
}

/// Which index list of a mesh to draw.
#[derive(Clone, Copy, PartialEq)]
enum Primitive {
    Triangles,
    Edges,
}

/// A run of instances in the frame's instance buffer that share one mesh.
struct Batch {
    mesh: MeshRef,
    first: usize,
    count: usize,
}

/// A scene mesh or one of the renderer's own.
#[derive(Clone, Copy, PartialEq)]
enum MeshRef {
    Scene(MeshKey),
    Sphere,
    Arrowhead,
}

/// Draws frames for one GL context. The context must be current whenever a method is called
/// and when the renderer is dropped.
pub struct Renderer {
    gl: glow::Context,
    mesh_program: MeshProgram,
    line_program: LineProgram,
    meshes: HashMap<MeshKey, GpuMesh>,
    sphere: GpuMesh,
    arrowhead: GpuMesh,
    instance_buffer: glow::Buffer,
    line_array: glow::VertexArray,
    line_buffer: glow::Buffer,
    /// Per-frame scratch space, kept to avoid reallocating every frame.
    instances: Vec<Instance>,
    keyed: Vec<(MeshKey, Instance)>,
    lines: Vec<LineVertex>,
    /// What [`Renderer::prepare`] made for [`Renderer::submit`].
    prepared: Option<Prepared>,
}

/// A prepared frame: its size, matrices and batches.
struct Prepared {
    width: u32,
    height: u32,
    projection: Matrix4<f64>,
    view: Matrix4<f64>,
    batches: Vec<Batch>,
    objects: std::ops::Range<usize>,
    outlines: std::ops::Range<usize>,
    markers: std::ops::Range<usize>,
    arrowheads: std::ops::Range<usize>,
    handles: std::ops::Range<usize>,
}

impl Renderer {
    /// Creates the programs and built-in meshes. `gl` must be current on this thread.
    pub fn new(gl: glow::Context, dialect: ShaderDialect) -> Result<Renderer, RenderError> {
        // SAFETY: the caller makes `gl` current; every GL object created here is owned by the
        // renderer and deleted in `Drop`.
        unsafe {
            let mesh_program = MeshProgram::new(&gl, dialect).map_err(RenderError::Shader)?;
            let line_program = LineProgram::new(&gl, dialect).map_err(RenderError::Shader)?;
            let instance_buffer = gl.create_buffer().map_err(RenderError::Gl)?;
            let sphere_mesh =
                Mesh::sphere(1.0, HANDLE_SPHERE_LEVEL).expect("valid built-in sphere");
            let arrowhead_mesh = Mesh::cone(0.35, 1.0, 12).expect("valid built-in cone");
            let sphere = upload(&gl, &sphere_mesh)?;
            let arrowhead = upload(&gl, &arrowhead_mesh)?;
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
            Ok(Renderer {
                gl,
                mesh_program,
                line_program,
                meshes: HashMap::new(),
                sphere,
                arrowhead,
                instance_buffer,
                line_array,
                line_buffer,
                instances: Vec::new(),
                keyed: Vec::new(),
                lines: Vec::new(),
                prepared: None,
            })
        }
    }

    /// The GL context, for callers that need to read back or bind framebuffers.
    pub fn gl(&self) -> &glow::Context {
        &self.gl
    }

    /// Uploads `mesh` under `key`, replacing what was uploaded there before.
    pub fn upload_mesh(&mut self, key: MeshKey, mesh: &Mesh) -> Result<(), RenderError> {
        // SAFETY: the context is current (type invariant); the old buffers are no longer used.
        unsafe {
            let gpu = upload(&self.gl, mesh)?;
            if let Some(old) = self.meshes.insert(key, gpu) {
                delete(&self.gl, &old);
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

    /// Whether a mesh has been uploaded under `key`.
    pub fn has_mesh(&self, key: MeshKey) -> bool {
        self.meshes.contains_key(&key)
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
        self.submit(frame);
        Ok(())
    }

    /// The first stage of [`Renderer::draw`], on the CPU only: the instances and lines of
    /// `frame` in a picture of `width` × `height` pixels.
    pub fn prepare(&mut self, frame: &Frame, width: u32, height: u32) -> Result<(), RenderError> {
        self.prepared = None;
        if let Some((object, o)) = frame
            .objects
            .iter()
            .enumerate()
            .find(|(_, o)| !self.meshes.contains_key(&o.mesh))
        {
            return Err(RenderError::MissingMesh {
                key: o.mesh,
                object,
            });
        }
        if width == 0 || height == 0 {
            return Ok(());
        }
        let viewport = Viewport::new(f64::from(width), f64::from(height));
        let camera = &frame.camera;
        let (near, far) = camera.clip_range(&self.bounding_spheres(frame));
        let projection = camera.projection_matrix(viewport.aspect(), near, far);
        let eye = Eye::new(camera, &viewport);

        let mut batches = Vec::new();
        self.instances.clear();
        let (objects, outlines) = self.object_batches(frame, &eye, &mut batches);
        let markers = self.push_batch(&mut batches, MeshRef::Sphere, marker_instances(frame, &eye));
        let arrowheads = self.push_batch(
            &mut batches,
            MeshRef::Arrowhead,
            arrowhead_instances(frame, &eye),
        );
        let handles = self.push_batch(&mut batches, MeshRef::Sphere, handle_instances(frame, &eye));
        self.fill_lines(frame, &eye);
        self.prepared = Some(Prepared {
            width,
            height,
            projection,
            view: eye.view,
            batches,
            objects,
            outlines,
            markers,
            arrowheads,
            handles,
        });
        Ok(())
    }

    /// The second stage of [`Renderer::draw`]: the prepared instances and lines into their
    /// GL buffers.
    pub fn upload(&mut self) {
        if self.prepared.is_none() {
            return;
        }
        // SAFETY: the context is current (type invariant); the buffers belong to this renderer.
        unsafe {
            let gl = &self.gl;
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(self.instance_buffer));
            gl.buffer_data_u8_slice(
                glow::ARRAY_BUFFER,
                as_bytes(&self.instances),
                glow::STREAM_DRAW,
            );
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(self.line_buffer));
            gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, as_bytes(&self.lines), glow::STREAM_DRAW);
        }
    }

    /// The last stage of [`Renderer::draw`]: the GL calls that draw the prepared and uploaded
    /// frame (which must be the `frame` given to [`Renderer::prepare`]).
    pub fn submit(&mut self, frame: &Frame) {
        let Some(prepared) = self.prepared.take() else {
            return;
        };
        let Prepared {
            width,
            height,
            projection,
            view,
            batches,
            objects,
            outlines,
            markers,
            arrowheads,
            handles,
        } = &prepared;
        // SAFETY: the context is current (type invariant); all buffers and arrays bound here
        // belong to this renderer, and each draw reads only the uploaded ranges.
        unsafe {
            let gl = &self.gl;
            gl.viewport(0, 0, *width as i32, *height as i32);
            let [r, g, b, a] = frame.background;
            gl.clear_color(r, g, b, a);
            gl.clear(glow::COLOR_BUFFER_BIT | glow::DEPTH_BUFFER_BIT);
            gl.enable(glow::DEPTH_TEST);
            gl.depth_func(glow::LEQUAL);
            gl.enable(glow::BLEND);
            gl.blend_func_separate(
                glow::SRC_ALPHA,
                glow::ONE_MINUS_SRC_ALPHA,
                glow::ONE,
                glow::ONE_MINUS_SRC_ALPHA,
            );
            gl.front_face(glow::CCW);
            gl.cull_face(glow::BACK);
            self.use_mesh_program(frame, projection);

            let object_primitive = if frame.wireframe {
                gl.disable(glow::CULL_FACE);
                gl.uniform_1_i32(self.mesh_program.lit.as_ref(), 0);
                Primitive::Edges
            } else {
                gl.enable(glow::CULL_FACE);
                Primitive::Triangles
            };
            self.draw_batches(&batches[objects.clone()], object_primitive);

            gl.uniform_1_i32(self.mesh_program.lit.as_ref(), 0);
            gl.uniform_1_f32(self.mesh_program.depth_bias.as_ref(), OUTLINE_DEPTH_BIAS);
            self.draw_batches(&batches[outlines.clone()], Primitive::Edges);
            gl.uniform_1_f32(self.mesh_program.depth_bias.as_ref(), 0.0);

            gl.uniform_1_i32(self.mesh_program.lit.as_ref(), 1);
            gl.enable(glow::CULL_FACE);
            self.draw_batches(&batches[markers.clone()], Primitive::Triangles);
            self.draw_batches(&batches[arrowheads.clone()], Primitive::Triangles);

            self.draw_lines(view, projection);

            // Handles always show: they are drawn over a cleared depth buffer.
            gl.clear(glow::DEPTH_BUFFER_BIT);
            gl.use_program(Some(self.mesh_program.program));
            self.draw_batches(&batches[handles.clone()], Primitive::Triangles);

            gl.disable(glow::CULL_FACE);
            gl.bind_vertex_array(None);
            gl.use_program(None);
        }
    }

    /// Spheres enclosing everything drawn, from the uploaded meshes' radii.
    fn bounding_spheres(&self, frame: &Frame) -> Vec<(Point3<f64>, f64)> {
        frame.bounding_spheres_by(|key| self.meshes.get(&key).map(|m| m.radius))
    }

    /// Appends the objects' instances grouped by mesh, then the selection outlines, and
    /// returns the two ranges of `batches`.
    fn object_batches(
        &mut self,
        frame: &Frame,
        eye: &Eye,
        batches: &mut Vec<Batch>,
    ) -> (std::ops::Range<usize>, std::ops::Range<usize>) {
        let mut keyed = std::mem::take(&mut self.keyed);
        keyed.clear();
        keyed.extend(frame.objects.iter().map(|o| {
            let colour = if o.selected {
                towards_white(o.colour, SELECTION_BRIGHTEN)
            } else {
                o.colour
            };
            (
                o.mesh,
                eye.instance(&o.placement().to_homogeneous(), colour),
            )
        }));
        // Grouped by mesh, and near to far within a group so that hidden fragments fail the
        // depth test before they are shaded.
        keyed.sort_by(|(a, i), (b, j)| a.cmp(b).then(j.model[14].total_cmp(&i.model[14])));
        let start = batches.len();
        self.push_keyed(batches, &keyed);
        let middle = batches.len();
        keyed.clear();
        keyed.extend(frame.objects.iter().filter(|o| o.selected).map(|o| {
            (
                o.mesh,
                eye.instance(&o.placement().to_homogeneous(), SELECTION_OUTLINE),
            )
        }));
        keyed.sort_by_key(|(key, _)| *key);
        self.push_keyed(batches, &keyed);
        self.keyed = keyed;
        (start..middle, middle..batches.len())
    }

    /// Appends runs of instances sorted by mesh key, one batch per key.
    fn push_keyed(&mut self, batches: &mut Vec<Batch>, keyed: &[(MeshKey, Instance)]) {
        for run in keyed.chunk_by(|a, b| a.0 == b.0) {
            batches.push(Batch {
                mesh: MeshRef::Scene(run[0].0),
                first: self.instances.len(),
                count: run.len(),
            });
            self.instances.extend(run.iter().map(|(_, i)| *i));
        }
    }

    /// Appends one batch of a built-in mesh and returns its range in `batches`.
    fn push_batch(
        &mut self,
        batches: &mut Vec<Batch>,
        mesh: MeshRef,
        instances: Vec<Instance>,
    ) -> std::ops::Range<usize> {
        let start = batches.len();
        if !instances.is_empty() {
            batches.push(Batch {
                mesh,
                first: self.instances.len(),
                count: instances.len(),
            });
            self.instances.extend(instances);
        }
        start..batches.len()
    }

    /// Collects the line segments: links, arrow shafts, trajectories and the grid.
    fn fill_lines(&mut self, frame: &Frame, eye: &Eye) {
        let lines = &mut self.lines;
        lines.clear();
        let mut segment = |a: &Point3<f64>, b: &Point3<f64>, colour: Rgba| {
            lines.push(LineVertex {
                position: point_f32(a),
                colour,
            });
            lines.push(LineVertex {
                position: point_f32(b),
                colour,
            });
        };
        if let Some(grid) = &frame.grid {
            for (a, b) in grid.segments() {
                segment(&a, &b, grid.colour);
            }
        }
        for line in &frame.lines {
            segment(&line.from, &line.to, line.colour);
        }
        for arrow in &frame.arrows {
            if let Some(head) = arrowhead(arrow.origin, arrow.vector, eye) {
                segment(&arrow.origin, &head.base, arrow.colour);
            }
        }
        for polyline in &frame.polylines {
            for pair in polyline.points.windows(2) {
                segment(&pair[0], &pair[1], polyline.colour);
            }
        }
    }

    /// Selects the mesh program and sets the per-frame uniforms: matrices and eye-space lights.
    unsafe fn use_mesh_program(&self, frame: &Frame, projection: &Matrix4<f64>) {
        let gl = &self.gl;
        let p = &self.mesh_program;
        gl.use_program(Some(p.program));
        gl.uniform_matrix_4_f32_slice(p.projection.as_ref(), false, &matrix_f32(projection));
        gl.uniform_1_f32(p.depth_bias.as_ref(), 0.0);
        gl.uniform_1_i32(p.lit.as_ref(), 1);
        gl.uniform_1_f32(p.ambient.as_ref(), frame.ambient);
        let lights = frame.effective_lights();
        let mut positions = [0f32; 4 * MAX_LIGHTS];
        let mut colours = [0f32; 3 * MAX_LIGHTS];
        for (i, light) in lights.iter().take(MAX_LIGHTS).enumerate() {
            let (position, colour) = eye_light(&frame.camera, light);
            positions[4 * i..4 * i + 4].copy_from_slice(&position);
            colours[3 * i..3 * i + 3].copy_from_slice(&colour);
        }
        gl.uniform_1_i32(p.light_count.as_ref(), lights.len().min(MAX_LIGHTS) as i32);
        gl.uniform_4_f32_slice(p.light_position.as_ref(), &positions);
        gl.uniform_3_f32_slice(p.light_colour.as_ref(), &colours);
    }

    /// Draws each batch with one instanced call, pointing the instance attributes at its run.
    unsafe fn draw_batches(&self, batches: &[Batch], primitive: Primitive) {
        let gl = &self.gl;
        let stride = std::mem::size_of::<Instance>() as i32;
        for batch in batches {
            let mesh = match batch.mesh {
                MeshRef::Scene(key) => &self.meshes[&key],
                MeshRef::Sphere => &self.sphere,
                MeshRef::Arrowhead => &self.arrowhead,
            };
            gl.bind_vertex_array(Some(mesh.vertex_array));
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(self.instance_buffer));
            let base = (batch.first * stride as usize) as i32;
            for column in 0..4 {
                gl.vertex_attrib_pointer_f32(
                    attribute::MODEL + column,
                    4,
                    glow::FLOAT,
                    false,
                    stride,
                    base + 16 * column as i32,
                );
            }
            gl.vertex_attrib_pointer_f32(
                attribute::INSTANCE_COLOUR,
                4,
                glow::FLOAT,
                false,
                stride,
                base + 64,
            );
            let (mode, buffer, count) = match primitive {
                Primitive::Triangles => (glow::TRIANGLES, mesh.triangles, mesh.triangle_indices),
                Primitive::Edges => (glow::LINES, mesh.edges, mesh.edge_indices),
            };
            gl.bind_buffer(glow::ELEMENT_ARRAY_BUFFER, Some(buffer));
            gl.draw_elements_instanced(mode, count, glow::UNSIGNED_INT, 0, batch.count as i32);
        }
    }

    unsafe fn draw_lines(&self, view: &Matrix4<f64>, projection: &Matrix4<f64>) {
        if self.lines.is_empty() {
            return;
        }
        let gl = &self.gl;
        gl.use_program(Some(self.line_program.program));
        gl.uniform_matrix_4_f32_slice(
            self.line_program.view_projection.as_ref(),
            false,
            &matrix_f32(&(projection * view)),
        );
        gl.bind_vertex_array(Some(self.line_array));
        gl.draw_arrays(glow::LINES, 0, self.lines.len() as i32);
    }
}

impl Drop for Renderer {
    fn drop(&mut self) {
        // SAFETY: the context is current (type invariant) and nothing uses these objects after.
        unsafe {
            let gl = &self.gl;
            for mesh in self.meshes.values().chain([&self.sphere, &self.arrowhead]) {
                delete(gl, mesh);
            }
            gl.delete_buffer(self.instance_buffer);
            gl.delete_buffer(self.line_buffer);
            gl.delete_vertex_array(self.line_array);
            gl.delete_program(self.mesh_program.program);
            gl.delete_program(self.line_program.program);
        }
    }
}

/// The view of one frame: turns models into instances (with their model-view matrix) and
/// screen sizes in pixels into world lengths.
struct Eye<'a> {
    camera: &'a Camera,
    view: Matrix4<f64>,
    /// Eye units per pixel at unit depth.
    per_pixel: f64,
}

impl<'a> Eye<'a> {
    fn new(camera: &'a Camera, viewport: &Viewport) -> Self {
        let per_pixel = 2.0 * (camera.fov_y / 2.0).tan() / viewport.height.max(1.0);
        Eye {
            camera,
            view: camera.view_matrix(),
            per_pixel,
        }
    }

    /// An instance of a mesh placed by `model` in the world.
    fn instance(&self, model: &Matrix4<f64>, colour: Rgba) -> Instance {
        Instance {
            model: matrix_f32(&(self.view * model)),
            colour,
        }
    }

    /// The world length that `pixels` covers at `p`.
    fn world_length(&self, p: &Point3<f64>, pixels: f64) -> f64 {
        let depth = (-self.camera.to_eye(p).z).max(1e-9);
        pixels * depth * self.per_pixel / self.camera.scale
    }
}

/// Where an arrowhead sits: its base centre, the arrow's unit direction and its length.
struct ArrowHead {
    base: Point3<f64>,
    direction: Vector3<f64>,
    length: f64,
}

fn arrowhead(origin: Point3<f64>, vector: Vector3<f64>, eye: &Eye) -> Option<ArrowHead> {
    let length = vector.norm();
    if length <= f64::EPSILON || !length.is_finite() {
        return None;
    }
    let tip = origin + vector;
    let head = eye.world_length(&tip, ARROWHEAD_PIXELS).min(length / 2.0);
    let direction = vector / length;
    Some(ArrowHead {
        base: tip - direction * head,
        direction,
        length: head,
    })
}

fn arrowhead_instances(frame: &Frame, eye: &Eye) -> Vec<Instance> {
    frame
        .arrows
        .iter()
        .filter_map(|arrow| {
            let head = arrowhead(arrow.origin, arrow.vector, eye)?;
            let turn = UnitQuaternion::rotation_between(&Vector3::z(), &head.direction)
                .unwrap_or_else(|| {
                    UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::PI)
                });
            let model = Translation3::from(head.base.coords).to_homogeneous()
                * turn.to_homogeneous()
                * Matrix4::new_scaling(head.length);
            Some(eye.instance(&model, arrow.colour))
        })
        .collect()
}

fn handle_instances(frame: &Frame, eye: &Eye) -> Vec<Instance> {
    frame
        .handles
        .iter()
        .map(|h| {
            let (pixels, colour) = if h.highlighted {
                (
                    f64::from(frame.handle_radius) * HIGHLIGHT_GROWTH,
                    towards_white(h.colour, HIGHLIGHT_BRIGHTEN),
                )
            } else {
                (f64::from(frame.handle_radius), h.colour)
            };
            sphere_instance(
                eye,
                &h.position,
                eye.world_length(&h.position, pixels),
                colour,
            )
        })
        .collect()
}

fn marker_instances(frame: &Frame, eye: &Eye) -> Vec<Instance> {
    frame
        .polylines
        .iter()
        .flat_map(|p| p.control_points.iter().map(move |c| (c, p.colour)))
        .map(|(c, colour)| sphere_instance(eye, c, eye.world_length(c, MARKER_PIXELS), colour))
        .collect()
}

fn sphere_instance(eye: &Eye, centre: &Point3<f64>, radius: f64, colour: Rgba) -> Instance {
    let model = Translation3::from(centre.coords).to_homogeneous() * Matrix4::new_scaling(radius);
    eye.instance(&model, colour)
}

/// A light as the shader wants it: eye-space position (w = 1) or direction towards the light
/// (w = 0), and its colour.
fn eye_light(camera: &Camera, light: &Light) -> ([f32; 4], [f32; 3]) {
    match light {
        Light::Directional { direction, colour } => {
            let towards: Vector3<f64> = -(camera.rotation * direction.into_inner());
            (
                [towards.x as f32, towards.y as f32, towards.z as f32, 0.0],
                *colour,
            )
        }
        Light::Point { position, colour } => {
            let p = camera.to_eye(position);
            ([p.x as f32, p.y as f32, p.z as f32, 1.0], *colour)
        }
    }
}

fn towards_white(colour: Rgba, amount: f32) -> Rgba {
    let [r, g, b, a] = colour;
    let mix = |c: f32| c + (1.0 - c) * amount;
    [mix(r), mix(g), mix(b), a]
}

fn matrix_f32(m: &Matrix4<f64>) -> [f32; 16] {
    std::array::from_fn(|i| m.as_slice()[i] as f32)
}

fn point_f32(p: &Point3<f64>) -> [f32; 3] {
    [p.x as f32, p.y as f32, p.z as f32]
}

/// The bytes of a slice of plain `f32`/`u32` records.
fn as_bytes<T: Copy>(items: &[T]) -> &[u8] {
    // SAFETY: only used with `repr(C)` records of 4-byte scalars (no padding, no pointers), so
    // every byte is initialised; the length covers exactly the slice.
    unsafe { std::slice::from_raw_parts(items.as_ptr().cast::<u8>(), std::mem::size_of_val(items)) }
}

/// Uploads a mesh and sets up its vertex array, with the instance attributes enabled (they
/// are pointed at the instance buffer per draw).
unsafe fn upload(gl: &glow::Context, mesh: &Mesh) -> Result<GpuMesh, RenderError> {
    let vertex_array = gl.create_vertex_array().map_err(RenderError::Gl)?;
    let vertices = gl.create_buffer().map_err(RenderError::Gl)?;
    let triangles = gl.create_buffer().map_err(RenderError::Gl)?;
    let edges = gl.create_buffer().map_err(RenderError::Gl)?;
    gl.bind_vertex_array(Some(vertex_array));
    gl.bind_buffer(glow::ARRAY_BUFFER, Some(vertices));
    gl.buffer_data_u8_slice(
        glow::ARRAY_BUFFER,
        as_bytes(&mesh.vertices),
        glow::STATIC_DRAW,
    );
    let stride = std::mem::size_of::<super::mesh::Vertex>() as i32;
    gl.enable_vertex_attrib_array(attribute::POSITION);
    gl.vertex_attrib_pointer_f32(attribute::POSITION, 3, glow::FLOAT, false, stride, 0);
    gl.enable_vertex_attrib_array(attribute::NORMAL);
    gl.vertex_attrib_pointer_f32(attribute::NORMAL, 3, glow::FLOAT, false, stride, 12);
    for location in attribute::MODEL..attribute::MODEL + 4 {
        gl.enable_vertex_attrib_array(location);
        gl.vertex_attrib_divisor(location, 1);
    }
    gl.enable_vertex_attrib_array(attribute::INSTANCE_COLOUR);
    gl.vertex_attrib_divisor(attribute::INSTANCE_COLOUR, 1);
    gl.bind_buffer(glow::ELEMENT_ARRAY_BUFFER, Some(triangles));
    gl.buffer_data_u8_slice(
        glow::ELEMENT_ARRAY_BUFFER,
        as_bytes(&mesh.triangles),
        glow::STATIC_DRAW,
    );
    gl.bind_buffer(glow::ELEMENT_ARRAY_BUFFER, Some(edges));
    gl.buffer_data_u8_slice(
        glow::ELEMENT_ARRAY_BUFFER,
        as_bytes(&mesh.edges),
        glow::STATIC_DRAW,
    );
    gl.bind_vertex_array(None);
    gl.bind_buffer(glow::ARRAY_BUFFER, None);
    Ok(GpuMesh {
        vertex_array,
        vertices,
        triangles,
        edges,
        triangle_indices: 3 * mesh.triangles.len() as i32,
        edge_indices: 2 * mesh.edges.len() as i32,
        radius: mesh.radius(),
    })
}

unsafe fn delete(gl: &glow::Context, mesh: &GpuMesh) {
    gl.delete_vertex_array(mesh.vertex_array);
    gl.delete_buffer(mesh.vertices);
    gl.delete_buffer(mesh.triangles);
    gl.delete_buffer(mesh.edges);
}
