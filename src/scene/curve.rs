//! Trajectories as functions of time: the curve through the control points, its derivative,
//! and the Bézier control points the trajectory editor draws (dissertation 5.1.3).
//!
//! Within a piece the curve is a cubic Bézier spline that passes through every control point at
//! its time and is C1 in time: the tangent at an inner point is the Catmull–Rom one, the
//! secant through its neighbours divided by their time difference, and at the ends of a piece
//! the one-sided secant. Outside the pieces the value is extrapolated linearly from the nearest
//! end of a piece, with the derivative the curve has there.

use super::model::{Trajectory, TrajectoryPiece, Vec3};

/// One cubic segment of a trajectory, between two consecutive control points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BezierSegment {
    pub t0: f64,
    pub t1: f64,
    /// The four Bézier control points: the two control points of the text at the ends, the
    /// tangent handles between them.
    pub control: [Vec3; 4],
}

impl BezierSegment {
    fn param(&self, t: f64) -> f64 {
        (t - self.t0) / (self.t1 - self.t0)
    }

    /// The point of the segment at time `t` (`t0 <= t <= t1`).
    pub fn position(&self, t: f64) -> Vec3 {
        let u = self.param(t);
        let v = 1.0 - u;
        let [p0, p1, p2, p3] = self.control;
        p0 * (v * v * v) + p1 * (3.0 * v * v * u) + p2 * (3.0 * v * u * u) + p3 * (u * u * u)
    }

    /// The derivative with respect to time at `t`.
    pub fn velocity(&self, t: f64) -> Vec3 {
        let u = self.param(t);
        let v = 1.0 - u;
        let [p0, p1, p2, p3] = self.control;
        let d_du =
            (p1 - p0) * (3.0 * v * v) + (p2 - p1) * (6.0 * v * u) + (p3 - p2) * (3.0 * u * u);
        d_du / (self.t1 - self.t0)
    }
}

impl TrajectoryPiece {
    /// The time of the first control point.
    pub fn start(&self) -> f64 {
        self.points.first().map_or(0.0, |p| p.time)
    }

    /// The time of the last control point.
    pub fn end(&self) -> f64 {
        self.points.last().map_or(0.0, |p| p.time)
    }

    /// The tangent (derivative in time) of the curve at control point `i`.
    fn tangent(&self, i: usize) -> Vec3 {
        let p = &self.points;
        let (a, b) = (i.saturating_sub(1), (i + 1).min(p.len() - 1));
        if a == b {
            return Vec3::zeros();
        }
        (p[b].pos - p[a].pos) / (p[b].time - p[a].time)
    }

    /// The segment from control point `i` to `i + 1`.
    fn segment(&self, i: usize) -> BezierSegment {
        let (a, b) = (&self.points[i], &self.points[i + 1]);
        let third = (b.time - a.time) / 3.0;
        BezierSegment {
            t0: a.time,
            t1: b.time,
            control: [
                a.pos,
                a.pos + self.tangent(i) * third,
                b.pos - self.tangent(i + 1) * third,
                b.pos,
            ],
        }
    }

    /// The Bézier segments of the piece, in time order (for drawing).
    pub fn segments(&self) -> Vec<BezierSegment> {
        (0..self.points.len().saturating_sub(1))
            .map(|i| self.segment(i))
            .collect()
    }

    /// Position and derivative at `t`, which must lie within the piece.
    fn eval(&self, t: f64) -> (Vec3, Vec3) {
        match self.points.len() {
            0 => (Vec3::zeros(), Vec3::zeros()),
            1 => (self.points[0].pos, Vec3::zeros()),
            n => {
                let i = self.points.partition_point(|p| p.time <= t).clamp(1, n - 1) - 1;
                let segment = self.segment(i);
                (segment.position(t), segment.velocity(t))
            }
        }
    }

    /// Position and derivative at the first (`at_end` false) or last control point.
    fn endpoint(&self, at_end: bool) -> (f64, Vec3, Vec3) {
        let i = if at_end { self.points.len() - 1 } else { 0 };
        (self.points[i].time, self.points[i].pos, self.tangent(i))
    }
}

impl Trajectory {
    /// The index of the piece whose interval contains `t`, if any: while it is active, the
    /// trajectory constrains the state variables it is attached to.
    pub fn piece_at(&self, t: f64) -> Option<usize> {
        let i = self
            .pieces
            .partition_point(|p| p.start() <= t)
            .checked_sub(1)?;
        (t <= self.pieces[i].end()).then_some(i)
    }

    /// The value of the trajectory at time `t`.
    pub fn position(&self, t: f64) -> Vec3 {
        self.eval(t).0
    }

    /// The derivative with respect to time at `t`.
    pub fn velocity(&self, t: f64) -> Vec3 {
        self.eval(t).1
    }

    fn eval(&self, t: f64) -> (Vec3, Vec3) {
        if self.pieces.is_empty() {
            return (Vec3::zeros(), Vec3::zeros());
        }
        if let Some(i) = self.piece_at(t) {
            return self.pieces[i].eval(t);
        }
        // Outside every piece: extrapolate from the nearest end of a piece.
        let next = self.pieces.partition_point(|p| p.start() <= t);
        let (time, pos, vel) = match (next.checked_sub(1), self.pieces.get(next)) {
            (Some(before), Some(after)) => {
                let (end, start) = (self.pieces[before].end(), after.start());
                if t - end <= start - t {
                    self.pieces[before].endpoint(true)
                } else {
                    after.endpoint(false)
                }
            }
            (Some(before), None) => self.pieces[before].endpoint(true),
            (None, _) => self.pieces[0].endpoint(false),
        };
        (pos + vel * (t - time), vel)
    }

