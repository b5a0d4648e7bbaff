//! Movies written one frame at a time: a folder of numbered PNGs, animated GIF, APNG, and
//! MP4 or WebM through `ffmpeg` (dissertation 4.1.10: off-line playback).
//!
//! The picture size is taken from the first frame; every later frame must match it.

use super::image::{io_error, write_png, ImageError, RgbaImage};
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};

/// A movie container, usually chosen from the output path by [`MovieFormat::from_path`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MovieFormat {
    /// A folder of `frame-00000.png`, `frame-00001.png`, …
    PngFolder,
    /// Animated GIF, each frame with its own NeuQuant-quantised 256-colour palette.
    Gif,
    /// Animated PNG: lossless, full colour.
    Apng,
    /// H.264 in MP4, encoded by `ffmpeg`.
    Mp4,
    /// VP9 in WebM, encoded by `ffmpeg`.
    Webm,
}

impl MovieFormat {
    /// The format a path names: `.gif`, `.png`/`.apng`, `.mp4`, `.webm`, or a folder when the
    /// path has no extension.
    pub fn from_path(path: &Path) -> Result<MovieFormat, ImageError> {
        let extension = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        match extension.as_deref() {
            None => Ok(MovieFormat::PngFolder),
            Some("gif") => Ok(MovieFormat::Gif),
            Some("png" | "apng") => Ok(MovieFormat::Apng),
            Some("mp4") => Ok(MovieFormat::Mp4),
            Some("webm") => Ok(MovieFormat::Webm),
            Some(_) => Err(ImageError::UnknownFormat {
                path: path.to_path_buf(),
            }),
        }
    }
}

/// The program that encodes MP4 and WebM.
const FFMPEG: &str = "ffmpeg";
/// Highest frame rate accepted; keeps GIF and APNG frame delays representable.
const MAX_FPS: f64 = 600.0;
/// NeuQuant sampling speed for GIF palettes (1 best, 30 fastest; 10 is the usual balance).
const GIF_QUANTISATION_SPEED: i32 = 10;

/// The open file or process of a movie, created when the first frame arrives.
enum Sink {
    Folder,
    Gif(gif::Encoder<BufWriter<File>>),
    Apng(png::Writer<BufWriter<File>>),
    Ffmpeg { child: Child, stdin: ChildStdin },
}

/// Writes a movie frame by frame. Call [`MovieWriter::finish`] to complete the file.
pub struct MovieWriter {
    path: PathBuf,
    format: MovieFormat,
    fps: f64,
    size: Option<(u32, u32)>,
    frames: usize,
    sink: Option<Sink>,
}

impl MovieWriter {
    /// Prepares to write `format` to `path` at `fps` frames per second. For MP4 and WebM,
    /// fails at once with [`ImageError::MissingProgram`] when `ffmpeg` is not on `PATH`.
    pub fn create(path: &Path, format: MovieFormat, fps: f64) -> Result<MovieWriter, ImageError> {
        if !(fps > 0.0 && fps <= MAX_FPS) {
            return Err(ImageError::BadFrameRate { fps });
        }
        match format {
            MovieFormat::PngFolder => std::fs::create_dir_all(path).map_err(io_error(path))?,
            MovieFormat::Mp4 | MovieFormat::Webm if find_program(FFMPEG).is_none() => {
                return Err(missing_ffmpeg(format));
            }
            _ => {}
        }
        Ok(MovieWriter {
            path: path.to_path_buf(),
            format,
            fps,
            size: None,
            frames: 0,
            sink: None,
        })
    }

    /// Appends one frame.
    pub fn push(&mut self, image: &RgbaImage) -> Result<(), ImageError> {
        image.check()?;
        let found = (image.width, image.height);
        match self.size {
            Some(expected) if expected != found => {
                return Err(ImageError::SizeChanged {
                    frame: self.frames,
                    expected,
                    found,
                })
            }
            Some(_) => {}
            None => {
                self.sink = Some(self.open(image.width, image.height)?);
                self.size = Some(found);
            }
        }
        let path = &self.path;
        match self.sink.as_mut().expect("opened with the first frame") {
            Sink::Folder => {
                write_png(&path.join(format!("frame-{:05}.png", self.frames)), image)?;
            }
            Sink::Gif(encoder) => {
                let mut pixels = image.pixels.clone();
                let mut frame = gif::Frame::from_rgba_speed(
                    image.width as u16,
                    image.height as u16,
                    &mut pixels,
                    GIF_QUANTISATION_SPEED,
                );
                frame.delay = gif_delay(self.frames, self.fps);
                encoder.write_frame(&frame).map_err(gif_error(path))?;
            }
            Sink::Apng(writer) => {
                writer
                    .write_image_data(&image.pixels)
                    .map_err(png_error(path))?;
            }
            Sink::Ffmpeg { child, stdin } => {
                if let Err(error) = stdin.write_all(&image.pixels) {
                    let output = read_stderr(child);
                    return Err(if output.is_empty() {
                        io_error(path)(error)
                    } else {
                        ImageError::ProgramFailed {
                            program: FFMPEG.into(),
                            status: "stopped reading frames".into(),
                            output,
                        }
                    });
                }
            }
        }
        self.frames += 1;
        Ok(())
    }

