//! Collision response (5.3.2): an instantaneous impulse along the contact normal that changes
//! both bodies' velocities and angular momenta at once.
//!
//! With `n` the unit normal from A to B, `r` the arms from the centres of mass to the contact
//! point and `u = (v_B + ω_B × r_B − v_A − ω_A × r_A) · n` the normal approach velocity
//! (negative while approaching), an impulse `j n` on B and `−j n` on A changes `u` by
//! `j k` with
//!
//! ```text
//! k = 1/m_A + 1/m_B + n · ((I_A⁻¹ (r_A × n)) × r_A) + n · ((I_B⁻¹ (r_B × n)) × r_B)
//! ```
//!
//! (world inverse inertia tensors). An infinitely massive body (fixed, or following a
//! trajectory at that time) contributes nothing to `k` and does not move. The impulse makes
//! the separating velocity `e |u|`: momentum and angular momentum are conserved for any `e`,
//! and for `e = 1` so is kinetic energy, rotation included, because the impulse acts along the
//! normal only (no friction).
//!
//! # Restitution and friction of a pair
//!
//! Each body has a coefficient `restitution` from 0 to 1; a pair uses their product, so an
//! elastic body (the default, 1) lets the other body's coefficient decide, and a pair is
//! elastic only when both bodies are. Each body has a `friction` coefficient; a pair uses the
//! geometric mean, so a frictionless body slides on anything. An impact's impulse across the
//! normal stops the contact point sliding, within the friction coefficient times the normal
//! impulse (Coulomb): a spinning ball dropped on the floor leaves it rolling. A frictionless
//! impact conserves kinetic energy for `e = 1`, rotation included; friction only takes energy.
//!
//! # Resting contacts
//!
//! A contact that is resting (see `instant`) is stopped, not bounced: the impulses make no
//! corner of its touching region approach (plastic), with friction, so that a body landing
//! flat on another is not pivoted about the one closest point.

use super::bodies::{CollisionBody, Kinematics};

use nalgebra::Vector3;

/// Sweeps over a contact's corners at most.
const CORNER_SWEEPS: usize = 50;

/// One side of a contact: the body, its state at the contact and whether it moves.
pub(crate) struct Side<'a> {
    pub body: &'a CollisionBody,
    pub state: Kinematics,
    pub immovable: bool,
}

/// The geometry and the kind of one contact.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ContactPoint {
    pub point: Vector3<f64>,
    /// Unit, from A to B.
    pub normal: Vector3<f64>,
    /// A resting contact: stopped over its region, not bounced (see the module documentation).
    pub resting: bool,
    /// The speed below which the pair, pressed together, counts as resting.
    pub rest_speed: f64,
    /// The pair's friction coefficient.
    pub friction: f64,
    /// For a resting contact sunk past the contact forces' guard depth, the speed it is given
    /// apart to climb out over a check window (else 0): stopping it alone would leave it as
    /// deep, to be found sunk again at the next look.
    pub recover: f64,
    /// Approaching slower than this counts as not approaching: see
    /// [`Pair::approach_tolerance`](super::narrow::Pair).
    pub approach_tolerance: f64,
}

/// What an impact does.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Impact {
    /// The bodies are not approaching at the contact point: nothing happens.
    Separating,
    /// Both bodies are infinitely massive: no impulse can separate them.
    Immovable,
    /// An impulse moves the bodies.
    Impulse(Box<Impulse>),
}

/// The impulse magnitude along the normal (on B; A gets the opposite) and the states after.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Impulse {
    pub impulse: f64,
    pub a: Kinematics,
    pub b: Kinematics,
}

/// The normal approach velocity at the contact point (negative while approaching).
pub(crate) fn approach(a: &Kinematics, b: &Kinematics, contact: &ContactPoint) -> f64 {
    approach_at(a, b, &contact.point, &contact.normal)
}

/// The approach velocity along `n` at `point` (negative while approaching).
pub(crate) fn approach_at(
    a: &Kinematics,
    b: &Kinematics,
    point: &Vector3<f64>,
    n: &Vector3<f64>,
) -> f64 {
    (b.point_velocity(point) - a.point_velocity(point)).dot(n)
}

