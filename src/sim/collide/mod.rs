//! Collision detection over time, response by impulses, and the bookkeeping that backs the
//! simulation up when a collision invalidates motion already computed (dissertation 5.2.2,
//! 5.2.3 with figure 5.10, and 5.3).
//!
//! A [`Collider`] watches a [`Simulation`](crate::sim::Simulation) as its
//! [`StepObserver`]. It checks the bodies in windows of the scene's output step: a window
//! `[t0, t1]` is checked once every body's components are computed up to `t1`, so that both
//! bodies of every pair are known over it (figure 5.10 b). A check
//!
//! 1. sweeps a box around each body over the window (its bounding sphere about the centre of
//!    mass at both ends, grown by how far the interpolated path can bow out), and lets a sweep
//!    and prune ([`SweepAndPrune`]) name the pairs whose boxes overlap, so that ten thousand
//!    bodies never cost ten thousand squared pair tests; directly linked parts of one
//!    articulated body are left out (other parts of one articulated body do collide). Bodies
//!    already checked past the window are boxed from what they swept when they were checked
//!    (see `known`), so a window checking a few catching-up bodies does not read every
//!    body's tracks; such a window boxes only the bodies `known` finds near the catching-up
//!    ones (and the fixed ones), so its cost follows the catching-up bodies, not the scene;
//! 2. for each such pair finds the first time of contact on the interpolated states by
//!    conservative advancement and bisection (see `narrow`), with exact distances from
//!    [`closest_between_shapes`](crate::geom::distance::closest_between_shapes) warm-started
//!    from a cache kept per pair;
//! 3. takes the earliest contacts (all those at one instant, with the contacts they press,
//!    resolved together: see `instant`), computes the impulses (see `response` for the rules:
//!    restitution of a pair, infinitely massive bodies, resting contact) and asks the
//!    simulation to back up to that time with the new velocities and angular momenta as jumps
//!    ([`BackUp`](crate::sim::schedule::BackUp)).
//!
//! The simulation truncates the colliding bodies' components, and transitively everything
//! that depends on them; for each truncated component it calls [`StepObserver::truncated`],
//! and the collider answers with the bodies that collided after that time with a body of that
//! component (back to the first such collision), forgetting those collisions. Each body
//! carries the time up to which its pairs have been checked; a truncation moves it back, so
//! only the pairs of bodies whose motion changed are checked again. The bookkeeping is by body,
//! never by component, so it survives the repartitioning of an incremental update.

mod bodies;
mod instant;
mod jam;
mod known;
pub mod ledger;
mod min_tree;
mod narrow;
mod readers;
mod response;
mod scratch;

use crate::geom::broad::SweepAndPrune;
use crate::geom::distance::{closest_between_shapes, ShapePairCache};
use crate::geom::{contact_region, Aabb};
use crate::scene::Scene;
use crate::sim::graph::{ComponentId, Partition};
use crate::sim::physics::{Model, BODY_VARIABLES};
use crate::sim::schedule::{StepContext, StepObserver, StepReport};
use crate::sim::VarId;
use bodies::{collision_bodies, linked_parts, CollisionBody, Kinematics};
use instant::Rest;
use known::KnownBoxes;
use ledger::{Cause, Ledger};
use min_tree::MinTree;
use nalgebra::Vector3;
use narrow::{first_contact, ApproachBound, Found, Pair};
use readers::Readers;
use response::{resting_speed, ContactPoint};
use scratch::PerBody;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// Shapes closer than this fraction of the sum of their reaches count as touching.
const DISTANCE_TOLERANCE: f64 = 1e-6;
/// Contact times are found to within this fraction of the simulated span; contacts closer in
/// time than that are one instant.
const TIME_TOLERANCE: f64 = 1e-10;
/// Shapes approaching so slowly that they would close this fraction of the distance tolerance
/// over a check window are not colliding.
const APPROACH_FRACTION: f64 = 1e-2;
/// Below this many active bodies per body with a shape, the active ones are tested against all
/// boxes directly instead of sweeping.
const SPARSE_ACTIVE: usize = 8;
/// The resting interval is this fraction of the check window.
const RESTING_FRACTION: f64 = 0.25;
/// A resting hop rises at most a quarter of this fraction of the sum of the pair's reaches.
const RESTING_RISE: f64 = 1e-3;
/// The acceleration pressing a pair together is the slope of the velocity tracks over this
/// fraction of the check window before the contact (the smaller of two such spans back to
/// back, so that a velocity jump an instant earlier, which can lie in one of them, is not read
/// as an acceleration).
const PRESSING_FRACTION: f64 = 1e-6;
/// A body moving (at every point) slower than this many times the resting speed of a resting
/// contact it makes with a support that does not move falls asleep there.
const SLEEP_FACTOR: f64 = 2.0;
/// A sleeper hit faster than this many times the resting speed it fell asleep at wakes.
const WAKE_FACTOR: f64 = 4.0;
/// Vertices of a piece less than this fraction of the smaller reach of a resting pair short of
/// its extreme along the contact normal count as touching: a face tilted by about this much
/// rests flat.
const REGION_SLACK: f64 = 1e-2;

