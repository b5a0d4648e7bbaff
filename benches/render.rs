//! Off-screen drawing speed at 640×480, stage by stage, for 10, 1,000 and 10,000 bodies (half
//! boxes, half balls, on a cubic lattice) turning as in playback, so every frame has new poses.
//!
//! Each frame is timed in the stages it goes through:
//!
//! - **scene**: describing the frame from the scene and the bodies' states at its time
//!   (`SceneFrames::frame`), as every viewer, rendition and export does;
//! - **instances**: the renderer's work on the CPU (`Renderer::prepare`);
//! - **upload**: the instance and line buffers handed to GL (`Renderer::upload`);
//! - **draw**: the GL calls until the picture is finished (`Renderer::submit`, then `glFinish`);
//! - **read-back**: the pixels back into memory, as renditions and exports need them.
//!
//! Reported per stage in milliseconds of wall time per frame, with the process's processor
//! time per frame (all threads, llvmpipe's included) and frames per second, each count drawn
//! in the same run with no looks (`Looks::NONE`: flat bodies on the background), with each of
//! anti-aliasing, ground (with grid) and shadows alone, and with every look (`Looks::ALL`),
//! each against the first.
//!
//! Run: `xvfb-run -a cargo bench --bench render` (no display is needed: EGL surfaceless);
//! Last, the picture of a new graphical viewer (700 × 560) of the editor benchmark's scene
//! (1,000 balls, each with a position and a velocity handle and its velocity arrow, the gizmo
//! on with the other looks), the view turning around the still bodies: what the editor draws
//! while the view is dragged.
//!
//! Then the same view still while one ball near the middle moves (`drag`): what the editor
//! draws while a handle is dragged, which draws again only where the ball and its shadow were
//! and are (`renderer::changes`); `÷ off` is then against the whole view turning with the
//! same looks, measured just before.
//!
//! `cargo bench --bench render -- 1000 on` draws only that case (for a profiler; the count
//! may be `editor` or `drag`, the looks off, aa, ground, shadow or on). With `--passes`, each
//! case is measured a second time with every pass of the draw stage timed on its own
//! (`Renderer::time_passes`: GL finishes each pass before the next, so the frames are
//! slower), and the processor time of each pass per frame is printed under the case.

use asgard::render::camera::{Camera, Viewport};
use asgard::render::frame::{Frame, Looks};
use asgard::render::offscreen::OffscreenTarget;
use asgard::render::renderer::passes::PassTimes;
use asgard::render::scene_frame::{CameraChoice, FrameOptions, SceneFrames};
use asgard::scene::handles::HandleScales;
use asgard::scene::state::{BodyState, BodyStates, InitialStates};
use asgard::scene::{evaluate, Scene};
use asgard::ui::graphical::{initial_options, initial_view};
use glow::HasContext;
use nalgebra::{UnitQuaternion, Vector3};
use std::time::{Duration, Instant};

const WIDTH: u32 = 640;
const HEIGHT: u32 = 480;
/// Each case runs for at least this long and at least `MIN_FRAMES` frames.
const MEASURE: Duration = Duration::from_secs(2);
const MIN_FRAMES: u32 = 5;
/// The picture of a graphical viewer in its window's default size, about.
const EDITOR_VIEW: (u32, u32) = (700, 560);
/// Simulated seconds between frames.
const FRAME_TIME: f64 = 1.0 / 60.0;

/// `count` bodies on a cubic lattice one metre apart, alternately 0.8 m boxes and balls of
/// radius 0.4, each turned a little differently.
fn scene_text(count: usize) -> String {
    let side = (count as f64).cbrt().ceil().max(1.0) as usize;
    let mut text = String::from(
        "simulator finish 10\nshape_set cube desc {box {0.8 0.8 0.8}}\nshape_set ball desc {sphere 0.4}\n",
    );
    for i in 0..count {
        let (x, y, z) = (i % side, (i / side) % side, i / (side * side));
        let t = i as f64;
        let shape = if i % 2 == 0 { "cube" } else { "ball" };
        text.push_str(&format!(
            "body b{i} shape {shape} init_pos {{{x} {y} {z}}} init_rot {{{:.3} {:.3} {:.3}}}\n",
            (0.3 * t).sin(),
            (0.7 * t).sin(),
            (0.1 * t).sin()
        ));
    }
    text
}

