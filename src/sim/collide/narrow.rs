//! The time of first contact of one pair of bodies over a time interval, on the tracks'
//! interpolated states (5.2.3, 5.3.1).
//!
//! Conservative advancement: at a time where the shapes are `d` apart, and with `s` a bound on
//! how fast any point of one can approach the other (relative speed of the centres plus each
//! angular speed times how far the shape's surface lies from its centre of mass, counting a
//! ball's centre rather than its surface since a ball turning about its centre does not move
//! its surface), nothing can touch before `d / s` later, so the search jumps there and
//! measures again. A small fast ball and a thin plate therefore cannot pass through each other
//! between two looks, however large the time step. The one exception is a graze: after a few
//! looks, each look is at least as far from the last as a shallow sinking in takes (see
//! `GRAZE`), so a pair sliding past each other a hair apart is not measured at every hair's
//! width of motion. When a look finds the pair already interpenetrating (the bound was
//! exceeded, or the interval ends inside), the contact time is found by bisection between the
//! last time apart and that time, to within the distance tolerance or the time tolerance. A
//! pair whose bounding spheres are too far apart to meet within the interval at that speed is
//! passed over without measuring the shapes.

use super::bodies::{CollisionBody, Kinematics};
use super::readers::BodyReader;
use crate::geom::distance::{closest_between_shapes, ShapeContact, ShapePairCache};
use crate::sim::schedule::StepContext;
use nalgebra::Vector3;
use std::cell::RefCell;

/// The speed bound is taken from the interval's ends and its chord; motion within the interval
/// may be a little faster (the velocity changes), so the bound is widened by this factor.
const SPEED_MARGIN: f64 = 1.5;
/// Looks per pair and interval before the search falls back to bisecting the rest of it.
const MAX_LOOKS: usize = 200;
/// Bisection halvings at most (the time tolerance normally ends it far sooner).
const MAX_HALVINGS: usize = 80;
/// A pair in contact but not approaching is looked at again after this fraction of the
/// interval.
const CONTACT_SUBSTEPS: f64 = 64.0;
/// A pair touching at one look and found sunk into each other deeper than this many distance
/// tolerances at the next is bisected back to where it began to approach: a brick pushed
/// into its neighbour would otherwise sink by a sixty-fourth of the interval times the
/// approach speed. Shallower, it is taken where found: a resting pair starts to approach
/// again under its weight right after each hop, and bisecting back to that would find it
/// again and again a moment later.
const SINK_DEPTH: f64 = 100.0;

/// After this many looks at a pair that is apart, each look is at least as far from the last
/// as it takes the pair to sink this fraction of the sum of its reaches into each other at its
/// fastest. A contact deeper than that is found sunk in at the next look and bisected back to
/// its start; a graze the pair's own motion ends sooner may pass unseen, overlapping by at most
/// that much. Without it, a pair turning or sliding past each other a hair apart is looked at
/// every hair's width of motion: thousands of looks per window (47 million looks for 20,000
/// collisions in the first 0.6 s of the wall example).
const GRAZE: f64 = 1e-3;
/// Looks at a pair before the graze floor applies: the first ones follow conservative
/// advancement alone, so a contact that comes soon is found at its start without bisection.
const PATIENCE: usize = 16;

/// A pair of bodies and what the search needs to know about them.
pub(crate) struct Pair<'a> {
    pub a: &'a CollisionBody,
    pub b: &'a CollisionBody,
    /// Bounds on how fast the shapes can approach each other over the interval.
    pub speed: ApproachBound,
    /// Distances up to this count as touching.
    pub tolerance: f64,
    /// Contact times are found to within this.
    pub time_tolerance: f64,
    /// Shapes in contact that approach slower than this are taken as resting against each
    /// other, not as colliding: a pair whose impulses leave it approaching by a rounding error
    /// would otherwise collide again at the same instant, endlessly.
    pub approach_tolerance: f64,
    /// States of both bodies already read, with their time (the interval's ends), so that
    /// looks there need not read the tracks again.
    pub known: [(f64, Kinematics, Kinematics); 2],
}

