//! The first picture after a drag is released (issue 27), drawn as the graphical viewer draws
//! it: a row of pendulums, their motion computed, one pendulum's initial position dragged
//! (pictures of the initial state while the text changes), then released (the solver updated
//! for the edited scene, the new motion not computed yet, then complete). The viewer's stage
//! (`scene_frame::Stage`) keeps the ground and depth range through the edit, and the renderer
//! pairs the items of its kept picture with the new frame's, so the release picture is drawn
//! again only around the dragged pendulum, and it is the picture a whole frame gives.

mod render_support;
#[path = "rig/mod.rs"]
mod rig;

use asgard::render::camera::{Camera, Viewport};
use asgard::render::frame::Frame;
use asgard::render::image::{write_png, RgbaImage};
use asgard::render::offscreen::OffscreenTarget;
use asgard::render::scene_frame::{CameraChoice, SceneFrames, Stage};
use asgard::scene::handles::HandleScales;
use asgard::scene::state::{BodyStates, InitialStates};
use asgard::scene::{evaluate, Scene};
use asgard::sim::{Solver, Strategy};
use asgard::ui::graphical::{initial_options, initial_view};
use render_support::golden::{differences, MAX_DIFFERING};
use rig::Rig;

/// The graphical viewer's picture size in the drag-release benchmark.
const WIDTH: u32 = 712;
const HEIGHT: u32 = 560;
const PENDULUMS: usize = 120;

/// Keeps a picture under target/tmp/render/release/ for people to look at.
fn save(image: &RgbaImage, name: &str) {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("render/release");
    std::fs::create_dir_all(&dir).unwrap();
    write_png(&dir.join(format!("{name}.png")), image).unwrap();
}

/// What a viewer keeps between pictures: its view (fitted to the scene as first shown,
/// and kept through the drag), its handle scales (kept while dragging) and its stage.
struct Viewer {
    camera: Camera,
    scales: HandleScales,
    stage: Stage,
}

impl Viewer {
    /// The frame of `scene` at its start, the bodies posed by `states` computed up to
    /// `until`, with the stage as the viewer's picture takes it (without sampling while a
    /// stage is kept).
    fn frame(
        &mut self,
        scene: &Scene,
        frames: &SceneFrames,
        states: &dyn BodyStates,
        until: f64,
    ) -> Frame {
        let (start, finish) = (scene.simulator.start, scene.simulator.finish);
        let mut options = initial_options(self.scales);
        options.camera = CameraChoice::Given(self.camera);
        let until = until.clamp(start, finish);
        let span = (start, finish);
        options.stage = self
            .stage
            .without_sampling(frames, scene, span, until)
            .unwrap_or_else(|| self.stage.update(frames, scene, states, span, until));
        let viewport = Viewport::new(f64::from(WIDTH), f64::from(HEIGHT));
        frames.frame(scene, states, start, &options, &viewport)
    }
}

/// What the viewer does when the main loop is idle: the stage's samples that are due, and
/// whether that changed the stage (the viewer then draws again).
fn idle(stage: &mut Stage, scene: &Scene, frames: &SceneFrames, states: &dyn BodyStates) -> bool {
    let span = (scene.simulator.start, scene.simulator.finish);
    let shown = stage.shown();
    stage.update(frames, scene, states, span, span.1) != shown
}

/// `frame` drawn whole, by a renderer that kept no picture.
fn drawn_whole(frame: &Frame, frames: &SceneFrames) -> RgbaImage {
    let mut target = OffscreenTarget::new(WIDTH, HEIGHT).expect("off-screen EGL context");
    target.upload_missing(frames.meshes()).unwrap();
    target.render(frame).unwrap()
}

fn scene(text: &str) -> Scene {
    evaluate(text).expect("the rig evaluates")
}

