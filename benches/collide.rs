//! Benchmarks of collision handling and incremental re-simulation.
//!
//! 1. `fig511` — figure 5.11: two pendulums and a ball that collide (the ball bounces between
//!    the pendulums' bobs, as in 5.2.4) plus free bodies falling elsewhere that collide with
//!    nothing, N = 10 to 10,000 objects, with the five algorithms of 5.2.4: single or multiple
//!    components without collisions, single or multiple (event-driven) with collisions, and
//!    multiple with collisions but without event-driven scheduling. Each is reported with its
//!    ratio to "multiple, no collisions" at the same N, and per object.
//! 2. `incremental` — a thousand drifting balls, some colliding: simulate, move one ball, and
//!    bring the motion up to date incrementally, against simulating the edited scene from
//!    scratch in the same run. Both start from the evaluated edited scene: from scratch
//!    compiles it and runs; the update compiles it, resets what the edit affects and runs.
//!
//! Run with `cargo bench --bench collide`, or `-- fig511|incremental` for one part;
//! `ASGARD_BENCH_MAX_OBJECTS` caps N (default 10,000). Times are wall-clock (`Instant`).

use asgard::scene::{evaluate, Scene};
use asgard::sim::physics::Model;
use asgard::sim::{Solver, Strategy};
use std::time::Instant;

fn main() {
    let only = std::env::args().nth(1).filter(|a| !a.starts_with('-'));
    let wanted = |name: &str| only.as_deref().is_none_or(|o| o == name);
    if wanted("fig511") {
        figure_5_11();
    }
    if wanted("incremental") {
        incremental();
    }
}

/// Two pendulums whose bobs hang 4 m apart, a ball sliding between them, and `extra` free
/// bodies falling 100 m higher up, 2 m apart.
fn pendulums_and_ball(extra: usize) -> String {
    format!(
        "simulator finish 4 step 0.1
shape_set bob desc {{sphere 0.3}}
shape_set ball desc {{sphere 0.2}}
body p1 shape bob mass 2 init_pos {{-2 0 0}}
body p2 shape bob mass 2 init_pos {{2 0 0}}
link body1 p1 offset1 {{0 1 0}} point {{-2 1 0}} tightness 2000
link body1 p2 offset1 {{0 1 0}} point {{2 1 0}} tightness 2000
force body p1 gravity {{0 -9.81 0}}
force body p2 gravity {{0 -9.81 0}}
body ball shape ball mass 0.5 init_pos {{0 0 0}} init_dpos {{-3 0 0}}
for {{set i 0}} {{$i < {extra}}} {{incr i}} {{
    body f$i shape ball mass 1 init_pos [list [expr {{2.0 * ($i % 100)}}] [expr {{100 + 2.0 * ($i / 100)}}] 0] \\
        init_dpos {{0 1 0}}
    force body f$i gravity {{0 -9.81 0}}
}}"
    )
}

fn scene(text: &str) -> Scene {
    evaluate(text).unwrap_or_else(|e| panic!("{}", e.diagnostic("bench")))
}

/// Simulates `scene` with `strategy` and returns the wall time of the run and the collisions.
fn time_run(scene: Scene, strategy: Strategy) -> (f64, usize) {
    let mut solver = Solver::new(scene, strategy).unwrap();
    let started = Instant::now();
    solver.run_to_end().unwrap();
    (started.elapsed().as_secs_f64(), solver.collisions().len())
}

fn figure_5_11() {
    let max: usize = std::env::var("ASGARD_BENCH_MAX_OBJECTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let cases = [
        ("1 single, no collisions", Strategy::Combined, false),
        ("2 multiple, no collisions", Strategy::EventDriven, false),
        ("3 single, collisions", Strategy::Combined, true),
        ("4 multiple, collisions", Strategy::EventDriven, true),
        ("5 non-event, collisions", Strategy::Sequential, true),
    ];
    println!("figure 5.11: 4 s simulated; time, ratio to case 2, microseconds per object");
    for n in [10, 100, 1000, 10_000].into_iter().filter(|&n| n <= max) {
        let text = pendulums_and_ball(n - 3);
        let runs: Vec<(&str, f64, usize)> = cases
            .iter()
            .map(|&(name, strategy, collisions)| {
                let mut s = scene(&text);
                s.simulator.collisions = collisions;
                let (wall, hits) = time_run(s, strategy);
                (name, wall, hits)
            })
            .collect();
        let baseline = runs[1].1;
        for (name, wall, hits) in runs {
            println!(
                "  N = {n:>5}  {name:<26} {wall:>9.4} s  x{:>6.2}  {:>8.1} us/object  {hits} collisions",
                wall / baseline,
                wall / n as f64 * 1e6
            );
        }
    }
}

/// A thousand balls on a grid drifting in all directions; ball b500 starts `shift` further
/// along x.
fn crowd(shift: f64) -> String {
    format!(
        "simulator finish 2 step 0.1
shape_set ball desc {{sphere 0.3}}
for {{set i 0}} {{$i < 1000}} {{incr i}} {{
    set x [expr {{$i % 10}}]
    set y [expr {{($i / 10) % 10}}]
    set z [expr {{$i / 100}}]
    if {{$i == 500}} {{ set x [expr {{$x + {shift}}}] }}
    body b$i shape ball mass 1 init_pos [list $x $y $z] \\
        init_dpos [list [expr {{0.4 * sin($i)}}] [expr {{0.4 * cos(1.7 * $i)}}] [expr {{0.4 * sin(2.3 * $i)}}]]
}}"
    )
}

fn incremental() {
    let text = crowd(0.15);
    let started = Instant::now();
    let edited = scene(&text);
    let evaluation = started.elapsed().as_secs_f64();

    let started = Instant::now();
    let mut fresh = Solver::new(edited.clone(), Strategy::EventDriven).unwrap();
    fresh.run_to_end().unwrap();
    let scratch = started.elapsed().as_secs_f64();

    let started = Instant::now();
    Model::compile(&edited).unwrap();
    let compile = started.elapsed().as_secs_f64();

    let mut solver = Solver::new(scene(&crowd(0.0)), Strategy::EventDriven).unwrap();
    solver.run_to_end().unwrap();
    let started = Instant::now();
    let summary = solver.update(edited).unwrap();
    solver.run_to_end().unwrap();
    let update = started.elapsed().as_secs_f64();
    println!(
        "incremental: 1000 balls, one moved: from scratch (compile and run) {scratch:.4} s, \
         update (compile, update and run) {update:.5} s ({} of {} components reset), \
         x{:.0} faster; compiling the model alone takes {compile:.5} s; evaluating the edited \
         scene, {evaluation:.4} s, precedes both",
        summary.components_reset,
        summary.components_total,
        scratch / update
    );
}
