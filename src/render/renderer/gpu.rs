//! What the renderer keeps in GL memory: meshes with their vertex arrays, and the records
//! (instances, line vertices) it uploads each frame.

use super::RenderError;
use crate::render::mesh::{Mesh, MeshShape, Vertex};
use crate::render::shader::attribute;
use glow::HasContext;
use nalgebra::{Matrix4, Point3};

/// One instance of a mesh: its model matrix (column-major, world coordinates relative to the
/// frame's origin), its colour, and the rim colour and strength of a highlighted body.
/// `repr(C)` with only `f32` fields, so it is uploaded as is.
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C)]
pub(super) struct Instance {
    pub model: [f32; 16],
    pub colour: [f32; 4],
    pub highlight: [f32; 4],
}

/// One line end point: position (relative to the frame's origin) and colour.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub(super) struct LineVertex {
    pub position: [f32; 3],
    pub colour: [f32; 4],
}

/// A mesh in GPU memory: its vertex array and index buffers.
pub(super) struct GpuMesh {
    vertex_array: glow::VertexArray,
    vertices: glow::Buffer,
    triangles: glow::Buffer,
    edges: glow::Buffer,
    triangle_indices: i32,
    edge_indices: i32,
    /// Distance from the mesh origin to its farthest vertex, for the clipping planes.
    pub radius: f64,
    /// `Some(radius)` when the mesh approximates a sphere, which the renderer then draws with
    /// one of its own spheres of a detail fitted to its size on the screen.
    pub sphere: Option<f64>,
}

/// Which index list of a mesh to draw.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Primitive {
    Triangles,
    Edges,
}

impl GpuMesh {
    /// Uploads `mesh` and sets up its vertex array, with the instance attributes enabled
    /// (they are pointed at the instance buffer per draw).
    ///
    /// # Safety
    /// `gl` must be current.
    pub unsafe fn upload(gl: &glow::Context, mesh: &Mesh) -> Result<GpuMesh, RenderError> {
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
        let stride = std::mem::size_of::<Vertex>() as i32;
        gl.enable_vertex_attrib_array(attribute::POSITION);
        gl.vertex_attrib_pointer_f32(attribute::POSITION, 3, glow::FLOAT, false, stride, 0);
        gl.enable_vertex_attrib_array(attribute::NORMAL);
        gl.vertex_attrib_pointer_f32(attribute::NORMAL, 3, glow::FLOAT, false, stride, 12);
        for location in attribute::MODEL..attribute::MODEL + 4 {
            gl.enable_vertex_attrib_array(location);
            gl.vertex_attrib_divisor(location, 1);
        }
        for location in [attribute::INSTANCE_COLOUR, attribute::HIGHLIGHT] {
            gl.enable_vertex_attrib_array(location);
            gl.vertex_attrib_divisor(location, 1);
        }
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
            sphere: match mesh.shape {
                MeshShape::Sphere { radius } => Some(radius),
                MeshShape::Polyhedron => None,
            },
        })
    }

    /// Draws `count` instances from record `first` of `instances`.
    ///
    /// # Safety
    /// `gl` must be current, and `instances` hold the records.
    pub unsafe fn draw(
        &self,
        gl: &glow::Context,
        instances: glow::Buffer,
        first: usize,
        count: usize,
        primitive: Primitive,
    ) {
        gl.bind_vertex_array(Some(self.vertex_array));
        gl.bind_buffer(glow::ARRAY_BUFFER, Some(instances));
        let stride = std::mem::size_of::<Instance>() as i32;
        let base = (first * stride as usize) as i32;
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
        gl.vertex_attrib_pointer_f32(
            attribute::HIGHLIGHT,
            4,
            glow::FLOAT,
            false,
            stride,
            base + 80,
        );
        let (mode, buffer, indices) = match primitive {
            Primitive::Triangles => (glow::TRIANGLES, self.triangles, self.triangle_indices),
            Primitive::Edges => (glow::LINES, self.edges, self.edge_indices),
        };
        gl.bind_buffer(glow::ELEMENT_ARRAY_BUFFER, Some(buffer));
        gl.draw_elements_instanced(mode, indices, glow::UNSIGNED_INT, 0, count as i32);
    }

    /// Deletes the mesh's GL objects.
    ///
    /// # Safety
    /// `gl` must be current and the mesh unused after.
    pub unsafe fn delete(&self, gl: &glow::Context) {
        gl.delete_vertex_array(self.vertex_array);
        gl.delete_buffer(self.vertices);
        gl.delete_buffer(self.triangles);
        gl.delete_buffer(self.edges);
    }
}

/// The bytes of a slice of plain `f32`/`u32` records.
pub(super) fn as_bytes<T: Copy>(items: &[T]) -> &[u8] {
    // SAFETY: only used with `repr(C)` records of 4-byte scalars (no padding, no pointers), so
    // every byte is initialised; the length covers exactly the slice.
    unsafe { std::slice::from_raw_parts(items.as_ptr().cast::<u8>(), std::mem::size_of_val(items)) }
}

pub(super) fn matrix_f32(m: &Matrix4<f64>) -> [f32; 16] {
    std::array::from_fn(|i| m.as_slice()[i] as f32)
}

pub(super) fn point_f32(p: &Point3<f64>) -> [f32; 3] {
    [p.x as f32, p.y as f32, p.z as f32]
}
