//! The evaluated scene: the elements a scene text defines, each remembering where it came from.
//!
//! This is the "internal database" of the dissertation (4.2.2). It holds only what the text says;
//! motion is computed from it elsewhere. Parameters that graphical editing may change keep the
//! span of their literal word ([`Param::span`]), so an edit can be written back into the text.

use super::error::Warning;
use super::fingerprint::Fingerprints;
use crate::lang::ast;
use crate::lang::span::Span;
use nalgebra::{Matrix3, Vector3};

pub type Vec3 = Vector3<f64>;

/// A value as the scene text gave it, with the span of the literal word it came from.
///
/// `span` is `Some` only when the value was written as a literal word in the element's own
/// command (no substitution), which is what makes it graphically editable (4.2.2). A defaulted
/// value has `span: None`.
#[derive(Clone, Debug, PartialEq)]
pub struct Param<T> {
    pub value: T,
    pub span: Option<Span>,
}

impl<T> Param<T> {
    pub fn literal(value: T, span: Span) -> Param<T> {
        Param {
            value,
            span: Some(span),
        }
    }

    pub fn computed(value: T) -> Param<T> {
        Param { value, span: None }
    }
}

/// Where an element was defined.
#[derive(Clone, Debug, PartialEq)]
pub struct Origin {
    /// The command that created the element.
    pub command: Span,
    /// False when that command created more than one element (it ran in a loop or a proc that
    /// was called more than once): its literals then stand for several elements and graphical
    /// editing must not rewrite them (4.2.2).
    pub editable: bool,
}

/// An RGB colour, components in 0..=1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Color {
    pub r: f32,
    pub g: f32,
    pub b: f32,
}

/// A symbolic expression of time, state variables, trajectories and constants, as written.
///
/// Variables (`$name`) and commands that are not body or trajectory references were substituted
/// when the element's command ran, so `tree` is closed except for `$t` (simulated time) and
/// `[NAME ATTR]` references, which the simulator resolves against the whole scene.
#[derive(Clone, Debug, PartialEq)]
pub struct Expression {
    /// The expression as written; empty for a component that was not written (`force body b
    /// y -9.8` has no x and z: they are 0).
    pub source: String,
    /// Where `source` stands in the text when it was a literal word of the element's command.
    pub span: Option<Span>,
    pub tree: ast::Expr,
    /// The value when the expression is a plain number (what force handles can edit).
    pub constant: Option<f64>,
    /// `tree`'s digest (see `scene::expression::fingerprint`), computed once when the
    /// expression is captured, so that comparing two scenes reads one number per expression.
    pub(crate) fingerprint: u128,
}

