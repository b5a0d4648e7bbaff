//! Geometry of convex shapes: hulls, mass properties, distances and closest features,
//! bounding volumes, broad-phase culling and ray picking.

mod bounds;
mod error;
mod exact;
pub mod hull;
mod mass;
mod shape;

pub use bounds::{Aabb, BoundingSphere};
pub use error::{Degeneracy, GeomError};
pub use hull::{ConvexHull, Edge, Face};
pub use mass::MassProperties;
pub use shape::{Convex, Piece, Shape, Sphere};
pub mod distance;
