//! One instant's contacts handled together: the contacts found there and, as the impulses
//! move bodies, the contacts those bodies make with what they touch (persistent contacts
//! included), and the sleepers they wake; passes of impulses over them until none approaches
//! (see `response` for one contact); which pairs become persistent or stop being so; the
//! contact loads of the bodies moved, solved again at the instant; and the back-up that
//! results, of those bodies only.
//!
//! A contact is an *impact* (restitution at the closest point, with friction) unless it is
//! *resting*: a persistent pair, or a pair pressed together (the acceleration each body's own
//! loads give it into the contact) closing slower than that acceleration gives over a few check
//! windows, more for an inelastic pair whose bounce would be too short to follow (see
//! [`Detector::rest_speed`]), and not turning so fast that a load held over a window would stand
//! for a contact long gone (`RESTING_TURN`), unless it closes so slowly that struck it would
//! chatter (`CHATTER_WINDOWS`). A resting contact is stopped over its whole
//! touching region (plastic, with friction) and becomes persistent, held by contact forces from
//! then on (see `contact`). The passes are sequential impulses, as in the dissertation (5.3.2): a wave
//! crosses Newton's cradle from ball to ball. Contacts the passes leave approaching (a body
//! wedged between two others) become persistent too: the contact solve, which handles a whole
//! island at once, takes them over instead of endless back-ups at one instant.

use super::bodies::Kinematics;
use super::ledger::{kinetic_energy, Cause, EnergyRecord};
use super::narrow::Found;
use super::response::{approach, impact, ContactPoint, Impact, Impulse, Side};
use super::{Collision, Detector, DISTANCE_TOLERANCE};
use crate::geom::distance::closest_between_shapes;
use crate::lang::fxhash::{FxHashMap, FxHashSet};
use crate::sim::schedule::{BackUp, StepContext};
use nalgebra::Vector3;
use std::cell::OnceCell;

/// Passes over the contacts of one instant at most (each pass handles them all in turn).
const MAX_PASSES: usize = 100;

/// A pair whose bodies turn across their contact's normal by more than this (radians) over a
/// check window does not rest there, however hard it is pressed: a contact load is constant
/// over the window's tick, a force and a torque fixed while the corner they stand for swings
/// round, and on a body turning that far the torque does work no contact does. The tip of a
/// chain whipping round at 150 rad/s (1.5 radians a window), pressed onto the link beside it
/// by its springs, was held so and gained a quarter of a joule; it bounces instead. Bricks
/// knocked off a wall turn up to a few tenths of a radian a window as they rest on each other,
/// and rest as before (at a tenth the wall's motion changed and cost 17 % more processor time).
const RESTING_TURN: f64 = 0.3;

/// A pair pressed together and closing slower than its pressing acceleration gives over this
/// many check windows rests however fast it turns: it touched again within a ten-thousandth of
/// a window of parting, and struck instead it would chatter. A brick spun by the wrecking ball
/// and pushed back onto it by a load was struck 16,800 times in a quarter of a millisecond,
/// each impulse 3e-7 N·s, 13 ns apart, and those instants took three quarters of the wall's
/// processor time. The chain's tip that `RESTING_TURN` keeps bouncing closed at a thousand
/// times this speed.
const CHATTER_WINDOWS: f64 = 1e-4;

/// Whether a pair that is not persistent rests: pressed together (`pressing`, the acceleration
/// into the contact), closing slower than `rest_speed`, and either turning (across the normal)
/// less than [`RESTING_TURN`] over a check `window` or closing so slowly that it would chatter
/// ([`CHATTER_WINDOWS`]).
fn rests(pressing: f64, closing: f64, rest_speed: f64, turn: f64, window: f64) -> bool {
    pressing > 0.0
        && closing < rest_speed
        && (turn < RESTING_TURN || closing < pressing * CHATTER_WINDOWS * window)
}

/// One contact of an instant: what the search found and the pair, A first.
type Contact = (Found, usize, usize);

