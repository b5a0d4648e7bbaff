//! The work each force, torque, link, push and pull of a scene does on the bodies over their
//! computed motion: one line of the energy ledger per element (see
//! [`crate::sim::energy`]).
//!
//! Every element keeps, per body it acts on, the force at the centre of mass and the torque
//! about it (an offset force's torque `d × F`, a link's force at its attachment point) as
//! nodes of the scene's pool. Its work over a motion is its power `F·v + τ·ω` summed over the
//! intervals between the bodies' computed points by Simpson's rule, the state halfway read
//! from the tracks' cubics. That is fourth order, as the tracks are; the trapezoidal sum it
//! replaces (average force times displacement) was second order, which matched the
//! dissertation's trapezoidal integrator step for step but not a fourth-order one: under
//! ESDIRK4's longer steps it put 2.3e-2 of the pendulum's energy scale into the drift. It
//! still makes a constant force's work exactly minus the change of its potential energy as
//! the output shows it (Simpson's rule integrates the velocity's cubic exactly, and that
//! integral is the position cubic's change), so a ledger of kinetic energy plus this work
//! accounts for the energy a reader computes from the
//! sampled motion, and the integrator's own error is what remains.

use super::bodies::Bodies;
use super::body::{BodyModel, BODY_VARIABLES};
use super::interaction::InteractionInputs;
use super::layout::slot_holding;
use super::symbols::{state, Channel, Meaning, SymbolTable};
use super::trajectory::Curves;
use crate::lang::span::Span;
use crate::sim::integrate::just_below;
use crate::sim::motion::Tracks;
use crate::sim::track::{Cursor, Side};
use crate::sim::VarId;
use crate::sym::{Node, Pool, Symbol, Tape, Vec3, Workspace};
use nalgebra::Vector3;
use std::collections::HashSet;

/// What kind of scene element does the work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElementKind {
    Force,
    Torque,
    Link,
    /// Live mode's push on a body.
    Push,
    /// Live mode's pull spring.
    Pull,
}

impl ElementKind {
    pub fn name(self) -> &'static str {
        match self {
            ElementKind::Force => "force",
            ElementKind::Torque => "torque",
            ElementKind::Link => "link",
            ElementKind::Push => "push",
            ElementKind::Pull => "pull",
        }
    }
}

/// One element's load on one moving body: the force at its centre of mass and the torque
/// about it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Load {
    /// The body's slot (see [`layout`](super::layout)), which stays the body's across edits:
    /// an edit that moves bodies in the text leaves the loads as they are, where renumbering
    /// every element's parts cost a cache miss per element ([`Evaluation::body`] finds the
    /// body).
    pub slot: usize,
    pub force: Vec3,
    pub torque: Vec3,
}

/// Where a scene element that does work is in the scene: the force, the link, or the body
/// (pushes and pulls). Ordered as a model lists them: forces, then links, then bodies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Source {
    Force(usize),
    Link(usize),
    Body(usize),
}

/// A scene element that does work, and its loads.
#[derive(Clone, Debug)]
pub(crate) struct WorkElement {
    pub kind: ElementKind,
    pub source: Source,
    pub parts: Vec<Load>,
}

/// The work one element did.
#[derive(Clone, Debug, PartialEq)]
pub struct Work {
    pub kind: ElementKind,
    pub span: Option<Span>,
    /// Names of the bodies it acts on.
    pub bodies: Vec<String>,
    /// Joules.
    pub work: f64,
}

/// What evaluating an element's loads needs besides the motion.
pub(crate) struct Evaluation<'a> {
    pub pool: &'a Pool,
    pub symbols: &'a SymbolTable,
    pub curves: &'a Curves,
    pub inputs: &'a InteractionInputs,
    pub bodies: &'a Bodies,
    /// The body of each slot (`None` for an unused one), whose block of [`BODY_VARIABLES`]
    /// state variables it holds: read for a variable's body rather than spread over every
    /// variable (a table of 13,000 made at every update was a fiftieth of the first one).
    pub slots: &'a [Option<usize>],
}

