//! The source map (4.2.2): which literals of the text stand for graphically editable parameters,
//! and which long literals the language viewer may elide.
//!
//! A parameter is graphically editable when its element was created by a command that ran
//! once and its value was written as a literal in that command; [`Scene::highlights`] lists
//! the literal spans of all such parameters with the [`Target`] a graphical edit addresses
//! (see `patch`).

use super::element::{ElementKind, ElementRef};
use super::model::{CameraValue, ExprVec, ForceValue, LinkTarget, Scene, Vec3};
use super::patch::EditValue;
use crate::lang::span::Span;

/// A graphically editable parameter: what `patch` can rewrite.
///
/// Indices refer to the lists of the [`Scene`] the target was taken from (bodies, forces,
/// links, trajectories and their pieces and points, lights).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    /// A body's `init_pos`, `init_rot`, `init_dpos` or `init_drot`.
    BodyInit {
        body: usize,
        var: InitVar,
    },
    /// The vector of a force or torque (its x/y/z components, `vector` or `gravity`).
    ForceVector(usize),
    ForceOffset(usize),
    /// `offset1` of a link.
    LinkOffset1(usize),
    /// `offset2` of a link between two bodies.
    LinkOffset2(usize),
    /// The point (x/y/z or `point`) of a link to a point in space.
    LinkPoint(usize),
    /// The position of a control point of a trajectory.
    ControlPoint {
        trajectory: usize,
        piece: usize,
        point: usize,
    },
    /// The time of a control point of a trajectory.
    ControlTime {
        trajectory: usize,
        piece: usize,
        point: usize,
    },
    LightPos(usize),
    LightDir(usize),
    CameraPos,
    CameraRot,
    CameraCenter,
    CameraScale,
}

/// The initial value a body parameter sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum InitVar {
    Pos,
    Rot,
    Dpos,
    Drot,
}

impl InitVar {
    pub const ALL: [InitVar; 4] = [InitVar::Pos, InitVar::Rot, InitVar::Dpos, InitVar::Drot];

    /// The option that sets it: `init_pos`, ….
    pub fn option(self) -> &'static str {
        match self {
            InitVar::Pos => "init_pos",
            InitVar::Rot => "init_rot",
            InitVar::Dpos => "init_dpos",
            InitVar::Drot => "init_drot",
        }
    }
}

impl Target {
    /// The element the parameter belongs to.
    pub fn element(self) -> ElementRef {
        use Target::*;
        match self {
            BodyInit { body, .. } => ElementRef::new(ElementKind::Body, body),
            ForceVector(i) | ForceOffset(i) => ElementRef::new(ElementKind::Force, i),
            LinkOffset1(i) | LinkOffset2(i) | LinkPoint(i) => ElementRef::new(ElementKind::Link, i),
            ControlPoint { trajectory, .. } | ControlTime { trajectory, .. } => {
                ElementRef::new(ElementKind::Trajectory, trajectory)
            }
            LightPos(i) | LightDir(i) => ElementRef::new(ElementKind::Light, i),
            CameraPos | CameraRot | CameraCenter | CameraScale => {
                ElementRef::new(ElementKind::Camera, 0)
            }
        }
    }
}

/// One literal the language viewer colours as graphically editable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Highlight {
    pub span: Span,
    pub target: Target,
}

impl Scene {
    /// The current value of a parameter, when it is a constant (`None` for a force given by
    /// expressions or a camera following a trajectory, and for targets not in this scene).
    pub fn target_value(&self, target: Target) -> Option<EditValue> {
        let vector = |v: &Vec3| Some(EditValue::Vector(*v));
        let camera = |v: &CameraValue| match v {
            CameraValue::Constant(p) => vector(&p.value),
            CameraValue::Expressions(e) => e.constant().map(EditValue::Vector),
            CameraValue::Trajectory(_) => None,
        };
        match target {
            Target::BodyInit { body, var } => {
                let b = self.bodies.get(body)?;
                vector(match var {
                    InitVar::Pos => &b.init_pos.value,
                    InitVar::Rot => &b.init_rot.value,
                    InitVar::Dpos => &b.init_dpos.value,
                    InitVar::Drot => &b.init_drot.value,
                })
            }
            Target::ForceVector(i) => match &self.forces.get(i)?.value {
                ForceValue::Components(v) => v.constant().map(EditValue::Vector),
                ForceValue::Gravity(g) => vector(&g.value),
                ForceValue::Trajectory(_) => None,
            },
            Target::ForceOffset(i) => vector(&self.forces.get(i)?.offset.value),
            Target::LinkOffset1(i) => vector(&self.links.get(i)?.offset1.value),
            Target::LinkOffset2(i) => match &self.links.get(i)?.target {
                LinkTarget::Body { offset2, .. } => vector(&offset2.value),
                _ => None,
            },
            Target::LinkPoint(i) => match &self.links.get(i)?.target {
                LinkTarget::Point(p) => p.constant().map(EditValue::Vector),
                _ => None,
            },
            Target::ControlPoint {
                trajectory,
                piece,
                point,
            } => {
                let t = self.trajectories.get(trajectory)?;
                vector(&t.pieces.get(piece)?.points.get(point)?.pos)
            }
            Target::ControlTime {
                trajectory,
                piece,
                point,
            } => {
                let t = self.trajectories.get(trajectory)?;
                Some(EditValue::Number(
                    t.pieces.get(piece)?.points.get(point)?.time,
                ))
            }
            Target::LightPos(i) => vector(&self.lights.get(i)?.pos.value),
            Target::LightDir(i) => vector(&self.lights.get(i)?.dir.value),
            Target::CameraPos => camera(&self.camera.as_ref()?.pos),
            Target::CameraRot => camera(&self.camera.as_ref()?.rot),
            Target::CameraCenter => camera(&self.camera.as_ref()?.center),
            Target::CameraScale => Some(EditValue::Number(self.camera.as_ref()?.scale.value)),
        }
    }

