//! The impulses with which one contact island's persistent contacts hold its bodies over one
//! contact tick: projected Gauss–Seidel over every corner of every contact, with Coulomb
//! friction.
//!
//! Each body enters with the velocities it would have at the end of the tick without its
//! contacts (its own forces only). The solve finds, per corner, a normal impulse `λ ≥ 0` and
//! a friction impulse across the normal within `μ λ`, such that at the end of the tick every
//! corner separates at least at its contact's target speed (zero for a contact that touches,
//! slightly positive to push an overlap apart, negative to let a small gap close) and no
//! corner within the friction cone slides. Spread over the tick as a constant force, the
//! impulse on a body resting on a fixed floor is its weight times the tick exactly, so the body
//! neither sinks nor hops. Impulses are accumulated per corner and clamped as totals (not per
//! sweep), so a later sweep can take back what an earlier one overdid; that is what lets a
//! stack settle on the right share of weight per contact.

use super::exact::solve_active;
use nalgebra::{Matrix3, Vector3};

/// A body as the solve sees it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SolverBody {
    /// Zero for an immovable body (fixed, following a trajectory, asleep).
    pub inverse_mass: f64,
    /// World axes; zero for an immovable body.
    pub inverse_inertia: Matrix3<f64>,
    /// The centre of mass.
    pub position: Vector3<f64>,
    /// At the end of the tick, as the solve has it so far.
    pub velocity: Vector3<f64>,
    pub angular_velocity: Vector3<f64>,
}

impl SolverBody {
    pub(super) fn point_velocity(&self, point: &Vector3<f64>) -> Vector3<f64> {
        self.velocity + self.angular_velocity.cross(&(point - self.position))
    }

    pub(super) fn apply(&mut self, point: &Vector3<f64>, impulse: &Vector3<f64>) {
        self.apply_from(&(point - self.position), impulse);
    }

    /// [`SolverBody::apply`] at `from` the centre of mass.
    fn apply_from(&mut self, from: &Vector3<f64>, impulse: &Vector3<f64>) {
        self.velocity += impulse * self.inverse_mass;
        self.angular_velocity += self.inverse_inertia * from.cross(impulse);
    }
}

/// How one corner's relative velocity (B's point velocity less A's) answers an impulse `p`
/// there (on B, and `-p` on A): by `compliance · p`. Worked out once per solve, so that a
/// sweep reads each corner's velocity once and applies its normal and friction impulses
/// together (two reads, two applications and two compliances across the normal per corner
/// were most of a sweep's work).
struct Reach {
    /// The corner from each body's centre of mass.
    from_a: Vector3<f64>,
    from_b: Vector3<f64>,
    compliance: Matrix3<f64>,
    /// `compliance · normal`, and the normal's component of that.
    along_normal: Vector3<f64>,
    normal_compliance: f64,
}

impl Reach {
    fn of(a: &SolverBody, b: &SolverBody, point: &Vector3<f64>, normal: &Vector3<f64>) -> Reach {
        let (from_a, from_b) = (point - a.position, point - b.position);
        // An impulse p at r changes the point's velocity by p/m + (I⁻¹ (r × p)) × r, that is by
        // (1/m − [r]× I⁻¹ [r]×) p.
        let turn = |r: &Vector3<f64>, inverse_inertia: &Matrix3<f64>| {
            let cross = r.cross_matrix();
            -(cross * inverse_inertia * cross)
        };
        let compliance = Matrix3::identity() * (a.inverse_mass + b.inverse_mass)
            + turn(&from_a, &a.inverse_inertia)
            + turn(&from_b, &b.inverse_inertia);
        let along_normal = compliance * normal;
        Reach {
            from_a,
            from_b,
            compliance,
            along_normal,
            normal_compliance: normal.dot(&along_normal),
        }
    }
}