impl Evaluation<'_> {
    /// The body a load acts on.
    pub(crate) fn body(&self, load: &Load) -> usize {
        self.slots[load.slot].expect("a load's slot holds a moving body")
    }

    /// The body whose state variable `var` is (`None` for the variables of no body).
    fn owner(&self, var: VarId) -> Option<usize> {
        *self.slots.get(slot_holding(var))?
    }
}

impl WorkElement {
    /// The work this element did from the start of `tracks` to `until` (or to where the motion
    /// is computed, if earlier). Fixed bodies do no work and get no parts. The element keeps
    /// no span (every edit before its command would move it): [`Model::work`] gives the
    /// command's, read from the scene.
    ///
    /// [`Model::work`]: super::Model::work
    pub(crate) fn work(&self, eval: &Evaluation<'_>, tracks: &Tracks, until: f64) -> Work {
        let names = self
            .parts
            .iter()
            .map(|p| eval.bodies[eval.body(p)].name.clone())
            .collect();
        let work = match Loads::compile(&self.parts, eval) {
            Some(mut loads) => loads.work(self, eval, tracks, until),
            None => 0.0,
        };
        Work {
            kind: self.kind,
            span: None,
            bodies: names,
            work,
        }
    }
}

/// Loads compiled into one tape: its arguments are time, the state variables of the bodies
/// they read (thirteen each: the parts' bodies first, in part order, then any other body the
/// expressions read, each once), then the channels and external inputs they read; its outputs
/// are each part's force and torque.
struct Loads {
    tape: Tape,
    workspace: Workspace,
    /// The bodies whose states are arguments.
    reads: Vec<usize>,
    /// Per part: the index in `reads` of its body.
    part_reads: Vec<usize>,
    arguments: Vec<f64>,
    outputs: Vec<f64>,
    channels: Vec<Channel>,
    /// Argument slot and input index of each external input read.
    external: Vec<(usize, usize)>,
}

impl Loads {
    fn compile(parts: &[Load], eval: &Evaluation<'_>) -> Option<Loads> {
        let roots: Vec<Node> = parts
            .iter()
            .flat_map(|p| p.force.to_array().into_iter().chain(p.torque.to_array()))
            .collect();
        if roots.is_empty() {
            return None;
        }
        let mut pool = Pool::new();
        let outputs = pool.import(eval.pool, &roots);
        let mut reads: Vec<usize> = Vec::new();
        let mut part_reads = Vec::with_capacity(parts.len());
        for part in parts {
            part_reads.push(
                reads
                    .iter()
                    .position(|&b| b == eval.body(part))
                    .unwrap_or_else(|| {
                        reads.push(eval.body(part));
                        reads.len() - 1
                    }),
            );
        }
        for &node in &outputs {
            for &symbol in pool.symbols(node) {
                if let Meaning::State(var) = eval.symbols.meaning(symbol) {
                    let body = eval.owner(var)?;
                    if !reads.contains(&body) {
                        reads.push(body);
                    }
                }
            }
        }
        let mut slots: Vec<(Symbol, usize)> = Vec::new();
        for (k, &body) in reads.iter().enumerate() {
            let vars = eval.bodies[body].vars?;
            for offset in 0..BODY_VARIABLES {
                slots.push((state(vars.at(offset)), 1 + k * BODY_VARIABLES + offset));
            }
        }
        let mut channels: Vec<(Symbol, Channel)> = Vec::new();
        let mut external: Vec<(Symbol, usize)> = Vec::new();
        for &node in &outputs {
            for &symbol in pool.symbols(node) {
                match eval.symbols.meaning(symbol) {
                    Meaning::Channel(k) if !channels.iter().any(|&(s, _)| s == symbol) => {
                        channels.push((symbol, eval.symbols.channels()[k]));
                    }
                    Meaning::Input(k) if !external.iter().any(|&(s, _)| s == symbol) => {
                        external.push((symbol, k));
                    }
                    _ => {}
                }
            }
        }
        let first_channel = 1 + reads.len() * BODY_VARIABLES;
        let first_external = first_channel + channels.len();
        let next = first_external + external.len();
        slots.extend(
            channels
                .iter()
                .enumerate()
                .map(|(j, &(s, _))| (s, first_channel + j)),
        );
        slots.extend(
            external
                .iter()
                .enumerate()
                .map(|(j, &(s, _))| (s, first_external + j)),
        );
        let channels = channels.into_iter().map(|(_, c)| c).collect();
        let external = external
            .into_iter()
            .enumerate()
            .map(|(j, (_, k))| (first_external + j, k))
            .collect();
        let slot_of = |symbol: Symbol| match eval.symbols.meaning(symbol) {
            Meaning::Time => Some(0),
            _ => slots.iter().find(|&&(s, _)| s == symbol).map(|&(_, k)| k),
        };
        let tape = Tape::compile(&pool, &outputs, slot_of).ok()?;
        Some(Loads {
            workspace: tape.workspace(),
            arguments: vec![0.0; next],
            outputs: vec![0.0; tape.outputs()],
            tape,
            reads,
            part_reads,
            channels,
            external,
        })
    }

