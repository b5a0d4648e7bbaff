//! Turning sampled positions or rotations into a trajectory of few control points, and writing
//! it as scene text.
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

use crate::scene::model::{ConstrainedVar, ControlPoint, TrajectoryPiece};
use nalgebra::{UnitQuaternion, Vector3};
use std::f64::consts::TAU;
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

/// Rotation vectors (axis times angle) of `rotations`, each chosen among the equivalent ones
/// (the angle plus whole turns, either way round the axis) as the nearest to its predecessor's:
/// a body spinning on goes on growing its vector past half a turn instead of jumping to the
/// opposite axis, so a smooth rotation gives a smooth curve to fit. The first is the one with
/// its angle in `[0, π]`.
pub fn continuous_rotation_vectors(rotations: &[UnitQuaternion<f64>]) -> Vec<Vector3<f64>> {
    let mut vectors: Vec<Vector3<f64>> = Vec::with_capacity(rotations.len());
    for rotation in rotations {
        let principal = rotation.scaled_axis();
        let vector = match vectors.last() {
            None => principal,
            Some(previous) => nearest_equivalent(principal, previous),
        };
        vectors.push(vector);
    }
    vectors
}

/// Among the rotation vectors of the rotation `principal` (angle in `[0, π]`), the nearest
/// to `previous`.
fn nearest_equivalent(principal: Vector3<f64>, previous: &Vector3<f64>) -> Vector3<f64> {
    let angle = principal.norm();
    // Without a turn the axis is free: whole turns about the previous axis are the candidates.
    let axis = if angle > 1e-12 {
        principal / angle
    } else if let Some(axis) = previous.try_normalize(1e-12) {
        axis
    } else {
        return principal;
    };
    // The candidates are axis × (angle + k·2π); the nearest has the k nearest to the previous
    // vector's length along the axis.
    let along = axis.dot(previous);
    let turns = ((along - angle) / TAU).round();
    axis * (angle + turns * TAU)
}

/// The `trajectory` command driving body `body`'s variable `var` along `points`. Numbers are
/// written so that they read back exactly.
pub fn trajectory_text(
    name: &str,
    body: &str,
    var: ConstrainedVar,
    points: &[ControlPoint],
) -> String {
    let mut text = format!("trajectory {name} points {{");
    for (k, p) in points.iter().enumerate() {
        if k > 0 {
            text.push(' ');
        }
        // Writing to a String cannot fail.
        let _ = write!(text, "{{{} {} {} {}}}", p.time, p.pos.x, p.pos.y, p.pos.z);
    }
    let _ = write!(text, "}} body {body} var {}", var.keyword());
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
        let text = trajectory_text("path", "ball", ConstrainedVar::Position, &points);
        assert_eq!(
            text,
            "trajectory path points {{0.1 0.3333333333333333 -2.5 0.0000001} {0.2 0 0 0}} body ball var pos"
        );
        assert_eq!(append_command("body b", &text), format!("body b\n{text}\n"));
    }

    #[test]
    fn a_spin_past_half_a_turn_keeps_growing_its_rotation_vector() {
        // Three turns about z and a bit, then the same about a tilted axis through no turn.
        let spin: Vec<UnitQuaternion<f64>> = (0..200)
            .map(|i| UnitQuaternion::from_scaled_axis(Vector3::z() * (i as f64 * 0.1)))
            .collect();
        let vectors = continuous_rotation_vectors(&spin);
        for (i, v) in vectors.iter().enumerate() {
            assert!(
                (v - Vector3::z() * (i as f64 * 0.1)).norm() < 1e-9,
                "{i}: {v}"
            );
        }
        let axis = Vector3::new(1.0, -2.0, 0.5).normalize();
        let back: Vec<UnitQuaternion<f64>> = (-30..30)
            .map(|i| UnitQuaternion::from_scaled_axis(axis * (i as f64 * 0.2)))
            .collect();
        let vectors = continuous_rotation_vectors(&back);
        for (v, i) in vectors.iter().zip(-30..30) {
            // The first sample, −6 rad about the axis, is 2π − 6 about it; the rest follow on
            // from there, one whole turn ahead of `axis × angle`, through the identity.
            let expected = axis * (i as f64 * 0.2 + TAU);
            assert!((v - expected).norm() < 1e-9, "{i}: {v} against {expected}");
        }
    }

    proptest! {
        /// Whatever the rotations, each vector turns the same way as its rotation.
        #[test]
        fn every_vector_is_its_rotation(
            turns in proptest::collection::vec((-4.0f64..4.0, -4.0f64..4.0, -4.0f64..4.0), 1..60),
        ) {
            let rotations: Vec<UnitQuaternion<f64>> = turns
                .iter()
                .map(|&(x, y, z)| UnitQuaternion::from_scaled_axis(Vector3::new(x, y, z)))
                .collect();
            for (v, r) in continuous_rotation_vectors(&rotations).iter().zip(&rotations) {
                prop_assert!(UnitQuaternion::from_scaled_axis(*v).angle_to(r) < 1e-9);
            }
        }

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
