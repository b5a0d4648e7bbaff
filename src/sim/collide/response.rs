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

/// The normal approach velocity at the contact point (negative while approaching).
pub(crate) fn approach(a: &Kinematics, b: &Kinematics, contact: &ContactPoint) -> f64 {
    (b.point_velocity(&contact.point) - a.point_velocity(&contact.point)).dot(&contact.normal)
}

/// The impact of `a` and `b` at `contact`.
pub(crate) fn impact(a: &Side<'_>, b: &Side<'_>, contact: &ContactPoint) -> Impact {
    let u = approach(&a.state, &b.state, contact);
    if u >= 0.0 {
        return Impact::Separating;
    }
    let n = contact.normal;
    let ra = contact.point - a.state.position;
    let rb = contact.point - b.state.position;
    let share = |side: &Side<'_>, r: &Vector3<f64>| -> f64 {
        if side.immovable {
            return 0.0;
        }
        let inverse = side.body.inverse_world_inertia(&side.state.rotation);
        1.0 / side.body.model.mass + n.dot(&(inverse * r.cross(&n)).cross(r))
    };
    let k = share(a, &ra) + share(b, &rb);
    if !(k > 0.0 && k.is_finite()) {
        return Impact::Immovable;
    }
    let e = a.body.restitution * b.body.restitution;
    let pressing = contact.pressing;
    let rest_speed =
        (pressing * contact.resting_interval).min((2.0 * pressing * contact.resting_rise).sqrt());
    let resting = pressing > 0.0 && -u < rest_speed;
    let separating = if resting { rest_speed / 2.0 } else { -e * u };
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
    Impact::Impulse(Box::new(Impulse {
        impulse: j,
        a: apply(a, &ra, -j * n),
        b: apply(b, &rb, j * n),
        resting,
    }))
}