/// The impact of `a` and `b` at `contact`, whose touching region (see
/// [`contact_region`](crate::geom::contact_region)) has the corners `region`.
///
/// A resting contact is handled over its region: it counts as approaching when any corner
/// approaches, and is stopped at every corner, so that a body lying flat on another does not
/// pivot about the one closest point and press in with the rest of the face. An impact is a
/// push at the closest point, as the dissertation has it, with friction.
pub(crate) fn impact(
    a: &Side<'_>,
    b: &Side<'_>,
    contact: &ContactPoint,
    region: &[Vector3<f64>],
) -> Impact {
    let n = contact.normal;
    let at_point = approach(&a.state, &b.state, contact);
    let over_region = contact.resting && region.len() > 1;
    let u = if over_region {
        region
            .iter()
            .map(|p| approach_at(&a.state, &b.state, p, &n))
            .fold(at_point, f64::min)
    } else {
        at_point
    };
    let target = if contact.resting {
        contact.recover
    } else {
        0.0
    };
    if u >= target - contact.approach_tolerance {
        return Impact::Separating;
    }
    let k = compliance(a, b, &contact.point, &n);
    if !(k > 0.0 && k.is_finite()) {
        return Impact::Immovable;
    }
    let e = a.body.restitution * b.body.restitution;
    let separating = if contact.resting { target } else { -e * u };
    let corners = if over_region {
        region
    } else {
        std::slice::from_ref(&contact.point)
    };
    let (sa, sb, impulse) = press(
        a,
        b,
        &n,
        corners,
        separating,
        contact.friction,
        contact.approach_tolerance,
    );
    Impact::Impulse(Box::new(Impulse {
        impulse,
        a: sa,
        b: sb,
    }))
}

/// Impulses at the `corners` of a contact: along the unit normal `n`, none pulling the
/// bodies together, they leave every corner separating at `target` or faster; across it,
/// within `friction` times the normal impulse at that corner, they stop the corner sliding.
/// Projected Gauss–Seidel: the corners in turn, each corner's impulses kept within their
/// bounds, until no corner needs a change of more than `tolerance` in its velocity. Returns
/// both states after and the total normal impulse on B.
fn press(
    a: &Side<'_>,
    b: &Side<'_>,
    n: &Vector3<f64>,
    corners: &[Vector3<f64>],
    target: f64,
    friction: f64,
    tolerance: f64,
) -> (Kinematics, Kinematics, f64) {
    let (mut sa, mut sb) = (a.state, b.state);
    let mut normal = vec![0.0; corners.len()];
    let mut across = vec![Vector3::zeros(); corners.len()];
    // Impulses change velocities only: the bodies' poses, and so each corner's compliance
    // along the normal, stay as they are.
    let along_normal: Vec<f64> = corners
        .iter()
        .map(|point| compliance(a, b, point, n))
        .collect();
    for _ in 0..CORNER_SWEEPS {
        let mut largest: f64 = 0.0;
        for (c, point) in corners.iter().enumerate() {
            let k = along_normal[c];
            if !(k > 0.0 && k.is_finite()) {
                continue;
            }
            let u = approach_at(&sa, &sb, point, n);
            let next = (normal[c] + (target - u) / k).max(0.0);
            let change = next - normal[c];
            if change != 0.0 {
                normal[c] = next;
                (sa, sb) = push(a, sa, b, sb, point, change * n);
                largest = largest.max(change.abs() * k);
            }
            if friction == 0.0 {
                continue;
            }
            let relative = sb.point_velocity(point) - sa.point_velocity(point);
            let sliding = relative - relative.dot(n) * n;
            let speed = sliding.norm();
            if speed <= tolerance {
                continue;
            }
            let t = sliding / speed;
            let kt = compliance(a, b, point, &t);
            if !(kt > 0.0 && kt.is_finite()) {
                continue;
            }
            let mut next = across[c] - t * (speed / kt);
            let limit = friction * normal[c];
            if next.norm() > limit {
                next *= limit / next.norm();
            }
            let change = next - across[c];
            across[c] = next;
            (sa, sb) = push(a, sa, b, sb, point, change);
            largest = largest.max(change.norm() * kt);
        }
        if largest <= tolerance {
            break;
        }
    }
    (sa, sb, normal.iter().sum())
}

/// How much a unit impulse along `d` at `point` changes the relative velocity of the two
/// sides along `d` there (it depends on their poses, which impulses do not change).
fn compliance(a: &Side<'_>, b: &Side<'_>, point: &Vector3<f64>, d: &Vector3<f64>) -> f64 {
    let share = |side: &Side<'_>| -> f64 {
        if side.immovable {
            return 0.0;
        }
        let s = &side.state;
        let r = point - s.position;
        let inverse = side.body.inverse_world_inertia(&s.rotation);
        1.0 / side.body.model.mass + d.dot(&(inverse * r.cross(d)).cross(&r))
    };
    share(a) + share(b)
}

/// The states after an impulse `impulse` on B at `point` (and its opposite on A).
fn push(
    a: &Side<'_>,
    sa: Kinematics,
    b: &Side<'_>,
    sb: Kinematics,
    point: &Vector3<f64>,
    impulse: Vector3<f64>,
) -> (Kinematics, Kinematics) {
    let apply = |side: &Side<'_>, mut s: Kinematics, impulse: Vector3<f64>| -> Kinematics {
        if side.immovable {
            return s;
        }
        s.velocity += impulse / side.body.model.mass;
        s.momentum += (point - s.position).cross(&impulse);
        s.angular_velocity = side.body.model.angular_velocity(&s.rotation, &s.momentum);
        s
    };
    (apply(a, sa, -impulse), apply(b, sb, impulse))
}
