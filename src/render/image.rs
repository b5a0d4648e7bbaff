//! Rendered pictures and the single-frame image formats (PNG and PPM, dissertation 4.1.10).

use crate::save::{self, AtomicFile};
use std::fmt;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

/// An RGBA picture, 8 bits per channel, rows from top to bottom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RgbaImage {
    pub width: u32,
    pub height: u32,
    /// `4 × width × height` bytes.
    pub pixels: Vec<u8>,
}

impl RgbaImage {
    /// An image of one colour.
    pub fn filled(width: u32, height: u32, colour: [u8; 4]) -> RgbaImage {
        RgbaImage {
            width,
            height,
            pixels: colour.repeat(width as usize * height as usize),
        }
    }

    /// The pixel at column `x`, row `y` (from the top); `None` outside the image.
    pub fn pixel(&self, x: u32, y: u32) -> Option<[u8; 4]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let i = 4 * (y as usize * self.width as usize + x as usize);
        Some([
            self.pixels[i],
            self.pixels[i + 1],
            self.pixels[i + 2],
            self.pixels[i + 3],
        ])
    }

    /// Checks that the pixel buffer matches the dimensions.
    pub fn check(&self) -> Result<(), ImageError> {
        let expected = 4 * self.width as usize * self.height as usize;
        if self.pixels.len() != expected || self.width == 0 || self.height == 0 {
            return Err(ImageError::BadSize {
                width: self.width,
                height: self.height,
                bytes: self.pixels.len(),
            });
        }
        Ok(())
    }
}

/// Why an image or movie could not be written.
#[derive(Debug)]
pub enum ImageError {
    /// The pixel buffer does not hold `4 × width × height` bytes, or a dimension is zero.
    BadSize {
        width: u32,
        height: u32,
        bytes: usize,
    },
    /// A frame's size differs from the first frame's.
    SizeChanged {
        frame: usize,
        expected: (u32, u32),
        found: (u32, u32),
    },
    /// Reading or writing a file failed.
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    /// The PNG encoder refused the data.
    Png { path: PathBuf, error: String },
    /// The GIF encoder refused the data.
    Gif { path: PathBuf, error: String },
    /// A program the format needs is not installed.
    MissingProgram { program: String, purpose: String },
    /// A helper program failed.
    ProgramFailed {
        program: String,
        status: String,
        output: String,
    },
    /// The file name does not say which movie format to write.
    UnknownFormat { path: PathBuf },
    /// A movie frame rate that is not positive or is too high.
    BadFrameRate { fps: f64 },
    /// A movie was finished before any frame was given.
    NoFrames { path: PathBuf },
}

impl fmt::Display for ImageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImageError::BadSize { width, height, bytes } => write!(
                f,
                "image of {width}×{height} pixels needs {} bytes of RGBA data, found {bytes}",
                4 * *width as usize * *height as usize
            ),
            ImageError::SizeChanged {
                frame,
                expected,
                found,
            } => write!(
                f,
                "frame {frame} is {}×{} pixels but the movie is {}×{}",
                found.0, found.1, expected.0, expected.1
            ),
            ImageError::Io { path, error } => write!(f, "{}: {error}", path.display()),
            ImageError::Png { path, error } => {
                write!(f, "{}: PNG encoding failed: {error}", path.display())
            }
            ImageError::Gif { path, error } => {
                write!(f, "{}: GIF encoding failed: {error}", path.display())
            }
            ImageError::MissingProgram { program, purpose } => write!(
                f,
                "the program `{program}` was not found on PATH; it is needed to {purpose}"
            ),
            ImageError::ProgramFailed {
                program,
                status,
                output,
            } => write!(f, "`{program}` failed ({status}): {output}"),
            ImageError::UnknownFormat { path } => write!(
                f,
                "{}: unknown movie format; expected a folder (no extension), .gif, .png/.apng, .mp4 or .webm",
                path.display()
            ),
            ImageError::BadFrameRate { fps } => {
                write!(f, "movie frame rate must be above 0 and at most 600 per second, found {fps}")
            }
            ImageError::NoFrames { path } => {
                write!(f, "{}: the movie has no frames", path.display())
            }
        }
    }
}

