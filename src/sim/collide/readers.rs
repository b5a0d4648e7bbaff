//! Where each body's state was last read: per state variable, a cursor into its track and a
//! copy of one piece of it (two consecutive points).
//!
//! The collider reads states at times close to its last reads: a check window reads every
//! active body at the window's end, and a pair's looks during one check mostly fall in the
//! steps of the look before (six looks in seven in the wall example's collapse). Reading the
//! tracks costs a lock and a search per component, and cache misses when the track was
//! written long before: with 10,000 bodies of several components each, the window reads
//! were a sixth of figure 5.11's run, and in the wall example the looks' reads a fifth. A read
//! served from the kept pieces touches none of that. Each variable's piece is the one the last
//! read of it had to fetch from the track, or the step that covers the next window end,
//! copied when the step is reported and in cache (a long step serves many windows; components
//! run several steps ahead of the checks). A piece reads exactly what the track reads, and a
//! truncation forgets the pieces it cuts, so the motion does not depend on whether a read found
//! its piece.

use super::bodies::{CollisionBody, Kinematics};
use crate::sim::memory::refill;
use crate::sim::physics::BODY_VARIABLES;
use crate::sim::schedule::StepContext;
use crate::sim::track::{Cursor, Piece, Track};
use crate::sim::VarId;

/// The reading places of all bodies; see the module documentation.
#[derive(Default)]
pub(crate) struct Readers {
    /// Per body, a cursor per state variable.
    cursors: Vec<[Cursor; BODY_VARIABLES]>,
    /// Per state variable (numbered body after body), its kept piece.
    pieces: Vec<Piece>,
    /// Per body, its first state variable, if it has any (a fixed body has none).
    first: Vec<Option<usize>>,
}

/// One body's reading place.
pub(crate) struct BodyReader<'a> {
    cursors: &'a mut [Cursor; BODY_VARIABLES],
    pieces: Option<&'a mut [Piece; BODY_VARIABLES]>,
}

impl Readers {
    /// Nothing read yet, for `bodies`, in the memory of `self` (whatever it had read is
    /// forgotten): an edit's collider takes its predecessor's tables over instead of
    /// allocating new ones of the same size, whose first writes were page faults (a piece per
    /// state variable: 0.6 MB at 1,000 bodies). `Readers::default().reset(…)` allocates.
    /// Each table is made with room for more
    /// ([`with_room`](crate::sim::memory::with_room)), so that the next edit adding a body
    /// finds room for it.
    pub fn reset(mut self, bodies: &[CollisionBody]) -> Readers {
        refill(&mut self.first, bodies.len(), None);
        for (first, body) in self.first.iter_mut().zip(bodies) {
            *first = body.model.vars.map(|vars| vars.at(0).index());
        }
        let variables = self
            .first
            .iter()
            .flatten()
            .map(|f| f + BODY_VARIABLES)
            .max();
        let nothing_read = [Cursor::default(); BODY_VARIABLES];
        refill(&mut self.cursors, bodies.len(), nothing_read);
        refill(&mut self.pieces, variables.unwrap_or(0), Piece::NOWHERE);
        self
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

    /// Body `b`'s reading place.
    pub fn of(&mut self, b: usize) -> BodyReader<'_> {
        BodyReader {
            cursors: &mut self.cursors[b],
            pieces: self.first[b].map(|first| body_pieces(&mut self.pieces[first..])),
        }
    }

    /// The reading places of bodies `i` and `j`, `i < j`.
    pub fn two(&mut self, i: usize, j: usize) -> [BodyReader<'_>; 2] {
        let (cursors_i, cursors_j) = self.cursors.split_at_mut(j);
        let (pieces_i, pieces_j) = match (self.first[i], self.first[j]) {
            (Some(a), Some(b)) => {
                let (low, high) = self.pieces.split_at_mut(b);
                (Some(body_pieces(&mut low[a..])), Some(body_pieces(high)))
            }
            (Some(a), None) => (Some(body_pieces(&mut self.pieces[a..])), None),
            (None, Some(b)) => (None, Some(body_pieces(&mut self.pieces[b..]))),
            (None, None) => (None, None),
        };
        [
            BodyReader {
                cursors: &mut cursors_i[i],
                pieces: pieces_i,
            },
            BodyReader {
                cursors: &mut cursors_j[0],
                pieces: pieces_j,
            },
        ]
    }
}

/// The pieces of the body whose variables start `pieces`.
fn body_pieces(pieces: &mut [Piece]) -> &mut [Piece; BODY_VARIABLES] {
    (&mut pieces[..BODY_VARIABLES])
        .try_into()
        .expect("a body has BODY_VARIABLES state variables")
}

