//! Handles: the small spheres a graphical viewer drags to edit spatial parameters (4.1.2-4.1.8).
//!
//! [`handles`] lists, for a scene in its initial state, a [`Handle`] for every spatial
//! parameter the dissertation lets the user drag: a body's position and rotation, its initial
//! velocity and angular velocity, a force's point of application and head, a torque's head,
//! the end points of links, the control points of trajectories, a light's position and
//! direction, and the camera's position and the point it looks at. Each names the parameter it edits as a source-map [`Target`], sits where the
//! viewer draws it, says whether the text lets it be edited, and carries its value as a label.
//!
//! Dragging turns a pointer ray into the parameter's new value ([`Handle::drag`]): the handle
//! moves in the plane through it parallel to the screen, and the value follows from its new
//! position — a vector handle sits at `base + value × scale` ([`HandleScales`]), a point on a
//! body is kept in body coordinates, and a link end stays on its body's surface at the point
//! nearest the viewer under the pointer (figure 4.5) unless the drag is free. [`Edit::patch`]
//! writes the result into the text.

use super::camera_aim::{looking, Looking};
use super::model::{
    Camera, CameraValue, ForceKind, ForceValue, LightKind, LinkTarget, Scene, Vec3,
};
use super::shapes::SceneShapes;
use super::state::BodyState;
use super::{patch, EditValue, InitVar, PatchError, Target, TextEdit};
use crate::geom::ray::{cast_shape, Ray};
use crate::lang::number::format_significant;
use nalgebra::{Isometry3, UnitQuaternion};
use std::collections::HashSet;
use std::fmt;

/// Significant digits of the values shown in handle labels.
const LABEL_DIGITS: usize = 4;
/// Fraction of the scene's radius that the longest vector of each kind is drawn at by
/// [`HandleScales::fitted`].
const FITTED_FRACTION: f64 = 0.3;

/// What a handle is tied to; each kind is drawn in its own colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HandleKind {
    /// A body's initial position (its centre of mass).
    BodyPosition,
    /// A point on a body's x axis that turns the body about its centre of mass.
    BodyRotation,
    /// The head of a body's initial velocity vector.
    Velocity,
    /// The head of a body's initial angular velocity vector.
    AngularVelocity,
    /// Where a force is applied, or the point a torque's axis passes through.
    ForceBase,
    /// The head of a constant force vector.
    ForceHead,
    /// The head of a constant torque vector.
    TorqueHead,
    /// An end point of a link: on a body, or a fixed point in space.
    LinkEnd,
    /// A control point of a trajectory.
    TrajectoryPoint,
    /// A light's position (where a directional light is drawn).
    LightPosition,
    /// The head of a directional light's direction.
    LightDirection,
    /// Where the scene's camera stands.
    CameraPosition,
    /// The point the scene's camera looks at.
    CameraTarget,
}

impl HandleKind {
    pub const ALL: [HandleKind; 13] = [
        HandleKind::BodyPosition,
        HandleKind::BodyRotation,
        HandleKind::Velocity,
        HandleKind::AngularVelocity,
        HandleKind::ForceBase,
        HandleKind::ForceHead,
        HandleKind::TorqueHead,
        HandleKind::LinkEnd,
        HandleKind::TrajectoryPoint,
        HandleKind::LightPosition,
        HandleKind::LightDirection,
        HandleKind::CameraPosition,
        HandleKind::CameraTarget,
    ];

    /// The camera's handles, which a picture seen through the scene's camera leaves out.
    pub fn is_camera(self) -> bool {
        matches!(self, HandleKind::CameraPosition | HandleKind::CameraTarget)
    }
}

/// How long vector handles are drawn: a vector handle sits at `base + value × scale`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HandleScales {
    /// Seconds: the velocity handle is where the body would be after this long.
    pub velocity: f64,
    /// Length per radian per second.
    pub angular_velocity: f64,
    /// Length per newton.
    pub force: f64,
    /// Length per newton metre.
    pub torque: f64,
    /// Length of a directional light's direction handle.
    pub light: f64,
}

impl Default for HandleScales {
    fn default() -> Self {
        HandleScales {
            velocity: 1.0,
            angular_velocity: 1.0,
            force: 0.1,
            torque: 0.1,
            light: 2.0,
        }
    }
}