/// A window's candidate pairs by body, sorted for each, worked out the first time one of the
/// window's instants needs them (once per window check, not once per island: a crowd's window
/// has hundreds of islands and thousands of pairs). One sorted list of (body, pair) entries,
/// each pair under both its bodies, looked up by bisection: a map of a list per body made a
/// pile's every instant allocate two hundred lists.
pub(super) struct Around<'a> {
    pairs: &'a [(usize, usize)],
    by_body: OnceCell<Vec<(usize, (usize, usize))>>,
}

impl<'a> Around<'a> {
    pub fn new(pairs: &'a [(usize, usize)]) -> Around<'a> {
        Around {
            pairs,
            by_body: OnceCell::new(),
        }
    }

    /// The candidate pairs of body `b`, in pair order.
    fn of(&self, b: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
        let by_body = self.by_body.get_or_init(|| {
            let mut by_body: Vec<(usize, (usize, usize))> = self
                .pairs
                .iter()
                .flat_map(|&(i, j)| [(i, (i, j)), (j, (i, j))])
                .collect();
            by_body.sort_unstable();
            by_body.dedup();
            by_body
        });
        let first = by_body.partition_point(|&(x, _)| x < b);
        by_body[first..]
            .iter()
            .take_while(move |&&(x, _)| x == b)
            .map(|&(_, pair)| pair)
    }
}

/// The contacts of one instant and what the passes over them have done so far.
#[derive(Default)]
struct Passes {
    /// The pair of each contact.
    pairs: Vec<(usize, usize)>,
    contacts: Vec<ContactPoint>,
    /// The corners of each contact's touching region.
    regions: Vec<Vec<Vector3<f64>>>,
    /// Every body of the contacts, as the impulses so far leave it.
    states: FxHashMap<usize, Kinematics>,
    /// Every body of the contacts as it was at the instant, before any impulse.
    before: FxHashMap<usize, Kinematics>,
    /// The collision each contact made, its impulses summed over the passes.
    records: Vec<Option<Collision>>,
    /// Sleepers woken at this instant (they take their share of the impulses).
    woken: Vec<usize>,
    /// The bodies near the contacts read from their tracks at the instant, so that a body
    /// near several moved ones is read once (`None`: it has no state there).
    read: FxHashMap<usize, Option<Kinematics>>,
}

impl Passes {
    /// The bodies the impulses have changed so far, and the sleepers woken, in order.
    fn changed(&self) -> Vec<usize> {
        let mut changed: Vec<usize> = self
            .states
            .iter()
            .filter(|&(b, state)| self.before.get(b) != Some(state))
            .map(|(&b, _)| b)
            .chain(self.woken.iter().copied())
            .collect();
        changed.sort_unstable();
        changed.dedup();
        changed
    }
}

impl Detector {
    /// Handles the earliest instant among `found` (the contacts of one island, sorted by time)
    /// at which some impulse moves a body or some sleeper wakes: resolves its contacts together
    /// and asks for the back-up. `pairs` are the window's candidate pairs. Returns the instant
    /// and its pairs, or `None` when no contact changed anything.
    ///
    /// The instant is as local as its impulses: the passes start with the contacts found
    /// there, and take in the contacts of a body only once an impulse has moved it (a push
    /// on the top of a stack reaches the floor through every box it presses; a ball landing
    /// on a pile of two hundred touches the few it strikes). Only the bodies moved have their
    /// contact loads solved again and are backed up; the rest of their islands keep theirs to
    /// the next contact tick. Before, every instant gathered, solved and backed up whole
    /// islands, and a pile spent its time restarting bodies the instant had not touched.
    pub(super) fn respond(
        &mut self,
        found: &[Contact],
        around: &Around<'_>,
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
            let at = &found[k..end];
            k = end;
            let mut passes = Passes {
                woken: self.woken_at(at, time, context),
                ..Passes::default()
            };
            self.add_contacts(&mut passes, at, false, time, context);
            let mut done: FxHashSet<(usize, usize)> = at.iter().map(|&(_, i, j)| (i, j)).collect();
            let mut spread: FxHashSet<usize> = FxHashSet::default();
            let leftover = loop {
                let leftover = self.resolve(&mut passes, time, context);
                let frontier: Vec<usize> = passes
                    .changed()
                    .into_iter()
                    .filter(|&b| spread.insert(b))
                    .collect();
                let more = self.gather(&frontier, around, &mut done, &mut passes, time, context);
                if more.is_empty() {
                    break leftover;
                }
                self.add_contacts(&mut passes, &more, true, time, context);
            };
            let records: Vec<Collision> = passes.records.iter().flatten().copied().collect();
            if records.is_empty() && passes.woken.is_empty() {
                continue;
            }
            self.record_energy(&records, &passes, time, context);
            self.update_persistence(&passes, &leftover, time);
            let moved: FxHashSet<usize> = passes.changed().into_iter().collect();
            let next = self.next_window_end(time);
            let held = self.hold(time, next, Some(&moved), &passes.states, context);
            let mut request = BackUp {
                time,
                components: held.components,
                ..BackUp::default()
            };
            for (&b, state) in &passes.states {
                let Some(vars) = self.bodies[b].model.vars else {
                    continue;
                };
                if self.still_at(b, time, &passes.woken, context)
                    || passes.before.get(&b) == Some(state)
                {
                    continue;
                }
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
            request.jumps.sort_by_key(|&(v, _)| v);
            let mut woken = passes.woken.clone();
            woken.extend(held.woken);
            woken.sort_unstable();
            woken.dedup();
            self.release(&woken, &mut request);
            for record in records {
                let at = self.records.partition_point(|r| r.time <= record.time);
                self.records.insert(at, record);
            }
            context.request_back_up(request);
            return Some((time, passes.pairs));
        }
        None
    }

