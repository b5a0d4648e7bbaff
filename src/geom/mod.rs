//! Geometry of convex shapes: hulls, mass properties, distances and closest features,
//! bounding volumes, broad-phase culling and ray picking.
//!
//! Asgard's bodies are rigid unions of spheres and convex polyhedra (dissertation 4.1.1), a
//! polyhedron being the convex hull of the vertices the scene gives. This module depends on
//! no other Asgard module. What callers use:
//!
//! - [`ConvexHull::new`] builds a polyhedron from a point cloud and says which points are
//!   inside ([`ConvexHull::interior_points`]); [`Convex`] is a hull or a [`Sphere`];
//!   [`Shape`] is a union of [`Piece`]s, each a convex placed in the shape's frame.
//! - [`MassProperties`] at unit density for a hull, a sphere or a whole shape, rescaled with
//!   [`MassProperties::with_mass`].
//! - [`Shape::aabb`] and [`Shape::bounding_sphere`] of a posed shape; [`broad::SweepAndPrune`]
//!   turns the boxes of all bodies into candidate pairs.
//! - [`distance::closest`] (two pieces) and [`distance::closest_between_shapes`] (two unions):
//!   signed distance, closest points, closest features and the contact normal, warm-started
//!   from a per-pair cache the caller keeps between time steps.
//! - [`contact_region`]: the corners of the patch over which two touching pieces lie against
//!   each other, for bodies resting flat on one another.
//! - [`ray::cast_shape`] for picking and for putting points on a shape's surface.
//! - [`mesh_file::hull_of_file`]: the convex hull of an OBJ or STL file's vertices, for the
//!   shape editor's import.

mod bounds;
pub mod broad;
pub mod distance;
mod error;
mod exact;
pub mod hull;
mod mass;
pub mod mesh_file;
pub mod ray;
mod region;
mod shape;

pub use bounds::{Aabb, BoundingSphere};
pub use error::{Degeneracy, GeomError};
pub use hull::{ConvexHull, Edge, Face};
pub use mass::MassProperties;
pub use region::contact_region;
pub(crate) use region::plane_basis;
pub use shape::{Convex, Piece, Shape, Sphere};
