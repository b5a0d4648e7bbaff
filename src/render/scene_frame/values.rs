//! The numbers a scene's expressions stand for at one time of its motion.
//!
//! Link points, force components and camera values may be expressions of `$t` and of body and
//! trajectory attributes (`[b1 x]`, `[path dy]`). A picture needs their values at its time:
//! each operand is replaced by its number — the time, the body's state from the picture's
//! [`BodyStates`], the trajectory's value — and the expression is folded with the symbolic
//! layer's Tcl-compatible arithmetic.

use crate::lang::ast::Part;
use crate::scene::attribute::{Attribute, Quantity};
use crate::scene::model::{CameraValue, ExprVec, Expression, Scene, Vec3};
use crate::scene::reference_words;
use crate::scene::shapes::SceneShapes;
use crate::scene::state::{BodyState, BodyStates};
use crate::sym::{self, from_ast, Pool};

/// Evaluates expressions of one scene at one time.
pub(super) struct Values<'a> {
    pub scene: &'a Scene,
    pub shapes: &'a SceneShapes,
    pub states: &'a dyn BodyStates,
    pub time: f64,
}

impl Values<'_> {
    /// The state of body `body` at this time; its initial state when the source does not know
    /// that time.
    pub fn body_state(&self, body: usize) -> Option<BodyState> {
        self.states
            .body_state(body, self.time)
            .or_else(|| self.scene.bodies.get(body).map(BodyState::initial))
    }

    /// The state of the body named `name`.
    pub fn named_state(&self, name: &str) -> Option<BodyState> {
        self.body_state(self.shapes.body_index(name)?)
    }

    /// The mass of the body named `name`.
    pub fn mass(&self, name: &str) -> Option<f64> {
        self.shapes
            .body_mass(self.scene, self.shapes.body_index(name)?)
    }

    /// The value of trajectory `name` at this time.
    pub fn trajectory(&self, name: &str) -> Option<Vec3> {
        Some(self.scene.trajectory(name)?.position(self.time))
    }

    /// The value of an expression, or `None` when it cannot be computed (a reference to
    /// something the scene lacks, an operator the symbolic layer refuses, a non-finite
    /// result).
    pub fn number(&self, expression: &Expression) -> Option<f64> {
        if let Some(constant) = expression.constant {
            return Some(constant);
        }
        let mut pool = Pool::new();
        let node = from_ast(&mut pool, &expression.tree, |pool, parts, span| {
            let value = self
                .operand(parts)
                .ok_or_else(|| sym::Error::new("not a value known to the picture", span))?;
            Ok(pool.constant(value))
        })
        .ok()?;
        Some(pool.eval(node, |_| f64::NAN)).filter(|v| v.is_finite())
    }

    pub fn vector(&self, v: &ExprVec) -> Option<Vec3> {
        Some(Vec3::new(
            self.number(&v.x)?,
            self.number(&v.y)?,
            self.number(&v.z)?,
        ))
    }

    pub fn camera_value(&self, value: &CameraValue) -> Option<Vec3> {
        match value {
            CameraValue::Constant(param) => Some(param.value),
            CameraValue::Expressions(v) => self.vector(v),
            CameraValue::Trajectory(name) => self.trajectory(name),
        }
    }

    /// `$t`, or `[NAME ATTR]` of a body or trajectory.
    fn operand(&self, parts: &[Part]) -> Option<f64> {
        match parts {
            [Part::Variable {
                name, index: None, ..
            }] if name == "t" => Some(self.time),
            [Part::Command { script, .. }] => {
                let [(name, _), (attr, _)] = reference_words(script)?;
                self.attribute(&name, &attr)
            }
            _ => None,
        }
    }

    fn attribute(&self, name: &str, attr: &str) -> Option<f64> {
        if self.shapes.body_index(name).is_some() {
            let (quantity, k) = match Attribute::of_body(attr)? {
                Attribute::Mass => return self.mass(name),
                Attribute::Component(quantity, k) => (quantity, k),
            };
            let state = self.named_state(name)?;
            let vector = match quantity {
                Quantity::Position => state.position,
                Quantity::Velocity => state.velocity,
                Quantity::Rotation => state.rotation.scaled_axis(),
                Quantity::AngularVelocity => state.angular_velocity,
            };
            return Some(vector[k]);
        }
        let trajectory = self.scene.trajectory(name)?;
        match Attribute::of_trajectory(attr)? {
            Attribute::Component(Quantity::Velocity, k) => Some(trajectory.velocity(self.time)[k]),
            Attribute::Component(_, k) => Some(trajectory.position(self.time)[k]),
            Attribute::Mass => None,
        }
    }
}
