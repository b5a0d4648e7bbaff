//! Moving the end time and forgetting old motion: what live stepping needs to run a simulation
//! on and on, one short span at a time, in bounded memory.

use super::Simulation;
use crate::sim::error::{ErrorKind, SimError};

impl Simulation {
    /// Moves the end time to `end`, which may lie before the current end but not before any
    /// component's computed motion. A live run moves it on by one timestep and runs again:
    /// components continue from where they stopped with their step history (stopping at the
    /// end is no discontinuity), and still land and restart on breakpoints beyond the old end.
    pub fn set_end(&mut self, end: f64) -> Result<(), SimError> {
        let reached = self
            .reached
            .iter()
            .copied()
            .fold(self.system.start(), f64::max);
        if !(end.is_finite() && end >= reached) {
            return Err(SimError::new(
                ErrorKind::InvalidRequest,
                format!("the end time must be finite and not before {reached}, got {end}"),
            ));
        }
        self.system.set_end(end);
        for component in &mut self.components {
            component.set_end(end);
        }
        Ok(())
    }

    /// Drops every component's computed points before `time`, keeping the last point at or
    /// before it (with both sides of a jump there) so that values from `time` on can still be
    /// read. Motion before `time` is no longer available afterwards, and a back-up must not
    /// go before it.
    pub fn forget_before(&mut self, time: f64) {
        for c in self.partition.ids() {
            self.tracks.write(c).forget_before(time);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::sim::system::{ClosureEquations, Equation, System};
    use crate::sim::{Options, Simulation, VarId};

    /// x' = -x from x = 1, with a breakpoint at 0.25.
    fn decay(end: f64) -> Simulation {
        let mut system = System::new(0.0, end);
        let x = system.add_variable("x", 1.0);
        system.add_breakpoints(x, &[0.25]);
        let mut equations = ClosureEquations::new();
        equations.define(
            &mut system,
            x,
            Equation::new(move |_, s| -s.get(x)).reads(x, |_, _| -1.0),
        );
        Simulation::new(system, &equations, Options::default()).unwrap()
    }

    #[test]
    fn moving_the_end_on_step_by_step_continues_the_motion() {
        let mut whole = decay(1.0);
        whole.run_to_end().unwrap();
        let mut live = decay(1.0);
        live.set_end(0.0).unwrap();
        for k in 1..=10 {
            live.set_end(f64::from(k) * 0.1).unwrap();
            live.run_to_end().unwrap();
        }
        let x = VarId(0);
        let expected = (-1.0f64).exp();
        for sim in [&whole, &live] {
            let value = sim.motion().value(x, 1.0).unwrap();
            assert!((value - expected).abs() < 1e-4, "{value} vs {expected}");
        }
        // The breakpoint at 0.25 is a point of the track even though it lies between ends.
        let (track, _) = live.motion().track_of(x).unwrap();
        assert!(track.times().contains(&0.25));
        assert!(track.times().contains(&0.5));
    }

    #[test]
    fn the_end_cannot_move_before_computed_motion() {
        let mut sim = decay(1.0);
        sim.run_to_end().unwrap();
        let error = sim.set_end(0.5).unwrap_err();
        assert!(error.message.contains("not before 1"), "{}", error.message);
        assert!(sim.set_end(f64::NAN).is_err());
        assert!(sim.set_end(2.0).is_ok());
    }

    #[test]
    fn forgetting_keeps_the_motion_from_the_given_time_on() {
        let mut sim = decay(1.0);
        sim.run_to_end().unwrap();
        let x = VarId(0);
        let before = sim.motion().value(x, 0.6).unwrap();
        sim.forget_before(0.5);
        let (track, _) = sim.motion().track_of(x).unwrap();
        assert!(track.start_time() <= 0.5 && track.start_time() > 0.25);
        assert_eq!(sim.motion().value(x, 0.6), Some(before));
        assert_eq!(sim.motion().value(x, 0.2), None);
    }
}
