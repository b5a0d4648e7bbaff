//! What `asgard render` and `asgard export` share: reading a scene file, preparing its
//! pictures, simulating it with a progress bar, and the options of the picture.

use super::read::read_text;
use asgard::doc::Document;
use asgard::lang::span::{LineCol, LineIndex};
use asgard::render::camera::{Bounds, Camera, Viewport};
use asgard::render::frame::{Frame, Looks};
use asgard::render::offscreen::{OffscreenError, OffscreenTarget};
use asgard::render::scene_frame::{CameraChoice, FrameOptions, SceneFrames, ViewSettings};
use asgard::scene::handles::{HandleKind, HandleScales};
use asgard::scene::state::BodyStates;
use asgard::scene::{evaluate, Scene};
use asgard::sim::physics::SceneMotion;
use asgard::sim::{RunControl, RunLimits, Solver, Strategy};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::Path;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A scene file evaluated and ready to be drawn.
pub struct SceneFile {
    /// The file name as given, for messages.
    pub name: String,
    pub text: String,
    pub scene: Scene,
    pub frames: SceneFrames,
    /// Where the text is in the file `name`, for the line and column of messages.
    pub origin: Origin,
}

/// Where a scene's text is: a file of its own, or one subdocument (by index) of a compound
/// document, whose errors are then reported at their line and column in the document.
#[derive(Clone)]
pub enum Origin {
    File,
    Subdocument(Rc<Document>, usize),
}

impl Origin {
    /// The line and column of byte `offset` of the scene `text` in its file.
    pub fn line_col(&self, text: &str, offset: usize) -> LineCol {
        match self {
            Origin::File => LineIndex::new(text).line_col(text, offset),
            Origin::Subdocument(document, index) => {
                document.scene_line_col(&document.subdocuments()[*index], offset)
            }
        }
    }
}

impl SceneFile {
    /// Reads and evaluates `path`; a failure is the message to print
    /// (`FILE:LINE:COL: error: …` for errors in the text).
    pub fn load(path: &Path) -> Result<SceneFile, String> {
        let name = path.display().to_string();
        let text = read_text(path, "scene").map_err(|why| format!("{name}: error: {why}"))?;
        SceneFile::evaluate(name, text, Origin::File)
    }

    /// Evaluates the scene `text` from the file `name`, where it lies as `origin` says.
    pub fn evaluate(name: String, text: String, origin: Origin) -> Result<SceneFile, String> {
        let scene = evaluate(&text).map_err(|mut e| {
            e.at = origin.line_col(&text, e.span.start);
            e.diagnostic(&name)
        })?;
        for warning in &scene.warnings {
            let mut warning = warning.clone();
            warning.at = origin.line_col(&text, warning.span.start);
            eprintln!("{}", warning.diagnostic(&name));
        }
        let frames = SceneFrames::new(&scene).map_err(|e| format!("{name}: error: {e}"))?;
        Ok(SceneFile {
            name,
            text,
            scene,
            frames,
            origin,
        })
    }

    /// The simulated time range of the scene.
    pub fn time_range(&self) -> (f64, f64) {
        (self.scene.simulator.start, self.scene.simulator.finish)
    }

    /// Checks that `time` lies in the simulated range.
    pub fn check_time(&self, time: f64, option: &str) -> Result<(), String> {
        let (start, finish) = self.time_range();
        if time.is_finite() && start <= time && time <= finish {
            Ok(())
        } else {
            Err(format!(
                "{}: error: {option} {time} is outside the simulated time range {start} to {finish}",
                self.name
            ))
        }
    }

    /// Simulates the scene within `limits` until every body's motion is known up to `until`,
    /// with a progress bar on a terminal.
    pub fn simulate(&self, until: f64, limits: RunLimits) -> Result<SceneMotion, String> {
        let located = |e: asgard::sim::physics::PhysicsError| match e.span() {
            Some(span) => {
                let at = self.origin.line_col(&self.text, span.start);
                format!("{}:{at}: error: {e}", self.name)
            }
            None => format!("{}: error: {e}", self.name),
        };
        // A solver, not a bare simulation: it detects and answers the collisions (a picture of
        // wall.asg used to show its bricks falling through the floor).
        let mut solver = Solver::with_limits(self.scene.clone(), Strategy::EventDriven, limits)
            .map_err(located)?;
        solver.set_progress_every(PROGRESS_EVERY);
        let (start, _) = self.time_range();
        let bar = progress_bar(((until - start) * 1000.0).max(1.0) as u64, "simulating");
        let stop = AtomicBool::new(false);
        let mut report = |p: &asgard::sim::Progress| {
            bar.set_position(((p.time - start) * 1000.0).max(0.0) as u64);
            if p.time >= until {
                stop.store(true, Ordering::Relaxed);
            }
        };
        let result = solver.run(&mut RunControl {
            cancel: Some(&stop),
            progress: Some(&mut report),
        });
        bar.finish_and_clear();
        let motion = solver.motion();
        match result {
            Ok(_) => Ok(motion),
            // The motion before a failure stays usable: only a picture past it is lost.
            Err(e) if motion.complete_until() >= until => {
                eprintln!("{}: warning: {e}", self.name);
                Ok(motion)
            }
            Err(e) => Err(located(e)),
        }
    }
}

