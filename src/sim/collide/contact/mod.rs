//! Persistent contacts: bodies resting on, leaning against or sliding along each other, held by
//! contact forces solved once per contact tick instead of by a stream of collisions.
//!
//! A collision is an event: the pair's first time of contact is found, an impulse changes the
//! velocities there, the simulation backs up. That is exact for a ball hitting a wall, but a
//! brick lying on the floor would collide again and again, ever more often, and every event
//! costs a back-up and a restart of the integration. So a contact that closes slowly (slower
//! than what the acceleration pressing the pair together gives over [`RESTING_TIME`] check
//! windows, or for an inelastic pair slowly enough that its bounce would be over within a few
//! windows: see [`resting_windows`] and `instant`) is stopped by a plastic impulse and becomes *persistent*: from then
//! on the narrow phase watches the pair only for sinking into each other past a guard depth
//! (`GUARD_FRACTION`), and at every contact tick (the end of each check window on the
//! window grid) the persistent contacts of each *contact island* (the bodies joined by them,
//! immovable bodies not joining) are solved together (see `solve`) for the force and torque
//! that hold each body over the next tick. They enter the equations as the body's contact
//! inputs ([`InteractionInputs::set_contact`](crate::sim::physics::InteractionInputs)),
//! constant over the tick: a body at rest integrates with its weight balanced exactly and takes
//! long steps.
//!
//! Over a tick an island's bodies' components are gated at its end (they compute up to it and
//! wait), so that none runs ahead with forces the tick is about to change. A contact breaks
//! when its gap at a tick exceeds [`BREAK_FRACTION`] of the pair's size, unless the pair,
//! pressed together, would land back on itself as a resting contact (up to [`KEEP_FRACTION`]);
//! the narrow phase then watches the pair as any other. An instant of collisions that involves
//! bodies of an island (the wrecking ball striking a brick) resolves their persistent contacts
//! with it (see `instant`) and solves their islands again at that instant.
//!
//! Loads are history, like tracks: each body keeps the loads it had and from when, so that a
//! back-up restores the load in effect at its time. Their work (friction, pushing an overlap
//! apart) is recorded in the energy ledger per load as it ends ([`Cause::ContactForce`]).
//!
//! Islands that stay still fall asleep (see `sleep`).

mod envelope;
mod exact;
mod opens;
mod pairs;
mod sleep;
pub(crate) mod solve;

use super::bodies::Kinematics;
use super::islands::Islands;
use super::ledger::{Cause, EnergyRecord};
use super::response::approach_at;
use super::{Detector, REGION_SLACK};
use crate::geom::contact_region;
use crate::lang::fxhash::{FxHashMap, FxHashSet};
use crate::sim::graph::ComponentId;
use crate::sim::motion::Tracks;
use crate::sim::schedule::StepContext;
use crate::sim::track::Side;
use nalgebra::{Matrix3, Vector3};
use pairs::{Pairs, Persistent, Solved};
use solve::{solve, Limits, SolverBody, SolverContact, WarmCorner};
use std::collections::BTreeSet;

/// A slow contact is one closing slower than its pressing acceleration gives over this many
/// check windows (contact ticks): it becomes persistent.
const RESTING_TIME: f64 = 2.0;
/// A contact whose bounce would keep the pair apart for less than this many check windows is
/// resting too (see [`resting_windows`]). For an elastic pair the two rules agree: a bounce at
/// the closing speed the pressing acceleration gives over [`RESTING_TIME`] windows comes back
/// after twice that.
const SHORTEST_BOUNCE: f64 = 2.0 * RESTING_TIME;
/// Below this restitution a pair counts as this bouncy when its bounces are timed: a
/// perfectly plastic pair would otherwise rest at any speed, and a persistent pair knocked
/// apart would never count as flying apart.
const LEAST_BOUNCE: f64 = 0.01;
/// A persistent contact breaks when its gap at a tick is more than this fraction of the pair's
/// size (see [`Detector::pair_size`])...
const BREAK_FRACTION: f64 = 1e-3;
/// ...unless the gap is at most this fraction and the pair falls back onto itself as a resting
/// contact (see [`Detector::falls_back`]).
const KEEP_FRACTION: f64 = 1e-2;
/// An overlap up to this fraction of the pair's size is left alone...
const SLOP_FRACTION: f64 = 1e-5;
/// ...a deeper one is pushed apart by this fraction of the rest per tick.
const OVERLAP_PUSH: f64 = 0.5;
/// A persistent pair found sunk into each other deeper than this fraction of the pair's size,
/// and still closing, is a collision like any other: its island is solved again at that
/// instant (the loads of the last tick no longer hold it, as when a neighbour struck by an
/// impact leans on it, or a pull drags it in).
const GUARD_FRACTION: f64 = 1e-3;
/// Loads are solved for this fraction of a window at least.
const MIN_HOLD: f64 = 0.5;
/// A load solved again that differs from the one in effect by less than this fraction of
/// either is the same load: the body goes on under it without a restart. The solve itself is
/// good to about 1e-9 of a body's weight; a settled island whose loads only wander at that
/// level would otherwise restart all its bodies at every tick.
const SAME_LOAD: f64 = 1e-6;
/// An island whose bodies all move (at any of their points) slower than this acceleration
/// gives over a tick is at rest, and its solve may finish exactly (see `solve::Limits`).
const RESTING_ACCELERATION: f64 = 10.0;
/// Sweeps of one island's solve at most.
const MAX_SWEEPS: usize = 200;
/// A sweep that changes no corner's velocity by more than this fraction of the speed that an
/// acceleration of 1 m/s² gives over a tick ends the solve.
const SOLVE_TOLERANCE: f64 = 1e-9;