impl HandleScales {
    /// Scales that draw the longest vector of each kind at a good fraction of the scene's size
    /// in its initial state. A viewer computes them once and keeps them while the user drags,
    /// so a handle does not jump when the value it edits becomes the longest.
    pub fn fitted(scene: &Scene, shapes: &SceneShapes) -> HandleScales {
        let radius = initial_radius(scene, shapes);
        let length = FITTED_FRACTION * radius;
        let fit = |largest: f64, default: f64| {
            if largest > 0.0 && largest.is_finite() {
                length / largest
            } else {
                default
            }
        };
        let largest =
            |values: &mut dyn Iterator<Item = Vec3>| values.map(|v| v.norm()).fold(0.0, f64::max);
        let defaults = HandleScales::default();
        let forces = |kind| {
            scene
                .forces
                .iter()
                .filter(move |f| f.kind == kind)
                .filter_map(|f| constant_force(scene, shapes, f))
        };
        HandleScales {
            velocity: fit(
                largest(&mut scene.bodies.iter().map(|b| b.init_dpos.value)),
                defaults.velocity,
            ),
            angular_velocity: fit(
                largest(&mut scene.bodies.iter().map(|b| b.init_drot.value)),
                defaults.angular_velocity,
            ),
            force: fit(largest(&mut forces(ForceKind::Force)), defaults.force),
            torque: fit(largest(&mut forces(ForceKind::Torque)), defaults.torque),
            light: if radius > 0.0 { length } else { defaults.light },
        }
    }
}

/// The radius of a sphere around the bodies in their initial state, the floor's aside
/// ([`SceneShapes::framed_bodies`]); [`ROOM`] times its radius for a lone body, so that its
/// vectors reach beyond it (0 with no bodies).
fn initial_radius(scene: &Scene, shapes: &SceneShapes) -> f64 {
    let spheres: Vec<(Vec3, f64)> = shapes
        .framed_bodies(scene)
        .into_iter()
        .map(|i| {
            let body = &scene.bodies[i];
            let state = BodyState::initial(body);
            match shapes.of_body(i) {
                Some(shape) => {
                    let bound = shape.shape.bounding_sphere(&state.pose());
                    (bound.center, bound.radius)
                }
                None => (state.position, 0.0),
            }
        })
        .collect();
    let Some(first) = spheres.first() else {
        return 0.0;
    };
    let (mut min, mut max) = (first.0, first.0);
    for (c, r) in &spheres {
        min = min.inf(&c.add_scalar(-r));
        max = max.sup(&c.add_scalar(*r));
    }
    match spheres.as_slice() {
        [(_, lone)] => ROOM * lone,
        _ => (max - min).norm() / 2.0,
    }
}

/// The radius of the sphere handle scales are fitted to around a lone body, in its radii: a
/// lone ball's longest arrow is 1.5 of its radii long, its head off its surface.
const ROOM: f64 = 5.0;

/// A constant force or torque vector as it acts (gravity times the body's mass), if known
/// without simulating.
fn constant_force(
    scene: &Scene,
    shapes: &SceneShapes,
    force: &super::model::Force,
) -> Option<Vec3> {
    match &force.value {
        ForceValue::Components(v) => v.constant(),
        ForceValue::Gravity(g) => {
            let body = shapes.body_index(&force.body)?;
            Some(g.value * shapes.body_mass(scene, body)?)
        }
        ForceValue::Trajectory(_) => None,
    }
}

/// One draggable handle.
#[derive(Clone, Debug, PartialEq)]
pub struct Handle {
    pub kind: HandleKind,
    /// The element and parameter the handle edits.
    pub target: Target,
    /// World position in the initial state.
    pub position: Vec3,
    /// Whether a drag can be written into the text: the element's command created only it
    /// and the parameter is a literal there (or not written at all, so it can be added).
    pub editable: bool,
    /// The parameter's value as the viewer shows it next to the handle or while dragging.
    pub label: String,
    /// Why the handle is not editable, when its own reason says more than the usual one.
    refusal: Option<String>,
    rule: Rule,
}

/// How a handle's new world position becomes the parameter's value.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Rule {
    /// The value is the position itself.
    Point,
    /// The value is a control point's position; its time is kept.
    ControlPoint,
    /// The value is `(position − base) / scale`.
    Vector { base: Vec3, scale: f64 },
    /// The value is the position in the body's coordinates.
    BodyPoint { state: BodyState },
    /// Like `BodyPoint`, but kept on the surface of body `body` unless the drag is free.
    SurfacePoint { body: usize, state: BodyState },
    /// The body turns about its centre of mass so that its arm (body coordinates) points at
    /// the position; the value is the new rotation vector.
    Rotation { state: BodyState, arm: Vec3 },
    /// The value points from `base` to the position, with the old value's length.
    Direction { base: Vec3, length: f64 },
}