/// Simulation progress is reported, and so the stop time checked, every this many steps: a
/// picture needs the motion only up to its time.
const PROGRESS_EVERY: u64 = 50;

/// A progress bar of `length` steps drawn on standard error when it is a terminal.
pub fn progress_bar(length: u64, message: &'static str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(length).with_message(message);
    if let Ok(style) = ProgressStyle::with_template("{msg:>10} [{bar:40}] {percent:>3}% {eta}") {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// The picture options shared by `render` and `export`.
#[derive(Args, Debug, Clone)]
pub struct PictureArgs {
    /// Picture size in pixels, WIDTHxHEIGHT.
    #[arg(long, default_value = "640x480", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Draw the bodies as their edges only.
    #[arg(long)]
    pub wireframe: bool,
    /// The view, in the words of the scene's camera command: any of `pos X Y Z` (the eye),
    /// `rot X Y Z` (rotation vector of the view), `scale S` and `center X Y Z`, e.g.
    /// --camera "pos 0 2 15 rot 0 0.3 0". What is not given comes from the scene's camera, or
    /// from the default view fitted to the bodies.
    #[arg(long, value_parser = parse_camera)]
    pub camera: Option<CameraSpec>,
    /// Show the handles the editor would show.
    #[arg(long)]
    pub handles: bool,
    /// Show velocity, force and torque vectors.
    #[arg(long)]
    pub vectors: bool,
    /// Show trajectories with their control points.
    #[arg(long)]
    pub trajectories: bool,
    /// Do not draw links.
    #[arg(long)]
    pub no_links: bool,
    /// No ground under the bodies (it is added when the scene has no floor of its own), and
    /// so no grid and no shadows on it.
    #[arg(long)]
    pub no_ground: bool,
    /// No grid lines on the ground.
    #[arg(long)]
    pub no_grid: bool,
    /// No shadows.
    #[arg(long)]
    pub no_shadows: bool,
    /// No smoothing of edges.
    #[arg(long, alias = "no-msaa")]
    pub no_antialias: bool,
    /// Axes in the lower left corner showing which way x, y and z point.
    #[arg(long)]
    pub gizmo: bool,
}

impl PictureArgs {
    /// An off-screen target of the picture's size with the scene's meshes uploaded.
    pub fn offscreen(&self, file: &SceneFile) -> Result<OffscreenTarget, String> {
        let (width, height) = self.size;
        let cannot = |e: OffscreenError| format!("error: cannot draw off-screen: {e}");
        let mut target = OffscreenTarget::new(width, height).map_err(cannot)?;
        target
            .upload_missing(file.frames.meshes())
            .map_err(cannot)?;
        Ok(target)
    }

    pub fn viewport(&self) -> Viewport {
        Viewport::new(f64::from(self.size.0), f64::from(self.size.1))
    }

    /// The frame options, the view being `camera` and the ground under `stage`.
    pub fn frame_options(
        &self,
        file: &SceneFile,
        camera: CameraChoice,
        stage: Option<Bounds>,
    ) -> FrameOptions {
        FrameOptions {
            wireframe: self.wireframe,
            handles: if self.handles {
                HandleKind::ALL.to_vec()
            } else {
                Vec::new()
            },
            looks: self.looks(),
            links: !self.no_links,
            vectors: self.vectors,
            trajectories: self.trajectories,
            scales: HandleScales::fitted(&file.scene, file.frames.shapes()),
            camera,
            stage,
            ..FrameOptions::default()
        }
    }

    /// The looks the options leave on.
    pub fn looks(&self) -> Looks {
        Looks {
            antialias: !self.no_antialias,
            shadows: !self.no_shadows,
            ground: !self.no_ground,
            grid: !self.no_grid,
            gizmo: self.gizmo,
        }
    }

    /// The one picture of `asgard render` and `asgard export`: the frame of `file` at `time`
    /// (the start when not given, checked as `--time`), simulated up to it within `limits`,
    /// seen from the scene's camera, the ground under where the bodies went until then.
    pub fn still(
        &self,
        file: &SceneFile,
        time: Option<f64>,
        limits: RunLimits,
    ) -> Result<Frame, String> {
        let time = time.unwrap_or(file.time_range().0);
        file.check_time(time, "--time")?;
        let motion = file.simulate(time, limits)?;
        let stage = file
            .frames
            .stage(&file.scene, &motion, file.time_range().0, time);
        Ok(self.frame(file, &motion, time, CameraChoice::Scene, stage))
    }

    /// The frame of `file` at `time`, seen as `camera` chooses with the `--camera` values put
    /// in, the ground under `stage` (where the bodies go over the motion pictured, from
    /// [`SceneFrames::stage`]).
    pub fn frame(
        &self,
        file: &SceneFile,
        states: &dyn BodyStates,
        time: f64,
        camera: CameraChoice,
        stage: Option<Bounds>,
    ) -> Frame {
        let options = self.frame_options(file, camera, stage);
        let mut frame = file
            .frames
            .frame(&file.scene, states, time, &options, &self.viewport());
        if let Some(spec) = &self.camera {
            frame.camera = spec.applied_to(&frame.camera);
        }
        frame
    }
}

/// The values `--camera` gives.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CameraSpec {
    pub pos: Option<nalgebra::Vector3<f64>>,
    pub rot: Option<nalgebra::Vector3<f64>>,
    pub scale: Option<f64>,
    pub centre: Option<nalgebra::Vector3<f64>>,
}

impl CameraSpec {
    /// `base` with the given values put in.
    pub fn applied_to(&self, base: &Camera) -> Camera {
        let mut settings = ViewSettings::of(base);
        settings.pos = self.pos.unwrap_or(settings.pos);
        settings.rot = self.rot.unwrap_or(settings.rot);
        settings.scale = self.scale.unwrap_or(settings.scale);
        settings.centre = self.centre.unwrap_or(settings.centre);
        Camera {
            fov_y: base.fov_y,
            ..settings.camera()
        }
    }
}

/// `WIDTHxHEIGHT`, each 1 to 16384.
pub fn parse_size(text: &str) -> Result<(u32, u32), String> {
    let (w, h) = text
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("expected WIDTHxHEIGHT such as 640x480, found \"{text}\""))?;
    let side = |s: &str, what: &str| match s.trim().parse::<u32>() {
        Ok(n) if (1..=16384).contains(&n) => Ok(n),
        _ => Err(format!(
            "the {what} in \"{text}\" must be a whole number of pixels from 1 to 16384"
        )),
    };
    Ok((side(w, "width")?, side(h, "height")?))
}

