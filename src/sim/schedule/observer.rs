//! Hooks for collision handling: a callback after every step, and back-up requests.
//!
//! Collision detection (written elsewhere) watches the steps: it learns which component
//! advanced over which interval and, once every component of two bodies has passed the last
//! time the pair was checked, tests the pair over the new interval. When it finds a contact at
//! time `t` it requests a [`BackUp`]: the bodies' components are truncated to `t`, everything
//! that depends on them is truncated too, the velocity jumps are applied at `t`, and the
//! components restart from there (figure 5.10).
//!
//! Back-up must also undo collisions that were computed from data now invalid: when a
//! component is truncated to `t`, every body that collided after `t` with a body of that
//! component must be backed up to its first such collision. Only the observer knows about
//! collisions, so the simulator asks it ([`StepObserver::truncated`]) for each component it
//! truncates. Keep that bookkeeping in terms of variables (bodies), not component ids: an
//! incremental update may repartition the system and renumber the components.

use super::hold::Holds;
use crate::sim::graph::{ComponentId, Partition};
use crate::sim::motion::Tracks;
use crate::sim::system::VarId;
use crate::sim::track::{Cursor, Piece, Side, Track};
use std::sync::RwLockReadGuard;

/// One accepted step: `component` advanced from `from` to `to`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepReport {
    pub component: ComponentId,
    pub from: f64,
    pub to: f64,
}

/// A request to back components up to `time`, apply instantaneous changes there and restart.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BackUp {
    pub time: f64,
    /// Components to truncate (those holding a jump's variable are added automatically).
    pub components: Vec<ComponentId>,
    /// New values taking effect at `time` (velocity jumps). A variable prescribed at `time`
    /// keeps following its prescription.
    pub jumps: Vec<(VarId, f64)>,
    /// Variables held from `time` on at their value there (after the jumps): their equations
    /// are ignored until a later back-up releases them.
    pub holds: Vec<VarId>,
    /// Held variables whose own equations take over again at `time`.
    pub releases: Vec<VarId>,
}

/// One component truncated by a back-up or reset.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Truncation {
    pub component: ComponentId,
    /// Its last computed time before.
    pub from: f64,
    /// Its last computed time now.
    pub to: f64,
}

/// Watches the simulation's progress (collision detection implements it).
pub trait StepObserver: Send {
    /// Called after every accepted step. `context` shows every component's progress and the
    /// motion so far, and takes back-up requests, which are applied when this returns.
    fn stepped(&mut self, step: &StepReport, context: &mut StepContext<'_>);

    /// Called once before the truncations of one back-up (or update): until the next call,
    /// nothing but truncations happens, so what one truncation undid of a body stays undone.
    fn truncating(&mut self) {}

    /// Called for every component truncated to `time` (by a back-up, or reset to the start by
    /// an update). Push onto `also` the components that must be backed up as a consequence
    /// (those whose bodies collided after `time` with a body of `component`, each to the time
    /// of the first such collision), and forget those collisions; push onto `gates` the gates
    /// (see [`StepContext::set_gate`]) that what the truncation restored needs.
    fn truncated(
        &mut self,
        partition: &Partition,
        component: ComponentId,
        time: f64,
        also: &mut Vec<(ComponentId, f64)>,
        gates: &mut Vec<(ComponentId, f64)>,
    ) {
        let _ = (partition, component, time, also, gates);
    }

    /// Called when no component may step but the run is not complete: every remaining one
    /// waits at a gate. The observer may move gates and ask for back-ups, as in
    /// [`StepObserver::stepped`]; returns whether it did anything (else the run has stalled).
    /// A live run whose end moved on past the gates of its contact islands wakes them here.
    fn waiting(&mut self, context: &mut StepContext<'_>) -> bool {
        let _ = context;
        false
    }
}

/// What a [`StepObserver`] can see and do during [`StepObserver::stepped`].
pub struct StepContext<'a> {
    pub(crate) partition: &'a Partition,
    pub(crate) reached: &'a [f64],
    pub(crate) tracks: &'a Tracks,
    pub(crate) holds: &'a Holds,
    pub(crate) requests: &'a mut Vec<BackUp>,
    pub(crate) gates: &'a mut Vec<(ComponentId, f64)>,
}

