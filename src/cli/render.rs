//! `asgard render`: a picture of a scene at one time, or a movie of its motion (4.1.10).
//!
//! The scene is simulated as far as the pictures need, then drawn off-screen (no display
//! needed). A still goes to a `.png` or `.ppm` file; a movie to a folder of numbered PNGs, a
//! `.gif`, an `.apng` (or `.png`), or an `.mp4`/`.webm` through ffmpeg.

use super::limits::RunLimitArgs;
use super::scene_file::{check_output_folder, progress_bar, PictureArgs, SceneFile};
use asgard::render::image::{write_png, write_ppm};
use asgard::render::movie::{MovieFormat, MovieWriter};
use asgard::render::scene_frame::frame_times;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct RenderArgs {
    /// The scene file.
    pub file: PathBuf,
    /// Where to write: a .png or .ppm picture, or with --movie a folder (no extension), .gif,
    /// .apng, .mp4 or .webm.
    #[arg(short, long)]
    pub output: PathBuf,
    /// The time of the picture, in seconds (default: the simulator's start).
    #[arg(long, conflicts_with = "movie")]
    pub time: Option<f64>,
    /// Write a movie of the motion instead of one picture.
    #[arg(long)]
    pub movie: bool,
    /// Movie frames per second.
    #[arg(long, default_value_t = 30.0, requires = "movie")]
    pub fps: f64,
    /// Movie start time (default: the simulator's start).
    #[arg(long, requires = "movie")]
    pub from: Option<f64>,
    /// Movie end time (default: the simulator's finish).
    #[arg(long, requires = "movie")]
    pub to: Option<f64>,
    #[command(flatten)]
    pub picture: PictureArgs,
    #[command(flatten)]
    pub limits: RunLimitArgs,
}

pub fn run(args: RenderArgs) -> ExitCode {
    let result = SceneFile::load(&args.file).and_then(|file| {
        if args.movie {
            movie(&args, &file)
        } else {
            still(&args, &file)
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

/// How a still picture is stored.
enum StillFormat {
    Png,
    Ppm,
}

fn still(args: &RenderArgs, file: &SceneFile) -> Result<(), String> {
    let out = &args.output;
    let extension = out
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    let format = match extension.as_deref() {
        Some("png") => StillFormat::Png,
        Some("ppm") => StillFormat::Ppm,
        _ => {
            return Err(format!(
                "{}: error: a picture is written as .png or .ppm (use --movie for movies)",
                out.display()
            ))
        }
    };
    check_output_folder(out)?;
    let frame = args.picture.still(file, args.time, args.limits.limits())?;
    let mut target = args.picture.offscreen(file)?;
    let image = target
        .render(&frame)
        .map_err(|e| format!("{}: error: {e}", file.name))?;
    match format {
        StillFormat::Png => write_png(out, &image),
        StillFormat::Ppm => write_ppm(out, &image),
    }
    .map_err(|e| format!("error: {e}"))
}

fn movie(args: &RenderArgs, file: &SceneFile) -> Result<(), String> {
    let (start, finish) = file.time_range();
    let (from, to) = (args.from.unwrap_or(start), args.to.unwrap_or(finish));
    file.check_time(from, "--from")?;
    file.check_time(to, "--to")?;
    if to < from {
        return Err(format!(
            "{}: error: --to {to} comes before --from {from}",
            file.name
        ));
    }
    let out = &args.output;
    let format = MovieFormat::from_path(out).map_err(|e| format!("error: {e}"))?;
    check_output_folder(out)?;
    let mut writer =
        MovieWriter::create(out, format, args.fps).map_err(|e| format!("error: {e}"))?;
    let times = frame_times(from, to, args.fps);
    let motion = file.simulate(to, args.limits.limits())?;
    let mut target = args.picture.offscreen(file)?;
    let camera = file.frames.movie_camera(&file.scene, &motion, &times);
    let stage = file.frames.stage(&file.scene, &motion, from, to);
    let bar = progress_bar(times.len() as u64, "rendering");
    for &time in &times {
        let frame = args
            .picture
            .frame(file, &motion, time, camera.clone(), stage);
        let image = target
            .render(&frame)
            .map_err(|e| format!("{}: error: {e}", file.name))?;
        writer.push(&image).map_err(|e| format!("error: {e}"))?;
        bar.inc(1);
    }
    bar.finish_and_clear();
    writer.finish().map_err(|e| format!("error: {e}"))?;
    Ok(())
}