/// A contact found: the time, the geometry there and both states (after any jump there).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Found {
    pub time: f64,
    pub contact: ShapeContact,
    pub a: Kinematics,
    pub b: Kinematics,
    /// A loaded persistent pair come apart (see `contact::opens`), not a contact.
    pub opens: bool,
}

/// Bounds on how fast two bodies' shapes approach each other over an interval, from their
/// states at its ends.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ApproachBound {
    /// B's velocity relative to A's at both ends, and the relative displacement over the
    /// interval divided by its duration.
    relative: [Vector3<f64>; 3],
    /// How fast the bodies' points can move about their centres of mass, together.
    spin: f64,
}

impl ApproachBound {
    pub fn new(
        a: &CollisionBody,
        (a0, a1): (&Kinematics, &Kinematics),
        b: &CollisionBody,
        (b0, b1): (&Kinematics, &Kinematics),
        duration: f64,
    ) -> ApproachBound {
        let chord = if duration > 0.0 {
            ((b1.position - b0.position) - (a1.position - a0.position)) / duration
        } else {
            Vector3::zeros()
        };
        let spin = |body: &CollisionBody, x: &Kinematics, y: &Kinematics| {
            body.spin_reach * x.angular_velocity.norm().max(y.angular_velocity.norm())
        };
        ApproachBound {
            relative: [b0.velocity - a0.velocity, b1.velocity - a1.velocity, chord],
            spin: spin(a, a0, a1) + spin(b, b0, b1),
        }
    }

    /// In any direction.
    pub fn any(&self) -> f64 {
        let linear = self.relative.iter().map(|r| r.norm()).fold(0.0, f64::max);
        SPEED_MARGIN * (linear + self.spin)
    }

    /// Along the unit vector `n` from A to B: how fast the gap between the shapes measured
    /// along `n` can shrink. The gap along any fixed direction is at most the distance, so
    /// from a distance `d` measured with closest-point direction `n` the shapes cannot touch
    /// sooner than `d` over this: a pair sliding fast past each other but closing slowly is
    /// looked at as often as its closing needs, not its sliding.
    pub fn along(&self, n: &Vector3<f64>) -> f64 {
        let linear = self.relative.iter().map(|r| -r.dot(n)).fold(0.0, f64::max);
        SPEED_MARGIN * (linear + self.spin)
    }
}

