//! What evaluating a large scene and turning a drag into a text edit cost.
//!
//! A generated scene of 10,000 bodies, each written out as its own commands (so every literal
//! is editable): a body, a force with a symbolic expression, and a link to the previous body.
//! Measured against the plain parse of the same text in the same run, in wall-clock and in
//! processor time (the ratios use processor time, which other work on the machine disturbs
//! less):
//! - `evaluate`: text to `Scene` (goal: under 100 ms), and freeing a scene, timed apart;
//! - after a drag of one body: `patch` (the text edit) and `diff` (old scene against the
//!   scene of the edited text), together the goal is under 10 ms.
//!
//! Run: `cargo bench --bench scene` (or `--profile dev` to reuse the test build).

use asgard::lang::parse_script;
use asgard::scene::{diff, evaluate, patch, EditValue, InitVar, Target};
use nalgebra::Vector3;
use std::hint::black_box;
use std::time::{Duration, Instant};

const BODIES: usize = 10_000;

fn generated_scene(n: usize) -> String {
    let mut text = String::from(
        "# A generated chain of balls under gravity.\nsimulator finish 10 step 0.01\nshape_set ball desc {sphere 0.1 color red}\n",
    );
    for i in 0..n {
        let (x, z) = (i % 100, i / 100);
        text.push_str(&format!(
            "body b{i} shape ball mass 1 init_pos {{{x} 1 {z}}} init_dpos {{0 0.5 0}}\n\
             force body b{i} y {{-9.81 * [b{i} mass]}} offset {{0 0.05 0}}\n"
        ));
        if i > 0 {
            let j = i - 1;
            text.push_str(&format!(
                "link body1 b{i} offset1 {{-0.1 0 0}} body2 b{j} offset2 {{0.1 0 0}} tightness 500\n"
            ));
        }
    }
    text
}

/// Wall-clock and processor time of one measurement: on a machine shared with other work the
/// processor time (what this thread ran, from Linux's `/proc/thread-self/schedstat`) is the
/// steadier of the two.
#[derive(Clone, Copy, Default)]
struct Cost {
    wall: Duration,
    cpu: Option<Duration>,
}

impl Cost {
    fn div(self, runs: u32) -> Cost {
        Cost {
            wall: self.wall / runs,
            cpu: self.cpu.map(|c| c / runs),
        }
    }

    fn add(self, other: Cost) -> Cost {
        Cost {
            wall: self.wall + other.wall,
            cpu: self.cpu.zip(other.cpu).map(|(a, b)| a + b),
        }
    }

    /// The ratio to a baseline, by processor time when both have it.
    fn ratio(self, base: Cost) -> f64 {
        match (self.cpu, base.cpu) {
            (Some(a), Some(b)) => a.as_secs_f64() / b.as_secs_f64(),
            _ => self.wall.as_secs_f64() / base.wall.as_secs_f64(),
        }
    }
}

fn thread_cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos: u64 = stat.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(nanos))
}

/// Measures `f` once.
fn measure<T>(f: impl FnOnce() -> T) -> (T, Cost) {
    let (cpu, wall) = (thread_cpu(), Instant::now());
    let result = f();
    let cost = Cost {
        wall: wall.elapsed(),
        cpu: cpu.zip(thread_cpu()).map(|(a, b)| b.saturating_sub(a)),
    };
    (result, cost)
}

/// The mean cost of `f` over enough runs to take about a second (at least three runs).
fn time(mut f: impl FnMut()) -> Cost {
    f();
    let (mut total, mut runs) = (Cost::default(), 0u32);
    total.cpu = Some(Duration::ZERO);
    while runs < 3 || total.wall < Duration::from_secs(1) {
        total = total.add(measure(&mut f).1);
        runs += 1;
    }
    total.div(runs)
}

fn ms(d: Duration) -> String {
    format!("{:8.3} ms", d.as_secs_f64() * 1e3)
}

fn row(label: &str, cost: Cost, base: Cost, goal: &str) {
    let cpu = cost.cpu.map_or("       n/a".to_string(), ms);
    println!(
        "{label:<22} {}  {cpu}  {:7.3}x parse  {goal}",
        ms(cost.wall),
        cost.ratio(base)
    );
}

fn main() {
    let text = generated_scene(BODIES);
    let scene = evaluate(&text).expect("the generated scene evaluates");
    println!(
        "scene: {} KB, {} bodies, {} forces, {} links",
        text.len() / 1024,
        scene.bodies.len(),
        scene.forces.len(),
        scene.links.len()
    );

    let parse = time(|| {
        black_box(parse_script(black_box(&text), 0).expect("parses"));
    });
    // Evaluation, and (separately) freeing the scene it made, which an editor does with the
    // previous scene whenever it likes.
    let (mut eval, mut free, mut runs) = (Cost::default(), Cost::default(), 0u32);
    (eval.cpu, free.cpu) = (Some(Duration::ZERO), Some(Duration::ZERO));
    while runs < 3 || eval.wall + free.wall < Duration::from_secs(2) {
        let (evaluated, cost) = measure(|| evaluate(black_box(&text)).expect("evaluates"));
        eval = eval.add(cost);
        free = free.add(measure(|| drop(black_box(evaluated))).1);
        runs += 1;
    }
    let (eval, free) = (eval.div(runs), free.div(runs));

    // A drag of the middle body: the edit, then the difference it makes.
    let target = Target::BodyInit {
        body: BODIES / 2,
        var: InitVar::Pos,
    };
    let value = EditValue::Vector(Vector3::new(9.5, -1.2, 0.0));
    let edit = patch(&text, &scene, target, value).expect("the body is editable");
    let edited = evaluate(&edit.apply(&text)).expect("the edited scene evaluates");
    let patching = time(|| {
        black_box(patch(black_box(&text), &scene, target, value).expect("patches"));
    });
    let diffing = time(|| {
        let d = diff(black_box(&scene), black_box(&edited));
        assert_eq!(d.changes.len(), 1);
        black_box(d);
    });

    println!("{:<22} {:>11}  {:>11}", "", "wall", "processor");
    row("parse (baseline)", parse, parse, "");
    row("evaluate", eval, parse, "(goal < 100 ms)");
    row("free the scene", free, parse, "");
    row("patch one literal", patching, parse, "");
    row("diff after the edit", diffing, parse, "");
    row(
        "patch + diff",
        patching.add(diffing),
        parse,
        "(goal < 10 ms)",
    );
}
