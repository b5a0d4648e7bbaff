//! The last resort for an instant whose contacts the passes of impulses do not resolve: the
//! bodies still pushed against each other move on together, as one plastic lump.
//!
//! Passes of impulses fail in a wedge (a brick squeezed between the floor and a sleeper, pushed
//! from the side) where each contact undoes a little of what the others did, pass after pass.
//! Stopping every body still pushed ended that, but it stopped a 20 kg wrecking ball dead at
//! 6 m/s because one of the bricks it drove was wedged. Instead, each group of bodies joined by
//! contacts still pushed moves on as one rigid body, as in a perfectly plastic collision: it
//! gets the rigid motion that keeps its momentum and its angular momentum (the one of least
//! kinetic energy that does), so a jam struck off-centre turns as a whole. Where the lump
//! touches an immovable body (fixed, or following a trajectory; the sleepers in and around a
//! jam wake), that motion then takes plastic impulses at the corners of each touching region
//! until none of them drives into the body: a lump sliding on the floor keeps its spin about
//! the vertical, one tipping onto an edge turns about it. Between the lump's members nothing
//! approaches any more; a lump driven into immovable bodies from all sides stops.

use super::bodies::Kinematics;
use nalgebra::{Matrix3, Vector3};
use std::collections::HashMap;

/// Passes of impulses over the corners touching immovable bodies at most; a lump whose motion
/// still drives one of them in after them stops.
const PROJECTIONS: usize = 50;

/// One contact of the jammed instant: the pair, the unit normal from the first to the second
/// and the corners of the region over which they touch (at least one point).
pub(crate) struct JamContact {
    pub bodies: (usize, usize),
    pub normal: Vector3<f64>,
    pub corners: Vec<Vector3<f64>>,
}

/// A corner of a lump touching an immovable body: the arm from the lump's centre of mass to
/// it and the unit normal pointing out of the body, along which the corner may not approach.
struct Corner {
    arm: Vector3<f64>,
    normal: Vector3<f64>,
}

/// The rigid motion of a lump about its centre of mass.
#[derive(Clone, Copy, Debug)]
struct Motion {
    velocity: Vector3<f64>,
    spin: Vector3<f64>,
}

impl Motion {
    /// How fast `corner` moves along its normal (negative: into what it touches).
    fn along(&self, corner: &Corner) -> f64 {
        corner
            .normal
            .dot(&(self.velocity + self.spin.cross(&corner.arm)))
    }
}

/// One body of a lump as the jam found it.
struct Member {
    body: usize,
    state: Kinematics,
    mass: f64,
    /// World axes, about the body's centre of mass.
    inertia: Matrix3<f64>,
}

/// Moves the bodies of the `pushed` pairs in `states` on as plastic lumps (see the module
/// documentation), with `contacts` the instant's contacts (for the immovable bodies the lumps
/// touch), `inertia` each body's mass and world inertia tensor in a state, and `immovable`
/// whether a body cannot move at the instant.
pub(crate) fn merge(
    pushed: &[(usize, usize)],
    contacts: &[JamContact],
    states: &mut HashMap<usize, Kinematics>,
    inertia: impl Fn(usize, &Kinematics) -> (f64, Matrix3<f64>),
    immovable: impl Fn(usize) -> bool,
) {
    for lump in lumps(pushed, &immovable) {
        let members: Vec<Member> = lump
            .iter()
            .filter_map(|&body| {
                let state = *states.get(&body)?;
                let (mass, inertia) = inertia(body, &state);
                Some(Member {
                    body,
                    state,
                    mass,
                    inertia,
                })
            })
            .collect();
        let total: f64 = members.iter().map(|m| m.mass).sum();
        let momentum: Vector3<f64> = members.iter().map(|m| m.state.velocity * m.mass).sum();
        let centre: Vector3<f64> = members
            .iter()
            .map(|m| m.state.position * m.mass)
            .sum::<Vector3<f64>>()
            / total;
        // The corners at which the lump may not move into an immovable body it touches.
        let corners: Vec<Corner> = contacts
            .iter()
            .filter_map(|c| {
                let (i, j) = c.bodies;
                match (lump.contains(&i), lump.contains(&j)) {
                    (true, false) if immovable(j) => Some((c, -c.normal)),
                    (false, true) if immovable(i) => Some((c, c.normal)),
                    _ => None,
                }
            })
            .flat_map(|(c, normal)| {
                c.corners.iter().map(move |p| Corner {
                    arm: p - centre,
                    normal,
                })
            })
            .collect();
        let (free, inverse_inertia) = free_motion(&members, &centre, momentum / total);
        let motion = allowed(free, &corners, total, &inverse_inertia);
        for m in members {
            let state = states.get_mut(&m.body).expect("a member's state");
            state.velocity = motion.velocity + motion.spin.cross(&(m.state.position - centre));
            state.angular_velocity = motion.spin;
            state.momentum = m.inertia * motion.spin;
        }
    }
}