/// How many check windows' worth of its pressing acceleration a pair of restitution `e` may
/// close at and still be resting: [`RESTING_TIME`], or more for an inelastic pair, whose
/// bounce at that speed (`e` times it, brought back by the same acceleration) would be over
/// within [`SHORTEST_BOUNCE`] windows. Such bounces are shorter than the contact ticks can
/// follow, and each is an instant with its back-up: a ball of restitution 0.3 dropped on a
/// floor would bounce ever lower and more often (each bounce 0.3 times as long as the last)
/// until its speed fell below the resting speed. Stopping it over its touching region at the
/// first short bounce instead loses a bounce a few millimetres high, booked in the energy
/// ledger as the contact impulse that stopped it.
fn resting_windows(e: f64) -> f64 {
    (SHORTEST_BOUNCE / (2.0 * e.max(LEAST_BOUNCE))).max(RESTING_TIME)
}

/// Whether a pair `gap` apart, parting at `speed` (closing when negative) and pressed together
/// at `pressing`, lands back on itself no faster than `rest_speed`: its speed when the gap
/// closes, after any rise, is √(speed² + 2 · pressing · gap).
fn lands_resting(speed: f64, pressing: f64, gap: f64, rest_speed: f64) -> bool {
    pressing > 0.0 && speed * speed + 2.0 * pressing * gap <= rest_speed * rest_speed
}

/// Asks for `request`'s back-up unless it restarts, jumps and releases nothing (a tick or an
/// opening whose solve changed no load). Returns whether it asked.
fn ask_back_up(mut request: crate::sim::schedule::BackUp, context: &mut StepContext<'_>) -> bool {
    if request.components.is_empty() && request.jumps.is_empty() && request.releases.is_empty() {
        return false;
    }
    request.components.sort_unstable();
    request.components.dedup();
    context.request_back_up(request);
    true
}

/// A contact load on one body: the force at its centre of mass and the torque about it with
/// which its contacts hold it from `since` on, when it was in `state`. A load of zero ends the
/// one before.
#[derive(Clone, Copy, Debug)]
struct Load {
    since: f64,
    force: Vector3<f64>,
    torque: Vector3<f64>,
    state: Kinematics,
}

impl Load {
    fn is_zero(&self) -> bool {
        self.force == Vector3::zeros() && self.torque == Vector3::zeros()
    }
}

/// The persistent contacts of a simulation and the loads they put on bodies.
#[derive(Clone, Debug, Default)]
pub(super) struct Contacts {
    /// By pair `(i, j)`, `i < j`, and by body.
    pairs: Pairs,
    /// By body: the loads it has had, in time order; the last is in effect.
    loads: FxHashMap<usize, Vec<Load>>,
    /// The bodies whose components wait at the next tick.
    gated: FxHashSet<usize>,
    /// By body held in an island: since when it has been still enough to fall asleep.
    slow_since: FxHashMap<usize, f64>,
    /// The last tick run.
    ticked: f64,
}

/// A persistent pair as one solve sees it.
struct Manifold {
    i: usize,
    j: usize,
    /// The pair's gap (negative: overlap) where it was found.
    gap: f64,
    contact: SolverContact,
}

/// What a solve of contact islands covered.
pub(super) struct Held {
    /// The movable bodies of each island solved.
    pub islands: Vec<Vec<usize>>,
    /// The components to restart at the solve's time for the loads it changed.
    pub components: Vec<ComponentId>,
    /// Sleepers woken because an island held them against awake bodies: released by the
    /// back-up at the solve's time.
    pub woken: Vec<usize>,
    /// The states of the islands' bodies at the solve's time.
    pub states: FxHashMap<usize, Kinematics>,
}