/// One collision: at `time`, `bodies` (scene indices, the first is A) met at `point` with the
/// unit `normal` from A to B, and an impulse of `impulse` along the normal pushed B (and its
/// opposite pushed A).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Collision {
    pub time: f64,
    pub bodies: (usize, usize),
    pub point: Vector3<f64>,
    pub normal: Vector3<f64>,
    pub impulse: f64,
    /// The resting rule replaced the bounce by a small hop (see the response rules).
    pub resting: bool,
}

/// Collision detection and response for one model; see the module documentation.
///
/// Cheap to clone: clones share one state, so one clone can be installed in the simulation
/// ([`Collider::observer`]) while another reads the collisions.
#[derive(Clone)]
pub struct Collider {
    shared: Arc<Mutex<Detector>>,
}

impl Collider {
    /// A collider for `model`, compiled from `scene`; nothing is checked yet.
    pub fn new(scene: &Scene, model: &Model) -> Collider {
        Collider {
            shared: Arc::new(Mutex::new(Detector::new(scene, model))),
        }
    }

    /// A handle to install with [`Simulation::set_observer`](crate::sim::Simulation::set_observer).
    pub fn observer(&self) -> Box<dyn StepObserver> {
        Box::new(self.clone())
    }

    /// The collisions that stand (those undone by a back-up are gone), in time order.
    pub fn collisions(&self) -> Vec<Collision> {
        self.lock().records.clone()
    }

    /// Problems met: pairs of infinitely massive bodies that pass through each other.
    pub fn warnings(&self) -> Vec<String> {
        self.lock().warnings.clone()
    }

    /// Takes over what `old` (the collider of the scene before an edit) knew that still holds:
    /// each body's checked time and the collisions between bodies that kept their names,
    /// except for the bodies in `changed` (their equations or initial values changed), which
    /// are checked again from the start. Returns moving bodies and the times from which their
    /// motion must be backed up because a *fixed* body changed or went away (a moving body's
    /// components are reset by the update itself, a fixed body has none): the partners of its
    /// forgotten collisions, from those collisions, and the bodies whose checked motion came
    /// near its new place, from the first time it did.
    pub fn inherit(
        &self,
        old: &Collider,
        old_model: &Model,
        changed: &HashSet<usize>,
    ) -> Vec<(usize, f64)> {
        let old = old.lock();
        let mut new = self.lock();
        new.inherit(&old, old_model, changed)
    }

    /// Moves the time up to which windows are checked (at first the scene's finish). A live
    /// run moves it on with the simulation's end at every update, so the last window of an
    /// update closes at that update's end and its collisions are handled before its states
    /// are shown.
    pub fn set_end(&self, end: f64) {
        self.lock().end = end;
    }

    /// Forgets the collisions before `time` and returns them in time order: the caller knows
    /// that no back-up will go before `time` any more, so they stand for good. Forgets what
    /// the bodies swept before it too. Keeps a long live run's memory, and the cost of undoing
    /// collisions at each back-up, bounded.
    pub fn forget_before(&self, time: f64) -> Vec<Collision> {
        let mut detector = self.lock();
        detector.known.forget_before(time);
        detector.ledger.forget_before(time);
        let records = &mut detector.records;
        let newer = records.split_off(records.partition_point(|r| r.time < time));
        std::mem::replace(records, newer)
    }

