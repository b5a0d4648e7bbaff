//! CPU triangle meshes with normals: flat-shaded convex polyhedra and smooth spheres.
//!
//! A [`Mesh`] is what the renderer uploads once per [`MeshKey`] and what the exporters read:
//! triangles for filled drawing, edges for wireframes and outlines, and the original polygons
//! (counter-clockwise seen from outside) for line drawings and ray-tracer input.

use nalgebra::{Point3, Vector3};
use std::collections::{BTreeMap, HashSet};
use std::fmt;

/// Identifies one shape's mesh. Frames refer to meshes by key so that a mesh is uploaded to the
/// GPU once and reused by every object that has that shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MeshKey(pub u64);

/// What a mesh approximates; exporters that know true spheres (Rayshade) use it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MeshShape {
    /// A convex polyhedron given by its faces; the mesh is exact.
    Polyhedron,
    /// A sphere of this radius centred at the mesh origin; the mesh is an approximation.
    Sphere { radius: f64 },
}

/// One mesh corner: a position and the unit normal used for shading there.
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C)]
pub struct Vertex {
    pub position: [f32; 3],
    pub normal: [f32; 3],
}

/// A triangle mesh with per-vertex normals, its drawable edges and its source polygons.
#[derive(Debug, Clone, PartialEq)]
pub struct Mesh {
    pub shape: MeshShape,
    pub vertices: Vec<Vertex>,
    /// Counter-clockwise triangles seen from outside, indexing `vertices`.
    pub triangles: Vec<[u32; 3]>,
    /// Each visible edge once (polygon boundaries, not triangulation diagonals).
    pub edges: Vec<[u32; 2]>,
    /// The faces as vertex loops, counter-clockwise seen from outside.
    pub polygons: Vec<Vec<u32>>,
}

/// Why a mesh could not be built, with the face or parameter at fault.
#[derive(Debug, Clone, PartialEq)]
pub enum MeshError {
    /// A face lists fewer than three vertices.
    TooFewVertices { face: usize, count: usize },
    /// A face refers to a point that does not exist.
    IndexOutOfRange {
        face: usize,
        index: usize,
        points: usize,
    },
    /// A point has a NaN or infinite coordinate.
    NonFinitePoint { point: usize },
    /// A face has (almost) no area, so it has no normal.
    Degenerate { face: usize },
    /// A face turns the wrong way at a corner: it is not convex, or not planar, or its
    /// vertices are not in one consistent order.
    NotConvex { face: usize, corner: usize },
    /// A sphere radius that is not a positive finite number.
    BadRadius { radius: f64 },
    /// A sphere level of detail above [`Mesh::MAX_SPHERE_LEVEL`].
    LevelTooHigh { level: u32 },
}

impl fmt::Display for MeshError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MeshError::TooFewVertices { face, count } => {
                write!(
                    f,
                    "face {face}: expected at least 3 vertices, found {count}"
                )
            }
            MeshError::IndexOutOfRange {
                face,
                index,
                points,
            } => write!(
                f,
                "face {face}: vertex index {index} is out of range (the shape has {points} points)"
            ),
            MeshError::NonFinitePoint { point } => {
                write!(f, "point {point}: coordinates must be finite numbers")
            }
            MeshError::Degenerate { face } => write!(f, "face {face}: has no area"),
            MeshError::NotConvex { face, corner } => write!(
                f,
                "face {face}: not a convex planar polygon in one winding order (at corner {corner})"
            ),
            MeshError::BadRadius { radius } => {
                write!(
                    f,
                    "sphere radius must be a positive finite number, found {radius}"
                )
            }
            MeshError::LevelTooHigh { level } => write!(
                f,
                "sphere level of detail must be at most {}, found {level}",
                Mesh::MAX_SPHERE_LEVEL
            ),
        }
    }
}

impl std::error::Error for MeshError {}

impl Mesh {
    /// The highest sphere level of detail (512 segments around the equator).
    pub const MAX_SPHERE_LEVEL: u32 = 6;

