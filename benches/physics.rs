//! Benchmarks of the physics layer, from scene text to motion.
//!
//! 1. `pendulums` — figure 5.7 with real pendulum bodies: balls hanging from links under
//!    gravity, one of them with gravity and link tightness scaled by `ratio²`, which shortens
//!    all its time constants by `ratio`. All equations in one component ("combined") against
//!    one component per pendulum ("partitioned", event-driven), for ratios 1 to 10,000.
//! 2. `free` — figure 5.11 without collisions: N free bodies (boxes and balls thrown and
//!    spinning under gravity) for 10 s of simulated time, N = 10 to 10,000, partitioned and
//!    combined; the time per body should stay flat (linear growth). Also the cost of playing
//!    the motion back: one body's state read through a sampler.
//! 3. `links` — one body held by six links: from scene text to compiled equations (evaluate
//!    the text, compile the model, build every component's tape).
//!
//! Run with `cargo bench --bench physics`, or `-- pendulums|free|links` for one part. Times are
//! wall-clock (`Instant`); each case reports its ratio to a baseline measured in the same run.

use asgard::scene::evaluate;
use asgard::sim::physics::Model;
use asgard::sim::{Options, Strategy};
use std::hint::black_box;
use std::time::Instant;

fn main() {
    let only = std::env::args().nth(1).filter(|a| !a.starts_with('-'));
    let wanted = |name: &str| only.as_deref().is_none_or(|o| o == name);
    if wanted("links") {
        six_links();
    }
    if wanted("pendulums") {
        pendulums();
    }
    if wanted("free") {
        free_bodies();
    }
}

/// What one simulation cost.
struct Timing {
    /// Scene text to a `Model`.
    compile: f64,
    /// Building the simulation: partition and every component's tape.
    build: f64,
    run: f64,
    steps: u64,
    components: usize,
    /// Playing the motion back: seconds per body state read through a sampler, for every
    /// body at 50 frame times.
    playback: f64,
}

impl Timing {
    fn total(&self) -> f64 {
        self.compile + self.build + self.run
    }
}

fn simulate(text: &str, strategy: Strategy) -> Timing {
    let start = Instant::now();
    let scene = evaluate(text).expect("benchmark scenes evaluate");
    let model = Model::compile(&scene).expect("benchmark scenes compile");
    let compiled = start.elapsed().as_secs_f64();
    let mut options = model.options();
    options.strategy = strategy;
    let mut simulation = model.simulation(options).expect("benchmark scenes build");
    let built = start.elapsed().as_secs_f64();
    if let Err(e) = simulation.run_to_end() {
        panic!("{}", model.describe(e, Some(simulation.partition())));
    }
    let ran = start.elapsed().as_secs_f64();
    let motion = model.motion(simulation.motion());
    let mut sampler = motion.sampler();
    let (start, end) = (scene.simulator.start, scene.simulator.finish);
    let frames = 50;
    let playing = Instant::now();
    for k in 0..frames {
        let t = start + (end - start) * k as f64 / (frames - 1) as f64;
        for b in 0..model.bodies().len() {
            black_box(sampler.state(b, t));
        }
    }
    let states = (frames * model.bodies().len()).max(1);
    Timing {
        compile: compiled,
        build: built - compiled,
        run: ran - built,
        steps: simulation.statistics().total().steps,
        components: simulation.partition().len(),
        playback: playing.elapsed().as_secs_f64() / states as f64,
    }
}

const PENDULUMS: usize = 32;
const PENDULUM_SECONDS: f64 = 0.2;

/// `PENDULUMS` balls, each hanging 1 m below its pivot from a link, released at 0.3 rad; the
/// first one's gravity and tightness are multiplied by `ratio²`.
fn pendulum_scene(ratio: f64) -> String {
    let mut text = format!(
        "simulator finish {PENDULUM_SECONDS} step 0.01 tolerance 1e-5\n\
         shape_set ball desc {{sub pos {{0 0 0}} sphere 0.1}}\n"
    );
    let theta: f64 = 0.3;
    for p in 0..PENDULUMS {
        let scale = if p == 0 { ratio * ratio } else { 1.0 };
        let pivot = 3.0 * p as f64;
        text += &format!(
            "body p{p} shape ball mass 1 init_pos {{{} {} 0}} init_rot {{0 0 {theta}}}\n\
             force body p{p} gravity {{0 {} 0}}\n\
             link body1 p{p} offset1 {{0 1 0}} x {pivot} y 0 z 0 tightness {}\n",
            pivot + theta.sin(),
            -theta.cos(),
            -9.81 * scale,
            1e4 * scale,
        );
    }
    text
}

fn pendulums() {
    println!(
        "Figure 5.7: {PENDULUMS} pendulums for {PENDULUM_SECONDS} s, one faster by the time constant ratio"
    );
    println!(
        "{:>7} {:>12} {:>12} {:>10} {:>12} {:>12}",
        "ratio", "combined s", "partition s", "comb/part", "comb steps", "part steps"
    );
    for ratio in [1.0, 10.0, 100.0, 1000.0, 10000.0] {
        let text = pendulum_scene(ratio);
        let combined = simulate(&text, Strategy::Combined);
        let partitioned = simulate(&text, Strategy::EventDriven);
        println!(
            "{:>7} {:>12.4} {:>12.4} {:>10.2} {:>12} {:>12}",
            ratio,
            combined.total(),
            partitioned.total(),
            combined.total() / partitioned.total(),
            combined.steps,
            partitioned.steps
        );
    }
}

const FREE_SECONDS: f64 = 10.0;