/// The first time in `[from, to]` at which the pair touches while approaching, if any.
/// `readers` are where each body's state was last read: the looks mostly go forward in time
/// by a little, and each body's reads start where its last one was.
pub(crate) fn first_contact(
    pair: &Pair<'_>,
    context: &StepContext<'_>,
    (from, to): (f64, f64),
    readers: [BodyReader<'_>; 2],
    cache: &mut ShapePairCache,
) -> Option<Found> {
    let known = |t: f64| pair.known.iter().find(|known| known.0 == t);
    let readers = RefCell::new(readers);
    let look = |t: f64, cache: &mut ShapePairCache| -> Option<Found> {
        let (a, b) = match known(t) {
            Some(&(_, a, b)) => (a, b),
            None => {
                let [read_a, read_b] = &mut *readers.borrow_mut();
                (
                    read_a.state(pair.a, context, t)?,
                    read_b.state(pair.b, context, t)?,
                )
            }
        };
        let contact = closest_between_shapes(
            pair.a.shape.as_ref()?,
            &pair.a.pose(&a),
            pair.b.shape.as_ref()?,
            &pair.b.pose(&b),
            cache,
        );
        Some(Found {
            time: t,
            contact,
            a,
            b,
            opens: false,
        })
    };
    let approaching = |f: &Found| {
        let c = &f.contact.contact;
        let point = (c.point_a + c.point_b) / 2.0;
        (f.b.point_velocity(&point) - f.a.point_velocity(&point)).dot(&c.normal)
            < -pair.approach_tolerance
    };

    let hits = |f: &Found| f.contact.contact.distance <= pair.tolerance && approaching(f);

    // Bounding spheres (about the centres of mass, as far as the shapes reach) farther apart
    // than the pair can close over the interval, and still apart at its end: the search below
    // would look at both ends only and find nothing, so the shapes need not be measured.
    let gap = |&(_, a, b): &(f64, Kinematics, Kinematics)| {
        (b.position - a.position).norm() - pair.a.reach - pair.b.reach
    };
    if let (Some(start), Some(end)) = (known(from), known(to)) {
        if gap(start) > pair.tolerance + pair.speed.any() * (to - from) && gap(end) > pair.tolerance
        {
            return None;
        }
    }

    let graze = GRAZE * (pair.a.reach + pair.b.reach) / pair.speed.any();
    let mut t = from;
    // The last time the pair was seen not colliding, and how deep it may be found sunk in
    // after that before the search bisects back: past the tolerance when it was apart, past
    // the sink depth when it was touching (see `SINK_DEPTH`).
    let mut clear: Option<(f64, f64)> = None;
    for looks in 0..MAX_LOOKS {
        let found = look(t, cache)?;
        let d = found.contact.contact.distance;
        if hits(&found) {
            return Some(match clear {
                Some((lo, depth)) if d < -depth => bisect(pair, lo, found, cache, &look, &hits),
                _ => found,
            });
        }
        if t >= to {
            return None;
        }
        t = if d <= pair.tolerance {
            // Touching but separating: look again a little later.
            clear = Some((t, SINK_DEPTH * pair.tolerance));
            (t + (to - from) / CONTACT_SUBSTEPS).min(to)
        } else {
            clear = Some((t, pair.tolerance));
            let floor = if looks < PATIENCE { 0.0 } else { graze };
            let advance = ((d - pair.tolerance / 2.0)
                / pair.speed.along(&found.contact.contact.normal))
            .max(floor);
            if advance.is_finite() {
                (t + advance).min(to)
            } else {
                to
            }
        };
    }
    // Too slow an approach for advancement to converge: walk the rest of the interval in even
    // strides rather than look only at its end, where a pair that went on into each other may
    // already be coming apart through the far side.
    // (A stride too short to move `lo` in floating point, as an interval of a few ulps gives,
    // goes straight to the end: the walk always ends.)
    let stride = (to - t) / CONTACT_SUBSTEPS;
    let mut lo = t;
    while lo < to {
        let next = if to - lo > stride && lo + stride > lo {
            lo + stride
        } else {
            to
        };
        let found = look(next, cache)?;
        if hits(&found) {
            return Some(if found.contact.contact.distance < -pair.tolerance {
                bisect(pair, lo, found, cache, &look, &hits)
            } else {
                found
            });
        }
        lo = next;
    }
    None
}

/// Narrows `[lo, inside.time]` (no contact at `lo`, an approaching contact with
/// interpenetration at `inside`) to the first time of an approaching contact.
fn bisect(
    pair: &Pair<'_>,
    mut lo: f64,
    inside: Found,
    cache: &mut ShapePairCache,
    look: &dyn Fn(f64, &mut ShapePairCache) -> Option<Found>,
    hits: &dyn Fn(&Found) -> bool,
) -> Found {
    let mut hi = inside.time;
    let mut best = inside;
    for _ in 0..MAX_HALVINGS {
        if hi - lo <= pair.time_tolerance {
            break;
        }
        let mid = 0.5 * (lo + hi);
        let Some(found) = look(mid, cache) else {
            break;
        };
        if hits(&found) {
            hi = mid;
            let shallow = found.contact.contact.distance >= -pair.tolerance;
            best = found;
            if shallow {
                break;
            }
        } else {
            lo = mid;
        }
    }
    best
}
