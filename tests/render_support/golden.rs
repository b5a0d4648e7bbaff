//! Golden pictures: where they are and when a picture counts as the same as one.

use asgard::render::image::RgbaImage;
use std::path::{Path, PathBuf};

/// Largest difference in one channel (0-255) that still counts as the same pixel.
pub const CHANNEL_TOLERANCE: u8 = 24;
/// Largest fraction of pixels that may differ by more than the tolerance.
pub const MAX_DIFFERING: f64 = 0.004;
/// Set to regenerate the golden pictures instead of comparing with them.
pub const REGENERATE: &str = "ASGARD_REGENERATE_GOLDEN";

/// The golden picture called `name`, under tests/golden/.
pub fn golden(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{name}.png"))
}

/// An 8-bit RGBA PNG file.
pub fn read_png(path: &Path) -> RgbaImage {
    let file = std::fs::File::open(path)
        .unwrap_or_else(|e| panic!("{}: {e} (regenerate with {REGENERATE}=1)", path.display()));
    let mut reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut pixels).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgba, "{}", path.display());
    pixels.truncate(info.buffer_size());
    RgbaImage {
        width: info.width,
        height: info.height,
        pixels,
    }
}

/// The pixels differing by more than the tolerance, and a picture of where they are.
pub fn differences(found: &RgbaImage, expected: &RgbaImage) -> (usize, RgbaImage) {
    assert_eq!(
        (found.width, found.height),
        (expected.width, expected.height),
        "pictures of different sizes"
    );
    let mut diff = RgbaImage::filled(found.width, found.height, [0, 0, 0, 255]);
    let mut count = 0;
    for (i, (a, b)) in found
        .pixels
        .chunks_exact(4)
        .zip(expected.pixels.chunks_exact(4))
        .enumerate()
    {
        let worst = a
            .iter()
            .zip(b)
            .map(|(x, y)| x.abs_diff(*y))
            .max()
            .unwrap_or(0);
        if worst > CHANNEL_TOLERANCE {
            count += 1;
            diff.pixels[4 * i..4 * i + 3].copy_from_slice(&[255, 255, 255]);
        }
    }
    (count, diff)
}

/// The pixels of row `y` (from the top) that lie strictly between their left and right
/// neighbours where those differ strongly: the intermediate values anti-aliasing gives an edge.
/// A hard edge has none (each pixel is one side's colour or the other's).
pub fn intermediate_pixels(image: &RgbaImage, y: u32) -> usize {
    (1..image.width.saturating_sub(1))
        .filter(|&x| {
            let (Some(left), Some(here), Some(right)) = (
                image.pixel(x - 1, y),
                image.pixel(x, y),
                image.pixel(x + 1, y),
            ) else {
                return false;
            };
            let (channel, contrast) = (0..3)
                .map(|c| (c, left[c].abs_diff(right[c])))
                .max_by_key(|(_, d)| *d)
                .unwrap_or((0, 0));
            if contrast < 60 {
                return false;
            }
            let margin = contrast / 6;
            (0..3).all(|c| {
                let (lo, hi) = (left[c].min(right[c]), left[c].max(right[c]));
                here[c] >= lo && here[c] <= hi
            }) && here[channel] > left[channel].min(right[channel]) + margin
                && here[channel] < left[channel].max(right[channel]) - margin
        })
        .count()
}