impl BodyReader<'_> {
    /// `body`'s state at `t` (after any jump there), if computed: each variable from its
    /// kept piece if that holds `t`, else from its track, keeping the piece found there. At a
    /// jump, where no piece reads what the track reads, from the tracks alone.
    pub fn state(
        &mut self,
        body: &CollisionBody,
        context: &StepContext<'_>,
        t: f64,
    ) -> Option<Kinematics> {
        let (Some(pieces), Some(vars)) = (self.pieces.as_deref_mut(), body.model.vars) else {
            return body.state_from(context, t, self.cursors);
        };
        let mut v = [0.0; BODY_VARIABLES];
        for (k, value) in v.iter_mut().enumerate() {
            if !pieces[k].holds(t) {
                match context.piece(vars.at(k), t, &mut self.cursors[k]) {
                    Some(piece) if piece.holds(t) => pieces[k] = piece,
                    _ => return body.state_from(context, t, self.cursors),
                }
            }
            *value = pieces[k].value(t);
        }
        Some(body.kinematics(&v))
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

    fn readers() -> Readers {
        Readers {
            cursors: Vec::new(),
            pieces: vec![Piece::NOWHERE; 5],
            first: Vec::new(),
        }
    }

    /// Variable `var`'s value at `time` from its kept piece alone.
    fn kept(readers: &Readers, var: VarId, time: f64) -> Option<f64> {
        let piece = readers.pieces[var.index()];
        piece.holds(time).then(|| piece.value(time))
    }

    #[test]
    fn a_piece_holding_the_next_window_end_is_kept_over_later_steps() {
        let mut readers = readers();
        let mut steps = track(&[(0.0, [0.0, 1.0]), (0.15, [1.5, 1.0])]);
        readers.offer(&VARS, &steps, 0.1);
        steps.push(0.3, &[3.0, 2.0]);
        readers.offer(&VARS, &steps, 0.1);
        assert!((kept(&readers, VARS[0], 0.1).unwrap() - 1.0).abs() < 1e-12);
        assert_eq!(kept(&readers, VARS[1], 0.1), Some(1.0));
        // Once the window moves on past the kept piece, the next step's piece is taken.
        steps.push(0.4, &[4.0, 2.0]);
        readers.offer(&VARS, &steps, 0.2);
        assert_eq!(kept(&readers, VARS[0], 0.2), None);
        assert_eq!(kept(&readers, VARS[0], 0.4), Some(4.0));
        // Variables beyond the bodies' are never kept.
        readers.offer(&[VarId(7)], &steps, 0.35);
    }

    #[test]
    fn a_step_ahead_of_the_next_window_end_does_not_replace_a_piece_reaching_it() {
        let mut readers = readers();
        let fetched = track(&[(0.0, [0.0, 1.0]), (0.25, [2.5, 1.0])]);
        readers.offer(&VARS[..1], &fetched, 0.1);
        let mut steps = track(&[(0.0, [0.0, 1.0]), (0.05, [0.5, 1.0])]);
        steps.push(0.3, &[3.0, 2.0]);
        readers.offer(&VARS, &steps, 0.2);
        assert_eq!(kept(&readers, VARS[0], 0.2), Some(2.0));
        let taken = kept(&readers, VARS[1], 0.2).unwrap();
        assert!((taken - 1.6).abs() < 1e-12, "{taken}");
    }

    #[test]
    fn a_reset_forgets_every_piece_and_fits_the_bodies_given() {
        let text = "shape_set s desc {sphere 1}\nbody a shape s\nbody b shape s init_pos {3 0 0}\n";
        let scene = crate::scene::evaluate(text).unwrap();
        let model = crate::sim::physics::Model::compile(&scene).unwrap();
        let bodies = super::super::bodies::collision_bodies(&scene, &model, Vec::new());
        let mut readers = Readers::default().reset(&bodies);
        let first = readers.first[1].unwrap();
        let var = VarId(first as u32);
        let vars = [var, VarId(var.0 + 1)];
        let steps = track(&[(0.0, [0.0, 1.0]), (0.2, [2.0, 1.0])]);
        readers.offer(&vars, &steps, 0.1);
        assert_eq!(kept(&readers, var, 0.2), Some(2.0));
        // Again for the same bodies: nothing kept.
        let mut readers = readers.reset(&bodies);
        assert_eq!(kept(&readers, var, 0.2), None);
        assert_eq!(readers.cursors.len(), 2);
        // For the first body alone: its variables only.
        readers.offer(&vars, &steps, 0.1);
        let readers = readers.reset(&bodies[..1]);
        let own = readers.first[0].unwrap();
        assert_eq!(readers.first.len(), 1);
        assert_eq!(readers.cursors.len(), 1);
        assert_eq!(readers.pieces.len(), own + BODY_VARIABLES);
        assert!(readers.pieces.iter().all(|p| p.from.is_nan()));
    }

    #[test]
    fn a_cut_at_or_before_a_piece_end_forgets_it() {
        let mut readers = readers();
        let steps = track(&[(0.0, [0.0, 1.0]), (0.2, [2.0, 1.0])]);
        readers.offer(&VARS, &steps, 0.1);
        readers.forget(&VARS, 0.25);
        assert_eq!(kept(&readers, VARS[0], 0.2), Some(2.0));
        readers.forget(&VARS[1..], 0.2);
        assert_eq!(kept(&readers, VARS[0], 0.2), Some(2.0));
        assert_eq!(kept(&readers, VARS[1], 0.2), None);
    }
}