impl Contacts {
    /// A fresh set, with no tick run before `start`.
    pub fn new(start: f64) -> Contacts {
        Contacts {
            ticked: start,
            ..Contacts::default()
        }
    }

    /// Whether the narrow phase leaves pair `(i, j)`, `i < j`, to the contact forces.
    pub fn holds(&self, i: usize, j: usize) -> bool {
        self.pairs.contains((i, j))
    }

    /// The persistent pairs of body `b`.
    pub fn pairs_of(&self, b: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.pairs.of(b)
    }

    /// What still holds after an edit: the pairs and loads of bodies that keep their names
    /// (`map` from the old scene's indices to the new) and are `kept` (unchanged).
    pub fn inherit(&self, map: &[Option<usize>], kept: impl Fn(usize) -> bool) -> Contacts {
        let to = |b: usize| map.get(b).copied().flatten().filter(|&n| kept(n));
        let pairs = self
            .pairs
            .iter()
            .filter_map(|((i, j), pair)| {
                let (a, b) = (to(i)?, to(j)?);
                Some(((a.min(b), a.max(b)), pair.clone()))
            })
            .collect();
        let remap = |set: &FxHashSet<usize>| set.iter().filter_map(|&b| to(b)).collect();
        Contacts {
            pairs,
            loads: self
                .loads
                .iter()
                .filter_map(|(&b, history)| Some((to(b)?, history.clone())))
                .collect(),
            gated: remap(&self.gated),
            slow_since: self
                .slow_since
                .iter()
                .filter_map(|(&b, &since)| Some((to(b)?, since)))
                .collect(),
            ticked: self.ticked,
        }
    }

    /// Every body's load in effect: body, force, torque.
    pub fn current_loads(&self) -> Vec<(usize, Vector3<f64>, Vector3<f64>)> {
        self.loads
            .keys()
            .filter_map(|&b| self.current(b).map(|l| (b, l.force, l.torque)))
            .collect()
    }

    /// The force of the load in effect on body `b` (zero without one).
    pub fn force_on(&self, b: usize) -> Vector3<f64> {
        self.current(b).map_or(Vector3::zeros(), |l| l.force)
    }

    /// The load in effect on body `b`, if any.
    fn current(&self, b: usize) -> Option<&Load> {
        self.loads.get(&b)?.last().filter(|l| !l.is_zero())
    }
}

impl Detector {
    /// The size the depths and gaps of pair `(i, j)` are measured against: the smaller body's
    /// diameter (as far as its shape reaches from its centre of mass). Not the pair's sum: a
    /// brick on a ten-metre floor may sink no deeper than on another brick.
    pub(super) fn pair_size(&self, i: usize, j: usize) -> f64 {
        2.0 * self.bodies[i].reach.min(self.bodies[j].reach)
    }

    /// How deep a persistent pair may sink into each other before it is a collision again.
    pub(super) fn guard_depth(&self, i: usize, j: usize) -> f64 {
        GUARD_FRACTION * self.pair_size(i, j)
    }

    /// Makes pair `(i, j)` persistent from `time` on (a slow contact stopped there).
    pub(super) fn persist(&mut self, i: usize, j: usize, time: f64) {
        let key = (i.min(j), i.max(j));
        self.contacts.pairs.insert_new(
            key,
            Persistent {
                since: time,
                warm: Vec::new(),
                solved: None,
            },
        );
    }

    /// Ends the persistence of pair `(i, j)` (its bodies flew apart at an instant).
    pub(super) fn unpersist(&mut self, i: usize, j: usize) {
        self.contacts.pairs.remove((i.min(j), i.max(j)));
    }

    /// Whether a contact tick is due at `t0`, where every body is checked up to: `t0` is a
    /// point of the window grid not yet ticked, and some body is held or has a persistent
    /// contact that is awake.
    pub(super) fn tick_due(&self, t0: f64, context: &StepContext<'_>) -> bool {
        if t0 <= self.contacts.ticked || !self.on_grid(t0) {
            return false;
        }
        !self.contacts.gated.is_empty()
            || self
                .contacts
                .pairs
                .keys()
                .any(|(i, j)| !(self.still(i, t0, context) && self.still(j, t0, context)))
    }

