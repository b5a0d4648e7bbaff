//! Off-screen rendering of synthetic frames, checked by pixel probes. The pictures are also
//! written under target/tmp/render/offscreen/ for people to look at.

mod render_support;

use asgard::render::camera::Camera;
use asgard::render::frame::{Frame, Ground, Handle, Light, Line, Looks};
use asgard::render::image::{write_png, RgbaImage};
use asgard::render::offscreen::{OffscreenError, OffscreenTarget};
use asgard::render::renderer::RenderError;
use asgard::render::shader::ShaderDialect;
use nalgebra::{Point3, Unit, UnitQuaternion, Vector3};
use render_support::golden::intermediate_pixels;
use render_support::*;

const WIDTH: u32 = 320;
const HEIGHT: u32 = 240;

fn target() -> OffscreenTarget {
    let mut target = OffscreenTarget::new(WIDTH, HEIGHT).expect("off-screen EGL context");
    target.upload_missing(&library()).unwrap();
    target
}

/// Keeps a picture under target/tmp/render/offscreen/ for people to look at.
fn save(image: &RgbaImage, name: &str) {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("render/offscreen");
    std::fs::create_dir_all(&dir).unwrap();
    write_png(&dir.join(format!("{name}.png")), image).unwrap();
}

fn rgb(image: &RgbaImage, x: u32, y: u32) -> [i32; 3] {
    let [r, g, b, _] = image.pixel(x, y).unwrap();
    [r as i32, g as i32, b as i32]
}

fn assert_near(found: [i32; 3], expected: [i32; 3], tolerance: i32, what: &str) {
    assert!(
        found
            .iter()
            .zip(expected)
            .all(|(f, e)| (f - e).abs() <= tolerance),
        "{what}: found {found:?}, expected {expected:?}"
    );
}

const BACKGROUND: [f32; 4] = [0.1, 0.2, 0.3, 1.0];
const BACKGROUND_RGB: [i32; 3] = [26, 51, 77];

/// The cube's front face (colour 0.6, 0.3, 0.2) under the default light: the sky's light
/// (ambient 0.38 × the mean of sky (1.12, 1.12, 1.16) and ground bounce (0.62, 0.58, 0.55)
/// for a face turned sideways) plus the light (0.8, 0.8, 0.78) from above at
/// cos = 0.55 / |(0.45, −1, −0.55)| = 0.448 to the face.
const FRONT_FACE: [i32; 3] = [105, 52, 34];

fn cube_frame() -> Frame {
    Frame {
        objects: vec![object(CUBE, [0.0, 0.0, 0.0], [0.6, 0.3, 0.2, 1.0])],
        camera: front_camera(),
        background: BACKGROUND,
        ..Frame::default()
    }
}

#[test]
fn background_where_nothing_is_and_shaded_colour_where_the_object_is() {
    let mut target = target();
    let image = target.render(&cube_frame()).unwrap();
    save(&image, "cube");
    assert_eq!((image.width, image.height), (WIDTH, HEIGHT));
    assert_near(rgb(&image, 5, 5), BACKGROUND_RGB, 1, "corner");
    assert_near(
        rgb(&image, WIDTH - 5, HEIGHT - 5),
        BACKGROUND_RGB,
        1,
        "corner",
    );
    assert_near(
        rgb(&image, WIDTH / 2, HEIGHT / 2),
        FRONT_FACE,
        2,
        "front face",
    );
    assert_eq!(image.pixel(WIDTH / 2, HEIGHT / 2).unwrap()[3], 255);
}

#[test]
fn rows_run_from_top_to_bottom() {
    let mut target = target();
    let mut frame = cube_frame();
    frame.objects[0].pose.translation.vector.y = 1.0;
    let image = target.render(&frame).unwrap();
    // The cube moved up in the world, so it appears in the upper half of the picture.
    assert_near(
        rgb(&image, WIDTH / 2, HEIGHT / 2 - 55),
        FRONT_FACE,
        2,
        "upper half",
    );
    assert_near(
        rgb(&image, WIDTH / 2, HEIGHT / 2 + 55),
        BACKGROUND_RGB,
        1,
        "lower half",
    );
}