/// One persistent contact of the island: bodies `a` and `b` (indices into the solve's bodies)
/// touching at `corners` with the unit `normal` from A to B.
#[derive(Clone, Debug)]
pub(crate) struct SolverContact {
    pub a: usize,
    pub b: usize,
    pub corners: Vec<Vector3<f64>>,
    pub normal: Vector3<f64>,
    pub friction: f64,
    /// The normal speed at which every corner separates at least at the end of the tick.
    pub target: f64,
    /// Per corner, the impulses to start from (the last tick's at that corner, or none).
    pub warm: Vec<WarmCorner>,
}

/// The impulses one solve put on one corner, kept to start the next solve from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct WarmCorner {
    /// Where the corner was (world).
    pub point: Vector3<f64>,
    /// Along the normal.
    pub normal: f64,
    /// Across it (friction).
    pub across: Vector3<f64>,
}

impl WarmCorner {
    /// A corner at `point` with no impulse yet.
    pub fn cold(point: Vector3<f64>) -> WarmCorner {
        WarmCorner {
            point,
            normal: 0.0,
            across: Vector3::zeros(),
        }
    }
}

/// What the solve gives each body: the total impulse on it and the total angular impulse
/// about its centre of mass.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Held {
    pub impulse: Vector3<f64>,
    pub angular: Vector3<f64>,
}

/// What the solve found: per body what holds it, per contact the impulses per corner (to
/// warm-start the next tick).
pub(crate) struct Solution {
    pub held: Vec<Held>,
    pub warm: Vec<Vec<WarmCorner>>,
}

/// The sweeps after which, when they have not met the tolerance, a resting island is solved
/// exactly on the active set they found (see `exact`).
const EXACT_AFTER: [usize; 3] = [4, 16, 64];
/// Sweeps over which a solve whose largest change no longer shrinks by [`STALL_SHRINK`] is
/// given up, when it may stall (see [`solve`]).
const STALL_SWEEPS: usize = 10;
const STALL_SHRINK: f64 = 0.99;

/// How far one solve goes (see [`solve`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    /// The largest change of a corner's velocity in a sweep that ends the solve.
    pub tolerance: f64,
    /// Sweeps at most.
    pub max_sweeps: usize,
    /// Whether the solve ends once its largest change per sweep stops shrinking: an
    /// instant's, and a tick's of an island that is not at rest.
    pub may_stall: bool,
    /// Whether the island is at rest (its bodies moving no faster than its own loads make
    /// them over the tick), so that its pressing corners probably stick and an exact solve on
    /// the active set of the sweeps may finish the solve (see `exact`). In an island that
    /// slides or bounces the sticking guess is wrong nine times in ten and each wrong guess
    /// costs a dense factorisation.
    pub resting: bool,
}