/// The rigid motion of `members` about their centre of mass `centre` at their common
/// `velocity` that keeps their angular momentum about it (taken from their velocities relative
/// to the lump's, which are smaller), and the inverse of their inertia about it; no spin and a
/// zero inverse when that inertia is singular.
fn free_motion(
    members: &[Member],
    centre: &Vector3<f64>,
    velocity: Vector3<f64>,
) -> (Motion, Matrix3<f64>) {
    let mut angular = Vector3::zeros();
    let mut inertia = Matrix3::zeros();
    for m in members {
        let arm = m.state.position - centre;
        angular += arm.cross(&((m.state.velocity - velocity) * m.mass)) + m.state.momentum;
        // The parallel-axis theorem: the member's own inertia moved to the lump's centre.
        inertia +=
            m.inertia + (Matrix3::identity() * arm.norm_squared() - arm * arm.transpose()) * m.mass;
    }
    let inverse = inertia.try_inverse().unwrap_or_else(Matrix3::zeros);
    let spin = inverse * angular;
    (Motion { velocity, spin }, inverse)
}

/// The movable bodies of `pushed`, grouped by the pairs that join them (in the order they
/// first appear, so that the result does not depend on a hash).
fn lumps(pushed: &[(usize, usize)], immovable: &impl Fn(usize) -> bool) -> Vec<Vec<usize>> {
    let mut lumps: Vec<Vec<usize>> = Vec::new();
    for &(i, j) in pushed {
        let find = |b: usize, lumps: &mut Vec<Vec<usize>>| -> Option<usize> {
            if immovable(b) {
                return None;
            }
            Some(match lumps.iter().position(|l| l.contains(&b)) {
                Some(k) => k,
                None => {
                    lumps.push(vec![b]);
                    lumps.len() - 1
                }
            })
        };
        if let (Some(a), Some(b)) = (find(i, &mut lumps), find(j, &mut lumps)) {
            if a != b {
                let (keep, gone) = (a.min(b), a.max(b));
                let moved = lumps.remove(gone);
                lumps[keep].extend(moved);
            }
        }
    }
    lumps
}