#[test]
fn lambert_shading_follows_the_light() {
    let mut target = target();
    let mut frame = cube_frame();
    // Light arriving at 60° from the face normal: cos = 0.5.
    frame.lights = vec![Light::Directional {
        direction: Unit::new_normalize(Vector3::new(0.0, -(3f64.sqrt()), -1.0)),
        colour: [1.0, 1.0, 1.0],
    }];
    let image = target.render(&frame).unwrap();
    assert_near(
        rgb(&image, WIDTH / 2, HEIGHT / 2),
        [127, 63, 42],
        2,
        "front face at 60°",
    );
    // A point light behind the cube leaves only ambient light on the front face.
    frame.lights = vec![Light::Point {
        position: Point3::new(0.0, 0.0, -5.0),
        colour: [1.0, 1.0, 1.0],
    }];
    let image = target.render(&frame).unwrap();
    assert_near(
        rgb(&image, WIDTH / 2, HEIGHT / 2),
        [51, 25, 17],
        2,
        "front face unlit",
    );
}

#[test]
fn a_handle_shows_on_top_of_a_body_in_front_of_it() {
    let mut target = target();
    let mut frame = cube_frame();
    frame.handles.push(Handle {
        position: Point3::new(0.0, 0.0, -1.0),
        colour: [0.0, 0.8, 0.0, 1.0],
        highlighted: false,
    });
    let image = target.render(&frame).unwrap();
    save(&image, "handle-behind-cube");
    // The handle's centre, lit by the handles' own light from the upper left in front:
    // 0.8 green × (0.45 + 0.6 × 0.76). Behind the cube, it still shows.
    let [r, g, b] = rgb(&image, WIDTH / 2, HEIGHT / 2);
    assert!(
        r < 10 && b < 10 && (160..200).contains(&g),
        "handle: {:?}",
        [r, g, b]
    );
    // The handle is small: 20 pixels away the cube shows.
    assert_near(
        rgb(&image, WIDTH / 2 + 20, HEIGHT / 2),
        FRONT_FACE,
        2,
        "cube beside handle",
    );
}

#[test]
fn wireframe_leaves_the_interior_background() {
    let mut target = target();
    let mut frame = cube_frame();
    frame.wireframe = true;
    let image = target.render(&frame).unwrap();
    save(&image, "cube-wireframe");
    assert_near(
        rgb(&image, WIDTH / 2, HEIGHT / 2),
        BACKGROUND_RGB,
        1,
        "interior",
    );
    // Walking right from the centre meets the front face's right edge in the cube's colour.
    let background = rgb(&image, 0, 0);
    let edge: Vec<u32> = (WIDTH / 2..WIDTH)
        .filter(|&x| rgb(&image, x, HEIGHT / 2) != background)
        .collect();
    assert!(!edge.is_empty(), "no edge found");
    assert_near(
        rgb(&image, edge[0], HEIGHT / 2),
        [153, 77, 51],
        30,
        "edge colour",
    );
}

/// The pixels of row `y` within `tolerance` of `colour`.
fn count_in_row(image: &RgbaImage, y: u32, colour: [i32; 3], tolerance: i32) -> usize {
    (0..image.width)
        .filter(|&x| {
            rgb(image, x, y)
                .iter()
                .zip(colour)
                .all(|(c, e)| (c - e).abs() <= tolerance)
        })
        .count()
}

#[test]
fn selected_and_hovered_bodies_get_a_rim_and_an_outline() {
    let mut target = target();
    let mut frame = cube_frame();
    frame.looks = Looks::NONE;
    let plain = target.render(&frame).unwrap();
    frame.objects[0].selected = true;
    let selected = target.render(&frame).unwrap();
    save(&selected, "cube-selected");
    frame.objects[0].selected = false;
    frame.objects[0].hovered = true;
    let hovered = target.render(&frame).unwrap();
    save(&hovered, "cube-hovered");
    // An outline of a few pixels around the silhouette, in the selection's amber (1, 0.62,
    // 0.08) or the hover's light blue (0.45, 0.78, 1).
    let amber = count_in_row(&selected, HEIGHT / 2, [255, 158, 20], 3);
    assert!((3..=10).contains(&amber), "{amber} amber outline pixels");
    assert_eq!(count_in_row(&plain, HEIGHT / 2, [255, 158, 20], 3), 0);
    let blue = count_in_row(&hovered, HEIGHT / 2, [115, 199, 255], 3);
    assert!((2..=8).contains(&blue), "{blue} blue outline pixels");
    // The face seen head on keeps its colour; towards its edge the rim tints it.
    let centre = |image: &RgbaImage| rgb(image, WIDTH / 2, HEIGHT / 2);
    assert_eq!(centre(&selected), centre(&plain));
}

