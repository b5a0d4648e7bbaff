//! Where the scene's camera stands and the point it looks at (4.1.7).
//!
//! People place a camera by where it stands and what it looks at, not by a rotation vector:
//! the control panel's Camera fields and a graphical viewer's camera handles show the
//! `camera` command that way ([`looking`]), and what the user sets becomes the rotation that
//! looks from the position at that point with y up ([`Looking::rotation`]). A camera whose
//! position, rotation or centre follows a trajectory or expressions is edited in the text:
//! [`looking`] then says why.

use super::model::{Camera, CameraValue, Vec3};
use nalgebra::UnitQuaternion;

/// How far off the view axis, relative to its distance, the camera's centre may be and still
/// be shown as the point looked at (the rotation is written with six significant digits).
const ON_AXIS: f64 = 1e-4;

/// A camera as people place it: where it is and the point it looks at.
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

impl Looking {
    /// The rotation vector of the camera that looks from `from` towards `at` with y up
    /// (straight up or down, −z is the picture's up).
    pub fn rotation(&self) -> Result<Vec3, String> {
        let towards = self.at - self.from;
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
        Ok(UnitQuaternion::face_towards(&-dir, &up).scaled_axis())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::number::format_significant;
    use crate::scene::evaluate;

    fn camera(text: &str) -> Camera {
        evaluate(text).unwrap().camera.unwrap()
    }

    #[test]
    fn a_camera_looks_from_its_position_at_the_point_with_y_up() {
        let wanted = Looking {
            from: Vec3::new(2.0, 3.0, 15.0),
            at: Vec3::new(0.0, 1.0, 0.0),
        };
        let turned = UnitQuaternion::from_scaled_axis(wanted.rotation().unwrap());
        let dir = (wanted.at - wanted.from).normalize();
        assert!((turned * ahead() - dir).norm() < 1e-12);
        let right = turned * Vec3::x();
        assert!(right.y.abs() < 1e-12, "no roll: {right:?}");
        assert!((turned * Vec3::y()).y > 0.0, "y is up");
        let down = Looking {
            from: Vec3::new(0.0, 10.0, 0.0),
            at: Vec3::zeros(),
        };
        let turned = UnitQuaternion::from_scaled_axis(down.rotation().unwrap());
        assert!((turned * ahead() + Vec3::y()).norm() < 1e-12);
        let nowhere = Looking {
            from: Vec3::x(),
            at: Vec3::x(),
        };
        assert!(nowhere.rotation().is_err());
    }

    #[test]
    fn a_written_camera_is_shown_as_it_was_placed() {
        let placed = Looking {
            from: Vec3::new(2.0, 3.0, 15.0),
            at: Vec3::new(0.0, 1.0, 0.0),
        };
        let rot = placed.rotation().unwrap().map(|c| format_significant(c, 6));
        let text = format!(
            "camera pos {{2 3 15}} rot {{{} {} {}}} center {{0 1 0}}",
            rot.x, rot.y, rot.z
        );
        assert_eq!(looking(&camera(&text)), Ok(placed));
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
