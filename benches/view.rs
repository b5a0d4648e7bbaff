//! Drawing scenes: (1) the pendulum example written as a 5 s, 30 frames/s movie — evaluated,
//! simulated, drawn off-screen and encoded as a PNG folder and as a GIF — against drawing the
//! same frames without writing them; (2) building and drawing a frame of a 1,000-body scene
//! from its states every frame, against drawing one prebuilt frame again. Both ratios are
//! measured in the same run.
//!
//! Run: `cargo bench --bench view`

use asgard::render::camera::Viewport;
use asgard::render::frame::Frame;
use asgard::render::movie::{MovieFormat, MovieWriter};
use asgard::render::offscreen::OffscreenTarget;
use asgard::render::scene_frame::{frame_times, FrameOptions, SceneFrames};
use asgard::scene::state::{BodyState, BodyStates};
use asgard::scene::{evaluate, Scene};
use asgard::sim::physics::Model;
use nalgebra::{UnitQuaternion, Vector3};
use std::path::Path;
use std::time::{Duration, Instant};

const WIDTH: u32 = 640;
const HEIGHT: u32 = 480;
const FPS: f64 = 30.0;
/// The frame-rate cases run at least this long and at least `MIN_FRAMES` frames.
const MEASURE: Duration = Duration::from_secs(2);
const MIN_FRAMES: u32 = 5;

fn viewport() -> Viewport {
    Viewport::new(f64::from(WIDTH), f64::from(HEIGHT))
}

/// Seconds to evaluate, simulate and draw the pendulum movie; with `format`, the frames are
/// also written there. Also returns the seconds spent simulating.
fn pendulum_movie(
    target: &mut OffscreenTarget,
    format: Option<MovieFormat>,
    out: &Path,
) -> (f64, f64) {
    let start = Instant::now();
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/pendulum.asg"),
    )
    .expect("the pendulum example");
    let scene = evaluate(&text).expect("the pendulum evaluates");
    let frames = SceneFrames::new(&scene).expect("the pendulum's shapes");
    let simulated = Instant::now();
    let model = Model::compile(&scene).expect("the pendulum compiles");
    let mut simulation = model.simulation(model.options()).expect("a simulation");
    simulation.run_to_end().expect("the pendulum simulates");
    let motion = model.motion(simulation.motion());
    let simulating = simulated.elapsed().as_secs_f64();
    target.upload_missing(frames.meshes()).expect("upload");
    let times = frame_times(scene.simulator.start, scene.simulator.finish, FPS);
    let options = FrameOptions {
        camera: frames.movie_camera(&scene, &motion, &times),
        ..FrameOptions::default()
    };
    let mut writer = format.map(|f| MovieWriter::create(out, f, FPS).expect("movie writer"));
    for &time in &times {
        let frame = frames.frame(&scene, &motion, time, &options, &viewport());
        let image = target.render(&frame).expect("render");
        if let Some(writer) = writer.as_mut() {
            writer.push(&image).expect("write a frame");
        }
    }
    if let Some(writer) = writer {
        assert_eq!(writer.finish().expect("finish the movie"), times.len());
    }
    (start.elapsed().as_secs_f64(), simulating)
}

/// A scene of `count` bodies (boxes and balls, two shapes) on a cubic lattice.
fn crowd(count: usize) -> Scene {
    let side = (count as f64).cbrt().ceil() as usize;
    let mut text =
        String::from("shape_set box desc {box {0.8 0.8 0.8}}\nshape_set ball desc {sphere 0.4}\n");
    for i in 0..count {
        let (x, y, z) = (i % side, (i / side) % side, i / (side * side));
        let shape = if i % 2 == 0 { "box" } else { "ball" };
        text.push_str(&format!(
            "body b{i} shape {shape} init_pos {{{x} {y} {z}}} init_dpos {{0 1 0}}\n"
        ));
    }
    evaluate(&text).expect("the generated scene evaluates")
}

/// Every body spinning about its own vertical axis and bobbing, so each frame differs.
struct Spinning<'a>(&'a Scene);

impl BodyStates for Spinning<'_> {
    fn body_state(&self, body: usize, time: f64) -> Option<BodyState> {
        let mut state = BodyState::initial(self.0.bodies.get(body)?);
        let phase = time + body as f64 * 0.01;
        state.position.y += 0.2 * phase.sin();
        state.rotation = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), phase);
        Some(state)
    }
}

/// Frames per second of `draw`, called with the frame number.
fn rate(mut draw: impl FnMut(u32)) -> f64 {
    for k in 0..3 {
        draw(k);
    }
    let start = Instant::now();
    let mut frames = 0;
    while frames < MIN_FRAMES || start.elapsed() < MEASURE {
        draw(frames);
        frames += 1;
    }
    f64::from(frames) / start.elapsed().as_secs_f64()
}

fn main() {
    let mut target = OffscreenTarget::new(WIDTH, HEIGHT).expect("off-screen EGL context");
    let dir = std::env::temp_dir().join(format!("asgard-bench-view-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");

    println!(
        "pendulum example, 5 s at {FPS} frames/s ({WIDTH}x{HEIGHT}): evaluate + simulate + draw"
    );
    let (baseline, simulating) = pendulum_movie(&mut target, None, &dir.join("none"));
    println!("  draw only (baseline):  {baseline:>7.3} s  (simulation {simulating:.3} s)");
    for (name, format, path) in [
        ("PNG folder", MovieFormat::PngFolder, dir.join("frames")),
        ("GIF", MovieFormat::Gif, dir.join("pendulum.gif")),
    ] {
        let (seconds, _) = pendulum_movie(&mut target, Some(format), &path);
        println!(
            "  {name:<11} written:  {seconds:>7.3} s  {:>6.2} × draw only",
            seconds / baseline
        );
    }
    let _ = std::fs::remove_dir_all(&dir);

    let count = 1_000;
    let scene = crowd(count);
    let frames = SceneFrames::new(&scene).expect("shapes");
    target.upload_missing(frames.meshes()).expect("upload");
    let states = Spinning(&scene);
    let options = FrameOptions {
        camera: frames.movie_camera(&scene, &states, &[0.0, 1.0, 2.0, 3.0]),
        ..FrameOptions::default()
    };
    let build = |k: u32| -> Frame {
        frames.frame(&scene, &states, f64::from(k) / FPS, &options, &viewport())
    };
    let prebuilt = build(0);
    // The machine is shared: each rate is the best of three rounds, taken in turn.
    let (mut draw_only, mut build_only, mut both) = (0.0f64, 0.0f64, 0.0f64);
    for _ in 0..3 {
        draw_only = draw_only.max(rate(|_| {
            std::hint::black_box(target.render(&prebuilt).expect("render"));
        }));
        build_only = build_only.max(rate(|k| {
            std::hint::black_box(build(k));
        }));
        both = both.max(rate(|k| {
            std::hint::black_box(target.render(&build(k)).expect("render"));
        }));
    }
    println!("{count} bodies ({WIDTH}x{HEIGHT}, boxes and 32-segment balls)");
    println!("  draw a prebuilt frame (baseline): {draw_only:>8.1} frames/s");
    println!(
        "  build the frame only:             {build_only:>8.1} frames/s  {:>6.3} ms/frame",
        1000.0 / build_only
    );
    println!(
        "  build + draw:                     {both:>8.1} frames/s  {:>6.3} × baseline",
        both / draw_only
    );
}