/// A vector whose components are expressions (force and torque vectors, link points).
#[derive(Clone, Debug, PartialEq)]
pub struct ExprVec {
    pub x: Expression,
    pub y: Expression,
    pub z: Expression,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scene {
    pub shapes: Vec<ShapeSet>,
    pub bodies: Vec<Body>,
    /// Forces and torques, in text order.
    pub forces: Vec<Force>,
    pub links: Vec<Link>,
    pub trajectories: Vec<Trajectory>,
    pub lights: Vec<Light>,
    pub camera: Option<Camera>,
    pub simulator: Simulator,
    /// The `simulator` command, when the text has one.
    pub simulator_origin: Option<Origin>,
    /// What `puts` wrote while the scene was evaluated, one entry per line.
    pub log: Vec<String>,
    /// Legal but suspicious things found while evaluating (an unused shape, …).
    pub warnings: Vec<Warning>,
    /// The digests of the shapes, bodies, forces and links, filled when the text's evaluation
    /// finishes (see `scene::fingerprint`): comparing two scenes reads these for the elements
    /// an edit left alone. The elements of an evaluated scene are not changed afterwards
    /// (an edit is a new evaluation); a scene made otherwise has none.
    pub(crate) fingerprints: Fingerprints,
}

/// `shape_set NAME desc {...}`: a union of spheres and convex polyhedra.
#[derive(Clone, Debug, PartialEq)]
pub struct ShapeSet {
    pub name: String,
    pub parts: Vec<ShapePart>,
    /// The literal `desc` list, when it was written in the command (the language viewer may
    /// elide a long one).
    pub desc_span: Option<Span>,
    pub origin: Origin,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ShapePart {
    /// Offset of the part in the shape's coordinates (`pos`).
    pub pos: Vec3,
    pub geometry: Geometry,
    pub color: Option<Color>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Geometry {
    Sphere {
        radius: f64,
    },
    /// The convex hull of these points (relative to `pos`).
    Polyhedron {
        vertices: Vec<Vec3>,
    },
}

/// The coefficient of friction of a body that does not give one: a pair of such bodies rests
/// with friction 0.5, about that of wood on wood.
pub const DEFAULT_FRICTION: f64 = 0.5;

/// `body NAME shape S ...`: a rigid body, an instance of a shape set.
#[derive(Clone, Debug, PartialEq)]
pub struct Body {
    pub name: String,
    pub shape: String,
    /// Initial position of the centre of mass.
    pub init_pos: Param<Vec3>,
    /// Initial orientation as a rotation vector (axis × angle in radians, right-hand rule).
    pub init_rot: Param<Vec3>,
    pub init_dpos: Param<Vec3>,
    /// Initial angular velocity (world axes, radians per second).
    pub init_drot: Param<Vec3>,
    /// Given mass; computed from the shape at unit density when `None`.
    pub mass: Option<Param<f64>>,
    /// Given inertia tensor about the centre of mass in body axes; computed when `None`.
    pub inertia: Option<Param<Matrix3<f64>>>,
    /// Name of the articulated body this is a part of; directly linked parts of one
    /// articulated body do not collide.
    pub artbody: Option<String>,
    pub color: Option<Param<Color>>,
    /// Coefficient of restitution in collisions (1 = elastic).
    pub restitution: Param<f64>,
    /// Coefficient of friction in resting contact (default [`DEFAULT_FRICTION`]); a pair uses the geometric mean of its two
    /// bodies' coefficients.
    pub friction: Param<f64>,
    /// A fixed body never moves and is infinitely massive in collisions.
    pub fixed: bool,
    pub origin: Origin,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ForceKind {
    /// A linear force, applied at `offset` from the centre of mass (a torque F×d results).
    Force,
    /// A torque about an axis through `offset` from the centre of mass (a force d×T results).
    Torque,
}

/// `force ...` and `torque ...`.
#[derive(Clone, Debug, PartialEq)]
pub struct Force {
    pub kind: ForceKind,
    pub body: String,
    pub value: ForceValue,
    /// Point of application (force) or a point on the axis (torque), in body coordinates
    /// relative to the centre of mass.
    pub offset: Param<Vec3>,
    pub origin: Origin,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ForceValue {
    /// Components given as expressions.
    Components(Box<ExprVec>),
    /// A gravitational force: this acceleration times the body's mass.
    Gravity(Param<Vec3>),
    /// The value of a trajectory at the current time.
    Trajectory(String),
}

/// `link body1 A offset1 {...} ...`: a critically damped spring (5.1.2).
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    pub body1: String,
    pub offset1: Param<Vec3>,
    pub target: LinkTarget,
    /// Spring constant k in F = -k x - 2 sqrt(k m) v.
    pub tightness: Param<f64>,
    pub origin: Origin,
}

#[derive(Clone, Debug, PartialEq)]
pub enum LinkTarget {
    /// Object to object: a point at `offset2` on `body2`.
    Body { body2: String, offset2: Param<Vec3> },
    /// Object to point: a fixed point, or expressions of time and state.
    Point(Box<ExprVec>),
    /// Object to trajectory: the trajectory's value at the current time.
    Trajectory(String),
}

/// `trajectory NAME ...`: a union of Bézier curves over disjoint time intervals (5.1.3).
#[derive(Clone, Debug, PartialEq)]
pub struct Trajectory {
    pub name: String,
    /// Pieces in time order; their intervals do not overlap.
    pub pieces: Vec<TrajectoryPiece>,
    /// State variables this trajectory constrains while one of its pieces is active.
    pub attachments: Vec<Attachment>,
    pub origin: Origin,
}

/// One curve of a trajectory: it passes through its control points at their times.
#[derive(Clone, Debug, PartialEq)]
pub struct TrajectoryPiece {
    pub points: Vec<ControlPoint>,
    /// The span of the literal list the points were written in, when editable.
    pub span: Option<Span>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ControlPoint {
    pub time: f64,
    pub pos: Vec3,
    /// The span of this point's `{t x y z}` literal, when editable.
    pub span: Option<Span>,
}

/// What a trajectory constrains.
#[derive(Clone, Debug, PartialEq)]
pub struct Attachment {
    pub body: String,
    pub variable: ConstrainedVar,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConstrainedVar {
    Position,
    /// Orientation as a rotation vector.
    Rotation,
    Velocity,
    AngularVelocity,
}

impl ConstrainedVar {
    /// The word for the variable in `trajectory … var VAR`.
    pub fn keyword(self) -> &'static str {
        match self {
            ConstrainedVar::Position => "pos",
            ConstrainedVar::Rotation => "rot",
            ConstrainedVar::Velocity => "dpos",
            ConstrainedVar::AngularVelocity => "drot",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LightKind {
    Point,
    Directional,
}

/// `lightsource ...`.
#[derive(Clone, Debug, PartialEq)]
pub struct Light {
    pub name: Option<String>,
    pub kind: LightKind,
    /// Position (point light) or where the direction handle is drawn (directional light).
    pub pos: Param<Vec3>,
    /// Direction the light travels (directional light).
    pub dir: Param<Vec3>,
    pub color: Color,
    pub intensity: f64,
    /// A trajectory the light moves along (`pos` is then only where it is drawn when the
    /// trajectory is not known).
    pub trajectory: Option<String>,
    pub origin: Origin,
}

/// A camera parameter: a constant, expressions of time, or a trajectory.
#[derive(Clone, Debug, PartialEq)]
pub enum CameraValue {
    Constant(Param<Vec3>),
    Expressions(Box<ExprVec>),
    Trajectory(String),
}

/// `camera ...`: the initial viewing state (4.1.7), each part optionally animated.
#[derive(Clone, Debug, PartialEq)]
pub struct Camera {
    pub pos: CameraValue,
    /// Rotation vector of the view.
    pub rot: CameraValue,
    pub scale: Param<f64>,
    pub center: CameraValue,
    pub origin: Origin,
}

/// `simulator ...`: time range and integration settings.
#[derive(Clone, Debug, PartialEq)]
pub struct Simulator {
    pub start: f64,
    pub finish: f64,
    /// Output sampling step and the initial integration step.
    pub step: f64,
    /// Local truncation error bound per step.
    pub tolerance: f64,
    /// The fixed timestep of live mode.
    pub live_dt: f64,
    /// Live mode's real-time factor: simulated seconds per real second (1: real time).
    pub live_rate: f64,
    pub collisions: bool,
}

impl Default for Simulator {
    fn default() -> Simulator {
        Simulator {
            start: 0.0,
            finish: 10.0,
            step: 0.1,
            tolerance: 1e-4,
            live_dt: 0.01,
            live_rate: 1.0,
            collisions: true,
        }
    }
}