    /// Whether body `b` does not move at the instant `time`: immovable, or asleep and not
    /// among the `woken`.
    fn still_at(&self, b: usize, time: f64, woken: &[usize], context: &StepContext<'_>) -> bool {
        self.bodies[b].immovable(time) || (self.asleep(b, time, context) && !woken.contains(&b))
    }

    /// The sleepers the contacts found at the instant `time` wake: a sleeper an awake moving
    /// body meets wakes with its sleeping island.
    fn woken_at(&self, at: &[Contact], time: f64, context: &StepContext<'_>) -> Vec<usize> {
        let mut woken = Vec::new();
        for &(_, i, j) in at {
            for (b, other) in [(j, i), (i, j)] {
                if self.moves_at(other, time, &woken, context)
                    && self.still_at(b, time, &woken, context)
                    && !self.bodies[b].immovable(time)
                {
                    self.wake_island(b, time, &mut woken, context);
                }
            }
        }
        woken
    }

    /// The contacts at `time` of the `frontier` (bodies the impulses moved, sleepers woken)
    /// not yet in `done`: with the bodies they touch among the window's candidate pairs
    /// (`around`), or are persistently in contact with. A sleeper a moving body touches wakes with its island
    /// (into `passes.woken`), and its contacts follow once it is in the frontier.
    fn gather(
        &mut self,
        frontier: &[usize],
        around: &Around<'_>,
        done: &mut FxHashSet<(usize, usize)>,
        passes: &mut Passes,
        time: f64,
        context: &StepContext<'_>,
    ) -> Vec<Contact> {
        let mut group = Vec::new();
        for &x in frontier {
            if !self.moves_at(x, time, &passes.woken, context) {
                continue;
            }
            let mut near: Vec<(usize, usize)> = around.of(x).collect();
            near.extend(self.contacts.pairs_of(x));
            near.sort_unstable();
            near.dedup();
            for (i, j) in near {
                if !done.insert((i, j)) {
                    continue;
                }
                let (a, b) = (&self.bodies[i], &self.bodies[j]);
                let (Some(shape_a), Some(shape_b)) = (&a.shape, &b.shape) else {
                    continue;
                };
                let mut state =
                    |b: usize, body: &super::bodies::CollisionBody| match passes.states.get(&b) {
                        Some(state) => Some(*state),
                        None => *passes
                            .read
                            .entry(b)
                            .or_insert_with(|| body.state(context, time)),
                    };
                let (Some(sa), Some(sb)) = (state(i, a), state(j, b)) else {
                    continue;
                };
                let cache = self.caches.entry((i, j)).or_default();
                let contact =
                    closest_between_shapes(shape_a, &a.pose(&sa), shape_b, &b.pose(&sb), cache);
                let touching = contact.contact.distance <= DISTANCE_TOLERANCE * (a.reach + b.reach);
                if !touching && !self.contacts.holds(i, j) {
                    continue;
                }
                group.push((
                    Found {
                        time,
                        contact,
                        a: sa,
                        b: sb,
                        opens: false,
                    },
                    i,
                    j,
                ));
                let other = if i == x { j } else { i };
                if self.asleep(other, time, context) && !passes.woken.contains(&other) {
                    self.wake_island(other, time, &mut passes.woken, context);
                }
            }
        }
        group
    }