/// Solves the island `contacts` over `bodies` (changed to their velocities at the end of the
/// tick) until no corner's velocity changes by more than the tolerance in a sweep, or after
/// the most sweeps, or, when it may stall, once the largest change per sweep has stopped
/// shrinking. An instant's solve holds the bodies around the moved ones immovable, and then
/// the conditions may not all be met (a standing ball falls onto a moved one that rests on the
/// floor): every further sweep only adds the same impulse again, loads growing with the sweeps
/// into many times the bodies' weights, until the next tick solves the island whole. A tick's
/// solve, with every body of the island movable, can be met; the sweeps alone converge slowly
/// there (a stack of boxes), so a resting island is solved exactly on the active set they
/// find after [`EXACT_AFTER`] sweeps, and the sweeps go on only if that fails. They then run to
/// their limit: a resting wall too large for the exact solve, its sweeps stopped when they
/// stalled, crept by a millimetre in two seconds where it had stood and slept. An island that
/// slides or tumbles may stall: a heap of fallen bricks, with friction at every corner of every
/// face, still changed by 1e-3 to 1e-2 m/s a sweep after 200, shrinking by a thousandth a
/// sweep, and those sweeps were half of a 64-brick wall's processor time.
pub(crate) fn solve(
    bodies: &mut [SolverBody],
    contacts: &[SolverContact],
    limits: Limits,
) -> Solution {
    let Limits {
        tolerance,
        max_sweeps,
        may_stall,
        resting,
    } = limits;
    let mut normal: Vec<Vec<f64>> = Vec::with_capacity(contacts.len());
    let mut across: Vec<Vec<Vector3<f64>>> = Vec::with_capacity(contacts.len());
    let push =
        |bodies: &mut [SolverBody], c: &SolverContact, point: &Vector3<f64>, p: Vector3<f64>| {
            bodies[c.a].apply(point, &-p);
            bodies[c.b].apply(point, &p);
        };
    for c in contacts {
        let warm = |k: usize| {
            c.warm
                .get(k)
                .copied()
                .unwrap_or(WarmCorner::cold(c.corners[k]))
        };
        let mut start = Vec::with_capacity(c.corners.len());
        let mut start_across = Vec::with_capacity(c.corners.len());
        for (k, point) in c.corners.iter().enumerate() {
            let w = warm(k);
            // Friction from the last solve is kept only across this contact's normal.
            let t = w.across - w.across.dot(&c.normal) * c.normal;
            push(bodies, c, point, c.normal * w.normal + t);
            start.push(w.normal);
            start_across.push(t);
        }
        normal.push(start);
        across.push(start_across);
    }
    // How each corner's relative velocity answers an impulse there: fixed over the solve
    // (positions and inertias do not change), so worked out once, not once per sweep.
    let reach: Vec<Vec<Reach>> = contacts
        .iter()
        .map(|c| {
            c.corners
                .iter()
                .map(|point| Reach::of(&bodies[c.a], &bodies[c.b], point, &c.normal))
                .collect()
        })
        .collect();
    let mut recent = [f64::INFINITY; STALL_SWEEPS];
    // The pressing corners an exact solve last failed on. The exact solve depends on nothing
    // else (it starts from the bodies as they would move unheld, the same at every sweep), so
    // on the same corners it would fail again. In walls the attempts after the first
    // succeeded once or twice in a hundred; not repeating them on the same corners saved 3 to
    // 10 % of a wall's processor time, its motion the same to the bit.
    let mut failed_on: Option<Vec<Vec<bool>>> = None;
    for sweep in 0..max_sweeps {
        let mut largest: f64 = 0.0;
        for (k, c) in contacts.iter().enumerate() {
            let n = c.normal;
            for (corner, r) in reach[k].iter().enumerate() {
                let kn = r.normal_compliance;
                if !(kn > 0.0 && kn.is_finite()) {
                    continue;
                }
                let (a, b) = (&bodies[c.a], &bodies[c.b]);
                // The corner's relative velocity, read once and then moved on by the
                // compliance as the normal impulse changes.
                let mut relative = (b.velocity + b.angular_velocity.cross(&r.from_b))
                    - (a.velocity + a.angular_velocity.cross(&r.from_a));
                let u = relative.dot(&n);
                let next = (normal[k][corner] + (c.target - u) / kn).max(0.0);
                let change = next - normal[k][corner];
                let mut impulse = Vector3::zeros();
                if change != 0.0 {
                    normal[k][corner] = next;
                    impulse = n * change;
                    relative += r.along_normal * change;
                    largest = largest.max(change.abs() * kn);
                }
                if c.friction != 0.0 {
                    let sliding = relative - relative.dot(&n) * n;
                    let speed = sliding.norm();
                    let limit = c.friction * normal[k][corner];
                    if speed != 0.0 || across[k][corner].norm() > limit {
                        let (t, kt) = if speed > 0.0 {
                            let t = sliding / speed;
                            (t, t.dot(&(r.compliance * t)))
                        } else {
                            (Vector3::zeros(), 1.0)
                        };
                        if kt > 0.0 && kt.is_finite() {
                            let mut next = across[k][corner] - t * (speed / kt);
                            if next.norm() > limit {
                                next *= limit / next.norm();
                            }
                            let change = next - across[k][corner];
                            across[k][corner] = next;
                            impulse += change;
                            largest = largest.max(change.norm() * kt);
                        }
                    }
                }
                if impulse != Vector3::zeros() {
                    bodies[c.a].apply_from(&r.from_a, &-impulse);
                    bodies[c.b].apply_from(&r.from_b, &impulse);
                }
            }
        }
        if largest <= tolerance {
            break;
        }
        if resting && EXACT_AFTER.contains(&(sweep + 1)) {
            let pressing = pressing_corners(&normal);
            let exact = (failed_on.as_ref() != Some(&pressing))
                .then(|| solve_active(bodies, contacts, &normal, &across, &pressing, tolerance))
                .flatten();
            if exact.is_none() {
                failed_on = Some(pressing);
            }
            if let Some(exact) = exact {
                for (k, c) in contacts.iter().enumerate() {
                    for (corner, point) in c.corners.iter().enumerate() {
                        let p = c.normal * (exact.normal[k][corner] - normal[k][corner])
                            + (exact.across[k][corner] - across[k][corner]);
                        push(bodies, c, point, p);
                    }
                }
                (normal, across) = (exact.normal, exact.across);
                continue;
            }
        }
        let slot = sweep % STALL_SWEEPS;
        if may_stall && largest >= STALL_SHRINK * recent[slot] {
            break;
        }
        recent[slot] = largest;
    }
    // What holds each body: the corners' final impulses summed once, not every sweep's
    // change as it is made (a third of a sweep's work).
    let mut held = vec![Held::default(); bodies.len()];
    for (k, c) in contacts.iter().enumerate() {
        for (corner, point) in c.corners.iter().enumerate() {
            let p = c.normal * normal[k][corner] + across[k][corner];
            for (body, p) in [(c.a, -p), (c.b, p)] {
                held[body].impulse += p;
                held[body].angular += (point - bodies[body].position).cross(&p);
            }
        }
    }
    let warm = contacts
        .iter()
        .enumerate()
        .map(|(k, c)| {
            c.corners
                .iter()
                .enumerate()
                .map(|(corner, &point)| WarmCorner {
                    point,
                    normal: normal[k][corner],
                    across: across[k][corner],
                })
                .collect()
        })
        .collect();
    Solution { held, warm }
}