    /// Every literal span of a graphically editable parameter, in text order. A vector given
    /// as separate x/y/z words has one highlight per literal number; a trajectory control
    /// point's `{t x y z}` has one for its position and one for its time.
    pub fn highlights(&self) -> Vec<Highlight> {
        let mut out = Vec::new();
        let mut add = |span: Option<Span>, target: Target| {
            if let Some(span) = span {
                out.push(Highlight { span, target });
            }
        };
        let editable = |e: &ElementRef| self.origin(*e).is_some_and(|o| o.editable);
        for (i, body) in self.bodies.iter().enumerate() {
            if !editable(&ElementRef::new(ElementKind::Body, i)) {
                continue;
            }
            for (var, param) in InitVar::ALL.into_iter().zip([
                &body.init_pos,
                &body.init_rot,
                &body.init_dpos,
                &body.init_drot,
            ]) {
                add(param.span, Target::BodyInit { body: i, var });
            }
        }
        for (i, force) in self.forces.iter().enumerate() {
            if !editable(&ElementRef::new(ElementKind::Force, i)) {
                continue;
            }
            match &force.value {
                ForceValue::Components(v) => {
                    literal_components(v, Target::ForceVector(i), &mut add)
                }
                ForceValue::Gravity(g) => add(g.span, Target::ForceVector(i)),
                ForceValue::Trajectory(_) => {}
            }
            add(force.offset.span, Target::ForceOffset(i));
        }
        for (i, link) in self.links.iter().enumerate() {
            if !editable(&ElementRef::new(ElementKind::Link, i)) {
                continue;
            }
            add(link.offset1.span, Target::LinkOffset1(i));
            match &link.target {
                LinkTarget::Body { offset2, .. } => add(offset2.span, Target::LinkOffset2(i)),
                LinkTarget::Point(p) => literal_components(p, Target::LinkPoint(i), &mut add),
                LinkTarget::Trajectory(_) => {}
            }
        }
        for (t, trajectory) in self.trajectories.iter().enumerate() {
            if !editable(&ElementRef::new(ElementKind::Trajectory, t)) {
                continue;
            }
            for (p, piece) in trajectory.pieces.iter().enumerate() {
                for (k, control) in piece.points.iter().enumerate() {
                    let (trajectory, piece, point) = (t, p, k);
                    add(
                        control.span,
                        Target::ControlPoint {
                            trajectory,
                            piece,
                            point,
                        },
                    );
                    add(
                        control.span,
                        Target::ControlTime {
                            trajectory,
                            piece,
                            point,
                        },
                    );
                }
            }
        }
        for (i, light) in self.lights.iter().enumerate() {
            if !editable(&ElementRef::new(ElementKind::Light, i)) {
                continue;
            }
            add(light.pos.span, Target::LightPos(i));
            add(light.dir.span, Target::LightDir(i));
        }
        if let Some(camera) = self.camera.as_ref().filter(|c| c.origin.editable) {
            for (value, target) in [
                (&camera.pos, Target::CameraPos),
                (&camera.rot, Target::CameraRot),
                (&camera.center, Target::CameraCenter),
            ] {
                match value {
                    CameraValue::Constant(param) => add(param.span, target),
                    CameraValue::Expressions(v) => literal_components(v, target, &mut add),
                    CameraValue::Trajectory(_) => {}
                }
            }
            add(camera.scale.span, Target::CameraScale);
        }
        out.sort_by_key(|h| (h.span.start, h.span.end, h.target));
        out
    }

    /// The literal shape descriptions and trajectory point lists at least `min_len` bytes
    /// long, which the language viewer may show as an icon (4.2.1).
    pub fn elidable_spans(&self, min_len: usize) -> Vec<Span> {
        let shapes = self.shapes.iter().filter_map(|s| s.desc_span);
        let points = self
            .trajectories
            .iter()
            .flat_map(|t| t.pieces.iter().filter_map(|p| p.span));
        let mut spans: Vec<Span> = shapes
            .chain(points)
            .filter(|s| s.len() >= min_len)
            .collect();
        spans.sort();
        spans
    }
}

/// The literal numbers of a vector of expressions, when graphical editing can set the whole
/// vector (no component is an expression or substituted).
fn literal_components(v: &ExprVec, target: Target, add: &mut impl FnMut(Option<Span>, Target)) {
    if v.is_settable() {
        for c in v.components() {
            add(c.span, target);
        }
    }
}
