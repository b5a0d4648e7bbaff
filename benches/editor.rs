//! The graphical viewer while dragging in a 1,000-body scene: how often it redraws, and how
//! long it takes from a pointer motion event to the new literal in the language viewer.
//!
//! The editor's windows (`asgard::ui::open_editor`, `EditorKind::Full`) run in this process
//! on a private Xvfb display; xdotool drags a body's position handle with Shift held (each
//! motion rewrites the body's `init_pos` in the text), and, as the baseline measured in the
//! same run, drags the same way without Shift (the view turns; the text does not change).
//! Frames are counted on the viewer window's frame clock. The latency runs from the motion event (seen by a controller
//! in the capture phase, before the viewer's own gesture) to the language viewer's buffer
//! changing, and is compared with the time to evaluate the scene text once (part of every
//! edit, since the text is the document). Both drags start once the simulation the editor
//! ran on opening the scene has finished.
//!
//! Run: `cargo bench --bench editor` (needs Xvfb and xdotool: scripts/deps).

use asgard::render::camera::Viewport;
use asgard::render::scene_frame::SceneFrames;
use asgard::scene::evaluate;
use asgard::scene::handles::HandleScales;
use asgard::session::SimStatus;
use asgard::ui;
use asgard::ui::graphical::{initial_options, initial_view};
#[path = "../tests/private_display/mod.rs"]
mod private_display;
use gtk::prelude::*;
use gtk4 as gtk;
use nalgebra::Point3;
use private_display::{gtk_on_private_display, run_main_loop_until};
use std::cell::{Cell, RefCell};
use std::process::{Child, Command};
use std::rc::Rc;
use std::time::{Duration, Instant};

/// Bodies on a 10 × 10 × 10 lattice, each written out so each is editable.
const BODIES: usize = 1000;
/// Pointer steps of one drag, and the pause between them (xdotool's pacing of the input).
/// A mouse reports motion 125 to 1,000 times a second; steps 4 ms apart (and xdotool's own
/// time per step) come faster than the viewer redraws, so GTK merges the motions between
/// two frames and the redraws counted are the viewer's, not the input's. At 10 ms apart
/// the input itself came about 29 times a second and capped the count there.
const STEPS: usize = 300;
const STEP_PAUSE: &str = "0.004";

fn scene_text() -> String {
    let mut text = String::from("simulator finish 2\nshape_set ball desc {sphere 0.3}\n");
    for i in 0..BODIES {
        let (x, y, z) = (i % 10, (i / 10) % 10, i / 100);
        text.push_str(&format!(
            "body b{i} shape ball init_pos {{{x} {y} {z}}} init_dpos {{0.5 0 0}}\n"
        ));
    }
    text
}

fn xdotool(args: &[String]) -> Child {
    Command::new("xdotool")
        .args(args)
        .spawn()
        .expect("xdotool runs (scripts/deps installs it)")
}

/// Turns the main loop until `done`.
fn run_until(done: impl FnMut() -> bool) {
    run_main_loop_until(Duration::from_secs(120), done);
}

fn find<W: IsA<gtk::Widget>>(root: &gtk::Widget) -> Option<W> {
    if let Some(found) = root.downcast_ref::<W>() {
        return Some(found.clone());
    }
    let mut child = root.first_child();
    while let Some(c) = child {
        if let Some(found) = find::<W>(&c) {
            return Some(found);
        }
        child = c.next_sibling();
    }
    None
}

/// What one drag measured.
struct Drag {
    frames: u32,
    seconds: f64,
    latencies: Vec<Duration>,
}

