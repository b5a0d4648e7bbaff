//! Forces and torques (5.1.1): expression components, gravity and trajectory values, applied
//! at an offset from the centre of mass.
//!
//! A force `F` applied at offset `d` (body coordinates) also turns the body: the torque is
//! `(R d) × F`. A torque `T` about an axis through the point at offset `d` also pushes it: the
//! dissertation gives the induced force as `d × T` (figure 5.3), with `d` rotated into the world
//! here as well. Forces and torques are in world axes.

use super::assemble::Assembly;
use super::error::PhysicsError;
use super::symbols::Channel;
use super::work::{ElementKind, Source};
use crate::scene::model::{Force, ForceKind, ForceValue};
use crate::sym::Vec3;

impl Assembly<'_> {
    /// Adds `force`, the scene's force number `index`, to the load of its body. Forces on
    /// fixed bodies have no effect, but their expressions are still checked.
    pub fn add_force(&mut self, index: usize, force: &Force) -> Result<(), PhysicsError> {
        let word = match force.kind {
            ForceKind::Force => "force",
            ForceKind::Torque => "torque",
        };
        let at = Some(force.origin.command);
        let body = self.body_index(&force.body).ok_or_else(|| {
            PhysicsError::model(
                format!("{word} on `{}`, which is not a body", force.body),
                at,
            )
        })?;
        let value = match &force.value {
            ForceValue::Components(components) => self.expression_vector(components)?,
            ForceValue::Gravity(acceleration) => {
                let weight = acceleration.value * self.world.bodies[body].mass;
                Vec3::constant(&mut self.pool, weight.into())
            }
            ForceValue::Trajectory(name) => {
                let trajectory = self.trajectory_index(name).ok_or_else(|| {
                    PhysicsError::model(
                        format!("{word} on {}: `{name}` is not a trajectory", force.body),
                        at,
                    )
                })?;
                self.trajectory_vector(trajectory, Channel::VALUE)
            }
        };
        let offset = force.offset.value;
        if !offset.iter().all(|c| c.is_finite()) {
            return Err(PhysicsError::model(
                format!("{word} on {}: the offset must be finite", force.body),
                force.offset.span.or(at),
            ));
        }
        if self.world.bodies[body].is_fixed() {
            return Ok(());
        }
        let induced = if offset == nalgebra::Vector3::zeros() {
            None
        } else {
            let arm = self
                .world
                .kinematics(&mut self.pool, body)
                .point(&mut self.pool, &offset)
                .arm;
            Some(arm.cross(&mut self.pool, value))
        };
        let (kind, force, torque) = match force.kind {
            ForceKind::Force => (ElementKind::Force, value, induced),
            ForceKind::Torque => (
                ElementKind::Torque,
                induced.unwrap_or(Vec3::zero()),
                Some(value),
            ),
        };
        self.load(body, force, torque, (kind, Source::Force(index), false));
        Ok(())
    }
}