/// `pos X Y Z`, `rot X Y Z`, `scale S`, `center X Y Z` (or `centre`), in any order.
pub fn parse_camera(text: &str) -> Result<CameraSpec, String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut spec = CameraSpec::default();
    let mut at = 0;
    let number = |k: usize| -> Result<f64, String> {
        let word = words.get(k).ok_or_else(|| {
            format!(
                "--camera: \"{}\" needs more numbers",
                words[at_key(&words, k)]
            )
        })?;
        word.parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| {
                format!(
                    "--camera: expected a number, found \"{word}\" (word {})",
                    k + 1
                )
            })
    };
    while at < words.len() {
        let key = words[at];
        let vector = |start: usize| -> Result<nalgebra::Vector3<f64>, String> {
            Ok(nalgebra::Vector3::new(
                number(start)?,
                number(start + 1)?,
                number(start + 2)?,
            ))
        };
        match key {
            "pos" => spec.pos = Some(vector(at + 1)?),
            "rot" => spec.rot = Some(vector(at + 1)?),
            "center" | "centre" => spec.centre = Some(vector(at + 1)?),
            "scale" => {
                let scale = number(at + 1)?;
                if scale <= 0.0 {
                    return Err(format!(
                        "--camera: scale must be greater than 0, found {scale}"
                    ));
                }
                spec.scale = Some(scale);
            }
            other => {
                return Err(format!(
                "--camera: unknown value \"{other}\" (word {}); expected pos, rot, scale or center",
                at + 1
            ))
            }
        }
        at += if key == "scale" { 2 } else { 4 };
    }
    if spec == CameraSpec::default() {
        return Err("--camera: expected at least one of pos, rot, scale or center".into());
    }
    Ok(spec)
}

/// The index of the key word a number at `k` belongs to (the last key before it).
fn at_key(words: &[&str], k: usize) -> usize {
    (0..k.min(words.len()))
        .rev()
        .find(|&i| words[i].parse::<f64>().is_err())
        .unwrap_or(0)
}

/// The output path's folder exists (so a write error is about the file itself).
pub fn check_output_folder(path: &Path) -> Result<(), String> {
    match path.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(parent) if !parent.is_dir() => Err(format!(
            "{}: error: the folder {} does not exist",
            path.display(),
            parent.display()
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_cameras_parse_with_clear_errors() {
        assert_eq!(parse_size("320x200"), Ok((320, 200)));
        assert!(parse_size("320").unwrap_err().contains("WIDTHxHEIGHT"));
        assert!(parse_size("0x10").unwrap_err().contains("width"));
        let spec = parse_camera("rot 0 0.5 0 scale 2 centre 1 2 3").unwrap();
        assert_eq!(spec.rot, Some(nalgebra::Vector3::new(0.0, 0.5, 0.0)));
        assert_eq!(spec.scale, Some(2.0));
        assert_eq!(spec.centre, Some(nalgebra::Vector3::new(1.0, 2.0, 3.0)));
        assert_eq!(spec.pos, None);
        assert!(parse_camera("pos 1 2")
            .unwrap_err()
            .contains("\"pos\" needs more numbers"));
        assert!(parse_camera("pos 1 x 3")
            .unwrap_err()
            .contains("found \"x\""));
        assert!(parse_camera("zoom 2")
            .unwrap_err()
            .contains("unknown value \"zoom\""));
        assert!(parse_camera("scale -1")
            .unwrap_err()
            .contains("greater than 0"));
        assert!(parse_camera("").is_err());
    }
}
