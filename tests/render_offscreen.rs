//! Off-screen rendering of synthetic frames, checked by pixel probes. The pictures are also
//! written under target/tmp/render/offscreen/ for people to look at.

mod render_support;

use asgard::render::frame::{Frame, Handle, Light, Line};
use asgard::render::image::{write_png, RgbaImage};
use asgard::render::offscreen::{OffscreenError, OffscreenTarget};
use asgard::render::renderer::RenderError;
use asgard::render::shader::ShaderDialect;
use nalgebra::{Point3, Unit, Vector3};
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
    // The front face faces the default light head on: colour × (1 + ambient 0.25).
    assert_near(
        rgb(&image, WIDTH / 2, HEIGHT / 2),
        [191, 96, 64],
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
        [191, 96, 64],
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
        [115, 57, 38],
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
        [38, 19, 13],
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
    // The sphere's centre faces the light: green × 1.25 = full green.
    assert_near(rgb(&image, WIDTH / 2, HEIGHT / 2), [0, 255, 0], 3, "handle");
    // The handle is small: 20 pixels away the cube shows.
    assert_near(
        rgb(&image, WIDTH / 2 + 20, HEIGHT / 2),
        [191, 96, 64],
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

#[test]
fn selection_brightens_and_outlines() {
    let mut target = target();
    let mut frame = cube_frame();
    let plain = target.render(&frame).unwrap();
    frame.objects[0].selected = true;
    let selected = target.render(&frame).unwrap();
    save(&selected, "cube-selected");
    let centre = |image: &RgbaImage| rgb(image, WIDTH / 2, HEIGHT / 2);
    assert!(centre(&selected)
        .iter()
        .zip(centre(&plain))
        .all(|(s, p)| *s >= p));
    assert!(centre(&selected) != centre(&plain));
    let outline_pixels = (0..WIDTH)
        .filter(|&x| {
            let [r, g, b] = rgb(&selected, x, HEIGHT / 2);
            r > 230 && g > 190 && b < 60
        })
        .count();
    assert!(outline_pixels >= 2, "no outline across the middle row");
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
        [191, 96, 64],
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
        [191, 96, 64],
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
        [191, 96, 64],
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