/// A pointer drag: the ray through the pointer and how to move the handle along it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Drag {
    /// The line from the eye through the pointer.
    pub ray: Ray,
    /// The direction into the screen: the handle moves in the plane through it with this
    /// normal.
    pub screen_normal: Vec3,
    /// Move the handle in the screen plane even where it would be kept on a surface (the
    /// `a` key of 4.1.6).
    pub free: bool,
}

/// The result of a drag: which parameter gets which value, and where the handle now is.
#[derive(Clone, Debug, PartialEq)]
pub struct Edit {
    pub target: Target,
    pub value: EditValue,
    /// The handle's new world position.
    pub position: Vec3,
    /// True when the position was put on a body's surface (a constrained link end).
    pub on_surface: bool,
}

impl Edit {
    /// The text edit that writes this value into `text`, from which `scene` was evaluated.
    pub fn patch(&self, text: &str, scene: &Scene) -> Result<TextEdit, PatchError> {
        patch(text, scene, self.target, self.value)
    }
}

/// Why a drag gives no value.
#[derive(Clone, Debug, PartialEq)]
pub enum DragError {
    /// The handle's parameter cannot be written into the text.
    ReadOnly(Target),
    /// The pointer's ray does not meet the screen plane through the handle in front of the
    /// eye (it runs parallel to it).
    OffPlane,
    /// The handle's body is gone from the shapes the drag was given.
    MissingBody(usize),
}

impl fmt::Display for DragError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DragError::ReadOnly(target) => write!(
                f,
                "{target:?} is not a literal of a command that created only this element, so it cannot be edited graphically"
            ),
            DragError::OffPlane => write!(
                f,
                "the pointer's ray does not meet the screen plane through the handle"
            ),
            DragError::MissingBody(body) => write!(f, "body {body} has no shape to drag on"),
        }
    }
}

impl std::error::Error for DragError {}

impl Handle {
    /// Why a drag of this handle is refused, for a handle that is not editable.
    pub fn refusal(&self) -> String {
        match &self.refusal {
            Some(reason) => format!("{}: {reason}.", self.label),
            None => format!(
                "{} cannot be edited graphically: it is not a literal of a command that created only this element.",
                self.label
            ),
        }
    }

    /// The parameter's new value when the pointer's ray is `drag.ray`. `shapes` must be the
    /// scene's shapes (link ends are kept on them).
    pub fn drag(&self, drag: &Drag, shapes: &SceneShapes) -> Result<Edit, DragError> {
        if !self.editable {
            return Err(DragError::ReadOnly(self.target));
        }
        let mut on_surface = false;
        let position = match self.rule {
            Rule::SurfacePoint { body, state } if !drag.free => {
                let shape = shapes.of_body(body).ok_or(DragError::MissingBody(body))?;
                match cast_shape(&drag.ray, &shape.shape, &state.pose()) {
                    Some(hit) => {
                        on_surface = true;
                        hit.point
                    }
                    None => self.in_screen_plane(drag)?,
                }
            }
            _ => self.in_screen_plane(drag)?,
        };
        let value = match self.rule {
            Rule::Point | Rule::ControlPoint => position,
            Rule::Vector { base, scale } => (position - base) / scale,
            Rule::BodyPoint { state } | Rule::SurfacePoint { state, .. } => {
                state.to_body(&position)
            }
            Rule::Rotation { state, arm } => {
                let from = state.rotation * arm;
                let to = position - state.position;
                let turn = UnitQuaternion::rotation_between(&from, &to)
                    .unwrap_or_else(UnitQuaternion::identity);
                (turn * state.rotation).scaled_axis()
            }
            Rule::Direction { base, length } => (position - base)
                .try_normalize(0.0)
                .map_or(position - base, |d| d * length),
        };
        Ok(Edit {
            target: self.target,
            value: EditValue::Vector(value),
            position,
            on_surface,
        })
    }

    /// Where the pointer's ray meets the plane through the handle parallel to the screen.
    fn in_screen_plane(&self, drag: &Drag) -> Result<Vec3, DragError> {
        let towards = drag.screen_normal.dot(&drag.ray.direction());
        if towards.abs() <= 1e-12 * drag.screen_normal.norm() * drag.ray.direction().norm() {
            return Err(DragError::OffPlane);
        }
        let t = drag.screen_normal.dot(&(self.position - drag.ray.origin())) / towards;
        if t < 0.0 {
            return Err(DragError::OffPlane);
        }
        Ok(drag.ray.at(t))
    }
}

