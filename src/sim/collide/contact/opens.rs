//! A loaded contact that opens: the event that ends a contact load when its pair comes apart
//! within a tick.
//!
//! A load is solved at a tick (or an instant) for the pair's state there and held, constant,
//! to the next tick. That is right while the pair stays closed: its corners do not move
//! apart, so the load does no work. But a stiff force can pull the pair apart within the tick
//! (a chain's links, after an impact folded it onto itself, pull the two boxes off each other
//! in milliseconds), and a load held on bodies moving apart pushes them apart further: work
//! from nothing, counted by the energy ledger as contact force. So the window checks watch
//! every loaded persistent pair for its gap opening by [`OPEN_FRACTION`] of the pair's size
//! beyond where its load was solved; the first time it does is an event of the pair's island,
//! ordered with its collisions, at which the pair's bodies have their loads solved again (see
//! `Detector::reopen`). The pair stays persistent: its new load lets the gap close by what it
//! has opened over the tick, which a pair flying apart does not need, and the next tick drops
//! it once its gap passes the break distance. (Made ordinary at the event, a pair in a settled
//! pile went round and round: it opened, met again as a collision, rested and was loaded.)

use super::super::bodies::Kinematics;
use super::super::narrow::Found;
use super::super::searched::{OpeningLoad, Watch};
use super::super::Detector;
use super::ask_back_up;
use crate::geom::distance::{closest_between_shapes, Contact, ShapeContact};
use crate::lang::fxhash::{FxHashMap, FxHashSet};
use crate::sim::schedule::{BackUp, StepContext};
use nalgebra::Vector3;

/// A loaded pair whose gap grows by more than this fraction of its size (see
/// `Detector::pair_size`) over the gap it had when its load was solved has opened: a tenth of
/// the break distance, far above the wander of a resting pair's gap under a constant load
/// (which the solve keeps within the slop). The load does work over that distance only. (Events
/// at a hundredth of it made `examples/wall.asg` twenty times slower: pairs that part slowly
/// were solved again and again.)
const OPEN_FRACTION: f64 = 1e-4;

/// Halvings of the search for the time a pair opened, at most.
const MAX_HALVINGS: usize = 60;

impl Detector {
    /// The closest points of persistent pair `(i, j)` in `states`.
    pub(in super::super) fn closest_at(
        &mut self,
        i: usize,
        j: usize,
        states: (&Kinematics, &Kinematics),
    ) -> Option<ShapeContact> {
        let (a, b) = (&self.bodies[i], &self.bodies[j]);
        let (Some(shape_a), Some(shape_b)) = (&a.shape, &b.shape) else {
            return None;
        };
        let cache = self.caches.entry((i, j)).or_default();
        Some(closest_between_shapes(
            shape_a,
            &a.pose(states.0),
            shape_b,
            &b.pose(states.1),
            cache,
        ))
    }

    /// What the opening search of persistent pair `(i, j)` depends on besides the two bodies'
    /// motions, as a search's [`Watch`]: the pair's last solve. `None` when it depends on other
    /// bodies' motions too (the forces that drive the pair apart read them, see
    /// `pushed_apart`), so that its answer may not be kept.
    pub(in super::super) fn opening_watch(&self, (i, j): (usize, usize)) -> Option<Watch> {
        let alone = [i, j]
            .iter()
            .all(|&b| self.free.reads(b).iter().all(|&r| r == i || r == j));
        let pair = self.contacts.pairs.get((i, j))?;
        alone.then(|| {
            Watch::Opening(pair.solved.map(|solved| OpeningLoad {
                time: solved.time,
                gap: solved.gap,
                pressed: pair.warm.iter().any(|w| w.normal > 0.0),
            }))
        })
    }

    /// Whether persistent pair `(i, j)`, with its `closest` points in its states `ends` at
    /// `t1`, opened since its load was solved, and if so, when first within `[from, t1]` (to
    /// the time tolerance `tolerance`), as an event of the window: a [`Found`] marked `opens`,
    /// with the pair's states there.
    pub(in super::super) fn opening(
        &mut self,
        (i, j): (usize, usize),
        closest: &Contact,
        ends: (&Kinematics, &Kinematics),
        (from, t1): (f64, f64),
        tolerance: f64,
        context: &StepContext<'_>,
    ) -> Option<Found> {
        let pair = self.contacts.pairs.get((i, j))?;
        let solved = pair.solved?;
        if !pair.warm.iter().any(|w| w.normal > 0.0) {
            return None;
        }
        let open = solved.gap.max(0.0) + OPEN_FRACTION * self.pair_size(i, j);
        if closest.distance <= open || !self.pushed_apart((i, j), closest, ends, t1, context) {
            return None;
        }
        let mut lo = from.max(solved.time);
        if lo >= t1 {
            return None;
        }
        let look = |detector: &mut Detector, t: f64| -> Option<Found> {
            let a = detector
                .readers
                .of(i)
                .state(&detector.bodies[i], context, t)?;
            let b = detector
                .readers
                .of(j)
                .state(&detector.bodies[j], context, t)?;
            let contact = detector.closest_at(i, j, (&a, &b))?;
            Some(Found {
                time: t,
                contact,
                a,
                b,
                opens: true,
            })
        };
        let mut best = look(self, t1)?;
        for _ in 0..MAX_HALVINGS {
            if best.time - lo <= tolerance {
                break;
            }
            let mid = 0.5 * (lo + best.time);
            let found = look(self, mid)?;
            if found.contact.contact.distance > open {
                best = found;
            } else {
                lo = mid;
            }
        }
        Some(best)
    }

    /// Whether the loads in effect on bodies `i` and `j`, in their states `ends` at `t`, drive
    /// them apart along the `closest` points' normal, with their own forces. A pair knocked
    /// loose (a ball on a pile, jostled) but still pressed together by its forces closes again
    /// under them and keeps its load to the tick. A pair whose loads push it apart is driven by
    /// a load that no longer holds anything (the boxes of a chain after an impact, as the links
    /// that pressed them together give way).
    fn pushed_apart(
        &mut self,
        (i, j): (usize, usize),
        closest: &Contact,
        (a, b): (&Kinematics, &Kinematics),
        t: f64,
        context: &StepContext<'_>,
    ) -> bool {
        let states: FxHashMap<usize, Kinematics> = [(i, *a), (j, *b)].into_iter().collect();
        let mut acceleration = |body: usize| {
            if self.bodies[body].immovable(t) {
                return Vector3::zeros();
            }
            let (free, _) = self.free_load(body, t, &states, context);
            (free + self.contacts.force_on(body)) / self.bodies[body].model.mass
        };
        let apart = acceleration(j) - acceleration(i);
        apart.dot(&closest.normal) > 0.0
    }

    /// Solves again, at `time`, the loads of the bodies of pair `(i, j)` that `opened` there
    /// (its states), every other body standing as it is, and asks for the back-up that
    /// restarts them if a load changed. Returns whether it asked for one.
    pub(in super::super) fn reopen(
        &mut self,
        opened: &Found,
        (i, j): (usize, usize),
        context: &mut StepContext<'_>,
    ) -> bool {
        let time = opened.time;
        let only: FxHashSet<usize> = [i, j].into_iter().collect();
        let states: FxHashMap<usize, Kinematics> =
            [(i, opened.a), (j, opened.b)].into_iter().collect();
        let next = self.next_window_end(time);
        let held = self.hold(time, next, Some(&only), &states, context);
        let mut request = BackUp {
            time,
            components: held.components,
            ..BackUp::default()
        };
        self.release(&held.woken, &mut request);
        ask_back_up(request, context)
    }
}