    /// A flat-shaded convex polyhedron from `points` and `faces`, each face a list of point
    /// indices in counter-clockwise order seen from outside. Every face gets its own vertices
    /// carrying the face normal, so shading is flat.
    pub fn polyhedron(points: &[Point3<f64>], faces: &[Vec<usize>]) -> Result<Mesh, MeshError> {
        if let Some(point) = points
            .iter()
            .position(|p| !p.coords.iter().all(|c| c.is_finite()))
        {
            return Err(MeshError::NonFinitePoint { point });
        }
        let mut mesh = Mesh {
            shape: MeshShape::Polyhedron,
            vertices: Vec::new(),
            triangles: Vec::new(),
            edges: Vec::new(),
            polygons: Vec::with_capacity(faces.len()),
        };
        let mut seen_edges = HashSet::new();
        for (face_index, face) in faces.iter().enumerate() {
            let corners = face_points(points, face, face_index)?;
            let normal = face_normal(&corners, face_index)?;
            check_convex(&corners, &normal, face_index)?;
            let first = mesh.vertices.len() as u32;
            mesh.vertices.extend(corners.iter().map(|p| Vertex {
                position: to_f32(&p.coords),
                normal: to_f32(&normal),
            }));
            let loop_indices: Vec<u32> = (first..first + face.len() as u32).collect();
            for k in 1..loop_indices.len() - 1 {
                mesh.triangles
                    .push([loop_indices[0], loop_indices[k], loop_indices[k + 1]]);
            }
            for k in 0..face.len() {
                let next = (k + 1) % face.len();
                let key = (face[k].min(face[next]), face[k].max(face[next]));
                if seen_edges.insert(key) {
                    mesh.edges.push([loop_indices[k], loop_indices[next]]);
                }
            }
            mesh.polygons.push(loop_indices);
        }
        Ok(mesh)
    }

    /// A smooth sphere of `radius` centred at the origin. Level 0 has 8 segments around the
    /// equator and 4 from pole to pole; each level doubles both.
    pub fn sphere(radius: f64, level: u32) -> Result<Mesh, MeshError> {
        if !(radius.is_finite() && radius > 0.0) {
            return Err(MeshError::BadRadius { radius });
        }
        if level > Self::MAX_SPHERE_LEVEL {
            return Err(MeshError::LevelTooHigh { level });
        }
        let slices = 8u32 << level;
        let stacks = 4u32 << level;
        let mut vertices = Vec::with_capacity(((slices + 1) * (stacks + 1)) as usize);
        for i in 0..=stacks {
            let polar = std::f64::consts::PI * f64::from(i) / f64::from(stacks);
            for j in 0..=slices {
                let azimuth = std::f64::consts::TAU * f64::from(j) / f64::from(slices);
                let n = Vector3::new(
                    polar.sin() * azimuth.cos(),
                    polar.sin() * azimuth.sin(),
                    polar.cos(),
                );
                vertices.push(Vertex {
                    position: to_f32(&(n * radius)),
                    normal: to_f32(&n),
                });
            }
        }
        let index = |i: u32, j: u32| i * (slices + 1) + j;
        let mut triangles = Vec::new();
        let mut polygons = Vec::new();
        let mut edges = Vec::new();
        for i in 0..stacks {
            for j in 0..slices {
                let (a, b) = (index(i, j), index(i + 1, j));
                let (c, d) = (index(i + 1, j + 1), index(i, j + 1));
                // Counter-clockwise seen from outside: down the meridian, then east.
                if i == 0 {
                    polygons.push(vec![a, b, c]);
                    triangles.push([a, b, c]);
                } else if i == stacks - 1 {
                    polygons.push(vec![a, b, d]);
                    triangles.push([a, b, d]);
                } else {
                    polygons.push(vec![a, b, c, d]);
                    triangles.push([a, b, c]);
                    triangles.push([a, c, d]);
                }
                edges.push([a, b]);
                if i > 0 {
                    edges.push([a, d]);
                }
            }
        }
        Ok(Mesh {
            shape: MeshShape::Sphere { radius },
            vertices,
            triangles,
            edges,
            polygons,
        })
    }

    /// A flat-shaded cone with `sides` faces around, its base circle of `radius` on the z = 0
    /// plane and its apex at (0, 0, `height`); the renderer's arrowheads.
    pub fn cone(radius: f64, height: f64, sides: usize) -> Result<Mesh, MeshError> {
        if !(radius.is_finite() && radius > 0.0 && height.is_finite() && height > 0.0) {
            return Err(MeshError::BadRadius { radius });
        }
        let sides = sides.max(3);
        let mut points: Vec<Point3<f64>> = (0..sides)
            .map(|k| {
                let angle = std::f64::consts::TAU * k as f64 / sides as f64;
                Point3::new(radius * angle.cos(), radius * angle.sin(), 0.0)
            })
            .collect();
        points.push(Point3::new(0.0, 0.0, height));
        let mut faces: Vec<Vec<usize>> = (0..sides)
            .map(|k| vec![k, (k + 1) % sides, sides])
            .collect();
        faces.push((0..sides).rev().collect());
        Mesh::polyhedron(&points, &faces)
    }

