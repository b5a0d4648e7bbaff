//! Tracks: the computed motion of one component as piecewise-linear functions of time (4.1.9).
//!
//! A component's variables share one time array (they are computed together), so a track stores
//! the times once and the values point by point, row-major: one allocation each, no per-point
//! overhead. Lookups interpolate linearly, which is exactly the representation the integrator's
//! error control assumes (5.1.3). A variable that jumps at time `t` (a collision's velocity
//! change, the start of a prescribed interval) has two points at `t`; the value *at* `t` is the
//! one after the jump unless the left limit is asked for.

/// Which value to return at a time where the track jumps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The value just before the jump (the left limit).
    Before,
    /// The value just after the jump.
    After,
}

/// A remembered position in a track, making lookups near the last one cheap: their cost
/// grows with the logarithm of the points between them, not of the track.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cursor {
    segment: usize,
}

/// The segment of a cursor that has not been used yet.
const UNSET: usize = usize::MAX;

impl Default for Cursor {
    fn default() -> Cursor {
        Cursor { segment: UNSET }
    }
}

/// Room reserved for this many points up front: every track grows, and the first few
/// doublings would otherwise cost an allocation each.
const INITIAL_POINTS: usize = 16;

/// Piecewise-linear values of `width` variables at non-decreasing times.
#[derive(Clone, Debug, PartialEq)]
pub struct Track {
    width: usize,
    times: Vec<f64>,
    values: Vec<f64>,
}

impl Track {
    /// A track with one point.
    pub fn new(time: f64, values: &[f64]) -> Track {
        let mut times = Vec::with_capacity(INITIAL_POINTS);
        times.push(time);
        let mut stored = Vec::with_capacity(INITIAL_POINTS * values.len());
        stored.extend_from_slice(values);
        Track {
            width: values.len(),
            times,
            values: stored,
        }
    }

    /// Number of variables per point.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Number of points (never zero).
    pub fn len(&self) -> usize {
        self.times.len()
    }

    /// Always false: a track has at least its initial point.
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    pub fn start_time(&self) -> f64 {
        self.times[0]
    }

    /// The last computed time.
    pub fn end_time(&self) -> f64 {
        self.times[self.times.len() - 1]
    }

    pub fn times(&self) -> &[f64] {
        &self.times
    }

    /// The values at point `k`.
    pub fn point(&self, k: usize) -> &[f64] {
        &self.values[k * self.width..(k + 1) * self.width]
    }

    /// The values at the last point.
    pub fn last_point(&self) -> &[f64] {
        self.point(self.times.len() - 1)
    }