    /// Whether body `b` moves at `time`: not immovable, and awake or among the `woken`.
    fn moves_at(&self, b: usize, time: f64, woken: &[usize], context: &StepContext<'_>) -> bool {
        !self.still_at(b, time, woken, context)
    }

    /// Adds sleeper `b` and every sleeper joined to it by persistent contacts, transitively,
    /// to `woken`.
    fn wake_island(&self, b: usize, time: f64, woken: &mut Vec<usize>, context: &StepContext<'_>) {
        let mut next = vec![b];
        while let Some(x) = next.pop() {
            if woken.contains(&x) || !self.asleep(x, time, context) {
                continue;
            }
            woken.push(x);
            for (i, j) in self.contacts.pairs_of(x) {
                next.push(if i == x { j } else { i });
            }
        }
    }

    /// Adds the contacts `group` of the instant `time` to `passes`, classified, with their
    /// bodies' states where the passes have none yet. A persistent contact `gathered` around
    /// a moved body (not found sinking itself) is pushed only when it approaches faster than
    /// sinks it past the guard depth over a window: slower, the moved body's new loads hold
    /// it, and the body beyond is left alone.
    fn add_contacts(
        &mut self,
        passes: &mut Passes,
        group: &[Contact],
        gathered: bool,
        time: f64,
        context: &StepContext<'_>,
    ) {
        for (f, i, j) in group {
            for (b, found) in [(*i, f.a), (*j, f.b)] {
                if passes.states.contains_key(&b) {
                    continue;
                }
                let state = self.bodies[b].state(context, time).unwrap_or(found);
                let state = if passes.woken.contains(&b) {
                    super::contact::at_rest_state(&state)
                } else {
                    state
                };
                passes.states.insert(b, state);
                passes.before.insert(b, state);
            }
        }
        for (f, i, j) in group {
            let c = &f.contact.contact;
            let region = self.region(f, *i, *j, &passes.states);
            let point = (c.point_a + c.point_b) / 2.0;
            let persistent = self.contacts.holds(*i, *j);
            let approach_tolerance = if persistent && gathered {
                self.approach_tolerance(*i, *j)
                    .max(self.guard_depth(*i, *j) / self.window)
            } else {
                self.approach_tolerance(*i, *j)
            };
            let mut contact = ContactPoint {
                point,
                normal: c.normal,
                resting: false,
                rest_speed: 0.0,
                approach_tolerance,
                friction: (self.bodies[*i].friction * self.bodies[*j].friction).sqrt(),
                recover: 0.0,
            };
            let pressing = self.pressing(
                *i,
                *j,
                &c.normal,
                time,
                &passes.states,
                &passes.woken,
                context,
            );
            contact.rest_speed = self.rest_speed(*i, *j, pressing);
            // How fast the pair closes where it touches (not at the corners of its region, which
            // a turning body may swing in fast without touching yet).
            let closing = -approach(&passes.states[i], &passes.states[j], &contact);
            let turn = self.turn_over_window(*i, *j, &c.normal, &passes.states);
            contact.resting =
                persistent || rests(pressing, closing, contact.rest_speed, turn, self.window);
            if contact.resting && c.distance < -self.guard_depth(*i, *j) {
                contact.recover = -c.distance / self.window;
            }
            passes.pairs.push((*i, *j));
            passes.contacts.push(contact);
            passes.regions.push(region);
            passes.records.push(None);
        }
    }

