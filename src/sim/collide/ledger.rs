//! The collider's side of the energy ledger (see [`crate::sim::energy`]): how much kinetic
//! energy each instantaneous change it made took or gave, by cause.
//!
//! Every time the collider changes velocities (an instant's impulses, bodies put to sleep) it
//! records the change of the kinetic energy of each body it touched, one record per body;
//! every contact load records its work as it ends. The records are history like the
//! collisions: a back-up that undoes a collision undoes its energy record, so what is left at
//! the end is what the motion shows.

use super::bodies::{CollisionBody, Kinematics};
use serde::Serialize;

/// What made an instantaneous change of kinetic energy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Cause {
    /// Collision impulses (restitution and friction at an impact, and what the impact pressed).
    Impact,
    /// The plastic impulses that stop a resting contact as it becomes persistent, or a
    /// persistent one found sunk past its guard depth.
    ContactImpulse,
    /// Bodies brought to rest when they fall asleep.
    Sleep,
    /// The work of persistent contacts' forces (friction, and sinking or being pushed out of
    /// an overlap), recorded per load as it ends (see `contact`).
    ContactForce,
}

/// One instant's change of kinetic energy.
#[derive(Clone, Debug, PartialEq)]
pub struct EnergyRecord {
    pub time: f64,
    pub cause: Cause,
    /// The body whose velocities changed (scene index). One record per body, not per instant:
    /// a back-up undoes the jumps of the bodies it backs up and only theirs, so an instant
    /// whose record spanned all its bodies lost the others' change from the ledger when one of
    /// them was backed up past it, while their jumps stood.
    pub body: usize,
    /// Joules (negative when energy was taken).
    pub change: f64,
}

/// The kinetic energy of a body in state `s`: `½ m v² + ½ ω·L`.
pub(crate) fn kinetic_energy(body: &CollisionBody, s: &Kinematics) -> f64 {
    0.5 * body.model.mass * s.velocity.norm_squared() + 0.5 * s.angular_velocity.dot(&s.momentum)
}

/// The records that stand, in time order.
#[derive(Clone, Debug, Default)]
pub(crate) struct Ledger {
    /// Each with the sequence number it was made with.
    records: Vec<(u64, EnergyRecord)>,
    /// The sequence number of the next record.
    next: u64,
    /// Records numbered below this were made before the back-ups being applied now were asked
    /// for (see [`Ledger::settle`]).
    settled: u64,
}

impl Ledger {
    /// Adds a record (kept in time order; equal times in the order they were made).
    pub fn record(&mut self, record: EnergyRecord) {
        if record.change == 0.0 {
            return;
        }
        let at = self.records.partition_point(|(_, r)| r.time <= record.time);
        self.records.insert(at, (self.next, record));
        self.next += 1;
    }

    /// Marks every record made so far as applied: the back-ups asked for with them have been
    /// made, so their jumps are in the tracks. Called as the collider is called again.
    pub fn settle(&mut self) {
        self.settled = self.next;
    }

    /// Forgets the records of `body` after `time` (from `time` on, when `reset`), as its
    /// collisions are forgotten when it is backed up there. A back-up to `time` also drops the
    /// jumps the body's tracks had at `time` (they end at the value before it), so the records
    /// of applied jumps at `time` go too, and the collider makes them again if it finds the
    /// instant again; a contact load's work up to `time` stands, and so do the records of the
    /// back-up being applied, whose jumps follow the truncation.
    pub fn truncate(&mut self, body: usize, time: f64, reset: bool) {
        let from = self.records.partition_point(|(_, r)| r.time < time);
        let settled = self.settled;
        let mut later = self.records.split_off(from);
        later.retain(|(seq, r)| {
            let jump_dropped = r.time == time && *seq < settled && r.cause != Cause::ContactForce;
            let undone = r.time > time || (reset && r.time >= time) || jump_dropped;
            !(undone && r.body == body)
        });
        self.records.append(&mut later);
    }

    /// The records between bodies that keep their names after an edit (`map` from the old
    /// scene's indices to the new), except those of `dropped` bodies.
    pub fn inherit(&self, map: &[Option<usize>], dropped: impl Fn(usize) -> bool) -> Ledger {
        let records = self
            .records
            .iter()
            .filter_map(|(seq, r)| {
                let body = map[r.body]?;
                (!dropped(body)).then(|| (*seq, EnergyRecord { body, ..r.clone() }))
            })
            .collect();
        Ledger {
            records,
            next: self.next,
            settled: self.next,
        }
    }

    /// Forgets the records before `time` (a live run's history).
    pub fn forget_before(&mut self, time: f64) {
        let keep = self.records.partition_point(|(_, r)| r.time < time);
        self.records.drain(..keep);
    }

    /// The total change per cause up to `until`, in the order of [`Cause`].
    pub fn totals(&self, until: f64) -> Vec<(Cause, f64)> {
        let mut totals: Vec<(Cause, f64)> = Vec::new();
        for (_, r) in self.records.iter().take_while(|(_, r)| r.time <= until) {
            match totals.iter_mut().find(|(c, _)| *c == r.cause) {
                Some((_, total)) => *total += r.change,
                None => totals.push((r.cause, r.change)),
            }
        }
        totals.sort_by_key(|&(c, _)| c);
        totals
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(time: f64, cause: Cause, change: f64) -> EnergyRecord {
        EnergyRecord {
            time,
            cause,
            body: 1,
            change,
        }
    }

    #[test]
    fn a_back_up_to_an_instant_forgets_the_jumps_it_drops_and_keeps_its_own() {
        let mut ledger = Ledger::default();
        ledger.record(record(0.5, Cause::Impact, -0.25));
        // An instant at t = 1 applied, and a load's work up to it.
        ledger.record(record(1.0, Cause::Impact, -1.0));
        ledger.record(record(1.0, Cause::ContactForce, -0.5));
        ledger.record(record(2.0, Cause::Impact, -4.0));
        ledger.settle();
        // The instant found again at t = 1, recorded as its back-up is asked for.
        ledger.record(record(1.0, Cause::Impact, -1.0));
        ledger.truncate(1, 1.0, false);
        assert_eq!(
            ledger.totals(f64::INFINITY),
            vec![(Cause::Impact, -1.25), (Cause::ContactForce, -0.5)]
        );
        // A reset to the start forgets everything from it on.
        ledger.truncate(1, 0.5, true);
        assert_eq!(ledger.totals(f64::INFINITY), vec![]);
    }
}
