//! The times at which an equation jumps because a condition on time alone changes: a force
//! written `$t < 0.1 ? 2.0 : 0.0`, a `floor($t)` or an `fmod($t, 2)`. They become breakpoints
//! of the equation's variable, so its component lands on each and restarts there, instead of
//! stepping across a jump that its error control can only shrink the step against (at
//! tolerance 1e-8 the spinning top's kick shrank it below the minimum step).
//!
//! A *switch* is a node whose value is piecewise constant in time, or jumps where such a
//! value changes: a comparison `<`, `<=` (`==` and `!=` hold at single instants, which no step
//! lands on), a rounding function (`floor`, `ceil`, `round`, `int`), the quotient behind
//! `fmod`, and a selection whose condition is not itself a comparison. Its *mode* is that
//! piecewise constant value. Only switches whose argument depends on time and nothing else
//! are found; one that reads the state (`[b y] < 0 ? …`) is an event of the motion, which the
//! error control still has to cross.
//!
//! The mode is sampled at [`SAMPLES`] even intervals over the simulated span; where it
//! differs between the ends of an interval, bisection finds the first time of the new mode to
//! the last bit, and the search goes on from there to the interval's end, so a rounding of a
//! fast-growing argument yields every step of its staircase. A switch that flips and flips
//! back within one interval (`sin(50 * $t) > 0.99`) is missed. At most
//! [`MAX_SWITCHING_TIMES`] times are kept per scene.
//!
//! The breakpoint is the first time of the new mode. A step that ends there evaluates the
//! equations at the time just below it (see `sim::integrate`), which still has the old mode,
//! and the restart there evaluates them with the new one.

use crate::sym::{Binary, Node, Pool, Symbol, Term, Unary};
use std::collections::{HashMap, HashSet};

/// Even intervals over the simulated span at which each switch's mode is sampled.
const SAMPLES: usize = 1024;
/// Switching times kept per scene at most; past them the error control has to step across the
/// rest (each costs a restart, and a staircase like `floor(1e6 * $t)` would be millions).
pub(super) const MAX_SWITCHING_TIMES: usize = 10_000;

/// Finds the switching times of a scene's equations over `[start, end]`, each switch once
/// however many equations share it.
pub(super) struct Switches<'p> {
    pool: &'p Pool,
    time: Symbol,
    start: f64,
    end: f64,
    /// The switching times of every switch met so far.
    known: HashMap<Node, Vec<f64>>,
    count: usize,
}

impl<'p> Switches<'p> {
    pub fn new(pool: &'p Pool, time: Symbol, start: f64, end: f64) -> Switches<'p> {
        Switches {
            pool,
            time,
            start,
            end,
            known: HashMap::new(),
            count: 0,
        }
    }

    /// The times, sorted, at which `root` jumps through a switch on time alone.
    pub fn times(&mut self, root: Node) -> Vec<f64> {
        let mut times = Vec::new();
        if !self.pool.depends_on(root, self.time) {
            return times;
        }
        let mut seen = HashSet::new();
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            if !seen.insert(node) {
                continue;
            }
            if self.is_switch(node) {
                times.extend_from_slice(self.switching_times(node));
            }
            let (pool, time) = (self.pool, self.time);
            pool.for_each_child(node, |child| {
                if pool.depends_on(child, time) {
                    stack.push(child);
                }
            });
        }
        times.sort_by(f64::total_cmp);
        times.dedup();
        times
    }

    /// Whether `node` is a switch (see the module documentation) of time alone.
    fn is_switch(&self, node: Node) -> bool {
        let switching = match self.pool.term(node) {
            Term::Binary(op, ..) => matches!(op, Binary::Lt | Binary::Le | Binary::Fmod),
            Term::Unary(op, _) => {
                matches!(op, Unary::Floor | Unary::Ceil | Unary::Round | Unary::Trunc)
            }
            Term::Select(condition, ..) => !matches!(
                self.pool.term(condition),
                Term::Binary(Binary::Lt | Binary::Le | Binary::Eq | Binary::Ne, ..)
            ),
            _ => false,
        };
        switching && self.pool.symbols(self.argument(node)) == [self.time]
    }

