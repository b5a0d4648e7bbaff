//! The scene's shapes as solid geometry centred on each shape's centre of mass.
//!
//! A body's position is the position of its centre of mass and its rotation turns about it, so
//! drawing, picking and putting link ends on a surface all need the shape in the frame of that
//! centre: each piece moved by minus the centre of mass the shape has at unit density (which a
//! given mass does not move). [`SceneShapes`] builds those once per scene and says which one
//! each body uses.

use super::model::{Scene, ShapeSet, Vec3};
use crate::geom::{GeomError, Piece, Shape};
use nalgebra::{Isometry3, Translation3};
use std::collections::HashMap;
use std::fmt;

/// A shape set as geometry in the frame of its centre of mass.
#[derive(Clone, Debug)]
pub struct CentredShape {
    /// The pieces, one per part of the shape set in the same order, placed relative to the
    /// centre of mass.
    pub shape: Shape,
    /// Where the centre of mass is in the shape set's own coordinates.
    pub centre_of_mass: Vec3,
    /// The mass at unit density (the volume): a body's mass when it gives none.
    pub unit_mass: f64,
}

impl CentredShape {
    /// The shape set's geometry, moved so that its centre of mass is at the origin.
    pub fn new(set: &ShapeSet) -> Result<CentredShape, GeomError> {
        let raw = set.geometry()?;
        let unit = raw.mass_properties();
        let centre_of_mass = unit.center;
        let shift = Translation3::from(-centre_of_mass);
        let pieces = raw
            .pieces()
            .iter()
            .map(|piece| Piece::new(piece.convex().clone(), shift * piece.offset()))
            .collect();
        Ok(CentredShape {
            shape: Shape::new(pieces)?,
            centre_of_mass,
            unit_mass: unit.mass,
        })
    }

    /// Where part `part` sits relative to the centre of mass.
    pub fn part_offset(&self, part: usize) -> Option<&Isometry3<f64>> {
        self.shape.pieces().get(part).map(Piece::offset)
    }
}

/// A shape set whose geometry is unusable, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct ShapeError {
    pub shape: String,
    pub error: GeomError,
}

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "shape_set {}: {}", self.shape, self.error)
    }
}

impl std::error::Error for ShapeError {}

/// Every shape set of a scene as [`CentredShape`], which one each body uses, and the bodies by
/// name.
#[derive(Clone, Debug)]
pub struct SceneShapes {
    shapes: Vec<CentredShape>,
    /// For each body, the index of its shape set (`None` when the scene names no such shape).
    body_shapes: Vec<Option<usize>>,
    /// Body indices by name, for elements that name their bodies.
    body_names: HashMap<String, usize>,
}

