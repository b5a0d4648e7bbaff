//! How far one simulation may run and how much it may grow, so that no scene can make Asgard
//! compute or allocate without end (docs/ARCHITECTURE.md, "Limits").
//!
//! - **Output steps**: collision detection checks the bodies in windows one output step long
//!   (`simulator step`) and playback samples at it, so `(finish - start) / step` is work and
//!   memory the run will take whatever its equations. `simulator finish 1e9`, or `step
//!   1e-12`, would run for days; [`RunLimits::check_scene`] refuses such a scene before
//!   anything is compiled.
//! - **Memory**: what a run adds to the memory its thread holds (tracks, collision records,
//!   everything it allocates), measured by the counting allocator
//!   ([`crate::lang::budget::held`]) at every progress report. A run that passes the limit
//!   stops there with an error; the motion computed until then stays readable.
//!
//! Each error names the limit, what keeps a scene within it, and the command-line option
//! that raises it; embedders set the fields of [`RunLimits`] ([`super::Solver::with_limits`]).

use crate::scene::Scene;
use crate::sim::physics::PhysicsError;
use std::cmp::Ordering;

/// `RunLimits::default().max_output_steps`.
pub const DEFAULT_MAX_OUTPUT_STEPS: u64 = 1_000_000;

/// `RunLimits::default().max_memory`: 4 GiB.
pub const DEFAULT_MAX_MEMORY: usize = 4 << 30;

/// The limits of one simulation; see the module documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunLimits {
    /// The most output steps `(finish - start) / step` a scene may span.
    pub max_output_steps: u64,
    /// The most bytes a run may add to what its thread holds.
    pub max_memory: usize,
}

impl Default for RunLimits {
    fn default() -> RunLimits {
        RunLimits {
            max_output_steps: DEFAULT_MAX_OUTPUT_STEPS,
            max_memory: DEFAULT_MAX_MEMORY,
        }
    }
}

impl RunLimits {
    /// Refuses, at the `simulator` command, a scene whose time range spans more output steps
    /// than the limit. Settings that are not finite and positive are left to the model's own
    /// check, which names them.
    pub fn check_scene(&self, scene: &Scene) -> Result<(), PhysicsError> {
        let s = &scene.simulator;
        let steps = steps_in(s.finish - s.start, s.step).ceil();
        // NaN (settings the model refuses itself) compares as nothing and passes.
        if steps.partial_cmp(&(self.max_output_steps as f64)) != Some(Ordering::Greater) {
            return Ok(());
        }
        Err(PhysicsError::Model {
            message: format!(
                "simulator: finish {} and step {} from start {} make {steps:.0} output steps, \
                 more than the limit of {} output steps; a larger step or an earlier finish \
                 keeps within it (on the command line, --max-output-steps N raises the limit)",
                s.finish, s.step, s.start, self.max_output_steps
            ),
            span: scene.simulator_origin.as_ref().map(|o| o.command),
        })
    }

    /// The message of a run stopped by the memory limit before `finish`, holding `held` bytes
    /// more than when it started (the failure adds the time).
    pub(crate) fn memory_message(&self, held: usize, finish: f64) -> String {
        format!(
            "the simulation holds {} more than when it started, over the memory limit of {}, \
             before the finish ({finish}); the motion up to then is kept. A looser tolerance, \
             fewer bodies or an earlier finish need less (on the command line, --max-memory \
             BYTES raises the limit)",
            bytes(held),
            bytes(self.max_memory)
        )
    }
}

/// How many steps of `step` make `span`: the ratio, taken as the whole number it is within
/// rounding of when it is one (10 s in steps of 1e-5 s are 1,000,000 steps, not 1,000,001).
pub fn steps_in(span: f64, step: f64) -> f64 {
    let ratio = span / step;
    if (ratio - ratio.round()).abs() <= 1e-9 * ratio.abs().max(1.0) {
        ratio.round()
    } else {
        ratio
    }
}

/// A byte count in the largest binary unit that leaves at least one whole.
pub fn bytes(n: usize) -> String {
    const UNITS: [&str; 4] = ["bytes", "KiB", "MiB", "GiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} bytes")
    } else if value.fract() == 0.0 {
        format!("{value:.0} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::evaluate;

    fn refused(simulator: &str, limits: RunLimits) -> Option<(String, usize)> {
        let text = format!("shape_set s desc {{sphere 1}}\nbody b shape s\n{simulator}\n");
        let scene = evaluate(&text).unwrap();
        limits.check_scene(&scene).err().map(|e| match e {
            PhysicsError::Model { message, span } => (message, span.unwrap().start),
            other => panic!("{other:?}"),
        })
    }

    #[test]
    fn a_scene_spanning_too_many_output_steps_is_refused_at_its_simulator_command() {
        let (message, at) = refused("simulator finish 1e9", RunLimits::default()).unwrap();
        assert_eq!(at, "shape_set s desc {sphere 1}\nbody b shape s\n".len());
        assert!(
            message.starts_with(
                "simulator: finish 1000000000 and step 0.1 from start 0 make 10000000000 output \
                 steps, more than the limit of 1000000 output steps"
            ),
            "{message}"
        );
        assert!(message.contains("--max-output-steps N raises the limit"));
        let (message, _) = refused("simulator step 1e-12", RunLimits::default()).unwrap();
        assert!(
            message.contains("make 10000000000000 output steps"),
            "{message}"
        );
    }

    #[test]
    fn the_limit_itself_is_allowed_and_can_be_raised() {
        // 10 s in steps of 1e-5: exactly the default limit.
        assert_eq!(refused("simulator step 1e-5", RunLimits::default()), None);
        assert!(refused("simulator step 9e-6", RunLimits::default()).is_some());
        let raised = RunLimits {
            max_output_steps: 10_000_000_000,
            ..RunLimits::default()
        };
        assert_eq!(refused("simulator finish 1e9", raised), None);
        // A scene without a simulator command spans 100 steps.
        let tiny = RunLimits {
            max_output_steps: 99,
            ..RunLimits::default()
        };
        let scene = evaluate("").unwrap();
        assert!(tiny.check_scene(&scene).is_err());
    }

    #[test]
    fn byte_counts_read_in_binary_units() {
        assert_eq!(bytes(512), "512 bytes");
        assert_eq!(bytes(4 << 30), "4 GiB");
        assert_eq!(bytes(3 << 19), "1.5 MiB");
    }
}