    /// Completes the movie and returns the number of frames written.
    pub fn finish(mut self) -> Result<usize, ImageError> {
        let path = self.path.clone();
        match self.sink.take() {
            None if self.format == MovieFormat::PngFolder => {}
            None => return Err(ImageError::NoFrames { path }),
            Some(Sink::Folder) => {}
            Some(Sink::Gif(encoder)) => {
                let mut file = encoder.into_inner().map_err(gif_error(&path))?;
                file.flush().map_err(io_error(&path))?;
            }
            Some(Sink::Apng(writer)) => {
                writer.finish().map_err(png_error(&path))?;
                set_apng_frame_count(&path, self.frames as u32)?;
            }
            Some(Sink::Ffmpeg { mut child, stdin }) => {
                drop(stdin);
                let status = child.wait().map_err(io_error(&path))?;
                if !status.success() {
                    return Err(ImageError::ProgramFailed {
                        program: FFMPEG.into(),
                        status: status.to_string(),
                        output: read_stderr(&mut child),
                    });
                }
            }
        }
        Ok(self.frames)
    }

    /// Opens the file or process once the picture size is known.
    fn open(&self, width: u32, height: u32) -> Result<Sink, ImageError> {
        let path = &self.path;
        match self.format {
            MovieFormat::PngFolder => Ok(Sink::Folder),
            MovieFormat::Gif => {
                let (w, h) = match (u16::try_from(width), u16::try_from(height)) {
                    (Ok(w), Ok(h)) => (w, h),
                    _ => {
                        return Err(ImageError::Gif {
                            path: path.clone(),
                            error: format!(
                                "GIF pictures are at most 65535×65535, not {width}×{height}"
                            ),
                        })
                    }
                };
                let file = File::create(path).map_err(io_error(path))?;
                let mut encoder =
                    gif::Encoder::new(BufWriter::new(file), w, h, &[]).map_err(gif_error(path))?;
                encoder
                    .set_repeat(gif::Repeat::Infinite)
                    .map_err(gif_error(path))?;
                Ok(Sink::Gif(encoder))
            }
            MovieFormat::Apng => {
                let file = File::create(path).map_err(io_error(path))?;
                let mut encoder = png::Encoder::new(BufWriter::new(file), width, height);
                encoder.set_color(png::ColorType::Rgba);
                encoder.set_depth(png::BitDepth::Eight);
                // The frame count is not known yet: declare the most and correct it in
                // `finish`, so frames stream to the file instead of waiting in memory.
                encoder.set_animated(u32::MAX, 0).map_err(png_error(path))?;
                let (numerator, denominator) = apng_delay(self.fps);
                encoder
                    .set_frame_delay(numerator, denominator)
                    .map_err(png_error(path))?;
                Ok(Sink::Apng(encoder.write_header().map_err(png_error(path))?))
            }
            MovieFormat::Mp4 | MovieFormat::Webm => self.spawn_ffmpeg(width, height),
        }
    }

    fn spawn_ffmpeg(&self, width: u32, height: u32) -> Result<Sink, ImageError> {
        let codec: &[&str] = match self.format {
            MovieFormat::Mp4 => &[
                "-c:v",
                "libx264",
                "-preset",
                "fast",
                "-crf",
                "20",
                "-movflags",
                "+faststart",
            ],
            _ => &[
                "-c:v",
                "libvpx-vp9",
                "-b:v",
                "0",
                "-crf",
                "32",
                "-deadline",
                "realtime",
                "-cpu-used",
                "8",
            ],
        };
        let mut child = Command::new(FFMPEG)
            .args([
                "-hide_banner",
                "-loglevel",
                "error",
                "-y",
                "-f",
                "rawvideo",
                "-pix_fmt",
                "rgba",
            ])
            .args([
                "-s",
                &format!("{width}x{height}"),
                "-framerate",
                &self.fps.to_string(),
            ])
            .args(["-i", "-", "-an", "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2"])
            .args(codec)
            .args(["-pix_fmt", "yuv420p"])
            .arg(&self.path)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|error| match error.kind() {
                std::io::ErrorKind::NotFound => missing_ffmpeg(self.format),
                _ => io_error(Path::new(FFMPEG))(error),
            })?;
        let stdin = child.stdin.take().expect("stdin is piped");
        Ok(Sink::Ffmpeg { child, stdin })
    }
}