    /// The element's force and torque on each part at `t`, from the raw states of the bodies
    /// it reads.
    fn evaluate(
        &mut self,
        t: f64,
        states: &[[f64; BODY_VARIABLES]],
        curves: &Curves,
        inputs: &InteractionInputs,
    ) {
        self.arguments[0] = t;
        for (k, values) in states.iter().enumerate() {
            let at = 1 + k * BODY_VARIABLES;
            self.arguments[at..at + BODY_VARIABLES].copy_from_slice(values);
        }
        let first_channel = 1 + states.len() * BODY_VARIABLES;
        curves.channel_values(
            &self.channels,
            t,
            &mut self.arguments[first_channel..first_channel + self.channels.len()],
        );
        for &(slot, k) in &self.external {
            self.arguments[slot] = inputs.get(k);
        }
        if self
            .tape
            .eval(&self.arguments, &mut self.outputs, &mut self.workspace)
            .is_err()
        {
            self.outputs.fill(0.0);
        }
    }

    fn work(
        &mut self,
        element: &WorkElement,
        eval: &Evaluation<'_>,
        tracks: &Tracks,
        until: f64,
    ) -> f64 {
        let times = merged_times(&self.reads, eval, tracks, until);
        let mut cursors = vec![[Cursor::default(); BODY_VARIABLES]; self.reads.len()];
        let mut states = vec![[0.0; BODY_VARIABLES]; self.reads.len()];
        let mut middle = states.clone();
        let mut middle_cursors = cursors.clone();
        // The last point's time and power.
        let mut previous: Option<(f64, f64)> = None;
        let mut total = 0.0;
        for (time, side) in times {
            if !self.read_states(eval, tracks, time, side, &mut cursors, &mut states) {
                break;
            }
            if let Some((t0, power0)) = previous {
                let dt = time - t0;
                if dt > 0.0 {
                    // Simpson's rule on the power, with the state halfway read from the
                    // tracks' cubics: fourth order, as the tracks are, and a constant
                    // force's work is still exactly minus the change of its potential as the
                    // output's positions show it (Simpson's rule integrates the velocity's
                    // cubic exactly, and that integral is the position cubic's change). The
                    // loads at the interval's end as its step saw them: a step that lands on
                    // a switch of time evaluates its end just below it (`sim::integrate`),
                    // where a force switched off there still acts.
                    let half = t0 + dt / 2.0;
                    middle_cursors.copy_from_slice(&cursors);
                    if !self.read_states(
                        eval,
                        tracks,
                        half,
                        Side::After,
                        &mut middle_cursors,
                        &mut middle,
                    ) {
                        break;
                    }
                    let power_half = self.power(element, eval, half, &middle);
                    let power1 = self.power(element, eval, just_below(time), &states);
                    total += (power0 + 4.0 * power_half + power1) * dt / 6.0;
                }
            }
            let power = self.power(element, eval, time, &states);
            previous = Some((time, power));
        }
        total
    }

    /// Reads the raw states of the bodies the loads read at `time` into `states`; false where
    /// some body is not computed there.
    fn read_states(
        &self,
        eval: &Evaluation<'_>,
        tracks: &Tracks,
        time: f64,
        side: Side,
        cursors: &mut [[Cursor; BODY_VARIABLES]],
        states: &mut [[f64; BODY_VARIABLES]],
    ) -> bool {
        self.reads
            .iter()
            .zip(cursors)
            .zip(states)
            .all(|((&body, cursors), values)| {
                raw_state(tracks, &eval.bodies[body], time, side, cursors, values)
            })
    }