    /// Runs the contact tick at `tick`: solves every awake island for the loads that hold its
    /// bodies to the next tick, puts to sleep the islands that stayed still long enough, and
    /// asks for the back-up that restarts what changed. Returns whether it asked for one.
    pub(super) fn tick(&mut self, tick: f64, context: &mut StepContext<'_>) -> bool {
        self.contacts.ticked = tick;
        let next = self.next_window_end(tick);
        let held = self.hold(tick, next, None, &FxHashMap::default(), context);
        let mut request = crate::sim::schedule::BackUp {
            time: tick,
            components: held.components.clone(),
            ..Default::default()
        };
        self.release(&held.woken, &mut request);
        self.fall_asleep(tick, &held, context, &mut request);
        ask_back_up(request, context)
    }

    /// Solves the contact islands at `time` for the loads that hold their bodies until `next`,
    /// sets them, and gates the held bodies at `next`: every island (a tick), or, with
    /// `only` (an instant), the bodies in it alone, every other body they touch standing as
    /// it is, with the load it has, until the next tick solves its island whole. Bodies are in
    /// their states in `given`, or else in their tracks' at `time`. Islands holding sleepers
    /// against awake bodies wake those sleepers first.
    pub(super) fn hold(
        &mut self,
        time: f64,
        next: f64,
        only: Option<&FxHashSet<usize>>,
        given: &FxHashMap<usize, Kinematics>,
        context: &mut StepContext<'_>,
    ) -> Held {
        // Loads solved for an instant just before a tick would be impulses spread over a
        // sliver of time: forces of millions of g. They are solved over half a window at
        // least (the tick at `next` solves them again over a whole one).
        let h = (next - time).max(MIN_HOLD * self.window);
        let mut states: FxHashMap<usize, Kinematics> = given.clone();
        let mut manifolds = self.manifolds(time, h, only, &mut states, context);
        // Islands over the pairs of movable bodies; sleepers count as movable here, so that a
        // sleeping island touched by an awake one is found whole and woken.
        let movable: FxHashSet<usize> = manifolds
            .iter()
            .flat_map(|m| [m.i, m.j])
            .filter(|&b| !self.bodies[b].immovable(time))
            .collect();
        let mut islands = Islands::of(
            manifolds
                .iter()
                .filter(|m| movable.contains(&m.i) && movable.contains(&m.j))
                .map(|m| (m.i, m.j)),
        );
        let slots: Vec<usize> = (0..manifolds.len()).collect();
        let groups = islands.group(&slots, |&k| {
            let m = &manifolds[k];
            if movable.contains(&m.i) {
                m.i
            } else {
                m.j
            }
        });
        let mut held = Held {
            islands: Vec::new(),
            components: Vec::new(),
            woken: Vec::new(),
            states: FxHashMap::default(),
        };
        let mut loads: FxHashMap<usize, (Vector3<f64>, Vector3<f64>)> = FxHashMap::default();
        for group in groups {
            let members = island_members(&manifolds, &group, |b| {
                movable.contains(&b) && only.is_none_or(|only| only.contains(&b))
            });
            if members.is_empty() {
                continue;
            }
            let asleep: Vec<usize> = members
                .iter()
                .copied()
                .filter(|&b| self.asleep(b, time, context))
                .collect();
            if asleep.len() == members.len() {
                // A sleeping island stays asleep while nothing awake touches it.
                continue;
            }
            for &b in &asleep {
                held.woken.push(b);
                if let Some(state) = states.get_mut(&b) {
                    *state = at_rest_state(state);
                }
            }
            let touched = group.iter().flat_map(|&k| [manifolds[k].i, manifolds[k].j]);
            let (mut bodies, order) =
                self.solver_bodies(&members, touched, &states, time, h, context);
            let slots: FxHashMap<usize, usize> =
                order.iter().enumerate().map(|(s, &b)| (b, s)).collect();
            let slot_of = |b: usize| slots.get(&b).copied();
            let mut contacts = Vec::with_capacity(group.len());
            for &k in &group {
                let m = &manifolds[k];
                if let (Some(a), Some(b)) = (slot_of(m.i), slot_of(m.j)) {
                    contacts.push(SolverContact {
                        a,
                        b,
                        ..m.contact.clone()
                    });
                }
            }
            let resting = members.iter().all(|&b| {
                let s = &states[&b];
                s.velocity.norm() + s.angular_velocity.norm() * self.bodies[b].reach
                    <= RESTING_ACCELERATION * h
            });
            let solution = solve(
                &mut bodies,
                &contacts,
                Limits {
                    tolerance: SOLVE_TOLERANCE * h,
                    max_sweeps: MAX_SWEEPS,
                    may_stall: only.is_some() || !resting,
                    resting,
                },
            );
            for (&k, warm) in group.iter().zip(solution.warm) {
                let m = &mut manifolds[k];
                if let Some(pair) = self.contacts.pairs.get_mut((m.i, m.j)) {
                    pair.solved = Some(Solved { time, gap: m.gap });
                    pair.warm = warm;
                }
            }
            for (slot, &b) in order.iter().enumerate().take(members.len()) {
                let h_inv = 1.0 / h;
                let got = solution.held[slot];
                loads.insert(b, (got.impulse * h_inv, got.angular * h_inv));
                held.states.insert(b, states[&b]);
            }
            held.islands.push(members);
        }
        held.components = self.set_loads(time, &loads, &states, next, only, context);
        held
    }

