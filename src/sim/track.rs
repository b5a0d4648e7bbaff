//! Tracks: the computed motion of one component as piecewise-cubic functions of time (4.1.9).
//!
//! A component's variables share one time array (they are computed together), so a track stores
//! the times once and the values and derivatives point by point, row-major: one allocation
//! each, no per-point overhead. Each point keeps the derivative the integrator computed there
//! anyway, and lookups between two points interpolate with the cubic Hermite polynomial through
//! both values and both derivatives: its error is O(h⁴) in the step `h`, where straight lines
//! between the points were O(h²). A variable that jumps at time `t` (a collision's velocity
//! change, the start of a prescribed interval) has two points at `t`; the value *at* `t` is the
//! one after the jump unless the left limit is asked for. A derivative that jumps while the value does not (a
//! restart: a new contact load, a breakpoint) is stored the same way, as two points at `t`
//! with equal values, so that no cubic reaches across it. A point whose derivative is not known
//! yet (the first one, the value after a jump, until the next step gives it) is joined to the
//! next by a straight line.

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

/// Values and derivatives of `width` variables at non-decreasing times, interpolated by
/// cubic Hermite polynomials (see the module documentation).
#[derive(Clone, Debug, PartialEq)]
pub struct Track {
    width: usize,
    times: Vec<f64>,
    values: Vec<f64>,
    /// The derivatives at the points, laid out as `values`; NaN where not known yet.
    slopes: Vec<f64>,
}

