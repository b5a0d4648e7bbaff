//! The convex hull of a point cloud: the polyhedron a `shape_set` face list or the shape editor
//! describes (dissertation 4.1.1: a polyhedron is the convex hull of its vertices, and vertices
//! that fall inside are drawn white).
//!
//! Construction: near-duplicate points are welded, a tetrahedron of extreme points is found (or
//! the cloud is reported flat), [`quickhull`] builds an exactly convex triangle surface, and
//! [`facets`] merges coplanar triangles into polygons. The tolerance is relative to the cloud's
//! extent: [`ConvexHull::tolerance`] is 1e-9 of its bounding-box diagonal.

mod facets;
mod quickhull;

use super::bounds::BoundingSphere;
use super::error::{Degeneracy, GeomError};
use nalgebra::Vector3;
use std::collections::HashMap;

/// Hull tolerance as a fraction of the point cloud's bounding-box diagonal.
const RELATIVE_TOLERANCE: f64 = 1e-9;

/// Above this many vertices a support query climbs the vertex graph instead of scanning.
const CLIMB_THRESHOLD: usize = 32;

/// A convex polyhedron: the hull of a point cloud, with the adjacency that closest-feature
/// queries and hill climbing need.
#[derive(Clone, Debug)]
pub struct ConvexHull {
    vertices: Vec<Vector3<f64>>,
    source: Vec<usize>,
    faces: Vec<Face>,
    edges: Vec<Edge>,
    /// Per vertex, its neighbours along edges and the edges themselves (same order).
    neighbors: Vec<Vec<(usize, usize)>>,
    /// Per vertex, the faces that have it as a corner.
    vertex_faces: Vec<Vec<usize>>,
    interior: Vec<usize>,
    tolerance: f64,
    bound: BoundingSphere,
}

/// A face: a convex polygon with an outward unit normal.
#[derive(Clone, Debug, PartialEq)]
pub struct Face {
    /// Corner indices into [`ConvexHull::vertices`], counter-clockwise seen from outside.
    pub vertices: Vec<usize>,
    /// Outward unit normal.
    pub normal: Vector3<f64>,
    /// Plane offset: points `x` of the hull satisfy `normal · x <= offset`.
    pub offset: f64,
}

/// An edge and the two faces that meet along it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    /// End points, indices into [`ConvexHull::vertices`].
    pub vertices: [usize; 2],
    /// `faces[0]` runs the edge `vertices[0] → vertices[1]` counter-clockwise, `faces[1]` the
    /// other way.
    pub faces: [usize; 2],
}

impl ConvexHull {
    /// The convex hull of `points`.
    ///
    /// Fails when a point is not finite, when there are fewer than 4 points, or when the points
    /// enclose no volume (all coincident, collinear or coplanar within the tolerance).
    pub fn new(points: &[Vector3<f64>]) -> Result<ConvexHull, GeomError> {
        if let Some(index) = points.iter().position(|p| !p.iter().all(|c| c.is_finite())) {
            return Err(GeomError::NonFinitePoint { index });
        }
        if points.len() < 4 {
            return Err(GeomError::TooFewPoints {
                count: points.len(),
            });
        }
        let (lo, hi) = bounds(points);
        let tolerance = RELATIVE_TOLERANCE * (hi - lo).norm();
        let flat = |degeneracy| GeomError::NoVolume {
            count: points.len(),
            degeneracy,
        };
        if tolerance == 0.0 {
            return Err(flat(Degeneracy::Coincident));
        }
        let distinct = weld(points, &lo, tolerance);
        let simplex = initial_simplex(points, &distinct, tolerance).map_err(flat)?;
        let tris = quickhull::build(points, &distinct, simplex);
        let facets = facets::merge(points, &tris, tolerance);
        Ok(assemble(points, facets, tolerance))
    }

    /// The hull's corners.
    pub fn vertices(&self) -> &[Vector3<f64>] {
        &self.vertices
    }

    /// For each vertex, the index of the input point it came from.
    pub fn source_indices(&self) -> &[usize] {
        &self.source
    }

