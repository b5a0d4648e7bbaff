//! `asgard export`: a scene at one time as a PPM picture, a PostScript line drawing or a
//! Rayshade scene file, or its whole motion as glTF 2.0 (4.1.10) or as a web page (HTML, which
//! takes compound documents too: `export_html`).
//!
//! glTF carries the motion as one CUBICSPLINE animation channel per body for translation and
//! one for rotation, keyed at every time any body's track has a point with the velocities
//! there as tangents, so the file plays back the cubic Hermite motion the simulator's tracks
//! hold (`sim::track`; the dissertation's tracks were piecewise linear, 4.1.9).
//!
//! `-o OUT` is written atomically (a failure leaves the file that was there); a read-only OUT
//! is refused before anything is computed, unless `--force` is given.

use super::limits::RunLimitArgs;
use super::scene_file::{check_output_folder, PictureArgs, SceneFile};
use asgard::doc::DEFAULT_MAX_SIZE;
use asgard::render::export::gltf::{self, Motion};
use asgard::render::export::postscript::to_eps;
use asgard::render::export::rayshade::to_rayshade;
use asgard::render::image::ppm_bytes;
use asgard::save::{self, AtomicFile, ReadOnly};
use clap::{Args, ValueEnum};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// A picture (binary PPM), drawn off-screen.
    Ppm,
    /// An Encapsulated PostScript line drawing.
    Ps,
    /// A Rayshade 4 scene file.
    Rayshade,
    /// glTF 2.0 JSON with the buffer embedded, carrying the whole motion.
    Gltf,
    /// Binary glTF 2.0, carrying the whole motion.
    Glb,
    /// A web page, OUTPUT/index.html, playing the whole motion in any browser with WebGL;
    /// FILE may also be a compound document, shown with its text.
    Html,
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// The scene file (for --format html, a scene or a compound document).
    pub file: PathBuf,
    #[arg(long, value_enum)]
    pub format: ExportFormat,
    /// The file to write (atomically: a failure leaves the old file); for --format html, the
    /// folder to write index.html into (made if it does not exist).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Replace OUTPUT even when it is read-only.
    #[arg(long)]
    pub force: bool,
    /// The time of a picture, drawing or Rayshade file, in seconds (default: the simulator's
    /// start). glTF and web pages always carry the whole motion.
    #[arg(long)]
    pub time: Option<f64>,
    #[command(flatten)]
    pub picture: PictureArgs,
    #[command(flatten)]
    pub limits: RunLimitArgs,
    /// The largest document read by --format html, in bytes; larger ones are refused.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_SIZE)]
    pub max_size: u64,
}

pub fn run(args: ExportArgs) -> ExitCode {
    let result = match args.format {
        ExportFormat::Html => super::export_html::export(&args),
        _ => SceneFile::load(&args.file).and_then(|file| export(&args, &file)),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

fn export(args: &ExportArgs, file: &SceneFile) -> Result<(), String> {
    let out = &args.output;
    check_output_folder(out)?;
    // Opened first, so that an output that cannot be replaced is refused before the work.
    let options = save::Options::OUTPUT.with_read_only(ReadOnly::replace_if(args.force));
    let output = AtomicFile::create(out, options).map_err(|e| super::write_error(out, &e))?;
    let write = |bytes: &[u8]| {
        let mut output = output;
        output
            .write_all(bytes)
            .and_then(|()| output.commit())
            .map_err(|e| super::write_error(out, &e))
    };
    if matches!(args.format, ExportFormat::Gltf | ExportFormat::Glb) {
        if args.time.is_some() {
            return Err(format!(
                "{}: error: --time does not apply to glTF, which carries the whole motion",
                file.name
            ));
        }
        let (_, finish) = file.time_range();
        let motion = file.simulate(finish, args.limits.limits())?;
        let asset = gltf::build(
            file.frames.meshes(),
            &file.frames.gltf_bodies(&file.scene),
            &Motion::sampled(&file.scene, &motion),
        )
        .map_err(|e| format!("{}: error: {e}", file.name))?;
        return match args.format {
            ExportFormat::Glb => write(&asset.to_glb()),
            _ => write(asset.to_gltf().as_bytes()),
        };
    }
    let frame = args.picture.still(file, args.time, args.limits.limits())?;
    let (width, height) = args.picture.size;
    let meshes = file.frames.meshes();
    let failed = |e: asgard::render::export::ExportError| format!("{}: error: {e}", file.name);
    match args.format {
        ExportFormat::Ps => write(
            to_eps(&frame, meshes, width, height)
                .map_err(failed)?
                .as_bytes(),
        ),
        ExportFormat::Rayshade => write(
            to_rayshade(&frame, meshes, width, height)
                .map_err(failed)?
                .as_bytes(),
        ),
        _ => {
            let mut target = args.picture.offscreen(file)?;
            let image = target
                .render(&frame)
                .map_err(|e| format!("{}: error: {e}", file.name))?;
            write(&ppm_bytes(&image).map_err(|e| format!("error: {e}"))?)
        }
    }
}
