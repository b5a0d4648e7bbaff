//! A whole window's picture as GTK shows it, written as PNG: menus, text, controls and the 3D
//! views in one picture, which is how the README's pictures are made.
//!
//! The window's widgets are drawn into a render node (`gtk::WidgetPaintable`, the same drawing
//! GTK puts on the screen; a GL view contributes the texture of its last picture), the
//! window's own renderer turns the node into a texture, and the texture's PNG is written
//! atomically through [`crate::save`].
//!
//! The editor's windows and the host's offer it in their menus (each shell asks for the file
//! its own way). For scripts, [`serve_action`] adds the application action `export-window`
//! with the parameter `(title, path)`: GApplication publishes its actions on the session bus
//! (`org.gtk.Actions` at the application's object path, on the process's own connection), so
//!
//! ```text
//! gdbus call --session --dest NAME --object-path /org/asgard/Editor \
//!     --method org.gtk.Actions.Activate export-window "[<('Graphical viewer 1', '/tmp/v.png')>]" {}
//! ```
//!
//! writes the picture of the window whose title contains "Graphical viewer 1" (NAME is the
//! connection of the process, found by its process id: `scripts/readme-pictures` does this).

use crate::save;
use gtk::prelude::*;
use gtk::{gdk, graphene};
use gtk4 as gtk;
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// The name of the window action (`win.export-window`) and of the scripting action
/// (`app.export-window`).
pub const ACTION: &str = "export-window";
/// The menu item's label.
pub const MENU_LABEL: &str = "Export window as PNG…";

/// Writes the picture of `window`, as GTK paints it next, to `path` as PNG, then calls
/// `done` with its size in pixels or what went wrong. The picture is taken right after the
/// window's next paint (one is asked for): GTK keeps a window's drawing only until something
/// in it changes, which a playing animation does at every frame. A window that is not shown
/// is an error at once, and nothing is written.
pub fn write_png(
    window: &gtk::Window,
    path: &Path,
    done: impl FnOnce(Result<(u32, u32), String>) + 'static,
) {
    let title = window.title().unwrap_or_default().to_string();
    let Some(clock) = window.frame_clock().filter(|_| window.is_mapped()) else {
        done(Err(format!("the window \"{title}\" is not shown")));
        return;
    };
    let path = path.to_path_buf();
    let weak = window.downgrade();
    let handler = Rc::new(Cell::new(None));
    let done = Cell::new(Some(done));
    let own = handler.clone();
    let id = clock.connect_after_paint(move |clock| {
        if let Some(id) = own.take() {
            clock.disconnect(id);
        }
        let (Some(done), Some(window)) = (done.take(), weak.upgrade()) else {
            return;
        };
        done(picture(&window, &title).and_then(|texture| {
            let bytes = texture.save_to_png_bytes();
            save::write(&path, &bytes, save::Options::OUTPUT)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            Ok((texture.width() as u32, texture.height() as u32))
        }));
    });
    handler.set(Some(id));
    window.queue_draw();
}

/// The window's drawing, as its last paint left it, rendered by the window's own renderer
/// without the shadow GTK may draw around it.
fn picture(window: &gtk::Window, title: &str) -> Result<gdk::Texture, String> {
    let (width, height) = (window.width(), window.height());
    if width <= 0 || height <= 0 {
        return Err(format!("the window \"{title}\" has no size yet"));
    }
    let renderer = window
        .renderer()
        .ok_or_else(|| format!("the window \"{title}\" has no renderer"))?;
    let paintable = gtk::WidgetPaintable::new(Some(window));
    let snapshot = gtk::Snapshot::new();
    paintable.snapshot(&snapshot, f64::from(width), f64::from(height));
    let node = snapshot
        .to_node()
        .ok_or_else(|| format!("the window \"{title}\" drew nothing"))?;
    let area = graphene::Rect::new(0.0, 0.0, width as f32, height as f32);
    Ok(renderer.render_texture(node, Some(&area)))
}

/// Adds the application action `export-window` (parameter `(ss)`: a part of a window's title
/// and a file path) to `app`, once, for scripts over D-Bus. The window is the one of `app`
/// whose title contains the given text; what went wrong (no such window, several, a file
/// that cannot be written) is printed on standard error, located by the action's name.
pub fn serve_action(app: &gtk::Application) {
    if app.lookup_action(ACTION).is_some() {
        return;
    }
    let parameter = <(String, String)>::static_variant_type();
    let action = gtk::gio::SimpleAction::new(ACTION, Some(&parameter));
    let weak = app.downgrade();
    action.connect_activate(move |_, parameter| {
        let (Some(app), Some((title, path))) = (
            weak.upgrade(),
            parameter.and_then(|p| p.get::<(String, String)>()),
        ) else {
            return;
        };
        let window = window_titled(&app, &title);
        let target = PathBuf::from(&path);
        let failed = move |why: String| eprintln!("asgard: {ACTION} ({title:?}, {path:?}): {why}");
        match window {
            Ok(window) => write_png(&window, &target, move |written| {
                if let Err(why) = written {
                    failed(why);
                }
            }),
            Err(why) => failed(why),
        }
    });
    app.add_action(&action);
}

/// The one window of `app` whose title contains `part`.
fn window_titled(app: &gtk::Application, part: &str) -> Result<gtk::Window, String> {
    let windows = app.windows();
    let titles: Vec<String> = windows
        .iter()
        .map(|w| w.title().map(|t| t.to_string()).unwrap_or_default())
        .collect();
    let matching: Vec<usize> = (0..windows.len())
        .filter(|&i| titles[i].contains(part))
        .collect();
    match matching.as_slice() {
        [one] => Ok(windows[*one].clone()),
        [] => Err(format!(
            "no window's title contains {part:?} (the windows: {titles:?})"
        )),
        several => Err(format!(
            "several windows' titles contain {part:?}: {:?}",
            several.iter().map(|&i| &titles[i]).collect::<Vec<_>>()
        )),
    }
}