    /// Every persistent pair at `time` (of a body in `only`, when given), as a contact with
    /// its corners, normal and target separating speed over a tick of `h`; the pairs found
    /// apart past the break distance stop being persistent. The states read are kept in
    /// `states` (those given there are used as they are).
    fn manifolds(
        &mut self,
        time: f64,
        h: f64,
        only: Option<&FxHashSet<usize>>,
        states: &mut FxHashMap<usize, Kinematics>,
        context: &StepContext<'_>,
    ) -> Vec<Manifold> {
        let keys: Vec<(usize, usize)> = match only {
            None => self.contacts.pairs.keys().collect(),
            Some(only) => {
                let of_only: BTreeSet<(usize, usize)> = only
                    .iter()
                    .flat_map(|&b| self.contacts.pairs.of(b))
                    .collect();
                of_only.into_iter().collect()
            }
        };
        let mut manifolds = Vec::with_capacity(keys.len());
        for (i, j) in keys {
            for b in [i, j] {
                if let std::collections::hash_map::Entry::Vacant(slot) = states.entry(b) {
                    if let Some(s) = self.bodies[b].state(context, time) {
                        slot.insert(s);
                    }
                }
            }
            let (Some(&sa), Some(&sb)) = (states.get(&i), states.get(&j)) else {
                continue;
            };
            let Some(found) = self.closest_at(i, j, (&sa, &sb)) else {
                continue;
            };
            let size = self.pair_size(i, j);
            let gap = found.contact.distance;
            if gap > BREAK_FRACTION * size
                && !(gap <= KEEP_FRACTION * size
                    && self.falls_back((i, j), &found.contact, time, states, context))
            {
                self.contacts.pairs.remove((i, j));
                continue;
            }
            let (a, b) = (&self.bodies[i], &self.bodies[j]);
            let (Some(shape_a), Some(shape_b)) = (&a.shape, &b.shape) else {
                continue;
            };
            let (pose_a, pose_b) = (a.pose(&sa), b.pose(&sb));
            let corners = contact_region(
                &shape_a.pieces()[found.piece_a],
                &pose_a,
                &shape_b.pieces()[found.piece_b],
                &pose_b,
                &found.contact,
                REGION_SLACK * a.reach.min(b.reach),
            );
            let corners = if corners.is_empty() {
                vec![(found.contact.point_a + found.contact.point_b) / 2.0]
            } else {
                corners
            };
            // A gap may close over the tick; an overlap past the slop is pushed apart.
            let target = if gap > 0.0 {
                -gap / h
            } else {
                OVERLAP_PUSH * (-gap - SLOP_FRACTION * size).max(0.0) / h
            };
            let warm = &self
                .contacts
                .pairs
                .get((i, j))
                .expect("a persistent pair")
                .warm;
            let match_within = REGION_SLACK * a.reach.min(b.reach);
            let warm = corners
                .iter()
                .map(|p| {
                    warm.iter()
                        .filter(|w| (w.point - p).norm() <= match_within)
                        .min_by(|x, y| (x.point - p).norm().total_cmp(&(y.point - p).norm()))
                        .map_or(WarmCorner::cold(*p), |w| WarmCorner { point: *p, ..*w })
                })
                .collect();
            manifolds.push(Manifold {
                i,
                j,
                gap,
                contact: SolverContact {
                    a: i,
                    b: j,
                    corners,
                    normal: found.contact.normal,
                    friction: (a.friction * b.friction).sqrt(),
                    target,
                    warm,
                },
            });
        }
        manifolds
    }

