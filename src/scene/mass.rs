//! Shapes as geometry and bodies' mass properties: what the text gives, or what the shape
//! implies at unit density (4.1.1).

use super::model::{Body, Geometry, Scene, ShapeSet};
use crate::geom::{Convex, GeomError, MassProperties, Piece, Shape};
use nalgebra::{Isometry3, Translation3};

impl ShapeSet {
    /// The shape as `geom` geometry: each part a sphere or hull placed at its `pos`.
    pub fn geometry(&self) -> Result<Shape, GeomError> {
        let pieces = self
            .parts
            .iter()
            .map(|part| {
                let convex = match &part.geometry {
                    Geometry::Sphere { radius } => Convex::sphere(*radius)?,
                    Geometry::Polyhedron { vertices } => Convex::hull(vertices)?,
                };
                let offset: Isometry3<f64> = Translation3::from(part.pos).into();
                Ok(Piece::new(convex, offset))
            })
            .collect::<Result<Vec<_>, GeomError>>()?;
        Shape::new(pieces)
    }
}

impl Scene {
    /// A body's mass, centre of mass (in its shape's frame) and inertia tensor: the shape's at
    /// unit density, rescaled to the given mass, with the given inertia tensor if there is one.
    /// A body whose shape is not in the scene has no geometry ([`GeomError::EmptyShape`]).
    pub fn body_mass_properties(&self, body: &Body) -> Result<MassProperties, GeomError> {
        let shape = self.shape(&body.shape).ok_or(GeomError::EmptyShape)?;
        let mut props = shape.geometry()?.mass_properties();
        if let Some(mass) = &body.mass {
            props = props.with_mass(mass.value)?;
        }
        if let Some(inertia) = &body.inertia {
            props.inertia = inertia.value;
        }
        Ok(props)
    }

    /// A body's mass: as given, or its shape's volume at unit density.
    pub fn body_mass(&self, body: &Body) -> Result<f64, GeomError> {
        match &body.mass {
            Some(mass) => Ok(mass.value),
            None => Ok(self.body_mass_properties(body)?.mass),
        }
    }
}