/// Every body at its initial position, turning about its own axis at its own rate: new poses
/// at every time, as playback of a simulation has.
struct Turning<'a> {
    scene: &'a Scene,
}

impl BodyStates for Turning<'_> {
    fn body_state(&self, body: usize, time: f64) -> Option<BodyState> {
        let mut state = BodyState::initial(self.scene.bodies.get(body)?);
        let b = body as f64;
        let axis = Vector3::new(b.sin(), b.cos(), 0.5).normalize();
        state.rotation =
            UnitQuaternion::from_scaled_axis(axis * time * (1.0 + b % 3.0)) * state.rotation;
        Some(state)
    }
}

/// Milliseconds of wall time per stage, and the process's processor time.
#[derive(Default, Clone, Copy)]
struct Stages {
    scene: f64,
    instances: f64,
    upload: f64,
    draw: f64,
    read_back: f64,
    cpu: f64,
}

/// Processor time of this process so far (every thread), in seconds.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // utime and stime, in clock ticks of 1/100 s (Linux's USER_HZ).
    (ticks(11) + ticks(12)) / 100.0
}

/// One case: a scene drawn frame after frame, its bodies turning (playback) or the view
/// turning around them (the editor's viewer while the view is dragged).
struct Case {
    scene: Scene,
    frames: SceneFrames,
    options: FrameOptions,
    size: (u32, u32),
    /// How the picture changes from frame to frame.
    motion: Motion,
}

/// What changes from frame to frame.
#[derive(Clone, Copy)]
enum Motion {
    /// Every body turns about its centre ([`Turning`]).
    Turning,
    /// The view turns around still bodies, from this camera.
    Orbit(Camera),
    /// The bodies stand still but this one, which moves in a small circle ([`Dragged`]).
    Drag(usize),
}

/// The bodies at their initial states, but `body`, which goes round a small circle: what a
/// handle drag changes.
struct Dragged<'a> {
    scene: &'a Scene,
    body: usize,
}

impl BodyStates for Dragged<'_> {
    fn body_state(&self, body: usize, time: f64) -> Option<BodyState> {
        let mut state = BodyState::initial(self.scene.bodies.get(body)?);
        if body == self.body {
            let angle = 4.0 * time;
            state.position += Vector3::new(0.3 * angle.sin(), 0.2 * (1.0 - angle.cos()), 0.0);
        }
        Some(state)
    }
}

impl Case {
    /// `count` bodies of [`scene_text`] turning, seen as a movie is.
    fn new(count: usize, looks: Looks) -> Case {
        let scene = evaluate(&scene_text(count)).expect("the bench scene evaluates");
        let frames = SceneFrames::new(&scene).expect("the bench scene has meshes");
        let states = Turning { scene: &scene };
        let options = FrameOptions {
            camera: frames.movie_camera(&scene, &states, &[0.0]),
            looks,
            ..FrameOptions::default()
        };
        Case {
            scene,
            frames,
            options,
            size: (WIDTH, HEIGHT),
            motion: Motion::Turning,
        }
    }