    /// Whether persistent pair `(i, j)`, apart by `contact` in `states`, would come back
    /// together slowly enough to rest again: pressed together (see `pressing`), it would close
    /// its gap, after any rise, at no more than its resting speed (see [`resting_windows`]).
    /// Such a pair is kept: its bodies jiggle on each other (a ball in a pile lifted a
    /// fraction of a millimetre by its neighbours), and breaking it would only make it meet
    /// again as a collision, rest and be loaded, an instant with its back-up for nothing. The
    /// tick's solve lets its gap close, and no further.
    fn falls_back(
        &mut self,
        (i, j): (usize, usize),
        contact: &crate::geom::distance::Contact,
        time: f64,
        states: &FxHashMap<usize, Kinematics>,
        context: &StepContext<'_>,
    ) -> bool {
        let (Some(a), Some(b)) = (states.get(&i), states.get(&j)) else {
            return false;
        };
        let point = (contact.point_a + contact.point_b) / 2.0;
        let speed = approach_at(a, b, &point, &contact.normal);
        let pressing = self.pressing(i, j, &contact.normal, time, states, &[], context);
        let rest_speed = self.rest_speed(i, j, pressing);
        lands_resting(speed, pressing, contact.distance, rest_speed)
    }

    /// The speed up to which pair `(i, j)`, pressed together at `pressing`, closes as a
    /// resting contact: what `pressing` gives over [`resting_windows`] check windows for the
    /// pair's restitution. The one rule for a pair meeting at an instant and for a persistent
    /// pair falling back at a tick.
    pub(super) fn rest_speed(&self, i: usize, j: usize, pressing: f64) -> f64 {
        let restitution = self.bodies[i].restitution * self.bodies[j].restitution;
        pressing * resting_windows(restitution) * self.window
    }

    /// The island's `members` as the solve sees them, with their velocities at the end of a
    /// tick of `h` under their own loads (without their contacts), and the other bodies
    /// their contacts `touch` beside them, immovable. Returns the solver bodies and which
    /// body each is.
    fn solver_bodies(
        &mut self,
        members: &[usize],
        touch: impl Iterator<Item = usize>,
        states: &FxHashMap<usize, Kinematics>,
        time: f64,
        h: f64,
        context: &StepContext<'_>,
    ) -> (Vec<SolverBody>, Vec<usize>) {
        let is_member: FxHashSet<usize> = members.iter().copied().collect();
        let mut order: Vec<usize> = members.to_vec();
        let mut others: Vec<usize> = touch.filter(|b| !is_member.contains(b)).collect();
        others.sort_unstable();
        others.dedup();
        order.extend(others);
        let bodies = order
            .iter()
            .map(|&b| {
                // Every body of a manifold has its state read.
                let state = states[&b];
                if !is_member.contains(&b) || self.bodies[b].immovable(time) {
                    return SolverBody {
                        inverse_mass: 0.0,
                        inverse_inertia: Matrix3::zeros(),
                        position: state.position,
                        velocity: state.velocity,
                        angular_velocity: state.angular_velocity,
                    };
                }
                let (force, torque) = self.free_load(b, time, states, context);
                let body = &self.bodies[b];
                let model = &body.model;
                let velocity = state.velocity + force * (h / model.mass);
                let momentum = state.momentum + torque * h;
                SolverBody {
                    inverse_mass: 1.0 / model.mass,
                    inverse_inertia: body.inverse_world_inertia(&state.rotation),
                    position: state.position,
                    velocity,
                    angular_velocity: model.angular_velocity(&state.rotation, &momentum),
                }
            })
            .collect();
        (bodies, order)
    }

    /// The force and torque on body `b` at `time` from everything but its contacts, the bodies
    /// it depends on in their states in `given` or else in their tracks' (none if a state is
    /// not computed).
    pub(super) fn free_load(
        &mut self,
        b: usize,
        time: f64,
        given: &FxHashMap<usize, Kinematics>,
        context: &StepContext<'_>,
    ) -> (Vector3<f64>, Vector3<f64>) {
        let values: Option<Vec<_>> = self
            .free
            .reads(b)
            .iter()
            .map(|&r| {
                let body = &self.bodies[r];
                let state = given
                    .get(&r)
                    .copied()
                    .or_else(|| body.state(context, time))?;
                Some(body.values(&state))
            })
            .collect();
        match values {
            Some(values) => self.free.load(b, time, &values),
            None => (Vector3::zeros(), Vector3::zeros()),
        }
    }

