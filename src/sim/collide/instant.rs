//! One instant's contacts handled together: the contacts found there and every contact they
//! press (see [`Detector::touching`]), passes of impulses over them until none approaches
//! (see `response` for the rules of one contact), who falls asleep or wakes there, the last
//! resort for a jam the passes cannot resolve (see `jam`), and the back-up that results.

use super::bodies::Kinematics;
use super::jam::{self, JamContact};
use super::ledger::{self, Cause, EnergyRecord};
use super::narrow::Found;
use super::response::{approach, impact, resting_speed, ContactPoint, Impact, Impulse, Side};
use super::{Collision, Detector, DISTANCE_TOLERANCE, RESTING_FRACTION, RESTING_RISE, WAKE_FACTOR};
use crate::geom::distance::closest_between_shapes;
use crate::sim::physics::BodyVars;
use crate::sim::schedule::{BackUp, StepContext};
use crate::sim::VarId;
use nalgebra::Vector3;
use std::collections::{HashMap, HashSet};

/// An instant with this many collisions recorded at it already is a jam, resolved without
/// friction.
const JAM_RECORDS: usize = 16;
/// Passes over the contacts of one instant at most (each pass handles them all in turn).
const MAX_PASSES: usize = 100;

/// One contact of an instant: what the search found and the pair, A first.
type Contact = (Found, usize, usize);

/// The contacts of one instant and what the passes over them have done so far.
struct Passes {
    /// The pair of each contact.
    pairs: Vec<(usize, usize)>,
    contacts: Vec<ContactPoint>,
    /// The corners of each contact's touching region.
    regions: Vec<Vec<Vector3<f64>>>,
    /// Every body of the contacts, as the impulses so far leave it.
    states: HashMap<usize, Kinematics>,
    change: Wakefulness,
    /// Bodies that made a resting hop at this instant (here, or in an earlier back-up to it).
    hopped: Vec<usize>,
    /// The collision each contact made, its impulses summed over the passes.
    records: Vec<Option<Collision>>,
    /// The kinetic energy taken from bodies brought to rest as they fell asleep.
    slept_energy: f64,
}

impl Detector {
    /// Handles the earliest instant among `found` (sorted by time) at which some impulse moves
    /// a body: resolves its contacts together and asks for the back-up, with the bodies that
    /// fall asleep or wake there (see [`Detector::may_sleep`] and [`Detector::island`]).
    /// Returns the instant and its pairs, or `None` when no contact moved anything.
    pub(super) fn respond(
        &mut self,
        found: &[Contact],
        pairs: &[(usize, usize)],
        instant: f64,
        context: &mut StepContext<'_>,
    ) -> Option<(f64, Vec<(usize, usize)>)> {
        let mut k = 0;
        while k < found.len() {
            let time = found[k].0.time;
            let end = k + found[k..]
                .iter()
                .take_while(|f| f.0.time <= time + instant)
                .count();
            let touching = self.touching(&found[k..end], pairs, time, context);
            let group: Vec<Contact> = found[k..end].iter().copied().chain(touching).collect();
            k = end;
            let mut passes = self.passes(&group, time, instant, context);
            let before = passes.states.clone();
            let jammed = self.resolve(&mut passes, time, context);
            let records: Vec<Collision> = passes.records.into_iter().flatten().collect();
            if records.is_empty() {
                continue;
            }
            let cause = if jammed {
                Cause::Jam
            } else if records.iter().any(|r| r.resting) {
                Cause::RestingHop
            } else {
                Cause::Impact
            };
            let mut moved: Vec<usize> = passes.states.keys().copied().collect();
            moved.sort_unstable();
            let change = ledger::change(&self.bodies, &before, &passes.states);
            self.ledger.record(EnergyRecord {
                time,
                cause,
                bodies: moved.clone(),
                change: change - passes.slept_energy,
            });
            self.ledger.record(EnergyRecord {
                time,
                cause: Cause::Sleep,
                bodies: moved,
                change: passes.slept_energy,
            });
            for &(b, rest) in &passes.change.slept {
                self.rest[b] = rest;
            }
            let request = self.back_up_request(&passes.states, &passes.change, time, context);
            for record in records {
                let at = self.records.partition_point(|r| r.time <= record.time);
                self.records.insert(at, record);
            }
            context.request_back_up(request);
            return Some((time, passes.pairs));
        }
        None
    }