    /// The change of kinetic energy the standing instantaneous changes made up to `until`, per
    /// cause (see [`ledger`]).
    pub fn energy(&self, until: f64) -> Vec<(Cause, f64)> {
        self.lock().ledger.totals(until)
    }

    /// The components holding body `body`'s state in `partition`.
    pub fn components_of(&self, body: usize, partition: &Partition) -> Vec<ComponentId> {
        self.lock().components_of(body, partition)
    }

    fn lock(&self) -> MutexGuard<'_, Detector> {
        self.shared.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl StepObserver for Collider {
    fn stepped(&mut self, step: &StepReport, context: &mut StepContext<'_>) {
        self.lock().stepped(step, context);
    }

    fn truncated(
        &mut self,
        partition: &Partition,
        component: ComponentId,
        time: f64,
        also: &mut Vec<(ComponentId, f64)>,
    ) {
        self.lock().truncated(partition, component, time, also);
    }
}

/// The collider's state.
struct Detector {
    bodies: Vec<CollisionBody>,
    /// How many bodies have a shape.
    shaped: usize,
    /// The fixed bodies with a shape.
    fixed_shaped: Vec<usize>,
    linked: HashSet<(usize, usize)>,
    /// The body of each state variable.
    body_of_var: Vec<u32>,
    start: f64,
    /// Windows are checked up to here.
    end: f64,
    /// The scene's span from start to finish, the scale of the time tolerance.
    span: f64,
    /// The length of a check window.
    window: f64,
    /// Per body, how far all its components are computed (infinite without a shape or fixed).
    reach: MinTree,
    /// Per body, how far its pairs are checked (infinite without a shape or fixed).
    checked: MinTree,
    /// Per body, its state at its checked time, when known.
    at_checked: Vec<Option<(f64, Kinematics)>>,
    /// Per body, the boxes it swept over the windows it was checked over.
    known: KnownBoxes,
    /// Per body, where its state was last read (see `readers`).
    readers: Readers,
    /// The states at both ends of the window being checked, of the bodies read so far.
    ends: PerBody<Ends>,
    caches: HashMap<(usize, usize), ShapePairCache>,
    broad: SweepAndPrune,
    /// The collisions that stand, in time order (a back-up undoes only the latest ones).
    records: Vec<Collision>,
    warnings: Vec<String>,
    warned: HashSet<(usize, usize)>,
    /// Per body, how it last fell asleep.
    rest: Vec<Rest>,
    /// The kinetic energy each instantaneous change took or gave.
    ledger: Ledger,
}

impl Detector {
    fn new(scene: &Scene, model: &Model) -> Detector {
        let bodies = collision_bodies(scene, model);
        let mut body_of_var = Vec::with_capacity(model.system().len());
        for (b, body) in bodies.iter().enumerate() {
            if body.model.vars.is_some() {
                body_of_var.extend(std::iter::repeat_n(b as u32, BODY_VARIABLES));
            }
        }
        let simulator = model.simulator();
        let (start, end) = (simulator.start, simulator.finish);
        let mut reach = MinTree::new(bodies.len(), f64::INFINITY);
        let mut checked = MinTree::new(bodies.len(), f64::INFINITY);
        for (b, body) in bodies.iter().enumerate() {
            if body.shape.is_some() && !body.is_fixed() {
                reach.set(b, start);
                checked.set(b, start);
            }
        }
        Detector {
            shaped: bodies.iter().filter(|b| b.shape.is_some()).count(),
            fixed_shaped: (0..bodies.len())
                .filter(|&b| bodies[b].shape.is_some() && bodies[b].is_fixed())
                .collect(),
            linked: linked_parts(scene, model),
            body_of_var,
            start,
            end,
            span: end - start,
            window: simulator.step,
            reach,
            checked,
            at_checked: vec![None; bodies.len()],
            known: KnownBoxes::new(bodies.len(), start, simulator.step),
            readers: Readers::new(&bodies),
            ends: PerBody::new(bodies.len()),
            caches: HashMap::new(),
            broad: SweepAndPrune::new(),
            records: Vec::new(),
            warnings: Vec::new(),
            warned: HashSet::new(),
            rest: vec![Rest::default(); bodies.len()],
            ledger: Ledger::default(),
            bodies,
        }
    }

    /// Whether a body takes part in checks as a moving body.
    fn tracked(&self, b: usize) -> bool {
        self.bodies[b].shape.is_some() && !self.bodies[b].is_fixed()
    }

