//! Quickhull over exact orientation tests: a closed, exactly convex surface of triangles whose
//! corners are input points.
//!
//! Every "is this point above that triangle" question is answered by [`orient`], so the faces
//! a new point sees always form a disc whose rim is one simple loop, and no tolerance can make
//! the surface fold or tear. Flat regions come out as several coplanar triangles; merging them
//! into polygons is [`super::facets`]' job.

use crate::geom::exact::orient;
use nalgebra::Vector3;
use std::cmp::Ordering;

const NONE: usize = usize::MAX;

/// A triangle of the surface, corners counter-clockwise seen from outside.
#[derive(Clone, Debug)]
pub(super) struct Triangle {
    /// Input point indices.
    pub v: [usize; 3],
    /// `adj[i]` is the triangle across the edge `v[i] → v[(i + 1) % 3]`.
    pub adj: [usize; 3],
}

/// A triangle while the hull grows: it may die, and it owns the points only it can see.
struct Face {
    tri: Triangle,
    alive: bool,
    outside: Vec<usize>,
    visit: u32,
}

struct Builder<'a> {
    points: &'a [Vector3<f64>],
    faces: Vec<Face>,
    visit: u32,
    /// Scratch, indexed by point: the horizon edge that starts at the point.
    horizon_from: Vec<usize>,
}

/// Builds the hull of `candidates` (indices into `points`), starting from the tetrahedron
/// `simplex`, whose four points must not be coplanar.
pub(super) fn build(
    points: &[Vector3<f64>],
    candidates: &[usize],
    simplex: [usize; 4],
) -> Vec<Triangle> {
    let mut b = Builder {
        points,
        faces: Vec::new(),
        visit: 0,
        horizon_from: vec![NONE; points.len()],
    };
    b.start(simplex);
    let first: Vec<usize> = (0..b.faces.len()).collect();
    let rest: Vec<usize> = candidates
        .iter()
        .copied()
        .filter(|p| !simplex.contains(p))
        .collect();
    b.assign(&rest, &first);
    let mut work: Vec<usize> = first;
    while let Some(f) = work.pop() {
        if b.faces[f].alive && !b.faces[f].outside.is_empty() {
            work.extend(b.add_point_seen_by(f));
        }
    }
    b.finish()
}

impl Builder<'_> {
    fn above(&self, f: usize, p: usize) -> bool {
        let [a, b, c] = self.faces[f].tri.v;
        let pts = self.points;
        orient(&pts[a], &pts[b], &pts[c], &pts[p]) == Ordering::Greater
    }

    fn start(&mut self, s: [usize; 4]) {
        for omit in 0..4 {
            let mut v: Vec<usize> = (0..4).filter(|&k| k != omit).map(|k| s[k]).collect();
            let (a, b, c) = (&self.points[v[0]], &self.points[v[1]], &self.points[v[2]]);
            if orient(a, b, c, &self.points[s[omit]]) == Ordering::Greater {
                v.swap(1, 2);
            }
            self.push_face([v[0], v[1], v[2]]);
        }
        // Link the four triangles: the twin of edge a→b is the edge b→a of another face.
        for f in 0..4 {
            for i in 0..3 {
                let (a, b) = (self.faces[f].tri.v[i], self.faces[f].tri.v[(i + 1) % 3]);
                let twin = (0..4).find(|&g| g != f && (0..3).any(|j| self.edge(g, j) == (b, a)));
                self.faces[f].tri.adj[i] = twin.unwrap_or(NONE);
            }
        }
    }

    fn edge(&self, f: usize, i: usize) -> (usize, usize) {
        let v = self.faces[f].tri.v;
        (v[i], v[(i + 1) % 3])
    }

    fn push_face(&mut self, v: [usize; 3]) -> usize {
        self.faces.push(Face {
            tri: Triangle { v, adj: [NONE; 3] },
            alive: true,
            outside: Vec::new(),
            visit: 0,
        });
        self.faces.len() - 1
    }

    /// Gives each point to the first face in `faces` it is above; points above none are inside.
    fn assign(&mut self, pts: &[usize], faces: &[usize]) {
        for &p in pts {
            if let Some(&f) = faces.iter().find(|&&f| self.above(f, p)) {
                self.faces[f].outside.push(p);
            }
        }
    }

    /// Adds the point of `f`'s outside set farthest from its plane; returns the new faces.
    fn add_point_seen_by(&mut self, f: usize) -> Vec<usize> {
        let [a, b, c] = self.faces[f].tri.v;
        let pts = self.points;
        let normal = (pts[b] - pts[a]).cross(&(pts[c] - pts[a]));
        let far = self.faces[f]
            .outside
            .iter()
            .copied()
            .max_by(|&p, &q| {
                let dp = normal.dot(&(pts[p] - pts[a]));
                let dq = normal.dot(&(pts[q] - pts[a]));
                dp.total_cmp(&dq)
            })
            .unwrap_or(NONE);

        // The faces that see `far` form a disc; collect it and the edges on its rim.
        self.visit += 1;
        let visit = self.visit;
        let mut visible = vec![f];
        let mut horizon: Vec<(usize, usize, usize)> = Vec::new(); // (from, to, outer face)
        self.faces[f].visit = visit;
        let mut k = 0;
        while k < visible.len() {
            let g = visible[k];
            k += 1;
            for i in 0..3 {
                let h = self.faces[g].tri.adj[i];
                if self.faces[h].visit == visit {
                    continue;
                }
                if self.above(h, far) {
                    self.faces[h].visit = visit;
                    visible.push(h);
                } else {
                    let (from, to) = self.edge(g, i);
                    horizon.push((from, to, h));
                }
            }
        }

        // Fan the rim to the new point; neighbours along the rim share the rim's vertices.
        let new: Vec<usize> = horizon
            .iter()
            .map(|&(from, to, _)| self.push_face([from, to, far]))
            .collect();
        for (k, &(from, _, _)) in horizon.iter().enumerate() {
            self.horizon_from[from] = new[k];
        }
        for (k, &(from, to, outer)) in horizon.iter().enumerate() {
            let face = new[k];
            self.faces[face].tri.adj = [outer, self.horizon_from[to], NONE];
            let back = (0..3).find(|&j| self.edge(outer, j) == (to, from));
            if let Some(j) = back {
                self.faces[outer].tri.adj[j] = face;
            }
        }
        for &face in &new {
            let next = self.faces[face].tri.adj[1];
            self.faces[next].tri.adj[2] = face;
        }
        for &(from, _, _) in &horizon {
            self.horizon_from[from] = NONE;
        }

        let mut orphans = Vec::new();
        for &g in &visible {
            self.faces[g].alive = false;
            orphans.append(&mut self.faces[g].outside);
        }
        orphans.retain(|&p| p != far);
        self.assign(&orphans, &new);
        new
    }

    fn finish(self) -> Vec<Triangle> {
        let mut index = vec![NONE; self.faces.len()];
        let mut n = 0;
        for (f, face) in self.faces.iter().enumerate() {
            if face.alive {
                index[f] = n;
                n += 1;
            }
        }
        self.faces
            .into_iter()
            .filter(|f| f.alive)
            .map(|f| Triangle {
                v: f.tri.v,
                adj: f.tri.adj.map(|g| index[g]),
            })
            .collect()
    }
}