/// Drags from `from` along a circle (Shift held if `shift`) and measures while it runs.
fn drag(
    window: &gtk::Window,
    area: &gtk::GLArea,
    buffer: &gtk::TextBuffer,
    from: (i32, i32),
    shift: bool,
) -> Drag {
    let frames = Rc::new(Cell::new(0u32));
    let clock = window.frame_clock().expect("the window is mapped");
    let painted = {
        let frames = frames.clone();
        clock.connect_after_paint(move |_| frames.set(frames.get() + 1))
    };
    let last_motion: Rc<Cell<Option<Instant>>> = Rc::new(Cell::new(None));
    let motion = gtk::EventControllerMotion::new();
    motion.set_propagation_phase(gtk::PropagationPhase::Capture);
    {
        let last_motion = last_motion.clone();
        motion.connect_motion(move |_, _, _| last_motion.set(Some(Instant::now())));
    }
    area.add_controller(motion.clone());
    let latencies = Rc::new(RefCell::new(Vec::new()));
    let changed = {
        let last_motion = last_motion.clone();
        let latencies = latencies.clone();
        buffer.connect_changed(move |_| {
            if let Some(at) = last_motion.take() {
                latencies.borrow_mut().push(at.elapsed());
            }
        })
    };

    let mut args: Vec<String> = vec!["mousemove".into(), from.0.to_string(), from.1.to_string()];
    if shift {
        args.extend(["keydown".into(), "shift".into()]);
    }
    args.extend(["mousedown".into(), "1".into()]);
    for k in 1..=STEPS {
        let angle = k as f64 / STEPS as f64 * std::f64::consts::TAU;
        let (x, y) = (
            from.0 + (60.0 * angle.sin()) as i32,
            from.1 + (40.0 * (1.0 - angle.cos())) as i32,
        );
        args.extend([
            "mousemove".into(),
            x.to_string(),
            y.to_string(),
            "sleep".into(),
            STEP_PAUSE.into(),
        ]);
    }
    args.extend(["mouseup".into(), "1".into()]);
    if shift {
        args.extend(["keyup".into(), "shift".into()]);
    }
    frames.set(0);
    let start = Instant::now();
    let mut input = xdotool(&args);
    run_until(|| matches!(input.try_wait(), Ok(Some(_))));
    // The last events still being handled.
    let settle = Instant::now();
    run_until(|| settle.elapsed() > Duration::from_millis(200));
    let seconds = (Instant::now() - start).as_secs_f64() - 0.2;
    clock.disconnect(painted);
    buffer.disconnect(changed);
    area.remove_controller(&motion);
    let latencies = latencies.take();
    Drag {
        frames: frames.get(),
        seconds,
        latencies,
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let (_x_server, app) = gtk_on_private_display("org.asgard.EditorBench");

    let text = scene_text();
    let scene = evaluate(&text).unwrap();
    let evaluations = 10;
    let t = Instant::now();
    for _ in 0..evaluations {
        evaluate(&text).unwrap();
    }
    let evaluate_time = t.elapsed() / evaluations;

    let session = ui::waker::session_for_text(text.clone());
    session.set_auto_simulate(false);
    ui::open_editor(&app, &session, ui::EditorKind::Full);
    let windows = app.windows();
    let titled = |part: &str| {
        windows
            .iter()
            .find(|w| w.title().is_some_and(|t| t.contains(part)))
            .cloned()
            .unwrap_or_else(|| panic!("no {part} window"))
    };
    let viewer = titled("Graphical viewer");
    let language = titled("Language viewer");
    let panel = titled("— Asgard");
    run_until(|| viewer.is_mapped() && language.is_mapped() && panel.is_mapped());
    // No window manager: every window starts at the top left. Move the others off the viewer.
    for (title, x, y) in [
        ("Language viewer 1$", "870", "0"),
        (" — Asgard$", "0", "700"),
    ] {
        let moved = Command::new("xdotool")
            .args([
                "search",
                "--sync",
                "--name",
                title,
                "windowmove",
                "--sync",
                "%1",
                x,
                y,
            ])
            .status()
            .expect("xdotool runs");
        assert!(moved.success(), "cannot move {title}");
    }
    let area: gtk::GLArea = find(viewer.upcast_ref()).expect("the viewer's GL area");
    let text_view: gtk::TextView = find(language.upcast_ref()).expect("the language viewer");
    let buffer = text_view.buffer();
    run_until(|| area.width() > 0);
    // The session simulated the scene when it was made: both drags are measured with that
    // run finished, the editor idle (no run starts during them: auto-simulation is off).
    run_until(|| !matches!(session.status(), SimStatus::Running(_)));
    let settle = Instant::now();
    run_until(|| settle.elapsed() > Duration::from_millis(500));

    // b555's position handle, where the viewer's first view shows it.
    let frames = SceneFrames::new(&scene).unwrap();
    let options = initial_options(HandleScales::fitted(&scene, frames.shapes()));
    let viewport = Viewport::new(f64::from(area.width()), f64::from(area.height()));
    let camera = initial_view(&scene, &frames, &options, &viewport);
    let target = scene.body("b555").unwrap().init_pos.value;
    let seen = camera.project(&Point3::from(target), &viewport).unwrap();
    let offset = area
        .compute_point(&viewer, &gtk::graphene::Point::new(0.0, 0.0))
        .unwrap();
    let from = (
        (f64::from(offset.x()) + seen.x).round() as i32,
        (f64::from(offset.y()) + seen.y).round() as i32,
    );

    let editing = drag(&viewer, &area, &buffer, from, true);
    let moved = !session
        .text()
        .contains("body b555 shape ball init_pos {5 5 5}");
    assert!(
        moved,
        "the drag did not move b555: is its handle at {from:?}?"
    );
    let viewing = drag(&viewer, &area, &buffer, from, false);

    let rate = |d: &Drag| f64::from(d.frames) / d.seconds;
    println!("graphical viewer, {BODIES} bodies, {STEPS}-step drags:");
    println!("  view only (baseline):   {:6.1} redraws/s", rate(&viewing));
    println!(
        "  dragging a handle:      {:6.1} redraws/s  ({:.2} of the baseline)",
        rate(&editing),
        rate(&editing) / rate(&viewing)
    );
    let mut latencies = editing.latencies;
    latencies.sort();
    if latencies.is_empty() {
        println!("  no literal changed in the language viewer");
    } else {
        let median = percentile(&latencies, 0.5);
        println!(
            "  motion event to literal in the language viewer: median {:.1} ms, 90th percentile {:.1} ms over {} edits",
            median.as_secs_f64() * 1e3,
            percentile(&latencies, 0.9).as_secs_f64() * 1e3,
            latencies.len()
        );
        println!(
            "  evaluating the scene text once (baseline): {:.1} ms; latency / evaluation = {:.2}",
            evaluate_time.as_secs_f64() * 1e3,
            median.as_secs_f64() / evaluate_time.as_secs_f64()
        );
    }
    drop(app);
}
