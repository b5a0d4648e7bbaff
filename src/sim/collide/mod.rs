//! Collision detection over time, response by impulses, persistent contacts held by contact
//! forces, and the bookkeeping that backs the simulation up when a collision invalidates
//! motion already computed (dissertation 5.2.2, 5.2.3 with figure 5.10, and 5.3; persistent
//! contacts and sleeping go beyond it).
//!
//! A [`Collider`] watches a [`Simulation`](crate::sim::Simulation) as its
//! [`StepObserver`]. It checks the bodies in windows on a fixed grid (see `check`): a window
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
//! 3. groups the pairs into islands and, in each island, takes the earliest contacts (all
//!    those at one instant, with the contacts they press, resolved together: see `instant`),
//!    computes the impulses (see `response`) and asks the simulation to back up to that time
//!    with the new velocities and angular momenta as jumps
//!    ([`BackUp`](crate::sim::schedule::BackUp)).
//!
//! Slow contacts of bodies pressed together become persistent and are held by contact forces
//! solved per contact island at every grid point, the *contact tick* (see `contact`); islands
//! that stay still sleep.
//!
//! The simulation truncates the colliding bodies' components, and transitively everything
//! that depends on them; for each truncated component it calls [`StepObserver::truncated`],
//! and the collider answers with the bodies that collided after that time with a body of that
//! component (back to the first such collision), forgetting those collisions (see `history`).
//! Each body carries the time up to which its pairs have been checked; a truncation moves it
//! back, so only the pairs of bodies whose motion changed are checked again. The bookkeeping
//! is by body, never by component, so it survives the repartitioning of an incremental update.

mod bodies;
mod check;
mod contact;
mod history;
mod instant;
mod islands;
mod known;
pub mod ledger;
mod min_tree;
mod narrow;
mod readers;
mod response;
mod scratch;
mod searched;

use crate::geom::broad::SweepAndPrune;
use crate::geom::contact_region;
use crate::geom::distance::ShapePairCache;
use crate::lang::fxhash::{FxHashMap, FxHashSet};
use crate::scene::Scene;
use crate::sim::graph::{ComponentId, Partition};
use crate::sim::memory::refill;
use crate::sim::motion::Tracks;
use crate::sim::physics::{BodyMoves, FreeLoads, InteractionInputs, Model, Reuse, BODY_VARIABLES};
use crate::sim::schedule::{StepContext, StepObserver, StepReport};
use crate::sim::VarId;
use bodies::{
    collision_bodies, collision_bodies_in_place, keeps_order, linked_parts, CollisionBody,
    Kinematics,
};
use check::Ends;
use contact::Contacts;
use islands::Islands;
use known::KnownBoxes;
use ledger::{Cause, Ledger};
use min_tree::MinTree;
use nalgebra::Vector3;
use narrow::Found;
use readers::Readers;
use scratch::PerBody;
use searched::Searched;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// Check windows (and contact ticks) are at most this long: a contact load is constant over a
/// tick, and a body that starts resting falls freely for up to one tick before its first load.
const MAX_WINDOW: f64 = 0.01;

/// The check window for the output step `step`: the step, or the largest whole fraction of it
/// no longer than [`MAX_WINDOW`], so that windows end on the output samples.
fn check_window(step: f64) -> f64 {
    step / (step / MAX_WINDOW).ceil().max(1.0)
}