    /// Sets the contact loads of `time` (`loads` by body; every other held body's, or every
    /// other one in `scope` when given, ends), gates the bodies a load holds at `next` and
    /// opens the gates of those no longer held (a body is gated exactly while a load holds it,
    /// which a back-up restores too). Returns the components of the bodies whose load changed,
    /// to restart at `time`.
    fn set_loads(
        &mut self,
        time: f64,
        loads: &FxHashMap<usize, (Vector3<f64>, Vector3<f64>)>,
        states: &FxHashMap<usize, Kinematics>,
        next: f64,
        scope: Option<&FxHashSet<usize>>,
        context: &mut StepContext<'_>,
    ) -> Vec<ComponentId> {
        let partition = context.partition();
        // The bodies in scope that a load holds now: an instant's few are looked up, not
        // found among every held body of the scene.
        let held = |b: &usize| self.contacts.current(*b).is_some();
        let mut changed: Vec<usize> = match scope {
            Some(scope) => scope.iter().copied().filter(held).collect(),
            None => self.contacts.loads.keys().copied().filter(held).collect(),
        };
        changed.extend(loads.keys().copied());
        changed.sort_unstable();
        changed.dedup();
        let mut components = Vec::new();
        for b in changed {
            let zero = (Vector3::zeros(), Vector3::zeros());
            let (force, torque) = loads.get(&b).copied().unwrap_or(zero);
            let old = self
                .contacts
                .current(b)
                .map_or(zero, |l| (l.force, l.torque));
            if same_load((force, torque), old, self.bodies[b].reach) {
                continue;
            }
            let Some(state) = states
                .get(&b)
                .copied()
                .or_else(|| self.bodies[b].state(context, time))
            else {
                continue;
            };
            self.change_load(b, time, force, torque, state, context);
            components.extend(self.components_of(b, partition));
        }
        // Every body a load holds waits at `next`; one no longer held goes on.
        let mut gates = Vec::new();
        let mut touched: Vec<usize> = loads.keys().copied().collect();
        match scope {
            Some(scope) => touched.extend(scope.iter().filter(|b| self.contacts.gated.contains(b))),
            None => touched.extend(self.contacts.gated.iter()),
        }
        touched.sort_unstable();
        touched.dedup();
        for b in touched {
            if self.contacts.current(b).is_some() {
                self.contacts.gated.insert(b);
                gates.push((b, next));
            } else if self.contacts.gated.remove(&b) {
                gates.push((b, f64::INFINITY));
            }
        }
        let gates: Vec<(ComponentId, f64)> = gates
            .into_iter()
            .flat_map(|(b, until)| {
                self.components_of(b, partition)
                    .into_iter()
                    .map(move |c| (c, until))
            })
            .collect();
        for (c, until) in gates {
            context.set_gate(c, until);
        }
        components.sort_unstable();
        components.dedup();
        components
    }

    /// Replaces body `b`'s load by `force` and `torque` at `time`, when it is in `state`,
    /// recording the work of the load it ends. The caller restarts the body's components.
    pub(super) fn change_load(
        &mut self,
        b: usize,
        time: f64,
        force: Vector3<f64>,
        torque: Vector3<f64>,
        state: Kinematics,
        context: &StepContext<'_>,
    ) {
        if let Some(load) = self.contacts.current(b).copied() {
            if let Some(work) = self.load_work(b, &load, time, context.tracks) {
                self.ledger.record(EnergyRecord {
                    time,
                    cause: Cause::ContactForce,
                    body: b,
                    change: work,
                });
            }
        }
        self.inputs.set_contact(b, force, torque);
        self.contacts.loads.entry(b).or_default().push(Load {
            since: time,
            force,
            torque,
            state,
        });
    }

    /// The work `load` on body `b` did from its start to just before `time`: its force times
    /// the centre of mass's displacement (exact for a constant force) and its torque times how
    /// far the body turned (`CollisionBody::turned`). `None` where the motion is not computed.
    fn load_work(&self, b: usize, load: &Load, time: f64, tracks: &Tracks) -> Option<f64> {
        let body = &self.bodies[b];
        let end = body.state_in(tracks, time, Side::Before, &mut Default::default())?;
        let turned = body.turned(tracks, load.since, time)?;
        Some(load.force.dot(&(end.position - load.state.position)) + load.torque.dot(&turned))
    }

    /// The work of the contact loads in effect at `until` from their starts to `until`: the
    /// ledger records a load's work as it ends, so these are not yet in it.
    pub(super) fn open_load_work(&self, until: f64, tracks: &Tracks) -> f64 {
        let mut bodies: Vec<usize> = self.contacts.loads.keys().copied().collect();
        bodies.sort_unstable();
        bodies
            .into_iter()
            .filter_map(|b| {
                let history = &self.contacts.loads[&b];
                let at = history
                    .partition_point(|l| l.since <= until)
                    .checked_sub(1)?;
                let load = history[at];
                if load.is_zero() || load.since >= until {
                    return None;
                }
                self.load_work(b, &load, until, tracks)
            })
            .sum()
    }

