//! The scene's camera in the control panel (4.1.7): where the camera is and the point it looks
//! at, typed and entered, written into the text's `camera` command as one undoable change,
//! like Keep this view; and [`aimed`], the one way the fields and a graphical viewer's camera
//! handles write a camera placed that way.
//!
//! The fields show the camera as `scene::camera_aim` sees it; what is entered becomes the
//! rotation that looks from the position at that point with y up, and that point becomes the
//! centre the view turns and zooms about. The zoom (`scale`) is kept. A camera whose position,
//! rotation or centre follows a trajectory or expressions is edited in the text: the fields
//! then say so and take nothing.

use super::editor::Editor;
use super::fields::{apply_button, labelled_entry, typed_number};
use super::scene_text::{number, write_camera, CameraView};
use crate::scene::camera_aim::{looking, Looking};
use crate::scene::model::{Camera, Scene, Vec3};
use crate::scene::Target;
use crate::session::Event;
use gtk::prelude::*;
use gtk4 as gtk;
use std::cell::OnceCell;
use std::rc::Rc;

/// `text` (from which `scene` was evaluated) with the scene's camera looking from
/// `looking.from` at `looking.at`: its `camera` command rewritten whole through
/// `write_camera`, so position, rotation and centre agree, the zoom kept (a new camera's is
/// 1). A camera driven by a trajectory or expressions is refused with the reason.
pub fn aimed(text: &str, scene: &Scene, looking: Looking) -> Result<String, String> {
    let scale = match &scene.camera {
        Some(camera) => self::looking(camera).map(|_| camera.scale.value)?,
        None => 1.0,
    };
    let view = CameraView {
        pos: looking.from,
        rot: looking.rotation()?,
        center: looking.at,
        scale,
    };
    write_camera(text, scene, &view).map_err(|e| e.reason)
}

/// `text` with the scene's camera handle `target` (its position, `Target::CameraPos`, or the
/// point it looks at, `Target::CameraCenter`) dragged to `to`, the camera still looking at
/// its point.
pub fn moved(text: &str, scene: &Scene, target: Target, to: Vec3) -> Result<String, String> {
    let camera = scene.camera.as_ref().ok_or("the scene has no camera")?;
    let mut placed = looking(camera)?;
    match target {
        Target::CameraPos => placed.from = to,
        Target::CameraCenter => placed.at = to,
        _ => return Err(format!("{target:?} is not a handle of the camera")),
    }
    aimed(text, scene, placed)
}

/// The six entries: the camera's position, then the point it looks at.
struct Entries {
    from: [gtk::Entry; 3],
    at: [gtk::Entry; 3],
}

/// The camera's fields for the control panel `window`, showing the scene's camera and
/// following the scene.
pub fn fields(editor: &Rc<Editor>, window: &gtk::ApplicationWindow) -> gtk::Box {
    let entries: Rc<OnceCell<Entries>> = Rc::default();
    let apply = {
        let weak = Rc::downgrade(editor);
        let entries = entries.clone();
        move || {
            if let (Some(editor), Some(entries)) = (weak.upgrade(), entries.get()) {
                apply(&editor, entries);
            }
        }
    };
    let column = gtk::Box::new(gtk::Orientation::Vertical, 4);
    let row = |labels: [&str; 3]| {
        let row = gtk::Box::new(gtk::Orientation::Horizontal, 4);
        let entries = labels.map(|label| labelled_entry(&row, label, 6, apply.clone()));
        column.append(&row);
        (row, entries)
    };
    let (_, from) = row(["Camera p_osition x", "y", "z"]);
    let (looks, at) = row(["Looks _at x", "y", "z"]);
    apply_button(&looks, "Set ca_mera", apply.clone());
    for entry in from.iter().chain(&at) {
        entry.set_placeholder_text(Some("—"));
    }
    let _ = entries.set(Entries { from, at });
    let follow = move |editor: &Editor| {
        if let (Some(scene), Some(entries)) = (editor.session.scene(), entries.get()) {
            show(&scene.camera, entries);
        }
    };
    follow(editor);
    editor.observe(window, move |editor, event| {
        if matches!(event, Event::SceneChanged) {
            follow(editor);
        }
    });
    column
}

