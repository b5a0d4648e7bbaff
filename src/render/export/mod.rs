//! Exports that need no GL: PostScript line drawings, Rayshade scene files and glTF 2.0.
//!
//! Each reads plain data — the meshes, posed objects, camera and lights of a
//! [`Frame`](super::frame::Frame), or bodies with their sampled motion for glTF — so batch
//! export and the editor produce the same files.

pub mod gltf;
pub mod postscript;
pub mod rayshade;

use super::frame::{Frame, Light, Object, Rgb, Rgba};
use super::mesh::{Mesh, MeshKey, MeshLibrary};
use nalgebra::{Point3, Vector3};
use std::fmt;
use std::path::PathBuf;

/// Why an export could not be made.
#[derive(Debug)]
pub enum ExportError {
    /// An object uses a mesh that the library does not hold.
    MissingMesh { key: MeshKey, object: usize },
    /// The input is inconsistent; `location` says where (e.g. "body 2, sample 5").
    Invalid { location: String, problem: String },
    /// Writing the file failed.
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExportError::MissingMesh { key, object } => write!(
                f,
                "object {object} uses mesh {} which is not in the mesh library",
                key.0
            ),
            ExportError::Invalid { location, problem } => write!(f, "{location}: {problem}"),
            ExportError::Io { path, error } => write!(f, "{}: {error}", path.display()),
        }
    }
}

impl std::error::Error for ExportError {}

/// Each object of `frame` with its mesh; an error for the first object whose mesh is
/// missing or whose placement is not finite, or for a camera that is not finite.
fn posed_meshes<'a>(
    frame: &'a Frame,
    meshes: &'a MeshLibrary,
) -> Result<Vec<(&'a Object, &'a Mesh)>, ExportError> {
    let camera = &frame.camera;
    let camera_values = camera
        .translation
        .iter()
        .chain(camera.rotation.coords.iter())
        .chain(camera.centre.coords.iter())
        .chain([&camera.scale, &camera.fov_y]);
    if !camera_values.copied().all(f64::is_finite) || camera.scale <= 0.0 {
        return Err(ExportError::Invalid {
            location: "camera".into(),
            problem:
                "position, rotation, centre and field of view must be finite and the scale positive"
                    .into(),
        });
    }
    frame
        .objects
        .iter()
        .enumerate()
        .map(|(index, object)| {
            let placement = object.placement();
            let finite = placement
                .translation
                .vector
                .iter()
                .chain(placement.rotation.coords.iter())
                .all(|x| x.is_finite());
            if !finite {
                return Err(ExportError::Invalid {
                    location: format!("object {index}"),
                    problem: "pose or offset is not finite".into(),
                });
            }
            meshes
                .get(object.mesh)
                .map(|mesh| (object, mesh))
                .ok_or(ExportError::MissingMesh {
                    key: object.mesh,
                    object: index,
                })
        })
        .collect()
}

/// The Lambert + ambient colour of a surface with `normal` at `point`, as the renderer
/// shades it (colour × (ambient + Σ light · cos), clamped).
fn shade(
    colour: Rgba,
    normal: &Vector3<f64>,
    point: &Point3<f64>,
    lights: &[Light],
    ambient: f32,
) -> Rgb {
    let mut light = [f64::from(ambient); 3];
    for l in lights {
        let (towards, intensity) = match l {
            Light::Directional { direction, colour } => (-direction.into_inner(), colour),
            Light::Point { position, colour } => ((position - point).normalize(), colour),
        };
        let cos = normal.dot(&towards).max(0.0);
        for (sum, c) in light.iter_mut().zip(intensity) {
            *sum += f64::from(*c) * cos;
        }
    }
    std::array::from_fn(|i| (f64::from(colour[i]) * light[i]).min(1.0) as f32)
}

/// A number as plain decimal text with at most six decimals and no trailing zeros.
fn number(x: f64) -> String {
    let text = format!("{x:.6}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".into()
    } else {
        text.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_short_and_plain() {
        assert_eq!(number(1.0), "1");
        assert_eq!(number(-0.25), "-0.25");
        assert_eq!(number(1.0 / 3.0), "0.333333");
        assert_eq!(number(-1e-9), "0");
        assert_eq!(number(1e7), "10000000");
    }
}