    /// The part of a switch that decides its mode.
    fn argument(&self, node: Node) -> Node {
        match self.pool.term(node) {
            Term::Select(condition, ..) => condition,
            _ => node,
        }
    }

    /// The switch's mode at time `t`: its value, the truncated quotient for `fmod`, the
    /// condition's truth for a selection.
    fn mode(&self, node: Node, t: f64) -> f64 {
        let at = |n: Node| self.pool.eval(n, |_| t);
        match self.pool.term(node) {
            Term::Binary(Binary::Fmod, a, b) => (at(a) / at(b)).trunc(),
            Term::Select(condition, ..) => f64::from(u8::from(at(condition) != 0.0)),
            _ => at(node),
        }
    }

    fn switching_times(&mut self, node: Node) -> &[f64] {
        if !self.known.contains_key(&node) {
            let times = self.find(node);
            self.count += times.len();
            self.known.insert(node, times);
        }
        &self.known[&node]
    }

    /// Samples the mode and bisects every change found (see the module documentation).
    fn find(&self, node: Node) -> Vec<f64> {
        let mut times = Vec::new();
        let same = |a: f64, b: f64| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
        let at = |k: usize| self.start + (self.end - self.start) * k as f64 / SAMPLES as f64;
        let mut before = self.mode(node, self.start);
        for k in 1..=SAMPLES {
            let (mut from, to) = (at(k - 1), at(k));
            let end_mode = self.mode(node, to);
            while !same(before, end_mode) {
                if self.count + times.len() >= MAX_SWITCHING_TIMES {
                    return times;
                }
                // The mode is `before` at `lo` and differs at `hi`: halve to adjacent times.
                let (mut lo, mut hi) = (from, to);
                loop {
                    let mid = lo + 0.5 * (hi - lo);
                    if mid <= lo || mid >= hi {
                        break;
                    }
                    if same(self.mode(node, mid), before) {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
                times.push(hi);
                before = self.mode(node, hi);
                from = hi;
            }
        }
        // The start itself is no switch: the run begins with the mode there.
        times.retain(|&t| t > self.start && t < self.end);
        times
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: Symbol = Symbol(0);
    const X: Symbol = Symbol(1);

    #[test]
    fn a_condition_on_time_switches_at_its_first_new_time() {
        let mut pool = Pool::new();
        let t = pool.symbol(T);
        let tenth = pool.constant(0.1);
        let condition = pool.binary(Binary::Lt, t, tenth);
        let (two, zero) = (pool.constant(2.0), pool.constant(0.0));
        let force = pool.select(condition, two, zero);
        let mut switches = Switches::new(&pool, T, 0.0, 8.0);
        assert_eq!(switches.times(force), vec![0.1]);
        // The time just below is still the old branch.
        let below = f64::from_bits(0.1f64.to_bits() - 1);
        assert_eq!(pool.eval(force, |_| below), 2.0);
        assert_eq!(pool.eval(force, |_| 0.1), 0.0);
    }

    #[test]
    fn a_staircase_yields_every_step_and_state_conditions_none() {
        let mut pool = Pool::new();
        let t = pool.symbol(T);
        let fast = pool.scale(t, 3000.0);
        let stairs = pool.unary(Unary::Floor, fast);
        let mut switches = Switches::new(&pool, T, 0.0, 1.0);
        let times = switches.times(stairs);
        assert_eq!(times.len(), 2999);
        for (k, &time) in times.iter().enumerate() {
            assert_eq!((3000.0 * time).floor(), (k + 1) as f64, "{time}");
        }

        let x = pool.symbol(X);
        let sum = pool.add(t, x);
        let state = pool.binary(Binary::Lt, sum, t);
        let mut switches = Switches::new(&pool, T, 0.0, 1.0);
        assert!(switches.times(state).is_empty());
    }

    #[test]
    fn fmod_switches_where_its_quotient_does() {
        let mut pool = Pool::new();
        let t = pool.symbol(T);
        let two = pool.constant(2.0);
        let saw = pool.binary(Binary::Fmod, t, two);
        let mut switches = Switches::new(&pool, T, 0.0, 7.0);
        assert_eq!(switches.times(saw), vec![2.0, 4.0, 6.0]);
    }
}
