//! The graphical viewer's Live toggle end to end: `asgard edit` on a private Xvfb display,
//! driven with xdotool (see editor_support). Live on (Ctrl+L), a Shift drag pulls a ball on a
//! spring drawn in the picture, Keep as trajectory (Ctrl+K) appends the recorded path to the
//! text read over D-Bus, and `asgard check` accepts the result; a ball dropped in Live lands
//! on the floor and rests there.
//!
//! The pictures of the pull are written under target/tmp/editor/live-pull/, those of the
//! bounce under target/tmp/editor/live-bounce/.

mod editor_support;
mod xdotool;

use asgard::render::image::{write_png, RgbaImage};
use asgard::render::scene_frame::palette::PULL_SPRING;
use asgard::scene::evaluate;
use editor_support::*;
use nalgebra::{Point3, Vector3};
use std::process::Command;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// Held by each test while its editor runs: two editors drawing with software GL at once on
/// this two-core machine slow the pull test's first pictures enough to race its reading of
/// the handle's colour.
static ONE_EDITOR: Mutex<()> = Mutex::new(());

fn one_editor() -> MutexGuard<'static, ()> {
    ONE_EDITOR.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A ball held at the origin by a stiff link, so that a pull stretches the pull spring far
/// (the link is three times stiffer than the pull) and its line stays long in the picture.
const TETHERED_BALL: &str = "simulator finish 2 step 0.05
shape_set ball desc {sphere 0.5}
body b shape ball init_pos {0 0 0} mass 1
link body1 b point {0 0 0} tightness 300
";

/// How many pixels of `picture` have the pull spring's colour.
fn spring_pixels(picture: &RgbaImage) -> usize {
    let spring = PULL_SPRING.map(|c| (c * 255.0).round() as u8);
    picture
        .pixels
        .chunks_exact(4)
        .filter(|p| (0..3).all(|i| p[i].abs_diff(spring[i]) <= 40))
        .count()
}

#[test]
fn live_pull_is_drawn_and_kept_as_a_trajectory() {
    let _one = one_editor();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ball.asg");
    std::fs::write(&file, TETHERED_BALL).unwrap();
    let editor = Editor::start(&file);
    let scene = evaluate(TETHERED_BALL).unwrap();
    let area = drawn_area(&editor);
    let (camera, viewport) = first_view(&scene, area);
    let seen = camera.project(&Point3::origin(), &viewport).unwrap();
    let ball = (
        area.x + seen.x.round() as i32,
        area.y + seen.y.round() as i32,
    );
    let centre = Rect {
        x: ball.0,
        y: ball.1,
        width: 1,
        height: 1,
    };
    // The first pictures may still change while the editor settles (the motion arriving):
    // read the handle's colour once two pictures in a row are the same.
    let mut last = editor.screenshot(area);
    let steady = wait_for("the first picture to settle", || {
        let now = editor.screenshot(area);
        let same = now == last;
        last = now.clone();
        same.then_some(now)
    });
    let handle_colour = steady
        .pixel((ball.0 - area.x) as u32, (ball.1 - area.y) as u32)
        .unwrap();

    // Live on: the handles, which edit the initial state, are no longer drawn.
    let viewer = editor.window("Graphical viewer 1$");
    editor.xdotool(&["windowfocus", "--sync", &viewer, "key", "ctrl+l"]);
    let still = wait_for("the handles to go when Live is on", || {
        let now = editor.screenshot(area);
        let at_centre = editor.screenshot(centre).pixel(0, 0).unwrap();
        (at_centre != handle_colour).then_some(now)
    });
    assert_eq!(spring_pixels(&still), 0, "a spring before any pull");

    // Shift and the left button pull the ball to the right and hold it there, three quarters
    // of the way to the picture's edge: well outside the ball's outline, since the pull turns
    // the grabbed point to the ball's side and the spring then shows only outside it.
    let to = (ball.0 + (area.x + area.width - ball.0) * 3 / 4, ball.1 - 30);
    editor.xdotool(&["mousemove", &ball.0.to_string(), &ball.1.to_string()]);
    editor.xdotool(&["keydown", "shift", "mousedown", "1"]);
    for k in 1..=6 {
        let x = ball.0 + (to.0 - ball.0) * k / 6;
        let y = ball.1 + (to.1 - ball.1) * k / 6;
        editor.xdotool(&["mousemove", &x.to_string(), &y.to_string()]);
    }
    let out = output_dir("live-pull");
    write_png(&out.join("still.png"), &still).unwrap();
    wait_for("the pull spring drawn in the picture", || {
        let now = editor.screenshot(area);
        // The last picture taken stays, for a look at the spring (or at why it is not seen).
        write_png(&out.join("pulled.png"), &now).unwrap();
        (spring_pixels(&now) > 60 && differing(&now, &still, 24) > 200).then_some(())
    });
    let window = editor.screenshot(editor.geometry(&viewer));
    write_png(&out.join("window.png"), &window).unwrap();
    editor.xdotool(&["mouseup", "1", "keyup", "shift"]);
    assert_eq!(editor.text(), TETHERED_BALL, "live left the text alone");

    // Keep as trajectory: the recorded path of b is appended to the text.
    editor.xdotool(&["windowfocus", "--sync", &viewer, "key", "ctrl+k"]);
    let kept = wait_for("the trajectory in the text over D-Bus", || {
        let text = editor.text();
        (text != TETHERED_BALL).then_some(text)
    });
    let appended = kept
        .strip_prefix(TETHERED_BALL)
        .unwrap_or_else(|| panic!("the text changed before its end:\n{kept}"));
    // The path, and the turning when the pull was off the ball's centre.
    let lines: Vec<&str> = appended.lines().collect();
    assert!(
        lines[0].starts_with("trajectory b_recorded points {{0 0 0 0} ")
            && lines[0].ends_with("} body b var pos")
            && match lines[1..] {
                [] => true,
                [rotation] => {
                    rotation.starts_with("trajectory b_recorded_rot points {{0 0 0 0} ")
                        && rotation.ends_with("} body b var rot")
                }
                _ => false,
            },
        "{appended}"
    );
    let kept_file = dir.path().join("kept.asg");
    std::fs::write(&kept_file, &kept).unwrap();
    let check = Command::new(env!("CARGO_BIN_EXE_asgard"))
        .arg("check")
        .arg(&kept_file)
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "asgard check refused the kept text: {}\n{kept}",
        String::from_utf8_lossy(&check.stderr)
    );
    // The path went right on the screen, where the pointer pulled, before the link took the
    // ball back.
    let right = camera.rotation.inverse() * Vector3::x();
    let trajectory = evaluate(&kept).unwrap();
    let points = &trajectory.trajectory("b_recorded").unwrap().pieces[0].points;
    assert!(
        points.iter().any(|p| p.pos.dot(&right) > 0.01),
        "{points:?}"
    );

    // One edit: undo gives the text back.
    editor.xdotool(&["windowfocus", "--sync", &viewer, "key", "ctrl+z"]);
    wait_for("Keep as trajectory undone", || {
        (editor.text() == TETHERED_BALL).then_some(())
    });
}

