//! Sleeping islands: a contact island whose bodies all stay still for [`SLEEP_AFTER`] seconds
//! is brought to rest and *held* (its state variables are constant prescriptions until
//! released, see [`BackUp::holds`]), so a settled pile costs nothing; a sleeper is woken, with
//! its whole island, when something awake touches it (an impact, a new persistent contact, a
//! pull in live mode). Without it a body held by contact forces would be integrated for ever
//! at speeds of rounding errors, one tick after another.
//!
//! Only bodies that move by their own state alone may sleep
//! ([`Model::self_contained`](crate::sim::physics::Model::self_contained)): a body driven by
//! time, a trajectory or a link never freezes. Live mode's pushes and pulls wake the body
//! they change (`live::scene`), so a resting scene sleeps in live mode too.

use super::super::ledger::{kinetic_energy, Cause, EnergyRecord};
use super::super::Detector;
use super::Held;
use crate::sim::physics::BodyVars;
use crate::sim::schedule::{BackUp, StepContext};
use crate::sim::VarId;
use nalgebra::Vector3;

/// An island still for this long (seconds) falls asleep.
pub(in crate::sim::collide) const SLEEP_AFTER: f64 = 0.5;
/// A body is still while every point of its surface moves slower than this fraction of the
/// speed its contact load's acceleration gives over a check window (about a centimetre per
/// second for a body resting under gravity in windows of 10 ms). Its surface, not every point:
/// a ball turning about its centre moves no surface, and the slow turn about the vertical that
/// a ball on a floor keeps (no contact can stop a point contact's spin) kept whole piles awake.
const STILL_FRACTION: f64 = 0.1;

impl Detector {
    /// Puts to sleep, through `request`, the islands of `held` (solved at `tick`) that have
    /// been still for [`SLEEP_AFTER`]: brought to rest, their loads ended and their variables
    /// held; the kinetic energy taken is recorded. Notes which bodies are still from when.
    pub(in crate::sim::collide) fn fall_asleep(
        &mut self,
        tick: f64,
        held: &Held,
        context: &mut StepContext<'_>,
        request: &mut BackUp,
    ) {
        for island in &held.islands {
            let still = island.iter().all(|&b| self.is_still(b, &held.states[&b]));
            if !still {
                for b in island {
                    self.contacts.slow_since.remove(b);
                }
                continue;
            }
            let since = island
                .iter()
                .map(|&b| *self.contacts.slow_since.entry(b).or_insert(tick))
                .fold(f64::NEG_INFINITY, f64::max);
            if tick - since < SLEEP_AFTER {
                continue;
            }
            for &b in island {
                let Some(vars) = self.bodies[b].model.vars else {
                    continue;
                };
                let state = held.states[&b];
                // From the state just before the tick: a jump there is dropped with its record
                // by this back-up (see `Ledger::truncate`).
                let before = self.bodies[b].state_before(context, tick).unwrap_or(state);
                self.ledger.record(EnergyRecord {
                    time: tick,
                    cause: Cause::Sleep,
                    body: b,
                    change: -kinetic_energy(&self.bodies[b], &before),
                });
                self.change_load(b, tick, Vector3::zeros(), Vector3::zeros(), state, context);
                self.contacts.slow_since.remove(&b);
                self.contacts.gated.remove(&b);
                let components = self.components_of(b, context.partition());
                for c in components {
                    context.set_gate(c, f64::INFINITY);
                }
                request.jumps.extend(at_rest(vars));
                request.holds.extend(vars.all());
            }
            request.jumps.sort_by_key(|&(v, _)| v);
        }
    }

    /// Releases the sleepers `woken` through `request`: their own equations take over again at
    /// its time.
    pub(in crate::sim::collide) fn release(&mut self, woken: &[usize], request: &mut BackUp) {
        for &b in woken {
            self.contacts.slow_since.remove(&b);
            if let Some(vars) = self.bodies[b].model.vars {
                request.releases.extend(vars.all());
            }
        }
    }

    /// Whether body `b`, held by its contacts, is in `state` still enough to sleep.
    fn is_still(&self, b: usize, state: &super::super::bodies::Kinematics) -> bool {
        let body = &self.bodies[b];
        if !body.self_contained {
            return false;
        }
        let Some(load) = self.contacts.current(b) else {
            return false;
        };
        let limit = STILL_FRACTION * load.force.norm() / body.model.mass * self.window;
        let speed = state.velocity.norm() + body.spin_reach * state.angular_velocity.norm();
        speed < limit
    }
}

/// Jumps that bring a body's velocity and angular momentum to zero.
pub(in crate::sim::collide) fn at_rest(vars: BodyVars) -> impl Iterator<Item = (VarId, f64)> {
    let moving = vars.velocity().into_iter().chain(vars.momentum());
    moving.map(|v| (v, 0.0))
}
