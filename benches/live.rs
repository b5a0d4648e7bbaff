//! Live mode speed (issue 8 §5): how many bodies hold real time at dt 0.01, the update rate
//! of a small scene at dt 0.001, and scenes of bodies resting on each other (issue 24): the
//! wall of `examples/wall.asg`, a stack of ten boxes and a hundred boxes in ten stacks.
//!
//! Time per update is measured over a second of simulated time after a short warm-up and
//! reported as a ratio to dt (below 1 holds real time). Free bodies under gravity, balls
//! colliding in a closed box and a chain of linked boxes are grown by doubling until an update
//! takes longer than dt. For the free bodies the same simulated second is also computed as a
//! precomputed run (`Model::simulation`, the playback path), the baseline of what live stepping
//! costs over it; the colliding balls are compared with as many free bodies, the cost of
//! collision handling in live mode. The resting scenes are run from their start (settling is
//! what costs) at their `live_dt`, in processor time of the stepping thread per simulated
//! second: below 1 holds real time on a core of its own, whatever else the machine runs.
//!
//! Run with `cargo bench --bench live`; `cargo bench --bench live -- resting` runs the resting
//! scenes alone.

use asgard::live::scene::{LiveOptions, SceneAdvance};
use asgard::live::Module;
use asgard::scene::evaluate;
use asgard::sim::physics::{Model, Pullable};
use std::time::Instant;

/// `n` balls on a grid, each under gravity.
fn free_bodies(n: usize) -> String {
    format!(
        "simulator finish 1
shape_set ball desc {{sphere 0.2}}
for {{set i 0}} {{$i < {n}}} {{incr i}} {{
    body b$i shape ball mass 1 init_pos [list [expr {{$i % 100}}] [expr {{$i / 100}}] 0] \\
        init_dpos {{1 2 0}} init_drot {{0 0.5 1}}
    force body b$i gravity {{0 -9.81 0}}
}}
"
    )
}

/// `n` balls in a closed box without gravity, on a grid one metre apart, flying in different
/// directions at 1 to 1.7 m/s: they keep colliding with each other and the walls (all elastic,
/// so none comes to rest).
fn balls_in_box(n: usize) -> String {
    let side = (1..).find(|s| s * s * s >= n).unwrap_or(1);
    let (low, high) = (-0.6, side as f64 - 0.4);
    let middle = (low + high) / 2.0;
    let length = high - low + 0.4;
    let mut walls = String::new();
    for (axis, size) in [
        (0, format!("0.2 {length} {length}")),
        (1, format!("{length} 0.2 {length}")),
        (2, format!("{length} {length} 0.2")),
    ] {
        for (end, at) in [("low", low - 0.1), ("high", high + 0.1)] {
            let mut pos = [middle; 3];
            pos[axis] = at;
            walls.push_str(&format!(
                "shape_set wall{axis}{end} desc {{box {{{size}}}}}\n\
                 body wall{axis}{end} shape wall{axis}{end} fixed 1 \
                 init_pos {{{} {} {}}}\n",
                pos[0], pos[1], pos[2]
            ));
        }
    }
    format!(
        "simulator finish 1
shape_set ball desc {{sphere 0.2}}
{walls}for {{set i 0}} {{$i < {n}}} {{incr i}} {{
    body b$i shape ball mass 1 \\
        init_pos [list [expr {{$i % {side}}}] [expr {{$i / {side} % {side}}}] [expr {{$i / {side2}}}]] \\
        init_dpos [list [expr {{($i * 7 % 11) * 0.2 - 1}}] [expr {{($i * 5 % 13) * 0.15 - 0.9}}] 1]
}}
",
        side2 = side * side
    )
}

/// A chain of `n` boxes hanging from a fixed point, starting horizontal (examples/chain.asg):
/// one articulated body, so that linked neighbours, which touch, do not collide.
fn chain(n: usize) -> String {
    format!(
        "simulator finish 1
set len 0.3
shape_set link desc {{box {{0.3 0.08 0.08}}}}
for {{set i 0}} {{$i < {n}}} {{incr i}} {{
    set name box$i
    body $name shape link artbody chain mass 0.2 init_pos [list [expr {{($i + 0.5) * $len}}] 0 0]
    force body $name gravity {{0 -9.81 0}}
    if {{$i == 0}} {{
        link body1 $name offset1 [list [expr {{-$len / 2}}] 0 0] point {{0 0 0}} tightness 5000
    }} else {{
        link body1 $name offset1 [list [expr {{-$len / 2}}] 0 0] \\
            body2 box[expr {{$i - 1}}] offset2 [list [expr {{$len / 2}}] 0 0] tightness 5000
    }}
}}
"
    )
}

/// Seconds per update of `text` live at `dt`, over `seconds` of simulated time after a
/// warm-up of a tenth of that, and the number of collisions in that time.
fn per_update(text: &str, pullable: Pullable, dt: f64, seconds: f64) -> (f64, u64) {
    let scene = evaluate(text).expect("the bench scene evaluates");
    let options = LiveOptions {
        pullable,
        ..LiveOptions::default()
    };
    let (mut advance, controls) = SceneAdvance::new(&scene, &options).expect("it compiles");
    let updates = (seconds / dt).round() as usize;
    for _ in 0..updates / 10 {
        advance.update(dt);
    }
    let collisions = controls.collision_count();
    let started = Instant::now();
    for _ in 0..updates {
        advance.update(dt);
    }
    let elapsed = started.elapsed().as_secs_f64();
    assert_eq!(controls.error(), None);
    (
        elapsed / updates as f64,
        controls.collision_count() - collisions,
    )
}