    /// The editor benchmark's scene (1,000 balls, each with a position and a velocity handle
    /// and its velocity arrow) in a new graphical viewer's picture, the view turning, or
    /// (`drag`) the view still and one ball in the middle of the lattice moving.
    fn editor(looks: Looks, drag: bool) -> Case {
        let mut text = String::from("simulator finish 2\nshape_set ball desc {sphere 0.3}\n");
        for i in 0..1000 {
            let (x, y, z) = (i % 10, (i / 10) % 10, i / 100);
            text.push_str(&format!(
                "body b{i} shape ball init_pos {{{x} {y} {z}}} init_dpos {{0.5 0 0}}\n"
            ));
        }
        let scene = evaluate(&text).expect("the editor scene evaluates");
        let frames = SceneFrames::new(&scene).expect("the editor scene has meshes");
        let mut options = initial_options(HandleScales::fitted(&scene, frames.shapes()));
        options.looks = Looks {
            gizmo: looks.antialias,
            ..looks
        };
        let size = EDITOR_VIEW;
        let viewport = Viewport::new(f64::from(size.0), f64::from(size.1));
        let camera = initial_view(&scene, &frames, &options, &viewport);
        if drag {
            options.camera = CameraChoice::Given(camera);
        }
        Case {
            scene,
            frames,
            options,
            size,
            motion: if drag {
                // Ball (5, 5, 5), in the middle of the lattice.
                Motion::Drag(555)
            } else {
                Motion::Orbit(camera)
            },
        }
    }

    fn frame(&self, time: f64) -> Frame {
        let viewport = Viewport::new(f64::from(self.size.0), f64::from(self.size.1));
        match self.motion {
            Motion::Orbit(camera) => {
                let mut options = self.options.clone();
                let mut turned = camera;
                turned.rotation = camera.rotation
                    * UnitQuaternion::from_axis_angle(&Vector3::y_axis(), 0.5 * time);
                options.camera = CameraChoice::Given(turned);
                let states = InitialStates { scene: &self.scene };
                self.frames
                    .frame(&self.scene, &states, time, &options, &viewport)
            }
            Motion::Drag(body) => {
                let states = Dragged {
                    scene: &self.scene,
                    body,
                };
                self.frames
                    .frame(&self.scene, &states, time, &self.options, &viewport)
            }
            Motion::Turning => {
                let states = Turning { scene: &self.scene };
                self.frames
                    .frame(&self.scene, &states, time, &self.options, &viewport)
            }
        }
    }

    /// Draws frames until `MEASURE` has passed; the time per frame in each stage.
    fn measure(&self, target: &mut OffscreenTarget) -> (Stages, f64) {
        self.measure_frames(target).0
    }

    /// As [`Case::measure`], with every pass of the draw stage timed on its own: what the
    /// passes took and the number of frames.
    fn measure_passes(&self, target: &mut OffscreenTarget) -> (PassTimes, u32) {
        target.renderer().expect("renderer").time_passes(true);
        let (_, frames) = self.measure_frames(target);
        let renderer = target.renderer().expect("renderer");
        let times = renderer.pass_times();
        renderer.time_passes(false);
        (times, frames)
    }

    /// [`Case::measure`]'s work: the stages per frame, frames per second, and the number of
    /// frames measured. Passes timed are counted from the first measured frame.
    fn measure_frames(&self, target: &mut OffscreenTarget) -> ((Stages, f64), u32) {
        let (width, height) = self.size;
        target.resize(width, height).expect("resize");
        target.upload_missing(self.frames.meshes()).expect("upload");
        for k in 0..3 {
            target
                .render(&self.frame(f64::from(k) * FRAME_TIME))
                .expect("render");
        }
        target.renderer().expect("renderer").pass_times();
        let mut total = Stages::default();
        let mut frames = 0u32;
        let cpu = cpu_seconds();
        let start = Instant::now();
        while frames < MIN_FRAMES || start.elapsed() < MEASURE {
            let time = f64::from(frames) * FRAME_TIME;
            let t0 = Instant::now();
            let frame = self.frame(time);
            let t1 = Instant::now();
            let renderer = target.bind().expect("bind");
            renderer.prepare(&frame, width, height).expect("prepare");
            let t2 = Instant::now();
            renderer.upload();
            let t3 = Instant::now();
            renderer.submit().expect("submit");
            // SAFETY: the target's context is current (bind made it so).
            unsafe { renderer.gl().finish() };
            let t4 = Instant::now();
            std::hint::black_box(target.read_back().expect("read back"));
            let t5 = Instant::now();
            let ms = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1e3;
            total.scene += ms(t0, t1);
            total.instances += ms(t1, t2);
            total.upload += ms(t2, t3);
            total.draw += ms(t3, t4);
            total.read_back += ms(t4, t5);
            frames += 1;
        }
        let seconds = start.elapsed().as_secs_f64();
        let n = f64::from(frames);
        total.cpu = (cpu_seconds() - cpu) * 1e3;
        let per_frame = Stages {
            scene: total.scene / n,
            instances: total.instances / n,
            upload: total.upload / n,
            draw: total.draw / n,
            read_back: total.read_back / n,
            cpu: total.cpu / n,
        };
        ((per_frame, n / seconds), frames)
    }
}

