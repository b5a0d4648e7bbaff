//! Links (5.1.2): critically damped springs of rest length zero between a point on a body and a
//! point on another body, a point in space (constant or expressions) or a trajectory.
//!
//! The force on the first body is `F = -k x - 2 sqrt(k m) v`, with `x` the separation of the
//! attachment points (first minus second) and `v` its rate of change. It acts at the
//! attachment point, so it also makes a torque. Between two moving bodies the second gets `-F`
//! at its own point, and `m` is the reduced mass `m1 m2 / (m1 + m2)`: that is the mass of the
//! separation's motion, so the spring is critically damped for the pair, and one `m` for both
//! keeps the forces equal and opposite. Against a fixed body, a point or a trajectory, `m` is
//! the moving body's mass (the dissertation's "mass of the object being attached").
//!
//! For a point given by expressions, `v` subtracts the point's rate of change as far as the
//! kinematics give it (see [`Assembly::time_derivative`]); for a trajectory, its derivative.

use super::assemble::Assembly;
use super::error::PhysicsError;
use super::symbols::Channel;
use super::work::{ElementKind, Source};
use crate::lang::span::Span;
use crate::scene::model::{Link, LinkTarget};
use crate::sym::Vec3;
use nalgebra::Vector3;

/// A link's spring as far as its stiffness matters: a critically damped spring settles with
/// the time constant `sqrt(m / k)`, and a simulation must be able to step that finely.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Spring {
    /// The linked bodies (the second when it is a body).
    pub bodies: (usize, Option<usize>),
    pub tightness: f64,
    pub time_constant: f64,
    /// The link's index in the scene's links.
    pub link: usize,
    /// The link command, kept only while the spring is too stiff for the model's span (see
    /// [`Spring::reported`]): the only springs whose command an error names. An edit that
    /// moves the text would otherwise have every kept spring's span read again from the scene.
    pub span: Option<Span>,
}

impl Spring {
    /// This spring with its span only if its time constant is under `shortest`, the shortest
    /// a simulation allows ([`Model::check_springs`](super::Model::check_springs) reports it).
    pub fn reported(mut self, shortest: f64) -> Spring {
        if self.time_constant >= shortest {
            self.span = None;
        }
        self
    }
}

/// The far end of a link: where it is, how it moves, and the body it pushes back on.
struct Target {
    position: Vec3,
    velocity: Vec3,
    /// The second body and the world arm from its centre of mass to the attachment point.
    body: Option<(usize, Vec3)>,
}

impl Assembly<'_> {
    /// Adds the forces and torques of `link`, the scene's link number `index`, to the loads of
    /// its bodies.
    pub fn add_link(&mut self, index: usize, link: &Link) -> Result<(), PhysicsError> {
        let at = Some(link.origin.command);
        let k = link.tightness.value;
        if !(k.is_finite() && k > 0.0) {
            return Err(PhysicsError::model(
                format!(
                    "link on {}: the tightness must be positive and finite, got {k}",
                    link.body1
                ),
                link.tightness.span.or(at),
            ));
        }
        let first = self.linked_body(&link.body1, link)?;
        check_offset(&link.offset1.value, link, link.offset1.span)?;
        let target = match &link.target {
            LinkTarget::Body { body2, offset2 } => {
                let second = self.linked_body(body2, link)?;
                if second == first {
                    return Err(PhysicsError::model(
                        format!("link on {}: a body cannot be linked to itself", link.body1),
                        at,
                    ));
                }
                check_offset(&offset2.value, link, offset2.span)?;
                let pool = &mut self.pool;
                let point = self
                    .world
                    .kinematics(pool, second)
                    .point(pool, &offset2.value);
                Target {
                    position: point.position,
                    velocity: point.velocity,
                    body: Some((second, point.arm)),
                }
            }
            LinkTarget::Point(expressions) => {
                let position = self.expression_vector(expressions)?;
                let [x, y, z] = position.to_array().map(|c| self.time_derivative(c));
                Target {
                    position,
                    velocity: Vec3::new(x, y, z),
                    body: None,
                }
            }
            LinkTarget::Trajectory(name) => {
                let trajectory = self.trajectory_index(name).ok_or_else(|| {
                    PhysicsError::model(
                        format!("link on {}: `{name}` is not a trajectory", link.body1),
                        at,
                    )
                })?;
                Target {
                    position: self.trajectory_vector(trajectory, Channel::VALUE),
                    velocity: self.trajectory_vector(trajectory, Channel::RATE),
                    body: None,
                }
            }
        };
        let Some(mass) = self.link_mass(first, target.body.map(|(b, _)| b)) else {
            return Ok(()); // nothing that can move
        };
        self.springs.push(Spring {
            bodies: (first, target.body.map(|(b, _)| b)),
            tightness: k,
            time_constant: (mass / k).sqrt(),
            link: index,
            span: Some(link.origin.command),
        });
        let pool = &mut self.pool;
        let point = self
            .world
            .kinematics(pool, first)
            .point(pool, &link.offset1.value);
        let separation = point.position.sub(pool, target.position);
        let relative = point.velocity.sub(pool, target.velocity);
        let spring = separation.scale_by(pool, -k);
        let damper = relative.scale_by(pool, -2.0 * (k * mass).sqrt());
        let force = spring.add(pool, damper);
        let mut same = false;
        if !self.world.bodies[first].is_fixed() {
            let torque = point.arm.cross(&mut self.pool, force);
            let element = (ElementKind::Link, Source::Link(index), false);
            self.load(first, force, Some(torque), element);
            same = true;
        }
        if let Some((second, arm)) = target.body {
            if !self.world.bodies[second].is_fixed() {
                let pool = &mut self.pool;
                let reaction = force.neg(pool);
                let torque = arm.cross(pool, reaction);
                self.load(
                    second,
                    reaction,
                    Some(torque),
                    (ElementKind::Link, Source::Link(index), same),
                );
            }
        }
        Ok(())
    }

    fn linked_body(&self, name: &str, link: &Link) -> Result<usize, PhysicsError> {
        self.body_index(name).ok_or_else(|| {
            PhysicsError::model(
                format!("link on {}: `{name}` is not a body", link.body1),
                Some(link.origin.command),
            )
        })
    }

    /// The mass in the damping term, or `None` when neither end can move.
    fn link_mass(&self, first: usize, second: Option<usize>) -> Option<f64> {
        let moving = |b: usize| {
            let body = &self.world.bodies[b];
            (!body.is_fixed()).then_some(body.mass)
        };
        match (moving(first), second.map(moving)) {
            (Some(m1), Some(Some(m2))) => Some(m1 * m2 / (m1 + m2)),
            (Some(m1), _) => Some(m1),
            (None, Some(Some(m2))) => Some(m2),
            (None, _) => None,
        }
    }
}

fn check_offset(
    offset: &Vector3<f64>,
    link: &Link,
    span: Option<Span>,
) -> Result<(), PhysicsError> {
    if offset.iter().all(|c| c.is_finite()) {
        Ok(())
    } else {
        Err(PhysicsError::model(
            format!("link on {}: the offset must be finite", link.body1),
            span.or(Some(link.origin.command)),
        ))
    }
}
