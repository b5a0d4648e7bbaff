//! The scene's camera in the control panel (4.1.7): where the camera is and the point it looks
//! at, typed and entered, written into the text's `camera` command
//! (`scene_text::write_camera`) as one undoable change, like Keep this view.
//!
//! People place a camera by where it stands and what it looks at, not by a rotation vector: the
//! fields show the camera that way, and what is entered becomes the rotation that looks from
//! the position at that point with y up, and that point becomes the centre the view turns and
//! zooms about. The zoom (`scale`) is kept. A camera whose position, rotation or centre follows
//! a trajectory or expressions is edited in the text: the fields then say so and take nothing.

use super::editor::Editor;
use super::fields::{apply_button, labelled_entry, typed_number};
use super::scene_text::{number, write_camera, CameraView};
use crate::scene::model::{Camera, CameraValue, Vec3};
use crate::session::Event;
use gtk::prelude::*;
use gtk4 as gtk;
use nalgebra::UnitQuaternion;
use std::cell::OnceCell;
use std::rc::Rc;

/// How far off the view axis, relative to its distance, the camera's centre may be and still
/// be shown as the point looked at (the rotation is written with six significant digits).
const ON_AXIS: f64 = 1e-4;

/// A camera as the fields show it: where it is and the point it looks at.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Looking {
    pub from: Vec3,
    pub at: Vec3,
}

/// The direction an unrotated camera looks in.
fn ahead() -> Vec3 {
    -Vec3::z()
}

/// How `camera` looks, when its position, rotation and centre are literals: the point looked
/// at is its centre when that lies on the view axis, else the point of the axis as far away.
pub fn looking(camera: &Camera) -> Result<Looking, String> {
    let literal = |value: &CameraValue, option: &str| match value {
        CameraValue::Constant(v) => Ok(v.value),
        CameraValue::Trajectory(name) => Err(format!(
            "the camera's {option} follows trajectory {name}: edit it in the text"
        )),
        CameraValue::Expressions(_) => Err(format!(
            "the camera's {option} is computed by expressions: edit it in the text"
        )),
    };
    let from = literal(&camera.pos, "pos")?;
    let rot = literal(&camera.rot, "rot")?;
    let centre = literal(&camera.center, "center")?;
    let forward = UnitQuaternion::from_scaled_axis(rot) * ahead();
    let distance = (centre - from).norm();
    let on_axis = from + forward * distance;
    let at = if (on_axis - centre).norm() <= ON_AXIS * distance && distance > 0.0 {
        centre
    } else {
        from + forward * distance.max(1.0)
    };
    Ok(Looking { from, at })
}

/// The view from `looking.from` towards `looking.at` with y up (straight up or down, −z is
/// the picture's up), turning and zooming about `looking.at`, at zoom `scale`.
pub fn view_of(looking: Looking, scale: f64) -> Result<CameraView, String> {
    let towards = looking.at - looking.from;
    if towards.norm() == 0.0 {
        return Err("the camera cannot look at the point where it stands".into());
    }
    let dir = towards.normalize();
    let up = if dir.cross(&Vec3::y()).norm() < 1e-9 {
        -Vec3::z()
    } else {
        Vec3::y()
    };
    // face_towards turns +z to its direction: the camera's −z is to look along `dir`.
    let rotation = UnitQuaternion::face_towards(&-dir, &up);
    Ok(CameraView {
        pos: looking.from,
        rot: rotation.scaled_axis(),
        center: looking.at,
        scale,
    })
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
        let kept_scale = match &scene.camera {
            Some(camera) => self::looking(camera).map(|_| camera.scale.value),
            None => Ok(1.0),
        };
        let text = editor.session.text().to_owned();
        kept_scale
            .and_then(|scale| view_of(looking, scale))
            .and_then(|view| write_camera(&text, &scene, &view).map_err(|e| e.reason))
            .map(|written| (written != text).then_some(written))
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

    fn camera(text: &str) -> Camera {
        evaluate(text).unwrap().camera.unwrap()
    }

    #[test]
    fn a_typed_camera_looks_from_its_position_at_the_point_with_y_up() {
        let wanted = Looking {
            from: Vec3::new(2.0, 3.0, 15.0),
            at: Vec3::new(0.0, 1.0, 0.0),
        };
        let view = view_of(wanted, 1.5).unwrap();
        let turned = UnitQuaternion::from_scaled_axis(view.rot);
        let dir = (wanted.at - wanted.from).normalize();
        assert!((turned * ahead() - dir).norm() < 1e-12);
        let right = turned * Vec3::x();
        assert!(right.y.abs() < 1e-12, "no roll: {right:?}");
        assert!((turned * Vec3::y()).y > 0.0, "y is up");
        assert_eq!((view.center, view.scale), (wanted.at, 1.5));
        let down = Looking {
            from: Vec3::new(0.0, 10.0, 0.0),
            at: Vec3::zeros(),
        };
        let turned = UnitQuaternion::from_scaled_axis(view_of(down, 1.0).unwrap().rot);
        assert!((turned * ahead() + Vec3::y()).norm() < 1e-12);
        let nowhere = Looking {
            from: Vec3::x(),
            at: Vec3::x(),
        };
        assert!(view_of(nowhere, 1.0).is_err());
    }

    #[test]
    fn a_written_camera_is_shown_as_it_was_typed() {
        let typed = Looking {
            from: Vec3::new(2.0, 3.0, 15.0),
            at: Vec3::new(0.0, 1.0, 0.0),
        };
        let view = view_of(typed, 1.0).unwrap();
        let text = format!(
            "camera pos {{2 3 15}} rot {} center {{0 1 0}}",
            super::super::scene_text::vector(&view.rot)
        );
        assert_eq!(looking(&camera(&text)), Ok(typed));
        // Off the axis, the centre is not what is looked at: the axis point as far away is.
        let shown = looking(&camera("camera pos {0 0 10} center {3 0 0}")).unwrap();
        let far = 109f64.sqrt();
        assert!((shown.at - Vec3::new(0.0, 0.0, 10.0 - far)).norm() < 1e-12);
    }

    #[test]
    fn a_camera_that_moves_is_edited_in_the_text() {
        let moving = camera(
            "trajectory p points {{0 0 0 10} {1 1 0 10}}\ncamera pos p\n\
             shape_set s desc {sphere 1}\nbody b shape s",
        );
        let reason = looking(&moving).unwrap_err();
        assert!(reason.contains("follows trajectory p"), "{reason}");
        let turning = camera("camera rot {0 {$t} 0}");
        assert!(looking(&turning).unwrap_err().contains("expressions"));
    }
}