#[test]
fn lines_are_drawn_in_their_colour() {
    let mut target = target();
    let frame = Frame {
        lines: vec![Line {
            from: Point3::new(-2.0, 0.0, 0.0),
            to: Point3::new(2.0, 0.0, 0.0),
            colour: [1.0, 1.0, 0.0, 1.0],
        }],
        camera: front_camera(),
        background: BACKGROUND,
        ..Frame::default()
    };
    let image = target.render(&frame).unwrap();
    let yellow =
        (HEIGHT / 2 - 1..=HEIGHT / 2).any(|y| rgb(&image, WIDTH / 2 + 40, y) == [255, 255, 0]);
    assert!(yellow, "no yellow line pixel near the middle row");
}

#[test]
fn lines_show_over_the_ground_in_their_colour() {
    let mut target = target();
    let mut frame = stage_frame(Looks::ALL);
    frame.lines.push(Line {
        from: Point3::new(0.0, 0.6, 0.5),
        to: Point3::new(2.5, 0.9, 0.5),
        colour: [0.85, 0.1, 0.55, 1.0],
    });
    let image = target.render(&frame).unwrap();
    save(&image, "stage-line");
    // Where the line crosses the ground beside the cube, it shows in its own colour: the
    // anti-aliasing pass keeps line pixels as they are.
    let (x, y) = seen(&frame, Point3::new(2.0, 0.84, 0.5));
    let found = (y - 2..=y + 2).any(|y| rgb(&image, x, y) == [217, 26, 140]);
    assert!(found, "no line pixel near ({x}, {y})");
}

#[test]
fn showcase_scene_renders_every_kind_of_element() {
    let mut target = target();
    let frame = showcase();
    let image = target.render(&frame).unwrap();
    save(&image, "showcase");
    let distinct: std::collections::HashSet<[u8; 4]> = image
        .pixels
        .chunks_exact(4)
        .map(|p| [p[0], p[1], p[2], p[3]])
        .collect();
    assert!(
        distinct.len() > 100,
        "picture looks flat: {} colours",
        distinct.len()
    );
    let mut wire = frame.clone();
    wire.wireframe = true;
    save(&target.render(&wire).unwrap(), "showcase-wireframe");
}

#[test]
fn resizing_changes_the_picture_size() {
    let mut target = target();
    target.resize(64, 48).unwrap();
    let image = target.render(&cube_frame()).unwrap();
    assert_eq!(
        (image.width, image.height, image.pixels.len()),
        (64, 48, 64 * 48 * 4)
    );
    assert_near(
        rgb(&image, 32, 24),
        FRONT_FACE,
        2,
        "front face after resize",
    );
    assert!(matches!(
        target.resize(0, 10),
        Err(OffscreenError::BadSize { .. })
    ));
}

#[test]
fn a_missing_mesh_is_an_error_naming_the_object() {
    let mut target = OffscreenTarget::new(16, 16).unwrap();
    let error = target.render(&cube_frame()).unwrap_err();
    assert_eq!(
        error,
        OffscreenError::Render(RenderError::MissingMesh {
            key: CUBE,
            object: 0
        })
    );
    assert!(error.to_string().contains("object 0"));
}

#[test]
fn two_targets_on_one_thread_keep_their_own_state() {
    let mut a = target();
    let mut b = OffscreenTarget::new(32, 32).unwrap();
    b.upload_missing(&library()).unwrap();
    let first = a.render(&cube_frame()).unwrap();
    let small = b.render(&cube_frame()).unwrap();
    let again = a.render(&cube_frame()).unwrap();
    assert_eq!(first, again);
    assert_eq!((small.width, small.height), (32, 32));
}

#[test]
fn non_finite_input_draws_without_panicking() {
    let mut target = target();
    let mut frame = cube_frame();
    frame
        .objects
        .push(object(CUBE, [f64::NAN, 0.0, f64::INFINITY], [1.0; 4]));
    frame.handles.push(Handle {
        position: Point3::new(f64::NAN, 1.0, 1.0),
        colour: [1.0; 4],
        highlighted: true,
    });
    frame.camera.scale = 0.0;
    target.render(&frame).unwrap();
    let mut frame = cube_frame();
    frame
        .objects
        .push(object(CUBE, [f64::NAN, 0.0, 0.0], [1.0; 4]));
    let image = target.render(&frame).unwrap();
    assert_near(
        rgb(&image, WIDTH / 2, HEIGHT / 2),
        FRONT_FACE,
        2,
        "cube beside a NaN object",
    );
}