impl StepContext<'_> {
    pub fn partition(&self) -> &Partition {
        self.partition
    }

    /// The last computed time of component `c`.
    pub fn reached(&self, c: ComponentId) -> f64 {
        self.reached[c.index()]
    }

    /// Component `c`'s track, locked for reading while the guard lives.
    pub(crate) fn track(&self, c: ComponentId) -> RwLockReadGuard<'_, Track> {
        self.tracks.read(c)
    }

    /// The piece of `var`'s track that holds `time` (see [`Track::piece_at`]), if computed.
    pub(crate) fn piece(&self, var: VarId, time: f64, cursor: &mut Cursor) -> Option<Piece> {
        self.tracks.piece(var, time, cursor)
    }

    /// The value of `var` at `time` (after any jump there), if computed.
    pub fn value(&self, var: VarId, time: f64) -> Option<f64> {
        self.tracks
            .value(var, time, Side::After, &mut Cursor::default())
    }

    /// The value of `var` just before `time` (before any jump there), if computed.
    pub fn value_before(&self, var: VarId, time: f64) -> Option<f64> {
        self.tracks
            .value(var, time, Side::Before, &mut Cursor::default())
    }

    /// The values of `vars` at `time` (after any jump there, or just before it with
    /// `before`) into `out`, one per variable; false if any is not computed (`out` is then
    /// partly written). Variables of one component that follow each other share one lock and
    /// one search of its track, so reading a body's whole state costs about one lookup.
    /// `cursors`, one per variable, remember where in the tracks the last read was, which
    /// makes reads at nearby or increasing times cheaper still.
    pub fn values(
        &self,
        vars: &[VarId],
        time: f64,
        before: bool,
        cursors: &mut [Cursor],
        out: &mut [f64],
    ) -> bool {
        if out.len() != vars.len() || cursors.len() != vars.len() {
            return false;
        }
        let side = if before { Side::Before } else { Side::After };
        let mut k = 0;
        while k < vars.len() {
            let Some((c, _)) = self.tracks.location(vars[k]) else {
                return false;
            };
            let track = self.tracks.read(c);
            let Some(segment) = track.locate(time, side, &mut cursors[k]) else {
                return false;
            };
            while k < vars.len() {
                match self.tracks.location(vars[k]) {
                    Some((owner, local)) if owner == c && local < track.width() => {
                        out[k] = track.value_in(segment, local);
                    }
                    Some((owner, _)) if owner == c => return false,
                    _ => break,
                }
                k += 1;
            }
        }
        true
    }

    /// Whether `var` is held at `time` (see [`BackUp::holds`]).
    pub fn is_held(&self, var: VarId, time: f64) -> bool {
        self.holds.is_held(var, time)
    }

    /// Whether `var` is held over all of `[from, to]`, by one hold.
    pub fn is_held_over(&self, var: VarId, from: f64, to: f64) -> bool {
        self.holds.is_held_over(var, from, to)
    }

    /// Makes component `c` wait at `time` once the callback returns (after the back-ups it
    /// asked for): it steps up to `time`, lands there and takes no further step until a later
    /// call moves the gate on (`f64::INFINITY` opens it). Collision handling holds the bodies
    /// of a contact island at the next contact tick this way, so that none computes past it
    /// with contact forces that the tick is about to change.
    pub fn set_gate(&mut self, c: ComponentId, time: f64) {
        self.gates.push((c, time));
    }

    /// Asks for a back-up once the callback returns.
    pub fn request_back_up(&mut self, request: BackUp) {
        self.requests.push(request);
    }
}
