//! Export from the control panel (4.1.10): a picture, a movie or glTF of the scene, drawn as
//! the graphical viewer used last shows it (its view, time, size and what it shows besides the
//! bodies), through the same writers `asgard render` and `asgard export` use.
//!
//! Besides, every editor window can write a picture of itself, menus and all
//! ([`add_window_export`], through [`crate::window_picture`]).
//!
//! A picture is drawn off-screen at once, on the main thread. A movie is drawn on a thread of
//! its own, so the windows stay responsive, and reports progress in the status line.

use super::editor::{Editor, ExportView};
use super::files;
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
use crate::window_picture;
use gtk::glib;
use gtk::prelude::*;
use gtk4 as gtk;
use std::path::Path;
use std::rc::Rc;
use std::sync::mpsc;
use std::time::Duration;

/// Movie frames per second.
const MOVIE_FPS: f64 = 30.0;
/// How often the status line takes in the movie's progress, and every how many frames the
/// movie thread reports it.
const NEWS_EVERY: Duration = Duration::from_millis(100);
const FRAMES_PER_MESSAGE: usize = 10;
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

/// Lets go of the GL context GTK left current on the main thread (a graphical viewer's), which
/// keeps an off-screen context from being made current there (EGL_BAD_ACCESS). GTK makes its
/// own context current again before it draws; the off-screen target must be gone (released)
/// by then, or GTK's make-current fails (BadAccess).
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
        crate::save::write(path, text.as_bytes(), crate::save::Options::OUTPUT)
            .map_err(|e| format!("{}: {e}", path.display()))
    };
    match extension.as_str() {
        "png" | "ppm" => {
            release_gtk_gl();
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

/// Adds `win.export-window` to `window`: asks for a file, then writes the window's picture
/// there as PNG (menus, text and views as shown), reporting in the status line. Also gives
/// the application the scripting action of the same name ([`window_picture::serve_action`]).
pub fn add_window_export(editor: &Rc<Editor>, window: &gtk::ApplicationWindow) {
    window_picture::serve_action(&editor.app);
    let action = gtk::gio::SimpleAction::new(window_picture::ACTION, None);
    let editor = Rc::downgrade(editor);
    let weak = window.downgrade();
    action.connect_activate(move |_, _| {
        let (Some(window), Some(editor)) = (weak.upgrade(), editor.upgrade()) else {
            return;
        };
        let editor = Rc::downgrade(&editor);
        let shown = window.downgrade();
        files::choose(
            window.upcast_ref(),
            "Export the window as PNG",
            gtk::FileChooserAction::Save,
            Some("window.png"),
            move |path| {
                let Some(window) = shown.upgrade() else {
                    return;
                };
                let editor = editor.clone();
                let shown = path.clone();
                window_picture::write_png(window.upcast_ref(), &path, move |written| {
                    let Some(editor) = editor.upgrade() else {
                        return;
                    };
                    editor.status(match written {
                        Ok((w, h)) => format!("Wrote {} ({w} × {h}).", shown.display()),
                        Err(why) => format!("Cannot export the window: {why}"),
                    });
                });
            },
        );
    });
    window.add_action(&action);
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
/// by the name) on a thread of its own, with its own off-screen context; progress and the
/// outcome go to the status line.
pub fn movie(editor: &Rc<Editor>, path: &Path) -> Result<(), String> {
    let source = source(editor)?;
    source.complete_motion(editor)?;
    let format = MovieFormat::from_path(path).map_err(|e| e.to_string())?;
    let writer = MovieWriter::create(path, format, MOVIE_FPS).map_err(|e| e.to_string())?;
    let (sender, news) = mpsc::channel();
    let path = path.to_path_buf();
    std::thread::spawn(move || {
        let message = match write_movie(&source, writer, &sender) {
            Ok(frames) => format!("Wrote {frames} frames to {}.", path.display()),
            Err(e) => format!("The movie stopped: {e}"),
        };
        let _ = sender.send(message);
    });
    let editor = Rc::downgrade(editor);
    glib::timeout_add_local(NEWS_EVERY, move || {
        let Some(editor) = editor.upgrade() else {
            return glib::ControlFlow::Break;
        };
        loop {
            match news.try_recv() {
                Ok(message) => editor.status(message),
                Err(mpsc::TryRecvError::Empty) => return glib::ControlFlow::Continue,
                Err(mpsc::TryRecvError::Disconnected) => return glib::ControlFlow::Break,
            }
        }
    });
    Ok(())
}

/// Draws and writes every frame; returns how many were written.
fn write_movie(
    source: &Source,
    mut writer: MovieWriter,
    news: &mpsc::Sender<String>,
) -> Result<usize, String> {
    let mut target = source.offscreen()?;
    let times = frame_times(
        source.scene.simulator.start,
        source.scene.simulator.finish,
        MOVIE_FPS,
    );
    for (n, &time) in times.iter().enumerate() {
        let image = target
            .render(&source.frame(time))
            .map_err(|e| e.to_string())?;
        writer.push(&image).map_err(|e| e.to_string())?;
        if n % FRAMES_PER_MESSAGE == 0 {
            let _ = news.send(format!(
                "Writing the movie: frame {} of {}",
                n + 1,
                times.len()
            ));
        }
    }
    writer.finish().map_err(|e| e.to_string())
}
