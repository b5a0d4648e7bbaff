//! Drag release to the first new frame (issue 27): in the editor, with a 1,000-body scene
//! open, how long from releasing a drag of one body's position handle until the editor has
//! the new motion and has drawn it, and how much of that is drawing.
//!
//! The editor's windows (`asgard::ui::open_editor`, `EditorKind::Full`) run in this process
//! on a private Xvfb display (Mesa's software GL), on the row of 1,000 pendulums of
//! `tests/rig` (the scene `benches/edits.rs` measures updates on). Each drag is what the
//! graphical viewer's handle gesture does with the session: `begin_drag`, a few `edit`s of the
//! middle pendulum's `init_pos` (each rewrites the literal in the text and evaluates it), and
//! on release `end_drag`, which starts the simulation of the edited scene on the session's
//! worker (an update of the solver kept from the previous run). The gesture is driven through
//! the session's calls rather than by pointer events so that the release instant is exact.
//!
//! Each release comes once the drag's last frame is drawn and the main loop has nothing left
//! to do (the editor idle, as when the animator lets go of a body they see in place). Measured from the release, on the main
//! thread (wall-clock, median over the releases):
//! *started* — the worker has updated the solver and hands out the new motion (the viewer
//! redraws on it); *finished* — the motion is computed to the scene's end; *first frame* — the
//! end of the first frame the viewer's window painted after the new motion started, and, of
//! that, *drawing* — the frame's paint phase (the GL drawing of the 1,000 bodies and the
//! compositing), so that the simulation's share shows. The viewer draws on *started*, not on
//! *finished* (its picture is the current time's state, which the incremental update has
//! computed first), so the goal (< 100 ms) is read on the later of *finished* and
//! *first frame*.
//!
//! Run: `cargo bench --bench drag_release` (needs Xvfb: scripts/deps).

use asgard::scene::{EditValue, InitVar, Target};
use asgard::session::{Event, SimStatus};
use asgard::ui;
#[path = "../tests/private_display/mod.rs"]
mod private_display;
#[path = "../tests/rig/mod.rs"]
mod rig;
use gtk::glib;
use gtk::prelude::*;
use gtk4 as gtk;
use nalgebra::Vector3;
use private_display::{gtk_on_private_display, run_main_loop_until};
use rig::Rig;
use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// Pendulums in the scene; the middle one is dragged.
const PENDULUMS: usize = 1000;
/// Releases measured (after one not measured, which warms the worker's solver up).
const RELEASES: usize = 9;
/// Pointer steps of each drag before its release.
const STEPS: usize = 3;

/// Turns the main loop until `done`.
fn run_until(done: impl FnMut() -> bool) {
    run_main_loop_until(Duration::from_secs(300), done);
}

/// What happened, with when: the session's simulation events and the viewer's paints.
#[derive(Default)]
struct Log {
    started: Vec<Instant>,
    finished: Vec<Instant>,
    /// Each paint phase's start and end.
    paints: Vec<(Instant, Instant)>,
    painting: Option<Instant>,
}

/// One release's times from the release, in milliseconds.
struct Release {
    started: f64,
    finished: f64,
    frame: f64,
    drawing: f64,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let (_x_server, app) = gtk_on_private_display("org.asgard.DragReleaseBench");

    let rig = Rig::new(PENDULUMS, 1.0);
    let dragged = PENDULUMS / 2;
    let start = rig.pendulums[dragged].pos;
    let session = ui::waker::session_for_text(rig.text());
    ui::open_editor(&app, &session, ui::EditorKind::Full);
    let viewer = app
        .windows()
        .into_iter()
        .find(|w| w.title().is_some_and(|t| t.contains("Graphical viewer")))
        .expect("a graphical viewer");
    run_until(|| viewer.is_mapped());
    run_until(|| session.status() == SimStatus::Finished);
    let body = session
        .scene()
        .and_then(|s| {
            s.bodies
                .iter()
                .position(|b| b.name == rig.pendulums[dragged].name)
        })
        .expect("the dragged pendulum");

    let log = Rc::new(RefCell::new(Log::default()));
    {
        let log = log.clone();
        session.subscribe(move |_, event| match event {
            Event::SimulationStarted => log.borrow_mut().started.push(Instant::now()),
            Event::SimulationFinished => log.borrow_mut().finished.push(Instant::now()),
            _ => {}
        });
    }
    let clock = viewer.frame_clock().expect("the viewer is mapped");
    {
        let log = log.clone();
        clock.connect_before_paint(move |_| log.borrow_mut().painting = Some(Instant::now()));
    }
    {
        let log = log.clone();
        clock.connect_after_paint(move |_| {
            let mut log = log.borrow_mut();
            if let Some(from) = log.painting.take() {
                log.paints.push((from, Instant::now()));
            }
        });
    }

    let mut releases = Vec::new();
    for k in 0..=RELEASES {
        // Drag the bob sideways and back, a little further each time, then let go.
        session.begin_drag();
        for step in 1..=STEPS {
            let dx = 0.05 * (step as f64) * if k % 2 == 0 { 1.0 } else { -1.0 };
            let value = EditValue::Vector(Vector3::new(start[0] + dx, start[1], start[2]));
            session
                .edit(
                    Target::BodyInit {
                        body,
                        var: InitVar::Pos,
                    },
                    value,
                    None,
                )
                .expect("the drag edits the text");
        }
        // The drag's last frame drawn, as the animator sees it before letting go: the
        // release is then measured from an idle editor.
        let edited = Instant::now();
        run_until(|| log.borrow().paints.iter().any(|&(from, _)| from >= edited));
        // And whatever else the edits queued (the other windows' work on the new text), for
        // up to a second.
        let context = glib::MainContext::default();
        let quiet = Instant::now() + Duration::from_secs(1);
        while context.pending() && Instant::now() < quiet {
            context.iteration(false);
        }
        let released = Instant::now();
        session.end_drag();
        let after = |times: &[Instant]| times.iter().copied().find(|&t| t >= released);
        run_until(|| {
            let log = log.borrow();
            let Some(started) = after(&log.started) else {
                return false;
            };
            after(&log.finished).is_some() && log.paints.iter().any(|&(from, _)| from >= started)
        });
        let log = log.borrow();
        let started = after(&log.started).unwrap();
        let (from, to) = *log
            .paints
            .iter()
            .find(|&&(from, _)| from >= started)
            .unwrap();
        let ms = |t: Instant| (t - released).as_secs_f64() * 1e3;
        if k > 0 {
            releases.push(Release {
                started: ms(started),
                finished: ms(after(&log.finished).unwrap()),
                frame: ms(to),
                drawing: (to - from).as_secs_f64() * 1e3,
            });
        }
    }

    println!(
        "drag release in the editor, {PENDULUMS} pendulums (tests/rig), {RELEASES} releases, \
         wall-clock milliseconds from the release (median, min-max):"
    );
    let row = |name: &str, of: fn(&Release) -> f64| {
        let values: Vec<f64> = releases.iter().map(of).collect();
        let (lo, hi) = values.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
        println!("  {name:<44} {:8.1}  ({lo:.1}-{hi:.1})", median(values));
    };
    row("new motion started (solver updated)", |r| r.started);
    row("new motion finished", |r| r.finished);
    row("first frame drawn after it started", |r| r.frame);
    row("  of which drawing (the frame's paint phase)", |r| {
        r.drawing
    });
    row("release to motion finished and frame drawn", |r| {
        r.finished.max(r.frame)
    });
    drop(app);
}