/// Shows `camera` in the fields: empty without one (the viewers choose a view), and not
/// editable with the reason as a tooltip when its values are not literals.
fn show(camera: &Option<Camera>, entries: &Entries) {
    let shown = camera.as_ref().map(looking);
    let values = match &shown {
        Some(Ok(looking)) => Some((looking.from, looking.at)),
        _ => None,
    };
    let reason = match &shown {
        Some(Err(reason)) => Some(reason.as_str()),
        _ => None,
    };
    let all = entries.from.iter().chain(&entries.at);
    for (k, entry) in all.enumerate() {
        let value = values.map(|(from, at)| if k < 3 { from[k] } else { at[k - 3] });
        entry.set_text(&value.map(number).unwrap_or_default());
        entry.set_sensitive(reason.is_none());
        entry.set_tooltip_text(reason);
    }
}

/// Reads the three entries of `entries`, named `what` in errors.
fn typed_point(entries: &[gtk::Entry; 3], what: &str) -> Result<Vec3, String> {
    let mut point = Vec3::zeros();
    for (k, axis) in ["x", "y", "z"].into_iter().enumerate() {
        point[k] = typed_number(&format!("{what} {axis}"), &entries[k])?;
    }
    Ok(point)
}

/// Writes the camera the fields say into the text, or says why not.
fn apply(editor: &Editor, entries: &Entries) {
    let typed = typed_point(&entries.from, "Camera position").and_then(|from| {
        let at = typed_point(&entries.at, "Looks at")?;
        Ok(Looking { from, at })
    });
    let looking = match typed {
        Ok(looking) => looking,
        Err(message) => return editor.status(message),
    };
    let written = {
        let Some(scene) = editor.session.scene() else {
            editor.status("The text has an error: correct it, then set the camera.");
            return;
        };
        let text = editor.session.text();
        aimed(&text, &scene, looking).map(|written| (written != *text).then_some(written))
    };
    match written {
        Ok(Some(text)) => {
            editor.session.set_text(text, None);
            editor.status("Set the scene's camera.");
        }
        Ok(None) => {}
        Err(reason) => editor.status(format!("Cannot set the camera: {reason}.")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::evaluate;

    #[test]
    fn a_dragged_camera_handle_rewrites_the_command_still_looking_at_its_point() {
        let text = "shape_set s desc {sphere 1}\nbody b shape s\n\
                    camera pos {0 1 10} center {0 1 0} scale 2 ;# mine\n";
        let scene = evaluate(text).unwrap();
        let to = Vec3::new(3.0, 2.0, 8.0);
        let written = moved(text, &scene, Target::CameraPos, to).unwrap();
        assert_eq!(written.matches("camera ").count(), 1, "{written}");
        assert!(
            written.ends_with(" center {0 1 0} scale 2 ;# mine\n"),
            "{written}"
        );
        let camera = evaluate(&written).unwrap().camera.unwrap();
        let placed = looking(&camera).unwrap();
        assert!((placed.from - to).norm() < 1e-5, "{written}");
        assert!(
            (placed.at - Vec3::new(0.0, 1.0, 0.0)).norm() < 1e-5,
            "{written}"
        );
        // The point looked at moves; the camera stays and turns towards it.
        let scene = evaluate(&written).unwrap();
        let at = Vec3::new(1.0, 0.0, 0.0);
        let turned = moved(&written, &scene, Target::CameraCenter, at).unwrap();
        let scene = evaluate(&turned).unwrap();
        let placed = looking(scene.camera.as_ref().unwrap()).unwrap();
        assert!((placed.from - to).norm() < 1e-5 && (placed.at - at).norm() < 1e-5);
        assert!(turned.ends_with(" scale 2 ;# mine\n"), "{turned}");
        assert_eq!(
            moved(&turned, &scene, Target::CameraPos, at),
            Err("the camera cannot look at the point where it stands".into())
        );
    }

    #[test]
    fn a_camera_on_a_trajectory_is_not_moved_by_its_handles() {
        let text = "trajectory p points {{0 0 5 0} {1 1 5 0}}\ncamera pos p\n\
                    shape_set s desc {sphere 1}\nbody b shape s";
        let scene = evaluate(text).unwrap();
        let refused = moved(text, &scene, Target::CameraPos, Vec3::x()).unwrap_err();
        assert!(refused.contains("follows trajectory p"), "{refused}");
    }
}
