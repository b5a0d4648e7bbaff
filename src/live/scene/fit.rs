//! Turning sampled positions into a trajectory of few control points, and writing it as scene
//! text.
//!
//! The curve is the scene language's own (a C1 cubic Bézier spline through the control points
//! with Catmull–Rom tangents, [`TrajectoryPiece`]), evaluated with the scene's own code, so the
//! bound holds for the trajectory that `scene::evaluate` reads back. Control points are chosen
//! among the samples: starting from the first and last, each pass halves (by sample count)
//! every span between neighbouring control points where the curve misses a sample by more than
//! the tolerance; it stops when every sample is within the tolerance. It always stops, because
//! a curve through every sample misses none. Halving rather than adding the worst sample keeps
//! neighbouring spans alike, which is where Catmull–Rom tangents are accurate (exact for a
//! parabola on even spacing), so free flight needs few points.

use crate::scene::model::{ControlPoint, TrajectoryPiece};
use nalgebra::Vector3;
use std::fmt::Write;

/// The default bound on the distance between a recorded position and the fitted trajectory
/// at the recorded time: a millimetre for scenes in metres.
pub const DEFAULT_TOLERANCE: f64 = 1e-3;

/// Control points, chosen among `(times, positions)` (at least two samples, times strictly
/// increasing), of a trajectory that passes within `tolerance` of every sample at its time.
pub fn fit(times: &[f64], positions: &[Vector3<f64>], tolerance: f64) -> Vec<ControlPoint> {
    let n = times.len().min(positions.len());
    if n < 2 {
        return (0..n).map(|i| point(times[i], positions[i])).collect();
    }
    let mut chosen = vec![0, n - 1];
    loop {
        let piece = TrajectoryPiece {
            points: chosen
                .iter()
                .map(|&i| point(times[i], positions[i]))
                .collect(),
            span: None,
        };
        let mut added = Vec::new();
        for (segment, pair) in piece.segments().iter().zip(chosen.windows(2)) {
            let misses = (pair[0] + 1..pair[1])
                .any(|i| (segment.position(times[i]) - positions[i]).norm() > tolerance);
            if misses {
                added.push((pair[0] + pair[1]) / 2);
            }
        }
        if added.is_empty() {
            return piece.points;
        }
        chosen.extend(added);
        chosen.sort_unstable();
    }
}

fn point(time: f64, pos: Vector3<f64>) -> ControlPoint {
    ControlPoint {
        time,
        pos,
        span: None,
    }
}

/// The `trajectory` command driving body `body`'s position along `points`. Numbers are written
/// so that they read back exactly.
pub fn trajectory_text(name: &str, body: &str, points: &[ControlPoint]) -> String {
    let mut text = format!("trajectory {name} points {{");
    for (k, p) in points.iter().enumerate() {
        if k > 0 {
            text.push(' ');
        }
        // Writing to a String cannot fail.
        let _ = write!(text, "{{{} {} {} {}}}", p.time, p.pos.x, p.pos.y, p.pos.z);
    }
    let _ = write!(text, "}} body {body} var pos");
    text
}

/// `scene` with `command` appended as a command of its own.
pub fn append_command(scene: &str, command: &str) -> String {
    let mut text = scene.to_string();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(command);
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn samples(f: impl Fn(f64) -> Vector3<f64>, n: usize) -> (Vec<f64>, Vec<Vector3<f64>>) {
        let times: Vec<f64> = (0..n).map(|i| i as f64 * 0.01).collect();
        let positions = times.iter().map(|&t| f(t)).collect();
        (times, positions)
    }

    fn max_error(times: &[f64], positions: &[Vector3<f64>], points: &[ControlPoint]) -> f64 {
        let piece = TrajectoryPiece {
            points: points.to_vec(),
            span: None,
        };
        let segments = piece.segments();
        times
            .iter()
            .zip(positions)
            .map(|(&t, p)| {
                let s = segments
                    .iter()
                    .find(|s| s.t0 <= t && t <= s.t1)
                    .expect("inside the piece");
                (s.position(t) - p).norm()
            })
            .fold(0.0, f64::max)
    }

    #[test]
    fn a_straight_line_needs_only_its_ends() {
        let (times, positions) = samples(|t| Vector3::new(2.0 * t, 1.0 - t, 3.0), 200);
        let points = fit(&times, &positions, 1e-9);
        assert_eq!(points.len(), 2);
        assert_eq!(points[1].time, times[199]);
    }

    #[test]
    fn a_parabola_is_thinned_within_the_bound() {
        // Free fall, 44 m in 3 s: Catmull–Rom tangents on uneven spans miss a parabola by
        // about a·Δh·h, so a millimetre takes a point every few samples and a centimetre far
        // fewer.
        let (times, positions) = samples(|t| Vector3::new(t, 10.0 - 4.905 * t * t, 0.0), 301);
        let fine = fit(&times, &positions, 1e-3);
        let coarse = fit(&times, &positions, 1e-2);
        assert!(fine.len() < 150, "{} points", fine.len());
        assert!(coarse.len() < fine.len() / 2, "{} points", coarse.len());
        assert!(max_error(&times, &positions, &fine) <= 1e-3);
        assert!(max_error(&times, &positions, &coarse) <= 1e-2);
    }

    #[test]
    fn the_text_reads_back_exactly() {
        let points = vec![
            point(0.1, Vector3::new(1.0 / 3.0, -2.5, 1e-7)),
            point(0.2, Vector3::zeros()),
        ];
        let text = trajectory_text("path", "ball", &points);
        assert_eq!(
            text,
            "trajectory path points {{0.1 0.3333333333333333 -2.5 0.0000001} {0.2 0 0 0}} body ball var pos"
        );
        assert_eq!(append_command("body b", &text), format!("body b\n{text}\n"));
    }

    proptest! {
        /// Whatever the motion, every sample is within the tolerance of the fitted curve.
        #[test]
        fn every_sample_is_within_the_tolerance(
            steps in proptest::collection::vec((-1.0f64..1.0, -1.0f64..1.0, -1.0f64..1.0), 2..120),
            tolerance in 1e-4f64..0.1,
        ) {
            let times: Vec<f64> = (0..steps.len()).map(|i| i as f64 * 0.01).collect();
            let mut p = Vector3::zeros();
            let positions: Vec<Vector3<f64>> = steps
                .iter()
                .map(|&(x, y, z)| {
                    p += Vector3::new(x, y, z) * 0.05;
                    p
                })
                .collect();
            let points = fit(&times, &positions, tolerance);
            prop_assert!(points.len() >= 2 && points.len() <= times.len());
            prop_assert!(max_error(&times, &positions, &points) <= tolerance);
        }
    }
}