impl SceneShapes {
    pub fn new(scene: &Scene) -> Result<SceneShapes, ShapeError> {
        let shapes = scene
            .shapes
            .iter()
            .map(|set| {
                CentredShape::new(set).map_err(|error| ShapeError {
                    shape: set.name.clone(),
                    error,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        // The first shape set of each name, looked up once per body (a search of the list
        // per body was quadratic in the scene's size).
        let mut by_name: HashMap<&str, usize> = HashMap::with_capacity(scene.shapes.len());
        for (i, set) in scene.shapes.iter().enumerate() {
            by_name.entry(set.name.as_str()).or_insert(i);
        }
        let body_shapes = scene
            .bodies
            .iter()
            .map(|body| by_name.get(body.shape.as_str()).copied())
            .collect();
        let body_names = scene
            .bodies
            .iter()
            .enumerate()
            .map(|(i, body)| (body.name.clone(), i))
            .collect();
        Ok(SceneShapes {
            shapes,
            body_shapes,
            body_names,
        })
    }

    /// The index of the body called `name`.
    pub fn body_index(&self, name: &str) -> Option<usize> {
        self.body_names.get(name).copied()
    }

    /// The shape of shape set `index` (in [`Scene::shapes`] order).
    pub fn shape(&self, index: usize) -> Option<&CentredShape> {
        self.shapes.get(index)
    }

    /// The index of body `body`'s shape set.
    pub fn shape_index_of(&self, body: usize) -> Option<usize> {
        self.body_shapes.get(body).copied().flatten()
    }

    /// The shape of body `body` (in [`Scene::bodies`] order).
    pub fn of_body(&self, body: usize) -> Option<&CentredShape> {
        self.shape(self.shape_index_of(body)?)
    }

    /// The body that is `scene`'s floor, if it has one: a fixed body, flat and wide (a slab at
    /// least four times as wide and deep as it is high), whose top is under every other body
    /// at the start. Pictures add no ground under a scene with a floor, and views and handles
    /// are sized to the other bodies: the floor reaches far beyond where anything happens.
    pub fn floor(&self, scene: &Scene) -> Option<usize> {
        let boxes: Vec<(usize, bool, crate::geom::Aabb)> = scene
            .bodies
            .iter()
            .enumerate()
            .filter_map(|(b, body)| {
                let shape = self.of_body(b)?;
                let pose = super::state::BodyState::initial(body).pose();
                Some((b, body.fixed, shape.shape.aabb(&pose)))
            })
            .collect();
        boxes.iter().find_map(|&(b, fixed, slab)| {
            let size = slab.max - slab.min;
            let flat = size.x >= 4.0 * size.y && size.z >= 4.0 * size.y;
            let tolerance = 1e-3 * size.x.max(size.z);
            let under_all = boxes
                .iter()
                .all(|(other, _, bounds)| *other == b || bounds.min.y >= slab.max.y - tolerance);
            (fixed && flat && under_all).then_some(b)
        })
    }

    /// The bodies a view is sized to: all but the floor ([`SceneShapes::floor`]) when there
    /// are others.
    pub fn framed_bodies(&self, scene: &Scene) -> Vec<usize> {
        let floor = self.floor(scene).filter(|_| scene.bodies.len() > 1);
        (0..scene.bodies.len())
            .filter(|&b| Some(b) != floor)
            .collect()
    }

    /// Body `body`'s mass: as `scene` gives it, else its shape's at unit density (what
    /// `Scene::body_mass` computes, without building the shape again).
    pub fn body_mass(&self, scene: &Scene, body: usize) -> Option<f64> {
        match &scene.bodies.get(body)?.mass {
            Some(mass) => Some(mass.value),
            None => self.of_body(body).map(|shape| shape.unit_mass),
        }
    }

    /// How many bodies the shapes were built for.
    pub fn body_count(&self) -> usize {
        self.body_shapes.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::evaluate;

    #[test]
    fn pieces_are_placed_around_the_centre_of_mass() {
        let scene = evaluate(
            "shape_set one desc {sub pos {2 0 0} sphere 1}
             shape_set two desc {sub pos {0 0 0} sphere 1 sub pos {0 3 0} box {1 1 1}}
             body a shape two
             body b shape one",
        )
        .unwrap();
        let shapes = SceneShapes::new(&scene).unwrap();
        assert_eq!(shapes.body_count(), 2);
        assert_eq!(shapes.shape_index_of(1), Some(0));
        assert_eq!(shapes.body_index("b"), Some(1));
        assert_eq!(shapes.body_index("c"), None);
        let one = shapes.of_body(1).unwrap();
        assert!((one.centre_of_mass - Vec3::new(2.0, 0.0, 0.0)).norm() < 1e-12);
        assert!(one.part_offset(0).unwrap().translation.vector.norm() < 1e-12);
        // A unit ball (volume 4π/3) and a unit box 3 above it: the centre of mass lies on the
        // line between them, nearer the heavier ball, and the parts keep their distance.
        let two = shapes.of_body(0).unwrap();
        let ball = 4.0 / 3.0 * std::f64::consts::PI;
        let expected = Vec3::new(0.0, 3.0 / (1.0 + ball), 0.0);
        assert!((two.centre_of_mass - expected).norm() < 1e-9);
        let below = two.part_offset(0).unwrap().translation.vector;
        let above = two.part_offset(1).unwrap().translation.vector;
        assert!((below + expected).norm() < 1e-9);
        assert!((above - below - Vec3::new(0.0, 3.0, 0.0)).norm() < 1e-12);
        assert!(two.shape.mass_properties().center.norm() < 1e-9);
        assert!(two.part_offset(2).is_none());
        assert!((two.unit_mass - (1.0 + ball)).abs() < 1e-9);
        for body in 0..2 {
            let expected = scene.body_mass(&scene.bodies[body]).unwrap();
            assert!((shapes.body_mass(&scene, body).unwrap() - expected).abs() < 1e-12);
        }
    }
}
