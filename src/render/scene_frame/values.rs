//! The numbers a scene's expressions stand for at one time of its motion.
//!
//! Link points, force components and camera values may be expressions of `$t` and of body and
//! trajectory attributes (`[b1 x]`, `[path dy]`). A picture needs their values at its time:
//! each operand is replaced by its number — the time, the body's state from the picture's
//! [`BodyStates`], the trajectory's value — and the expression is folded with the symbolic
//! layer's Tcl-compatible arithmetic.

use crate::lang::ast::{Part, WordKind};
use crate::scene::model::{CameraValue, ExprVec, Expression, Scene, Vec3};
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
                let [command] = script.commands.as_slice() else {
                    return None;
                };
                let [name, attr] = command.words.as_slice() else {
                    return None;
                };
                self.attribute(literal(&name.kind)?, literal(&attr.kind)?)
            }
            _ => None,
        }
    }

    fn attribute(&self, name: &str, attr: &str) -> Option<f64> {
        let axis = |names: [&str; 3]| names.iter().position(|&n| n == attr);
        if self.shapes.body_index(name).is_some() {
            if attr == "mass" {
                return self.mass(name);
            }
            let state = self.named_state(name)?;
            let (vector, k) = [
                (["x", "y", "z"], state.position),
                (["dx", "dy", "dz"], state.velocity),
                (["rx", "ry", "rz"], state.rotation.scaled_axis()),
                (["drx", "dry", "drz"], state.angular_velocity),
            ]
            .into_iter()
            .find_map(|(names, vector)| Some((vector, axis(names)?)))?;
            return Some(vector[k]);
        }
        let trajectory = self.scene.trajectory(name)?;
        if let Some(k) = axis(["x", "y", "z"]) {
            return Some(trajectory.position(self.time)[k]);
        }
        axis(["dx", "dy", "dz"]).map(|k| trajectory.velocity(self.time)[k])
    }
}

/// The text of a word without substitutions.
fn literal(kind: &WordKind) -> Option<&str> {
    match kind {
        WordKind::Braced { text, .. } => Some(text),
        WordKind::Bare(parts) | WordKind::Quoted(parts) => match parts.as_slice() {
            [Part::Text { text, .. }] => Some(text),
            _ => None,
        },
    }
}