    /// The contacts of the instant `time` (within `instant`) in `group`, before any pass.
    fn passes(
        &self,
        group: &[Contact],
        time: f64,
        instant: f64,
        context: &StepContext<'_>,
    ) -> Passes {
        let mut states: HashMap<usize, Kinematics> = HashMap::new();
        for (f, i, j) in group {
            for (b, fallback) in [(*i, f.a), (*j, f.b)] {
                states
                    .entry(b)
                    .or_insert_with(|| self.bodies[b].state(context, time).unwrap_or(fallback));
            }
        }
        let from = self.records.partition_point(|r| r.time < time - instant);
        let earlier: Vec<&Collision> = self.records[from..]
            .iter()
            .take_while(|r| r.time <= time + instant)
            .collect();
        let hopped: Vec<usize> = earlier
            .iter()
            .filter(|r| r.resting)
            .flat_map(|r| [r.bodies.0, r.bodies.1])
            .collect();
        // An instant handled again and again is a jam that friction keeps from resolving
        // (a body dragged along a sleeper pulls back on what pushes it, pass after pass):
        // it is resolved without friction.
        let jammed = earlier.len() >= JAM_RECORDS;
        let contacts = group
            .iter()
            .map(|(f, i, j)| {
                let c = &f.contact.contact;
                ContactPoint {
                    point: (c.point_a + c.point_b) / 2.0,
                    normal: c.normal,
                    pressing: self.pressing(*i, *j, &c.normal, time, context),
                    resting_interval: self.window * RESTING_FRACTION,
                    resting_rise: RESTING_RISE * (self.bodies[*i].reach + self.bodies[*j].reach),
                    approach_tolerance: self.approach_tolerance(*i, *j),
                    settled: false,
                    friction: if jammed {
                        0.0
                    } else {
                        (self.bodies[*i].friction * self.bodies[*j].friction).sqrt()
                    },
                }
            })
            .collect();
        let regions = group
            .iter()
            .map(|(f, i, j)| self.region(f, *i, *j, &states))
            .collect();
        Passes {
            pairs: group.iter().map(|&(_, i, j)| (i, j)).collect(),
            contacts,
            regions,
            states,
            change: Wakefulness::default(),
            hopped,
            records: vec![None; group.len()],
            slept_energy: 0.0,
        }
    }

    /// Passes over the contacts until none approaches (an impulse on one contact of a stack can
    /// press another). A jam the passes do not resolve (a body slid into a wedge between a
    /// support and a sleeper takes ever smaller pushes from each in turn): the sleepers shoved
    /// in it wake and take their share, round after round while the passes shove more (a
    /// brick driven down onto the floor under a column of sleepers wakes the column one brick
    /// per round); if that does not resolve it either, the bodies still pushed move on
    /// together (see `jam`). Waking only the first sleepers shoved left the rest of such a
    /// column holding the jam, and the wrecking ball of `wall.asg` was welded into a lump with
    /// it and slowed to a crawl.
    /// Returns whether the jam's bodies had to be merged.
    fn resolve(&mut self, passes: &mut Passes, time: f64, context: &StepContext<'_>) -> bool {
        let mut pushed = Vec::new();
        // Each round wakes at least one more body, so the rounds end.
        loop {
            for _ in 0..MAX_PASSES {
                pushed = self.pass(passes, time, context);
                if pushed.is_empty() {
                    return false;
                }
            }
            let shoved: Vec<usize> = pushed
                .iter()
                .flat_map(|&(i, j)| [i, j])
                .filter(|&b| self.sleeping(b, &passes.change, time, context))
                .collect();
            if shoved.is_empty() {
                break;
            }
            for b in shoved {
                passes.change.wake(b);
            }
        }
        let contacts: Vec<JamContact> = passes
            .pairs
            .iter()
            .zip(&passes.contacts)
            .zip(&passes.regions)
            .map(|((&bodies, contact), region)| JamContact {
                bodies,
                normal: contact.normal,
                corners: if region.is_empty() {
                    vec![contact.point]
                } else {
                    region.clone()
                },
            })
            .collect();
        let immovable = |b: usize| self.bodies[b].immovable(time);
        let inertia = |b: usize, state: &Kinematics| {
            let model = &self.bodies[b].model;
            (model.mass, model.world_inertia(&state.rotation))
        };
        jam::merge(&pushed, &contacts, &mut passes.states, inertia, immovable);
        // The lumps move: a sleeper in one wakes, and so does one a lump now drives into,
        // which held still would stop the lump as a wall would.
        let jammed: HashSet<usize> = pushed.iter().flat_map(|&(i, j)| [i, j]).collect();
        for (slot, &(i, j)) in passes.pairs.iter().enumerate() {
            let (sa, sb) = (&passes.states[&i], &passes.states[&j]);
            let driven = approach(sa, sb, &passes.contacts[slot]) < 0.0;
            for (b, other) in [(i, j), (j, i)] {
                let asleep = self.sleeping(b, &passes.change, time, context);
                if asleep && (jammed.contains(&b) || (driven && jammed.contains(&other))) {
                    passes.change.wake(b);
                }
            }
        }
        true
    }

