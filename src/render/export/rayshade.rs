//! Rayshade 4 scene files (dissertation 4.1.8, 4.1.10): the frame's camera, lights and posed
//! objects as ray-tracer input, so a frame can be rendered with shadows.
//!
//! The eye, look point, up vector and field of view come from the camera; each distinct colour
//! becomes a `surface`; spheres become `sphere` primitives and hulls `list`s of `polygon`s in
//! the shape's own coordinates, each placed by `translate`/`rotate` transformations (part
//! offset, then body rotation, then body position). Rayshade lights do not fade with
//! distance, like the renderer's; a frame without lights gets the renderer's default light.
//! The ground, when the frame has one, is a `plane` in its colour, so the bodies cast their
//! shadows on it as in the renderer's pictures. Links, vectors, handles, trajectories and the
//! grid lines are editing aids and are not exported.

use super::{number, posed_meshes, ExportError};
use crate::render::camera::Viewport;
use crate::render::frame::{Frame, Light, Object, Rgba};
use crate::render::mesh::{Mesh, MeshLibrary, MeshShape};
use nalgebra::Vector3;
use std::fmt::Write;

/// Rotations smaller than this (radians) are written as none.
const MIN_ROTATION: f64 = 1e-12;

/// The frame as a Rayshade 4 input file for a `width` × `height` picture.
pub fn to_rayshade(
    frame: &Frame,
    meshes: &MeshLibrary,
    width: u32,
    height: u32,
) -> Result<String, ExportError> {
    let objects = posed_meshes(frame, meshes)?;
    let camera = &frame.camera;
    let viewport = Viewport::new(f64::from(width), f64::from(height));
    let eye = camera.eye();
    let centre_distance = (camera.centre - eye).norm().max(1.0);
    let look = eye + camera.view_direction().into_inner() * centre_distance;
    let vertical = camera.fov_y.to_degrees();
    let horizontal = (2.0 * ((camera.fov_y / 2.0).tan() * viewport.aspect()).atan()).to_degrees();

    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(out, "/* Asgard frame for Rayshade 4 */");
    let _ = writeln!(out, "screen {width} {height}");
    let _ = writeln!(out, "eyep {}", triple(&eye.coords));
    let _ = writeln!(out, "lookp {}", triple(&look.coords));
    let _ = writeln!(out, "up {}", triple(&camera.up_direction().into_inner()));
    let _ = writeln!(out, "fov {} {}", number(horizontal), number(vertical));
    let [r, g, b, _] = frame.background;
    let _ = writeln!(out, "background {}", colour3([r, g, b]));
    for light in frame.effective_lights() {
        let _ = match light {
            Light::Directional { direction, colour } => writeln!(
                out,
                "light {} directional {}",
                colour3(colour),
                triple(&-direction.into_inner())
            ),
            Light::Point { position, colour } => {
                writeln!(
                    out,
                    "light {} point {}",
                    colour3(colour),
                    triple(&position.coords)
                )
            }
        };
    }

    let mut surfaces: Vec<Rgba> = Vec::new();
    for (object, _) in &objects {
        if !surfaces.contains(&object.colour) {
            surfaces.push(object.colour);
        }
    }
    for (index, [r, g, b, _]) in surfaces.iter().enumerate() {
        let ambient = [r, g, b].map(|c| c * frame.ambient);
        let _ = writeln!(
            out,
            "surface {} ambient {} diffuse {}",
            surface_name(index),
            colour3(ambient),
            colour3([*r, *g, *b])
        );
    }

    if let Some(ground) = frame.ground.as_ref().filter(|_| frame.looks.ground) {
        let [r, g, b, _] = ground.colour;
        let ambient = [r, g, b].map(|c| c * frame.ambient);
        let _ = writeln!(
            out,
            "surface ground ambient {} diffuse {}",
            colour3(ambient),
            colour3([r, g, b])
        );
        let _ = writeln!(
            out,
            "plane ground {} {}",
            triple(&ground.origin.coords),
            triple(&ground.normal.into_inner())
        );
    }

    for (object, mesh) in &objects {
        let surface = surface_name(
            surfaces
                .iter()
                .position(|c| *c == object.colour)
                .expect("collected above"),
        );
        let _ = writeln!(out, "{} {}", primitive(mesh, &surface), placement(object));
    }
    Ok(out)
}

fn surface_name(index: usize) -> String {
    format!("colour{index}")
}

/// The shape in its own coordinates: a sphere, or a list of polygons.
fn primitive(mesh: &Mesh, surface: &str) -> String {
    match mesh.shape {
        MeshShape::Sphere { radius } => format!("sphere {surface} {} 0 0 0", number(radius)),
        MeshShape::Polyhedron => {
            let mut text = String::from("list\n");
            for polygon in &mesh.polygons {
                text.push_str("  polygon ");
                text.push_str(surface);
                for &i in polygon {
                    text.push(' ');
                    text.push_str(&triple(&mesh.position(i).coords));
                }
                text.push('\n');
            }
            text.push_str("end");
            text
        }
    }
}

/// The transformations that place an object: part offset, body rotation, body position.
fn placement(object: &Object) -> String {
    let mut steps = Vec::new();
    if object.offset != Vector3::zeros() {
        steps.push(format!("translate {}", triple(&object.offset)));
    }
    if let Some((axis, angle)) = object.pose.rotation.axis_angle() {
        if angle > MIN_ROTATION {
            steps.push(format!(
                "rotate {} {}",
                triple(&axis.into_inner()),
                number(angle.to_degrees())
            ));
        }
    }
    let position = object.pose.translation.vector;
    if position != Vector3::zeros() {
        steps.push(format!("translate {}", triple(&position)));
    }
    steps.join(" ")
}

fn triple(v: &Vector3<f64>) -> String {
    format!("{} {} {}", number(v.x), number(v.y), number(v.z))
}

fn colour3(c: [f32; 3]) -> String {
    c.map(|x| number(f64::from(x))).join(" ")
}