/// Processor time of the calling thread, seconds.
fn thread_cpu() -> f64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// `text` live from its start at its `live_dt` for `seconds` of simulated time: processor
/// time per simulated second over the whole run and over its costliest half second.
fn resting_cost(text: &str, seconds: f64) -> (f64, f64) {
    let scene = evaluate(text).expect("the bench scene evaluates");
    let dt = scene.simulator.live_dt;
    let (mut advance, controls) =
        SceneAdvance::new(&scene, &LiveOptions::default()).expect("it compiles");
    let per_chunk = (0.5 / dt).round() as usize;
    let chunks = (seconds / 0.5).round() as usize;
    let mut worst: f64 = 0.0;
    let started = thread_cpu();
    for _ in 0..chunks {
        let chunk = thread_cpu();
        for _ in 0..per_chunk {
            advance.update(dt);
        }
        worst = worst.max((thread_cpu() - chunk) / 0.5);
    }
    assert_eq!(controls.error(), None);
    ((thread_cpu() - started) / (chunks as f64 * 0.5), worst)
}

/// Seconds to precompute `seconds` of `text` with the playback simulation, per `dt` of it.
fn precomputed_per_dt(text: &str, dt: f64) -> f64 {
    let scene = evaluate(text).expect("the bench scene evaluates");
    let model = Model::compile(&scene).expect("it compiles");
    let mut simulation = model.simulation(model.options()).expect("it builds");
    let started = Instant::now();
    simulation.run_to_end().expect("it runs");
    let span = scene.simulator.finish - scene.simulator.start;
    started.elapsed().as_secs_f64() * dt / span
}

/// Grows the scene by doubling from `first` while an update at dt 0.01 takes less than dt,
/// then narrows the last doubling down by bisection (to an eighth of it); prints each size
/// tried and returns the largest that held real time.
fn largest_real_time(name: &str, first: usize, scene: impl Fn(usize) -> String) -> usize {
    let dt = 0.01;
    let holds = |n: usize| {
        let seconds = if n >= 1000 { 0.3 } else { 1.0 };
        let (time, _) = per_update(&scene(n), Pullable::Only(Vec::new()), dt, seconds);
        let ratio = time / dt;
        println!(
            "{name:>12} {n:>6} bodies: {:8.3} ms per update, {ratio:6.3} of dt",
            time * 1e3
        );
        ratio < 1.0
    };
    let (mut held, mut failed) = (0, first);
    while holds(failed) {
        held = failed;
        failed *= 2;
    }
    while failed - held > (held / 8).max(1) {
        let middle = (held + failed) / 2;
        if holds(middle) {
            held = middle;
        } else {
            failed = middle;
        }
    }
    held
}

fn main() {
    if std::env::args().skip(1).any(|a| a == "resting") {
        resting();
        return;
    }
    real_time_sizes();
    resting();
    small_steps();
}

/// The largest scenes of free, colliding and linked bodies that hold real time, and what live
/// stepping and collisions cost against their baselines.
fn real_time_sizes() {
    println!("live mode at dt 0.01 (pushable, not pullable), time per update / dt:");
    let free = largest_real_time("free", 250, free_bodies);
    let colliding = largest_real_time("box", 32, balls_in_box);
    let linked = largest_real_time("chain", 2, chain);
    println!(
        "largest holding real time: {free} free bodies, {colliding} balls colliding in a box, \
         a chain of {linked}"
    );

    let n = free.max(1);
    let dt = 0.01;
    let (live, _) = per_update(&free_bodies(n), Pullable::Only(Vec::new()), dt, 1.0);
    let (pullable, _) = per_update(&free_bodies(n), Pullable::All, dt, 1.0);
    let baseline = precomputed_per_dt(&free_bodies(n), dt);
    println!(
        "{n} free bodies, per 0.01 s of motion: precomputed {:.3} ms (baseline), live {:.3} ms \
         ({:.2}x), live with every body pullable {:.3} ms ({:.2}x)",
        baseline * 1e3,
        live * 1e3,
        live / baseline,
        pullable * 1e3,
        pullable / baseline,
    );

    let n = colliding.max(1);
    let (free_time, _) = per_update(&free_bodies(n), Pullable::Only(Vec::new()), dt, 1.0);
    let (box_time, collisions) = per_update(&balls_in_box(n), Pullable::Only(Vec::new()), dt, 1.0);
    println!(
        "{n} bodies, per update at dt 0.01: free {:.3} ms (baseline), colliding in a box {:.3} ms \
         ({:.2}x, {collisions} collisions in the measured second)",
        free_time * 1e3,
        box_time * 1e3,
        box_time / free_time,
    );
}

/// Bodies resting on each other (issue 24).
fn resting() {
    println!(
        "bodies resting on each other, from the start at live_dt, processor time / real time:"
    );
    for (name, text, seconds) in [
        (
            "examples/wall.asg",
            include_str!("../examples/wall.asg"),
            4.0,
        ),
        (
            "a stack of 10 boxes",
            include_str!("scenes/stack10.asg"),
            3.0,
        ),
        (
            "100 boxes in 10 stacks",
            include_str!("scenes/boxes100.asg"),
            3.0,
        ),
    ] {
        let (mean, worst) = resting_cost(text, seconds);
        println!(
            "{name:>24}, {seconds} s: {mean:.3} over the run, {worst:.3} in its costliest half second"
        );
    }
}

/// A small scene at dt 0.001.
fn small_steps() {
    let dt = 0.001;
    for (name, text) in [("one free ball", free_bodies(1)), ("chain of 5", chain(5))] {
        let (time, _) = per_update(&text, Pullable::All, dt, 2.0);
        println!(
            "{name} at dt 0.001: {:.1} us per update, {:.0} updates/s ({:.3} of dt)",
            time * 1e6,
            1.0 / time,
            time / dt
        );
    }
}
