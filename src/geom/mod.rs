//! Geometry of convex shapes: hulls, mass properties, distances and closest features,
//! bounding volumes, broad-phase culling and ray picking.

mod error;
mod exact;
pub mod hull;

pub use error::{Degeneracy, GeomError};
pub use hull::{ConvexHull, Edge, Face};
