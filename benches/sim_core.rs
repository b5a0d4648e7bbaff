//! Benchmarks of the simulator's numerical core with hand-written equations.
//!
//! 1. Figure 5.7: several pendulums, one with a much larger gravity so that its time constant
//!    is 1 to 10,000 times shorter than the others'; all equations in one component
//!    ("combined") against one component per pendulum ("partitioned", event-driven) and the
//!    same components run one after another ("sequential"). Reported as runtimes and the
//!    combined / partitioned ratio, measured in the same run.
//! 2. N independent free bodies (twelve trivial equations each) for N = 10 … 10,000: runtime
//!    per body relative to N = 10 should stay flat (linear growth).
//!
//! Run with `cargo bench --bench sim_core`; add `-- pendulums` or `-- bodies` for one part.
//!
//! Times are this thread's CPU time (from `/proc/thread-self/schedstat`, falling back to wall
//! time elsewhere): on a machine shared with other work, wall time mostly measures the
//! neighbours. Each case is repeated until 0.3 s are spent and the mean is reported.

use asgard::sim::{ClosureEquations, Equation, Options, Simulation, Strategy, System, Tolerance};
use std::time::Instant;

const PENDULUMS: usize = 8;
const PENDULUM_SECONDS: f64 = 1.0;
const GRAVITY: f64 = 9.81;

/// `θ' = ω, ω' = -(g/L) sin θ` for each pendulum; the first one's gravity is scaled by
/// `ratio²`, which shortens its period (time constant) by `ratio`.
fn pendulums(ratio: f64) -> (System, ClosureEquations) {
    let mut system = System::new(0.0, PENDULUM_SECONDS);
    let mut equations = ClosureEquations::new();
    for p in 0..PENDULUMS {
        let g = if p == 0 {
            GRAVITY * ratio * ratio
        } else {
            GRAVITY
        };
        let length = 1.0 + 0.1 * p as f64;
        let k = g / length;
        let theta = system.add_variable(format!("p{p}.theta"), 0.3 + 0.02 * p as f64);
        let omega = system.add_variable(format!("p{p}.omega"), 0.0);
        equations.define(
            &mut system,
            theta,
            Equation::new(move |_, s| s.get(omega)).reads(omega, |_, _| 1.0),
        );
        equations.define(
            &mut system,
            omega,
            Equation::new(move |_, s| -k * s.get(theta).sin())
                .reads(theta, move |_, s| -k * s.get(theta).cos()),
        );
    }
    (system, equations)
}

/// Twelve equations per body: position from velocity, constant velocity except for gravity
/// along y, and the same for rotation angles and angular velocities.
fn free_bodies(n: usize) -> (System, ClosureEquations) {
    let mut system = System::new(0.0, 2.0);
    let mut equations = ClosureEquations::new();
    for b in 0..n {
        for (axis, accel) in [("x", 0.0), ("y", -GRAVITY), ("z", 0.0)] {
            for (kind, rate) in [("", 1.0), ("r", 0.5)] {
                let q = system.add_variable(format!("b{b}.{kind}{axis}"), (b % 7) as f64);
                let dq = system.add_variable(format!("b{b}.d{kind}{axis}"), rate);
                let a = if kind.is_empty() { accel } else { 0.0 };
                equations.define(
                    &mut system,
                    q,
                    Equation::new(move |_, s| s.get(dq)).reads(dq, |_, _| 1.0),
                );
                equations.define(&mut system, dq, Equation::new(move |_, _| a));
            }
        }
    }
    (system, equations)
}

/// Seconds of CPU time this thread has used, if the system says.
fn thread_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanoseconds: f64 = stat.split_whitespace().next()?.parse().ok()?;
    Some(nanoseconds * 1e-9)
}

/// A stopwatch of CPU time where available, wall time otherwise.
struct Stopwatch {
    wall: Instant,
    cpu: Option<f64>,
}

impl Stopwatch {
    fn start() -> Stopwatch {
        Stopwatch {
            wall: Instant::now(),
            cpu: thread_cpu_seconds(),
        }
    }

    fn seconds(&self) -> f64 {
        match (self.cpu, thread_cpu_seconds()) {
            (Some(start), Some(now)) => now - start,
            _ => self.wall.elapsed().as_secs_f64(),
        }
    }
}