/// `n` bodies thrown upwards and spinning, alternately boxes (asymmetric inertia) and balls.
fn free_scene(n: usize) -> String {
    let mut text = format!(
        "simulator finish {FREE_SECONDS} step 0.1\n\
         shape_set ball desc {{sub pos {{0 0 0}} sphere 0.5}}\n\
         shape_set brick desc {{sub pos {{0 0 0}} box {{1 2 3}}}}\n"
    );
    for b in 0..n {
        let shape = if b % 2 == 0 { "ball" } else { "brick" };
        let (x, z) = ((b % 100) as f64 * 4.0, (b / 100) as f64 * 4.0);
        let spin = [0.5 + (b % 7) as f64 * 0.1, 0.3, -0.2 + (b % 3) as f64 * 0.1];
        text += &format!(
            "body b{b} shape {shape} init_pos {{{x} 0 {z}}} init_dpos {{0.5 {} 0}} init_drot {{{} {} {}}}\n\
             force body b{b} gravity {{0 -9.81 0}}\n",
            20.0 + (b % 5) as f64,
            spin[0],
            spin[1],
            spin[2]
        );
    }
    text
}

fn free_bodies() {
    println!();
    println!("Figure 5.11 (no collisions): N free bodies for {FREE_SECONDS} s of simulated time");
    println!(
        "{:>7} {:>9} {:>10} {:>10} {:>10} {:>10} {:>12} {:>13} {:>14} {:>14}",
        "bodies",
        "strategy",
        "total s",
        "compile s",
        "build s",
        "run s",
        "us per body",
        "vs 10 bodies",
        "steps per body",
        "us per state"
    );
    let mut baseline = [None, None];
    for n in [10, 100, 1000, 10000] {
        let text = free_scene(n);
        for (k, strategy) in [Strategy::EventDriven, Strategy::Combined]
            .into_iter()
            .enumerate()
        {
            let t = simulate(&text, strategy);
            let per_body = t.total() / n as f64;
            let base = *baseline[k].get_or_insert(per_body);
            println!(
                "{:>7} {:>9} {:>10.3} {:>10.3} {:>10.3} {:>10.3} {:>12.1} {:>13.2} {:>14} {:>14.3}",
                n,
                if k == 0 { "multiple" } else { "single" },
                t.total(),
                t.compile,
                t.build,
                t.run,
                per_body * 1e6,
                per_body / base,
                t.steps / n as u64,
                t.playback * 1e6
            );
            black_box(t.components);
        }
    }
    if let Some(peak) = peak_memory() {
        // The combined pendulums keep every variable at every step of the fastest one, so run
        // `-- free` alone to see the free bodies' own peak.
        println!("peak resident memory of the process so far: {peak}");
    }
}

/// The process's peak resident set size, as the kernel reports it.
fn peak_memory() -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    Some(line["VmHWM:".len()..].trim().to_string())
}

/// One box held by six links to fixed points around it, under gravity.
const SIX_LINKS: &str = "simulator finish 1 step 0.01
shape_set brick desc {sub pos {0 0 0} box {1 0.8 0.6}}
body b shape brick init_pos {0.1 -0.2 0.05} init_rot {0.1 0.3 0.2} mass 2
force body b gravity {0 -9.81 0}
link body1 b offset1 {0.5 0 0} x 1.1 y 0.1 z 0.1 tightness 40
link body1 b offset1 {-0.5 0 0} x -0.9 y 0.1 z 0.1 tightness 40
link body1 b offset1 {0 0.4 0} x 0.1 y 0.9 z 0.1 tightness 40
link body1 b offset1 {0 -0.4 0} x 0.1 y -0.7 z 0.1 tightness 40
link body1 b offset1 {0 0 0.3} x 0.1 y 0.1 z 0.7 tightness 40
link body1 b offset1 {0 0 -0.3} x 0.1 y 0.1 z -0.5 tightness 40
";

fn six_links() {
    let stages = |text: &str| {
        let start = Instant::now();
        let scene = evaluate(text).expect("the scene evaluates");
        let evaluated = start.elapsed().as_secs_f64();
        let model = Model::compile(&scene).expect("the scene compiles");
        let compiled = start.elapsed().as_secs_f64();
        let simulation = model
            .simulation(Options::default())
            .expect("the equations build");
        let built = start.elapsed().as_secs_f64();
        black_box(simulation.partition().len());
        [evaluated, compiled - evaluated, built - compiled]
    };
    stages(SIX_LINKS);
    let mut runs: Vec<[f64; 3]> = (0..51).map(|_| stages(SIX_LINKS)).collect();
    runs.sort_by(|a, b| a.iter().sum::<f64>().total_cmp(&b.iter().sum::<f64>()));
    let median = runs[runs.len() / 2];
    let total: f64 = median.iter().sum();
    // Baseline in the same run: the same scene with the links removed.
    let bare: String = SIX_LINKS
        .lines()
        .filter(|l| !l.starts_with("link"))
        .map(|l| format!("{l}\n"))
        .collect();
    let mut bare_runs: Vec<f64> = (0..51).map(|_| stages(&bare).iter().sum()).collect();
    bare_runs.sort_by(f64::total_cmp);
    let bare_total = bare_runs[bare_runs.len() / 2];
    println!("One body with six links, scene text to compiled equations (median of 51):");
    println!(
        "  evaluate {:.3} ms, compile {:.3} ms, build tapes {:.3} ms: total {:.3} ms (goal < 10 ms)",
        median[0] * 1e3,
        median[1] * 1e3,
        median[2] * 1e3,
        total * 1e3
    );
    println!(
        "  the same body without links: {:.3} ms; links cost {:.1}x",
        bare_total * 1e3,
        total / bare_total
    );
}
