//! The computed motion of a scene's bodies, for the renderer, the editor and export.
//!
//! Readable from any thread while the simulation still runs (the tracks grow behind it): a
//! viewer plays back what is computed and asks how far that is. Every variable is read
//! between computed points through its track's cubic Hermite polynomial (`sim::track`), which
//! the integrator's error control holds to the tolerance; the quaternion so read is
//! normalised, and for a body spinning freely turned onto the turning energy the solver's
//! points keep (`BodyModel::keep_spin_energy`). Angular velocity is `R I⁻¹ Rᵀ L` at the
//! interpolated state.

use super::bodies::Bodies;
use super::body::{slot, BodyModel, BodyVars, BODY_VARIABLES};
/// A body's state at one time: the scene's own state type, so that computed motion and initial
/// states reach the views, handles and exports as one type.
pub use crate::scene::state::BodyState;
use crate::sim::motion::Tracks;
use crate::sim::track::{Cursor, Segment, Side};
use crate::sim::{ComponentId, Motion};
use nalgebra::Vector3;
use std::sync::Arc;

/// A body's whole computed motion: its state at every time any of its variables was computed.
/// Where a value jumps (a collision, the start of a constraint) the time appears twice, with the
/// state before and after.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BodyTrack {
    pub times: Vec<f64>,
    pub states: Vec<BodyState>,
}

/// The motion of every body of a scene. Cheap to clone; see the module documentation.
#[derive(Clone)]
pub struct SceneMotion {
    bodies: Bodies,
    motion: Motion,
}

impl SceneMotion {
    pub(crate) fn new(bodies: Bodies, motion: Motion) -> SceneMotion {
        SceneMotion { bodies, motion }
    }

    pub fn bodies(&self) -> &Bodies {
        &self.bodies
    }

    /// The variables' motion underneath.
    pub fn motion(&self) -> &Motion {
        &self.motion
    }

    /// The state of body `body` at `t`, or `None` if `t` is not computed (yet) for it. A fixed
    /// body is at its initial state at every time.
    pub fn state(&self, body: usize, t: f64) -> Option<BodyState> {
        self.state_on(body, t, Side::After)
    }

    /// As [`SceneMotion::state`], but just before `t`: before the jump of a collision there.
    pub fn state_before(&self, body: usize, t: f64) -> Option<BodyState> {
        self.state_on(body, t, Side::Before)
    }

    fn state_on(&self, body: usize, t: f64, side: Side) -> Option<BodyState> {
        let mut cursors = [Cursor::default(); BODY_VARIABLES];
        state_from(
            &self.motion.tracks(),
            &self.bodies[body],
            t,
            side,
            &mut cursors,
        )
    }

    /// How far body `body`'s motion is computed (infinite for a fixed body).
    pub fn computed_until(&self, body: usize) -> f64 {
        let Some(vars) = self.bodies[body].vars else {
            return f64::INFINITY;
        };
        let tracks = self.motion.tracks();
        components(&tracks, vars)
            .into_iter()
            .map(|c| tracks.read(c).end_time())
            .fold(f64::INFINITY, f64::min)
    }

    /// The time up to which every body's motion is computed.
    pub fn complete_until(&self) -> f64 {
        self.motion.complete_until().unwrap_or(f64::INFINITY)
    }

    /// Body `body`'s whole computed motion (a fixed body: its state at the start).
    pub fn track(&self, body: usize, start: f64) -> BodyTrack {
        let model = &self.bodies[body];
        let Some(vars) = model.vars else {
            return BodyTrack {
                times: vec![start],
                states: vec![fixed_state(model)],
            };
        };
        let tracks = self.motion.tracks();
        let mut times: Vec<(f64, bool)> = Vec::new();
        let mut end = f64::INFINITY;
        for c in components(&tracks, vars) {
            let track = tracks.read(c);
            end = end.min(track.end_time());
            let t = track.times();
            times.extend(
                t.iter()
                    .enumerate()
                    .map(|(i, &time)| (time, t.get(i + 1) == Some(&time))),
            );
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
        let mut cursors = [Cursor::default(); BODY_VARIABLES];
        let mut out = BodyTrack::default();
        for (time, jump) in merged {
            let sides: &[Side] = if jump {
                &[Side::Before, Side::After]
            } else {
                &[Side::After]
            };
            for &side in sides {
                if let Some(state) = state_from(&tracks, model, time, side, &mut cursors) {
                    out.times.push(time);
                    out.states.push(state);
                }
            }
        }
        out
    }

    /// A reader for playback: many lookups at steadily increasing times, O(1) each.
    pub fn sampler(&self) -> BodySampler {
        let tracks = self.motion.tracks();
        let layout = ReadLayout::new(&tracks, &self.bodies);
        BodySampler {
            cursors: vec![Cursor::default(); layout.groups.len()],
            layout,
            tracks,
            scene: self.clone(),
        }
    }
}

/// Repeated state lookups with remembered positions in the tracks. Sees the solver's appends
/// as they happen; after an incremental update, [`BodySampler::refresh`] follows the new
/// partition.
pub struct BodySampler {
    scene: SceneMotion,
    tracks: Arc<Tracks>,
    layout: ReadLayout,
    /// One per group of the layout.
    cursors: Vec<Cursor>,
}

impl BodySampler {
    /// As [`SceneMotion::state`].
    pub fn state(&mut self, body: usize, t: f64) -> Option<BodyState> {
        let model = &self.scene.bodies[body];
        if model.is_fixed() {
            return Some(fixed_state(model));
        }
        let mut v = [0.0; BODY_VARIABLES];
        let (first, last) = self.layout.bodies[body];
        for g in first as usize..last as usize {
            let (component, from, to) = self.layout.groups[g];
            let track = self.tracks.read(component);
            let cursor = &mut self.cursors[g];
            for &(local, slot) in &self.layout.entries[from as usize..to as usize] {
                v[slot as usize] = track.value(local as usize, t, Side::After, cursor)?;
            }
        }
        Some(state_at(&self.tracks, model, t, Side::After, v))
    }