    /// Undoes what a back-up of body `b` to `time` (from `time` on, when `reset`) invalidates:
    /// the persistent contacts collisions after it made, the loads set after it (the one in
    /// effect at `time` is set again), the stillness counted after it, and the ticks after
    /// it. Returns the gate the body's components need now, if it has had loads: the next
    /// tick when a load holds it, none (infinite) when none does.
    pub(super) fn contacts_truncated(&mut self, b: usize, time: f64, reset: bool) -> Option<f64> {
        let undone = |since: f64| since > time || (reset && since >= time);
        self.contacts.pairs.remove_of(b, |pair| undone(pair.since));
        if self.contacts.slow_since.get(&b).is_some_and(|&s| undone(s)) {
            self.contacts.slow_since.remove(&b);
        }
        let floor = self.grid_at_or_before(time);
        if self.contacts.ticked > floor {
            self.contacts.ticked = floor;
        }
        let history = self.contacts.loads.get_mut(&b)?;
        history.retain(|l| !undone(l.since));
        let (force, torque) = history
            .last()
            .map_or((Vector3::zeros(), Vector3::zeros()), |l| {
                (l.force, l.torque)
            });
        self.inputs.set_contact(b, force, torque);
        if force != Vector3::zeros() || torque != Vector3::zeros() {
            self.contacts.gated.insert(b);
            Some(self.next_window_end(time))
        } else {
            self.contacts.gated.remove(&b);
            Some(f64::INFINITY)
        }
    }

    /// Forgets the load history before `time` (a live run's), keeping the load in effect.
    pub(super) fn forget_loads_before(&mut self, time: f64) {
        for history in self.contacts.loads.values_mut() {
            let keep = history
                .partition_point(|l| l.since < time)
                .saturating_sub(1);
            history.drain(..keep);
        }
    }
}

/// The movable bodies of the contacts `group` of `manifolds`, in the order they first appear.
fn island_members(
    manifolds: &[Manifold],
    group: &[usize],
    movable: impl Fn(usize) -> bool,
) -> Vec<usize> {
    let mut members = Vec::new();
    let mut seen = FxHashSet::default();
    for &k in group {
        for b in [manifolds[k].i, manifolds[k].j] {
            if movable(b) && seen.insert(b) {
                members.push(b);
            }
        }
    }
    members
}

/// Whether loads `a` and `b` (force, torque) on a body reaching `reach` from its centre of
/// mass differ by less than [`SAME_LOAD`] of the larger: torques are compared at the scale of
/// the forces' moments, so that a torque near zero need not be matched to rounding.
fn same_load(a: (Vector3<f64>, Vector3<f64>), b: (Vector3<f64>, Vector3<f64>), reach: f64) -> bool {
    let force = a.0.norm().max(b.0.norm());
    let torque = a.1.norm().max(b.1.norm()).max(force * reach);
    (a.0 - b.0).norm() <= SAME_LOAD * force && (a.1 - b.1).norm() <= SAME_LOAD * torque
}

/// `state` brought to rest where it is.
pub(super) fn at_rest_state(state: &Kinematics) -> Kinematics {
    Kinematics {
        velocity: Vector3::zeros(),
        momentum: Vector3::zeros(),
        angular_velocity: Vector3::zeros(),
        ..*state
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ball in a pile lifted 0.5 mm by its neighbours, at rest there, pressed down by its
    /// weight: it lands at 0.099 m/s, below the resting speed of restitution 0.3 over 10 ms
    /// windows (0.65 m/s).
    #[test]
    fn a_pair_lifted_a_little_and_pressed_back_lands_resting() {
        let rest_speed = 9.81 * resting_windows(0.3) * 0.01;
        assert!(lands_resting(0.0, 9.81, 5e-4, rest_speed));
        assert!(lands_resting(-0.3, 9.81, 5e-4, rest_speed));
    }

    /// Parting at 1 m/s it would come back at more than that: a bounce, not a rest. Not
    /// pressed together (pulled apart, or weightless) it does not come back at all.
    #[test]
    fn a_pair_flying_apart_or_not_pressed_does_not_land_resting() {
        let rest_speed = 9.81 * resting_windows(0.3) * 0.01;
        assert!(!lands_resting(1.0, 9.81, 5e-4, rest_speed));
        assert!(!lands_resting(0.0, 9.81, 0.05, rest_speed));
        assert!(!lands_resting(0.0, 0.0, 5e-4, rest_speed));
    }
}