    /// The values of variable `var` at every point.
    pub fn column(&self, var: usize) -> impl Iterator<Item = f64> + '_ {
        self.values.iter().skip(var).step_by(self.width).copied()
    }

    /// Appends a point. `time` must not precede the last point; equal times record a jump.
    pub fn push(&mut self, time: f64, values: &[f64]) {
        debug_assert!(
            time >= self.end_time(),
            "track points must not go back in time"
        );
        debug_assert_eq!(values.len(), self.width);
        self.times.push(time);
        self.values.extend_from_slice(values);
    }

    /// Interpolates all variables at `time` into `out`. Returns false (leaving `out` alone)
    /// when `time` lies outside the computed span or `out` is not [`Track::width`] long.
    pub fn sample(&self, time: f64, side: Side, cursor: &mut Cursor, out: &mut [f64]) -> bool {
        if out.len() != self.width {
            return false;
        }
        let Some(segment) = self.locate(time, side, cursor) else {
            return false;
        };
        match segment {
            Segment::At(k) => out.copy_from_slice(self.point(k)),
            Segment::Between(k, fraction) => {
                let (a, b) = (self.point(k), self.point(k + 1));
                for ((o, &x0), &x1) in out.iter_mut().zip(a).zip(b) {
                    *o = x0 + (x1 - x0) * fraction;
                }
            }
        }
        true
    }

    /// Interpolates variable `var` at `time`, or `None` outside the computed span or if the
    /// track has no variable `var`.
    pub fn value(&self, var: usize, time: f64, side: Side, cursor: &mut Cursor) -> Option<f64> {
        if var >= self.width {
            return None;
        }
        Some(self.value_in(self.locate(time, side, cursor)?, var))
    }

    /// Variable `var`'s value where [`Track::locate`] found; `var` must be below the width.
    pub(crate) fn value_in(&self, segment: Segment, var: usize) -> f64 {
        let w = self.width;
        match segment {
            Segment::At(k) => self.values[k * w + var],
            Segment::Between(k, fraction) => interpolate(
                self.values[k * w + var],
                self.values[(k + 1) * w + var],
                fraction,
            ),
        }
    }

    /// Variable `var`'s piece from the last point but one to the last, if they are at
    /// different times (right after a step it is the step); `var` must be below the width.
    pub(crate) fn last_piece(&self, var: usize) -> Option<Piece> {
        self.piece(var, self.times.len().checked_sub(2)?)
    }

    /// Variable `var`'s piece that holds `time` and reads there what [`Track::value`] reads
    /// after any jump, if there is one (not at the first point, nor at a jump); `var` must be
    /// below the width. `cursor` as for [`Track::value`].
    pub(crate) fn piece_at(&self, var: usize, time: f64, cursor: &mut Cursor) -> Option<Piece> {
        match self.locate(time, Side::After, cursor)? {
            Segment::Between(k, _) => self.piece(var, k),
            Segment::At(k) => self.piece(var, k.checked_sub(1)?),
        }
    }

    /// Variable `var`'s piece from point `k` to the next, if they are at different times.
    fn piece(&self, var: usize, k: usize) -> Option<Piece> {
        let times = &self.times;
        if k + 1 >= times.len() || times[k] >= times[k + 1] {
            return None;
        }
        let w = self.width;
        Some(Piece {
            from: times[k],
            to: times[k + 1],
            start: self.values[k * w + var],
            end: self.values[(k + 1) * w + var],
        })
    }

    /// Keeps the motion up to `time` only: drops every point after it (and the values after a
    /// jump at `time`), ending the track with the left-limit value at `time`, interpolated if
    /// needed. Times before the start keep just the first point. Returns whether anything was
    /// dropped.
    pub fn truncate(&mut self, time: f64) -> bool {
        let first_at_or_after = self.times.partition_point(|&t| t < time);
        if first_at_or_after == self.times.len() {
            return false;
        }
        if first_at_or_after == 0 || self.times[first_at_or_after] == time {
            let keep = first_at_or_after + 1;
            let changed = keep < self.times.len();
            self.keep_points(keep);
            return changed;
        }
        let k = first_at_or_after - 1;
        let fraction = (time - self.times[k]) / (self.times[k + 1] - self.times[k]);
        let w = self.width;
        for i in 0..w {
            let (x0, x1) = (self.values[k * w + i], self.values[(k + 1) * w + i]);
            self.values[(k + 1) * w + i] = x0 + (x1 - x0) * fraction;
        }
        self.times[k + 1] = time;
        self.keep_points(k + 2);
        true
    }

    /// Drops the points before `time` except the last one at or before it (and every point
    /// at that same time, so a jump there keeps both sides): values from `time` on read as
    /// before, earlier ones are gone. Returns whether anything was dropped.
    pub fn forget_before(&mut self, time: f64) -> bool {
        let at_or_before = self.times.partition_point(|&t| t <= time);
        let Some(last) = at_or_before.checked_sub(1) else {
            return false;
        };
        let first = self.times.partition_point(|&t| t < self.times[last]);
        if first == 0 {
            return false;
        }
        self.times.drain(..first);
        self.values.drain(..first * self.width);
        true
    }

    fn keep_points(&mut self, count: usize) {
        self.times.truncate(count);
        self.values.truncate(count * self.width);
    }

    /// Releases spare capacity (after a run, when the track will not grow for a while).
    pub fn shrink_to_fit(&mut self) {
        self.times.shrink_to_fit();
        self.values.shrink_to_fit();
    }

    /// Heap bytes held.
    pub fn memory_bytes(&self) -> usize {
        (self.times.capacity() + self.values.capacity()) * std::mem::size_of::<f64>()
    }

    /// Where `time` falls in the track, `None` outside the computed span: one search serves
    /// several variables read there with [`Track::value_in`].
    pub(crate) fn locate(&self, time: f64, side: Side, cursor: &mut Cursor) -> Option<Segment> {
        let times = &self.times;
        if time.is_nan() {
            return None;
        }
        // The last point at or before `time`: searched out from the cursor in strides that
        // double (reads mostly move a little from the last one, forward or back, and the track
        // either side can be thousands of points long), or over the whole track without one.
        // Only points near the answer are touched: a track read long after it was written is
        // out of cache, and each point further away is another miss.
        let mut k = match cursor.segment {
            UNSET => times.partition_point(|&t| t <= time).checked_sub(1)?,
            k => {
                let from = k.min(times.len() - 1);
                if times[from] > time {
                    gallop_back(times, from, time)?
                } else {
                    gallop_forward(times, from, time)
                }
            }
        };
        if k + 1 == times.len() && times[k] < time {
            return None;
        }
        cursor.segment = k;
        if times[k] == time {
            if side == Side::Before {
                while k > 0 && times[k - 1] == time {
                    k -= 1;
                }
            }
            return Some(Segment::At(k));
        }
        Some(Segment::Between(k, fraction(time, times[k], times[k + 1])))
    }
}

