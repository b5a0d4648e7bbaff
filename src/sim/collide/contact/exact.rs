//! The exact solve of a contact island on the active set its sweeps have found: which corners
//! press and which of them stick.
//!
//! Projected Gauss–Seidel (see `solve`) needs sweeps that grow with the square of a stack's
//! height to carry the weight down it, and with friction it barely converges at all: sweeping
//! corner by corner, each corner's impulse turns its body a little, the turn makes the other
//! corners slide, and their friction, bounded by loads still being shared out, answers late.
//! Measured on ten boxes stacked on a floor, from rest: 949 sweeps to meet the tolerance
//! without friction, and still 6e-5 m/s of change per sweep after 5,000 with it. A stack that
//! is never solved to the end rocks from tick to tick, and every tick changes its loads and
//! restarts all its bodies.
//!
//! But a resting island's solution is a linear one: the pressing corners stop exactly at their
//! target speed and the sticking ones do not slide. Once the sweeps have found which corners
//! those are, one linear solve of those conditions gives the impulses; they are the solution
//! if they are admissible (no corner pulls, none sticks beyond its friction cone, none left
//! out approaches). If not, the sweeps go on from where they were. The contacts' conditions
//! are redundant (a face's four corners hold three degrees of freedom), so the system is
//! singular; a regularisation far below the tolerance picks the smallest impulses that meet
//! them, which for a symmetric load shares it evenly. The system is factored within its
//! envelope (see `envelope`), the contacts ordered so that coupled conditions are close.

use super::envelope::Envelope;
use super::solve::{SolverBody, SolverContact};
use crate::geom::plane_basis;
use nalgebra::Vector3;
use std::collections::VecDeque;

/// The multiply-adds an exact solve's factorisation may take at most (see
/// [`Envelope::work`]): that of a dense system of 240 unknowns (three per sticking corner,
/// one per pressing corner without friction). An island whose conditions are that coupled
/// (a pile of balls, where every ball touches several) is left to the sweeps; a stack or a
/// pyramid of boxes, each contact coupled only to its neighbours', is far below it whatever
/// its height.
const MOST_WORK: usize = 240 * 240 * 240 / 3;

/// Times the active set is corrected (a corner found pulling dropped, one found approaching
/// added) before the exact solve gives up.
const CORRECTIONS: usize = 4;

/// A solve that pulls at a corner harder than this many times the sweeps' largest push has
/// assumed sticking where the island must slide: the regularised system answers an
/// impossible sticking with impulses thousands of times the island's, and correcting its
/// set almost never recovers (in `benches/scenes/wall64.asg`, one attempt in 400 that began
/// so, which spent four in five of the exact solve's factorisations). The exact solve gives
/// up there.
const HOPELESS_PULL: f64 = 10.0;

/// The regularisation, relative to the largest diagonal entry of the system...
const REGULARISATION: f64 = 1e-8;
/// ...and the solves for what it left, each shrinking the error by about its size against the
/// smallest load the island's shape can carry.
const REFINEMENTS: usize = 3;

/// One condition of the system: a direction at a corner of a contact.
struct Row {
    contact: usize,
    corner: usize,
    direction: Vector3<f64>,
    /// The normal speed to meet (the contact's target) or zero across.
    target: f64,
    normal: bool,
}

/// The impulses per corner an exact solve found: along the normal and across it.
pub(super) struct Exact {
    pub normal: Vec<Vec<f64>>,
    pub across: Vec<Vec<Vector3<f64>>>,
}

