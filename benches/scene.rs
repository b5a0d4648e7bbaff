//! What evaluating a large scene and turning a drag into a text edit cost.
//!
//! A generated scene of 10,000 bodies, each written out as its own commands (so every literal
//! is editable): a body, a force with a symbolic expression, and a link to the previous body.
//! Measured against the plain parse of the same text in the same run:
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

/// The mean time of `f` over enough runs to take about a second (at least three runs).
fn time(mut f: impl FnMut()) -> Duration {
    f();
    let start = Instant::now();
    let mut runs = 0u32;
    while runs < 3 || start.elapsed() < Duration::from_secs(1) {
        f();
        runs += 1;
    }
    start.elapsed() / runs
}

fn ms(d: Duration) -> String {
    format!("{:8.3} ms", d.as_secs_f64() * 1e3)
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
    let (mut eval, mut free, mut runs) = (Duration::ZERO, Duration::ZERO, 0u32);
    while runs < 3 || eval + free < Duration::from_secs(2) {
        let start = Instant::now();
        let evaluated = evaluate(black_box(&text)).expect("evaluates");
        eval += start.elapsed();
        let start = Instant::now();
        drop(black_box(evaluated));
        free += start.elapsed();
        runs += 1;
    }
    let (eval, free) = (eval / runs, free / runs);

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

    let ratio = |d: Duration| d.as_secs_f64() / parse.as_secs_f64();
    println!("parse (baseline)        {}", ms(parse));
    println!(
        "evaluate                {}  {:6.3}x parse  (goal < 100 ms)",
        ms(eval),
        ratio(eval)
    );
    println!(
        "free the scene          {}  {:6.3}x parse",
        ms(free),
        ratio(free)
    );
    println!(
        "patch one literal       {}  {:6.3}x parse",
        ms(patching),
        ratio(patching)
    );
    println!(
        "diff after the edit     {}  {:6.3}x parse",
        ms(diffing),
        ratio(diffing)
    );
    println!(
        "patch + diff            {}  {:6.3}x parse  (goal < 10 ms)",
        ms(patching + diffing),
        ratio(patching + diffing)
    );
}
