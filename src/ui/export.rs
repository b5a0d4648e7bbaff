//! Export from the control panel (4.1.10): a picture, a movie or glTF of the scene, drawn as
//! the graphical viewer used last shows it (its view, time, size and what it shows besides the
//! bodies), through the same writers `asgard render` and `asgard export` use.
//!
//! A picture is drawn off-screen at once. A movie renders a few frames per turn of the main
//! loop so the windows stay responsive, reporting progress in the status line.

use super::editor::{Editor, ExportView};
use super::graphical::{initial_options, initial_view};
use crate::render::camera::Viewport;
use crate::render::export::gltf::{self, Motion};
use crate::render::export::postscript::to_eps;
use crate::render::export::rayshade::to_rayshade;
use crate::render::image::{write_png, write_ppm};
use crate::render::movie::{MovieFormat, MovieWriter};
use crate::render::offscreen::OffscreenTarget;
use crate::render::scene_frame::{frame_times, CameraChoice, SceneFrames};
use crate::scene::handles::HandleScales;
use crate::scene::state::{BodyStates, InitialStates};
use crate::scene::Scene;
use crate::session::SimStatus;
use crate::sim::physics::SceneMotion;
use gtk::glib;
use gtk4 as gtk;
use std::path::Path;
use std::rc::Rc;

/// Movie frames per second.
const MOVIE_FPS: f64 = 30.0;
/// Frames rendered per turn of the main loop while writing a movie.
const FRAMES_PER_TURN: usize = 4;
/// The picture size when no graphical viewer has been drawn.
const DEFAULT_SIZE: (u32, u32) = (640, 480);

/// The scene, its pictures, its motion (when current) and the view to draw from.
struct Source {
    scene: Scene,
    frames: SceneFrames,
    motion: Option<SceneMotion>,
    view: ExportView,
}

fn source(editor: &Editor) -> Result<Source, String> {
    let scene = editor
        .session
        .scene()
        .map(|s| s.clone())
        .ok_or("The text has no evaluated scene to export.")?;
    let frames = SceneFrames::new(&scene).map_err(|e| format!("Cannot draw the scene: {e}"))?;
    let view = editor.export_view().unwrap_or_else(|| {
        let options = initial_options(HandleScales::fitted(&scene, frames.shapes()));
        let (w, h) = DEFAULT_SIZE;
        let viewport = Viewport::new(f64::from(w), f64::from(h));
        let camera = initial_view(&scene, &frames, &options, &viewport);
        let mut options = options;
        options.handles.clear();
        options.camera = CameraChoice::Given(camera);
        ExportView {
            camera,
            time: scene.simulator.start,
            options,
            size: DEFAULT_SIZE,
        }
    });
    Ok(Source {
        motion: editor.current_motion(),
        scene,
        frames,
        view,
    })
}

impl Source {
    fn frame(&self, time: f64) -> crate::render::frame::Frame {
        let initial = InitialStates { scene: &self.scene };
        let states: &dyn BodyStates = match &self.motion {
            Some(m) => m,
            None => &initial,
        };
        let (w, h) = self.view.size;
        let viewport = Viewport::new(f64::from(w), f64::from(h));
        self.frames
            .frame(&self.scene, states, time, &self.view.options, &viewport)
    }

    fn offscreen(&self) -> Result<OffscreenTarget, String> {
        release_gtk_gl();
        let (w, h) = self.view.size;
        let cannot =
            |e: crate::render::offscreen::OffscreenError| format!("Cannot draw off-screen: {e}");
        let mut target = OffscreenTarget::new(w, h).map_err(cannot)?;
        target
            .upload_missing(self.frames.meshes())
            .map_err(cannot)?;
        Ok(target)
    }

    /// The whole motion, or why it is not there yet.
    fn complete_motion(&self, editor: &Editor) -> Result<&SceneMotion, String> {
        let motion = self
            .motion
            .as_ref()
            .ok_or("The motion of this text is not computed: Simulate first.")?;
        let finish = self.scene.simulator.finish;
        let done =
            editor.session.status() == SimStatus::Finished || motion.complete_until() >= finish;
        if done {
            Ok(motion)
        } else {
            Err(format!(
                "The motion is computed up to t = {:.3} of {finish}: wait for the simulation to finish.",
                motion.complete_until()
            ))
        }
    }
}