    /// Follows the simulation's current tracks again.
    pub fn refresh(&mut self) {
        self.tracks = self.scene.motion.tracks();
        self.layout = ReadLayout::new(&self.tracks, &self.scene.bodies);
        self.cursors = vec![Cursor::default(); self.layout.groups.len()];
    }
}

/// Where every moving body's variables live in the tracks, grouped by component, so that a
/// body's state takes one lock per component rather than one per variable.
struct ReadLayout {
    /// Per body, its range of `groups` (empty for a fixed body).
    bodies: Vec<(u32, u32)>,
    /// A component and the range of `entries` to read from it.
    groups: Vec<(ComponentId, u32, u32)>,
    /// (position in the component's track, offset in the body's block).
    entries: Vec<(u32, u8)>,
}

impl ReadLayout {
    fn new(tracks: &Tracks, bodies: &Bodies) -> ReadLayout {
        let mut layout = ReadLayout {
            bodies: Vec::with_capacity(bodies.len()),
            groups: Vec::new(),
            entries: Vec::new(),
        };
        for body in bodies {
            let first = layout.groups.len() as u32;
            if let Some(vars) = body.vars {
                let mut located: Vec<(ComponentId, u32, u8)> = (0..BODY_VARIABLES)
                    .filter_map(|k| {
                        let (c, local) = tracks.location(vars.at(k))?;
                        Some((c, local as u32, k as u8))
                    })
                    .collect();
                located.sort_unstable();
                for (c, local, slot) in located {
                    let at = layout.entries.len() as u32;
                    layout.entries.push((local, slot));
                    let this_body = layout.groups.len() as u32 > first;
                    match layout.groups.last_mut() {
                        Some(group) if this_body && group.0 == c => group.2 = at + 1,
                        _ => layout.groups.push((c, at, at + 1)),
                    }
                }
            }
            layout.bodies.push((first, layout.groups.len() as u32));
        }
        layout
    }
}

/// The distinct components holding `vars`.
fn components(tracks: &Tracks, vars: BodyVars) -> Vec<ComponentId> {
    let mut list: Vec<ComponentId> = (0..BODY_VARIABLES)
        .filter_map(|k| tracks.location(vars.at(k)).map(|(c, _)| c))
        .collect();
    list.sort_unstable();
    list.dedup();
    list
}

fn fixed_state(body: &BodyModel) -> BodyState {
    BodyState {
        position: body.initial.position,
        rotation: body.initial.rotation,
        velocity: Vector3::zeros(),
        angular_velocity: Vector3::zeros(),
    }
}

fn state_from(
    tracks: &Tracks,
    body: &BodyModel,
    t: f64,
    side: Side,
    cursors: &mut [Cursor; BODY_VARIABLES],
) -> Option<BodyState> {
    let Some(vars) = body.vars else {
        return Some(fixed_state(body));
    };
    let mut v = [0.0; BODY_VARIABLES];
    for (k, (value, cursor)) in v.iter_mut().zip(cursors.iter_mut()).enumerate() {
        *value = tracks.value(vars.at(k), t, side, cursor)?;
    }
    Some(state_at(tracks, body, t, side, v))
}

/// The state that values `v` of a moving body's variables, read at `t`, stand for; for a
/// [free spin](BodyModel::free_spin) read between two points of its rotation's track, with
/// `L` as at the first of them, with the orientation turned onto the turning energy of that
/// point ([`BodyModel::keep_spin_energy`]).
fn state_at(
    tracks: &Tracks,
    body: &BodyModel,
    t: f64,
    side: Side,
    mut v: [f64; BODY_VARIABLES],
) -> BodyState {
    if let Some(start) = body.vars.filter(|_| body.free_spin).and_then(|vars| {
        let (start, from) = {
            let (c, _) = tracks.location(vars.at(slot::ROTATION))?;
            let track = tracks.read(c);
            let Segment::Between(k, _) = track.locate(t, side, &mut Cursor::default())? else {
                return None;
            };
            let point = track.point(k);
            let mut start = [0.0; 4];
            for (i, value) in start.iter_mut().enumerate() {
                *value = point[tracks.location(vars.at(slot::ROTATION + i))?.1];
            }
            (start, track.times()[k])
        };
        // The energy is kept only while nothing changed `L` since that point.
        for i in 0..3 {
            let at = slot::MOMENTUM + i;
            let then = tracks.value(vars.at(at), from, Side::After, &mut Cursor::default())?;
            if then.to_bits() != v[at].to_bits() {
                return None;
            }
        }
        Some(start)
    }) {
        body.keep_spin_energy(&mut v, start);
    }
    body.state_of(&v).0
}