    fn components_of(&self, body: usize, partition: &Partition) -> Vec<ComponentId> {
        let Some(vars) = self.bodies[body].model.vars else {
            return Vec::new();
        };
        let mut list: Vec<ComponentId> = (0..BODY_VARIABLES)
            .map(|k| partition.component_of(vars.at(k)))
            .collect();
        list.sort_unstable();
        list.dedup();
        list
    }

    /// The distinct bodies whose variables `vars` are.
    fn bodies_of(&self, vars: &[VarId]) -> Vec<usize> {
        let mut list: Vec<usize> = vars
            .iter()
            .filter_map(|v| self.body_of_var.get(v.index()).map(|&b| b as usize))
            .collect();
        list.sort_unstable();
        list.dedup();
        list
    }

    fn stepped(&mut self, step: &StepReport, context: &mut StepContext<'_>) {
        let partition = context.partition();
        let next = (self.checked.min() + self.window).min(self.end);
        self.readers.offer(
            partition.members(step.component),
            &context.track(step.component),
            next,
        );
        let mut last = None;
        for var in partition.members(step.component) {
            let Some(&b) = self.body_of_var.get(var.index()) else {
                continue;
            };
            let b = b as usize;
            if last == Some(b) || !self.tracked(b) {
                continue;
            }
            last = Some(b);
            if let Some(vars) = self.bodies[b].model.vars {
                let reached = (0..BODY_VARIABLES)
                    .map(|k| context.reached(partition.component_of(vars.at(k))))
                    .fold(f64::INFINITY, f64::min);
                self.reach.set(b, reached);
            }
        }
        loop {
            let t0 = self.checked.min();
            if t0 >= self.end {
                return;
            }
            let full = (t0 + self.window).min(self.end);
            let t1 = full.min(self.reach.min());
            if t1 < full {
                return;
            }
            if self.check(t0, t1, context) {
                return;
            }
        }
    }

    /// Body `b`'s states at `t0` and `t1`, if it has a shape and both are computed. The state
    /// at `t0` is the one kept from its last check when that ended there.
    fn ends(&mut self, b: usize, t0: f64, t1: f64, context: &StepContext<'_>) -> Ends {
        self.bodies[b].shape.as_ref()?;
        let start = match self.at_checked[b] {
            Some((time, state)) if time == t0 => state,
            _ => self.state_at(b, t0, context)?,
        };
        Some((start, self.state_at(b, t1, context)?))
    }

    /// Body `b`'s state at `t` (after any jump there), if computed.
    fn state_at(&mut self, b: usize, t: f64, context: &StepContext<'_>) -> Option<Kinematics> {
        self.readers.of(b).state(&self.bodies[b], context, t)
    }

