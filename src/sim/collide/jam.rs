//! The last resort for an instant whose contacts the passes of impulses do not resolve: the
//! bodies still pushed against each other move on together, as one plastic lump.
//!
//! Passes of impulses fail in a wedge (a brick squeezed between the floor and a sleeper, pushed
//! from the side) where each contact undoes a little of what the others did, pass after pass.
//! Stopping every body still pushed ended that, but it stopped a 20 kg wrecking ball dead at
//! 6 m/s because one of the bricks it drove was wedged. Instead, each group of bodies joined by
//! contacts still pushed moves on as one rigid body, as in a perfectly plastic collision: a
//! lump touching nothing immovable gets the rigid motion that keeps its momentum and its
//! angular momentum (the one of least kinetic energy that does), so a jam struck off-centre
//! turns as a whole; a lump touching an immovable body (fixed, or following a trajectory; the
//! sleepers in and around a jam wake) gets its common velocity (total momentum over total
//! mass) without spin, less the part that would drive it into such a body, since a turning
//! lump could drive some other point of it in. Between the lump's members nothing approaches
//! any more; a lump driven into immovable bodies from all sides stops.

use super::bodies::Kinematics;
use nalgebra::{Matrix3, Vector3};
use std::collections::HashMap;

/// Projections onto the immovable contacts' half-spaces at most; a lump whose velocity still
/// drives into one after them stops.
const PROJECTIONS: usize = 50;

/// One contact of the jammed instant: the pair and the unit normal from the first to the
/// second.
pub(crate) struct JamContact {
    pub bodies: (usize, usize),
    pub normal: Vector3<f64>,
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
        // The directions in which the lump may not move: into an immovable body it touches.
        let away: Vec<Vector3<f64>> = contacts
            .iter()
            .filter_map(|c| {
                let (i, j) = c.bodies;
                match (lump.contains(&i), lump.contains(&j)) {
                    (true, false) if immovable(j) => Some(-c.normal),
                    (false, true) if immovable(i) => Some(c.normal),
                    _ => None,
                }
            })
            .collect();
        let velocity = allowed(momentum / total, &away);
        let spin = if away.is_empty() {
            lump_spin(&members, &centre, &velocity)
        } else {
            Vector3::zeros()
        };
        for m in members {
            let state = states.get_mut(&m.body).expect("a member's state");
            state.velocity = velocity + spin.cross(&(m.state.position - centre));
            state.angular_velocity = spin;
            state.momentum = m.inertia * spin;
        }
    }
}

/// The angular velocity of the rigid motion of `members` about their centre of mass `centre`,
/// moving at their common `velocity`, that keeps their angular momentum about it (taken from
/// their velocities relative to the lump's, which are smaller); none when their inertia about
/// it is singular.
fn lump_spin(members: &[Member], centre: &Vector3<f64>, velocity: &Vector3<f64>) -> Vector3<f64> {
    let mut angular = Vector3::zeros();
    let mut inertia = Matrix3::zeros();
    for m in members {
        let arm = m.state.position - centre;
        angular += arm.cross(&((m.state.velocity - velocity) * m.mass)) + m.state.momentum;
        // The parallel-axis theorem: the member's own inertia moved to the lump's centre.
        inertia +=
            m.inertia + (Matrix3::identity() * arm.norm_squared() - arm * arm.transpose()) * m.mass;
    }
    inertia
        .try_inverse()
        .map_or_else(Vector3::zeros, |inverse| inverse * angular)
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

/// `velocity` with what drives against any of the unit normals `away` taken out (cyclic
/// projection onto their half-spaces), or zero when that does not settle.
fn allowed(mut velocity: Vector3<f64>, away: &[Vector3<f64>]) -> Vector3<f64> {
    for _ in 0..PROJECTIONS {
        let mut feasible = true;
        for n in away {
            let into = velocity.dot(n);
            if into < 0.0 {
                velocity -= into * n;
                feasible = false;
            }
        }
        if feasible {
            return velocity;
        }
    }
    let slack = velocity.norm() * 1e-9;
    if away.iter().all(|n| velocity.dot(n) >= -slack) {
        velocity
    } else {
        Vector3::zeros()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::UnitQuaternion;

    fn moving(velocity: Vector3<f64>) -> Kinematics {
        Kinematics {
            position: Vector3::zeros(),
            rotation: UnitQuaternion::identity(),
            velocity,
            momentum: Vector3::new(0.0, 0.0, 1.0),
            angular_velocity: Vector3::new(0.0, 0.0, 1.0),
        }
    }

    /// Mass properties with `mass` and the unit inertia tensor.
    fn unit(mass: impl Fn(usize) -> f64) -> impl Fn(usize, &Kinematics) -> (f64, Matrix3<f64>) {
        move |b, _| (mass(b), Matrix3::identity())
    }

    #[test]
    fn a_lump_struck_off_centre_turns_keeping_momentum_and_angular_momentum() {
        // Body 1 at y = 1 moving along x jammed with body 2 at y = -1 at rest, nothing
        // immovable near: the lump turns about z as it moves on.
        let at = |y: f64, velocity: Vector3<f64>| Kinematics {
            position: Vector3::new(0.0, y, 0.0),
            momentum: Vector3::zeros(),
            angular_velocity: Vector3::zeros(),
            ..moving(velocity)
        };
        let before = HashMap::from([
            (1, at(1.0, 2.0 * Vector3::x())),
            (2, at(-1.0, Vector3::zeros())),
        ]);
        let mut states = before.clone();
        merge(&[(1, 2)], &[], &mut states, unit(|_| 1.0), |_| false);
        let totals = |states: &HashMap<usize, Kinematics>| {
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
        };
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
            },
            JamContact {
                bodies: (0, 2),
                normal: Vector3::y(),
            },
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
    fn a_body_wedged_between_immovable_bodies_stops() {
        // Pushed from both sides along x by immovable bodies 0 and 3.
        let mut states = HashMap::from([(1, moving(Vector3::new(2.0, 0.0, 0.0)))]);
        let contacts = [
            JamContact {
                bodies: (0, 1),
                normal: Vector3::x(),
            },
            JamContact {
                bodies: (1, 3),
                normal: Vector3::x(),
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