    /// Input points that are not hull vertices: strictly inside, on a face or an edge, or a
    /// duplicate of a vertex. Ascending. The shape editor draws these white.
    pub fn interior_points(&self) -> &[usize] {
        &self.interior
    }

    pub fn faces(&self) -> &[Face] {
        &self.faces
    }

    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// The vertices joined to vertex `v` by an edge.
    pub fn neighbors(&self, v: usize) -> impl Iterator<Item = usize> + '_ {
        self.neighbors[v].iter().map(|&(w, _)| w)
    }

    /// The faces that have vertex `v` as a corner.
    pub fn vertex_faces(&self, v: usize) -> &[usize] {
        &self.vertex_faces[v]
    }

    /// The edge joining vertices `a` and `b`, if they are joined.
    pub fn edge_between(&self, a: usize, b: usize) -> Option<usize> {
        self.neighbors
            .get(a)?
            .iter()
            .find(|&&(w, _)| w == b)
            .map(|&(_, e)| e)
    }

    /// Distance below which points count as coplanar or coincident (1e-9 of the input's
    /// bounding-box diagonal).
    pub fn tolerance(&self) -> f64 {
        self.tolerance
    }

    /// A sphere around the hull.
    pub fn bounding_sphere(&self) -> BoundingSphere {
        self.bound
    }

    /// The largest signed distance of `p` above a face plane: at most 0 inside the hull, and
    /// a lower bound of the distance to the hull outside it.
    pub fn plane_distance(&self, p: &Vector3<f64>) -> f64 {
        self.faces
            .iter()
            .map(|f| f.normal.dot(p) - f.offset)
            .fold(f64::NEG_INFINITY, f64::max)
    }

    /// The vertex farthest in direction `dir`.
    pub fn support(&self, dir: &Vector3<f64>) -> usize {
        self.support_from(dir, 0)
    }

    /// The vertex farthest in direction `dir`, searching from vertex `start` (the previous
    /// answer, when the direction changed little): large hulls climb the vertex graph, which
    /// costs steps proportional to how far the answer moved.
    pub fn support_from(&self, dir: &Vector3<f64>, start: usize) -> usize {
        let score = |v: usize| self.vertices[v].dot(dir);
        if self.vertices.len() <= CLIMB_THRESHOLD || start >= self.vertices.len() {
            return (0..self.vertices.len())
                .max_by(|&a, &b| score(a).total_cmp(&score(b)))
                .unwrap_or(0);
        }
        let mut best = start;
        let mut best_score = score(start);
        loop {
            let next = self.neighbors[best]
                .iter()
                .map(|&(w, _)| (w, score(w)))
                .max_by(|a, b| a.1.total_cmp(&b.1));
            match next {
                Some((w, s)) if s > best_score => {
                    best = w;
                    best_score = s;
                }
                _ => return best,
            }
        }
    }
}

fn bounds(points: &[Vector3<f64>]) -> (Vector3<f64>, Vector3<f64>) {
    let mut lo = points[0];
    let mut hi = points[0];
    for p in points {
        lo = lo.inf(p);
        hi = hi.sup(p);
    }
    (lo, hi)
}

/// The indices of the points that survive welding: each point within `tol` of an earlier
/// survivor is dropped as its duplicate.
///
/// Points are binned in cells of side `tol`; the `tol`-ball around a point reaches at most
/// the 8 cells on its side of each cell boundary, found by binary search in the sorted bins.
fn weld(points: &[Vector3<f64>], lo: &Vector3<f64>, tol: f64) -> Vec<usize> {
    let scaled: Vec<Vector3<f64>> = points.iter().map(|p| (p - lo) / tol).collect();
    let cells: Vec<[i64; 3]> = scaled
        .iter()
        .map(|s| [s.x.floor() as i64, s.y.floor() as i64, s.z.floor() as i64])
        .collect();
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by_key(|&i| cells[i]);
    let in_cell = |key: [i64; 3]| {
        let start = order.partition_point(|&i| cells[i] < key);
        let end = order.partition_point(|&i| cells[i] <= key);
        &order[start..end]
    };
    let mut survivor = vec![false; points.len()];
    let mut kept = Vec::new();
    for i in 0..points.len() {
        let side = |k: usize| {
            if scaled[i][k] - cells[i][k] as f64 >= 0.5 {
                1
            } else {
                -1
            }
        };
        let steps = [side(0), side(1), side(2)];
        let duplicate = (0..8).any(|corner: usize| {
            let mut key = cells[i];
            for (k, step) in steps.iter().enumerate() {
                if corner >> k & 1 == 1 {
                    key[k] += step;
                }
            }
            in_cell(key)
                .iter()
                .any(|&j| survivor[j] && (points[j] - points[i]).norm() <= tol)
        });
        if !duplicate {
            survivor[i] = true;
            kept.push(i);
        }
    }
    kept
}

