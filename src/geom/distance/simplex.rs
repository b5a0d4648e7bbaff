//! The point of a small simplex (1 to 4 points of B − A) nearest the origin, and the smallest
//! sub-simplex that holds it: the step GJK repeats (Johnson's sub-algorithm, done by Voronoi
//! regions as in Ericson's *Real-Time Collision Detection*, with flat simplices handled by
//! falling back to their faces instead of dividing by a vanishing area or volume).

use super::posed::{SupportPoint, V3};

/// sin² of the smallest angle, and relative volume, below which a simplex counts as flat.
const FLAT: f64 = 1e-20;

#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Simplex {
    pts: [SupportPoint; 4],
    bary: [f64; 4],
    len: usize,
}

/// A sub-simplex (positions into the current points) and the weights of its nearest point.
#[derive(Clone, Copy)]
struct Nearest {
    idx: [usize; 4],
    w: [f64; 4],
    n: usize,
}

impl Nearest {
    fn point(&self, p: &[SupportPoint]) -> V3 {
        (0..self.n).map(|k| p[self.idx[k]].w * self.w[k]).sum()
    }
}

impl Simplex {
    pub fn points(&self) -> &[SupportPoint] {
        &self.pts[..self.len]
    }

    /// Barycentric weights of the nearest point, one per point (after [`Simplex::reduce`]).
    pub fn weights(&self) -> &[f64] {
        &self.bary[..self.len]
    }

    pub fn push(&mut self, p: SupportPoint) {
        if self.len < 4 {
            self.pts[self.len] = p;
            self.len += 1;
        }
    }

    pub fn contains(&self, ia: usize, ib: usize) -> bool {
        self.points().iter().any(|p| p.ia == ia && p.ib == ib)
    }

    /// Nearest points on A and on B: the weighted sums of the points' origins.
    pub fn witnesses(&self) -> (V3, V3) {
        let mut a = V3::zeros();
        let mut b = V3::zeros();
        for (p, &w) in self.points().iter().zip(self.weights()) {
            a += p.a * w;
            b += p.b * w;
        }
        (a, b)
    }

    /// Shrinks the simplex to the sub-simplex holding its point nearest the origin and
    /// returns that point, or `None` when the origin is inside the tetrahedron.
    pub fn reduce(&mut self) -> Option<V3> {
        let p = self.pts;
        let all = [0, 1, 2, 3];
        let nearest = match self.len {
            0 => return Some(V3::zeros()),
            1 => Nearest {
                idx: all,
                w: [1.0, 0.0, 0.0, 0.0],
                n: 1,
            },
            2 => segment(&p, 0, 1),
            3 => triangle(&p, 0, 1, 2),
            _ => tetrahedron(&p)?,
        };
        for k in 0..nearest.n {
            self.pts[k] = p[nearest.idx[k]];
            self.bary[k] = nearest.w[k];
        }
        self.len = nearest.n;
        Some(nearest.point(&p))
    }
}

/// Barycentric weights of the point of triangle `p` nearest the origin (EPA's final face).
pub(super) fn triangle_weights(p: &[SupportPoint; 3]) -> [f64; 3] {
    let padded = [p[0], p[1], p[2], p[2]];
    let near = triangle(&padded, 0, 1, 2);
    let mut w = [0.0; 3];
    for k in 0..near.n {
        w[near.idx[k]] += near.w[k];
    }
    w
}

fn vertex(i: usize) -> Nearest {
    Nearest {
        idx: [i, 0, 0, 0],
        w: [1.0, 0.0, 0.0, 0.0],
        n: 1,
    }
}

fn pair(i: usize, j: usize, t: f64) -> Nearest {
    Nearest {
        idx: [i, j, 0, 0],
        w: [1.0 - t, t, 0.0, 0.0],
        n: 2,
    }
}

fn closer(p: &[SupportPoint], x: Nearest, y: Nearest) -> Nearest {
    if y.point(p).norm_squared() < x.point(p).norm_squared() {
        y
    } else {
        x
    }
}

fn segment(p: &[SupportPoint], i: usize, j: usize) -> Nearest {
    let (a, b) = (p[i].w, p[j].w);
    let ab = b - a;
    let len2 = ab.norm_squared();
    if len2 == 0.0 {
        return vertex(i);
    }
    let t = -a.dot(&ab) / len2;
    if t <= 0.0 {
        vertex(i)
    } else if t >= 1.0 {
        vertex(j)
    } else {
        pair(i, j, t)
    }
}

fn triangle(p: &[SupportPoint], i: usize, j: usize, k: usize) -> Nearest {
    let (a, b, c) = (p[i].w, p[j].w, p[k].w);
    let ab = b - a;
    let ac = c - a;
    if ab.cross(&ac).norm_squared() <= FLAT * ab.norm_squared() * ac.norm_squared() {
        let best = closer(p, segment(p, i, j), segment(p, j, k));
        return closer(p, best, segment(p, i, k));
    }
    let d1 = -ab.dot(&a);
    let d2 = -ac.dot(&a);
    if d1 <= 0.0 && d2 <= 0.0 {
        return vertex(i);
    }
    let d3 = -ab.dot(&b);
    let d4 = -ac.dot(&b);
    if d3 >= 0.0 && d4 <= d3 {
        return vertex(j);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return pair(i, j, d1 / (d1 - d3));
    }
    let d5 = -ab.dot(&c);
    let d6 = -ac.dot(&c);
    if d6 >= 0.0 && d5 <= d6 {
        return vertex(k);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return pair(i, k, d2 / (d2 - d6));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
        return pair(j, k, (d4 - d3) / ((d4 - d3) + (d5 - d6)));
    }
    let sum = va + vb + vc;
    let (v, w) = (vb / sum, vc / sum);
    Nearest {
        idx: [i, j, k, 0],
        w: [1.0 - v - w, v, w, 0.0],
        n: 3,
    }
}

fn tetrahedron(p: &[SupportPoint]) -> Option<Nearest> {
    let (a, b, c, d) = (p[0].w, p[1].w, p[2].w, p[3].w);
    let (ab, ac, ad) = (b - a, c - a, d - a);
    let volume = ab.dot(&ac.cross(&ad));
    let flat = volume * volume <= FLAT * ab.norm_squared() * ac.norm_squared() * ad.norm_squared();
    let faces = [(0, 1, 2, 3), (0, 2, 3, 1), (0, 3, 1, 2), (1, 3, 2, 0)];
    let mut best: Option<Nearest> = None;
    for (i, j, k, opposite) in faces {
        let (pi, pj, pk) = (p[i].w, p[j].w, p[k].w);
        let n = (pj - pi).cross(&(pk - pi));
        let origin_side = -n.dot(&pi);
        let other_side = n.dot(&(p[opposite].w - pi));
        if flat || origin_side * other_side < 0.0 {
            let candidate = triangle(p, i, j, k);
            best = Some(match best {
                Some(b) => closer(p, b, candidate),
                None => candidate,
            });
        }
    }
    best
}