    /// Passes over the contacts until none approaches (an impulse on one contact of a stack
    /// can press another). Returns the contacts still approaching after the last pass.
    fn resolve(&mut self, passes: &mut Passes, time: f64, context: &StepContext<'_>) -> Vec<usize> {
        for _ in 0..MAX_PASSES {
            let mut pushed = Vec::new();
            for slot in 0..passes.pairs.len() {
                if self.hit(slot, passes, time, context) {
                    pushed.push(slot);
                }
            }
            if pushed.is_empty() {
                return Vec::new();
            }
        }
        (0..passes.pairs.len())
            .filter(|&slot| {
                let (i, j) = passes.pairs[slot];
                let contact = &passes.contacts[slot];
                approach(&passes.states[&i], &passes.states[&j], contact)
                    < -contact.approach_tolerance
            })
            .collect()
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
        let contact = passes.contacts[slot];
        let (sa, sb) = (passes.states[&i], passes.states[&j]);
        let side = |b: usize, state: Kinematics| Side {
            body: &self.bodies[b],
            state,
            immovable: self.still_at(b, time, &passes.woken, context),
        };
        let outcome = impact(&side(i, sa), &side(j, sb), &contact, &passes.regions[slot]);
        let Impulse { impulse, a, b } = match outcome {
            Impact::Separating => return false,
            Impact::Immovable => {
                self.warn_immovable(i, j, time);
                return false;
            }
            Impact::Impulse(outcome) => *outcome,
        };
        passes.states.insert(i, a);
        passes.states.insert(j, b);
        let record = passes.records[slot].get_or_insert(Collision {
            time,
            bodies: (i, j),
            point: contact.point,
            normal: contact.normal,
            impulse: 0.0,
            resting: contact.resting,
        });
        record.impulse += impulse;
        true
    }

    /// Records the kinetic energy the instant's impulses changed, body by body: as an impact
    /// when any of its collisions was one, else as resting-contact impulses.
    ///
    /// Each body's change is counted from its state just before the instant, not from the
    /// state the passes started from: a body may already have jumped at this time (a second
    /// instant at the same time, another contact of a body the first one moved), and the
    /// back-up asked for now drops that jump with its record (see `Ledger::truncate`), so the
    /// new jump must account for both.
    fn record_energy(
        &mut self,
        records: &[Collision],
        passes: &Passes,
        time: f64,
        context: &StepContext<'_>,
    ) {
        let cause = if records.iter().any(|r| !r.resting) {
            Cause::Impact
        } else {
            Cause::ContactImpulse
        };
        let mut moved: Vec<usize> = passes
            .states
            .iter()
            .filter(|&(b, state)| passes.before.get(b).is_some_and(|s| s != state))
            .map(|(&b, _)| b)
            .filter(|&b| self.bodies[b].model.vars.is_some())
            .collect();
        moved.sort_unstable();
        for b in moved {
            let body = &self.bodies[b];
            let before = body
                .state_before(context, time)
                .unwrap_or(passes.before[&b]);
            self.ledger.record(EnergyRecord {
                time,
                cause,
                body: b,
                change: kinetic_energy(body, &passes.states[&b]) - kinetic_energy(body, &before),
            });
        }
    }