/// Stand for the editor's cases in the list of body counts: the view turning, a ball dragged.
const EDITOR: usize = usize::MAX;
const DRAG: usize = usize::MAX - 1;

/// The looks measured: none, each alone, all.
const VARIANTS: [(&str, Looks); 5] = [
    ("off", Looks::NONE),
    (
        "aa",
        Looks {
            antialias: true,
            ..Looks::NONE
        },
    ),
    (
        "ground",
        Looks {
            ground: true,
            grid: true,
            ..Looks::NONE
        },
    ),
    (
        "shadow",
        Looks {
            shadows: true,
            ..Looks::NONE
        },
    ),
    ("on", Looks::ALL),
];

fn main() {
    let mut target = OffscreenTarget::new(WIDTH, HEIGHT).expect("off-screen EGL context");
    println!(
        "render {WIDTH}x{HEIGHT} off-screen, bodies turning (new poses every frame); \
         ms per frame by stage, processor time per frame (all threads)"
    );
    println!(
        "{:>8} {:>6} {:>9} {:>8} {:>9} {:>8} {:>8} {:>9} {:>8} {:>8}",
        "bodies",
        "looks",
        "frames/s",
        "scene",
        "instances",
        "upload",
        "draw",
        "read-back",
        "cpu",
        "÷ off"
    );
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let passes = std::env::args().any(|a| a == "--passes");
    let label = |count: usize| match count {
        EDITOR => "editor".to_string(),
        DRAG => "drag".to_string(),
        _ => count.to_string(),
    };
    let chosen = |count: usize, name: &str| match only.as_slice() {
        [c, n] => c == &label(count) && n == name,
        _ => count != DRAG || name == "on",
    };
    // The editor's view turning with every look, against which a drag is measured.
    let mut turning = 0.0;
    for count in [0, 10, 1_000, 10_000, EDITOR, DRAG] {
        let mut off = if count == DRAG { turning } else { 0.0 };
        for (name, looks) in VARIANTS {
            if !chosen(count, name) {
                continue;
            }
            let case = match count {
                EDITOR => Case::editor(looks, false),
                DRAG => Case::editor(looks, true),
                _ => Case::new(count, looks),
            };
            let (s, fps) = case.measure(&mut target);
            if looks == Looks::NONE {
                off = fps;
            }
            if count == EDITOR && looks == Looks::ALL {
                turning = fps;
            }
            let ratio = if off > 0.0 {
                format!("{:.3}", fps / off)
            } else {
                String::new()
            };
            let count = label(count);
            println!(
                "{count:>8} {name:>6} {fps:>9.1} {:>8.2} {:>9.2} {:>8.2} {:>8.2} {:>9.2} {:>8.2} {ratio:>8}",
                s.scene, s.instances, s.upload, s.draw, s.read_back, s.cpu,
            );
            if passes {
                let (times, frames) = case.measure_passes(&mut target);
                let per_frame = |d: std::time::Duration| d.as_secs_f64() * 1e3 / f64::from(frames);
                let all: f64 = times.passes.iter().map(|p| per_frame(p.3)).sum();
                let each: Vec<String> = times
                    .passes
                    .iter()
                    .map(|(name, _, _, processor)| format!("{name} {:.2}", per_frame(*processor)))
                    .collect();
                println!(
                    "{:>17} passes, processor ms/frame: {} (all {all:.2})",
                    "",
                    each.join(", ")
                );
            }
        }
    }
}