    /// Checks the window `[t0, t1]` for the bodies not yet checked to `t1`. Returns whether it
    /// asked for a back-up.
    ///
    /// The bodies already checked past the window are boxed from what they are known to sweep
    /// when that covers the window, and their states are read only if a pair needs them.
    fn check(&mut self, t0: f64, t1: f64, context: &mut StepContext<'_>) -> bool {
        let active = self.checked.below(t1);
        let mut ends = std::mem::take(&mut self.ends);
        let pairs = self.candidate_pairs(&active, t0, t1, context, &mut ends);
        let mut found: Vec<(Found, usize, usize)> = Vec::new();
        let span = self.span;
        for &(i, j) in &pairs {
            for b in [i, j] {
                if ends.get(b).is_none() {
                    ends.insert(b, self.ends(b, t0, t1, context));
                }
            }
            let (Some(&Some((a0, a1))), Some(&Some((b0, b1)))) = (ends.get(i), ends.get(j)) else {
                continue;
            };
            let (a, b) = (&self.bodies[i], &self.bodies[j]);
            let pair = Pair {
                a,
                b,
                speed: ApproachBound::new(a, (&a0, &a1), b, (&b0, &b1), t1 - t0),
                tolerance: DISTANCE_TOLERANCE * (a.reach + b.reach),
                time_tolerance: TIME_TOLERANCE * span,
                approach_tolerance: self.approach_tolerance(i, j),
                known: [(t0, a0, b0), (t1, a1, b1)],
            };
            let from = self.checked.get(i).min(self.checked.get(j)).max(t0);
            if self.sleeps_over(i, from, t1, context) && self.sleeps_over(j, from, t1, context) {
                continue;
            }
            let cache = self.caches.entry((i, j)).or_default();
            let readers = self.readers.two(i, j);
            if let Some(f) = first_contact(&pair, context, (from, t1), readers, cache) {
                found.push((f, i, j));
            }
        }
        found.sort_by(|x, y| x.0.time.total_cmp(&y.0.time));

        for &b in &active {
            if let (true, Some(Some((s0, s1)))) = (self.tracked(b), ends.get(b)) {
                let swept = swept_box(self.bodies[b].reach, s0, s1, t1 - t0);
                self.known.record(b, t0, t1, swept);
            }
        }
        let applied = self.respond(&found, &pairs, span * TIME_TOLERANCE, context);
        // Each active body's check moves to `t1`, unless a contact holds it back (or, for a
        // body checked further already, back to the contact).
        let mut held: HashMap<usize, f64> = HashMap::new();
        if let Some((time, group)) = &applied {
            for (f, i, j) in &found {
                if f.time > *time {
                    for b in [*i, *j] {
                        let checked = self.checked.get(b);
                        let at = held
                            .entry(b)
                            .or_insert(if checked < t1 { t1 } else { checked });
                        *at = at.min(f.time);
                    }
                }
            }
            for &(i, j) in group {
                held.insert(i, *time);
                held.insert(j, *time);
            }
        }
        let mut moves: Vec<(usize, f64)> = active
            .iter()
            .map(|&b| (b, held.remove(&b).unwrap_or(t1)))
            .collect();
        moves.extend(held);
        for (b, to) in moves {
            if !self.tracked(b) || to == self.checked.get(b) {
                continue;
            }
            self.checked.set(b, to);
            self.at_checked[b] = match ends.get(b) {
                Some(Some((_, s1))) if to == t1 => Some((t1, *s1)),
                _ => None,
            };
        }
        ends.clear();
        self.ends = ends;
        applied.is_some()
    }

    /// Body `b`'s box over the window: from what it is known to sweep if it is checked past
    /// the window already, else from its states at both ends (kept in `ends`).
    fn window_box(
        &mut self,
        b: usize,
        t0: f64,
        t1: f64,
        context: &StepContext<'_>,
        ends: &mut PerBody<Ends>,
    ) -> Aabb {
        let nowhere = Aabb::new(Vector3::repeat(f64::NAN), Vector3::repeat(f64::NAN));
        if self.bodies[b].shape.is_none() {
            return nowhere;
        }
        if self.tracked(b) && self.checked.get(b) >= t1 {
            if let Some(known) = self.known.over(b, t0, t1) {
                return known;
            }
        }
        if ends.get(b).is_none() {
            ends.insert(b, self.ends(b, t0, t1, context));
        }
        match ends.get(b) {
            Some(Some((s0, s1))) => swept_box(self.bodies[b].reach, s0, s1, t1 - t0),
            _ => nowhere,
        }
    }