fn missing_ffmpeg(format: MovieFormat) -> ImageError {
    ImageError::MissingProgram {
        program: FFMPEG.into(),
        purpose: format!(
            "write {} movies (install it, e.g. `apt-get install ffmpeg`)",
            if format == MovieFormat::Mp4 {
                "MP4"
            } else {
                "WebM"
            }
        ),
    }
}

/// The first executable called `name` in a `PATH` folder.
fn find_program(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| {
            candidate
                .metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

fn read_stderr(child: &mut Child) -> String {
    let mut output = String::new();
    if let Some(mut stderr) = child.stderr.take() {
        let _ = stderr.read_to_string(&mut output);
    }
    output.trim().to_string()
}

/// GIF delays are whole hundredths of a second; frame `index` gets the delay that keeps the
/// running total closest to real time.
fn gif_delay(index: usize, fps: f64) -> u16 {
    let at = |i: usize| (i as f64 * 100.0 / fps).round() as u64;
    (at(index + 1) - at(index)).min(u64::from(u16::MAX)) as u16
}

/// The APNG frame delay as a fraction of a second.
fn apng_delay(fps: f64) -> (u16, u16) {
    (
        100,
        (fps * 100.0).round().clamp(1.0, f64::from(u16::MAX)) as u16,
    )
}

/// Rewrites the frame count in an APNG's `acTL` chunk and the chunk's checksum.
fn set_apng_frame_count(path: &Path, frames: u32) -> Result<(), ImageError> {
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(io_error(path))?;
    let mut offset = 8u64; // after the PNG signature
    loop {
        let mut header = [0u8; 8];
        file.seek(SeekFrom::Start(offset))
            .and_then(|_| file.read_exact(&mut header))
            .map_err(io_error(path))?;
        let length = u64::from(u32::from_be_bytes(header[..4].try_into().expect("4 bytes")));
        if &header[4..] == b"acTL" {
            let mut chunk = *b"acTL\0\0\0\0\0\0\0\0";
            file.read_exact(&mut chunk[4..]).map_err(io_error(path))?;
            chunk[4..8].copy_from_slice(&frames.to_be_bytes());
            file.seek(SeekFrom::Start(offset + 8))
                .and_then(|_| file.write_all(&chunk[4..]))
                .and_then(|_| file.write_all(&crc32(&chunk).to_be_bytes()))
                .map_err(io_error(path))?;
            return Ok(());
        }
        if &header[4..] == b"IDAT" || &header[4..] == b"IEND" {
            return Err(ImageError::Png {
                path: path.to_path_buf(),
                error: "no animation control chunk before the image data".into(),
            });
        }
        offset += 12 + length;
    }
}

/// The CRC-32 that PNG chunks carry (ISO 3309, reflected polynomial 0xEDB88320).
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn gif_error(path: &Path) -> impl Fn(gif::EncodingError) -> ImageError + '_ {
    move |error| ImageError::Gif {
        path: path.to_path_buf(),
        error: error.to_string(),
    }
}

fn png_error(path: &Path) -> impl Fn(png::EncodingError) -> ImageError + '_ {
    move |error| ImageError::Png {
        path: path.to_path_buf(),
        error: error.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_matches_the_png_specification_example() {
        // The CRC of an IEND chunk's type, as found at the end of every PNG file.
        assert_eq!(crc32(b"IEND"), 0xAE42_6082);
    }

    #[test]
    fn gif_delays_keep_in_step_with_real_time() {
        let total: u32 = (0..30).map(|i| u32::from(gif_delay(i, 30.0))).sum();
        assert_eq!(total, 100);
        assert!((0..30).all(|i| (3..=4).contains(&gif_delay(i, 30.0))));
    }

    #[test]
    fn formats_come_from_the_extension() {
        assert_eq!(
            MovieFormat::from_path(Path::new("a/b.GIF")).unwrap(),
            MovieFormat::Gif
        );
        assert_eq!(
            MovieFormat::from_path(Path::new("frames")).unwrap(),
            MovieFormat::PngFolder
        );
        assert_eq!(
            MovieFormat::from_path(Path::new("m.webm")).unwrap(),
            MovieFormat::Webm
        );
        let error = MovieFormat::from_path(Path::new("m.avi")).unwrap_err();
        assert!(error.to_string().contains("m.avi"), "{error}");
    }
}
