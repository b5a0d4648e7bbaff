//! The checks of time windows: which bodies are checked when, the window grid, contact ticks,
//! and one window's check from the broad phase to the instants it resolves.
//!
//! Windows end on a fixed grid, one check window apart from the start: a window `[t0, t1]`
//! runs from where the bodies least far checked stand to the next grid point, once every body
//! is computed up to it. After a collision at `t` only the bodies it backed up are checked
//! again, from `t` to the grid point every other body is checked to, so the cost of a
//! collision follows its own island rather than the whole scene, and a scene is checked in the
//! same windows whatever happens elsewhere in it. Within a window the bodies that can touch
//! form islands (the candidate pairs, persistent contacts and bodies whose loads read each
//! other, joined by union-find); each island resolves its own earliest instant.

use super::bodies::Kinematics;
use super::instant::Around;
use super::islands::Islands;
use super::narrow::{first_contact, ApproachBound, Found, Pair};
use super::scratch::PerBody;
use super::searched::{Searched, Watch};
use super::{CollisionBody, Detector, DISTANCE_TOLERANCE, NO_BODY, SPARSE_ACTIVE, TIME_TOLERANCE};
use crate::geom::Aabb;
use crate::lang::fxhash::{FxHashMap, FxHashSet};
use crate::sim::physics::BODY_VARIABLES;
use crate::sim::schedule::{StepContext, StepReport};
use nalgebra::Vector3;