/// In `Detector::body_of_var`, a variable of no body (an unused block, see
/// [`Model`](crate::sim::physics::Model)).
const NO_BODY: u32 = u32::MAX;

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
    /// A resting contact, stopped rather than bounced, that became (or was) persistent.
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
            shared: Arc::new(Mutex::new(Detector::new(
                scene,
                model,
                model.free_loads(None),
                collision_bodies(scene, model, Vec::new()),
                Tables::default(),
            ))),
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

    /// The collider of `scene`, compiled as `model`, after an edit of the scene that `old` is
    /// the collider of; `old` is left without its bodies (they move over) and must not be used
    /// again. Takes over what `old` knew that still holds: each body's collision body (shape
    /// and all, but for its restitution and friction, read again), its checked time
    /// and the collisions between bodies that kept their names (paired as `moved` says),
    /// except for the bodies in `changed` (their equations or initial values changed), which
    /// are checked again from the start; with `reuse_loads` (the edit kept the model's
    /// trajectories), also the compiled loads of the bodies not in `changed`. Returns the
    /// collider, and moving bodies
    /// and the times from which their motion must be backed up because a *fixed* body changed
    /// or went away (a moving body's components are reset by the update itself, a fixed body
    /// has none), or because a body of `recollide` now collides otherwise (its restitution or
    /// friction changed): the partners of such a body's forgotten collisions, from those
    /// collisions, and for a fixed body the bodies whose checked motion came near its new
    /// place, from the first time it did.
    pub fn after_edit(
        scene: &Scene,
        model: &Model,
        old: &Collider,
        changed: &std::collections::HashSet<usize>,
        recollide: &std::collections::HashSet<usize>,
        moved: &BodyMoves,
        reuse_loads: bool,
    ) -> (Collider, Vec<(usize, f64)>) {
        let mut old = old.lock();
        // Each old body's index now, as the model update paired them: looked up by name only
        // after a model compiled whole (a cache miss or two per body otherwise).
        let map: Vec<Option<usize>> = match moved {
            BodyMoves::Kept => (0..old.bodies.len()).map(Some).collect(),
            BodyMoves::Moved(map) => map.clone(),
            BodyMoves::ByName => (old.bodies.iter())
                .map(|b| model.body_index(&b.model.name))
                .collect(),
        };
        let reuse = reuse_loads.then(|| Reuse {
            earlier: &mut old.free,
            map: &map,
            changed,
        });
        let free = model.free_loads(reuse);
        // The bodies the edit left alone move over from the old collider, which is not used
        // again.
        let before = std::mem::take(&mut old.bodies);
        let bodies = if keeps_order(&map, model.bodies().len()) {
            collision_bodies_in_place(scene, model, before, &map, changed)
        } else {
            let mut earlier: Vec<Option<CollisionBody>> = Vec::new();
            earlier.resize_with(model.bodies().len(), || None);
            for (o, body) in before.into_iter().enumerate() {
                if let Some(b) = map[o].filter(|b| !changed.contains(b)) {
                    earlier[b] = Some(body);
                }
            }
            collision_bodies(scene, model, earlier)
        };
        let tables = old.take_tables();
        let mut detector = Detector::new(scene, model, free, bodies, tables);
        let back_ups = detector.inherit(&old, &map, changed, recollide);
        let collider = Collider {
            shared: Arc::new(Mutex::new(detector)),
        };
        (collider, back_ups)
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
        detector.forget_loads_before(time);
        let records = &mut detector.records;
        let newer = records.split_off(records.partition_point(|r| r.time < time));
        std::mem::replace(records, newer)
    }

    /// The change of kinetic energy the standing instantaneous changes made up to `until`, per
    /// cause (see [`ledger`]), with the work of the contact loads still in effect at `until`
    /// up to it, read from `tracks`.
    pub(crate) fn energy(&self, until: f64, tracks: &Tracks) -> Vec<(Cause, f64)> {
        let detector = self.lock();
        let mut totals = detector.ledger.totals(until);
        let open = detector.open_load_work(until, tracks);
        if open != 0.0 {
            match totals.iter_mut().find(|(c, _)| *c == Cause::ContactForce) {
                Some((_, total)) => *total += open,
                None => {
                    totals.push((Cause::ContactForce, open));
                    totals.sort_by_key(|&(c, _)| c);
                }
            }
        }
        totals
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
        let mut detector = self.lock();
        detector.ledger.settle();
        detector.stepped(step, context);
    }

    fn truncating(&mut self) {
        self.lock().undone.clear();
    }

    fn truncated(
        &mut self,
        partition: &Partition,
        component: ComponentId,
        time: f64,
        also: &mut Vec<(ComponentId, f64)>,
        gates: &mut Vec<(ComponentId, f64)>,
    ) {
        self.lock()
            .truncated(partition, component, time, also, gates);
    }

    fn waiting(&mut self, context: &mut StepContext<'_>) -> bool {
        let mut detector = self.lock();
        detector.ledger.settle();
        detector.advance(context)
    }
}

/// The collider's state.
struct Detector {
    bodies: Vec<CollisionBody>,
    /// How many bodies have a shape.
    shaped: usize,
    /// The fixed bodies with a shape.
    fixed_shaped: Vec<usize>,
    linked: FxHashSet<(usize, usize)>,
    /// The body of each state variable ([`NO_BODY`] for the variables of no body).
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
    /// The window's islands, made anew at each check in the same memory (see `check`).
    islands: Islands,
    caches: FxHashMap<(usize, usize), ShapePairCache>,
    /// Per pair, its last search in a window (see `searched`).
    searched: FxHashMap<(usize, usize), Searched>,
    /// Per body, how many times its computed motion was cut back (see `searched`).
    motions: Vec<u64>,
    /// The bodies whose records, contacts and loads the back-up being applied has undone, and
    /// to when: a body's every component is truncated to the same time, and the body's share
    /// of the work is done once, not once per component (see `history`).
    undone: FxHashMap<usize, f64>,
    broad: SweepAndPrune,
    /// The collisions that stand, in time order (a back-up undoes only the latest ones).
    records: Vec<Collision>,
    warnings: Vec<String>,
    warned: FxHashSet<(usize, usize)>,
    /// The kinetic energy each instantaneous change took or gave.
    ledger: Ledger,
    /// The persistent contacts and their loads (see `contact`).
    contacts: Contacts,
    /// The model's external inputs, whose contact inputs the loads are written to.
    inputs: InteractionInputs,
    /// What acts on each body besides its contacts, for the contact solve.
    free: FreeLoads,
}