    /// Pairs `(i, j)`, `i < j`, with at least one of the `active` bodies among them and
    /// overlapping boxes over the window, that may collide.
    ///
    /// With few active bodies, only the bodies known to come near them are boxed, and the
    /// fixed ones; otherwise every body is, and a sweep and prune pairs them.
    fn candidate_pairs(
        &mut self,
        active: &[usize],
        t0: f64,
        t1: f64,
        context: &StepContext<'_>,
        ends: &mut PerBody<Ends>,
    ) -> Vec<(usize, usize)> {
        if active.len() * SPARSE_ACTIVE >= self.shaped {
            let boxes: Vec<Aabb> = (0..self.bodies.len())
                .map(|b| self.window_box(b, t0, t1, context, ends))
                .collect();
            self.broad.update(&boxes);
            let checked = &self.checked;
            let is_active = |b: usize| checked.get(b) < t1;
            let (bodies, linked) = (&self.bodies, &self.linked);
            return self
                .broad
                .pairs(|i, j| (is_active(i) || is_active(j)) && may_collide(bodies, linked, i, j));
        }
        let mut boxes: HashMap<usize, Aabb> = HashMap::new();
        let mut pairs = Vec::new();
        let mut near = Vec::new();
        for &i in active {
            let own = self.window_box(i, t0, t1, context, ends);
            near.clear();
            self.known.near(&own, t0, t1, &mut near);
            near.extend(self.fixed_shaped.iter().copied());
            near.extend(active.iter().copied().filter(|&j| j > i));
            near.sort_unstable();
            near.dedup();
            for &j in &near {
                let once = self.checked.get(j) >= t1 || i < j;
                if i == j || !once || !may_collide(&self.bodies, &self.linked, i, j) {
                    continue;
                }
                let other = match boxes.get(&j) {
                    Some(other) => *other,
                    None => {
                        let other = self.window_box(j, t0, t1, context, ends);
                        *boxes.entry(j).or_insert(other)
                    }
                };
                if own.overlaps(&other) {
                    pairs.push((i.min(j), i.max(j)));
                }
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        pairs
    }

    /// Whether body `b` is asleep (held at rest) at `time`.
    fn asleep(&self, b: usize, time: f64, context: &StepContext<'_>) -> bool {
        self.bodies[b]
            .model
            .vars
            .is_some_and(|vars| context.is_held(vars.at(0), time))
    }

    /// Whether body `b` is fixed or asleep over all of `[from, to]`: two such bodies cannot
    /// collide over it.
    fn sleeps_over(&self, b: usize, from: f64, to: f64, context: &StepContext<'_>) -> bool {
        let body = &self.bodies[b];
        match body.model.vars {
            None => body.is_fixed(),
            Some(vars) => context.is_held_over(vars.at(0), from, to),
        }
    }

    /// Whether body `b`, making the resting `contact` at `time` in state `before` with a
    /// support that does not move, may fall asleep there: it moves by its own state alone,
    /// is awake and free, and moves (every point of it) slower than the sleep factor times the
    /// contact's resting speed — or, when it is jammed (it already hopped at this instant, off
    /// another contact, and is still pressed into this one), slower than a hit that would
    /// wake a sleeper.
    fn may_sleep(
        &self,
        b: usize,
        before: &Kinematics,
        contact: &ContactPoint,
        time: f64,
        context: &StepContext<'_>,
    ) -> bool {
        let body = &self.bodies[b];
        let speed = before.velocity.norm() + body.reach * before.angular_velocity.norm();
        body.self_contained
            && !body.immovable(time)
            && !self.asleep(b, time, context)
            && speed
                <= resting_speed(contact)
                    * if contact.settled {
                        WAKE_FACTOR
                    } else {
                        SLEEP_FACTOR
                    }
    }

    /// `woken` and every sleeper resting on one of them at `time`, transitively: bodies asleep
    /// on a body that wakes must wake with it, or they would hang in the air when it moves. A
    /// sleeper rests on a body it touches from the side its sleep's support was on.
    fn island(&self, woken: &[usize], time: f64, context: &StepContext<'_>) -> Vec<usize> {
        let mut island = woken.to_vec();
        let mut sleepers: Vec<(usize, Kinematics)> = (0..self.bodies.len())
            .filter(|&b| self.tracked(b) && !woken.contains(&b) && self.asleep(b, time, context))
            .filter_map(|b| Some((b, self.bodies[b].state(context, time)?)))
            .collect();
        let mut next = 0;
        while next < island.len() && !sleepers.is_empty() {
            let x = island[next];
            next += 1;
            let Some(sx) = self.bodies[x].state(context, time) else {
                continue;
            };
            let (a, shape_a) = match &self.bodies[x].shape {
                Some(shape) => (&self.bodies[x], shape),
                None => continue,
            };
            sleepers.retain(|(s, ss)| {
                let b = &self.bodies[*s];
                let touch = RESTING_RISE * (a.reach + b.reach);
                let near = (ss.position - sx.position).norm() <= a.reach + b.reach + touch;
                let touching = near
                    && b.shape.as_ref().is_some_and(|shape_b| {
                        let mut cache = ShapePairCache::default();
                        let pose_a = a.pose(&sx);
                        let pose_b = b.pose(ss);
                        let contact =
                            closest_between_shapes(shape_a, &pose_a, shape_b, &pose_b, &mut cache)
                                .contact;
                        contact.distance <= touch && contact.normal.dot(&self.rest[*s].up) > 0.0
                    });
                if touching {
                    island.push(*s);
                }
                !touching
            });
        }
        island
    }

    /// The corners of the region over which bodies `i` and `j`, in `states`, touch at the
    /// contact `found` (see [`contact_region`]).
    fn region(
        &self,
        found: &Found,
        i: usize,
        j: usize,
        states: &HashMap<usize, Kinematics>,
    ) -> Vec<Vector3<f64>> {
        let (a, b) = (&self.bodies[i], &self.bodies[j]);
        let (Some(shape_a), Some(shape_b)) = (&a.shape, &b.shape) else {
            return Vec::new();
        };
        let c = &found.contact;
        contact_region(
            &shape_a.pieces()[c.piece_a],
            &a.pose(&states[&i]),
            &shape_b.pieces()[c.piece_b],
            &b.pose(&states[&j]),
            &c.contact,
            REGION_SLACK * a.reach.min(b.reach),
        )
    }

    /// The speed below which bodies `i` and `j` in contact are not colliding.
    fn approach_tolerance(&self, i: usize, j: usize) -> f64 {
        let reach = self.bodies[i].reach + self.bodies[j].reach;
        APPROACH_FRACTION * DISTANCE_TOLERANCE * reach / self.window
    }

    /// How hard bodies `i` and `j` are pressed together along `normal` (from `i` to `j`) just
    /// before `time`: the part of each body's own acceleration there that drives it into the
    /// other, added, or 0.
    ///
    /// Each body counts on its own, not their relative acceleration: a brick resting on the
    /// floor falls freely between its resting hops, so its tracks show gravity, and a brick on
    /// top of it is nonetheless pressed onto it by its own weight and must rest there rather
    /// than bounce ever lower. (Two bodies falling together in the air count as pressed too;
    /// their slow contacts hop apart, which costs at most the energy the resting rule allows.)
    fn pressing(
        &self,
        i: usize,
        j: usize,
        normal: &Vector3<f64>,
        time: f64,
        context: &StepContext<'_>,
    ) -> f64 {
        // Over two spans back to back, the smaller: a jump of velocity made by an impulse an
        // instant earlier falls into one of them at most, and read as an acceleration it
        // would press the pair with millions of g and make its resting hop a flight.
        let span = self.window * PRESSING_FRACTION;
        let mid = (time - span).max(self.start);
        let before = (time - 2.0 * span).max(self.start);
        if before >= mid {
            return 0.0;
        }
        let acceleration = |b: usize, from: f64, to: f64| -> Option<Vector3<f64>> {
            let body = &self.bodies[b];
            if body.model.vars.is_none() {
                return Some(Vector3::zeros());
            }
            let late = body.state_before(context, to)?;
            let early = body.state(context, from)?;
            Some((late.velocity - early.velocity) / (to - from))
        };
        let over = |from: f64, to: f64| match (acceleration(i, from, to), acceleration(j, from, to))
        {
            (Some(a), Some(b)) => a.dot(normal).max(0.0) + (-b.dot(normal)).max(0.0),
            _ => 0.0,
        };
        over(before, mid).min(over(mid, time))
    }

    fn warn_immovable(&mut self, i: usize, j: usize, time: f64) {
        if self.warned.insert((i, j)) {
            self.warnings.push(format!(
                "bodies {} and {} meet at t = {time} but both are infinitely massive (fixed or \
                 following a trajectory); they pass through each other",
                self.bodies[i].model.name, self.bodies[j].model.name
            ));
        }
    }

    fn truncated(
        &mut self,
        partition: &Partition,
        component: ComponentId,
        time: f64,
        also: &mut Vec<(ComponentId, f64)>,
    ) {
        self.readers.forget(partition.members(component), time);
        for b in self.bodies_of(partition.members(component)) {
            if self.tracked(b) {
                self.known.truncate(b, time);
                self.reach.set(b, self.reach.get(b).min(time));
                if self.checked.get(b) > time {
                    self.checked.set(b, time);
                }
                // A state cached at the truncation time predates the jumps applied there.
                if self.checked.get(b) >= time {
                    self.at_checked[b] = None;
                }
            }
            let reset = time <= self.start;
            self.ledger.truncate(b, time, reset);
            let mut partners = Vec::new();
            // Only collisions from `time` on can be undone; the records are in time order.
            let from = self.records.partition_point(|r| r.time < time);
            let mut later = self.records.split_off(from);
            later.retain(|r| {
                let involved = r.bodies.0 == b || r.bodies.1 == b;
                let undone = r.time > time || (reset && r.time >= time);
                if involved && undone {
                    let other = if r.bodies.0 == b {
                        r.bodies.1
                    } else {
                        r.bodies.0
                    };
                    partners.push((other, r.time));
                    return false;
                }
                true
            });
            self.records.append(&mut later);
            for (other, when) in partners {
                also.extend(
                    self.components_of(other, partition)
                        .into_iter()
                        .map(|c| (c, when)),
                );
            }
        }
    }

    fn inherit(
        &mut self,
        old: &Detector,
        old_model: &Model,
        changed: &HashSet<usize>,
    ) -> Vec<(usize, f64)> {
        let index: HashMap<&str, usize> = self
            .bodies
            .iter()
            .enumerate()
            .map(|(i, b)| (b.model.name.as_str(), i))
            .collect();
        let map: Vec<Option<usize>> = old_model
            .bodies()
            .iter()
            .map(|b| index.get(b.name.as_str()).copied())
            .collect();
        for (o, &new) in map.iter().enumerate() {
            let Some(b) = new else { continue };
            if changed.contains(&b) || !self.tracked(b) || !old.tracked(o) {
                continue;
            }
            self.checked.set(b, old.checked.get(o));
            self.reach.set(b, old.reach.get(o));
            self.rest[b] = old.rest[o];
            self.known.copy_body(b, &old.known, o);
        }
        let fixed_changed = |x: usize| changed.contains(&x) && self.bodies[x].is_fixed();
        self.ledger = old.ledger.inherit(&map, fixed_changed);
        let mut back_ups = Vec::new();
        for r in &old.records {
            match (map[r.bodies.0], map[r.bodies.1]) {
                (Some(a), Some(b)) if !fixed_changed(a) && !fixed_changed(b) => {
                    self.records.push(Collision {
                        bodies: (a, b),
                        ..*r
                    });
                }
                // A fixed body moved or went away: what bounced off it must move on.
                (a, b) => back_ups.extend(
                    [a, b]
                        .into_iter()
                        .flatten()
                        .filter(|&x| self.tracked(x))
                        .map(|x| (x, r.time)),
                ),
            }
        }
        // Where a changed fixed body stands now, the motion checked so far may pass through it:
        // check it again from the first time it came near.
        for f in (0..self.bodies.len()).filter(|&f| fixed_changed(f)) {
            let body = &self.bodies[f];
            if body.shape.is_none() {
                continue;
            }
            let reach = Vector3::repeat(body.reach);
            let at = body.model.initial.position;
            let bounds = Aabb::new(at - reach, at + reach);
            for b in (0..self.bodies.len()).filter(|&b| self.tracked(b)) {
                if let Some(time) = self.known.first_overlap(b, &bounds) {
                    back_ups.push((b, time));
                }
            }
        }
        back_ups
    }
}

/// Whether bodies `i` and `j` can collide at all: both have shapes, one moves, and they are not
/// directly linked parts of one articulated body (`linked`).
fn may_collide(
    bodies: &[CollisionBody],
    linked: &HashSet<(usize, usize)>,
    i: usize,
    j: usize,
) -> bool {
    let (a, b) = (&bodies[i], &bodies[j]);
    a.shape.is_some()
        && b.shape.is_some()
        && !(a.is_fixed() && b.is_fixed())
        && !linked.contains(&(i.min(j), i.max(j)))
}

/// A body's states at both ends of a check window.
type Ends = Option<(Kinematics, Kinematics)>;

/// A box holding body's shape over an interval: its bounding sphere about the centre of mass
/// at both ends, grown by how far the interpolated path can bow out between them under a
/// steady change of velocity (`|Δv| h / 8`).
fn swept_box(reach: f64, s0: &Kinematics, s1: &Kinematics, duration: f64) -> Aabb {
    let sphere =
        |p: &Vector3<f64>| Aabb::new(p - Vector3::repeat(reach), p + Vector3::repeat(reach));
    let bow = (s1.velocity - s0.velocity).norm() * duration / 8.0;
    sphere(&s0.position)
        .union(&sphere(&s1.position))
        .expanded(bow + 1e-9 * reach)
}