/// Lets go of the GL context GTK left current on this thread (a graphical viewer's), which
/// keeps the off-screen context from being made current (EGL_BAD_ACCESS). GTK makes its own
/// context current again before it draws.
fn release_gtk_gl() {
    gtk::gdk::GLContext::clear_current();
}

/// Writes the picture at the view's time: PNG, PPM, PostScript (.eps, .ps) or Rayshade (.ray),
/// by the file's extension.
pub fn picture(editor: &Editor, path: &Path) -> Result<(), String> {
    let source = source(editor)?;
    let frame = source.frame(source.view.time);
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let (w, h) = source.view.size;
    let write_text = |text: Result<String, crate::render::export::ExportError>| {
        let text = text.map_err(|e| e.to_string())?;
        std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
    };
    match extension.as_str() {
        "png" | "ppm" => {
            let image = source
                .offscreen()?
                .render(&frame)
                .map_err(|e| e.to_string())?;
            let written = if extension == "png" {
                write_png(path, &image)
            } else {
                write_ppm(path, &image)
            };
            written.map_err(|e| e.to_string())
        }
        "eps" | "ps" => write_text(to_eps(&frame, source.frames.meshes(), w, h)),
        "ray" => write_text(to_rayshade(&frame, source.frames.meshes(), w, h)),
        _ => Err(format!(
            "{}: a picture is written as .png, .ppm, .eps, .ps or .ray",
            path.display()
        )),
    }
}

/// Writes glTF 2.0 (.gltf or .glb) carrying the whole computed motion.
pub fn gltf(editor: &Editor, path: &Path) -> Result<(), String> {
    let source = source(editor)?;
    let motion = source.complete_motion(editor)?;
    let asset = gltf::build(
        source.frames.meshes(),
        &source.frames.gltf_bodies(&source.scene),
        &Motion::sampled(&source.scene, motion),
    )
    .map_err(|e| e.to_string())?;
    asset.write(path).map_err(|e| e.to_string())
}

/// Starts writing a movie of the whole motion (a folder of PNGs, .gif, .apng, .mp4 or .webm
/// by the name); progress and the outcome go to the status line.
pub fn movie(editor: &Rc<Editor>, path: &Path) -> Result<(), String> {
    let source = source(editor)?;
    source.complete_motion(editor)?;
    let format = MovieFormat::from_path(path).map_err(|e| e.to_string())?;
    let writer = MovieWriter::create(path, format, MOVIE_FPS).map_err(|e| e.to_string())?;
    let mut target = source.offscreen()?;
    let times = frame_times(
        source.scene.simulator.start,
        source.scene.simulator.finish,
        MOVIE_FPS,
    );
    let editor = Rc::downgrade(editor);
    let path = path.to_path_buf();
    let mut next = 0;
    let mut writer = Some(writer);
    glib::idle_add_local(move || {
        let Some(editor) = editor.upgrade() else {
            return glib::ControlFlow::Break;
        };
        let Some(w) = writer.as_mut() else {
            return glib::ControlFlow::Break;
        };
        for &time in times.iter().skip(next).take(FRAMES_PER_TURN) {
            release_gtk_gl();
            let image = match target.render(&source.frame(time)) {
                Ok(image) => image,
                Err(e) => {
                    editor.status(format!("Movie stopped: {e}"));
                    return glib::ControlFlow::Break;
                }
            };
            if let Err(e) = w.push(&image) {
                editor.status(format!("Movie stopped: {e}"));
                return glib::ControlFlow::Break;
            }
            next += 1;
        }
        if next < times.len() {
            editor.status(format!(
                "Writing the movie: frame {next} of {}",
                times.len()
            ));
            return glib::ControlFlow::Continue;
        }
        match writer.take().map(MovieWriter::finish) {
            Some(Ok(frames)) => {
                editor.status(format!("Wrote {frames} frames to {}.", path.display()))
            }
            Some(Err(e)) => editor.status(format!("The movie could not be finished: {e}")),
            None => {}
        }
        glib::ControlFlow::Break
    });
    Ok(())
}
