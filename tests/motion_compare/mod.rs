//! Comparing two runs of one scene (shared by the collision and incremental-update tests).

use asgard::sim::Solver;

/// The largest distance between the same body's positions in two runs, over samples every
/// `dt`.
pub fn largest_difference(a: &Solver, b: &Solver, dt: f64) -> f64 {
    let simulator = &a.scene().simulator;
    let steps = ((simulator.finish - simulator.start) / dt).round() as usize;
    let (ma, mb) = (a.motion(), b.motion());
    let mut worst: f64 = 0.0;
    for k in 0..=steps {
        let t = (simulator.start + k as f64 * dt).min(simulator.finish);
        for body in 0..a.model().bodies().len() {
            let (x, y) = (ma.state(body, t).unwrap(), mb.state(body, t).unwrap());
            worst = worst.max((x.position - y.position).norm());
        }
    }
    worst
}