/// A red ball dropped on a fixed floor (top at y = 0): resting, its centre is at y = 0.5.
const BOUNCING_BALL: &str = "simulator finish 3 step 0.05
shape_set ball desc {sphere 0.5 color red}
shape_set slab desc {box {6 0.2 6} color tan}
body floor shape slab init_pos {0 -0.1 0} fixed 1
body ball shape ball mass 1 restitution 0.3 init_pos {0 2 0}
force body ball gravity {0 -9.81 0}
";

fn is_red(pixel: Option<[u8; 4]>) -> bool {
    pixel.is_some_and(|[r, g, b, _]| r > g.saturating_add(60) && r > b.saturating_add(60))
}

#[test]
fn live_ball_bounces_on_the_floor_and_rests_there() {
    let _one = one_editor();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bounce.asg");
    std::fs::write(&file, BOUNCING_BALL).unwrap();
    let editor = Editor::start(&file);
    let scene = evaluate(BOUNCING_BALL).unwrap();
    let area = drawn_area(&editor);
    let (camera, viewport) = first_view(&scene, area);
    let at = |y: f64| {
        let seen = camera
            .project(&Point3::new(0.0, y, 0.0), &viewport)
            .unwrap();
        (seen.x.round() as u32, seen.y.round() as u32)
    };
    let (start, rest) = (at(2.0), at(0.5));

    let viewer = editor.window("Graphical viewer 1$");
    editor.xdotool(&["windowfocus", "--sync", &viewer, "key", "ctrl+l"]);
    // Without collisions the ball would pass its resting place in a tenth of a second and
    // fall on out of the picture; it must be seen there in five pictures in a row. Every
    // picture is kept for a look at the bounce.
    let out = output_dir("live-bounce");
    let mut pictures = 0;
    let mut resting = 0;
    wait_for("the ball resting on the floor", || {
        let now = editor.screenshot(area);
        pictures += 1;
        write_png(&out.join(format!("frame-{pictures:03}.png")), &now).unwrap();
        let there = is_red(now.pixel(rest.0, rest.1)) && !is_red(now.pixel(start.0, start.1));
        resting = if there { resting + 1 } else { 0 };
        (resting >= 5).then_some(())
    });
    assert_eq!(editor.text(), BOUNCING_BALL, "live left the text alone");
}
