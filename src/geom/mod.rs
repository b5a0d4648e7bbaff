//! Geometry of convex shapes: hulls, mass properties, distances and closest features,
//! bounding volumes, broad-phase culling and ray picking.