#[test]
fn the_same_shaders_draw_the_same_picture_on_opengl_es() {
    let mut es = OffscreenTarget::with_dialect(WIDTH, HEIGHT, ShaderDialect::Gles30)
        .expect("off-screen OpenGL ES 3.0 context");
    es.upload_missing(&library()).unwrap();
    let image = es.render(&cube_frame()).unwrap();
    assert_near(
        rgb(&image, WIDTH / 2, HEIGHT / 2),
        FRONT_FACE,
        2,
        "front face on ES",
    );
    let frame = showcase();
    let on_es = es.render(&frame).unwrap();
    save(&on_es, "showcase-gles");
    let on_gl = target().render(&frame).unwrap();
    let differing = on_es
        .pixels
        .chunks_exact(4)
        .zip(on_gl.pixels.chunks_exact(4))
        .filter(|(a, b)| a.iter().zip(b.iter()).any(|(x, y)| x.abs_diff(*y) > 2))
        .count();
    assert!(
        differing < 50,
        "{differing} pixels differ between OpenGL and OpenGL ES"
    );
}

// ---------------------------------------------------------------------------------------
// Looks: shadows, ground and grid, anti-aliasing, the gizmo

/// A cube floating 0.1 over a ground with its grid, lit from the upper left, seen from in
/// front and above.
fn stage_frame(looks: Looks) -> Frame {
    Frame {
        objects: vec![object(CUBE, [0.0, 0.6, 0.0], [0.6, 0.3, 0.2, 1.0])],
        ground: Some(Ground {
            origin: Point3::origin(),
            normal: Vector3::y_axis(),
            spacing: 0.5,
            extent: 8.0,
            colour: [0.85, 0.86, 0.88, 1.0],
            line_colour: [0.3, 0.3, 0.35, 1.0],
        }),
        lights: vec![Light::Directional {
            direction: Unit::new_normalize(Vector3::new(1.0, -1.0, 0.0)),
            colour: [0.8, 0.8, 0.8],
        }],
        camera: Camera {
            translation: Vector3::new(0.0, 0.0, -6.0),
            rotation: UnitQuaternion::from_euler_angles(0.6, 0.0, 0.0),
            centre: Point3::new(0.0, 0.4, 0.0),
            ..Camera::default()
        },
        background: BACKGROUND,
        looks,
        ..Frame::default()
    }
}

/// Where a world point is seen, as a pixel of the picture.
fn seen(frame: &Frame, p: Point3<f64>) -> (u32, u32) {
    let at = frame
        .camera
        .project(
            &p,
            &asgard::render::camera::Viewport::new(f64::from(WIDTH), f64::from(HEIGHT)),
        )
        .unwrap();
    (at.x.round() as u32, at.y.round() as u32)
}

#[test]
fn bodies_cast_shadows_on_the_ground_along_the_light() {
    let mut target = target();
    let lit = Looks {
        shadows: true,
        ..Looks::ALL
    };
    let frame = stage_frame(lit);
    let with = target.render(&frame).unwrap();
    save(&with, "stage-shadows");
    let without = target
        .render(&stage_frame(Looks {
            shadows: false,
            ..lit
        }))
        .unwrap();
    // Light travelling along (1, −1, 0) throws the cube (from 0.1 to 1.1 high) onto the
    // ground from x = −0.4 to 1.6: at (1.3, 0, 0) is its shadow; at (−1.3, 0, 0), none.
    let (x, y) = seen(&frame, Point3::new(1.3, 0.0, 0.1));
    let shade = |image: &RgbaImage| rgb(image, x, y).iter().sum::<i32>();
    assert!(
        shade(&with) < shade(&without) - 45,
        "the shadow is not darker: {:?} against {:?}",
        rgb(&with, x, y),
        rgb(&without, x, y)
    );
    let (x, y) = seen(&frame, Point3::new(-1.3, 0.0, 0.1));
    assert_near(
        rgb(&with, x, y),
        rgb(&without, x, y),
        2,
        "ground out of the shadow",
    );
    // The cube's own face turned away from the light is not lit by it either way, and the
    // face towards it is not shadowed by the cube itself.
    let (x, y) = seen(&frame, Point3::new(0.0, 1.1, 0.0));
    assert_near(rgb(&with, x, y), rgb(&without, x, y), 3, "the lit top face");
}

