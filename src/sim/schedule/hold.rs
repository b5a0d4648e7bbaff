//! Held variables: from the time a back-up holds a variable it keeps its value there, its own
//! equation ignored, until a later back-up releases it. Collision response uses this to put
//! a body at rest on its supports to sleep (see `sim::collide`): a held body costs nothing to
//! integrate and no longer makes a resting hop every few milliseconds.
//!
//! Holds are history like the tracks: backing a variable up to `t` undoes what was decided
//! after `t` — holds begun after `t` are gone, holds released after `t` are held again — and
//! resetting it to the start forgets them all.

use crate::sim::system::{Prescription, VarId};
use std::collections::HashMap;

/// One held interval `[start, end)` at `value` (`end` infinite while not released).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Span {
    start: f64,
    end: f64,
    value: f64,
}

/// Every variable's held intervals, in time order, disjoint.
#[derive(Clone, Debug, Default)]
pub(crate) struct Holds {
    spans: HashMap<VarId, Vec<Span>>,
}

impl Holds {
    /// Holds `var` at `value` from `time` on (nothing changes if it is held at `time`).
    pub(crate) fn hold(&mut self, var: VarId, time: f64, value: f64) {
        if self.is_held(var, time) {
            return;
        }
        let list = self.spans.entry(var).or_default();
        let at = list.partition_point(|s| s.start < time);
        let end = list.get(at).map_or(f64::INFINITY, |next| next.start);
        list.insert(
            at,
            Span {
                start: time,
                end,
                value,
            },
        );
    }

    /// Ends the hold of `var` that covers `time` there.
    pub(crate) fn release(&mut self, var: VarId, time: f64) {
        if let Some(list) = self.spans.get_mut(&var) {
            list.retain_mut(|s| {
                if s.start <= time && time < s.end {
                    s.end = time;
                }
                s.start < s.end
            });
            if list.is_empty() {
                self.spans.remove(&var);
            }
        }
    }

    /// Undoes what was decided about `var` after `time` (or everything, when `reset`).
    /// Returns whether anything changed.
    pub(crate) fn back_up(&mut self, var: VarId, time: f64, reset: bool) -> bool {
        let Some(list) = self.spans.get_mut(&var) else {
            return false;
        };
        let before = list.clone();
        list.retain(|s| !reset && s.start <= time);
        if let Some(last) = list.last_mut() {
            if last.end > time {
                last.end = f64::INFINITY;
            }
        }
        let changed = *list != before;
        if list.is_empty() {
            self.spans.remove(&var);
        }
        changed
    }

    /// Whether `var` is held at `time`.
    pub(crate) fn is_held(&self, var: VarId, time: f64) -> bool {
        self.spans
            .get(&var)
            .is_some_and(|list| list.iter().any(|s| s.start <= time && time < s.end))
    }

    /// Whether `var` is held over all of `[from, to]`, by one hold.
    pub(crate) fn is_held_over(&self, var: VarId, from: f64, to: f64) -> bool {
        self.spans
            .get(&var)
            .is_some_and(|list| list.iter().any(|s| s.start <= from && to < s.end))
    }

    /// Whether `var` was ever held (so its integrator's prescriptions include holds).
    pub(crate) fn has(&self, var: VarId) -> bool {
        self.spans.contains_key(&var)
    }

    /// `var`'s holds as prescriptions of a constant value.
    pub(crate) fn prescriptions(&self, var: VarId) -> impl Iterator<Item = Prescription> + '_ {
        self.spans.get(&var).into_iter().flatten().map(|s| {
            let value = s.value;
            Prescription::new(s.start, s.end, move |_| (value, 0.0))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const X: VarId = VarId(3);

    #[test]
    fn a_hold_lasts_from_its_time_until_released() {
        let mut holds = Holds::default();
        holds.hold(X, 1.0, 5.0);
        assert!(!holds.is_held(X, 0.5));
        assert!(holds.is_held(X, 1.0) && holds.is_held(X, 100.0));
        holds.release(X, 2.0);
        assert!(holds.is_held(X, 1.5) && !holds.is_held(X, 2.0));
        let spans: Vec<(f64, f64)> = holds
            .prescriptions(X)
            .map(|p| (p.start(), p.end()))
            .collect();
        assert_eq!(spans, vec![(1.0, 2.0)]);
        assert_eq!(holds.prescriptions(X).next().unwrap().eval(1.7), (5.0, 0.0));
    }

    #[test]
    fn backing_up_undoes_later_holds_and_releases() {
        let mut holds = Holds::default();
        holds.hold(X, 1.0, 5.0);
        holds.release(X, 2.0);
        holds.hold(X, 3.0, 6.0);
        assert!(holds.back_up(X, 2.5, false));
        // The hold from 3 is undone; the release at 2 stands.
        assert!(!holds.is_held(X, 3.5));
        assert!(holds.is_held(X, 1.5) && !holds.is_held(X, 2.2));
        // Backing up to before the release holds the variable on again.
        assert!(holds.back_up(X, 1.5, false));
        assert!(holds.is_held(X, 10.0));
        assert!(!holds.back_up(X, 1.5, false));
        assert!(holds.back_up(X, 0.0, true));
        assert!(!holds.has(X));
    }

    #[test]
    fn releasing_at_the_holds_own_time_leaves_nothing() {
        let mut holds = Holds::default();
        holds.hold(X, 1.0, 5.0);
        holds.release(X, 1.0);
        assert!(!holds.has(X));
    }
}
