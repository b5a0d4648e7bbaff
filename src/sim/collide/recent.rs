//! Each body variable's piece of track around the end of the next check window, kept in one
//! array where a body's variables sit side by side.
//!
//! A check window reads every active body's state at its end. With thousands of bodies, each
//! of several components, reading from the tracks costs a cache miss or more per component
//! (the track's lock, its times, its values): figure 5.11's 10,000 objects spent a sixth of
//! their run there. So each variable keeps a copy of one piece of its track: the step that
//! covers the next window end, taken when the step is reported and its piece is in cache,
//! or else the piece a read had to fetch from the track (a long step covers many windows;
//! components run ahead of the checks by several steps, so the step's own piece is often too
//! late). A piece read back gives exactly what the track gives, so the motion does not depend
//! on whether a read found its piece.

use crate::sim::track::{Piece, Track};
use crate::sim::VarId;

/// Per variable, one piece of its track: see the module documentation.
pub(crate) struct RecentPieces {
    pieces: Vec<Piece>,
}

impl RecentPieces {
    /// No pieces, for variables `0..vars`; later variables are never kept.
    pub fn new(vars: usize) -> RecentPieces {
        RecentPieces {
            pieces: vec![Piece::NOWHERE; vars],
        }
    }

    /// A component whose variables are `members` (in track column order) has just stepped
    /// to the end of `track`. Each member takes the step's piece if it holds `next`, the end
    /// of the next window to check, or if the kept piece ends before `next`. A step ending
    /// before `next` is of no use to any window: a component integrating everything as one
    /// takes many such steps, each over every variable.
    pub fn offer(&mut self, members: &[VarId], track: &Track, next: f64) {
        if track.end_time() < next {
            return;
        }
        for (column, var) in members.iter().enumerate() {
            let Some(kept) = self.pieces.get_mut(var.index()) else {
                continue;
            };
            if kept.holds(next) {
                continue;
            }
            if let Some(piece) = track.last_piece(column) {
                if piece.holds(next) || kept.to.is_nan() || kept.to < next {
                    *kept = piece;
                }
            }
        }
    }

    /// The value of `var` at `time` (after any jump there): from its kept piece if that
    /// holds `time`, else from the piece `fetch` finds in the track, which is kept instead.
    /// `None` if neither holds `time`.
    pub fn value(
        &mut self,
        var: VarId,
        time: f64,
        fetch: impl FnOnce() -> Option<Piece>,
    ) -> Option<f64> {
        let kept = self.pieces.get_mut(var.index())?;
        if !kept.holds(time) {
            *kept = fetch().filter(|piece| piece.holds(time))?;
        }
        Some(kept.value(time))
    }

    /// The track of a component whose variables are `members` was cut at `time`, or jumps
    /// there: their pieces reaching to `time` or later no longer read what the track reads.
    pub fn forget(&mut self, members: &[VarId], time: f64) {
        for var in members {
            if let Some(piece) = self.pieces.get_mut(var.index()) {
                if piece.to >= time {
                    *piece = Piece::NOWHERE;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn track(points: &[(f64, [f64; 2])]) -> Track {
        let mut track = Track::new(points[0].0, &points[0].1);
        for (t, values) in &points[1..] {
            track.push(*t, values);
        }
        track
    }

    const VARS: [VarId; 2] = [VarId(3), VarId(4)];

    fn kept(recent: &mut RecentPieces, var: VarId, time: f64) -> Option<f64> {
        recent.value(var, time, || None)
    }

    #[test]
    fn a_piece_holding_the_next_window_end_is_kept_over_later_steps() {
        let mut recent = RecentPieces::new(5);
        let mut steps = track(&[(0.0, [0.0, 1.0]), (0.15, [1.5, 1.0])]);
        recent.offer(&VARS, &steps, 0.1);
        steps.push(0.3, &[3.0, 2.0]);
        recent.offer(&VARS, &steps, 0.1);
        assert!((kept(&mut recent, VARS[0], 0.1).unwrap() - 1.0).abs() < 1e-12);
        assert_eq!(kept(&mut recent, VARS[1], 0.1), Some(1.0));
        // Once the window moves on past the kept piece, the next step's piece is taken.
        steps.push(0.4, &[4.0, 2.0]);
        recent.offer(&VARS, &steps, 0.2);
        assert_eq!(kept(&mut recent, VARS[0], 0.2), None);
        assert_eq!(kept(&mut recent, VARS[0], 0.4), Some(4.0));
        assert_eq!(kept(&mut recent, VarId(0), 0.4), None);
    }

    #[test]
    fn a_step_ahead_of_the_next_window_end_does_not_replace_a_piece_reaching_it() {
        let mut recent = RecentPieces::new(5);
        let mut steps = track(&[(0.0, [0.0, 1.0]), (0.05, [0.5, 1.0])]);
        let fetched = track(&[(0.0, [0.0, 1.0]), (0.25, [2.5, 1.0])]).last_piece(0);
        assert_eq!(recent.value(VARS[0], 0.1, || fetched), Some(1.0));
        steps.push(0.3, &[3.0, 2.0]);
        recent.offer(&VARS, &steps, 0.2);
        assert_eq!(kept(&mut recent, VARS[0], 0.2), Some(2.0));
        let taken = kept(&mut recent, VARS[1], 0.2).unwrap();
        assert!((taken - 1.6).abs() < 1e-12, "{taken}");
    }

    #[test]
    fn a_cut_at_or_before_a_piece_end_forgets_it() {
        let mut recent = RecentPieces::new(5);
        let steps = track(&[(0.0, [0.0, 1.0]), (0.2, [2.0, 1.0])]);
        recent.offer(&VARS, &steps, 0.1);
        recent.forget(&VARS, 0.25);
        assert_eq!(kept(&mut recent, VARS[0], 0.2), Some(2.0));
        recent.forget(&VARS[1..], 0.2);
        assert_eq!(kept(&mut recent, VARS[0], 0.2), Some(2.0));
        assert_eq!(kept(&mut recent, VARS[1], 0.2), None);
    }
}