struct Measured {
    /// Fastest build-and-run time.
    seconds: f64,
    /// Of that, building the simulation (partition, evaluators, tracks).
    build_seconds: f64,
    steps: u64,
    variable_steps: u64,
}

/// Builds and runs the simulation, repeating it until 0.3 s have been spent (so cases of a
/// few microseconds are measured above the clock's resolution), and reports the mean.
fn measure(system: &System, equations: &ClosureEquations, options: Options) -> Measured {
    let mut runs = 0u32;
    let mut total = 0.0;
    let mut build_total = 0.0;
    let mut sim = None;
    while total < 0.3 {
        let system = system.clone();
        let watch = Stopwatch::start();
        let mut run = Simulation::new(system, equations, options.clone()).expect("valid system");
        let built = watch.seconds();
        run.run_to_end().expect("the benchmark systems integrate");
        total += watch.seconds();
        build_total += built;
        runs += 1;
        sim = Some(run);
    }
    let seconds = total / f64::from(runs);
    let build_seconds = build_total / f64::from(runs);
    let stats = sim.expect("at least one run").statistics();
    Measured {
        seconds,
        build_seconds,
        steps: stats.total().steps,
        variable_steps: stats
            .components
            .iter()
            .map(|c| c.steps * c.size as u64)
            .sum(),
    }
}

fn pendulum_options(strategy: Strategy) -> Options {
    let mut options = Options {
        strategy,
        ..Options::default()
    };
    options.step.tolerance = Tolerance::new(1e-5, 1e-5);
    options
}

fn main() {
    let only = std::env::args().nth(1).filter(|a| !a.starts_with('-'));
    if only.as_deref().is_none_or(|a| a == "pendulums") {
        figure_5_7();
    }
    if only.as_deref().is_none_or(|a| a == "bodies") {
        free_body_growth();
    }
}

fn figure_5_7() {
    println!("Figure 5.7: {PENDULUMS} pendulums over {PENDULUM_SECONDS} s, one faster by the time constant ratio");
    println!(
        "{:>7} {:>12} {:>12} {:>12} {:>9} {:>12} {:>14} {:>14}",
        "ratio",
        "combined s",
        "partition s",
        "sequential s",
        "comb/part",
        "comb steps",
        "comb var-steps",
        "part var-steps"
    );
    for ratio in [1.0, 10.0, 100.0, 1000.0, 10000.0] {
        let (system, equations) = pendulums(ratio);
        let combined = measure(&system, &equations, pendulum_options(Strategy::Combined));
        let partitioned = measure(&system, &equations, pendulum_options(Strategy::EventDriven));
        let sequential = measure(&system, &equations, pendulum_options(Strategy::Sequential));
        println!(
            "{:>7} {:>12.4} {:>12.4} {:>12.4} {:>9.2} {:>12} {:>14} {:>14}",
            ratio,
            combined.seconds,
            partitioned.seconds,
            sequential.seconds,
            combined.seconds / partitioned.seconds,
            combined.steps,
            combined.variable_steps,
            partitioned.variable_steps,
        );
    }
}

fn free_body_growth() {
    println!();
    println!("Independent free bodies, 12 equations each, over 2 s");
    println!(
        "(us per body: event-driven, and sequential for comparison: same work, better locality)"
    );
    println!(
        "{:>7} {:>11} {:>12} {:>12} {:>13} {:>14} {:>13} {:>15}",
        "bodies",
        "components",
        "seconds",
        "of it build",
        "us per body",
        "vs 10 bodies",
        "sequential us",
        "steps per body"
    );
    let mut baseline = None;
    for n in [10, 100, 1000, 10000] {
        let (system, equations) = free_bodies(n);
        let measured = measure(&system, &equations, Options::default());
        let sequential = measure(
            &system,
            &equations,
            Options {
                strategy: Strategy::Sequential,
                ..Options::default()
            },
        );
        let per_body = measured.seconds / n as f64;
        let base = *baseline.get_or_insert(per_body);
        println!(
            "{:>7} {:>11} {:>12.4} {:>12.4} {:>13.2} {:>14.2} {:>13.2} {:>15}",
            n,
            12 * n,
            measured.seconds,
            measured.build_seconds,
            per_body * 1e6,
            per_body / base,
            sequential.seconds / n as f64 * 1e6,
            measured.steps / n as u64
        );
    }
}
