//! Where the bodies are at a time: the state the views draw and the handles start from.
//!
//! A view asks a [`BodyStates`] for each body's [`BodyState`] at the time it shows. The
//! simulator's computed motion answers for any computed time; [`InitialStates`] answers with
//! the state the scene text gives (`init_pos`, `init_rot`, `init_dpos`, `init_drot`), which is
//! what the editor shows before anything is simulated and what handles edit (4.1.2).

use super::model::{Body, Scene, Vec3};
use nalgebra::{Isometry3, Translation3, UnitQuaternion};

/// One body's state: where its centre of mass is, how it is turned, and how both change.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyState {
    /// World position of the centre of mass.
    pub position: Vec3,
    /// Orientation: turns body axes into world axes.
    pub rotation: UnitQuaternion<f64>,
    /// Velocity of the centre of mass.
    pub velocity: Vec3,
    /// Angular velocity in world axes, radians per second.
    pub angular_velocity: Vec3,
}

impl BodyState {
    /// The state the body's initial values give.
    pub fn initial(body: &Body) -> BodyState {
        BodyState {
            position: body.init_pos.value,
            rotation: UnitQuaternion::from_scaled_axis(body.init_rot.value),
            velocity: body.init_dpos.value,
            angular_velocity: body.init_drot.value,
        }
    }

    /// The body frame in the world: body coordinates (relative to the centre of mass) to world.
    pub fn pose(&self) -> Isometry3<f64> {
        Isometry3::from_parts(Translation3::from(self.position), self.rotation)
    }

    /// A point given in body coordinates (relative to the centre of mass), in the world.
    pub fn to_world(&self, body_point: &Vec3) -> Vec3 {
        self.position + self.rotation * body_point
    }

    /// A world point in body coordinates (relative to the centre of mass).
    pub fn to_body(&self, world_point: &Vec3) -> Vec3 {
        self.rotation.inverse() * (world_point - self.position)
    }
}

/// A source of body states over time: the simulator's motion, or the initial values.
pub trait BodyStates {
    /// The state of body `body` (an index into [`Scene::bodies`]) at `time`, or `None` when
    /// this source does not know it (no such body, or that time is not computed).
    fn body_state(&self, body: usize, time: f64) -> Option<BodyState>;
}

/// The initial state of every body at every time: the scene as the text places it.
#[derive(Clone, Copy, Debug)]
pub struct InitialStates<'a> {
    pub scene: &'a Scene,
}

impl BodyStates for InitialStates<'_> {
    fn body_state(&self, body: usize, _time: f64) -> Option<BodyState> {
        self.scene.bodies.get(body).map(BodyState::initial)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::span::Span;
    use crate::scene::model::{Origin, Param, DEFAULT_FRICTION};
    use std::f64::consts::FRAC_PI_2;

    pub(crate) fn body(name: &str, pos: [f64; 3], rot: [f64; 3]) -> Body {
        Body {
            name: name.into(),
            shape: "box".into(),
            init_pos: Param::computed(Vec3::from(pos)),
            init_rot: Param::computed(Vec3::from(rot)),
            init_dpos: Param::computed(Vec3::new(1.0, 0.0, 0.0)),
            init_drot: Param::computed(Vec3::zeros()),
            mass: None,
            inertia: None,
            artbody: None,
            color: None,
            restitution: Param::computed(1.0),
            friction: Param::computed(DEFAULT_FRICTION),
            fixed: false,
            origin: Origin {
                command: Span::new(0, 0),
                editable: true,
            },
        }
    }

    #[test]
    fn initial_state_turns_by_the_rotation_vector() {
        // A quarter turn about z: body x points along world y.
        let state = BodyState::initial(&body("b", [1.0, 2.0, 3.0], [0.0, 0.0, FRAC_PI_2]));
        let tip = state.to_world(&Vec3::new(2.0, 0.0, 0.0));
        assert!((tip - Vec3::new(1.0, 4.0, 3.0)).norm() < 1e-12);
        assert!((state.to_body(&tip) - Vec3::new(2.0, 0.0, 0.0)).norm() < 1e-12);
        let pose_tip = state.pose() * nalgebra::Point3::new(2.0, 0.0, 0.0);
        assert!((pose_tip.coords - tip).norm() < 1e-12);
        assert_eq!(state.velocity, Vec3::new(1.0, 0.0, 0.0));
    }

    #[test]
    fn initial_states_ignore_time_and_refuse_unknown_bodies() {
        let scene = Scene {
            bodies: vec![body("b", [1.0, 0.0, 0.0], [0.0; 3])],
            ..Scene::default()
        };
        let states = InitialStates { scene: &scene };
        assert_eq!(states.body_state(0, 0.0), states.body_state(0, 7.5));
        assert_eq!(states.body_state(1, 0.0), None);
    }
}