#[test]
fn the_grid_draws_lines_on_the_ground_and_the_ground_can_be_turned_off() {
    let mut target = target();
    let quiet = Looks {
        shadows: false,
        antialias: false,
        ..Looks::ALL
    };
    let grid = target.render(&stage_frame(quiet)).unwrap();
    save(&grid, "stage-grid");
    let plain = target
        .render(&stage_frame(Looks {
            grid: false,
            ..quiet
        }))
        .unwrap();
    let none = target
        .render(&stage_frame(Looks {
            ground: false,
            ..quiet
        }))
        .unwrap();
    // Along a row through the ground in front of the cube: lines darker than the plane with
    // the grid, an even plane without, the background without the ground.
    let y = HEIGHT - 20;
    let sums = |image: &RgbaImage| -> Vec<i32> {
        (0..WIDTH)
            .map(|x| rgb(image, x, y).iter().sum::<i32>())
            .collect()
    };
    let (lined, even) = (sums(&grid), sums(&plain));
    let spread = |v: &[i32]| v.iter().max().unwrap() - v.iter().min().unwrap();
    assert!(spread(&lined) > 60, "no grid lines: {}", spread(&lined));
    assert!(
        spread(&even) < 12,
        "the plain ground is not even: {}",
        spread(&even)
    );
    assert!(lined.iter().filter(|&&s| s < even[0] - 30).count() >= 4);
    assert_near(rgb(&none, WIDTH / 2, y), BACKGROUND_RGB, 1, "no ground");
    assert!(
        rgb(&plain, WIDTH / 2, y).iter().sum::<i32>() > 600,
        "the ground is light"
    );
}

#[test]
fn antialiasing_gives_edges_intermediate_values() {
    let mut target = target();
    let mut frame = cube_frame();
    // Turned about the view axis, so its sides cross the rows at a slant.
    frame.objects[0].pose.rotation = UnitQuaternion::from_euler_angles(0.0, 0.0, 0.35);
    frame.looks = Looks::NONE;
    let hard = target.render(&frame).unwrap();
    frame.looks.antialias = true;
    let smooth = target.render(&frame).unwrap();
    save(&smooth, "cube-antialiased");
    let rows = (HEIGHT / 2 - 20..HEIGHT / 2 + 20).step_by(4);
    let count =
        |image: &RgbaImage| -> usize { rows.clone().map(|y| intermediate_pixels(image, y)).sum() };
    assert_eq!(count(&hard), 0, "a hard edge has no intermediate pixels");
    assert!(
        count(&smooth) >= 10,
        "{} intermediate edge pixels",
        count(&smooth)
    );
    // The inside of the face is untouched.
    assert_eq!(
        rgb(&smooth, WIDTH / 2, HEIGHT / 2),
        rgb(&hard, WIDTH / 2, HEIGHT / 2)
    );
}

#[test]
fn the_gizmo_shows_the_axes_in_the_lower_left_corner() {
    let mut target = target();
    let mut frame = cube_frame();
    frame.camera.rotation = UnitQuaternion::from_euler_angles(0.4, -0.6, 0.0);
    frame.looks = Looks {
        gizmo: true,
        ..Looks::NONE
    };
    let image = target.render(&frame).unwrap();
    save(&image, "gizmo");
    let corner: Vec<[i32; 3]> = (HEIGHT - 90..HEIGHT)
        .flat_map(|y| (0..90).map(move |x| (x, y)))
        .map(|(x, y)| rgb(&image, x, y))
        .collect();
    let has = |test: fn(&[i32; 3]) -> bool| corner.iter().any(test);
    assert!(
        has(|[r, g, b]| *r > 150 && *g < 100 && *b < 100),
        "no red x axis"
    );
    assert!(
        has(|[r, g, b]| *g > 120 && *r < 110 && *b < 90),
        "no green y axis"
    );
    assert!(
        has(|[r, g, b]| *b > 170 && *r < 100 && *g < 150),
        "no blue z axis"
    );
    frame.looks.gizmo = false;
    let bare = target.render(&frame).unwrap();
    for (x, y) in (HEIGHT - 90..HEIGHT).flat_map(|y| (0..90).map(move |x| (x, y))) {
        assert_near(
            rgb(&bare, x, y),
            BACKGROUND_RGB,
            1,
            "corner without the gizmo",
        );
    }
}