impl Track {
    /// A track with one point, whose derivative the first step gives.
    pub fn new(time: f64, values: &[f64]) -> Track {
        let mut times = Vec::with_capacity(INITIAL_POINTS);
        times.push(time);
        let mut stored = Vec::with_capacity(INITIAL_POINTS * values.len());
        stored.extend_from_slice(values);
        let mut slopes = Vec::with_capacity(INITIAL_POINTS * values.len());
        slopes.resize(values.len(), f64::NAN);
        Track {
            width: values.len(),
            times,
            values: stored,
            slopes,
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

    /// The derivatives at point `k` (NaN where not known yet).
    pub fn slopes(&self, k: usize) -> &[f64] {
        &self.slopes[k * self.width..(k + 1) * self.width]
    }

    /// The values at the last point.
    pub fn last_point(&self) -> &[f64] {
        self.point(self.times.len() - 1)
    }

    /// The values of variable `var` at every point.
    pub fn column(&self, var: usize) -> impl Iterator<Item = f64> + '_ {
        self.values.iter().skip(var).step_by(self.width).copied()
    }

    /// Appends a point whose derivative is not known yet: the value after a jump at the last
    /// time, or (when tracks are built by hand) a point joined to its neighbours by straight
    /// lines. `time` must not precede the last point; equal times record a jump.
    pub fn push(&mut self, time: f64, values: &[f64]) {
        debug_assert!(
            time >= self.end_time(),
            "track points must not go back in time"
        );
        debug_assert_eq!(values.len(), self.width);
        self.times.push(time);
        self.values.extend_from_slice(values);
        self.slopes
            .extend(std::iter::repeat_n(f64::NAN, self.width));
    }

    /// Appends a step from the last point to `time`: the derivatives at its start (`start`)
    /// and the values and derivatives at its end. Where the last point's derivatives are not
    /// known they become `start`; where they differ from `start` (a restart changed the
    /// equations there) the last point is repeated with `start`, so that the derivative jumps
    /// there instead of bending the step before.
    pub fn push_step(&mut self, start: &[f64], time: f64, values: &[f64], slopes: &[f64]) {
        debug_assert!(time > self.end_time(), "a step must move forward in time");
        debug_assert!(start.len() == self.width && slopes.len() == self.width);
        let last = self.times.len() - 1;
        let known = &mut self.slopes[last * self.width..];
        if known.iter().all(|s| s.is_nan()) {
            known.copy_from_slice(start);
        } else if known
            .iter()
            .zip(start)
            .any(|(a, b)| a.to_bits() != b.to_bits())
        {
            let t = self.times[last];
            self.times.push(t);
            self.values.extend_from_within(last * self.width..);
            self.slopes.extend_from_slice(start);
        }
        self.times.push(time);
        self.values.extend_from_slice(values);
        self.slopes.extend_from_slice(slopes);
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
        for (var, o) in out.iter_mut().enumerate() {
            *o = self.value_in(segment, var);
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
        match segment {
            Segment::At(k) => self.values[k * self.width + var],
            Segment::Between(k, fraction) => self.cubic(var, k).value(fraction),
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
        Some(Piece {
            from: times[k],
            to: times[k + 1],
            cubic: self.cubic(var, k),
        })
    }

    /// Variable `var`'s cubic from point `k` to the next, which must exist.
    fn cubic(&self, var: usize, k: usize) -> Cubic {
        let (i, j) = (k * self.width + var, (k + 1) * self.width + var);
        Cubic {
            start: self.values[i],
            end: self.values[j],
            start_slope: self.slopes[i],
            end_slope: self.slopes[j],
            span: self.times[k + 1] - self.times[k],
        }
    }

    /// Keeps the motion up to `time` only: drops every point after it (and the values after a
    /// jump at `time`), ending the track with the left-limit value at `time`, interpolated if
    /// needed (with the interpolating cubic's derivative there, so that the motion before is
    /// unchanged). Times before the start keep just the first point. Returns whether anything
    /// was dropped.
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
        let fraction = fraction(time, self.times[k], self.times[k + 1]);
        for var in 0..self.width {
            let cubic = self.cubic(var, k);
            let at = (k + 1) * self.width + var;
            self.values[at] = cubic.value(fraction);
            self.slopes[at] = cubic.slope(fraction);
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
        self.slopes.drain(..first * self.width);
        true
    }

    fn keep_points(&mut self, count: usize) {
        self.times.truncate(count);
        self.values.truncate(count * self.width);
        self.slopes.truncate(count * self.width);
    }

    /// Releases spare capacity (after a run, when the track will not grow for a while).
    pub fn shrink_to_fit(&mut self) {
        self.times.shrink_to_fit();
        self.values.shrink_to_fit();
        self.slopes.shrink_to_fit();
    }

    /// Heap bytes held.
    pub fn memory_bytes(&self) -> usize {
        (self.times.capacity() + self.values.capacity() + self.slopes.capacity())
            * std::mem::size_of::<f64>()
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
        // either side can be thousands of points long), or without one from the track's end
        // (most reads are of the latest motion: collisions, ticks, the live frame). Only
        // points near the answer are touched: a track read long after it was written is out
        // of cache, and each point further away is another miss.
        let mut k = match cursor.segment {
            UNSET => {
                let last = times.len().checked_sub(1)?;
                if times[last] > time {
                    gallop_back(times, last, time)?
                } else {
                    last
                }
            }
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

/// One variable between two consecutive points at different times: the cubic Hermite
/// polynomial through both values with both derivatives, or the straight line between the
/// values where a derivative is not known.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Cubic {
    pub start: f64,
    pub end: f64,
    pub start_slope: f64,
    pub end_slope: f64,
    /// The time from the first point to the second.
    pub span: f64,
}

impl Cubic {
    /// The value `s` of the way from the first point to the second (`0 <= s <= 1`).
    ///
    /// Written as the chord's share of the change plus a bend that vanishes at both ends, so
    /// that a constant (equal values, zero derivatives) reads back exactly at every `s`.
    pub fn value(&self, s: f64) -> f64 {
        let change = self.end - self.start;
        if self.start_slope.is_nan() || self.end_slope.is_nan() {
            return self.start + change * s;
        }
        let r = 1.0 - s;
        let bend = self.span * s * r * (r * self.start_slope - s * self.end_slope);
        self.start + change * (s * s * (3.0 - 2.0 * s)) + bend
    }

    /// The derivative with respect to time `s` of the way from the first point to the second;
    /// NaN (not known) on a straight line, so that a line cut short stays a line.
    pub fn slope(&self, s: f64) -> f64 {
        if self.start_slope.is_nan() || self.end_slope.is_nan() {
            return f64::NAN;
        }
        let chord = (self.end - self.start) / self.span;
        let r = 1.0 - s;
        chord * (6.0 * s * r)
            + r * (1.0 - 3.0 * s) * self.start_slope
            + s * (3.0 * s - 2.0) * self.end_slope
    }
}

/// One variable's track between two consecutive points at different times, copied out of the
/// track: it reads back exactly what the track reads inside it, without touching the track.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Piece {
    pub from: f64,
    pub to: f64,
    pub cubic: Cubic,
}

impl Piece {
    /// A piece that holds no time.
    pub const NOWHERE: Piece = Piece {
        from: f64::NAN,
        to: f64::NAN,
        cubic: Cubic {
            start: f64::NAN,
            end: f64::NAN,
            start_slope: f64::NAN,
            end_slope: f64::NAN,
            span: f64::NAN,
        },
    };

    /// Whether the piece gives the value at `time`: after its start, up to its end.
    pub fn holds(&self, time: f64) -> bool {
        self.from < time && time <= self.to
    }

    /// The value at `time`, which the piece must hold: what [`Track::value`] gives there
    /// after any jump, to the bit, as long as the track is not cut at or before `to`.
    pub fn value(&self, time: f64) -> f64 {
        if time == self.to {
            self.cubic.end
        } else {
            self.cubic.value(fraction(time, self.from, self.to))
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

    /// A track of `x(t)` with derivative `dx(t)` at `times`, one step after another.
    fn stepped(times: &[f64], x: impl Fn(f64) -> f64, dx: impl Fn(f64) -> f64) -> Track {
        let mut track = Track::new(times[0], &[x(times[0])]);
        for w in times.windows(2) {
            track.push_step(&[dx(w[0])], w[1], &[x(w[1])], &[dx(w[1])]);
        }
        track
    }

    #[test]
    fn cubics_are_read_back_exactly_and_sines_to_fourth_order() {
        let cubic = stepped(&[0.0, 0.7, 2.0], |t| t * t * t - t, |t| 3.0 * t * t - 1.0);
        let mut c = Cursor::default();
        for k in 0..=40 {
            let t = k as f64 * 0.05;
            let read = cubic.value(0, t, Side::After, &mut c).unwrap();
            assert!((read - (t * t * t - t)).abs() < 1e-14, "t {t}: {read}");
        }
        // Halving the step divides the error between the points by about 16.
        let error = |h: f64| {
            let times: Vec<f64> = (0..=(2.0 / h).round() as usize)
                .map(|k| k as f64 * h)
                .collect();
            let track = stepped(&times, f64::sin, f64::cos);
            let mut c = Cursor::default();
            (0..2000)
                .map(|k| k as f64 * 0.001)
                .map(|t| (track.value(0, t, Side::After, &mut c).unwrap() - t.sin()).abs())
                .fold(0.0, f64::max)
        };
        let ratio = error(0.2) / error(0.1);
        assert!((14.0..18.0).contains(&ratio), "ratio {ratio}");
        assert!(error(0.1) < 0.1f64.powi(4) / 384.0 * 1.01);
    }

    #[test]
    fn a_constant_reads_back_to_the_bit() {
        let x = 0.1 + 0.2;
        let track = stepped(&[0.0, 0.3, 1.7], |_| x, |_| 0.0);
        let mut c = Cursor::default();
        for k in 0..=170 {
            let t = k as f64 * 0.01;
            assert_eq!(track.value(0, t, Side::After, &mut c), Some(x), "t {t}");
        }
    }

    #[test]
    fn a_restart_that_changes_the_derivative_is_a_jump_of_the_derivative() {
        // x = t² up to 1, then x' = 5 from there on: the first step must stay a parabola.
        let mut track = stepped(&[0.0, 1.0], |t| t * t, |t| 2.0 * t);
        track.push_step(&[5.0], 2.0, &[6.0], &[5.0]);
        assert_eq!(track.times(), &[0.0, 1.0, 1.0, 2.0]);
        assert_eq!(track.slopes(1), &[2.0]);
        assert_eq!(track.slopes(2), &[5.0]);
        let mut c = Cursor::default();
        assert_eq!(track.value(0, 0.5, Side::After, &mut c), Some(0.25));
        assert_eq!(track.value(0, 1.5, Side::After, &mut c), Some(3.5));
        assert_eq!(track.value(0, 1.0, Side::Before, &mut c), Some(1.0));
        // The same derivative continues without a new point; an unknown one is filled in.
        track.push_step(&[5.0], 3.0, &[11.0], &[5.0]);
        track.push(3.0, &[0.0]);
        track.push_step(&[1.0], 4.0, &[1.0], &[1.0]);
        assert_eq!(track.times(), &[0.0, 1.0, 1.0, 2.0, 3.0, 3.0, 4.0]);
        assert_eq!(track.value(0, 3.5, Side::After, &mut c), Some(0.5));
        assert_eq!(track.value(0, 2.5, Side::After, &mut c), Some(8.5));
    }

    #[test]
    fn truncation_inside_a_step_keeps_the_cubic() {
        let mut track = stepped(&[0.0, 2.0], |t| t * t * t, |t| 3.0 * t * t);
        assert!(track.truncate(1.0));
        assert_eq!(track.times(), &[0.0, 1.0]);
        assert!((track.last_point()[0] - 1.0).abs() < 1e-15);
        assert!((track.slopes(1)[0] - 3.0).abs() < 1e-14);
        let read = track
            .value(0, 0.5, Side::After, &mut Cursor::default())
            .unwrap();
        assert!((read - 0.125).abs() < 1e-15, "{read}");
    }

    /// Tracks made of steps with derivatives, jumps (a point without one) and restarts that
    /// change the derivative.
    fn tracks() -> impl Strategy<Value = Track> {
        proptest::collection::vec(
            (
                0.0f64..1.0,
                -5.0f64..5.0,
                -5.0f64..5.0,
                -5.0f64..5.0,
                proptest::bool::weighted(0.1),
            ),
            1..60,
        )
        .prop_map(|points| {
            let mut track = Track::new(0.0, &[0.0]);
            let mut t = 0.0;
            let mut slope = 0.0;
            for (dt, v, start, end, jump) in points {
                if jump {
                    track.push(t, &[v]);
                } else {
                    t += dt + 1e-3;
                    // Mostly continuing with the last derivative, sometimes restarting.
                    let from = if start > 3.0 { start } else { slope };
                    track.push_step(&[from], t, &[v], &[end]);
                    slope = end;
                }
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