/// The index of the last of `times` at or before `time`, which lies before `times[from]`;
/// `None` if all of them lie after it.
fn gallop_back(times: &[f64], from: usize, time: f64) -> Option<usize> {
    let (mut above, mut step) = (from, 1);
    while step <= above && times[above - step] > time {
        above -= step;
        step *= 2;
    }
    let below = above.saturating_sub(step);
    (below + times[below..above].partition_point(|&t| t <= time)).checked_sub(1)
}

/// The index of the last of `times` at or before `time`, which lies at or after
/// `times[from]`.
fn gallop_forward(times: &[f64], from: usize, time: f64) -> usize {
    let (mut below, mut step) = (from, 1);
    while below + step < times.len() && times[below + step] <= time {
        below += step;
        step *= 2;
    }
    if step == 1 {
        // Still in the cursor's segment, the usual case.
        return below;
    }
    let above = (below + step).min(times.len());
    below + times[below..above].partition_point(|&t| t <= time) - 1
}

/// How far `time` is from `t0` to `t1`, as a fraction of the way.
fn fraction(time: f64, t0: f64, t1: f64) -> f64 {
    (time - t0) / (t1 - t0)
}

/// The value `fraction` of the way from `x0` to `x1`.
fn interpolate(x0: f64, x1: f64, fraction: f64) -> f64 {
    x0 + (x1 - x0) * fraction
}

/// One variable's track between two consecutive points at different times, copied out of the
/// track: it reads back exactly what the track reads inside it, without touching the track.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Piece {
    pub from: f64,
    pub to: f64,
    /// The value at `from` (after any jump there).
    pub start: f64,
    /// The value at `to`.
    pub end: f64,
}

impl Piece {
    /// A piece that holds no time.
    pub const NOWHERE: Piece = Piece {
        from: f64::NAN,
        to: f64::NAN,
        start: f64::NAN,
        end: f64::NAN,
    };

    /// Whether the piece gives the value at `time`: after its start, up to its end.
    pub fn holds(&self, time: f64) -> bool {
        self.from < time && time <= self.to
    }

    /// The value at `time`, which the piece must hold: what [`Track::value`] gives there
    /// after any jump, to the bit, as long as the track is not cut at or before `to`.
    pub fn value(&self, time: f64) -> f64 {
        if time == self.to {
            self.end
        } else {
            interpolate(self.start, self.end, fraction(time, self.from, self.to))
        }
    }
}

