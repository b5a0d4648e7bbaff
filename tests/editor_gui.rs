//! `asgard edit` end to end: real windows on a private Xvfb display, driven with xdotool,
//! watched through screenshots and the scene text served over D-Bus (see editor_support).
//!
//! Pictures are compared with golden pictures under tests/golden/ (editor-*.png) with the
//! tolerance of the render tests. To regenerate them deliberately, run
//!
//! ```text
//! ASGARD_REGENERATE_GOLDEN=1 cargo test --test editor_gui
//! ```
//!
//! and look at every picture before committing it. On a failure the picture taken and a
//! picture of the differing pixels are written under target/tmp/editor/.

mod editor_support;
#[path = "render_support/golden.rs"]
mod golden;
mod xdotool;

use asgard::render::camera::{Camera, Viewport};
use asgard::render::image::{write_png, RgbaImage};
use asgard::render::scene_frame::palette::CAMERA;
use asgard::scene::camera_aim::{looking, Looking};
use asgard::scene::{evaluate, Scene};
use asgard::ui::scene_text::vector;
use editor_support::*;
use golden::{differences, golden, intermediate_pixels, MAX_DIFFERING, REGENERATE};
use nalgebra::{Point2, Point3, Vector3};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Two balls, and a third to be typed in.
const TWO_BALLS: &str = "simulator finish 2 step 0.05
shape_set ball desc {sphere 0.5}
body a shape ball init_pos {0 0 0}
body b shape ball init_pos {4 0 0}
";

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
}