    /// Whether body `b` is asleep at the instant `time` with the falling asleep and waking of
    /// `change` so far.
    fn sleeping(
        &self,
        b: usize,
        change: &Wakefulness,
        time: f64,
        context: &StepContext<'_>,
    ) -> bool {
        change.asleep(b, self.asleep(b, time, context))
    }

    /// One pass over the contacts in turn; returns the pairs it pushed.
    fn pass(
        &mut self,
        passes: &mut Passes,
        time: f64,
        context: &StepContext<'_>,
    ) -> Vec<(usize, usize)> {
        let mut pushed = Vec::new();
        for slot in 0..passes.pairs.len() {
            if self.hit(slot, passes, time, context) {
                pushed.push(passes.pairs[slot]);
            }
        }
        pushed
    }

    /// Handles contact `slot` of `passes` as its bodies now move; returns whether it pushed
    /// them.
    fn hit(
        &mut self,
        slot: usize,
        passes: &mut Passes,
        time: f64,
        context: &StepContext<'_>,
    ) -> bool {
        let (i, j) = passes.pairs[slot];
        let mut contact = passes.contacts[slot];
        contact.settled = passes.hopped.contains(&i) || passes.hopped.contains(&j);
        let (sa, sb) = (passes.states[&i], passes.states[&j]);
        let region = &passes.regions[slot];
        let still = |change: &Wakefulness, b: usize| self.sleeping(b, change, time, context);
        let side = |b: usize, state: Kinematics, still: bool| Side {
            body: &self.bodies[b],
            state,
            immovable: self.bodies[b].immovable(time) || still,
        };
        let strike = |change: &Wakefulness| {
            impact(
                &side(i, sa, still(change, i)),
                &side(j, sb, still(change, j)),
                &contact,
                region,
            )
        };
        let change = &mut passes.change;
        let mut outcome = strike(change);
        // A hard enough hit wakes a sleeper, which then takes its share of the impulse.
        if let Impact::Impulse(first) = &outcome {
            let speed = -approach(&sa, &sb, &contact);
            let woken: Vec<usize> = [i, j]
                .into_iter()
                .filter(|&b| {
                    !first.resting && still(change, b) && speed > WAKE_FACTOR * self.rest[b].speed
                })
                .collect();
            if !woken.is_empty() {
                for &b in &woken {
                    change.wake(b);
                }
                outcome = strike(change);
            }
        }
        let Impulse {
            impulse,
            mut a,
            mut b,
            resting,
        } = match outcome {
            Impact::Separating => return false,
            Impact::Immovable => {
                self.warn_immovable(i, j, time);
                return false;
            }
            Impact::Impulse(outcome) => *outcome,
        };
        if resting {
            // A body resting on a support that does not move may fall asleep there.
            let rest = resting_speed(&contact);
            let sides = [
                (i, &sa, &mut a, j, -contact.normal),
                (j, &sb, &mut b, i, contact.normal),
            ];
            for (body, before, after, partner, up) in sides {
                let supported = self.bodies[partner].is_fixed() || still(change, partner);
                if supported && self.may_sleep(body, before, &contact, time, context) {
                    change.sleep(body, Rest { speed: rest, up });
                    passes.slept_energy -= ledger::kinetic_energy(&self.bodies[body], after);
                    after.velocity = Vector3::zeros();
                    after.momentum = Vector3::zeros();
                    after.angular_velocity = Vector3::zeros();
                }
            }
            passes.hopped.extend([i, j]);
        }
        passes.states.insert(i, a);
        passes.states.insert(j, b);
        let record = passes.records[slot].get_or_insert(Collision {
            time,
            bodies: (i, j),
            point: contact.point,
            normal: contact.normal,
            impulse: 0.0,
            resting,
        });
        record.impulse += impulse;
        record.resting = resting;
        true
    }