/// Every handle of `scene` in its initial state, bodies first, then forces, links,
/// trajectories and lights, each in text order. Fixed bodies have no velocity handles; forces
/// whose value is not a constant (or gravity) have no head handle, as the vector cannot be
/// edited graphically (4.1.5).
pub fn handles(scene: &Scene, shapes: &SceneShapes, scales: &HandleScales) -> Vec<Handle> {
    let editable: HashSet<Target> = scene.highlights().iter().map(|h| h.target).collect();
    let mut out = Vec::new();
    let mut add = |kind, target, position, label: String, rule| {
        out.push(Handle {
            kind,
            target,
            position,
            editable: editable.contains(&target),
            label,
            refusal: None,
            rule,
        })
    };
    let states: Vec<BodyState> = scene.bodies.iter().map(BodyState::initial).collect();

    for (i, body) in scene.bodies.iter().enumerate() {
        let state = states[i];
        let init = |var| Target::BodyInit { body: i, var };
        add(
            HandleKind::BodyPosition,
            init(InitVar::Pos),
            state.position,
            labelled("init_pos", &state.position),
            Rule::Point,
        );
        let arm = Vec3::x() * arm_length(shapes, i);
        add(
            HandleKind::BodyRotation,
            init(InitVar::Rot),
            state.to_world(&arm),
            rotation_label("init_rot", &body.init_rot.value, "rad"),
            Rule::Rotation { state, arm },
        );
        if body.fixed {
            continue;
        }
        add(
            HandleKind::Velocity,
            init(InitVar::Dpos),
            state.position + state.velocity * scales.velocity,
            labelled("init_dpos", &state.velocity),
            Rule::Vector {
                base: state.position,
                scale: scales.velocity,
            },
        );
        add(
            HandleKind::AngularVelocity,
            init(InitVar::Drot),
            state.position + state.angular_velocity * scales.angular_velocity,
            rotation_label("init_drot", &state.angular_velocity, "rad/s"),
            Rule::Vector {
                base: state.position,
                scale: scales.angular_velocity,
            },
        );
    }

    for (i, force) in scene.forces.iter().enumerate() {
        let Some(b) = shapes.body_index(&force.body) else {
            continue;
        };
        let state = states[b];
        let base = state.to_world(&force.offset.value);
        add(
            HandleKind::ForceBase,
            Target::ForceOffset(i),
            base,
            labelled("offset", &force.offset.value),
            Rule::BodyPoint { state },
        );
        let Some(vector) = constant_force(scene, shapes, force) else {
            continue;
        };
        let (kind, scale) = match force.kind {
            ForceKind::Force => (HandleKind::ForceHead, scales.force),
            ForceKind::Torque => (HandleKind::TorqueHead, scales.torque),
        };
        // Gravity is edited as the acceleration the text gives: the handle shows the force.
        let per_unit = match &force.value {
            ForceValue::Gravity(_) => shapes.body_mass(scene, b).unwrap_or(1.0),
            _ => 1.0,
        };
        let (option, value) = match &force.value {
            ForceValue::Gravity(g) => ("gravity", g.value),
            _ => (force.kind.word(), vector),
        };
        add(
            kind,
            Target::ForceVector(i),
            base + vector * scale,
            labelled(option, &value),
            Rule::Vector {
                base,
                scale: scale * per_unit,
            },
        );
    }

    for (i, link) in scene.links.iter().enumerate() {
        if let Some(b) = shapes.body_index(&link.body1) {
            let state = states[b];
            add(
                HandleKind::LinkEnd,
                Target::LinkOffset1(i),
                state.to_world(&link.offset1.value),
                labelled("offset1", &link.offset1.value),
                Rule::SurfacePoint { body: b, state },
            );
        }
        match &link.target {
            LinkTarget::Body { body2, offset2 } => {
                if let Some(b) = shapes.body_index(body2) {
                    let state = states[b];
                    add(
                        HandleKind::LinkEnd,
                        Target::LinkOffset2(i),
                        state.to_world(&offset2.value),
                        labelled("offset2", &offset2.value),
                        Rule::SurfacePoint { body: b, state },
                    );
                }
            }
            LinkTarget::Point(point) => {
                if let Some(p) = point.constant() {
                    add(
                        HandleKind::LinkEnd,
                        Target::LinkPoint(i),
                        p,
                        labelled("point", &p),
                        Rule::Point,
                    );
                }
            }
            LinkTarget::Trajectory(_) => {}
        }
    }

    for (t, trajectory) in scene.trajectories.iter().enumerate() {
        for (p, piece) in trajectory.pieces.iter().enumerate() {
            for (k, control) in piece.points.iter().enumerate() {
                add(
                    HandleKind::TrajectoryPoint,
                    Target::ControlPoint {
                        trajectory: t,
                        piece: p,
                        point: k,
                    },
                    control.pos,
                    format!(
                        "{} at t = {}: {}",
                        trajectory.name,
                        format_significant(control.time, LABEL_DIGITS),
                        numbers(&control.pos)
                    ),
                    Rule::ControlPoint,
                );
            }
        }
    }

    for (i, light) in scene.lights.iter().enumerate() {
        let pos = light.pos.value;
        add(
            HandleKind::LightPosition,
            Target::LightPos(i),
            pos,
            labelled("pos", &pos),
            Rule::Point,
        );
        if light.kind == LightKind::Directional {
            let dir = light.dir.value;
            let unit = dir.try_normalize(0.0).unwrap_or_else(|| -Vec3::y());
            add(
                HandleKind::LightDirection,
                Target::LightDir(i),
                pos + unit * scales.light,
                labelled("dir", &dir),
                Rule::Direction {
                    base: pos,
                    length: dir.norm().max(f64::MIN_POSITIVE),
                },
            );
        }
    }
    if let Some(camera) = &scene.camera {
        out.extend(camera_handles(scene, camera));
    }
    out
}