/// A scene file with `text` in a folder that lives as long as the returned guard.
fn scene_file(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("scene.asg");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

/// Waits until the picture of `rect` matches golden picture `name` (or, when regenerating,
/// until it stops changing, and stores it).
fn expect_picture(editor: &Editor, rect: Rect, name: &str) {
    let path = golden(name);
    if std::env::var_os(REGENERATE).is_some() {
        let mut last = editor.screenshot(rect);
        let settled = wait_for("the picture to settle", || {
            let now = editor.screenshot(rect);
            let same = now == last;
            last = now.clone();
            same.then_some(now)
        });
        write_png(&path, &settled).unwrap();
        return;
    }
    let expected = golden::read_png(&path);
    let allowed = (MAX_DIFFERING * f64::from(expected.width * expected.height)) as usize;
    let deadline = Instant::now() + PATCH_WAIT;
    loop {
        let found = editor.screenshot(rect);
        assert_eq!(
            (found.width, found.height),
            (expected.width, expected.height),
            "the picture of {name} has another size than the golden one"
        );
        let (count, diff) = differences(&found, &expected);
        if count <= allowed {
            return;
        }
        if Instant::now() > deadline {
            let out = output_dir(name);
            write_png(&out.join("found.png"), &found).unwrap();
            write_png(&out.join("difference.png"), &diff).unwrap();
            panic!(
                "{name}: {count} pixels differ from {} (at most {allowed} may); see {}",
                path.display(),
                out.display()
            );
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// How long a picture may take to come to match its golden one.
const PATCH_WAIT: Duration = Duration::from_secs(60);

/// Focuses the language viewer and clicks into its text, which gives the text the keyboard;
/// returns the viewer's window id and place.
fn click_into_language_viewer(editor: &Editor) -> (String, Rect) {
    let id = editor.window("Language viewer 1$");
    let window = editor.geometry(&id);
    editor.xdotool(&["windowfocus", "--sync", &id]);
    let (x, y) = (window.x + 300, window.y + window.height / 2);
    editor.xdotool(&["mousemove", &x.to_string(), &y.to_string(), "click", "1"]);
    (id, window)
}

/// Types `text` at the end of the language viewer's text and presses Update (Ctrl+Return).
fn type_at_end_and_update(editor: &Editor, text: &str) {
    click_into_language_viewer(editor);
    editor.xdotool(&["key", "ctrl+End"]);
    editor.xdotool(&["type", "--delay", "20", text]);
    editor.xdotool(&["key", "ctrl+Return"]);
}

/// Where b3's position handle is on the screen in the pendulum's first view, and that view.
fn b3_on_screen(editor: &Editor, scene: &Scene) -> ((i32, i32), Rect, Camera, Viewport) {
    let area = drawn_area(editor);
    let (camera, viewport) = first_view(scene, area);
    let b3 = scene.body("b3").unwrap();
    let seen = camera
        .project(&Point3::from(b3.init_pos.value), &viewport)
        .unwrap();
    let at = (
        area.x + seen.x.round() as i32,
        area.y + seen.y.round() as i32,
    );
    (at, area, camera, viewport)
}

/// Drags with Shift and the left button from `from` to `to` in a few steps.
fn shift_drag(editor: &Editor, from: (i32, i32), to: (i32, i32)) {
    editor.xdotool(&["mousemove", &from.0.to_string(), &from.1.to_string()]);
    editor.xdotool(&["keydown", "shift", "mousedown", "1"]);
    for k in 1..=6 {
        let x = from.0 + (to.0 - from.0) * k / 6;
        let y = from.1 + (to.1 - from.1) * k / 6;
        editor.xdotool(&["mousemove", &x.to_string(), &y.to_string()]);
    }
    editor.xdotool(&["mouseup", "1", "keyup", "shift"]);
}

/// Waits until the text read over D-Bus has b3 under screen point `to`, and returns it.
fn text_with_b3_at(
    editor: &Editor,
    to: (i32, i32),
    area: Rect,
    camera: &Camera,
    viewport: &Viewport,
) -> String {
    wait_for("b3 at the pointer in the text read over D-Bus", || {
        let text = editor.text();
        let moved = evaluate(&text).ok()?;
        let at = camera.project(&Point3::from(moved.body("b3")?.init_pos.value), viewport)?;
        let here = (at.x - f64::from(to.0 - area.x)).hypot(at.y - f64::from(to.1 - area.y));
        (here < 1.5).then_some(text)
    })
}

#[test]
fn dragging_b3_with_shift_rewrites_only_its_init_pos() {
    let editor = Editor::start(&example("pendulum.asg"));
    let original = editor.text();
    let scene = evaluate(&original).unwrap();
    let ((x, y), area, camera, viewport) = b3_on_screen(&editor, &scene);
    // The yellow position handle is drawn there.
    let handle = editor.screenshot(Rect {
        x,
        y,
        width: 1,
        height: 1,
    });
    let [r, g, b, _] = handle.pixel(0, 0).unwrap();
    assert!(
        r > 180 && g > 180 && b < 150,
        "no position handle at ({x}, {y}): {r} {g} {b}"
    );

    let to = (x + 60, y + 40);
    shift_drag(&editor, (x, y), to);
    let edited = text_with_b3_at(&editor, to, area, &camera, &viewport);
    // Only the init_pos literal of b3 changed.
    let b3 = scene.body("b3").unwrap();
    let span = b3.init_pos.span.expect("b3's init_pos is a literal");
    let tail = &original[span.end..];
    assert!(edited.starts_with(&original[..span.start]), "{edited}");
    assert!(edited.ends_with(tail), "{edited}");
    let literal = &edited[span.start..edited.len() - tail.len()];
    let numbers: Vec<f64> = literal
        .split_whitespace()
        .map(|n| n.parse().unwrap())
        .collect();
    assert_eq!(numbers.len(), 3, "{literal}");
    let moved = evaluate(&edited).unwrap();
    for name in ["b1", "b2"] {
        assert_eq!(moved.body(name), scene.body(name));
    }
    assert_ne!(moved.body("b3").unwrap().init_pos.value, b3.init_pos.value);

    // The whole drag undoes as one step of the text history, and redoes.
    let viewer = editor.window("Graphical viewer 1$");
    editor.xdotool(&["windowfocus", "--sync", &viewer, "key", "ctrl+z"]);
    wait_for("the drag undone", || {
        (editor.text() == original).then_some(())
    });
    editor.xdotool(&["windowfocus", "--sync", &viewer, "key", "ctrl+shift+z"]);
    wait_for("the drag redone", || {
        (editor.text() == edited).then_some(())
    });
}

#[test]
fn z_and_x_push_the_dragged_handle_into_and_out_of_the_screen() {
    let editor = Editor::start(&example("pendulum.asg"));
    let original = editor.text();
    let scene = evaluate(&original).unwrap();
    let ((x, y), area, camera, viewport) = b3_on_screen(&editor, &scene);
    let eye = camera.eye();
    let direction = camera.view_direction();
    // b3's depth along the view direction and how far from the pointer it is drawn, pixels.
    let placed = |text: &str| {
        let moved = evaluate(text).ok()?;
        let at = Point3::from(moved.body("b3")?.init_pos.value);
        let seen = camera.project(&at, &viewport)?;
        let off = (seen.x - f64::from(x - area.x)).hypot(seen.y - f64::from(y - area.y));
        Some(((at - eye).dot(&direction), off))
    };
    let (depth, _) = placed(&original).unwrap();
    // Each push is 5 % of the handle's distance from the eye.
    let step = 0.05 * (Point3::from(scene.body("b3").unwrap().init_pos.value) - eye).norm();
    let pushed_by = |steps: f64| {
        move |text: &str| {
            let (now, off) = placed(text)?;
            ((now - depth - steps * step).abs() < 0.2 * step && off < 1.5).then_some(())
        }
    };

    let viewer = editor.window("Graphical viewer 1$");
    editor.xdotool(&["windowfocus", "--sync", &viewer]);
    editor.xdotool(&["mousemove", &x.to_string(), &y.to_string()]);
    editor.xdotool(&["keydown", "shift", "mousedown", "1"]);
    editor.xdotool(&["key", "z", "z", "z"]);
    let three = pushed_by(3.0);
    wait_for(
        "b3 three pushes into the screen, still under the pointer",
        || three(&editor.text()),
    );
    editor.xdotool(&["key", "x"]);
    let two = pushed_by(2.0);
    wait_for("b3 one push back out of the screen", || two(&editor.text()));
    editor.xdotool(&["mouseup", "1", "keyup", "shift"]);
    let moved = evaluate(&editor.text()).unwrap();
    for name in ["b1", "b2"] {
        assert_eq!(moved.body(name), scene.body(name));
    }
}

#[test]
fn a_drag_changes_the_literal_in_the_language_viewer_in_place() {
    let editor = Editor::start(&example("pendulum.asg"));
    let scene = evaluate(&editor.text()).unwrap();
    let ((x, y), area, camera, viewport) = b3_on_screen(&editor, &scene);
    // Show the end of the text (b3's line) with the cursor on another line, near the top.
    // Each step waits for the viewer to show its result before the next: the keys are
    // handled whenever the editor gets to them, and a picture taken before they are would
    // make the drag's change look like a scroll (or, taken before the text is drawn, like
    // nothing at all).
    let (_, window) = click_into_language_viewer(&editor);
    let text_area = Rect {
        height: window.height - 60,
        ..window
    };
    let top = settled(&editor, text_area, "the top of the text drawn", |_| true);
    editor.xdotool(&["key", "ctrl+End", "Up", "Up", "Up", "Up", "Up", "Up", "Up"]);
    let before = settled(&editor, text_area, "the end of the text shown", |shot| {
        differing(shot, &top, 24) > 0
    });

    let to = (x + 50, y - 30);
    shift_drag(&editor, (x, y), to);
    text_with_b3_at(&editor, to, area, &camera, &viewport);
    // The literal changed on b3's line only: the cursor and the scroll position stayed.
    let rows = wait_for("b3's literal to change in the language viewer", || {
        let after = editor.screenshot(text_area);
        let rows: Vec<u32> = (0..after.height)
            .filter(|&y| {
                (0..after.width).any(|x| {
                    let (p, q) = (after.pixel(x, y).unwrap(), before.pixel(x, y).unwrap());
                    p.iter().zip(q).any(|(a, b)| a.abs_diff(b) > 24)
                })
            })
            .collect();
        (!rows.is_empty()).then_some(rows)
    });
    let band = rows.last().unwrap() - rows.first().unwrap();
    assert!(
        band < 20,
        "pixels changed on rows {:?}..{:?}: more than one line moved",
        rows.first(),
        rows.last()
    );
}

/// Waits until the picture of `rect` shows what `wanted` accepts and stays the same over two
/// pictures taken one after the other; returns it. (`what` names the state for the failure.)
fn settled(
    editor: &Editor,
    rect: Rect,
    what: &str,
    wanted: impl Fn(&RgbaImage) -> bool,
) -> RgbaImage {
    let mut last = editor.screenshot(rect);
    wait_for(what, || {
        let now = editor.screenshot(rect);
        let steady = now == last && wanted(&now) && has_text(&now);
        last = now.clone();
        steady.then_some(now)
    })
}

/// Whether a picture of the language viewer shows text: dark pixels on its light background.
fn has_text(shot: &RgbaImage) -> bool {
    shot.pixels
        .chunks_exact(4)
        .filter(|p| p[..3].iter().all(|&c| c < 96))
        .count()
        > 500
}

#[test]
fn typing_not_yet_applied_survives_a_drag_and_update_keeps_both() {
    let editor = Editor::start(&example("pendulum.asg"));
    let scene = evaluate(&editor.text()).unwrap();
    let ((x, y), area, camera, viewport) = b3_on_screen(&editor, &scene);
    let (id, _) = click_into_language_viewer(&editor);
    editor.xdotool(&["key", "ctrl+Home"]);
    editor.xdotool(&["type", "--delay", "20", "# typed before the drag"]);
    editor.xdotool(&["key", "Return"]);

    let to = (x - 40, y + 30);
    shift_drag(&editor, (x, y), to);
    let dragged = text_with_b3_at(&editor, to, area, &camera, &viewport);
    assert!(
        !dragged.contains("typed before"),
        "the typing is not applied yet"
    );

    editor.xdotool(&["windowfocus", "--sync", &id, "key", "ctrl+Return"]);
    let updated = wait_for("the typing in the text over D-Bus", || {
        let text = editor.text();
        text.contains("typed before").then_some(text)
    });
    assert_eq!(updated, format!("# typed before the drag\n{dragged}"));
}

#[test]
fn a_body_typed_in_the_language_viewer_appears_after_update() {
    let (_dir, file) = scene_file(TWO_BALLS);
    let editor = Editor::start(&file);
    let area = drawn_area(&editor);
    let before = editor.screenshot(area);
    type_at_end_and_update(&editor, "body c shape ball init_pos {2 1.5 0}");
    wait_for("body c in the text over D-Bus", || {
        editor.text().contains("body c shape ball").then_some(())
    });
    wait_for("the graphical viewer to change", || {
        (differing(&editor.screenshot(area), &before, 24) > 200).then_some(())
    });
    expect_picture(&editor, area, "editor-typed-body");
}

/// The graphical viewer draws what `asgard render` and renditions draw (issue 29): the looks
/// scene (tests/golden/looks.asg) with its ground, grid and shadows against the golden
/// picture, smoothed edges, and the axis gizmo in the corner.
#[test]
fn the_viewer_shows_the_ground_grid_shadows_and_smooth_edges() {
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/looks.asg");
    let editor = Editor::start(&scene);
    let area = drawn_area(&editor);
    expect_picture(&editor, area, "editor-looks");
    let shot = editor.screenshot(area);
    let smoothed: usize = (0..shot.height)
        .map(|y| intermediate_pixels(&shot, y))
        .sum();
    assert!(smoothed >= 40, "{smoothed} smoothed edge pixels");
}

/// A window exported by the editor itself (its scripting action, called over D-Bus as
/// scripts/readme-pictures calls it) is the window as the screen shows it: its size, its menu
/// bar and its 3D view, not a blank or partial picture.
#[test]
fn a_window_exported_over_dbus_is_the_window_as_shown() {
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/looks.asg");
    let editor = Editor::start(&scene);
    let viewer = editor.window("Graphical viewer 1$");
    let rect = editor.geometry(&viewer);
    let mut last = editor.screenshot(rect);
    let shown = wait_for("the window's picture to settle", || {
        let now = editor.screenshot(rect);
        let same = now == last;
        last = now.clone();
        same.then_some(now)
    });
    let path = editor.dir.path().join("exported viewer.png");
    let title = "Graphical viewer 1";
    let target = path.to_str().unwrap();
    editor.activate_action("export-window", (title, target).into());
    let exported = wait_for("the exported picture", || try_read_png(&path).ok());
    write_png(&output_dir("window-export").join("exported.png"), &exported).unwrap();
    assert_eq!(
        (exported.width as i32, exported.height as i32),
        (rect.width, rect.height),
        "the exported picture is the window's size"
    );
    let colours: std::collections::HashSet<&[u8]> = exported.pixels.chunks_exact(4).collect();
    assert!(colours.len() > 500, "{} colours: blank", colours.len());
    let changed = differing(&exported, &shown, 8);
    let allowed = (MAX_DIFFERING * f64::from(exported.width * exported.height)) as usize;
    assert!(
        changed <= allowed,
        "{changed} pixels differ from the screen (allowed {allowed})"
    );
}

/// View ▸ Shadows turns the shadows off (and on again): the menu is driven from the keyboard
/// as a user without a mouse would (F10, then the arrow keys).
#[test]
fn the_view_menu_turns_the_shadows_off_and_on() {
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/looks.asg");
    let editor = Editor::start(&scene);
    let area = drawn_area(&editor);
    let mut last = editor.screenshot(area);
    let shadowed = wait_for("the first picture to settle", || {
        let now = editor.screenshot(area);
        let same = now == last;
        last = now.clone();
        same.then_some(now)
    });
    // Pixels at least 90 (summed over the channels) lighter in `b` than in `a`.
    let lighter = |a: &RgbaImage, b: &RgbaImage| {
        a.pixels
            .chunks_exact(4)
            .zip(b.pixels.chunks_exact(4))
            .filter(|(p, q)| {
                let sum = |x: &[u8]| x[..3].iter().map(|&c| i32::from(c)).sum::<i32>();
                sum(q) >= sum(p) + 90
            })
            .count()
    };
    let viewer = editor.window("Graphical viewer 1$");
    // The menu bar's first menu is Edit; View is next, opening on Reset view; Shadows
    // follows.
    let toggle_shadows = || {
        editor.xdotool(&["windowfocus", "--sync", &viewer]);
        editor.xdotool(&["key", "--delay", "300", "F10", "Right", "Down", "Return"]);
    };
    toggle_shadows();
    let plain = wait_for("the shadows to go", || {
        let now = editor.screenshot(area);
        (lighter(&shadowed, &now) > 1000).then_some(now)
    });
    write_png(&output_dir("view-menu").join("no-shadows.png"), &plain).unwrap();
    // Only the shadows went: the ground and the bodies stay (turning the ground off changes
    // most of the picture).
    let changed = differing(&plain, &shadowed, 8);
    assert!(changed < 40_000, "{changed} pixels changed");
    toggle_shadows();
    wait_for("the shadows to come back", || {
        (differing(&editor.screenshot(area), &shadowed, 8) < 50).then_some(())
    });
}

/// How many pixels of `picture` are about `colour`.
fn pixels_near(picture: &RgbaImage, colour: [u8; 3], tolerance: u8) -> usize {
    picture
        .pixels
        .chunks_exact(4)
        .filter(|p| (0..3).all(|i| p[i].abs_diff(colour[i]) <= tolerance))
        .count()
}

/// The body under the pointer is outlined in light blue, and only while the pointer is on it.
#[test]
fn the_body_under_the_pointer_is_highlighted() {
    let (_dir, file) = scene_file(TWO_BALLS);
    let editor = Editor::start(&file);
    let scene = evaluate(TWO_BALLS).unwrap();
    let area = drawn_area(&editor);
    let (camera, viewport) = first_view(&scene, area);
    // Beside ball a's centre, off its position handle.
    let a = camera
        .project(&Point3::new(0.25, -0.2, 0.3), &viewport)
        .unwrap();
    let on_a = (area.x + a.x.round() as i32, area.y + a.y.round() as i32);
    // The hover outline's light blue (0.45, 0.78, 1).
    // (The blue ball b has some pixels of that colour too.)
    let blue = [115, 199, 255];
    let before = pixels_near(&editor.screenshot(area), blue, 12);
    editor.xdotool(&["mousemove", &on_a.0.to_string(), &on_a.1.to_string()]);
    wait_for("the outline of the ball under the pointer", || {
        (pixels_near(&editor.screenshot(area), blue, 12) > before + 40).then_some(())
    });
    editor.xdotool(&[
        "mousemove",
        &(area.x + 5).to_string(),
        &(area.y + 5).to_string(),
    ]);
    wait_for("the outline to go with the pointer", || {
        (pixels_near(&editor.screenshot(area), blue, 12) == before).then_some(())
    });
}

#[test]
fn a_syntax_error_is_marked_where_it_is() {
    let (_dir, file) = scene_file(TWO_BALLS);
    let editor = Editor::start(&file);
    drawn_area(&editor);
    // The brace of init_pos is never closed: line 5, column 28.
    type_at_end_and_update(&editor, "body c shape ball init_pos {2 1.5 0");
    wait_for("the error status over D-Bus", || {
        (editor.status() == "error").then_some(())
    });
    // The text stays as typed.
    assert!(editor.text().ends_with("init_pos {2 1.5 0"));
    let window = editor.geometry(&editor.window("Language viewer 1$"));
    let top = Rect {
        height: 240,
        ..window
    };
    expect_picture(&editor, top, "editor-syntax-error");
}

#[test]
fn simulate_then_play_moves_the_bodies() {
    let (_dir, file) = scene_file(
        "simulator finish 3 step 0.05
shape_set ball desc {sphere 0.5}
body a shape ball init_pos {0 0 0} init_dpos {2 3 0}
force body a gravity {0 -3 0}
body b shape ball init_pos {4 0 0} fixed 1
",
    );
    let editor = Editor::start(&file);
    let area = drawn_area(&editor);
    // A change of the text leaves no motion to play until Simulate.
    type_at_end_and_update(
        &editor,
        "body c shape ball init_pos {2 -2 0} init_dpos {-1 2 0}",
    );
    wait_for("body c in the text over D-Bus", || {
        editor.text().contains("body c").then_some(())
    });
    let control = editor.window(" — Asgard$");
    editor.xdotool(&["windowfocus", "--sync", &control, "key", "ctrl+r"]);
    let still = editor.screenshot(area);
    let viewer = editor.window("Graphical viewer 1$");
    // Play at once: playback waits for the run to report, then follows the computed motion.
    editor.xdotool(&["windowfocus", "--sync", &viewer, "key", "ctrl+p"]);
    let first = wait_for("the bodies to start moving after Simulate and Play", || {
        let now = editor.screenshot(area);
        (differing(&now, &still, 24) > 100).then_some(now)
    });
    let second = wait_for("the bodies to move on", || {
        let now = editor.screenshot(area);
        (differing(&now, &first, 24) > 100).then_some(now)
    });
    let out = output_dir("simulate-then-play");
    for (name, picture) in [("still", &still), ("first", &first), ("second", &second)] {
        write_png(&out.join(format!("{name}.png")), picture).unwrap();
    }
}

#[test]
fn the_shape_editor_writes_a_shape_set_into_the_text() {
    let (_dir, file) = scene_file(TWO_BALLS);
    let editor = Editor::start(&file);
    let id = open_shape_editor(&editor);
    editor.xdotool(&["windowfocus", "--sync", &id]);
    // New sphere, New box, then Done (Alt and the underlined letters).
    editor.xdotool(&["key", "alt+s", "alt+b", "alt+d"]);
    let text = wait_for("the new shape in the text over D-Bus", || {
        let text = editor.text();
        text.contains("shape_set shape1").then_some(text)
    });
    let scene = evaluate(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let shape = scene.shape("shape1").unwrap();
    assert_eq!(shape.parts.len(), 2);
    assert!(matches!(
        shape.parts[0].geometry,
        asgard::scene::model::Geometry::Sphere { radius } if (radius - 0.5).abs() < 1e-9
    ));
    // The shape set follows the other one, before the bodies.
    assert!(text.find("shape_set shape1").unwrap() < text.find("body a").unwrap());
    let bad = editor.proxy_call_error("OpenEditor", "nonsense");
    assert!(bad.contains("unknown editor kind"), "{bad}");
}

/// The shape editor's fields take typed values: a new sphere's radius and centre, and a new
/// box's first vertex; Apply and Done write them into the text, each one undo step.
#[test]
fn the_shape_editor_takes_typed_radius_and_positions() {
    let (_dir, file) = scene_file(TWO_BALLS);
    let editor = Editor::start(&file);
    editor.open_editor("shape");
    let id = editor.window("Shape editor$");
    let parts = |text: &str| {
        evaluate(text)
            .ok()
            .and_then(|scene| Some(scene.shape("shape1")?.parts.clone()))
    };
    // A button pressed by its mnemonic is clicked a moment later (GTK shows it pressed
    // first), so each new part is applied and awaited in the text before its fields are typed.
    editor.xdotool(&["windowfocus", "--sync", &id, "key", "alt+s", "alt+a"]);
    wait_for("the new sphere in the text", || {
        parts(&editor.text()).filter(|p| p.len() == 1)
    });
    // The sphere's radius 0.8 and its centre's x 2, then Enter.
    editor.xdotool(&["key", "alt+r", "ctrl+a"]);
    editor.xdotool(&["type", "0.8"]);
    editor.xdotool(&["key", "alt+x", "ctrl+a"]);
    editor.xdotool(&["type", "2"]);
    editor.xdotool(&["key", "Return", "alt+b", "alt+a"]);
    let applied = wait_for("the typed sphere and a new box in the text", || {
        let text = editor.text();
        parts(&text).filter(|p| p.len() == 2).map(|p| (text, p))
    });
    let (applied, shape) = applied;
    let sphere = &shape[0];
    assert!(
        matches!(sphere.geometry, asgard::scene::model::Geometry::Sphere { radius } if (radius - 0.8).abs() < 1e-9),
        "{applied}"
    );
    assert!((sphere.pos.x - 2.0).abs() < 1e-9, "{applied}");
    // The box's first vertex typed to (-3, -3, -3); Done.
    for axis in ["alt+x", "alt+y", "alt+z"] {
        editor.xdotool(&["key", axis, "ctrl+a"]);
        editor.xdotool(&["type", "--", "-3"]);
    }
    editor.xdotool(&["key", "Return", "alt+d"]);
    let corner = asgard::scene::model::Vec3::new(-3.0, -3.0, -3.0);
    let text = wait_for("the typed vertex in the text", || {
        let text = editor.text();
        let cube = parts(&text)?.get(1)?.clone();
        let asgard::scene::model::Geometry::Polyhedron { vertices } = &cube.geometry else {
            return None;
        };
        vertices
            .iter()
            .any(|v| (cube.pos + v - corner).norm() < 1e-6)
            .then_some(text)
    });
    // Done wrote it in one step: one undo takes the text back to what Apply wrote.
    let viewer = editor.window("Graphical viewer 1$");
    editor.xdotool(&["windowfocus", "--sync", &viewer, "key", "ctrl+z"]);
    wait_for("one undo to take the typed vertex out", || {
        (editor.text() == applied).then_some(())
    });
    assert_ne!(text, applied);
}

/// Opens a new shape editor over D-Bus and puts it beside the viewers; returns its window.
fn open_shape_editor(editor: &Editor) -> String {
    editor.open_editor("shape");
    let id = editor.window("Shape editor$");
    editor.xdotool(&["windowmove", "--sync", &id, "300", "200"]);
    id
}

/// In the shape editor, Shift and the middle button add a vertex to the selected polyhedron
/// (a new box) under the pointer, and Shift and the right button on it delete it again; Apply
/// writes each into the text.
#[test]
fn the_shape_editor_adds_and_deletes_a_vertex() {
    let (_dir, file) = scene_file(TWO_BALLS);
    let editor = Editor::start(&file);
    let id = open_shape_editor(&editor);
    // How far the polyhedron reaches from the origin, where the new box is centred.
    let reach = |text: &str| {
        let scene = evaluate(text).ok()?;
        let part = scene.shape("shape1")?.parts.first()?.clone();
        match &part.geometry {
            asgard::scene::model::Geometry::Polyhedron { vertices } => vertices
                .iter()
                .map(|v| (part.pos + v).norm())
                .reduce(f64::max),
            _ => None,
        }
    };
    editor.xdotool(&["windowfocus", "--sync", &id, "key", "alt+b", "alt+a"]);
    let corner = 0.75f64.sqrt();
    let boxed = wait_for("the new box in the text", || {
        let text = editor.text();
        reach(&text)
            .is_some_and(|r| (r - corner).abs() < 1e-6)
            .then_some(text)
    });
    let window = editor.geometry(&id);
    let view = wait_for("the shape editor's view drawn", || {
        picture_area(&editor.screenshot(window), window)
    });
    // Left of the box, in the plane through its centre: a vertex on the hull, far out.
    let (x, y) = (
        (view.x + view.width / 8).to_string(),
        (view.y + view.height / 3).to_string(),
    );
    let shift_click = |button: &str| {
        editor.xdotool(&["mousemove", &x, &y, "keydown", "shift", "click", button]);
        editor.xdotool(&["keyup", "shift", "key", "alt+a"]);
    };
    shift_click("2");
    let added = wait_for("the added vertex in the text", || {
        let text = editor.text();
        reach(&text)
            .is_some_and(|r| r > 2.0 * corner)
            .then_some(text)
    });
    write_png(
        &output_dir("shape-vertex").join("added.png"),
        &editor.screenshot(window),
    )
    .unwrap();
    shift_click("3");
    wait_for("the added vertex deleted in the text", || {
        (editor.text() == boxed).then_some(())
    });
    assert_ne!(added, boxed);
}

/// The shape editor opened on an existing shape from the control panel's Shapes menu starts
/// on its first point; a radius typed there and applied changes only the size, and the
/// colour word the shape was written with stays (`color orange`, not its numbers).
#[test]
fn a_shape_edited_from_the_shapes_menu_keeps_its_colour_word() {
    const TOY: &str = "simulator finish 1
shape_set toy desc {sub pos {0 0 0} sphere 0.2 color orange}
body a shape toy init_pos {0 0 0}
";
    let (_dir, file) = scene_file(TOY);
    let editor = Editor::start(&file);
    let control = editor.window(" — Asgard$");
    // File, Edit, View, Create, Shapes: Shapes opens on New shape; toy follows. Under load
    // the keys can outrun the menu bar, so the menu is tried again (after Escape closes what
    // opened) until the shape editor shows.
    let shape_editor = || {
        let out = std::process::Command::new("xdotool")
            .args(["search", "--onlyvisible", "--name", "Shape editor$"])
            .env("DISPLAY", &editor.display)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .map(str::to_owned)
    };
    let mut tries = 0;
    let id = wait_for("the shape editor on toy from the Shapes menu", || {
        if tries % 30 == 0 {
            editor.xdotool(&["windowfocus", "--sync", &control, "key", "Escape"]);
            editor.xdotool(&[
                "key", "--delay", "300", "F10", "Right", "Right", "Right", "Right", "Down",
                "Return",
            ]);
        }
        tries += 1;
        shape_editor()
    });
    editor.xdotool(&["windowfocus", "--sync", &id, "key", "alt+r", "ctrl+a"]);
    editor.xdotool(&["type", "0.3"]);
    editor.xdotool(&["key", "Return", "alt+a"]);
    let text = wait_for("the new radius in the text", || {
        let text = editor.text();
        text.contains("sphere 0.3").then_some(text)
    });
    assert!(text.contains("sphere 0.3 color orange"), "{text}");
    assert!(
        text.ends_with("body a shape toy init_pos {0 0 0}\n"),
        "{text}"
    );
}

/// Waits until no window whose title matches `name` is shown.
fn gone(editor: &Editor, name: &str) {
    wait_for(&format!("{name} to close"), || {
        let shown = std::process::Command::new("xdotool")
            .args(["search", "--onlyvisible", "--name", name])
            .env("DISPLAY", &editor.display)
            .output()
            .unwrap();
        shown.stdout.is_empty().then_some(())
    });
}

/// Import hull in the shape editor makes a polyhedron of the convex hull of a Wavefront OBJ
/// file's vertices (a cube with a point inside: eight vertices) and one of an ASCII STL
/// file's (two triangles of a tetrahedron: four), which Done writes into the text as one
/// shape set. A file with a bad line is refused in a window (saying FILE:LINE, as a scene's
/// errors are) and imports nothing.
#[test]
fn the_shape_editor_imports_the_convex_hulls_of_obj_and_stl_files() {
    let (dir, file) = scene_file(TWO_BALLS);
    let mesh = dir.path().join("cube.obj");
    let mut obj = String::from("# a cube of side 2 and a point inside it\no cube\n");
    for corner in 0..8 {
        let c = |bit: i32| if corner & bit == 0 { -1 } else { 1 };
        obj.push_str(&format!("v {} {} {}\n", c(1), c(2) + 3, c(4)));
    }
    obj.push_str("v 0 3 0\nf 1 2 3\n");
    std::fs::write(&mesh, obj).unwrap();
    let stl = dir.path().join("tetrahedron.stl");
    let facet = |corners: [[i32; 3]; 3]| {
        let vertices: String = corners
            .iter()
            .map(|[x, y, z]| format!("      vertex {x} {y} {z}\n"))
            .collect();
        format!("  facet normal 0 0 1\n    outer loop\n{vertices}    endloop\n  endfacet\n")
    };
    let tetrahedron = [
        facet([[5, 0, 0], [7, 0, 0], [5, 2, 0]]),
        facet([[5, 0, 0], [5, 2, 0], [5, 0, 2]]),
    ];
    std::fs::write(
        &stl,
        format!(
            "solid tetrahedron\n{}endsolid tetrahedron\n",
            tetrahedron.concat()
        ),
    )
    .unwrap();
    let broken = dir.path().join("broken.obj");
    std::fs::write(&broken, "v 0 0 0\nv 1 oops 0\n").unwrap();
    let editor = Editor::start(&file);
    editor.open_editor("shape");
    let id = editor.window("Shape editor$");
    editor.xdotool(&["windowfocus", "--sync", &id, "key", "alt+i"]);
    editor.choose_file("Import the convex hull of a mesh", &broken);
    let problem = editor.window("^Problem in the Mesh File$");
    let shown = settled(
        &editor,
        editor.geometry(&problem),
        "the problem shown",
        |_| true,
    );
    write_png(&output_dir("import-problem").join("window.png"), &shown).unwrap();
    editor.xdotool(&["windowfocus", "--sync", &problem, "key", "Escape"]);
    gone(&editor, "^Problem in the Mesh File$");
    editor.xdotool(&["windowfocus", "--sync", &id, "key", "alt+i"]);
    editor.choose_file("Import the convex hull of a mesh", &mesh);
    gone(&editor, "^Import the convex hull");
    editor.xdotool(&["windowfocus", "--sync", &id, "key", "alt+i"]);
    editor.choose_file("Import the convex hull of a mesh", &stl);
    gone(&editor, "^Import the convex hull");
    editor.xdotool(&["windowfocus", "--sync", &id, "key", "alt+d"]);
    let text = wait_for("the imported shape in the text", || {
        let text = editor.text();
        text.contains("shape_set shape1").then_some(text)
    });
    let scene = evaluate(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let shape = scene.shape("shape1").unwrap();
    assert_eq!(shape.parts.len(), 2, "{text}");
    let corners = |k: usize| {
        let part = &shape.parts[k];
        let asgard::scene::model::Geometry::Polyhedron { vertices } = &part.geometry else {
            panic!("not a polyhedron: {text}");
        };
        let mut corners: Vec<[i64; 3]> = vertices
            .iter()
            .map(|v| (part.pos + v).map(|c| (c * 1e6).round() as i64 / 1_000_000))
            .map(|v| [v.x, v.y, v.z])
            .collect();
        corners.sort();
        corners
    };
    assert_eq!(
        corners(1),
        [[5, 0, 0], [5, 0, 2], [5, 2, 0], [7, 0, 0]],
        "the STL file's four vertices: {text}"
    );
    let part = &shape.parts[0];
    let asgard::scene::model::Geometry::Polyhedron { vertices } = &part.geometry else {
        panic!("not a polyhedron: {text}");
    };
    assert_eq!(vertices.len(), 8, "the inner point is dropped: {text}");
    for v in vertices {
        let world = part.pos + v;
        assert!(
            (world.x.abs() - 1.0).abs() < 1e-9
                && ((world.y - 3.0).abs() - 1.0).abs() < 1e-9
                && (world.z.abs() - 1.0).abs() < 1e-9,
            "{world:?} is no corner of the cube: {text}"
        );
    }
}

#[test]
fn save_as_and_the_exports_write_the_files_named_in_the_chooser() {
    let (dir, file) = scene_file(TWO_BALLS);
    let editor = Editor::start(&file);
    let area = drawn_area(&editor);
    let control = editor.window(" — Asgard$");

    let copy = dir.path().join("copy.asg");
    editor.xdotool(&["windowfocus", "--sync", &control, "key", "ctrl+shift+s"]);
    editor.choose_file("Save the scene as", &copy);
    wait_for("the scene saved under the new name", || {
        std::fs::read_to_string(&copy)
            .ok()
            .filter(|text| text == TWO_BALLS)
    });

    // The picture is the graphical viewer's, drawn off-screen: same size, same scene, without
    // the handles (a few hundred pixels of dots).
    let shown = editor.screenshot(area);
    let exported = dir.path().join("picture.png");
    editor.xdotool(&["windowfocus", "--sync", &control, "key", "ctrl+e"]);
    editor.choose_file("Export a picture", &exported);
    let picture = wait_for("the exported picture", || try_read_png(&exported).ok());
    assert_eq!(
        (picture.width, picture.height),
        (shown.width, shown.height),
        "the picture has the viewer's size"
    );
    let differ = differing(&picture, &shown, 24);
    let out = output_dir("export-picture");
    write_png(&out.join("shown.png"), &shown).unwrap();
    write_png(&out.join("exported.png"), &picture).unwrap();
    assert!(
        differ < (shown.width * shown.height / 100) as usize,
        "{differ} pixels differ from the viewer's (see {})",
        out.display()
    );

    // The movie of the whole motion, 2 s at 30 frames per second, written on a thread of its
    // own: done when the file decodes with every frame.
    let movie = dir.path().join("movie.gif");
    editor.xdotool(&["windowfocus", "--sync", &control, "key", "ctrl+shift+e"]);
    editor.choose_file("Export a movie", &movie);
    let frames = wait_for("the movie with all its frames", || {
        gif_frames(&movie).filter(|frames| *frames == 61)
    });
    assert_eq!(frames, 61);

    // glTF: a node and an animation channel per ball.
    let gltf = dir.path().join("scene.gltf");
    editor.xdotool(&["windowfocus", "--sync", &control, "key", "ctrl+alt+e"]);
    editor.choose_file("Export glTF", &gltf);
    let document: serde_json::Value = wait_for("the glTF file", || {
        let text = std::fs::read_to_string(&gltf).ok()?;
        serde_json::from_str(&text).ok()
    });
    let names: Vec<&str> = document["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n["name"].as_str())
        .collect();
    assert!(names.contains(&"a") && names.contains(&"b"), "{names:?}");
    let channels = document["animations"][0]["channels"].as_array().unwrap();
    assert!(channels.len() >= 2, "{channels:?}");
}

/// The number of frames of the GIF at `path`, once it is whole.
fn gif_frames(path: &Path) -> Option<usize> {
    let file = std::fs::File::open(path).ok()?;
    let mut decoder = gif::DecodeOptions::new().read_info(file).ok()?;
    let mut frames = 0;
    while decoder.read_next_frame().ok()?.is_some() {
        frames += 1;
    }
    Some(frames)
}

/// Save over a read-only scene file asks first; Save Anyway replaces it with a version that is
/// read-only too and keeps the old one as the backup.
#[test]
fn saving_over_a_read_only_scene_asks_first() {
    use std::os::unix::fs::PermissionsExt;
    let (dir, file) = scene_file(TWO_BALLS);
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o444)).unwrap();
    let editor = Editor::start(&file);
    type_at_end_and_update(&editor, "# edited\n");
    wait_for("the edit in the scene", || {
        editor.text().contains("# edited").then_some(())
    });
    let control = editor.window(" — Asgard$");
    editor.xdotool(&["windowfocus", "--sync", &control, "key", "ctrl+s"]);
    let question = editor.window("^Read-only File$");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), TWO_BALLS);
    editor.xdotool(&["windowfocus", "--sync", &question, "key", "alt+a"]);
    wait_for("the scene saved over the read-only file", || {
        std::fs::read_to_string(&file)
            .ok()
            .filter(|text| text.contains("# edited"))
    });
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o444, "the saved scene is read-only too");
    let backup = std::fs::read_to_string(dir.path().join("scene.asg~")).unwrap();
    assert_eq!(backup, TWO_BALLS);
}

/// View ▸ Keep this view (Ctrl+Shift+K) writes the view shown, turned by a drag, into the
/// text as the scene's camera, in one undo step; the picture stays as it was.
#[test]
fn keep_this_view_writes_the_camera_into_the_text() {
    let (_dir, file) = scene_file(TWO_BALLS);
    let editor = Editor::start(&file);
    let area = drawn_area(&editor);
    let first = editor.screenshot(area);
    // Turn the view: the left button dragged across the picture.
    let (x, y) = (area.x + area.width / 2, area.y + area.height / 2);
    editor.xdotool(&[
        "mousemove",
        &x.to_string(),
        &y.to_string(),
        "mousedown",
        "1",
    ]);
    for k in 1..=6 {
        let to = (x + 15 * k).to_string();
        editor.xdotool(&["mousemove", &to, &(y + 5 * k).to_string()]);
    }
    editor.xdotool(&["mouseup", "1"]);
    // Turned, and settled: two pictures in a row alike.
    let mut last = first.clone();
    let turned = wait_for("the view turned and settled", || {
        let now = editor.screenshot(area);
        let settled = differing(&now, &first, 24) > 100 && differing(&now, &last, 0) == 0;
        last = now.clone();
        settled.then_some(now)
    });
    let viewer = editor.window("Graphical viewer 1$");
    editor.xdotool(&["windowfocus", "--sync", &viewer, "key", "ctrl+shift+k"]);
    let text = wait_for("the camera in the text over D-Bus", || {
        let text = editor.text();
        text.contains("camera pos").then_some(text)
    });
    assert!(
        text.starts_with(TWO_BALLS),
        "only a command is added:\n{text}"
    );
    let scene = evaluate(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let camera = scene.camera.expect("a camera element");
    assert!(
        matches!(&camera.rot, asgard::scene::model::CameraValue::Constant(r) if r.value.norm() > 0.05),
        "the turned view's rotation is kept: {text}"
    );
    // The viewer now follows the scene's camera, which is the view it showed.
    wait_for("the picture drawn from the scene's camera", || {
        (differing(&editor.screenshot(area), &turned, 24) < 200).then_some(())
    });
    editor.xdotool(&["windowfocus", "--sync", &viewer, "key", "ctrl+z"]);
    wait_for("one undo to take the camera out", || {
        (editor.text() == TWO_BALLS).then_some(())
    });
}

/// The control panel's Camera fields: where the camera stands and the point it looks at, typed
/// and entered, become the scene's camera command (one undo step), and the graphical viewer,
/// not moved by the user, shows the view from there: the ball looked at in the middle.
#[test]
fn a_camera_typed_in_the_control_panel_is_written_into_the_text() {
    let (_dir, file) = scene_file(TWO_BALLS);
    let editor = Editor::start(&file);
    let area = drawn_area(&editor);
    let first = editor.screenshot(area);
    let control = editor.window(" — Asgard$");
    editor.xdotool(&["windowfocus", "--sync", &control, "key", "alt+o"]);
    for (k, value) in ["4", "3", "12", "4", "0", "0"].into_iter().enumerate() {
        let to = match k {
            0 => "ctrl+a",
            3 => "alt+a",
            _ => "Tab",
        };
        editor.xdotool(&["key", to, "ctrl+a"]);
        editor.xdotool(&["type", "--delay", "20", value]);
    }
    editor.xdotool(&["key", "Return"]);
    let text = wait_for("the camera in the text over D-Bus", || {
        let text = editor.text();
        text.contains("camera pos").then_some(text)
    });
    assert!(
        text.starts_with(TWO_BALLS) && text.ends_with(" center {4 0 0} scale 1\n"),
        "only a camera command is added:\n{text}"
    );
    assert!(text.contains("camera pos {4 3 12} rot {"), "{text}");
    let scene = evaluate(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let (camera, viewport) = first_view(&scene, area);
    let ball = camera
        .project(&Point3::new(4.0, 0.0, 0.0), &viewport)
        .unwrap();
    assert!(
        (ball.x - viewport.width / 2.0).abs() < 0.5 && (ball.y - viewport.height / 2.0).abs() < 0.5,
        "the camera looks at ball b: {ball:?}"
    );
    let shown = wait_for("the picture drawn from the typed camera", || {
        let now = editor.screenshot(area);
        (differing(&now, &first, 24) > 1000).then_some(now)
    });
    write_png(&output_dir("camera-fields").join("typed.png"), &shown).unwrap();
    let viewer = editor.window("Graphical viewer 1$");
    editor.xdotool(&["windowfocus", "--sync", &viewer, "key", "ctrl+z"]);
    wait_for("one undo to take the camera out", || {
        (editor.text() == TWO_BALLS).then_some(())
    });
}

/// A viewer not looking through the scene's camera shows it: a marker where it stands and one
/// on the point it looks at, joined by a line. Shift and the left button drag the position;
/// the camera command is written again, still looking at its point, in one undo step.
#[test]
fn dragging_the_cameras_position_rewrites_its_command() {
    let (_dir, file) = scene_file(TWO_BALLS);
    let editor = Editor::start(&file);
    let area = drawn_area(&editor);
    let (mut camera, viewport) = first_view(&evaluate(TWO_BALLS).unwrap(), area);
    // The middle button moves the view, which the viewer then keeps when a camera comes.
    let press = (area.x + area.width / 2, area.y + area.height / 2);
    let release = (press.0 - 40, press.1 - 30);
    editor.xdotool(&["mousemove", &press.0.to_string(), &press.1.to_string()]);
    editor.xdotool(&["mousedown", "2"]);
    for k in 1..=4 {
        let x = press.0 + (release.0 - press.0) * k / 4;
        let y = press.1 + (release.1 - press.1) * k / 4;
        editor.xdotool(&["mousemove", &x.to_string(), &y.to_string()]);
    }
    editor.xdotool(&["mouseup", "2"]);
    let in_picture = |(x, y): (i32, i32)| Point2::new(f64::from(x - area.x), f64::from(y - area.y));
    camera.translate_in_screen_plane(in_picture(press), in_picture(release), &viewport);
    let before = editor.screenshot(area);

    let placed = Looking {
        from: Vector3::new(1.0, 1.5, -1.0),
        at: Vector3::new(2.0, 0.0, 0.0),
    };
    let with_camera = format!(
        "{TWO_BALLS}camera pos {{1 1.5 -1}} rot {} center {{2 0 0}}\n",
        vector(&placed.rotation().unwrap())
    );
    editor.set_text(&with_camera);
    let on_screen = |p: Vector3<f64>| {
        let seen = camera.project(&Point3::from(p), &viewport).unwrap();
        (
            area.x + seen.x.round() as i32,
            area.y + seen.y.round() as i32,
        )
    };
    let marker = on_screen(placed.from);
    let looked_at = on_screen(placed.at);
    let inside = |(x, y): (i32, i32)| {
        (area.x + 20..area.x + area.width - 80).contains(&x)
            && (area.y + 20..area.y + area.height - 40).contains(&y)
    };
    assert!(
        inside(marker) && inside(looked_at),
        "{marker:?} {looked_at:?} in {area:?}"
    );
    // The markers and the line between them are drawn where this view puts them.
    let colour = CAMERA.map(|c| (c * 255.0).round() as u8);
    let out = output_dir("camera-handles");
    let shown = wait_for("the camera's markers drawn", || {
        let now = editor.screenshot(area);
        let near = |(x, y): (i32, i32)| {
            pixels_near_at(
                &now,
                (x - area.x, y - area.y),
                6,
                colour[..3].try_into().unwrap(),
                60,
            )
        };
        (near(marker) > 10 && differing(&now, &before, 24) > 30).then_some(now)
    });
    write_png(&out.join("shown.png"), &shown).unwrap();

    let to = (marker.0 + 50, marker.1 + 20);
    shift_drag(&editor, marker, to);
    let text = wait_for("the camera moved under the pointer in the text", || {
        let text = editor.text();
        let scene = evaluate(&text).ok()?;
        let now = looking(scene.camera.as_ref()?).ok()?;
        let seen = camera.project(&Point3::from(now.from), &viewport)?;
        let off = (seen.x - f64::from(to.0 - area.x)).hypot(seen.y - f64::from(to.1 - area.y));
        (off < 1.5).then_some(text)
    });
    write_png(&out.join("dragged.png"), &editor.screenshot(area)).unwrap();
    assert!(
        text.starts_with(&format!("{TWO_BALLS}camera pos {{"))
            && text.ends_with(" center {2 0 0} scale 1\n")
            && text.matches("camera ").count() == 1,
        "the camera command alone is written again:\n{text}"
    );
    let scene = evaluate(&text).unwrap();
    let now = looking(scene.camera.as_ref().unwrap()).unwrap();
    assert!(
        (now.at - placed.at).norm() < 1e-4,
        "it still looks at its point: {text}"
    );
    let viewer = editor.window("Graphical viewer 1$");
    editor.xdotool(&["windowfocus", "--sync", &viewer, "key", "ctrl+z"]);
    wait_for("one undo to take the drag back", || {
        (editor.text() == with_camera).then_some(())
    });
}

/// How many pixels of `picture` within `radius` of `at` are within `tolerance` of `colour`.
fn pixels_near_at(
    picture: &RgbaImage,
    at: (i32, i32),
    radius: i32,
    colour: [u8; 3],
    tolerance: u8,
) -> usize {
    let mut count = 0;
    for y in at.1 - radius..=at.1 + radius {
        for x in at.0 - radius..=at.0 + radius {
            let (Ok(px), Ok(py)) = (u32::try_from(x), u32::try_from(y)) else {
                continue;
            };
            if picture
                .pixel(px, py)
                .is_some_and(|p| (0..3).all(|i| p[i].abs_diff(colour[i]) <= tolerance))
            {
                count += 1;
            }
        }
    }
    count
}

/// The viewer's transport keys land where a video player's do: End shows the finish, Left
/// steps one `simulator step` back, `]` doubles the speed and `r` reverses it, space plays
/// backwards to the start, and Right steps forward; the time and rate are read from the
/// viewer's `time` and `rate` actions over D-Bus.
#[test]
fn reverse_playback_rate_and_step_land_on_the_expected_times() {
    let (_dir, file) = scene_file(TWO_BALLS);
    let editor = Editor::start(&file);
    let area = drawn_area(&editor);
    let viewer = editor.window("Graphical viewer 1$");
    // A click on the picture gives it the keys (Left and Right step only there).
    let (x, y) = (area.x + area.width / 2, area.y + area.height / 2);
    editor.xdotool(&["windowfocus", "--sync", &viewer]);
    editor.xdotool(&["mousemove", &x.to_string(), &y.to_string(), "click", "1"]);
    let reaches = |what: &str, name: &str, value: f64| {
        wait_for(what, || {
            ((editor.viewer_value(name) - value).abs() < 1e-9).then_some(())
        })
    };
    editor.xdotool(&["key", "End"]);
    reaches("the finish after End", "time", 2.0);
    editor.xdotool(&["key", "Left", "Left"]);
    reaches("two steps back from the finish", "time", 1.9);
    editor.xdotool(&["key", "bracketright", "r"]);
    reaches("twice the speed, backwards", "rate", -2.0);
    // Simulate (playback waits for the run), then play: backwards to the start.
    editor.xdotool(&["key", "ctrl+r", "space"]);
    reaches("playing backwards to the start", "time", 0.0);
    editor.xdotool(&["key", "Right"]);
    reaches("a step forward from the start", "time", 0.05);
}

/// A trajectory's points are shown with their handles in a new viewer; Shift and the middle
/// button on one, dragged sideways, add a point after it, which the text has at once.
#[test]
fn a_trajectory_point_added_graphically_appears_in_the_text() {
    const PATH: &str = "simulator finish 2 step 0.05
shape_set ball desc {sphere 0.5}
body a shape ball init_pos {0 0 0}
body b shape ball init_pos {4 0 0}
trajectory path points {{0 0 2 0} {1 4 2 0}}
";
    let (_dir, file) = scene_file(PATH);
    let editor = Editor::start(&file);
    let scene = evaluate(PATH).unwrap();
    let area = drawn_area(&editor);
    let (camera, viewport) = first_view(&scene, area);
    let seen = camera
        .project(&Point3::new(4.0, 2.0, 0.0), &viewport)
        .unwrap();
    let at = (
        area.x + seen.x.round() as i32,
        area.y + seen.y.round() as i32,
    );
    editor.xdotool(&["mousemove", &at.0.to_string(), &at.1.to_string()]);
    editor.xdotool(&["keydown", "shift", "mousedown", "2"]);
    for k in 1..=6 {
        let x = (at.0 + 10 * k).to_string();
        editor.xdotool(&["mousemove", &x, &at.1.to_string()]);
    }
    editor.xdotool(&["mouseup", "2", "keyup", "shift"]);
    let text = wait_for("a third point of path in the text over D-Bus", || {
        let text = editor.text();
        let points = evaluate(&text).ok()?.trajectories[0].pieces[0].points.len();
        (points == 3).then_some(text)
    });
    assert!(
        text.starts_with("simulator finish 2 step 0.05\nshape_set ball desc {sphere 0.5}\n"),
        "only the trajectory's command changes:\n{text}"
    );
    assert!(
        text.contains("trajectory path points {{0 0 2 0} {1 4 2 0} {"),
        "{text}"
    );
}

/// The trajectory editor's fields under the charts take a point's time and coordinates:
/// typed and entered, they are written into the text, and one undo takes both back.
#[test]
fn a_trajectory_points_typed_time_and_coordinates_are_one_undo_step() {
    const PATH: &str = "simulator finish 2 step 0.05
shape_set ball desc {sphere 0.5}
body a shape ball init_pos {0 0 0}
trajectory path points {{0 0 2 0} {1 4 2 0}}
";
    let (_dir, file) = scene_file(PATH);
    let editor = Editor::start(&file);
    editor.open_editor("trajectory");
    let id = editor.window("Trajectory editor$");
    // The first point is shown; its time (Alt+T) and y (Alt+Y) typed over, then Enter.
    editor.xdotool(&["windowfocus", "--sync", &id, "key", "alt+t", "ctrl+a"]);
    editor.xdotool(&["type", "0.25"]);
    editor.xdotool(&["key", "alt+y", "ctrl+a"]);
    editor.xdotool(&["type", "--", "-1.5"]);
    editor.xdotool(&["key", "Return"]);
    let text = wait_for("the typed values in the text over D-Bus", || {
        let text = editor.text();
        let scene = evaluate(&text).ok()?;
        let point = scene.trajectories[0].pieces[0].points[0].clone();
        (point.time == 0.25).then_some(text)
    });
    let scene = evaluate(&text).unwrap();
    let points = &scene.trajectories[0].pieces[0].points;
    assert_eq!(
        points[0].pos,
        asgard::scene::model::Vec3::new(0.0, -1.5, 0.0),
        "{text}"
    );
    assert_eq!(
        points[1].pos,
        asgard::scene::model::Vec3::new(4.0, 2.0, 0.0),
        "{text}"
    );
    assert!(
        text.starts_with(&PATH[..PATH.find("trajectory").unwrap()]),
        "{text}"
    );
    // Undo, from the graphical viewer (the field would take Ctrl+Z itself).
    let viewer = editor.window("Graphical viewer 1$");
    editor.xdotool(&["windowfocus", "--sync", &viewer, "key", "ctrl+z"]);
    wait_for("one undo to restore the point", || {
        (editor.text() == PATH).then_some(())
    });
}

/// How many pixels of `picture` are orange, as the projectile's ball is drawn lit and shaded.
fn orange_pixels(picture: &RgbaImage) -> usize {
    picture
        .pixels
        .chunks_exact(4)
        .filter(|p| p[0] > 150 && p[1] > 60 && p[1] < 190 && p[2] < 60 && p[0] > p[1] + 40)
        .count()
}

/// Chooses item `item` (from 0) of the control panel's Create menu, then clicks in the
/// first graphical viewer where it shows `point` of the scene, until the text holds
/// `expected`; returns the text. The prompt may take a moment to be set: a click before it
/// selects instead, and the next click answers the prompt.
fn create_by_click(editor: &Editor, item: usize, point: Point3<f64>, expected: &str) -> String {
    let area = drawn_area(editor);
    let scene = evaluate(&editor.text()).unwrap();
    let (camera, viewport) = first_view(&scene, area);
    let seen = camera.project(&point, &viewport).unwrap();
    let at = (
        (area.x + seen.x.round() as i32).to_string(),
        (area.y + seen.y.round() as i32).to_string(),
    );
    // The Create menu opens on its first item.
    let control = editor.window(" — Asgard$");
    editor.xdotool(&["windowfocus", "--sync", &control]);
    editor.xdotool(&["key", "--delay", "300", "F10", "Right", "Right", "Right"]);
    for _ in 0..item {
        editor.xdotool(&["key", "--delay", "300", "Down"]);
    }
    editor.xdotool(&["key", "--delay", "300", "Return"]);
    wait_for(&format!("{expected} in the text after a click"), || {
        editor.xdotool(&["mousemove", &at.0, &at.1, "click", "1"]);
        (0..20).find_map(|_| {
            let text = editor.text();
            if text.contains(expected) {
                return Some(text);
            }
            std::thread::sleep(Duration::from_millis(100));
            None
        })
    })
}

/// The first hour (issue 26): the projectile's 0.4 m ball on its 30 m floor is shown at a
/// useful size; Create ▸ Body puts a new ball on the floor where it is clicked, resting on it
/// (not at the origin, not inside the floor), and the view takes the new ball in.
#[test]
fn a_new_body_rests_on_the_clicked_floor_and_the_view_follows() {
    let file = example("projectile.asg");
    let editor = Editor::start(&file);
    let area = drawn_area(&editor);
    let first = editor.screenshot(area);
    let ball = orange_pixels(&first);
    assert!(ball > 3000, "the ball is {ball} pixels: too small to see");
    // Create ▸ Body of shape ▸ ball (the first item), on a point of the floor's top beside
    // the ball.
    let text = create_by_click(&editor, 0, Point3::new(0.9, 0.0, 0.4), "body b1");
    let placed = evaluate(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let b1 = placed.body("b1").unwrap().init_pos.value;
    // On the floor's top (y = 0), the ball's radius 0.2 above it, where it was clicked.
    assert!((b1.y - 0.2).abs() < 1e-3, "{text}");
    assert!(
        (b1.x - 0.9).abs() < 0.05 && (b1.z - 0.4).abs() < 0.05,
        "{text}"
    );
    assert!(asgard::scene::starting_overlap(&placed).is_none(), "{text}");
    // The view is fitted again, around both balls: the new one is drawn where the fitted
    // view puts it.
    let (camera, viewport) = first_view(&placed, area);
    let top = camera
        .project(&Point3::new(b1.x, b1.y + 0.12, b1.z), &viewport)
        .unwrap();
    let near_top = Rect {
        x: area.x + top.x.round() as i32 - 2,
        y: area.y + top.y.round() as i32 - 2,
        width: 5,
        height: 5,
    };
    wait_for("the new ball drawn in the refitted view", || {
        (orange_pixels(&editor.screenshot(near_top)) >= 20).then_some(())
    });
}

/// The first hour (issue 26): what the user adds is shown in full in the language viewer. A
/// body and a trajectory made with the Create menu and a shape set written by the shape
/// editor appear in its text, the long lists among them not folded behind their icons, while
/// the floor's shape, folded when the scene opened, stays folded. The viewer's `fold` action
/// reports and changes which are folded.
#[test]
fn new_elements_are_shown_unfolded_in_the_language_viewer() {
    const FLOOR: &str = "simulator finish 1
shape_set ball desc {sphere 0.2 color orange}
shape_set slab desc {sub pos {0 0 0} box {30 0.5 6} color {0.5 0.5 0.5}}
body ground shape slab init_pos {10 -0.25 0} fixed 1
body ball shape ball init_pos {0 0.25 0}
";
    let (_dir, file) = scene_file(FLOOR);
    let editor = Editor::start(&file);
    let folds = |expected: &[(&str, bool)]| {
        let expected: std::collections::BTreeMap<String, bool> = expected
            .iter()
            .map(|&(name, folded)| (name.to_owned(), folded))
            .collect();
        wait_for(
            &format!("the language viewer's folds to be {expected:?}"),
            || (editor.folds() == expected).then_some(()),
        );
    };
    folds(&[("shape_set slab", true)]);
    // Create ▸ Body of shape ▸ ball, then Create ▸ Trajectory (after the two shapes and the
    // eight force, torque and link items), each clicked on the floor.
    create_by_click(&editor, 0, Point3::new(0.9, 0.0, 0.4), "body b1");
    let text = create_by_click(
        &editor,
        10,
        Point3::new(0.45, 0.0, -0.3),
        "trajectory path1",
    );
    // On the floor is at height 0, not at the ray's rounding residue (1e-16).
    let line = text.lines().find(|l| l.starts_with("trajectory path1"));
    assert!(
        line.is_some_and(|line| line.contains(" 0 ") && !line.contains("e-")),
        "the clicked point is written as a person would type it: {line:?}"
    );
    // Shapes ▸ New shape: a sphere and a box, Done.
    editor.open_editor("shape");
    let id = editor.window("Shape editor$");
    editor.xdotool(&[
        "windowfocus",
        "--sync",
        &id,
        "key",
        "alt+s",
        "alt+b",
        "alt+d",
    ]);
    let text = wait_for("the new shape in the text", || {
        let now = editor.text();
        (now.contains("shape_set shape1") && now != text).then_some(now)
    });
    let points = evaluate(&text).unwrap().trajectories[0].pieces[0]
        .span
        .unwrap();
    assert!(
        points.len() >= asgard::ui::language::literals::ELIDE_FROM,
        "the new trajectory's points are too short to be folded: {text}"
    );
    folds(&[
        ("shape_set shape1", false),
        ("shape_set slab", true),
        ("trajectory path1 points 1", false),
    ]);
    let (viewer, _) = click_into_language_viewer(&editor);
    write_png(
        &output_dir("new-elements-unfolded").join("language-viewer.png"),
        &editor.screenshot(editor.geometry(&viewer)),
    )
    .unwrap();
    // The action folds and unfolds by name, as the icons do.
    editor.fold("shape_set slab");
    editor.fold("shape_set shape1");
    folds(&[
        ("shape_set shape1", true),
        ("shape_set slab", false),
        ("trajectory path1 points 1", false),
    ]);
    assert!(text.contains("\nbody b1 shape ball init_pos {"), "{text}");
}

/// A scene with an error opens anyway: its text, as in the file, in the language viewer (so
/// nothing is lost), the error in a window saying FILE:LINE:COLUMN, and in the control
/// panel's and the viewer's status lines.
#[test]
fn a_scene_with_an_error_opens_as_text_with_a_window_saying_where() {
    const BROKEN: &str = "shape_set ball desc {sphere 0.5}\nbody a shape ball init_pos {0 0 0\n";
    let (_dir, file) = scene_file(BROKEN);
    let editor = Editor::start(&file);
    editor.window("^Problem in the Scene$");
    assert_eq!(editor.text(), BROKEN);
    assert_eq!(editor.status(), "error");
}

/// A scene file that is not UTF-8 is not opened (its text could not be kept as it is): a
/// window says so and where, and the editor exits with a failure once it is closed.
#[test]
fn a_scene_file_that_is_not_utf8_is_refused_with_a_window_saying_where() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("latin1.asg");
    std::fs::write(&file, b"shape_set ball desc {sphere 1}\n# caf\xe9\n").unwrap();
    let (success, stderr) = refused(&file, "^Problem in the Scene$");
    assert!(!success);
    assert!(
        stderr.contains(&format!(
            "{}:2:6: error: cannot read the scene: byte 0xE9 is not UTF-8",
            file.display()
        )),
        "{stderr}"
    );
}

/// The control panel's settings (Alt and the underlined letter reaches each) are written into
/// the scene's `simulator` command, one undo step each; a value the scene refuses is not.
#[test]
fn simulation_settings_typed_in_the_control_panel_are_written_into_the_text() {
    let (_dir, file) = scene_file(TWO_BALLS);
    let editor = Editor::start(&file);
    let control = editor.window(" — Asgard$");
    let set = |field: &str, value: &str| {
        editor.xdotool(&["windowfocus", "--sync", &control, "key", field, "ctrl+a"]);
        editor.xdotool(&["type", "--delay", "20", "--", value]);
        editor.xdotool(&["key", "Return"]);
    };
    let settled = |what: &str, done: &dyn Fn(&Scene) -> bool| {
        wait_for(what, || {
            let text = editor.text();
            evaluate(&text).ok().filter(|s| done(s)).map(|_| text)
        })
    };
    set("alt+n", "3");
    let text = settled("finish 3", &|s| s.simulator.finish == 3.0);
    assert_eq!(text, TWO_BALLS.replace("finish 2", "finish 3"));
    // The finish before the start is refused: the text keeps finish 3, and the next setting
    // is written beside it.
    set("alt+n", "-1");
    set("alt+t", "0.000001");
    let text = settled("tolerance 1e-6", &|s| s.simulator.tolerance == 1e-6);
    assert!(
        text.starts_with("simulator finish 3 step 0.05 tolerance "),
        "{text}"
    );
    set("alt+r", "0.5");
    settled("live_rate 0.5", &|s| s.simulator.live_rate == 0.5);
    let viewer = editor.window("Graphical viewer 1$");
    editor.xdotool(&["windowfocus", "--sync", &viewer, "key", "ctrl+z"]);
    wait_for("one undo to take live_rate out", || {
        (editor.text() == text).then_some(())
    });
}