    /// The power of `element`'s loads at `t` with the bodies in `states`: each part's force
    /// times its body's velocity plus its torque times the body's angular velocity.
    fn power(
        &mut self,
        element: &WorkElement,
        eval: &Evaluation<'_>,
        t: f64,
        states: &[[f64; BODY_VARIABLES]],
    ) -> f64 {
        self.evaluate(t, states, eval.curves, eval.inputs);
        (0..element.parts.len())
            .map(|k| {
                let body = &eval.bodies[eval.body(&element.parts[k])];
                let (force, torque) = load(&self.outputs, k);
                let state = body.state_of(&states[self.part_reads[k]]).0;
                force.dot(&state.velocity) + torque.dot(&state.angular_velocity)
            })
            .sum()
    }
}

/// Every element's load on each moving body, summed: what acts on the body besides its
/// contacts, at any state. The contact solver balances it, so it must be exact at the
/// instant of the solve, not an estimate from the motion before (a spring pressing a ball
/// into a wall changes as the ball moves, and an impact just before a tick hides it).
pub(crate) struct FreeLoads {
    /// By body: the tape of every element part acting on it; `None` for a body nothing acts
    /// on and for fixed bodies. Boxed, so that an update that takes the unchanged bodies'
    /// loads over moves a pointer per body rather than the loads themselves.
    by_body: Vec<Option<Box<Loads>>>,
    /// By body: the other bodies whose loads read its state.
    read_by: Vec<Vec<usize>>,
    curves: Curves,
    inputs: InteractionInputs,
}

/// The loads of an earlier version of a scene, for [`FreeLoads::compile`] to take the
/// compiled loads of the bodies an edit left alone from.
pub(crate) struct Reuse<'a> {
    pub earlier: &'a mut FreeLoads,
    /// Each earlier body's index now (`None` if deleted).
    pub map: &'a [Option<usize>],
    /// The bodies (indices now) whose loads the edit changed.
    pub changed: &'a HashSet<usize>,
}

impl FreeLoads {
    /// Compiles every body's loads; with `reuse`, takes the earlier loads of each body it does
    /// not name as changed instead (they read the same variables).
    pub(crate) fn compile(
        works: &[WorkElement],
        eval: &Evaluation<'_>,
        reuse: Option<Reuse<'_>>,
    ) -> FreeLoads {
        match reuse {
            Some(reuse) if keeps_places(reuse.map) => FreeLoads::splice(works, eval, reuse),
            reuse => FreeLoads::compile_moved(works, eval, reuse),
        }
    }

    /// [`compile`](Self::compile) when every earlier body kept its index (an edit in place,
    /// or bodies added at the end): the earlier lists are taken over and only the changed and
    /// added bodies' entries are made again, so that the bodies the edit left alone are not
    /// visited (each body's loads are a box apart: a cache miss or two each, a tenth of the
    /// first update after adding a body to 1,000).
    fn splice(works: &[WorkElement], eval: &Evaluation<'_>, reuse: Reuse<'_>) -> FreeLoads {
        let n = eval.bodies.len();
        let mut by_body = std::mem::take(&mut reuse.earlier.by_body);
        let mut read_by = std::mem::take(&mut reuse.earlier.read_by);
        let kept = by_body.len();
        let mut anew: Vec<usize> = (reuse.changed.iter().copied())
            .filter(|&b| b < kept)
            .chain(kept..n)
            .collect();
        anew.sort_unstable();
        anew.dedup();
        // What the changed bodies' earlier loads read reads them no more.
        for &b in anew.iter().filter(|&&b| b < kept) {
            for &r in by_body[b].iter().flat_map(|l| &l.reads) {
                if r != b {
                    read_by[r].retain(|&x| x != b);
                }
            }
        }
        by_body.resize_with(n, || None);
        read_by.resize_with(n, Vec::new);
        let mut parts: Vec<Vec<Load>> = vec![Vec::new(); anew.len()];
        for part in works.iter().flat_map(|w| w.parts.iter().copied()) {
            if let Ok(k) = anew.binary_search(&eval.body(&part)) {
                parts[k].push(part);
            }
        }
        for (&b, parts) in anew.iter().zip(&parts) {
            by_body[b] = Loads::compile(parts, eval).map(Box::new);
            for &r in by_body[b].iter().flat_map(|l| &l.reads) {
                // In body order, as `compile_moved` makes the lists.
                let list = &mut read_by[r];
                let at = list.partition_point(|&x| x < b);
                if r != b && list.get(at) != Some(&b) {
                    list.insert(at, b);
                }
            }
        }
        FreeLoads {
            by_body,
            read_by,
            curves: eval.curves.clone(),
            inputs: eval.inputs.clone(),
        }
    }