    /// The contacts at `time`, among the candidate `pairs`, that `group` does not hold but that
    /// its moving bodies make with the bodies they touch there, and, transitively, those of the
    /// moving bodies so reached: a push on one contact of a stack presses the others, so all
    /// of them are resolved in the same passes rather than one back-up after another (which
    /// could push a body back and forth between two contacts without end).
    pub(super) fn touching(
        &mut self,
        group: &[(Found, usize, usize)],
        pairs: &[(usize, usize)],
        time: f64,
        context: &StepContext<'_>,
    ) -> Vec<(Found, usize, usize)> {
        let mut of_body: HashMap<usize, Vec<(usize, usize)>> = HashMap::new();
        for &(i, j) in pairs {
            of_body.entry(i).or_default().push((i, j));
            of_body.entry(j).or_default().push((i, j));
        }
        let mut done: HashSet<(usize, usize)> = group.iter().map(|&(_, i, j)| (i, j)).collect();
        // In the group's order, not a hash set's: the order of the contacts is the order of
        // the passes, and a simulation must come out the same every time.
        let mut next: Vec<usize> = group.iter().flat_map(|&(_, i, j)| [j, i]).collect();
        let mut members: HashSet<usize> = next.iter().copied().collect();
        let mut touching = Vec::new();
        while let Some(x) = next.pop() {
            if self.bodies[x].immovable(time) || self.asleep(x, time, context) {
                continue;
            }
            for &(i, j) in of_body.get(&x).into_iter().flatten() {
                if !done.insert((i, j)) {
                    continue;
                }
                let (a, b) = (&self.bodies[i], &self.bodies[j]);
                let (Some(shape_a), Some(shape_b)) = (&a.shape, &b.shape) else {
                    continue;
                };
                let (Some(sa), Some(sb)) = (a.state(context, time), b.state(context, time)) else {
                    continue;
                };
                let cache = self.caches.entry((i, j)).or_default();
                let contact =
                    closest_between_shapes(shape_a, &a.pose(&sa), shape_b, &b.pose(&sb), cache);
                if contact.contact.distance > DISTANCE_TOLERANCE * (a.reach + b.reach) {
                    continue;
                }
                let found = Found {
                    time,
                    contact,
                    a: sa,
                    b: sb,
                };
                touching.push((found, i, j));
                let other = if i == x { j } else { i };
                if members.insert(other) {
                    next.push(other);
                }
            }
        }
        touching
    }

    /// The back-up for an instant handled: every moving body's new velocity and angular
    /// momentum (`states`), the bodies that fell asleep brought to rest and held, and those
    /// woken released with every sleeper resting on them.
    fn back_up_request(
        &self,
        states: &HashMap<usize, Kinematics>,
        change: &Wakefulness,
        time: f64,
        context: &StepContext<'_>,
    ) -> BackUp {
        let mut request = BackUp {
            time,
            ..BackUp::default()
        };
        for (&b, state) in states {
            let body = &self.bodies[b];
            let Some(vars) = body.model.vars else {
                continue;
            };
            if change.fell_asleep(b) {
                request.jumps.extend(at_rest(vars));
                request.holds.extend(vars.all());
            } else if !body.immovable(time) && !self.sleeping(b, change, time, context) {
                request.jumps.extend(
                    vars.velocity()
                        .into_iter()
                        .zip(state.velocity.iter().copied()),
                );
                request.jumps.extend(
                    vars.momentum()
                        .into_iter()
                        .zip(state.momentum.iter().copied()),
                );
            }
        }
        for b in self.island(&change.woken, time, context) {
            request.releases.extend(
                self.bodies[b]
                    .model
                    .vars
                    .into_iter()
                    .flat_map(BodyVars::all),
            );
        }
        request.jumps.sort_by_key(|&(v, _)| v);
        request
    }
}

/// The resting contact at which a body fell asleep.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Rest {
    /// Its resting speed.
    pub speed: f64,
    /// Its normal, from the support to the sleeper.
    pub up: Vector3<f64>,
}

/// Who falls asleep and who wakes at one instant, as its contacts are handled in turn.
#[derive(Default)]
struct Wakefulness {
    slept: Vec<(usize, Rest)>,
    woken: Vec<usize>,
}

impl Wakefulness {
    /// Whether body `b` is asleep now, given whether it was at the instant (`held`).
    fn asleep(&self, b: usize, held: bool) -> bool {
        (held || self.slept.iter().any(|&(s, _)| s == b)) && !self.woken.contains(&b)
    }

    fn fell_asleep(&self, b: usize) -> bool {
        self.asleep(b, false)
    }

    fn sleep(&mut self, b: usize, rest: Rest) {
        self.slept.push((b, rest));
    }

    fn wake(&mut self, b: usize) {
        self.slept.retain(|&(s, _)| s != b);
        if !self.woken.contains(&b) {
            self.woken.push(b);
        }
    }
}

/// Jumps that bring a body's velocity and angular momentum to zero.
fn at_rest(vars: BodyVars) -> impl Iterator<Item = (VarId, f64)> {
    let moving = vars.velocity().into_iter().chain(vars.momentum());
    moving.map(|v| (v, 0.0))
}