impl std::error::Error for ImageError {}

/// Wraps an I/O error with the file it concerns.
pub(crate) fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> ImageError + '_ {
    move |error| ImageError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// Writes `image` as an 8-bit RGBA PNG file, atomically (a failure leaves the file that was
/// there; a read-only one is refused, see [`crate::save`]).
pub fn write_png(path: &Path, image: &RgbaImage) -> Result<(), ImageError> {
    image.check()?;
    let file = AtomicFile::create(path, save::Options::OUTPUT).map_err(io_error(path))?;
    let png_error = |error: png::EncodingError| ImageError::Png {
        path: path.to_path_buf(),
        error: error.to_string(),
    };
    let mut out = BufWriter::new(file);
    let mut encoder = png::Encoder::new(&mut out, image.width, image.height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(png_error)?;
    writer.write_image_data(&image.pixels).map_err(png_error)?;
    writer.finish().map_err(png_error)?;
    out.into_inner()
        .map_err(|e| e.into_error())
        .and_then(AtomicFile::commit)
        .map_err(io_error(path))
}

/// `image` as a binary PPM (P6) file; alpha is dropped.
pub fn ppm_bytes(image: &RgbaImage) -> Result<Vec<u8>, ImageError> {
    image.check()?;
    let mut out = format!("P6\n{} {}\n255\n", image.width, image.height).into_bytes();
    out.reserve(image.pixels.len() / 4 * 3);
    out.extend(
        image
            .pixels
            .chunks_exact(4)
            .flat_map(|p| [p[0], p[1], p[2]]),
    );
    Ok(out)
}

/// Writes `image` as a binary PPM (P6) file, atomically as [`write_png`] does.
pub fn write_ppm(path: &Path, image: &RgbaImage) -> Result<(), ImageError> {
    let bytes = ppm_bytes(image)?;
    save::write(path, &bytes, save::Options::OUTPUT).map_err(io_error(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test_dir(name: &str) -> PathBuf {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("target/test-output/render-image")
            .join(name);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn gradient() -> RgbaImage {
        let (width, height) = (5u32, 3u32);
        let pixels = (0..height)
            .flat_map(|y| (0..width).flat_map(move |x| [x as u8 * 50, y as u8 * 100, 7, 255]))
            .collect();
        RgbaImage {
            width,
            height,
            pixels,
        }
    }

    #[test]
    fn png_round_trips_through_the_decoder() {
        let path = test_dir("png").join("gradient.png");
        let image = gradient();
        write_png(&path, &image).unwrap();
        let decoder =
            png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&path).unwrap()));
        let mut reader = decoder.read_info().unwrap();
        let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buffer).unwrap();
        assert_eq!((info.width, info.height), (5, 3));
        assert_eq!(&buffer[..info.buffer_size()], &image.pixels[..]);
    }

    #[test]
    fn ppm_has_header_and_rgb_rows_top_first() {
        let path = test_dir("ppm").join("gradient.ppm");
        write_ppm(&path, &gradient()).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let header = b"P6\n5 3\n255\n";
        assert_eq!(&bytes[..header.len()], header);
        let body = &bytes[header.len()..];
        assert_eq!(body.len(), 5 * 3 * 3);
        // Row 2, column 4.
        assert_eq!(&body[3 * (2 * 5 + 4)..3 * (2 * 5 + 4) + 3], &[200, 200, 7]);
    }

    #[test]
    fn wrong_sizes_are_refused() {
        let image = RgbaImage {
            width: 4,
            height: 4,
            pixels: vec![0; 10],
        };
        let error = write_png(&test_dir("bad").join("bad.png"), &image).unwrap_err();
        assert!(error.to_string().contains("64 bytes"), "{error}");
    }
}
