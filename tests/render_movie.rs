//! Movie writers produce files that decode: the gif crate's decoder for GIF, the png crate for
//! APNG and PNG folders, ffprobe for MP4 and WebM. The frames are real renderings of a
//! turning cube; the files stay under target/tmp/render/movie/.

mod render_support;

use asgard::render::frame::Frame;
use asgard::render::image::{ImageError, RgbaImage};
use asgard::render::movie::{MovieFormat, MovieWriter};
use asgard::render::offscreen::OffscreenTarget;
use nalgebra::UnitQuaternion;
use render_support::*;
use std::fs::File;
use std::path::Path;
use std::process::Command;

const FRAMES: usize = 12;
const WIDTH: u32 = 161; // odd on purpose: the ffmpeg path must pad to even sizes
const HEIGHT: u32 = 120;

fn frames() -> Vec<RgbaImage> {
    let mut target = OffscreenTarget::new(WIDTH, HEIGHT).unwrap();
    target.upload_missing(&library()).unwrap();
    (0..FRAMES)
        .map(|i| {
            let mut frame = Frame {
                objects: vec![object(CUBE, [0.0, 0.0, 0.0], [0.2, 0.6, 0.9, 1.0])],
                camera: front_camera(),
                background: [0.1, 0.1, 0.1, 1.0],
                ..Frame::default()
            };
            frame.objects[0].pose.rotation =
                UnitQuaternion::from_euler_angles(0.3, i as f64 * 0.25, 0.0);
            target.render(&frame).unwrap()
        })
        .collect()
}

fn write(path: &Path, images: &[RgbaImage]) -> usize {
    let format = MovieFormat::from_path(path).unwrap();
    let mut writer = MovieWriter::create(path, format, 12.0).unwrap();
    for image in images {
        writer.push(image).unwrap();
    }
    writer.finish().unwrap()
}

#[test]
fn gif_decodes_with_every_frame_close_to_the_original() {
    let dir = output_dir("movie-gif");
    let images = frames();
    let path = dir.join("turning-cube.gif");
    assert_eq!(write(&path, &images), FRAMES);
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::RGBA);
    let mut decoder = options.read_info(File::open(&path).unwrap()).unwrap();
    assert_eq!(
        (decoder.width(), decoder.height()),
        (WIDTH as u16, HEIGHT as u16)
    );
    let mut count = 0;
    while let Some(frame) = decoder.read_next_frame().unwrap() {
        let original = &images[count].pixels;
        // Palette quantisation changes each channel a little, not much.
        let error: f64 = frame
            .buffer
            .iter()
            .zip(original)
            .map(|(a, b)| f64::from(a.abs_diff(*b)))
            .sum::<f64>()
            / original.len() as f64;
        assert!(
            error < 3.0,
            "frame {count} differs by {error} per channel on average"
        );
        assert!(
            frame.delay == 8 || frame.delay == 9,
            "delay {}",
            frame.delay
        );
        count += 1;
    }
    assert_eq!(count, FRAMES);
}

#[test]
fn apng_decodes_losslessly_with_its_frame_count() {
    let dir = output_dir("movie-apng");
    let images = frames();
    let path = dir.join("turning-cube.png");
    assert_eq!(write(&path, &images), FRAMES);
    let mut reader = png::Decoder::new(std::io::BufReader::new(File::open(&path).unwrap()))
        .read_info()
        .unwrap();
    let control = reader.info().animation_control.expect("animated PNG");
    assert_eq!(control.num_frames as usize, FRAMES);
    let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
    for (i, image) in images.iter().enumerate() {
        let info = reader.next_frame(&mut buffer).unwrap();
        assert_eq!((info.width, info.height), (WIDTH, HEIGHT));
        assert_eq!(
            &buffer[..info.buffer_size()],
            &image.pixels[..],
            "frame {i}"
        );
    }
}

#[test]
fn png_folder_holds_numbered_frames() {
    let dir = output_dir("movie-folder").join("frames");
    let images = frames();
    assert_eq!(write(&dir, &images), FRAMES);
    for i in [0, FRAMES - 1] {
        let file = File::open(dir.join(format!("frame-{i:05}.png"))).unwrap();
        let mut reader = png::Decoder::new(std::io::BufReader::new(file))
            .read_info()
            .unwrap();
        let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buffer).unwrap();
        assert_eq!(&buffer[..info.buffer_size()], &images[i].pixels[..]);
    }
}

/// Frame count, width and height of a video's first stream, according to ffprobe.
fn probe(path: &Path) -> (usize, u32, u32) {
    let output = Command::new("ffprobe")
        .args(["-v", "error", "-select_streams", "v:0", "-count_frames"])
        .args([
            "-show_entries",
            "stream=nb_read_frames,width,height,codec_name",
            "-of",
            "csv=p=0",
        ])
        .arg(path)
        .output()
        .expect("ffprobe runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8(output.stdout).unwrap();
    let fields: Vec<&str> = text.trim().split(',').collect();
    (
        fields[3].parse().unwrap(),
        fields[1].parse().unwrap(),
        fields[2].parse().unwrap(),
    )
}

#[test]
fn mp4_and_webm_decode_with_every_frame() {
    let dir = output_dir("movie-ffmpeg");
    let images = frames();
    for name in ["turning-cube.mp4", "turning-cube.webm"] {
        let path = dir.join(name);
        assert_eq!(write(&path, &images), FRAMES);
        // Padded to an even width for 4:2:0 video.
        assert_eq!(probe(&path), (FRAMES, WIDTH + 1, HEIGHT), "{name}");
    }
}

#[test]
fn frames_of_another_size_are_refused() {
    let dir = output_dir("movie-size");
    let mut writer = MovieWriter::create(&dir.join("m.gif"), MovieFormat::Gif, 10.0).unwrap();
    writer
        .push(&RgbaImage::filled(8, 8, [1, 2, 3, 255]))
        .unwrap();
    let error = writer
        .push(&RgbaImage::filled(9, 8, [1, 2, 3, 255]))
        .unwrap_err();
    assert!(
        matches!(error, ImageError::SizeChanged { frame: 1, .. }),
        "{error}"
    );
    assert!(matches!(
        MovieWriter::create(&dir.join("m.gif"), MovieFormat::Gif, 0.0),
        Err(ImageError::BadFrameRate { .. })
    ));
    let empty = MovieWriter::create(&dir.join("e.gif"), MovieFormat::Gif, 10.0).unwrap();
    assert!(matches!(empty.finish(), Err(ImageError::NoFrames { .. })));
}