/// A detector's tables by body and by variable, which an edit's detector makes again in the
/// memory of its predecessor's (see [`refill`]): made afresh, their first writes are page
/// faults (at 1,000 bodies, 0.6 MB of the readers' pieces, 13,000 entries of each variable's
/// body, 0.4 MB of states at the checked times and at a window's ends).
#[derive(Default)]
struct Tables {
    readers: Readers,
    body_of_var: Vec<u32>,
    at_checked: Vec<Option<(f64, Kinematics)>>,
    ends: PerBody<Ends>,
}

impl Detector {
    /// The detector of `bodies`, compiled from `scene` as `model`, with nothing checked yet;
    /// its tables made in the memory of `tables` (an earlier detector's, or empty ones).
    fn new(
        scene: &Scene,
        model: &Model,
        free: FreeLoads,
        bodies: Vec<CollisionBody>,
        tables: Tables,
    ) -> Detector {
        let Tables {
            readers,
            mut body_of_var,
            mut at_checked,
            ends,
        } = tables;
        refill(&mut body_of_var, model.system().len(), NO_BODY);
        refill(&mut at_checked, bodies.len(), None);
        for (b, body) in bodies.iter().enumerate() {
            if let Some(vars) = body.model.vars {
                body_of_var[vars.first.index()..][..BODY_VARIABLES].fill(b as u32);
            }
        }
        let simulator = model.simulator();
        let (start, end) = (simulator.start, simulator.finish);
        // Contact loads are set from the start; an earlier collider's are void.
        let inputs = model.inputs().clone();
        for b in 0..bodies.len() {
            inputs.set_contact(b, Vector3::zeros(), Vector3::zeros());
        }
        let window = check_window(simulator.step);
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
            window,
            reach,
            checked,
            at_checked,
            known: KnownBoxes::new(bodies.len(), start, window),
            readers: readers.reset(&bodies),
            ends: ends.reset(bodies.len()),
            islands: Islands::default(),
            caches: FxHashMap::default(),
            searched: FxHashMap::default(),
            motions: vec![0; bodies.len()],
            undone: FxHashMap::default(),
            broad: SweepAndPrune::new(),
            records: Vec::new(),
            warnings: Vec::new(),
            warned: FxHashSet::default(),
            ledger: Ledger::default(),
            contacts: Contacts::new(start),
            inputs,
            free,
            bodies,
        }
    }

    /// Its tables by body and by variable, for the detector after an edit to make its own in
    /// (this one is not used again).
    fn take_tables(&mut self) -> Tables {
        Tables {
            readers: std::mem::take(&mut self.readers),
            body_of_var: std::mem::take(&mut self.body_of_var),
            at_checked: std::mem::take(&mut self.at_checked),
            ends: std::mem::take(&mut self.ends),
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
            .filter_map(|v| self.body_of_var.get(v.index()).filter(|&&b| b != NO_BODY))
            .map(|&b| b as usize)
            .collect();
        list.sort_unstable();
        list.dedup();
        list
    }

    /// Whether body `b` is immovable or asleep at `time`.
    fn still(&self, b: usize, time: f64, context: &StepContext<'_>) -> bool {
        self.bodies[b].immovable(time) || self.asleep(b, time, context)
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

    /// The corners of the region over which bodies `i` and `j`, in `states`, touch at the
    /// contact `found` (see [`contact_region`]).
    fn region(
        &self,
        found: &Found,
        i: usize,
        j: usize,
        states: &FxHashMap<usize, Kinematics>,
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

    fn warn_immovable(&mut self, i: usize, j: usize, time: f64) {
        if self.warned.insert((i, j)) {
            self.warnings.push(format!(
                "bodies {} and {} meet at t = {time} but both are infinitely massive (fixed or \
                 following a trajectory); they pass through each other",
                self.bodies[i].model.name, self.bodies[j].model.name
            ));
        }
    }
}