    /// After the passes: resting contacts, and those the passes left approaching, become
    /// persistent; persistent ones that now fly apart faster than their resting speed stop
    /// being so.
    fn update_persistence(&mut self, passes: &Passes, leftover: &[usize], time: f64) {
        for (slot, &(i, j)) in passes.pairs.iter().enumerate() {
            let contact = &passes.contacts[slot];
            let both_immovable = self.bodies[i].immovable(time) && self.bodies[j].immovable(time);
            if both_immovable {
                continue;
            }
            if contact.resting || leftover.contains(&slot) {
                let separating = approach(&passes.states[&i], &passes.states[&j], contact);
                if self.contacts.holds(i, j)
                    && separating > contact.rest_speed.max(contact.approach_tolerance)
                {
                    self.unpersist(i, j);
                } else {
                    self.persist(i, j, time);
                }
            }
        }
    }

    /// How far bodies `i` and `j`, in `states`, turn over a check window about axes across
    /// `normal` (radians, the larger of the two; a ball's turning counts for nothing, as it
    /// leaves its surface where it is). Turning about the normal keeps a contact where it is.
    fn turn_over_window(
        &self,
        i: usize,
        j: usize,
        normal: &Vector3<f64>,
        states: &FxHashMap<usize, Kinematics>,
    ) -> f64 {
        [i, j]
            .into_iter()
            .filter(|&b| self.bodies[b].spin_reach > 0.0)
            .map(|b| {
                let w = states[&b].angular_velocity;
                (w - normal * w.dot(normal)).norm() * self.window
            })
            .fold(0.0, f64::max)
    }

    /// How hard bodies `i` and `j` are pressed together along `normal` (from `i` to `j`) at
    /// `time`: the part of each body's own acceleration there (from every load on it, its
    /// other contacts' included unless the pair is persistent) that drives it into the other,
    /// added, or 0.
    /// Each body counts on its own, not their relative acceleration: a brick on a brick that
    /// rests on the floor is pressed onto it by its own weight although both feel gravity. A
    /// brick the wrecking ball shoves is pressed back onto the ball by the friction of what it
    /// rests on, and rests against it rather than being struck again every few nanoseconds.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn pressing(
        &mut self,
        i: usize,
        j: usize,
        normal: &Vector3<f64>,
        time: f64,
        states: &FxHashMap<usize, Kinematics>,
        woken: &[usize],
        context: &StepContext<'_>,
    ) -> f64 {
        let mut total = 0.0;
        for (b, sign) in [(i, 1.0), (j, -1.0)] {
            if self.still_at(b, time, woken, context) {
                continue;
            }
            let (force, _) = self.free_load(b, time, states, context);
            // A persistent pair's own share of the loads is in them: for it, the loads of the
            // body's own equations alone.
            let force = if self.contacts.holds(i, j) {
                force
            } else {
                force + self.contacts.force_on(b)
            };
            total += (sign * force.dot(normal) / self.bodies[b].model.mass).max(0.0);
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WINDOW: f64 = 0.01;

    #[test]
    fn a_slow_pressed_pair_that_does_not_turn_rests() {
        assert!(rests(9.81, 0.05, 0.2, 0.01, WINDOW));
        assert!(!rests(9.81, 0.5, 0.2, 0.01, WINDOW));
        assert!(!rests(0.0, 0.05, 0.2, 0.01, WINDOW));
    }

    /// The chain's tip (`RESTING_TURN`): 1.5 radians a window, closing at 1.70 m/s, pressed at
    /// 1,696 m/s², so that its resting speed was 33.9 m/s. It bounces.
    #[test]
    fn a_fast_turning_pair_closing_at_speed_bounces() {
        assert!(!rests(1696.0, 1.70, 33.9, 1.5, WINDOW));
    }

    /// The brick spun by the wrecking ball and pushed back onto it (`CHATTER_WINDOWS`):
    /// pressed at about 30 m/s², back within nanoseconds of each impulse.
    #[test]
    fn a_fast_turning_pair_that_would_chatter_rests() {
        assert!(rests(30.0, 2e-7, 1.0, 0.5, WINDOW));
        assert!(!rests(30.0, 1e-3, 1.0, 0.5, WINDOW));
    }
}