    /// A flat-shaded prism with `sides` faces around (a cylinder, seen small), its axis along
    /// z from 0 to `height`.
    pub fn prism(radius: f64, height: f64, sides: usize) -> Result<Mesh, MeshError> {
        if !(radius.is_finite() && radius > 0.0 && height.is_finite() && height > 0.0) {
            return Err(MeshError::BadRadius { radius });
        }
        let sides = sides.max(3);
        let points: Vec<Point3<f64>> = [0.0, height]
            .iter()
            .flat_map(|&z| {
                (0..sides).map(move |k| {
                    let angle = std::f64::consts::TAU * k as f64 / sides as f64;
                    Point3::new(radius * angle.cos(), radius * angle.sin(), z)
                })
            })
            .collect();
        let mut faces: Vec<Vec<usize>> = (0..sides)
            .map(|k| {
                let next = (k + 1) % sides;
                vec![k, next, sides + next, sides + k]
            })
            .collect();
        faces.push((0..sides).rev().collect());
        faces.push((sides..2 * sides).collect());
        Mesh::polyhedron(&points, &faces)
    }

    /// The distance from the mesh origin to its farthest vertex.
    pub fn radius(&self) -> f64 {
        self.vertices
            .iter()
            .map(|v| Vector3::from(v.position.map(f64::from)).norm())
            .fold(0.0, f64::max)
    }

    /// The position of vertex `index` in double precision.
    pub fn position(&self, index: u32) -> Point3<f64> {
        Point3::from(self.vertices[index as usize].position.map(f64::from))
    }
}

/// The meshes of a scene by key: what exporters read and what renderers upload from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MeshLibrary {
    meshes: BTreeMap<MeshKey, Mesh>,
}

impl MeshLibrary {
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores `mesh` under `key`, replacing any mesh stored there before.
    pub fn insert(&mut self, key: MeshKey, mesh: Mesh) {
        self.meshes.insert(key, mesh);
    }

    pub fn get(&self, key: MeshKey) -> Option<&Mesh> {
        self.meshes.get(&key)
    }

    /// Every mesh in key order.
    pub fn iter(&self) -> impl Iterator<Item = (MeshKey, &Mesh)> {
        self.meshes.iter().map(|(k, m)| (*k, m))
    }
}

fn face_points(
    points: &[Point3<f64>],
    face: &[usize],
    face_index: usize,
) -> Result<Vec<Point3<f64>>, MeshError> {
    if face.len() < 3 {
        return Err(MeshError::TooFewVertices {
            face: face_index,
            count: face.len(),
        });
    }
    face.iter()
        .map(|&index| {
            points
                .get(index)
                .copied()
                .ok_or(MeshError::IndexOutOfRange {
                    face: face_index,
                    index,
                    points: points.len(),
                })
        })
        .collect()
}

/// The unit normal of a polygon by Newell's method, which is robust for any planar polygon.
fn face_normal(corners: &[Point3<f64>], face_index: usize) -> Result<Vector3<f64>, MeshError> {
    let mut n = Vector3::zeros();
    for (k, p) in corners.iter().enumerate() {
        let q = corners[(k + 1) % corners.len()];
        n += Vector3::new(
            (p.y - q.y) * (p.z + q.z),
            (p.z - q.z) * (p.x + q.x),
            (p.x - q.x) * (p.y + q.y),
        );
    }
    let scale = corners
        .iter()
        .map(|p| p.coords.amax())
        .fold(0.0, f64::max)
        .max(f64::MIN_POSITIVE);
    if n.norm() <= 1e-12 * scale * scale {
        return Err(MeshError::Degenerate { face: face_index });
    }
    Ok(n.normalize())
}

/// Checks that every corner turns the same way as the face normal and lies in its plane.
fn check_convex(
    corners: &[Point3<f64>],
    normal: &Vector3<f64>,
    face_index: usize,
) -> Result<(), MeshError> {
    let count = corners.len();
    let size = (1..count)
        .map(|k| (corners[k] - corners[0]).norm())
        .fold(0.0, f64::max);
    let tolerance = 1e-9 * size * size;
    for k in 0..count {
        let previous = corners[(k + count - 1) % count];
        let next = corners[(k + 1) % count];
        let turn = (corners[k] - previous).cross(&(next - corners[k]));
        let off_plane = (corners[k] - corners[0]).dot(normal).abs();
        if turn.dot(normal) < -tolerance || off_plane > 1e-6 * size {
            return Err(MeshError::NotConvex {
                face: face_index,
                corner: k,
            });
        }
    }
    Ok(())
}