/// The stage with a ball at `x` behind the cube, its handle and a velocity arrow, the cube
/// hovered or not: what a frame of a handle drag looks like.
fn drag_frame(x: f64, hovered: bool) -> Frame {
    let mut frame = stage_frame(Looks::ALL);
    frame.objects[0].hovered = hovered;
    frame
        .objects
        .push(object(BALL, [x, 0.5, -1.0], [0.3, 0.5, 0.8, 1.0]));
    frame
        .objects
        .push(object(BALL, [1.5, 0.5, -1.5], [0.8, 0.8, 0.3, 1.0]));
    frame.handles = vec![
        Handle {
            position: Point3::new(x, 0.5, -1.0),
            colour: [1.0, 0.2, 0.2, 1.0],
            highlighted: true,
        },
        Handle {
            position: Point3::new(1.5, 0.5, -1.5),
            colour: [1.0, 0.2, 0.2, 1.0],
            highlighted: false,
        },
    ];
    frame.arrows = vec![asgard::render::frame::Arrow {
        origin: Point3::new(x, 0.5, -1.0),
        vector: Vector3::new(0.0, 0.8, 0.0),
        colour: [0.2, 0.8, 0.2, 1.0],
    }];
    frame
}

#[test]
fn a_frame_drawn_again_where_things_moved_is_the_whole_frame_drawn_anew() {
    // The renderer keeps the last picture and draws a frame that differs only in some items
    // again only where they were and are (with their shadows): a ball dragged, its handle
    // and arrow following, the cube hovered, then the ball dragged on, the cube left.
    let mut kept = target();
    let before = kept.render(&drag_frame(-1.4, false)).unwrap();
    let moved = drag_frame(-0.9, true);
    let again = kept.render(&moved).unwrap();
    let anew = target().render(&moved).unwrap();
    save(&again, "drag-drawn-again");
    save(&anew, "drag-drawn-anew");
    let differing = |a: &RgbaImage, b: &RgbaImage| {
        (0..HEIGHT)
            .flat_map(|y| (0..WIDTH).map(move |x| (x, y)))
            .filter(|&(x, y)| a.pixel(x, y) != b.pixel(x, y))
            .count()
    };
    assert!(
        differing(&before, &again) > 500,
        "the ball did not move in the picture"
    );
    assert_eq!(
        differing(&again, &anew),
        0,
        "the picture drawn again differs from the frame drawn anew"
    );
    // A second region in a row smooths only that region over the smoothed picture the
    // first one kept.
    let moved_on = drag_frame(-0.5, false);
    let again = kept.render(&moved_on).unwrap();
    let anew = target().render(&moved_on).unwrap();
    save(&again, "drag-drawn-again-twice");
    assert_eq!(
        differing(&again, &anew),
        0,
        "the picture drawn again twice differs from the frame drawn anew"
    );
}

#[test]
fn timed_passes_are_named_and_counted_and_leave_the_picture_alone() {
    // Two views, so both frames are drawn whole.
    let first = stage_frame(Looks::ALL);
    let mut second = first.clone();
    second.camera.rotation = UnitQuaternion::from_euler_angles(0.5, 0.2, 0.0);
    let mut plain = target();
    let mut timed = target();
    timed.renderer().unwrap().time_passes(true);
    for frame in [&first, &second] {
        assert!(
            timed.render(frame).unwrap() == plain.render(frame).unwrap(),
            "timing changed the picture"
        );
    }
    let times = timed.renderer().unwrap().pass_times();
    let names: Vec<&str> = times.passes.iter().map(|p| p.0).collect();
    assert_eq!(
        names,
        ["shadow map", "bodies", "ground", "aids", "smoothing"],
        "every pass of a frame with every look but the gizmo, in order"
    );
    assert!(times.passes.iter().all(|p| p.1 == 2), "{times:?}");
    let renderer = timed.renderer().unwrap();
    assert!(
        renderer.pass_times().passes.is_empty(),
        "taken times start again"
    );
    renderer.time_passes(false);
    timed.render(&first).unwrap();
    assert!(timed.renderer().unwrap().pass_times().passes.is_empty());
}