    /// [`compile`](Self::compile) in general: every body's entry made again, the earlier
    /// loads of the bodies `reuse` keeps renumbered to their places now where they read a
    /// body that moved, and the earlier read-by lists renumbered for them (their boxes are
    /// visited at most once).
    fn compile_moved(
        works: &[WorkElement],
        eval: &Evaluation<'_>,
        mut reuse: Option<Reuse<'_>>,
    ) -> FreeLoads {
        let n = eval.bodies.len();
        let mut taken: Vec<Option<Option<Box<Loads>>>> = (0..n).map(|_| None).collect();
        if let Some(reuse) = reuse.as_mut() {
            // Only the loads that read a body whose index changed need renumbering: that
            // body's own and its readers' (its read-by list names them). The others' boxes
            // are moved without being visited (a cache miss or two each: a tenth of the first
            // update after adding a body before the last of 1,000).
            let mut renumber = vec![false; reuse.map.len()];
            for (r, &to) in reuse.map.iter().enumerate() {
                if to != Some(r) {
                    renumber[r] = true;
                    for &b in reuse.earlier.read_by.get(r).into_iter().flatten() {
                        renumber[b] = true;
                    }
                }
            }
            for (old, &new) in reuse.map.iter().enumerate() {
                let Some(new) = new.filter(|b| !reuse.changed.contains(b)) else {
                    continue;
                };
                let Some(slot) = reuse.earlier.by_body.get_mut(old) else {
                    continue;
                };
                let mut loads = slot.take();
                // Renumbered in place (loads reading a body that went away are compiled anew).
                let moved = !renumber[old]
                    || loads.as_mut().is_none_or(|l| {
                        l.reads
                            .iter_mut()
                            .all(|r| reuse.map[*r].map(|to| *r = to).is_some())
                    });
                if moved {
                    taken[new] = Some(loads);
                }
            }
        }
        let kept: Vec<bool> = taken.iter().map(Option::is_some).collect();
        let mut parts: Vec<Vec<Load>> = vec![Vec::new(); n];
        for part in works.iter().flat_map(|w| w.parts.iter().copied()) {
            let body = eval.body(&part);
            if !kept[body] {
                parts[body].push(part);
            }
        }
        let by_body: Vec<Option<Box<Loads>>> = parts
            .iter()
            .zip(taken)
            .map(|(parts, taken)| {
                taken.unwrap_or_else(|| Loads::compile(parts, eval).map(Box::new))
            })
            .collect();
        let mut read_by: Vec<Vec<usize>> = vec![Vec::new(); n];
        // The loads taken over read what they read before, renumbered.
        if let Some(reuse) = &reuse {
            for (r, list) in reuse.earlier.read_by.iter().enumerate() {
                let Some(now) = reuse.map[r] else {
                    continue;
                };
                let readers = list
                    .iter()
                    .filter_map(|&b| reuse.map[b].filter(|&b| kept[b]));
                read_by[now].extend(readers);
            }
        }
        for b in (0..n).filter(|&b| !kept[b]) {
            for &r in by_body[b].iter().flat_map(|l| &l.reads) {
                if r != b {
                    read_by[r].push(b);
                }
            }
        }
        // In body order, each once (a load's reads are distinct).
        for list in read_by.iter_mut().filter(|l| l.len() > 1) {
            list.sort_unstable();
        }
        FreeLoads {
            by_body,
            read_by,
            curves: eval.curves.clone(),
            inputs: eval.inputs.clone(),
        }
    }

    /// The other bodies whose loads read body `body`'s state.
    pub(crate) fn read_by(&self, body: usize) -> &[usize] {
        self.read_by.get(body).map_or(&[], Vec::as_slice)
    }

