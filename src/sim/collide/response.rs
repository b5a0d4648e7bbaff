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
//! # Restitution of a pair
//!
//! Each body has a coefficient `restitution` from 0 to 1; a pair uses their product, so an
//! elastic body (the default, 1) lets the other body's coefficient decide, and a pair is
//! elastic only when both bodies are.
//!
//! # Resting contact
//!
//! A ball bouncing with `e < 1` would bounce ever lower, ever faster, without end; an elastic
//! ball pressed against a wall by a damped link does the same as the link takes its energy.
//! The rule that stops it: when the pair is pressed together by an acceleration `a` along the
//! normal (gravity, a link) and approaches slower than the *resting speed*
//! `w = min(a h, √(2 a δ))`, the bounce is replaced by a hop that separates at `w / 2`. Here
//! `h` is the resting interval (a quarter of the scene's output step) and `δ` the resting rise
//! (a thousandth of the sum of the pair's reaches). Under that same
//! acceleration the pair meets again after `w / a ≤ h` at the same speed, so a resting body
//! makes one small contact per `w / a` and rises at most `w² / 8a ≤ δ / 4` instead of making an
//! endless sequence. The rule applies to elastic pairs too: it changes their kinetic energy by
//! at most `m a δ` per contact (the work of the pressing force over the rise), where an endless
//! sequence of ever smaller bounces would stall the simulation; a pair approaching faster than
//! `w` bounces elastically as always.

use super::bodies::{CollisionBody, Kinematics};

/// The friction coefficient of resting contacts (collisions are frictionless).
const RESTING_FRICTION: f64 = 0.5;
use nalgebra::Vector3;

/// One side of a contact: the body, its state at the contact and whether it moves.
pub(crate) struct Side<'a> {
    pub body: &'a CollisionBody,
    pub state: Kinematics,
    pub immovable: bool,
}

/// The geometry and the pressing acceleration of one contact.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ContactPoint {
    pub point: Vector3<f64>,
    /// Unit, from A to B.
    pub normal: Vector3<f64>,
    /// How hard the pair is pressed together along the normal (≥ 0), for the resting rule.
    pub pressing: f64,
    /// The resting interval `h`.
    pub resting_interval: f64,
    /// The resting rise `δ`.
    pub resting_rise: f64,
    /// One of the bodies already hopped at this instant: a resting contact stops the pair
    /// rather than separating it again (a body pressed between two others would otherwise
    /// hop from one to the other without end).
    pub settled: bool,
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
    /// The resting rule replaced the bounce.
    pub resting: bool,
}

/// The resting speed `w` of a contact (see the module documentation).
pub(crate) fn resting_speed(contact: &ContactPoint) -> f64 {
    let pressing = contact.pressing;
    (pressing * contact.resting_interval).min((2.0 * pressing * contact.resting_rise).sqrt())
}

/// The normal approach velocity at the contact point (negative while approaching).
pub(crate) fn approach(a: &Kinematics, b: &Kinematics, contact: &ContactPoint) -> f64 {
    (b.point_velocity(&contact.point) - a.point_velocity(&contact.point)).dot(&contact.normal)
}

/// The impact of `a` and `b` at `contact`.
pub(crate) fn impact(a: &Side<'_>, b: &Side<'_>, contact: &ContactPoint) -> Impact {
    let u = approach(&a.state, &b.state, contact);
    if u >= -contact.approach_tolerance {
        return Impact::Separating;
    }
    let n = contact.normal;
    let ra = contact.point - a.state.position;
    let rb = contact.point - b.state.position;
    // How much a unit impulse along `d` changes the pair's relative velocity along `d`.
    let compliance = |d: &Vector3<f64>| {
        let share = |side: &Side<'_>, r: &Vector3<f64>| -> f64 {
            if side.immovable {
                return 0.0;
            }
            let inverse = side.body.inverse_world_inertia(&side.state.rotation);
            1.0 / side.body.model.mass + d.dot(&(inverse * r.cross(d)).cross(r))
        };
        share(a, &ra) + share(b, &rb)
    };
    let k = compliance(&n);
    if !(k > 0.0 && k.is_finite()) {
        return Impact::Immovable;
    }
    let e = a.body.restitution * b.body.restitution;
    let rest_speed = resting_speed(contact);
    let resting = contact.pressing > 0.0 && -u < rest_speed;
    let separating = match (resting, contact.settled) {
        (true, true) => 0.0,
        (true, false) => rest_speed / 2.0,
        (false, _) => -e * u,
    };
    let j = (separating - u) / k;
    let apply = |side: &Side<'_>, r: &Vector3<f64>, impulse: Vector3<f64>| -> Kinematics {
        let mut s = side.state;
        if side.immovable {
            return s;
        }
        s.velocity += impulse / side.body.model.mass;
        s.momentum += r.cross(&impulse);
        s.angular_velocity = side.body.model.angular_velocity(&s.rotation, &s.momentum);
        s
    };
    let (mut sa, mut sb) = (apply(a, &ra, -j * n), apply(b, &rb, j * n));
    if resting {
        // Resting friction: stop the contact points sliding, within the friction cone.
        let relative = sb.point_velocity(&contact.point) - sa.point_velocity(&contact.point);
        let sliding = relative - relative.dot(&n) * n;
        let speed = sliding.norm();
        if speed > contact.approach_tolerance {
            let t = sliding / speed;
            let kt = compliance(&t);
            if kt > 0.0 && kt.is_finite() {
                let jt = (speed / kt).min(RESTING_FRICTION * j.abs());
                sa = apply(&Side { state: sa, ..*a }, &ra, jt * t);
                sb = apply(&Side { state: sb, ..*b }, &rb, -jt * t);
            }
        }
    }
    Impact::Impulse(Box::new(Impulse {
        impulse: j,
        a: sa,
        b: sb,
        resting,
    }))
}