/// `motion` of a lump of mass `mass` and inverse inertia `inverse_inertia` after plastic
/// impulses at the `corners` that drive into what they touch, pass after pass until none does
/// (each impulse stops its corner's approach; none adds kinetic energy), or no motion when that
/// does not settle.
fn allowed(
    mut motion: Motion,
    corners: &[Corner],
    mass: f64,
    inverse_inertia: &Matrix3<f64>,
) -> Motion {
    for _ in 0..PROJECTIONS {
        let mut feasible = true;
        for corner in corners {
            let into = motion.along(corner);
            if into < 0.0 {
                let lever = corner.arm.cross(&corner.normal);
                let turn = inverse_inertia * lever;
                let impulse = -into / (1.0 / mass + lever.dot(&turn));
                motion.velocity += corner.normal * (impulse / mass);
                motion.spin += turn * impulse;
                feasible = false;
            }
        }
        if feasible {
            return motion;
        }
    }
    let speed = motion.velocity.norm()
        + corners
            .iter()
            .map(|c| motion.spin.cross(&c.arm).norm())
            .fold(0.0, f64::max);
    if corners.iter().all(|c| motion.along(c) >= -1e-9 * speed) {
        motion
    } else {
        Motion {
            velocity: Vector3::zeros(),
            spin: Vector3::zeros(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::UnitQuaternion;

    /// A body at `position` moving at `velocity` without turning.
    fn at(position: Vector3<f64>, velocity: Vector3<f64>) -> Kinematics {
        Kinematics {
            position,
            rotation: UnitQuaternion::identity(),
            velocity,
            momentum: Vector3::zeros(),
            angular_velocity: Vector3::zeros(),
        }
    }

    fn moving(velocity: Vector3<f64>) -> Kinematics {
        at(Vector3::zeros(), velocity)
    }

    /// The fixed floor, body 0, touching body `b` at `corners` (normal up, out of the floor).
    fn floor_under(b: usize, corners: &[Vector3<f64>]) -> JamContact {
        JamContact {
            bodies: (0, b),
            normal: Vector3::y(),
            corners: corners.to_vec(),
        }
    }

    /// Total momentum, angular momentum about the origin and kinetic energy of unit masses
    /// with unit inertia.
    fn totals(states: &HashMap<usize, Kinematics>) -> (Vector3<f64>, Vector3<f64>, f64) {
        let p: Vector3<f64> = states.values().map(|s| s.velocity).sum();
        let l: Vector3<f64> = states
            .values()
            .map(|s| s.position.cross(&s.velocity) + s.momentum)
            .sum();
        let e: f64 = states
            .values()
            .map(|s| 0.5 * (s.velocity.norm_squared() + s.angular_velocity.dot(&s.momentum)))
            .sum();
        (p, l, e)
    }

    /// Mass properties with `mass` and the unit inertia tensor.
    fn unit(mass: impl Fn(usize) -> f64) -> impl Fn(usize, &Kinematics) -> (f64, Matrix3<f64>) {
        move |b, _| (mass(b), Matrix3::identity())
    }

    #[test]
    fn a_lump_struck_off_centre_turns_keeping_momentum_and_angular_momentum() {
        // Body 1 at y = 1 moving along x jammed with body 2 at y = -1 at rest, nothing
        // immovable near: the lump turns about z as it moves on.
        let before = HashMap::from([
            (1, at(Vector3::y(), 2.0 * Vector3::x())),
            (2, at(-Vector3::y(), Vector3::zeros())),
        ]);
        let mut states = before.clone();
        merge(&[(1, 2)], &[], &mut states, unit(|_| 1.0), |_| false);
        let ((p0, l0, e0), (p1, l1, e1)) = (totals(&before), totals(&states));
        assert!(
            (p1 - p0).norm() < 1e-12 && (l1 - l0).norm() < 1e-12,
            "{p1:?} {l1:?}"
        );
        assert!(e1 < e0, "energy {e0} -> {e1}");
        let (a, b) = (&states[&1], &states[&2]);
        assert_eq!(a.angular_velocity, b.angular_velocity);
        assert!((a.angular_velocity - Vector3::new(0.0, 0.0, -0.5)).norm() < 1e-12);
        // Rigid: the members' velocities differ by the spin's sweep of the arm between them.
        let sweep = a.angular_velocity.cross(&(a.position - b.position));
        assert!((a.velocity - b.velocity - sweep).norm() < 1e-12);
    }

    #[test]
    fn a_heavy_body_and_the_light_one_it_pushes_move_on_together() {
        // A ball of 20 at 7 along -z jammed with a brick of 1 at rest, on a fixed floor (body 0)
        // below the brick: they move on at 140 / 21 along -z, the floor taking nothing.
        let mut states = HashMap::from([
            (1, moving(Vector3::new(0.0, -0.5, -7.0))),
            (2, moving(Vector3::zeros())),
        ]);
        let contacts = [
            JamContact {
                bodies: (1, 2),
                normal: -Vector3::z(),
                corners: vec![Vector3::zeros()],
            },
            floor_under(2, &[-0.5 * Vector3::y()]),
        ];
        let mass = |b: usize| if b == 1 { 20.0 } else { 1.0 };
        merge(&[(1, 2)], &contacts, &mut states, unit(mass), |b| b == 0);
        for b in [1, 2] {
            let v = states[&b].velocity;
            assert!((v.z + 140.0 / 21.0).abs() < 1e-12, "{v:?}");
            assert_eq!(v.y, 0.0, "driven into the floor");
            assert_eq!(states[&b].angular_velocity, Vector3::zeros());
        }
    }

    #[test]
    fn a_lump_sliding_on_the_floor_keeps_its_spin_about_the_vertical() {
        // Bodies 1 and 2 at x = ±1 on the floor moving ∓z turn about the vertical: the floor
        // takes nothing, the lump turns on at the rate that keeps its angular momentum.
        let before = HashMap::from([
            (1, at(Vector3::x(), Vector3::z())),
            (2, at(-Vector3::x(), -Vector3::z())),
        ]);
        let mut states = before.clone();
        let below = |x: f64| Vector3::new(x, -0.5, 0.0);
        let contacts = [
            floor_under(1, &[below(0.5), below(1.5)]),
            floor_under(2, &[below(-0.5), below(-1.5)]),
        ];
        merge(&[(1, 2)], &contacts, &mut states, unit(|_| 1.0), |b| b == 0);
        let ((p0, l0, _), (p1, l1, _)) = (totals(&before), totals(&states));
        assert!((p1 - p0).norm() < 1e-12 && (l1 - l0).norm() < 1e-12);
        // Inertia about y: 1 + 1 of their own, 1 + 1 from their arms.
        let spin = Vector3::new(0.0, -0.5, 0.0);
        for b in [1, 2] {
            assert!((states[&b].angular_velocity - spin).norm() < 1e-12);
        }
    }

    #[test]
    fn a_lump_landing_on_one_corner_turns_about_it() {
        // Bodies 1 and 2 at x = ±1 fall at 1 m/s; only a corner under body 1 meets the floor:
        // that corner stops, the lump turns about it and body 2 falls on.
        let before = HashMap::from([
            (1, at(Vector3::x(), -Vector3::y())),
            (2, at(-Vector3::x(), -Vector3::y())),
        ]);
        let mut states = before.clone();
        let corner = Vector3::new(1.5, -0.5, 0.0);
        let contacts = [floor_under(1, &[corner])];
        merge(&[(1, 2)], &contacts, &mut states, unit(|_| 1.0), |b| b == 0);
        let (a, b) = (&states[&1], &states[&2]);
        let arm = corner - a.position;
        let at_corner = a.velocity + a.angular_velocity.cross(&arm);
        assert!(at_corner.y.abs() < 1e-12, "{at_corner:?}");
        assert!(a.angular_velocity.z > 0.1, "{:?}", a.angular_velocity);
        assert!(b.velocity.y < -0.5, "{:?}", b.velocity);
        let ((_, _, e0), (_, _, e1)) = (totals(&before), totals(&states));
        assert!(e1 < e0, "energy {e0} -> {e1}");
    }

    #[test]
    fn a_body_wedged_between_immovable_bodies_stops() {
        // Pushed from both sides along x by immovable bodies 0 and 3.
        let mut states = HashMap::from([(1, moving(Vector3::new(2.0, 0.0, 0.0)))]);
        let contacts = [
            JamContact {
                bodies: (0, 1),
                normal: Vector3::x(),
                corners: vec![-Vector3::x()],
            },
            JamContact {
                bodies: (1, 3),
                normal: Vector3::x(),
                corners: vec![Vector3::x()],
            },
        ];
        merge(
            &[(0, 1), (1, 3)],
            &contacts,
            &mut states,
            unit(|_| 1.0),
            |b| b != 1,
        );
        assert_eq!(states[&1].velocity, Vector3::zeros());
    }

    #[test]
    fn separate_jams_make_separate_lumps() {
        let mut states = HashMap::from([
            (1, moving(Vector3::x())),
            (2, moving(Vector3::zeros())),
            (3, moving(-Vector3::x())),
            (4, moving(Vector3::zeros())),
        ]);
        merge(&[(1, 2), (3, 4)], &[], &mut states, unit(|_| 1.0), |_| {
            false
        });
        assert_eq!(states[&2].velocity, Vector3::x() / 2.0);
        assert_eq!(states[&4].velocity, -Vector3::x() / 2.0);
    }
}