impl Detector {
    /// After a step: notes how far the stepped bodies are computed, then runs every contact
    /// tick and checks every window that is due.
    pub(super) fn stepped(&mut self, step: &StepReport, context: &mut StepContext<'_>) {
        let partition = context.partition();
        let next = self.next_window_end(self.checked.min()).min(self.end);
        self.readers.offer(
            partition.members(step.component),
            &context.track(step.component),
            next,
        );
        let mut last = None;
        for var in partition.members(step.component) {
            let Some(&b) = self.body_of_var.get(var.index()).filter(|&&b| b != NO_BODY) else {
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
        self.advance(context);
    }

    /// Runs the contact ticks and window checks that are due, until one asks for a back-up
    /// (the simulation must apply it and compute on first) or a body is not computed far
    /// enough. Returns whether anything asked for a back-up.
    pub(super) fn advance(&mut self, context: &mut StepContext<'_>) -> bool {
        loop {
            let t0 = self.checked.min();
            if t0 >= self.end {
                return false;
            }
            if self.tick_due(t0, context) {
                if self.tick(t0, context) {
                    return true;
                }
                continue;
            }
            let full = self.next_window_end(t0).min(self.end);
            let t1 = full.min(self.reach.min());
            if t1 < full {
                return false;
            }
            if self.check(t0, t1, context) {
                return true;
            }
        }
    }

    /// The index of grid point `k` (the start, plus `k` check windows).
    fn grid(&self, k: f64) -> f64 {
        self.start + k * self.window
    }

    /// Whether `t` is a point of the window grid.
    pub(super) fn on_grid(&self, t: f64) -> bool {
        self.grid(((t - self.start) / self.window).round()) == t
    }

    /// The last grid point at or before `t`.
    pub(super) fn grid_at_or_before(&self, t: f64) -> f64 {
        let mut k = ((t - self.start) / self.window).floor().max(0.0);
        while self.grid(k + 1.0) <= t {
            k += 1.0;
        }
        while k > 0.0 && self.grid(k) > t {
            k -= 1.0;
        }
        self.grid(k)
    }

    /// The end of the window starting at `t0`: the first grid point after it.
    pub(super) fn next_window_end(&self, t0: f64) -> f64 {
        let at = self.grid_at_or_before(t0);
        let k = ((at - self.start) / self.window).round();
        self.grid(k + 1.0)
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

    /// Checks the window `[t0, t1]` for the bodies not yet checked to `t1`: finds each
    /// candidate pair's first contact, and resolves the earliest instant of each island.
    /// Returns whether it asked for a back-up.
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
            let from = self.checked.get(i).min(self.checked.get(j)).max(t0);
            if self.sleeps_over(i, from, t1, context) && self.sleeps_over(j, from, t1, context) {
                continue;
            }
            // A persistent pair is the contact forces' to keep apart: it is checked only for
            // sinking into each other past the guard depth (see `contact`), and, while a load
            // holds it, for coming apart (see `contact::opens`).
            let held = self.contacts.holds(i, j);
            let motions = (self.motions[i], self.motions[j]);
            if held {
                // An opening search kept from an earlier check of this window holds while
                // neither body's motion nor the pair's load has changed.
                let watch = self.opening_watch((i, j));
                let kept = self.searched.get(&(i, j));
                let answer = watch.and_then(|w| kept?.answer(from, t1, w, motions));
                if let Some(answer) = answer {
                    found.extend(answer.map(|f| (f, i, j)));
                    continue;
                }
                let Some(closest) = self.closest_at(i, j, (&a1, &b1)) else {
                    continue;
                };
                if closest.contact.distance >= -self.guard_depth(i, j) {
                    let (ends, tolerance) = ((&a1, &b1), TIME_TOLERANCE * span);
                    let opened = self.opening(
                        (i, j),
                        &closest.contact,
                        ends,
                        (from, t1),
                        tolerance,
                        context,
                    );
                    found.extend(opened.map(|f| (f, i, j)));
                    if let Some(watch) = watch {
                        let searched = Searched {
                            from,
                            to: t1,
                            watch,
                            motions,
                            found: opened,
                        };
                        self.searched.insert((i, j), searched);
                    }
                    continue;
                }
            }
            let (a, b) = (&self.bodies[i], &self.bodies[j]);
            let reach = a.reach + b.reach;
            let pair = Pair {
                a,
                b,
                speed: ApproachBound::new(a, (&a0, &a1), b, (&b0, &b1), t1 - t0),
                tolerance: if held {
                    -self.guard_depth(i, j)
                } else {
                    DISTANCE_TOLERANCE * reach
                },
                time_tolerance: TIME_TOLERANCE * span,
                approach_tolerance: self.approach_tolerance(i, j),
                known: [(t0, a0, b0), (t1, a1, b1)],
            };
            let watch = if held { Watch::Sinking } else { Watch::Contact };
            let kept = self.searched.get(&(i, j));
            if let Some(answer) = kept.and_then(|s| s.answer(from, t1, watch, motions)) {
                found.extend(answer.map(|f| (f, i, j)));
                continue;
            }
            let cache = self.caches.entry((i, j)).or_default();
            let readers = self.readers.two(i, j);
            let first = first_contact(&pair, context, (from, t1), readers, cache);
            found.extend(first.map(|f| (f, i, j)));
            let searched = Searched {
                from,
                to: t1,
                watch,
                motions,
                found: first,
            };
            self.searched.insert((i, j), searched);
        }
        found.sort_by(|x, y| x.0.time.total_cmp(&y.0.time));

        for &b in &active {
            if let (true, Some(Some((s0, s1)))) = (self.tracked(b), ends.get(b)) {
                let swept = swept_box(self.bodies[b].reach, s0, s1, t1 - t0);
                self.known.record(b, t0, t1, swept);
            }
        }
        // Each island resolves its own earliest instant; its bodies are held back to it (or,
        // for the bodies of its later contacts, to those), the others move on to `t1`.
        let mut islands = std::mem::take(&mut self.islands);
        self.join_islands(&mut islands, &pairs, &found);
        let groups = islands.group(&found, |f| f.1);
        islands.clear();
        self.islands = islands;
        let mut held: FxHashMap<usize, f64> = FxHashMap::default();
        let mut applied = false;
        let around = Around::new(&pairs);
        for group in groups {
            let Some((time, instant)) = self.first_event(&group, &around, span, context) else {
                continue;
            };
            applied = true;
            for (f, i, j) in &group {
                if f.time > time {
                    for b in [*i, *j] {
                        let checked = self.checked.get(b);
                        let at = held
                            .entry(b)
                            .or_insert(if checked < t1 { t1 } else { checked });
                        *at = at.min(f.time);
                    }
                }
            }
            for (i, j) in instant {
                held.insert(i, time);
                held.insert(j, time);
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
        applied
    }

    /// Handles the earliest event of one island's `group` (its contacts and loaded pairs come
    /// apart, sorted by time) that changes anything: an instant of collisions (see
    /// `respond`) or a pair that opened (see `contact::opens`). Returns its time and pairs.
    fn first_event(
        &mut self,
        group: &[(Found, usize, usize)],
        around: &Around<'_>,
        span: f64,
        context: &mut StepContext<'_>,
    ) -> Option<(f64, Vec<(usize, usize)>)> {
        let mut rest = group;
        while !rest.is_empty() {
            let contacts = rest.iter().take_while(|f| !f.0.opens).count();
            let (before, after) = rest.split_at(contacts);
            if let Some(event) = self.respond(before, around, span * TIME_TOLERANCE, context) {
                return Some(event);
            }
            let &(opened, i, j) = after.first()?;
            if self.reopen(&opened, (i, j), context) {
                return Some((opened.time, vec![(i, j)]));
            }
            rest = &after[1..];
        }
        None
    }

    /// Joins into `islands` the bodies of a window that its candidate `pairs`, persistent
    /// contacts and loads reading another body (a back-up of one truncates the other) join,
    /// so that resolving one island's instant never touches another's bodies.
    fn join_islands(
        &self,
        islands: &mut Islands,
        pairs: &[(usize, usize)],
        found: &[(Found, usize, usize)],
    ) {
        for &(i, j) in pairs {
            islands.join(i, j);
        }
        let mut seen: FxHashSet<usize> = FxHashSet::default();
        let mut next: Vec<usize> = found.iter().flat_map(|&(_, i, j)| [i, j]).collect();
        next.extend(pairs.iter().flat_map(|&(i, j)| [i, j]));
        while let Some(b) = next.pop() {
            if !seen.insert(b) {
                continue;
            }
            let touching = self
                .contacts
                .pairs_of(b)
                .map(|(i, j)| if i == b { j } else { i });
            let linked = touching
                .chain(self.free.reads(b).iter().copied())
                .chain(self.free.read_by(b).iter().copied());
            for other in linked {
                if other != b && !self.bodies[other].is_fixed() {
                    islands.join(b, other);
                    next.push(other);
                }
            }
        }
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
        let mut boxes: FxHashMap<usize, Aabb> = FxHashMap::default();
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
}

/// Whether bodies `i` and `j` can collide at all: both have shapes, one moves, and they are not
/// directly linked parts of one articulated body (`linked`).
fn may_collide(
    bodies: &[CollisionBody],
    linked: &FxHashSet<(usize, usize)>,
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
pub(super) type Ends = Option<(Kinematics, Kinematics)>;

/// A box holding body's shape over an interval: its bounding sphere about the centre of mass
/// at both ends, grown by how far the interpolated path can bow out between them. The tracks
/// interpolate by cubics through the end positions with the end velocities as slopes, which
/// stray from the chord `c` by at most `h/4 · max(|v0 − c|, |v1 − c|)` (see
/// `sim::track::Cubic`); under a steady change of velocity that is `|Δv| h / 8`.
fn swept_box(reach: f64, s0: &Kinematics, s1: &Kinematics, duration: f64) -> Aabb {
    let sphere =
        |p: &Vector3<f64>| Aabb::new(p - Vector3::repeat(reach), p + Vector3::repeat(reach));
    let chord = if duration > 0.0 {
        (s1.position - s0.position) / duration
    } else {
        Vector3::zeros()
    };
    let bow = (s0.velocity - chord)
        .norm()
        .max((s1.velocity - chord).norm())
        * duration
        / 4.0;
    sphere(&s0.position)
        .union(&sphere(&s1.position))
        .expanded(bow + 1e-9 * reach)
}
