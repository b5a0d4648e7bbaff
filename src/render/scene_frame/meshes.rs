//! Meshes for every part of every shape set, keyed by their geometry.
//!
//! A part's key is a hash of its geometry (a hull's corners and faces, a sphere's radius), so
//! it is the same in every frame, for every body of that shape, and after a re-evaluation of
//! the text that left the shape alone: a renderer that already holds a key uploads nothing.

use crate::geom::Convex;
use crate::render::mesh::{Mesh, MeshError, MeshKey, MeshLibrary};
use crate::scene::model::Scene;
use crate::scene::shapes::SceneShapes;
use nalgebra::Point3;
use std::fmt;

/// Level of detail of sphere meshes (32 segments around the equator): round at the sizes
/// bodies are seen, and light enough for a thousand of them on a software rasteriser.
pub const SPHERE_LEVEL: u32 = 2;

/// A part whose mesh could not be built (a hull face the mesher refuses).
#[derive(Debug, Clone, PartialEq)]
pub struct PartMeshError {
    pub shape: String,
    pub part: usize,
    pub error: MeshError,
}

impl fmt::Display for PartMeshError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "shape_set {}, part {}: {}",
            self.shape,
            self.part + 1,
            self.error
        )
    }
}

impl std::error::Error for PartMeshError {}

/// The meshes of a scene's shapes and, per shape set, the key of each part's mesh.
#[derive(Debug, Clone, Default)]
pub struct ShapeMeshes {
    library: MeshLibrary,
    /// Per shape set, per part: the mesh key.
    keys: Vec<Vec<MeshKey>>,
}

impl ShapeMeshes {
    /// Builds a mesh for every part of every shape set of `scene`, whose shapes are `shapes`.
    pub fn new(scene: &Scene, shapes: &SceneShapes) -> Result<ShapeMeshes, PartMeshError> {
        let mut meshes = ShapeMeshes::default();
        for (index, set) in scene.shapes.iter().enumerate() {
            let Some(shape) = shapes.shape(index) else {
                break;
            };
            let mut keys = Vec::with_capacity(shape.shape.pieces().len());
            for (part, piece) in shape.shape.pieces().iter().enumerate() {
                let (key, mesh) = part_mesh(piece.convex()).map_err(|error| PartMeshError {
                    shape: set.name.clone(),
                    part,
                    error,
                })?;
                keys.push(meshes.insert(key, mesh));
            }
            meshes.keys.push(keys);
        }
        Ok(meshes)
    }

    /// Every mesh by key, for uploading and exporting.
    pub fn library(&self) -> &MeshLibrary {
        &self.library
    }

    /// The mesh keys of shape set `shape`'s parts, in part order.
    pub fn part_keys(&self, shape: usize) -> &[MeshKey] {
        self.keys.get(shape).map_or(&[], Vec::as_slice)
    }

    /// Stores `mesh` under `key`, or under the next free key when a different mesh already
    /// holds `key` (a hash collision); returns the key used.
    fn insert(&mut self, key: MeshKey, mesh: Mesh) -> MeshKey {
        let mut key = key;
        loop {
            match self.library.get(key) {
                None => {
                    self.library.insert(key, mesh);
                    return key;
                }
                Some(existing) if *existing == mesh => return key,
                Some(_) => key = MeshKey(key.0.wrapping_add(1)),
            }
        }
    }
}

/// The mesh of one convex part and its geometry key.
fn part_mesh(convex: &Convex) -> Result<(MeshKey, Mesh), MeshError> {
    let mut hash = Fnv::default();
    let mesh = match convex {
        Convex::Sphere(sphere) => {
            hash.word(0);
            hash.word(sphere.radius().to_bits());
            hash.word(u64::from(SPHERE_LEVEL));
            Mesh::sphere(sphere.radius(), SPHERE_LEVEL)?
        }
        Convex::Hull(hull) => {
            hash.word(1);
            let points: Vec<Point3<f64>> =
                hull.vertices().iter().map(|v| Point3::from(*v)).collect();
            for p in &points {
                p.coords.iter().for_each(|c| hash.word(c.to_bits()));
            }
            let faces: Vec<Vec<usize>> = hull.faces().iter().map(|f| f.vertices.clone()).collect();
            for face in &faces {
                hash.word(face.len() as u64);
                face.iter().for_each(|&v| hash.word(v as u64));
            }
            Mesh::polyhedron(&points, &faces)?
        }
    };
    Ok((MeshKey(hash.0), mesh))
}

/// The 64-bit FNV-1a hash: stable across runs and builds, unlike the standard hasher.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    fn word(&mut self, word: u64) {
        for byte in word.to_le_bytes() {
            self.0 ^= u64::from(byte);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}
