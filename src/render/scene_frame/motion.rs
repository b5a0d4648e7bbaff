//! The simulator's computed motion as a source of body states for pictures.

use crate::scene::state::{BodyState, BodyStates};
use crate::sim::physics::{BodySampler, SceneMotion};
use std::cell::RefCell;

/// A motion read through one [`BodySampler`], for the many lookups of one picture or of a
/// [`super::Stage`]'s samples: each body's place in its tracks is remembered from one lookup
/// to the next, where [`SceneMotion::state`] searches every track of the body from its end
/// (at 1,000 bodies, sampling the stage's times that way took tens of milliseconds).
pub struct SampledMotion {
    sampler: RefCell<BodySampler>,
    bodies: usize,
}

impl SampledMotion {
    pub fn new(motion: &SceneMotion) -> SampledMotion {
        SampledMotion {
            sampler: RefCell::new(motion.sampler()),
            bodies: motion.bodies().len(),
        }
    }
}

impl BodyStates for SampledMotion {
    /// As [`SceneMotion`]'s.
    fn body_state(&self, body: usize, time: f64) -> Option<BodyState> {
        if body >= self.bodies {
            return None;
        }
        self.sampler.borrow_mut().state(body, time)
    }
}

impl BodyStates for SceneMotion {
    /// The computed state, or `None` for a time not computed (yet).
    fn body_state(&self, body: usize, time: f64) -> Option<BodyState> {
        if body >= self.bodies().len() {
            return None;
        }
        self.state(body, time)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::evaluate;
    use crate::sim::physics::Model;

    #[test]
    fn motion_states_follow_the_simulation() {
        let scene = evaluate(
            "simulator finish 1 step 0.1
             shape_set ball desc {sphere 0.5}
             body still shape ball init_pos {5 0 0} fixed 1
             body b shape ball init_pos {0 10 0} init_dpos {1 0 0} mass 2
             force body b gravity {0 -9.81 0}",
        )
        .unwrap();
        let model = Model::compile(&scene).unwrap();
        let mut simulation = model.simulation(model.options()).unwrap();
        simulation.run_to_end().unwrap();
        let motion = model.motion(simulation.motion());
        let state = motion.body_state(1, 1.0).unwrap();
        assert!((state.position.y - (10.0 - 9.81 / 2.0)).abs() < 1e-9);
        assert!((state.position.x - 1.0).abs() < 1e-12);
        assert_eq!(motion.body_state(0, 0.5).unwrap().position.x, 5.0);
        assert_eq!(motion.body_state(1, 2.0), None);
        assert_eq!(motion.body_state(2, 0.0), None);
        let sampled = SampledMotion::new(&motion);
        for t in [1.0, 0.25, 0.5, 2.0, 0.0] {
            for body in 0..3 {
                assert_eq!(sampled.body_state(body, t), motion.body_state(body, t));
            }
        }
    }
}