/// Four points spanning a tetrahedron thicker than `tol`, or how the cloud is flat.
fn initial_simplex(
    points: &[Vector3<f64>],
    ids: &[usize],
    tol: f64,
) -> Result<[usize; 4], Degeneracy> {
    let farthest = |score: &dyn Fn(&Vector3<f64>) -> f64| {
        ids.iter()
            .copied()
            .map(|i| (i, score(&points[i])))
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .unwrap_or((ids[0], 0.0))
    };
    let a = farthest(&|p| -p.x).0;
    let (b, d) = farthest(&|p| (p - points[a]).norm());
    if d <= tol {
        return Err(Degeneracy::Coincident);
    }
    let axis = (points[b] - points[a]).normalize();
    let (c, d) = farthest(&|p| (p - points[a]).cross(&axis).norm());
    if d <= tol {
        return Err(Degeneracy::Collinear);
    }
    let normal = (points[b] - points[a])
        .cross(&(points[c] - points[a]))
        .normalize();
    let (e, d) = farthest(&|p| normal.dot(&(p - points[a])).abs());
    if d <= tol {
        return Err(Degeneracy::Coplanar);
    }
    Ok([a, b, c, e])
}

/// Renumbers the merged faces' corners into the hull's own vertex list and derives edges and
/// adjacency.
fn assemble(points: &[Vector3<f64>], facets: Vec<facets::Facet>, tolerance: f64) -> ConvexHull {
    let mut index = vec![usize::MAX; points.len()];
    let mut used: Vec<usize> = facets
        .iter()
        .flat_map(|f| f.corners.iter().copied())
        .collect();
    used.sort_unstable();
    used.dedup();
    for (k, &p) in used.iter().enumerate() {
        index[p] = k;
    }
    let vertices: Vec<Vector3<f64>> = used.iter().map(|&p| points[p]).collect();
    let interior = (0..points.len())
        .filter(|&p| index[p] == usize::MAX)
        .collect();
    let faces: Vec<Face> = facets
        .into_iter()
        .map(|f| Face {
            vertices: f.corners.iter().map(|&p| index[p]).collect(),
            normal: f.normal,
            offset: f.offset,
        })
        .collect();

    let mut half: HashMap<(usize, usize), usize> = HashMap::new();
    for (f, face) in faces.iter().enumerate() {
        let n = face.vertices.len();
        for k in 0..n {
            half.insert((face.vertices[k], face.vertices[(k + 1) % n]), f);
        }
    }
    let mut edges = Vec::new();
    let mut neighbors = vec![Vec::new(); vertices.len()];
    let mut vertex_faces = vec![Vec::new(); vertices.len()];
    for (f, face) in faces.iter().enumerate() {
        let n = face.vertices.len();
        for k in 0..n {
            let (a, b) = (face.vertices[k], face.vertices[(k + 1) % n]);
            vertex_faces[a].push(f);
            if a < b {
                if let Some(&g) = half.get(&(b, a)) {
                    neighbors[a].push((b, edges.len()));
                    neighbors[b].push((a, edges.len()));
                    edges.push(Edge {
                        vertices: [a, b],
                        faces: [f, g],
                    });
                }
            }
        }
    }
    ConvexHull {
        bound: BoundingSphere::around(&vertices),
        vertices,
        source: used,
        faces,
        edges,
        neighbors,
        vertex_faces,
        interior,
        tolerance,
    }
}

#[cfg(test)]
mod tests;
