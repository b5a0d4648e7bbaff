//! A slave's rendition draws what `asgard render` and the editor draw (issue 29): the looks
//! scene (tests/golden/looks.asg) in a 320 × 240 rendition, read from the shared frame
//! memory as a host reads it, against its golden picture (ground, grid, shadows), with
//! smoothed edges.
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
use asgard::render::image::{write_png, RgbaImage};
use render_support::golden::{
    differences, golden, intermediate_pixels, read_png, MAX_DIFFERING, REGENERATE,
};
use render_support::output_dir;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};
use zbus::proxy::CacheProperties;

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

#[test]
fn a_rendition_shows_the_ground_grid_shadows_and_smooth_edges() {
    let mut command = Command::new(env!("CARGO_BIN_EXE_asgard"));
    command.arg("slave");
    let SlaveProcess {
        mut child,
        connection,
    } = zbus::block_on(SlaveProcess::spawn(command)).unwrap();
    let connection = zbus::blocking::Connection::from(connection);
    let subdocument = SubdocumentProxyBlocking::new(&connection).unwrap();
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/looks.asg");
    subdocument
        .set_scene_text(&std::fs::read_to_string(scene).unwrap())
        .unwrap();
    let path = subdocument.create_rendition(WIDTH, HEIGHT).unwrap();
    let rendition = RenditionProxyBlocking::builder(&connection)
        .path(path)
        .unwrap()
        .cache_properties(CacheProperties::No)
        .build()
        .unwrap();
    let reader = FrameReader::from_reply(rendition.get_frame_buffer().unwrap()).unwrap();
    let shown = first_frame(&reader);
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
    drop(reader);
    drop(rendition);
    drop(subdocument);
    drop(connection);
    assert!(child.wait().unwrap().success());
}
