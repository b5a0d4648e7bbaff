//! Pictures of the example scenes, simulated and drawn off-screen on software GL, against the
//! golden pictures checked in under tests/golden/.
//!
//! A picture passes when at most `MAX_DIFFERING` of its pixels differ from the golden one by
//! more than `CHANNEL_TOLERANCE` in any channel (render_support/golden.rs), which absorbs
//! rasteriser rounding across Mesa versions but not a moved body, a lost link or a wrong
//! colour. On a failure the picture
//! and a difference picture are written under target/tmp/render/scenes/.
//!
//! To regenerate the golden pictures deliberately (after a change that is meant to alter
//! them), run
//!
//! ```text
//! ASGARD_REGENERATE_GOLDEN=1 cargo test --test render_scenes golden
//! ```
//!
//! and look at every picture in tests/golden/ before committing it.

mod render_support;

use asgard::render::camera::Viewport;
use asgard::render::image::write_png;
use asgard::render::offscreen::OffscreenTarget;
use asgard::render::scene_frame::{CameraChoice, FrameOptions, SceneFrames};
use asgard::scene::handles::{HandleKind, HandleScales};
use asgard::scene::{evaluate, Scene};
use asgard::sim::physics::SceneMotion;
use asgard::sim::{Solver, Strategy};
use render_support::golden::{differences, golden, read_png, MAX_DIFFERING, REGENERATE};
use render_support::output_dir;
use std::path::{Path, PathBuf};

const WIDTH: u32 = 320;
const HEIGHT: u32 = 240;

/// One golden picture: an example at a time, with what the picture shows.
struct Case {
    example: &'static str,
    time: f64,
    options: fn(&Scene, &SceneFrames) -> FrameOptions,
}

fn plain(_: &Scene, _: &SceneFrames) -> FrameOptions {
    FrameOptions::default()
}

fn with_vectors(scene: &Scene, frames: &SceneFrames) -> FrameOptions {
    FrameOptions {
        vectors: true,
        scales: HandleScales::fitted(scene, frames.shapes()),
        ..FrameOptions::default()
    }
}

fn editing(scene: &Scene, frames: &SceneFrames) -> FrameOptions {
    FrameOptions {
        handles: HandleKind::ALL.to_vec(),
        highlighted_handle: Some(0),
        selected_bodies: vec![0],
        trajectories: true,
        ..with_vectors(scene, frames)
    }
}

fn wireframe(_: &Scene, _: &SceneFrames) -> FrameOptions {
    FrameOptions {
        wireframe: true,
        ..FrameOptions::default()
    }
}

/// Times before any contact, so the pictures do not depend on collision handling.
const CASES: &[Case] = &[
    Case {
        example: "pendulum",
        time: 1.0,
        options: plain,
    },
    Case {
        example: "orbit",
        time: 2.0,
        options: with_vectors,
    },
    Case {
        example: "double_pendulum",
        time: 1.5,
        options: plain,
    },
    Case {
        example: "lights_camera",
        time: 1.0,
        options: plain,
    },
    // Handles edit the initial state, so the editing picture is at the start.
    Case {
        example: "trajectory_release",
        time: 0.0,
        options: editing,
    },
    Case {
        example: "wall",
        time: 0.0,
        options: wireframe,
    },
];

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(format!("{name}.asg"))
}

/// The example simulated up to `until` (or its end), collisions answered.
fn simulated(name: &str, until: f64) -> (Scene, SceneFrames, SceneMotion) {
    let text = std::fs::read_to_string(example(name)).unwrap();
    let scene = evaluate(&text).unwrap();
    let frames = SceneFrames::new(&scene).unwrap();
    let mut setting = scene.clone();
    let simulator = &mut setting.simulator;
    simulator.finish = simulator
        .finish
        .min(until.max(simulator.start + simulator.step));
    let mut solver = Solver::new(setting, Strategy::EventDriven).unwrap();
    solver.run_to_end().unwrap();
    (scene, frames, solver.motion())
}

#[test]
fn golden_pictures_of_the_examples() {
    let regenerate = std::env::var_os(REGENERATE).is_some();
    let dir = output_dir("scenes");
    let mut target = OffscreenTarget::new(WIDTH, HEIGHT).expect("off-screen EGL context");
    let viewport = Viewport::new(f64::from(WIDTH), f64::from(HEIGHT));
    let mut failures = Vec::new();
    for case in CASES {
        let (scene, frames, motion) = simulated(case.example, case.time);
        target.upload_missing(frames.meshes()).unwrap();
        // The ground under where the bodies went up to the picture's time, as `asgard
        // render` puts it.
        let stage = frames.stage(&scene, &motion, scene.simulator.start, case.time);
        let options = FrameOptions {
            camera: CameraChoice::Scene,
            stage,
            ..(case.options)(&scene, &frames)
        };
        let frame = frames.frame(&scene, &motion, case.time, &options, &viewport);
        let image = target.render(&frame).unwrap();
        let name = format!("{}-t{}", case.example, case.time);
        if regenerate {
            write_png(&golden(&name), &image).unwrap();
            continue;
        }
        let expected = read_png(&golden(&name));
        assert_eq!(
            (expected.width, expected.height),
            (WIDTH, HEIGHT),
            "{name}: golden picture of the wrong size"
        );
        let (count, diff) = differences(&image, &expected);
        let fraction = count as f64 / f64::from(WIDTH * HEIGHT);
        if fraction > MAX_DIFFERING {
            write_png(&dir.join(format!("{name}.png")), &image).unwrap();
            write_png(&dir.join(format!("{name}-diff.png")), &diff).unwrap();
            failures.push(format!(
                "{name}: {count} pixels ({:.2} %) differ from the golden picture; see {}",
                100.0 * fraction,
                dir.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_comparison_catches_a_moved_body() {
    let (scene, frames, motion) = simulated("pendulum", f64::INFINITY);
    let mut target = OffscreenTarget::new(WIDTH, HEIGHT).unwrap();
    target.upload_missing(frames.meshes()).unwrap();
    let viewport = Viewport::new(f64::from(WIDTH), f64::from(HEIGHT));
    let options = FrameOptions {
        camera: frames.movie_camera(&scene, &motion, &[1.0, 1.05]),
        ..FrameOptions::default()
    };
    let mut at = |t| {
        let frame = frames.frame(&scene, &motion, t, &options, &viewport);
        target.render(&frame).unwrap()
    };
    let (still, again, moved) = (at(1.0), at(1.0), at(1.05));
    assert_eq!(
        differences(&again, &still).0,
        0,
        "one frame drawn twice differs"
    );
    let (count, _) = differences(&moved, &still);
    assert!(
        count as f64 / f64::from(WIDTH * HEIGHT) > MAX_DIFFERING,
        "the pendulum 50 ms later passes as the same picture ({count} pixels differ)"
    );
}