/// Solves the island exactly on the active set of the impulses `normal` and `across` so far
/// (bodies at their velocities under those impulses), starting from the `pressing` corners
/// (those whose normal impulse is positive), or `None` when the set is not one the linear
/// solve can finish: too many unknowns, or no admissible solution (every pressing corner
/// sticking within its cone) after [`CORRECTIONS`] corrections. `tolerance` is the speed
/// within which a condition counts as met.
pub(super) fn solve_active(
    bodies: &[SolverBody],
    contacts: &[SolverContact],
    normal: &[Vec<f64>],
    across: &[Vec<Vector3<f64>>],
    pressing: &[Vec<bool>],
    tolerance: f64,
) -> Option<Exact> {
    let mut pressing = pressing.to_vec();
    // The bodies as they would move with no corner holding them; the impulses are solved for
    // whole, so that the regularisation picks the smallest ones that hold the island (shared
    // evenly where the load is symmetric), not the smallest change from where the sweeps
    // happened to leave them.
    let mut unheld = bodies.to_vec();
    for (k, c) in contacts.iter().enumerate() {
        for (corner, point) in c.corners.iter().enumerate() {
            let held = c.normal * normal[k][corner] + across[k][corner];
            unheld[c.a].apply(point, &held);
            unheld[c.b].apply(point, &-held);
        }
    }
    let order = order(bodies, contacts);
    let pushed = normal
        .iter()
        .flatten()
        .fold(0.0, |most: f64, &p| most.max(p));
    for _ in 0..CORRECTIONS {
        let rows = rows(contacts, &order, &pressing);
        if rows.is_empty() {
            return None;
        }
        let mut exact = Exact {
            normal: normal.iter().map(|n| vec![0.0; n.len()]).collect(),
            across: across
                .iter()
                .map(|a| vec![Vector3::zeros(); a.len()])
                .collect(),
        };
        let impulses = solve_rows(&unheld, contacts, &rows)?;
        let mut after = unheld.clone();
        for (row, &d) in rows.iter().zip(impulses.iter()) {
            let c = &contacts[row.contact];
            if row.normal {
                exact.normal[row.contact][row.corner] += d;
            } else {
                exact.across[row.contact][row.corner] += row.direction * d;
            }
            let point = &c.corners[row.corner];
            after[c.a].apply(point, &(-row.direction * d));
            after[c.b].apply(point, &(row.direction * d));
        }
        let pull = exact
            .normal
            .iter()
            .flatten()
            .fold(0.0, |most: f64, &p| most.min(p));
        if -pull > HOPELESS_PULL * pushed {
            return None;
        }
        // A corner pulling leaves the set; a corner left out that approaches joins it.
        let mut corrected = false;
        for (k, c) in contacts.iter().enumerate() {
            for (corner, point) in c.corners.iter().enumerate() {
                if pressing[k][corner] && exact.normal[k][corner] < 0.0 {
                    pressing[k][corner] = false;
                    corrected = true;
                } else if !pressing[k][corner] {
                    let u = (after[c.b].point_velocity(point) - after[c.a].point_velocity(point))
                        .dot(&c.normal);
                    if u < c.target - tolerance {
                        pressing[k][corner] = true;
                        corrected = true;
                    }
                }
            }
        }
        if corrected {
            continue;
        }
        let admissible = contacts.iter().enumerate().all(|(k, c)| {
            (0..c.corners.len()).all(|corner| {
                exact.across[k][corner].norm() <= c.friction * exact.normal[k][corner]
            })
        }) && rows.iter().all(|row| {
            let c = &contacts[row.contact];
            let point = &c.corners[row.corner];
            let u = (after[c.b].point_velocity(point) - after[c.a].point_velocity(point))
                .dot(&row.direction);
            (u - row.target).abs() <= tolerance
        });
        return admissible.then_some(exact);
    }
    None
}

/// Whether `body` moves under impulses (not fixed, on a trajectory or asleep).
fn movable(body: &SolverBody) -> bool {
    body.inverse_mass > 0.0
}

/// The contacts in an order in which those that share a movable body are close: breadth first
/// over the island from the contacts with an immovable body (the floor), so that a stack's
/// contacts come bottom to top and a wall's course by course. Contacts through an immovable
/// body alone do not interact. It keeps the envelope of the conditions' matrix narrow (see
/// `envelope`).
fn order(bodies: &[SolverBody], contacts: &[SolverContact]) -> Vec<usize> {
    let mut of_body: Vec<Vec<usize>> = vec![Vec::new(); bodies.len()];
    for (k, c) in contacts.iter().enumerate() {
        for b in [c.a, c.b] {
            if movable(&bodies[b]) {
                of_body[b].push(k);
            }
        }
    }
    let mut starts: Vec<usize> = (0..contacts.len()).collect();
    starts.sort_by_key(|&k| {
        let c = &contacts[k];
        usize::from(movable(&bodies[c.a])) + usize::from(movable(&bodies[c.b]))
    });
    let mut seen = vec![false; contacts.len()];
    let mut order = Vec::with_capacity(contacts.len());
    let mut queue = VecDeque::new();
    for start in starts {
        if seen[start] {
            continue;
        }
        seen[start] = true;
        queue.push_back(start);
        while let Some(k) = queue.pop_front() {
            order.push(k);
            for b in [contacts[k].a, contacts[k].b] {
                for &next in &of_body[b] {
                    if !seen[next] {
                        seen[next] = true;
                        queue.push_back(next);
                    }
                }
            }
        }
    }
    order
}

