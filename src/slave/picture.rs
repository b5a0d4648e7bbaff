//! What the slave needs to draw one evaluated scene: its meshes and body parts, the handles and
//! how long vector handles are drawn. Built again whenever the scene changes, shared by every
//! rendition.

use crate::ipc::HandleKind;
use crate::render::scene_frame::{SceneFrameError, SceneFrames};
use crate::scene::handles::{self, Handle, HandleScales};
use crate::scene::model::Scene;

/// The drawing data of one scene.
pub struct Picture {
    pub frames: SceneFrames,
    pub scales: HandleScales,
    /// Every handle of the scene in its initial state (`scene::handles::handles`).
    pub handles: Vec<Handle>,
}

impl Picture {
    pub fn new(scene: &Scene) -> Result<Picture, SceneFrameError> {
        let frames = SceneFrames::new(scene)?;
        let scales = HandleScales::fitted(scene, frames.shapes());
        let handles = handles::handles(scene, frames.shapes(), &scales);
        Ok(Picture {
            frames,
            scales,
            handles,
        })
    }
}

/// The handle kinds of the picture that one kind of the contract shows.
pub fn scene_handle_kinds(kind: HandleKind) -> &'static [handles::HandleKind] {
    use handles::HandleKind as H;
    match kind {
        HandleKind::Position => &[H::BodyPosition],
        HandleKind::Rotation => &[H::BodyRotation],
        HandleKind::Velocity => &[H::Velocity],
        HandleKind::AngularVelocity => &[H::AngularVelocity],
        HandleKind::Force => &[H::ForceBase, H::ForceHead, H::TorqueHead],
        HandleKind::Link => &[H::LinkEnd],
        HandleKind::Trajectory => &[H::TrajectoryPoint],
        HandleKind::Light => &[H::LightPosition, H::LightDirection],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The camera's handles are the editor's alone: a rendition's drag writes one parameter
    /// (`Session::edit`), while moving the camera rewrites its whole command.
    #[test]
    fn every_scene_handle_kind_but_the_cameras_has_exactly_one_contract_kind() {
        for kind in handles::HandleKind::ALL {
            let owners = HandleKind::ALL
                .iter()
                .filter(|k| scene_handle_kinds(**k).contains(&kind))
                .count();
            assert_eq!(owners, usize::from(!kind.is_camera()), "{kind:?}");
        }
    }
}