    /// The Bézier segments of every piece, in time order (for drawing the curve).
    pub fn segments(&self) -> Vec<BezierSegment> {
        self.pieces.iter().flat_map(|p| p.segments()).collect()
    }

    /// The times where a piece starts or ends: the solver must not step across them.
    pub fn breakpoints(&self) -> Vec<f64> {
        self.pieces
            .iter()
            .flat_map(|p| [p.start(), p.end()])
            .collect()
    }

    /// The first and last time of the pieces.
    pub fn time_range(&self) -> Option<(f64, f64)> {
        Some((self.pieces.first()?.start(), self.pieces.last()?.end()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::span::Span;
    use crate::scene::model::{ControlPoint, Origin};
    use proptest::prelude::*;

    fn piece(points: &[(f64, [f64; 3])]) -> TrajectoryPiece {
        TrajectoryPiece {
            points: points
                .iter()
                .map(|&(time, p)| ControlPoint {
                    time,
                    pos: Vec3::from(p),
                    span: None,
                })
                .collect(),
            span: None,
        }
    }

    fn trajectory(pieces: Vec<TrajectoryPiece>) -> Trajectory {
        Trajectory {
            name: "T".into(),
            pieces,
            attachments: Vec::new(),
            origin: Origin {
                command: Span::default(),
                editable: true,
            },
        }
    }

    #[test]
    fn passes_through_control_points_with_continuous_derivative() {
        let t = trajectory(vec![piece(&[
            (0.0, [0.0, 0.0, 0.0]),
            (1.0, [1.0, 2.0, 0.0]),
            (3.0, [2.0, 0.0, 1.0]),
            (4.0, [0.0, 0.0, 0.0]),
        ])]);
        for p in &t.pieces[0].points {
            assert!((t.position(p.time) - p.pos).norm() < 1e-12);
        }
        // C1 at the inner points: the derivative just before equals the one just after, and
        // both equal the Catmull–Rom tangent.
        let e = 1e-7;
        for (time, tangent) in [
            (1.0, [2.0 / 3.0, 0.0, 1.0 / 3.0]),
            (3.0, [-1.0 / 3.0, -2.0 / 3.0, 0.0]),
        ] {
            let before = t.velocity(time - e);
            let after = t.velocity(time + e);
            assert!((before - after).norm() < 1e-5, "{before} vs {after}");
            assert!((t.velocity(time) - Vec3::from(tangent)).norm() < 1e-12);
        }
    }

    #[test]
    fn two_points_give_uniform_motion() {
        let t = trajectory(vec![piece(&[
            (1.0, [0.0, 0.0, 0.0]),
            (3.0, [4.0, 0.0, 0.0]),
        ])]);
        assert!((t.position(2.0) - Vec3::new(2.0, 0.0, 0.0)).norm() < 1e-12);
        assert!((t.velocity(1.5) - Vec3::new(2.0, 0.0, 0.0)).norm() < 1e-12);
    }

    #[test]
    fn extrapolates_linearly_from_the_nearest_end() {
        let t = trajectory(vec![
            piece(&[(0.0, [0.0, 0.0, 0.0]), (1.0, [1.0, 0.0, 0.0])]),
            piece(&[(5.0, [0.0, 1.0, 0.0]), (6.0, [0.0, 3.0, 0.0])]),
        ]);
        assert_eq!(t.piece_at(0.5), Some(0));
        assert_eq!(t.piece_at(2.0), None);
        assert_eq!(t.piece_at(5.5), Some(1));
        // Before the first piece, after the first (nearer its end), before the second (nearer
        // its start) and after the last.
        assert!((t.position(-1.0) - Vec3::new(-1.0, 0.0, 0.0)).norm() < 1e-12);
        assert!((t.position(2.0) - Vec3::new(2.0, 0.0, 0.0)).norm() < 1e-12);
        assert!((t.position(4.0) - Vec3::new(0.0, -1.0, 0.0)).norm() < 1e-12);
        assert!((t.position(7.0) - Vec3::new(0.0, 5.0, 0.0)).norm() < 1e-12);
        assert_eq!(t.velocity(7.0), Vec3::new(0.0, 2.0, 0.0));
        assert_eq!(t.breakpoints(), vec![0.0, 1.0, 5.0, 6.0]);
        assert_eq!(t.segments().len(), 2);
    }

    proptest! {
        /// The derivative is the time derivative of the position (central differences), and
        /// the segments' ends are the control points.
        #[test]
        fn velocity_is_the_derivative_of_position(
            steps in proptest::collection::vec((0.2f64..2.0, -5.0f64..5.0, -5.0f64..5.0, -5.0f64..5.0), 2..7),
            s in 0.0f64..1.0,
        ) {
            let mut time = 0.0;
            let points: Vec<(f64, [f64; 3])> = steps.iter().map(|&(dt, x, y, z)| {
                time += dt;
                (time, [x, y, z])
            }).collect();
            let p = piece(&points);
            let t = trajectory(vec![p.clone()]);
            let at = p.start() + s * (p.end() - p.start());
            let h = 1e-6;
            let numeric = (t.position(at + h) - t.position(at - h)) / (2.0 * h);
            prop_assert!((numeric - t.velocity(at)).norm() < 1e-4 * (1.0 + numeric.norm()));
            for (segment, pair) in p.segments().iter().zip(p.points.windows(2)) {
                prop_assert_eq!(segment.control[0], pair[0].pos);
                prop_assert_eq!(segment.control[3], pair[1].pos);
            }
        }
    }
}
