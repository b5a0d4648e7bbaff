//! A slave's rendition draws what `asgard render` and the editor draw (issue 29): the looks
//! scene (tests/golden/looks.asg) in a 320 × 240 rendition, read from the shared frame
//! memory as a host reads it, against its golden picture (ground, grid, shadows), with
//! smoothed edges. A rendition starts from the scene's camera (issue 26): what the host shows
//! is the view Keep this view or the Camera fields wrote into the text.
//!
//! To regenerate the golden picture deliberately, run
//!
//! ```text
//! ASGARD_REGENERATE_GOLDEN=1 cargo test --test render_rendition
//! ```
//!
//! and look at tests/golden/rendition-looks.png before committing it.

mod render_support;

use asgard::ipc::{FrameReader, RenditionProxyBlocking, SlaveProcess, SubdocumentProxyBlocking};
use asgard::render::camera::Viewport;
use asgard::render::image::{write_png, RgbaImage};
use asgard::render::scene_frame::{CameraChoice, FrameOptions, SceneFrames};
use asgard::scene::evaluate;
use asgard::scene::state::InitialStates;
use nalgebra::Point3;
use render_support::golden::{
    differences, golden, intermediate_pixels, read_png, MAX_DIFFERING, REGENERATE,
};
use render_support::output_dir;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const WIDTH: u32 = 320;
const HEIGHT: u32 = 240;

/// The first whole frame in `reader`'s memory, as a picture; waits for the slave to write
/// one.
fn first_frame(reader: &FrameReader) -> RgbaImage {
    let layout = reader.layout();
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut pixels = Vec::new();
    while reader.read_latest(&mut pixels).is_none() {
        assert!(Instant::now() < deadline, "no frame within a minute");
        std::thread::sleep(Duration::from_millis(20));
    }
    let (width, stride) = (layout.width as usize, layout.stride as usize);
    RgbaImage {
        width: layout.width,
        height: layout.height,
        pixels: pixels
            .chunks(stride)
            .take(layout.height as usize)
            .flat_map(|row| row[..4 * width].iter().copied())
            .collect(),
    }
}

/// A slave with one rendition of `text`, `WIDTH` × `HEIGHT`, as a host makes it.
struct Rendition {
    child: std::process::Child,
    connection: zbus::blocking::Connection,
    subdocument: SubdocumentProxyBlocking<'static>,
    rendition: RenditionProxyBlocking<'static>,
    reader: FrameReader,
}

impl Rendition {
    fn of(text: &str) -> Rendition {
        let mut command = Command::new(env!("CARGO_BIN_EXE_asgard"));
        command.arg("slave");
        let SlaveProcess { child, connection } =
            zbus::block_on(SlaveProcess::spawn(command)).unwrap();
        let connection = zbus::blocking::Connection::from(connection);
        let subdocument = SubdocumentProxyBlocking::new(&connection).unwrap();
        subdocument.set_scene_text(text).unwrap();
        let path = subdocument.create_rendition(WIDTH, HEIGHT).unwrap();
        let rendition = RenditionProxyBlocking::uncached(&connection, path).unwrap();
        let reader = FrameReader::from_reply(rendition.get_frame_buffer().unwrap()).unwrap();
        Rendition {
            child,
            connection,
            subdocument,
            rendition,
            reader,
        }
    }

    /// Closes the connection; the slave then ends successfully.
    fn close(self) {
        let Rendition {
            mut child,
            connection,
            subdocument,
            rendition,
            reader,
        } = self;
        drop(reader);
        drop(rendition);
        drop(subdocument);
        drop(connection);
        assert!(child.wait().unwrap().success());
    }
}

#[test]
fn a_rendition_shows_the_ground_grid_shadows_and_smooth_edges() {
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/looks.asg");
    let rendition = Rendition::of(&std::fs::read_to_string(scene).unwrap());
    let shown = first_frame(&rendition.reader);
    let dir = output_dir("rendition");
    write_png(&dir.join("looks.png"), &shown).unwrap();
    let golden_path = golden("rendition-looks");
    if std::env::var_os(REGENERATE).is_some() {
        write_png(&golden_path, &shown).unwrap();
    }
    let (count, diff) = differences(&shown, &read_png(&golden_path));
    if count as f64 / f64::from(WIDTH * HEIGHT) > MAX_DIFFERING {
        write_png(&dir.join("difference.png"), &diff).unwrap();
        panic!(
            "{count} pixels differ from {}; see {}",
            golden_path.display(),
            dir.display()
        );
    }
    let smoothed: usize = (0..HEIGHT).map(|y| intermediate_pixels(&shown, y)).sum();
    assert!(smoothed >= 40, "{smoothed} smoothed edge pixels");
    rendition.close();
}

/// A ball seen by a camera off to its right and turned a little: the rendition shows the ball
/// where that camera sees it, far from the middle where a view fitted to the ball would put it.
#[test]
fn a_rendition_starts_from_the_scenes_camera() {
    const SCENE: &str = "simulator finish 1
shape_set ball desc {sphere 0.5 color red}
body ball shape ball init_pos {0 0 0} fixed 1
camera pos {3 1 12} rot {0 0.1 0}
";
    let scene = evaluate(SCENE).unwrap();
    let viewport = Viewport::new(f64::from(WIDTH), f64::from(HEIGHT));
    let options = FrameOptions {
        camera: CameraChoice::Scene,
        ..FrameOptions::default()
    };
    let camera = SceneFrames::new(&scene)
        .unwrap()
        .frame(
            &scene,
            &InitialStates { scene: &scene },
            0.0,
            &options,
            &viewport,
        )
        .camera;
    let expected = camera.project(&Point3::origin(), &viewport).unwrap();
    assert!(
        (expected.x - f64::from(WIDTH) / 2.0).abs() > 40.0,
        "the scene's camera puts the ball away from the middle: {expected:?}"
    );
    let rendition = Rendition::of(SCENE);
    let shown = first_frame(&rendition.reader);
    write_png(&output_dir("rendition-camera").join("camera.png"), &shown).unwrap();
    // The ball's outline, shaded parts too: where red outweighs green and blue.
    let red: Vec<(u32, u32)> = shown
        .pixels
        .chunks(4)
        .enumerate()
        .filter(|(_, p)| u16::from(p[0]) > 40 + 2 * (u16::from(p[1]) + u16::from(p[2])))
        .map(|(i, _)| (i as u32 % WIDTH, i as u32 / WIDTH))
        .collect();
    assert!(
        red.len() > 100,
        "the ball is shown: {} red pixels",
        red.len()
    );
    let middle = |axis: fn(&(u32, u32)) -> u32| {
        let low = red.iter().map(axis).min().unwrap();
        let high = red.iter().map(axis).max().unwrap();
        f64::from(low + high + 1) / 2.0
    };
    let (x, y) = (middle(|p| p.0), middle(|p| p.1));
    assert!(
        (x - expected.x).abs() < 2.0 && (y - expected.y).abs() < 2.0,
        "the ball is at ({x:.1}, {y:.1}), the scene's camera sees it at ({:.1}, {:.1})",
        expected.x,
        expected.y
    );
    rendition.close();
}