/// The conditions of the pressing corners, contact by contact in `order`: along the normal,
/// and across it where the contact has friction (the corner sticks).
fn rows(contacts: &[SolverContact], order: &[usize], pressing: &[Vec<bool>]) -> Vec<Row> {
    let mut rows = Vec::new();
    for &k in order {
        let (c, pressing) = (&contacts[k], &pressing[k]);
        let (t1, t2) = plane_basis(&c.normal);
        for (corner, _) in pressing.iter().enumerate().filter(|(_, &p)| p) {
            rows.push(Row {
                contact: k,
                corner,
                direction: c.normal,
                target: c.target,
                normal: true,
            });
            if c.friction > 0.0 {
                for direction in [t1, t2] {
                    rows.push(Row {
                        contact: k,
                        corner,
                        direction,
                        target: 0.0,
                        normal: false,
                    });
                }
            }
        }
    }
    rows
}

/// How a unit impulse along a row changes one body: the body, its velocity's change and its
/// angular velocity's.
type Effect = (usize, Vector3<f64>, Vector3<f64>);

/// The impulses along `rows` that bring every row's relative speed to its target, by
/// the regularised normal equations of the island: `K λ = target − u` (the bodies as they
/// would move unheld), where `K`'s entry `(i, j)` is how a unit impulse along row `j` changes
/// row `i`'s speed, nonzero only where the two rows share a movable body. `None` when the
/// factorisation would take more than [`MOST_WORK`] or the system cannot be factored.
fn solve_rows(bodies: &[SolverBody], contacts: &[SolverContact], rows: &[Row]) -> Option<Vec<f64>> {
    // Per row and side: the body and how a unit impulse along the row changes its velocity and
    // angular velocity.
    let effects: Vec<[Effect; 2]> = rows
        .iter()
        .map(|row| {
            let c = &contacts[row.contact];
            let point = &c.corners[row.corner];
            let effect = |body: usize, sign: f64| {
                let b = &bodies[body];
                let d = row.direction * sign;
                (
                    body,
                    d * b.inverse_mass,
                    b.inverse_inertia * (point - b.position).cross(&d),
                )
            };
            [effect(c.a, -1.0), effect(c.b, 1.0)]
        })
        .collect();
    // Each row's envelope starts at the first row of either of its movable bodies.
    let mut first_of_body = vec![usize::MAX; bodies.len()];
    for (i, row) in rows.iter().enumerate() {
        let c = &contacts[row.contact];
        for b in [c.a, c.b] {
            if movable(&bodies[b]) {
                first_of_body[b] = first_of_body[b].min(i);
            }
        }
    }
    let first: Vec<usize> = rows
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let c = &contacts[row.contact];
            first_of_body[c.a].min(first_of_body[c.b]).min(i)
        })
        .collect();
    if Envelope::work(&first) > MOST_WORK {
        return None;
    }
    let n = rows.len();
    let mut k = Envelope::zeros(first);
    let mut rhs = vec![0.0; n];
    for (i, row) in rows.iter().enumerate() {
        let c = &contacts[row.contact];
        let point = &c.corners[row.corner];
        // Row i's speed changes with body β's velocity as sign · d · (v + ω × r).
        let reads = |body: usize, sign: f64, dv: &Vector3<f64>, dw: &Vector3<f64>| {
            sign * row
                .direction
                .dot(&(dv + dw.cross(&(point - bodies[body].position))))
        };
        let u = reads(
            c.b,
            1.0,
            &bodies[c.b].velocity,
            &bodies[c.b].angular_velocity,
        ) + reads(
            c.a,
            -1.0,
            &bodies[c.a].velocity,
            &bodies[c.a].angular_velocity,
        );
        rhs[i] = row.target - u;
        for j in k.columns(i) {
            let mut entry = 0.0;
            for &(body, dv, dw) in &effects[j] {
                if body == c.b {
                    entry += reads(body, 1.0, &dv, &dw);
                }
                if body == c.a {
                    entry += reads(body, -1.0, &dv, &dw);
                }
            }
            k.set(i, j, entry);
        }
    }
    let largest = (0..n).map(|i| k.at(i, i)).fold(0.0, f64::max);
    if !(largest > 0.0 && largest.is_finite()) {
        return None;
    }
    let mut regularised = k.clone();
    for i in 0..n {
        regularised.set(i, i, k.at(i, i) + REGULARISATION * largest);
    }
    let factors = regularised.cholesky()?;
    // Iterated regularisation: each step solves for what is left of the right-hand side, so
    // the impulses converge to the smallest exact ones, as the regularisation alone would only
    // for an infinitely small one (which rounding forbids: the system is singular).
    let mut impulses = factors.solve_factored(&rhs);
    for _ in 0..REFINEMENTS {
        let product = k.mul(&impulses);
        let left: Vec<f64> = rhs.iter().zip(&product).map(|(r, p)| r - p).collect();
        for (x, d) in impulses.iter_mut().zip(factors.solve_factored(&left)) {
            *x += d;
        }
    }
    impulses.iter().all(|x| x.is_finite()).then_some(impulses)
}
