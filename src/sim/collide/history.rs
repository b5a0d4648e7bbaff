//! What the collider keeps as history, undone by back-ups and carried over edits: checked
//! times, swept boxes, collisions, energy records, persistent contacts and their loads.

use super::{Collision, Detector};
use crate::geom::Aabb;
use crate::sim::graph::{ComponentId, Partition};
use nalgebra::Vector3;
use std::collections::HashSet;

impl Detector {
    /// Undoes what a truncation of `component` to `time` invalidates (see
    /// [`StepObserver::truncated`](crate::sim::schedule::StepObserver::truncated)): each of its
    /// bodies' checked time, swept boxes, energy records, contacts and loads after `time`, and
    /// its collisions after `time`, whose partners must be backed up to them (`also`). Gates
    /// the components of bodies a restored load holds (`gates`).
    pub(super) fn truncated(
        &mut self,
        partition: &Partition,
        component: ComponentId,
        time: f64,
        also: &mut Vec<(ComponentId, f64)>,
        gates: &mut Vec<(ComponentId, f64)>,
    ) {
        self.readers.forget(partition.members(component), time);
        for b in self.bodies_of(partition.members(component)) {
            // Undoing the same body to the same time again changes nothing.
            if self.undone.insert(b, time) == Some(time) {
                continue;
            }
            self.motions[b] += 1;
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
            if let Some(gate) = self.contacts_truncated(b, time, reset) {
                gates.extend(
                    self.components_of(b, partition)
                        .into_iter()
                        .map(|c| (c, gate)),
                );
            }
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

    /// Takes over what `old`, whose bodies are now those `map` gives, knew that still holds
    /// (see [`Collider::after_edit`](super::Collider::after_edit)).
    pub(super) fn inherit(
        &mut self,
        old: &Detector,
        map: &[Option<usize>],
        changed: &HashSet<usize>,
        recollide: &HashSet<usize>,
    ) -> Vec<(usize, f64)> {
        // Each old body's index here, if what was checked of it still holds (a body the edit
        // left alone has the shape and fixedness it had, so it was tracked if it is now; `old`
        // has lent its bodies to this detector).
        let kept: Vec<Option<usize>> = map
            .iter()
            .map(|&b| b.filter(|&b| !changed.contains(&b) && self.tracked(b)))
            .collect();
        for (o, b) in kept.iter().enumerate() {
            if let Some(b) = *b {
                self.checked.set(b, old.checked.get(o));
                self.reach.set(b, old.reach.get(o));
            }
        }
        self.known.inherit(&old.known, map, |o| kept[o]);
        let kept = |b: usize| !changed.contains(&b);
        self.contacts = old.contacts.inherit(map, kept);
        for (b, force, torque) in self.contacts.current_loads() {
            self.inputs.set_contact(b, force, torque);
        }
        let fixed_changed = |x: usize| changed.contains(&x) && self.bodies[x].is_fixed();
        // Collisions of these bodies are undone (and computed again after a back-up).
        let void = |x: usize| fixed_changed(x) || recollide.contains(&x);
        self.ledger = old.ledger.inherit(map, void);
        let mut back_ups = Vec::new();
        for r in &old.records {
            match (map[r.bodies.0], map[r.bodies.1]) {
                (Some(a), Some(b)) if !void(a) && !void(b) => {
                    self.records.push(Collision {
                        bodies: (a, b),
                        ..*r
                    });
                }
                // A fixed body moved or went away, or a body collides otherwise now: what
                // bounced off it must move on.
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
        // What those bodies did from then on is undone with the collisions: contacts and
        // loads from that time on, the time itself included.
        for &(b, time) in &back_ups {
            self.contacts_truncated(b, time, true);
        }
        back_ups
    }
}