    /// The bodies whose states body `body`'s load reads, itself first (empty when nothing
    /// acts on it).
    pub(crate) fn reads(&self, body: usize) -> &[usize] {
        self.by_body
            .get(body)
            .and_then(Option::as_ref)
            .map_or(&[], |loads| &loads.reads)
    }

    /// The force on body `body` at its centre of mass and the torque about it at time `t`,
    /// the bodies of [`FreeLoads::reads`] having the state variables `states`.
    pub(crate) fn load(
        &mut self,
        body: usize,
        t: f64,
        states: &[[f64; BODY_VARIABLES]],
    ) -> (Vector3<f64>, Vector3<f64>) {
        let Some(Some(loads)) = self.by_body.get_mut(body) else {
            return (Vector3::zeros(), Vector3::zeros());
        };
        loads.evaluate(t, states, &self.curves, &self.inputs);
        (0..loads.part_reads.len())
            .map(|k| load(&loads.outputs, k))
            .fold((Vector3::zeros(), Vector3::zeros()), |(f, m), (df, dm)| {
                (f + df, m + dm)
            })
    }
}

/// Part `k`'s force and torque in a tape's outputs.
fn load(outputs: &[f64], k: usize) -> (Vector3<f64>, Vector3<f64>) {
    let at = 6 * k;
    (
        Vector3::new(outputs[at], outputs[at + 1], outputs[at + 2]),
        Vector3::new(outputs[at + 3], outputs[at + 4], outputs[at + 5]),
    )
}

/// The times at which any variable of `bodies` was computed up to `until` (and `until` itself
/// when it falls between two points), each
/// jump as two entries (before, then after).
fn merged_times(
    bodies: &[usize],
    eval: &Evaluation<'_>,
    tracks: &Tracks,
    until: f64,
) -> Vec<(f64, Side)> {
    let mut times: Vec<(f64, bool)> = Vec::new();
    let mut end = until;
    let mut seen = Vec::new();
    for &body in bodies {
        let Some(vars) = eval.bodies[body].vars else {
            continue;
        };
        for offset in 0..BODY_VARIABLES {
            let Some((c, _)) = tracks.location(vars.at(offset)) else {
                continue;
            };
            if seen.contains(&c) {
                continue;
            }
            seen.push(c);
            let track = tracks.read(c);
            end = end.min(track.end_time());
            let t = track.times();
            times.extend(
                t.iter()
                    .enumerate()
                    .map(|(i, &time)| (time, t.get(i + 1) == Some(&time))),
            );
        }
    }
    times.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut merged: Vec<(f64, bool)> = Vec::with_capacity(times.len());
    for (time, jump) in times {
        match merged.last_mut() {
            Some(last) if last.0 == time => last.1 |= jump,
            _ if time <= end => merged.push((time, jump)),
            _ => {}
        }
    }
    let mut out = Vec::with_capacity(merged.len() + 8);
    for (time, jump) in merged {
        if jump {
            out.push((time, Side::Before));
        }
        out.push((time, Side::After));
    }
    // The ledger's end between two points: the work up to it, as the kinetic energy is read
    // there.
    if out.last().is_some_and(|&(last, _)| last < end) && end.is_finite() {
        out.push((end, Side::After));
    }
    out
}

/// The raw values of `body`'s thirteen variables at `t` (a fixed body's are never read).
fn raw_state(
    tracks: &Tracks,
    body: &BodyModel,
    t: f64,
    side: Side,
    cursors: &mut [Cursor; BODY_VARIABLES],
    out: &mut [f64; BODY_VARIABLES],
) -> bool {
    let Some(vars) = body.vars else {
        return false;
    };
    for (k, (value, cursor)) in out.iter_mut().zip(cursors.iter_mut()).enumerate() {
        match tracks.value(vars.at(k), t, side, cursor) {
            Some(v) => *value = v,
            None => return false,
        }
    }
    true
}

/// Whether every earlier body keeps its index (`map`: each earlier body's index now).
fn keeps_places(map: &[Option<usize>]) -> bool {
    map.iter().enumerate().all(|(o, &b)| b == Some(o))
}
