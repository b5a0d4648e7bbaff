//! The colours of a scene's pictures: bodies without colours, and the editing aids (links,
//! vectors, trajectories, handles), each kind in its own colour so a glance tells them apart
//! (4.1.3: "a colour that indicates what kind of quantity it is tied to").

use crate::render::frame::Rgba;
use crate::scene::handles::HandleKind;
use crate::scene::model::Color;

/// Colours given to bodies that have none, by body index.
pub const BODIES: [Rgba; 8] = [
    [0.85, 0.45, 0.25, 1.0],
    [0.30, 0.55, 0.85, 1.0],
    [0.90, 0.75, 0.25, 1.0],
    [0.40, 0.70, 0.40, 1.0],
    [0.70, 0.40, 0.75, 1.0],
    [0.35, 0.75, 0.75, 1.0],
    [0.85, 0.40, 0.55, 1.0],
    [0.60, 0.60, 0.55, 1.0],
];

/// The picture's default background: a light grey, on which black shapes still show.
pub const BACKGROUND: Rgba = [0.92, 0.93, 0.95, 1.0];
/// The ground under the bodies, a little darker than the background, and its grid lines.
pub const GROUND: Rgba = [0.85, 0.86, 0.88, 1.0];
pub const GRID: Rgba = [0.62, 0.64, 0.69, 1.0];
pub const LINK: Rgba = [0.15, 0.15, 0.15, 1.0];
/// The spring pulling a body in live mode, from the grabbed point to the pointer's target.
pub const PULL_SPRING: Rgba = [0.85, 0.10, 0.55, 1.0];
pub const VELOCITY: Rgba = [0.10, 0.60, 0.20, 1.0];
pub const ANGULAR_VELOCITY: Rgba = [0.10, 0.45, 0.45, 1.0];
pub const FORCE: Rgba = [0.80, 0.10, 0.10, 1.0];
pub const TORQUE: Rgba = [0.75, 0.35, 0.05, 1.0];
pub const TRAJECTORY: Rgba = [0.55, 0.20, 0.75, 1.0];
/// The camera's position handle and the line to the point it looks at.
pub const CAMERA: Rgba = [0.15, 0.55, 0.85, 1.0];

/// A scene colour as an opaque RGBA colour.
pub fn rgba(colour: Color) -> Rgba {
    [colour.r, colour.g, colour.b, 1.0]
}

/// The colour of a handle of `kind`.
pub fn handle(kind: HandleKind) -> Rgba {
    match kind {
        HandleKind::BodyPosition => [0.95, 0.95, 0.25, 1.0],
        HandleKind::BodyRotation => [0.95, 0.60, 0.15, 1.0],
        HandleKind::Velocity => VELOCITY,
        HandleKind::AngularVelocity => ANGULAR_VELOCITY,
        HandleKind::ForceBase => [0.95, 0.45, 0.45, 1.0],
        HandleKind::ForceHead => FORCE,
        HandleKind::TorqueHead => TORQUE,
        HandleKind::LinkEnd => [0.25, 0.25, 0.95, 1.0],
        HandleKind::TrajectoryPoint => TRAJECTORY,
        HandleKind::LightPosition => [1.0, 1.0, 1.0, 1.0],
        HandleKind::LightDirection => [0.85, 0.85, 0.55, 1.0],
        HandleKind::CameraPosition => CAMERA,
        HandleKind::CameraTarget => [0.55, 0.80, 0.95, 1.0],
    }
}