#[test]
fn the_release_after_a_one_body_drag_is_drawn_again_only_around_that_body() {
    let mut rig = Rig::new(PENDULUMS, 1.0);
    let before = scene(&rig.text());
    let frames = SceneFrames::new(&before).unwrap();
    let viewport = Viewport::new(f64::from(WIDTH), f64::from(HEIGHT));
    let scales = HandleScales::fitted(&before, frames.shapes());
    let mut viewer = Viewer {
        camera: initial_view(&before, &frames, &initial_options(scales), &viewport),
        scales,
        stage: Stage::default(),
    };
    let mut kept = OffscreenTarget::new(WIDTH, HEIGHT).expect("off-screen EGL context");
    let mut drawn = |frame: &Frame, frames: &SceneFrames| {
        kept.upload_missing(frames.meshes()).unwrap();
        let picture = kept.render(frame).unwrap();
        (picture, kept.renderer().unwrap().last_region())
    };

    // The motion before the drag, complete, as the viewer shows it before the drag.
    let mut solver = Solver::new(before.clone(), Strategy::EventDriven).unwrap();
    solver.run_to_end().unwrap();
    let motion = solver.motion();
    let frame = viewer.frame(&before, &frames, &motion, motion.complete_until());
    let (first, _) = drawn(&frame, &frames);
    save(&first, "before");

    // The drag: the middle pendulum's initial position moved, the text evaluated, no motion.
    viewer.stage.restart();
    let dragged = PENDULUMS / 2;
    rig.pendulums[dragged].pos[0] += 0.15;
    let after = scene(&rig.text());
    let frames = SceneFrames::new(&after).unwrap();
    let start = after.simulator.start;
    let initial = InitialStates { scene: &after };
    let frame = viewer.frame(&after, &frames, &initial, start);
    let drag_arrows = frame.arrows.len();
    let (dragging, region) = drawn(&frame, &frames);
    save(&dragging, "dragging");
    assert!(
        region.is_some_and(|[x0, y0, x1, y1]| x0 < x1 && y0 < y1),
        "the drag's picture drawn again around the dragged body: {region:?}"
    );

    // The release: the solver moved to the edited scene, the edited pendulum's motion
    // computed again from the start (nothing of it yet), the others' kept.
    solver.update(after.clone()).unwrap();
    viewer.stage.restart();
    let motion = solver.motion();
    assert!(motion.complete_until() < after.simulator.finish);
    let frame = viewer.frame(&after, &frames, &motion, motion.complete_until());
    // The rider's velocity on its trajectory shows in the motion, not in the initial state:
    // an arrow comes back, and the arrows after it are paired with themselves.
    assert_eq!(frame.arrows.len(), drag_arrows + 1);
    let (released, region) = drawn(&frame, &frames);
    save(&released, "released");
    let [x0, y0, x1, y1] = region.expect("the release picture drawn in a region");
    let area = f64::from((x1 - x0) * (y1 - y0));
    assert!(
        area > 0.0 && area < 0.1 * f64::from(WIDTH * HEIGHT),
        "the region is the dragged pendulum's: {region:?}"
    );
    let whole = drawn_whole(&frame, &frames);
    save(&whole, "released-whole");
    let (differing, map) = differences(&released, &whole);
    save(&map, "released-differences");
    assert!(
        (differing as f64) <= MAX_DIFFERING * f64::from(WIDTH * HEIGHT),
        "{differing} pixels of the release picture differ from the whole frame's"
    );
    assert!(
        differences(&released, &first).0 > 0,
        "the dragged pendulum moved in the picture"
    );

    // The new motion complete, and its stage sampled when the viewer is idle: its own
    // stage, and still the whole frame's picture.
    solver.run_to_end().unwrap();
    let motion = solver.motion();
    idle(&mut viewer.stage, &after, &frames, &motion);
    let frame = viewer.frame(&after, &frames, &motion, motion.complete_until());
    let (complete, _) = drawn(&frame, &frames);
    let finish = after.simulator.finish;
    let mut fresh = Stage::default();
    let mut stage = None;
    for until in [start, 0.3, 0.31, 0.7, finish] {
        stage = fresh.update(&frames, &after, &motion, (start, finish), until);
    }
    assert_eq!(
        stage,
        frames.stage(&after, &motion, start, finish),
        "a complete motion's stage grown sample by sample is the one found at once"
    );
    let whole = drawn_whole(&frame, &frames);
    assert!(
        (differences(&complete, &whole).0 as f64) <= MAX_DIFFERING * f64::from(WIDTH * HEIGHT),
        "the picture of the complete motion differs from the whole frame's"
    );
}
