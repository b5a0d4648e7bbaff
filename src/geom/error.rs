//! What can be wrong with geometry handed to this module, said so that the caller can point at it.

use std::fmt;

/// Why a shape, a mass or a ray was rejected.
///
/// Indices refer to the caller's input (the position of a point in the slice given to
/// [`ConvexHull::new`](super::ConvexHull::new)), so the scene layer can turn them into a span
/// of the scene text.
#[derive(Clone, Debug, PartialEq)]
pub enum GeomError {
    /// A polyhedron was given fewer than the four points a solid needs.
    TooFewPoints { count: usize },
    /// A coordinate of an input point is NaN or infinite.
    NonFinitePoint { index: usize },
    /// The points enclose no volume (within the hull tolerance).
    NoVolume {
        count: usize,
        degeneracy: Degeneracy,
    },
    /// A sphere radius that is not a positive finite number.
    InvalidRadius { radius: f64 },
    /// A body mass that is not a positive finite number.
    InvalidMass { mass: f64 },
    /// A shape built from no pieces.
    EmptyShape,
    /// A ray whose origin is not finite or whose direction is not a non-zero finite vector.
    InvalidRay,
}

/// How a point cloud with no volume is flat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Degeneracy {
    /// All points are (within tolerance) the same point.
    Coincident,
    /// All points lie on one line.
    Collinear,
    /// All points lie in one plane.
    Coplanar,
}

impl fmt::Display for GeomError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GeomError::TooFewPoints { count } => write!(
                f,
                "a polyhedron needs at least 4 points that enclose a volume, got {count}"
            ),
            GeomError::NonFinitePoint { index } => write!(
                f,
                "point {index} of the polyhedron has a coordinate that is not a finite number"
            ),
            GeomError::NoVolume { count, degeneracy } => {
                let how = match degeneracy {
                    Degeneracy::Coincident => "are the same point",
                    Degeneracy::Collinear => "lie on a line",
                    Degeneracy::Coplanar => "lie in a plane",
                };
                write!(f, "polyhedron has no volume: all {count} points {how}")
            }
            GeomError::InvalidRadius { radius } => write!(
                f,
                "sphere radius must be a positive finite number, got {radius}"
            ),
            GeomError::InvalidMass { mass } => {
                write!(f, "mass must be a positive finite number, got {mass}")
            }
            GeomError::EmptyShape => write!(f, "a shape needs at least one sphere or polyhedron"),
            GeomError::InvalidRay => write!(
                f,
                "a ray needs a finite origin and a non-zero finite direction"
            ),
        }
    }
}

impl std::error::Error for GeomError {}