/// The camera's handles: where it stands and the point it looks at (`camera_aim`), dragged
/// as points; the editor rewrites the whole command so the camera keeps looking at its point.
/// A camera driven by a trajectory or expressions shows its handles where it starts, when
/// that is known without simulating, refusing drags with the reason.
fn camera_handles(scene: &Scene, camera: &Camera) -> Vec<Handle> {
    let (placed, refusal) = match looking(camera) {
        Ok(placed) if camera.origin.editable => (Some(placed), None),
        Ok(placed) => (
            Some(placed),
            Some(
                "the camera was made by a command that ran more than once: edit it in the text"
                    .to_owned(),
            ),
        ),
        Err(reason) => {
            let start = |value: &CameraValue| match value {
                CameraValue::Constant(v) => Some(v.value),
                CameraValue::Expressions(e) => e.constant(),
                CameraValue::Trajectory(name) => scene
                    .trajectory(name)
                    .map(|t| t.position(scene.simulator.start)),
            };
            let placed = start(&camera.pos)
                .zip(start(&camera.center))
                .map(|(from, at)| Looking { from, at });
            (placed, Some(reason))
        }
    };
    let Some(placed) = placed else {
        return Vec::new();
    };
    [
        (
            HandleKind::CameraPosition,
            Target::CameraPos,
            placed.from,
            "camera pos",
        ),
        (
            HandleKind::CameraTarget,
            Target::CameraCenter,
            placed.at,
            "camera looks at",
        ),
    ]
    .into_iter()
    .map(|(kind, target, position, what)| Handle {
        kind,
        target,
        position,
        editable: refusal.is_none(),
        label: labelled(what, &position),
        refusal: refusal.clone(),
        rule: Rule::Point,
    })
    .collect()
}

/// How far from the centre of mass a body's rotation handle sits: just outside its shape.
fn arm_length(shapes: &SceneShapes, body: usize) -> f64 {
    shapes.of_body(body).map_or(1.0, |shape| {
        let bound = shape.shape.bounding_sphere(&Isometry3::identity());
        bound.center.norm() + bound.radius
    })
}

fn numbers(v: &Vec3) -> String {
    v.iter()
        .map(|c| format_significant(*c, LABEL_DIGITS))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `option x y z`, as the text would say it.
fn labelled(option: &str, v: &Vec3) -> String {
    format!("{option} {}", numbers(v))
}

/// A rotation vector or angular velocity with its angle (rate) and axis spelt out, since a
/// rotation cannot be read off a vector's length the way a velocity can (4.1.2).
fn rotation_label(option: &str, v: &Vec3, unit: &str) -> String {
    let angle = v.norm();
    match v.try_normalize(0.0) {
        Some(axis) => format!(
            "{option} {} ({} {unit} about {})",
            numbers(v),
            format_significant(angle, LABEL_DIGITS),
            numbers(&axis)
        ),
        None => format!("{option} {} (none)", numbers(v)),
    }
}

#[cfg(test)]
mod tests;