/// Per contact and corner, whether its normal impulse presses.
fn pressing_corners(normal: &[Vec<f64>]) -> Vec<Vec<bool>> {
    normal
        .iter()
        .map(|corners| corners.iter().map(|&l| l > 0.0).collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const G: f64 = 9.81;
    const TICK: f64 = 0.01;

    fn floor() -> SolverBody {
        SolverBody {
            inverse_mass: 0.0,
            inverse_inertia: Matrix3::zeros(),
            position: Vector3::zeros(),
            velocity: Vector3::zeros(),
            angular_velocity: Vector3::zeros(),
        }
    }

    /// A unit cube of mass `m` at height `y` with velocity `v` after a tick of gravity.
    fn cube(m: f64, y: f64, v: Vector3<f64>) -> SolverBody {
        SolverBody {
            inverse_mass: 1.0 / m,
            inverse_inertia: Matrix3::identity() * (6.0 / m),
            position: Vector3::new(0.0, y, 0.0),
            velocity: v - Vector3::new(0.0, G * TICK, 0.0),
            angular_velocity: Vector3::zeros(),
        }
    }

    fn face(a: usize, b: usize, y: f64, friction: f64) -> SolverContact {
        SolverContact {
            a,
            b,
            corners: [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)]
                .map(|(x, z)| Vector3::new(x, y, z))
                .to_vec(),
            normal: Vector3::y(),
            friction,
            target: 0.0,
            warm: Vec::new(),
        }
    }

    #[test]
    fn a_cube_resting_on_the_floor_is_held_by_its_weight_and_stays_still() {
        let mut bodies = [floor(), cube(2.0, 0.5, Vector3::zeros())];
        let solution = solve(&mut bodies, &[face(0, 1, 0.0, 0.5)], limits(100, true));
        let held = solution.held[1];
        assert!((held.impulse - Vector3::new(0.0, 2.0 * G * TICK, 0.0)).norm() < 1e-9);
        assert!(held.angular.norm() < 1e-9);
        assert!(bodies[1].velocity.norm() < 1e-9);
        assert!(bodies[1].angular_velocity.norm() < 1e-9);
    }

    #[test]
    fn a_stack_shares_the_weight_of_everything_above_each_contact() {
        let mut bodies = [
            floor(),
            cube(1.0, 0.5, Vector3::zeros()),
            cube(1.0, 1.5, Vector3::zeros()),
            cube(1.0, 2.5, Vector3::zeros()),
        ];
        let contacts = [
            face(0, 1, 0.0, 0.5),
            face(1, 2, 1.0, 0.5),
            face(2, 3, 2.0, 0.5),
        ];
        let solution = solve(&mut bodies, &contacts, limits(500, true));
        for (k, below) in [3.0, 2.0, 1.0].into_iter().enumerate() {
            let total: f64 = solution.warm[k].iter().map(|w| w.normal).sum();
            assert!((total - below * G * TICK).abs() < 1e-6, "{k}: {total}");
        }
        for body in &bodies[1..] {
            assert!(body.velocity.norm() < 1e-6);
        }
    }

    #[test]
    fn sliding_is_slowed_by_friction_times_the_weight_and_no_more() {
        let mu = 0.3;
        let mut bodies = [floor(), cube(1.0, 0.5, Vector3::new(2.0, 0.0, 0.0))];
        let solution = solve(&mut bodies, &[face(0, 1, 0.0, mu)], limits(200, true));
        // Still sliding: the friction impulse is μ times the normal one, against the motion.
        assert!((solution.held[1].impulse.x + mu * G * TICK).abs() < 1e-9);
        assert!((bodies[1].velocity.x - (2.0 - mu * G * TICK)).abs() < 1e-9);
        assert!(bodies[1].velocity.y.abs() < 1e-9);
    }

    /// A cube on the floor with an immovable body coming down onto it (as an instant's solve
    /// holds the bodies around the moved ones): no impulse can stop both contacts closing.
    fn wedged() -> ([SolverBody; 3], [SolverContact; 2]) {
        let mut above = floor();
        above.position = Vector3::new(0.0, 1.5, 0.0);
        above.velocity = Vector3::new(0.0, -0.1, 0.0);
        let bodies = [floor(), cube(1.0, 0.5, Vector3::zeros()), above];
        (bodies, [face(0, 1, 0.0, 0.5), face(1, 2, 1.0, 0.5)])
    }

    #[test]
    fn a_solve_that_cannot_be_met_stops_once_it_stalls_when_it_may() {
        let pushed = |sweeps: usize, may_stall: bool| {
            let (mut bodies, contacts) = wedged();
            let solution = solve(
                &mut bodies,
                &contacts,
                Limits {
                    tolerance: 1e-12,
                    max_sweeps: sweeps,
                    may_stall,
                    resting: false,
                },
            );
            // The floor's push (the cube's own total stays small: the two pushes cancel).
            solution.warm[0].iter().map(|w| w.normal).sum::<f64>()
        };
        // Without a stop, every sweep adds the same impulse to both contacts.
        assert!(pushed(1000, false) > 4.0 * pushed(200, false));
        // With one, the solve ends after the first sweeps that change nothing new.
        assert_eq!(pushed(1000, true), pushed(200, true));
        assert!(pushed(200, true) < pushed(200, false) / 5.0);
    }

    #[test]
    fn a_slow_slide_within_the_cone_stops() {
        let mut bodies = [floor(), cube(1.0, 0.5, Vector3::new(0.01, 0.0, 0.0))];
        solve(&mut bodies, &[face(0, 1, 0.0, 0.5)], limits(200, true));
        assert!(bodies[1].velocity.norm() < 1e-9);
    }

    #[test]
    fn a_contact_never_pulls_bodies_together() {
        let mut bodies = [floor(), cube(1.0, 0.5, Vector3::new(0.0, 3.0, 0.0))];
        let solution = solve(&mut bodies, &[face(0, 1, 0.0, 0.5)], limits(100, true));
        assert_eq!(solution.held[1].impulse, Vector3::zeros());
    }

    fn limits(max_sweeps: usize, resting: bool) -> Limits {
        Limits {
            tolerance: 1e-12,
            max_sweeps,
            may_stall: false,
            resting,
        }
    }

    /// Ten unit cubes of 1 kg stacked on the floor, with friction, after a tick of gravity.
    fn stack_of_ten() -> (Vec<SolverBody>, Vec<SolverContact>) {
        stack(10)
    }

    fn stack(n: usize) -> (Vec<SolverBody>, Vec<SolverContact>) {
        let mut bodies = vec![floor()];
        bodies.extend((0..n).map(|i| cube(1.0, 0.5 + i as f64, Vector3::zeros())));
        let contacts = (0..n).map(|i| face(i, i + 1, i as f64, 0.5)).collect();
        (bodies, contacts)
    }

    /// Sixty boxes with friction are 720 unknowns, three times what a dense exact solve took;
    /// each contact is coupled to its neighbours' alone, so the envelope solve takes them.
    #[test]
    fn a_resting_stack_of_sixty_is_solved_exactly_too() {
        let solution = solved_still(stack(60));
        for (k, warm) in solution.warm.iter().enumerate() {
            let total: f64 = warm.iter().map(|w| w.normal).sum();
            assert!(
                (total - (60 - k) as f64 * G * TICK).abs() < 1e-9 * (60 - k) as f64,
                "{k}: {total}"
            );
        }
    }

    /// The resting island `(bodies, contacts)` solved within twenty sweeps, every movable body
    /// (all but the first, the floor) left still.
    fn solved_still((mut bodies, contacts): (Vec<SolverBody>, Vec<SolverContact>)) -> Solution {
        let solution = solve(&mut bodies, &contacts, limits(20, true));
        for body in &bodies[1..] {
            assert!(body.velocity.norm() < 1e-9, "{:?}", body.velocity);
            assert!(body.angular_velocity.norm() < 1e-9);
        }
        solution
    }

    #[test]
    fn a_resting_stack_of_ten_is_solved_exactly_within_twenty_sweeps() {
        let solution = solved_still(stack_of_ten());
        for (k, warm) in solution.warm.iter().enumerate() {
            let total: f64 = warm.iter().map(|w| w.normal).sum();
            assert!(
                (total - (10 - k) as f64 * G * TICK).abs() < 1e-9,
                "{k}: {total}"
            );
            // Symmetric: each corner carries a quarter, and nothing slides to need friction
            // (to the refinements' accuracy).
            for w in warm {
                assert!(
                    (w.normal - total / 4.0).abs() < 1e-7 * total,
                    "{k}: {}",
                    w.normal
                );
                assert!(w.across.norm() < 1e-7 * w.normal, "{k}: {:?}", w.across);
            }
        }
    }

    #[test]
    fn the_sweeps_alone_leave_the_same_stack_far_from_solved() {
        let (mut bodies, contacts) = stack_of_ten();
        solve(&mut bodies, &contacts, limits(20, false));
        let fastest = bodies[1..]
            .iter()
            .map(|b| b.velocity.norm())
            .fold(0.0, f64::max);
        assert!(fastest > 1e-3, "{fastest}");
    }

    #[test]
    fn a_cube_on_a_slope_steeper_than_its_friction_slides_resting_or_not() {
        let (mu, slope) = (0.3, 0.5_f64);
        let slid = |resting: bool| {
            let mut box_ = cube(1.0, 0.5, Vector3::zeros());
            // Gravity tilted by the slope against a level floor.
            box_.velocity = Vector3::new(slope.sin(), -slope.cos(), 0.0) * G * TICK;
            let mut bodies = [floor(), box_];
            solve(&mut bodies, &[face(0, 1, 0.0, mu)], limits(200, resting));
            bodies[1].velocity
        };
        let expected = G * TICK * (slope.sin() - mu * slope.cos());
        for resting in [true, false] {
            let v = slid(resting);
            assert!((v.x - expected).abs() < 1e-9, "{resting}: {v:?}");
            assert!(v.y.abs() < 1e-9);
        }
    }
}