/// Where a time falls in a track.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Segment {
    /// Exactly at point `k`.
    At(usize),
    /// Between points `k` and `k + 1`, this fraction of the way.
    Between(usize, f64),
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ramp() -> Track {
        let mut t = Track::new(0.0, &[0.0, 10.0]);
        t.push(1.0, &[1.0, 20.0]);
        t.push(2.0, &[4.0, 20.0]);
        t.push(2.0, &[-4.0, 20.0]);
        t.push(3.0, &[-5.0, 0.0]);
        t
    }

    #[test]
    fn forgetting_keeps_the_point_at_or_before_and_both_sides_of_a_jump() {
        let mut t = ramp();
        assert!(!t.forget_before(0.0));
        assert!(t.forget_before(1.5));
        assert_eq!(t.times(), &[1.0, 2.0, 2.0, 3.0]);
        let mut cursor = Cursor::default();
        assert_eq!(t.value(0, 1.5, Side::After, &mut cursor), Some(2.5));
        assert!(t.forget_before(2.0));
        assert_eq!(t.times(), &[2.0, 2.0, 3.0]);
        assert_eq!(t.value(0, 2.0, Side::Before, &mut cursor), Some(4.0));
        assert_eq!(t.value(0, 2.0, Side::After, &mut cursor), Some(-4.0));
        assert!(t.forget_before(5.0));
        assert_eq!(t.times(), &[3.0]);
        assert_eq!(t.last_point(), &[-5.0, 0.0]);
    }

    #[test]
    fn interpolates_and_distinguishes_the_sides_of_a_jump() {
        let t = ramp();
        let mut c = Cursor::default();
        assert_eq!(t.value(0, 0.5, Side::After, &mut c), Some(0.5));
        assert_eq!(t.value(0, 2.0, Side::Before, &mut c), Some(4.0));
        assert_eq!(t.value(0, 2.0, Side::After, &mut c), Some(-4.0));
        assert_eq!(t.value(0, 2.5, Side::Before, &mut c), Some(-4.5));
        let mut out = [0.0; 2];
        assert!(t.sample(1.5, Side::After, &mut c, &mut out));
        assert_eq!(out, [2.5, 20.0]);
        assert!(!t.sample(3.5, Side::After, &mut c, &mut out));
        assert_eq!(t.value(1, -0.1, Side::After, &mut c), None);
    }

    #[test]
    fn truncation_keeps_the_left_limit() {
        let mut t = ramp();
        assert!(t.truncate(2.0));
        assert_eq!(t.len(), 3);
        assert_eq!(t.last_point(), &[4.0, 20.0]);
        assert!(!t.truncate(2.0));
        assert!(t.truncate(0.25));
        assert_eq!(t.times(), &[0.0, 0.25]);
        assert_eq!(t.last_point(), &[0.25, 12.5]);
        assert!(!t.truncate(5.0));
        assert!(t.truncate(-1.0));
        assert_eq!(t.len(), 1);
    }

    fn tracks() -> impl Strategy<Value = Track> {
        proptest::collection::vec(
            (0.0f64..1.0, -5.0f64..5.0, proptest::bool::weighted(0.1)),
            1..60,
        )
        .prop_map(|points| {
            let mut track = Track::new(0.0, &[0.0]);
            let mut t = 0.0;
            for (dt, v, jump) in points {
                if !jump {
                    t += dt + 1e-3;
                }
                track.push(t, &[v]);
            }
            track
        })
    }

    proptest! {
        #[test]
        fn cursor_lookups_match_fresh_lookups(track in tracks(), probes in proptest::collection::vec(0.0f64..1.0, 1..40)) {
            let end = track.end_time();
            let mut sorted: Vec<f64> = probes.iter().map(|p| p * end).collect();
            sorted.sort_by(f64::total_cmp);
            let mut cursor = Cursor::default();
            // Increasing times, then arbitrary ones, then the point times themselves.
            let all = sorted.iter().chain(&probes).copied().chain(track.times().to_vec());
            for t in all {
                for side in [Side::Before, Side::After] {
                    let fresh = track.value(0, t, side, &mut Cursor::default());
                    prop_assert_eq!(track.value(0, t, side, &mut cursor), fresh);
                }
            }
        }

        #[test]
        fn the_last_piece_reads_what_the_track_reads(track in tracks(), probes in proptest::collection::vec(0.0f64..=1.0, 1..20)) {
            let Some(piece) = track.last_piece(0) else {
                return Ok(());
            };
            let times = probes.iter().map(|p| piece.from + p * (piece.to - piece.from));
            for t in times.chain([piece.to]).filter(|&t| piece.holds(t)) {
                let read = track.value(0, t, Side::After, &mut Cursor::default()).unwrap();
                prop_assert_eq!(piece.value(t).to_bits(), read.to_bits());
            }
            prop_assert!(!piece.holds(piece.from) && !Piece::NOWHERE.holds(piece.to));
        }

        #[test]
        fn a_piece_found_at_a_time_reads_what_the_track_reads(track in tracks(), probes in proptest::collection::vec(0.0f64..=1.0, 1..20)) {
            let end = track.end_time();
            let times = probes.iter().map(|p| p * end).chain(track.times().to_vec());
            for t in times {
                let read = track.value(0, t, Side::After, &mut Cursor::default()).unwrap();
                if let Some(piece) = track.piece_at(0, t, &mut Cursor::default()) {
                    prop_assert!(piece.holds(t));
                    prop_assert_eq!(piece.value(t).to_bits(), read.to_bits());
                }
            }
        }

        #[test]
        fn truncation_leaves_earlier_values_unchanged(track in tracks(), at in 0.0f64..1.0, probes in proptest::collection::vec(0.0f64..1.0, 1..20)) {
            let cut = at * track.end_time();
            let mut truncated = track.clone();
            truncated.truncate(cut);
            prop_assert!(truncated.end_time() <= cut.max(0.0));
            for p in probes {
                let t = p * cut;
                let (a, b) = (
                    track.value(0, t, Side::Before, &mut Cursor::default()),
                    truncated.value(0, t, Side::Before, &mut Cursor::default()),
                );
                prop_assert!(a.is_some() && b.is_some());
                prop_assert!((a.unwrap() - b.unwrap()).abs() < 1e-9);
            }
        }
    }
}
