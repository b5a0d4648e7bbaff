//! The computed motion, shared between the solver and any number of readers.
//!
//! The solver appends to one component's track at a time, holding that track's lock only for
//! the append; readers lock one track at a time only for a lookup. So playback, viewers and
//! progress displays can read what is computed so far while a run goes on, without holding the
//! solver up for more than a lookup.

use super::graph::{ComponentId, Partition};
use super::system::VarId;
use super::track::{Cursor, Piece, Side, Track};
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Shared ownership of one component's track: an incremental update that keeps a component
/// hands the same track to the new partition, so readers of either see the same data.
pub(crate) type SharedTrack = Arc<RwLock<Track>>;

/// The tracks of one partition, and where each variable lives in them.
pub(crate) struct Tracks {
    tracks: Vec<SharedTrack>,
    /// For each variable: its component and its position there.
    location: Vec<(ComponentId, u32)>,
}

impl Tracks {
    pub(crate) fn new(partition: &Partition, tracks: Vec<SharedTrack>) -> Tracks {
        let location = (0..partition.variable_count())
            .map(|v| {
                let v = VarId(v as u32);
                (partition.component_of(v), partition.local_index(v) as u32)
            })
            .collect();
        Tracks { tracks, location }
    }

    pub(crate) fn read(&self, c: ComponentId) -> RwLockReadGuard<'_, Track> {
        self.tracks[c.index()]
            .read()
            .unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn write(&self, c: ComponentId) -> RwLockWriteGuard<'_, Track> {
        self.tracks[c.index()]
            .write()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The shared track of component `c` (to carry it over to a new partition).
    pub(crate) fn shared(&self, c: ComponentId) -> SharedTrack {
        self.tracks[c.index()].clone()
    }

    pub(crate) fn location(&self, var: VarId) -> Option<(ComponentId, usize)> {
        self.location
            .get(var.index())
            .map(|&(c, local)| (c, local as usize))
    }

    /// Interpolated value of `var` at `time`, or `None` if not computed (yet) or no such
    /// variable.
    pub(crate) fn value(
        &self,
        var: VarId,
        time: f64,
        side: Side,
        cursor: &mut Cursor,
    ) -> Option<f64> {
        let (c, local) = self.location(var)?;
        self.read(c).value(local, time, side, cursor)
    }

    /// The piece of `var`'s track that holds `time` (see [`Track::piece_at`]).
    pub(crate) fn piece(&self, var: VarId, time: f64, cursor: &mut Cursor) -> Option<Piece> {
        let (c, local) = self.location(var)?;
        self.read(c).piece_at(local, time, cursor)
    }
}

/// A handle on the computed motion of a simulation: cheap to clone, usable from any thread,
/// valid across runs and incremental updates (it always shows the simulation's current tracks).
#[derive(Clone)]
pub struct Motion {
    current: Arc<RwLock<Arc<Tracks>>>,
}

impl Motion {
    pub(crate) fn new(tracks: Arc<Tracks>) -> Motion {
        Motion {
            current: Arc::new(RwLock::new(tracks)),
        }
    }

    /// Points the handle (and all its clones) at new tracks.
    pub(crate) fn replace(&self, tracks: Arc<Tracks>) {
        *self.current.write().unwrap_or_else(PoisonError::into_inner) = tracks;
    }

    pub(crate) fn tracks(&self) -> Arc<Tracks> {
        self.current
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The value of `var` at `time` (after any jump at `time`), or `None` if `time` has not
    /// been computed or `var` does not exist.
    pub fn value(&self, var: VarId, time: f64) -> Option<f64> {
        self.tracks()
            .value(var, time, Side::After, &mut Cursor::default())
    }

    /// The last time computed for `var`, or `None` if no such variable.
    pub fn computed_until(&self, var: VarId) -> Option<f64> {
        let tracks = self.tracks();
        let (c, _) = tracks.location(var)?;
        let end = tracks.read(c).end_time();
        Some(end)
    }

    /// The earliest last-computed time over all components: everything is known up to here.
    /// `None` for a system without variables.
    pub fn complete_until(&self) -> Option<f64> {
        let tracks = self.tracks();
        let ends = (0..tracks.tracks.len()).map(|c| tracks.read(ComponentId(c as u32)).end_time());
        ends.reduce(f64::min)
    }

    /// A copy of the track holding `var` and `var`'s position in it, or `None` if no such
    /// variable.
    pub fn track_of(&self, var: VarId) -> Option<(Track, usize)> {
        let tracks = self.tracks();
        let (c, local) = tracks.location(var)?;
        let track = tracks.read(c).clone();
        Some((track, local))
    }

    /// A reader for many lookups (playback): it remembers its place in every track, so lookups
    /// at steadily increasing times cost O(1) each.
    pub fn sampler(&self) -> Sampler {
        Sampler {
            motion: self.clone(),
            tracks: self.tracks(),
            cursors: Vec::new(),
        }
    }
}

/// Repeated lookups with a cursor per variable. Follows the partition current at its creation
/// or last [`Sampler::refresh`]: it sees the solver's appends as they happen, but after an
/// incremental update it keeps showing the old motion of the components that update reset,
/// until refreshed.
pub struct Sampler {
    motion: Motion,
    tracks: Arc<Tracks>,
    cursors: Vec<Cursor>,
}

impl Sampler {
    /// Follows the simulation's current tracks again.
    pub fn refresh(&mut self) {
        self.tracks = self.motion.tracks();
        self.cursors.clear();
    }

    /// The value of `var` at `time`, as [`Motion::value`].
    pub fn value(&mut self, var: VarId, time: f64) -> Option<f64> {
        if self.cursors.len() <= var.index() {
            self.cursors.resize(var.index() + 1, Cursor::default());
        }
        self.tracks
            .value(var, time, Side::After, &mut self.cursors[var.index()])
    }
}