fn to_f32(v: &Vector3<f64>) -> [f32; 3] {
    [v.x as f32, v.y as f32, v.z as f32]
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn unit_cube_faces() -> (Vec<Point3<f64>>, Vec<Vec<usize>>) {
        let points = (0..8)
            .map(|i| {
                Point3::new(
                    if i & 1 == 0 { -0.5 } else { 0.5 },
                    if i & 2 == 0 { -0.5 } else { 0.5 },
                    if i & 4 == 0 { -0.5 } else { 0.5 },
                )
            })
            .collect();
        let faces = vec![
            vec![0, 2, 3, 1],
            vec![4, 5, 7, 6],
            vec![0, 1, 5, 4],
            vec![2, 6, 7, 3],
            vec![0, 4, 6, 2],
            vec![1, 3, 7, 5],
        ];
        (points, faces)
    }

    #[test]
    fn cube_has_outward_flat_normals_and_twelve_edges() {
        let (points, faces) = unit_cube_faces();
        let mesh = Mesh::polyhedron(&points, &faces).unwrap();
        assert_eq!(mesh.vertices.len(), 24);
        assert_eq!(mesh.triangles.len(), 12);
        assert_eq!(mesh.edges.len(), 12);
        for tri in &mesh.triangles {
            let [a, b, c] = tri.map(|i| mesh.position(i));
            let n = (b - a).cross(&(c - a)).normalize();
            let centroid = (a.coords + b.coords + c.coords) / 3.0;
            assert!(n.dot(&centroid) > 0.0, "triangle faces inward");
            let stored = Vector3::from(mesh.vertices[tri[0] as usize].normal.map(f64::from));
            assert!((stored - n).norm() < 1e-6);
        }
        assert!((mesh.radius() - 0.75f64.sqrt()).abs() < 1e-6);
    }

    #[test]
    fn bad_faces_are_reported_with_their_index() {
        let (points, mut faces) = unit_cube_faces();
        faces[2] = vec![0, 1, 9];
        assert_eq!(
            Mesh::polyhedron(&points, &faces),
            Err(MeshError::IndexOutOfRange {
                face: 2,
                index: 9,
                points: 8
            })
        );
        faces[2] = vec![0, 1];
        assert!(matches!(
            Mesh::polyhedron(&points, &faces),
            Err(MeshError::TooFewVertices { face: 2, count: 2 })
        ));
        // A dart: a square with one corner pushed inwards past the centre.
        let dart =
            [[0.0, 0.0], [2.0, 0.0], [0.6, 0.6], [0.0, 2.0]].map(|[x, y]| Point3::new(x, y, 0.0));
        assert_eq!(
            Mesh::polyhedron(&dart, &[vec![0, 1, 2, 3]]),
            Err(MeshError::NotConvex { face: 0, corner: 2 })
        );
        faces[2] = vec![0, 0, 0];
        assert_eq!(
            Mesh::polyhedron(&points, &faces),
            Err(MeshError::Degenerate { face: 2 })
        );
        let message = MeshError::IndexOutOfRange {
            face: 2,
            index: 9,
            points: 8,
        }
        .to_string();
        assert!(message.contains("face 2") && message.contains("9"));
    }

    #[test]
    fn prism_faces_point_outwards() {
        let mesh = Mesh::prism(0.5, 2.0, 6).unwrap();
        assert_eq!(mesh.polygons.len(), 8);
        for v in &mesh.vertices {
            let p = Vector3::from(v.position.map(f64::from)) - Vector3::new(0.0, 0.0, 1.0);
            let n = Vector3::from(v.normal.map(f64::from));
            assert!(p.dot(&n) > 0.0, "normal {n:?} at {p:?} points inwards");
        }
    }

    #[test]
    fn sphere_vertices_lie_on_the_sphere_with_radial_normals() {
        let mesh = Mesh::sphere(2.0, 1).unwrap();
        assert_eq!(mesh.shape, MeshShape::Sphere { radius: 2.0 });
        for v in &mesh.vertices {
            let p = Vector3::from(v.position.map(f64::from));
            let n = Vector3::from(v.normal.map(f64::from));
            assert!((p.norm() - 2.0).abs() < 1e-5);
            assert!((p / 2.0 - n).norm() < 1e-5);
        }
        for tri in &mesh.triangles {
            let [a, b, c] = tri.map(|i| mesh.position(i));
            let n = (b - a).cross(&(c - a));
            assert!(n.norm() > 1e-9, "degenerate sphere triangle");
            assert!(n.dot(&(a.coords + b.coords + c.coords)) > 0.0);
        }
        assert!(Mesh::sphere(0.0, 1).is_err());
        let cone = Mesh::cone(0.5, 2.0, 6).unwrap();
        assert_eq!((cone.polygons.len(), cone.edges.len()), (7, 12));
        assert!(Mesh::sphere(1.0, Mesh::MAX_SPHERE_LEVEL + 1).is_err());
    }
}
