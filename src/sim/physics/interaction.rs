//! Acting on bodies from outside while a simulation runs (live mode): a push, a constant force
//! at the centre of mass, and a pull, a critically damped spring from a point of the body to a
//! target point in the world.
//!
//! Both enter the equations as *external inputs*: symbols whose values the equations read at
//! every evaluation, set between steps through [`InteractionInputs`]. Moving the target with
//! the mouse therefore changes a number, not the equations; nothing is recompiled. Each moving
//! body of an interactive model ([`Model::compile_interactive`](super::Model)) has eleven
//! inputs, all zero (no force) until set:
//!
//! | offset | inputs | meaning |
//! |---|---|---|
//! | 0..3 | push | force at the centre of mass, world axes |
//! | 3..6 | arm | the pulled point, from the centre of mass, body axes |
//! | 6..9 | target | where the point is pulled to, world |
//! | 9 | stiffness | `k` of the spring |
//! | 10 | damping | `c` of the spring |
//!
//! The pull is `F = k (target - p) - c v_p` at the pulled point `p = x + R arm`, moving at
//! `v_p = v + ω × R arm`, with the torque `R arm × F`. Its terms are only written for the bodies
//! chosen as pullable: they make a body's position, orientation and velocities depend on each
//! other, so its variables form one component instead of several small ones.
//!
//! Every moving body of every model also has six *contact inputs*: the force at its centre of
//! mass and the torque about it (world axes) with which the bodies it rests on hold it, set
//! by collision handling at each contact tick (see `collide::contact`). They are loads without
//! a work element: their values change over the motion, and the collider records their work
//! tick by tick itself.
//!
//! Inputs are piecewise constant: whoever changes them between steps should restart the
//! components of that body (the change is a discontinuity), as live stepping does with a
//! back-up at the current time.

use super::assemble::Assembly;
use super::symbols::input;
use super::work::{ElementKind, Source};
use crate::sym::Vec3;
use nalgebra::Vector3;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Number of external inputs of each moving body of an interactive model.
pub const INPUTS_PER_BODY: usize = 11;
/// Number of contact inputs of each moving body: force, then torque.
pub const CONTACT_INPUTS: usize = 6;

mod offset {
    pub const PUSH: usize = 0;
    pub const ARM: usize = 3;
    pub const TARGET: usize = 6;
    pub const STIFFNESS: usize = 9;
    pub const DAMPING: usize = 10;
}

/// Which bodies an interactive model lets the user pull (every moving body can be pushed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pullable {
    All,
    /// These bodies, by scene index; fixed ones are ignored.
    Only(Vec<usize>),
}

impl Pullable {
    fn includes(&self, body: usize) -> bool {
        match self {
            Pullable::All => true,
            Pullable::Only(bodies) => bodies.contains(&body),
        }
    }
}

/// A pull on a body: the spring's point on the body, its target and its coefficients.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pull {
    /// From the centre of mass to the pulled point, body axes.
    pub arm: Vector3<f64>,
    /// World.
    pub target: Vector3<f64>,
    pub stiffness: f64,
    pub damping: f64,
}

impl Pull {
    /// A critically damped pull on a body of mass `mass` that closes a gap with the time
    /// constant `time_constant` seconds: `k = m / τ²`, `c = 2 sqrt(k m)`.
    pub fn critically_damped(
        mass: f64,
        time_constant: f64,
        arm: Vector3<f64>,
        target: Vector3<f64>,
    ) -> Pull {
        let stiffness = mass / (time_constant * time_constant);
        Pull {
            arm,
            target,
            stiffness,
            damping: 2.0 * (stiffness * mass).sqrt(),
        }
    }
}

/// The external inputs of an interactive model, shared with its compiled equations: clones set
/// the values every component reads. Setting is cheap (atomic stores) and may happen from any
/// thread, but values should change only between steps.
///
/// A body's inputs are numbered by its *slot*, the number of its block of state variables
/// (see [`Model`](super::Model)), not by its place in the scene, so that an edit that adds or
/// removes bodies leaves every other body's inputs where its compiled equations read them. The
/// values have room for more slots than the scene uses; a model outgrowing them is compiled
/// anew with new values.
#[derive(Clone, Debug)]
pub struct InteractionInputs {
    values: Arc<[AtomicU64]>,
    /// The slots the values have room for.
    capacity: usize,
    /// Whether bodies have push and pull inputs (an interactive model).
    interactive: bool,
    /// Per body (scene order): its slot and whether it is pullable; `None` for fixed bodies.
    bodies: Arc<[Option<(usize, bool)>]>,
}

impl InteractionInputs {
    /// Inputs for bodies whose slots `slots` gives per body (`None` for fixed ones), of which
    /// `pullable` can be pulled; with `pullable` `None`, no interaction inputs (a plain
    /// model), only contact inputs. The values have room for twice the slots used.
    pub(crate) fn new(slots: &[Option<usize>], pullable: Option<&Pullable>) -> InteractionInputs {
        let used = slots.iter().flatten().map(|&s| s + 1).max().unwrap_or(0);
        let capacity = (2 * used).max(16);
        let per_slot = CONTACT_INPUTS
            + if pullable.is_some() {
                INPUTS_PER_BODY
            } else {
                0
            };
        InteractionInputs {
            values: (0..capacity * per_slot)
                .map(|_| AtomicU64::new(0))
                .collect(),
            capacity,
            interactive: pullable.is_some(),
            bodies: bodies(slots, pullable),
        }
    }

    /// These inputs for bodies in the slots `slots` (as [`InteractionInputs::new`]), sharing
    /// the values, if they have room for them.
    pub(crate) fn rearranged(
        &self,
        slots: &[Option<usize>],
        pullable: Option<&Pullable>,
    ) -> Option<InteractionInputs> {
        let fits = slots.iter().flatten().all(|&s| s < self.capacity);
        (fits && pullable.is_some() == self.interactive).then(|| InteractionInputs {
            values: self.values.clone(),
            capacity: self.capacity,
            interactive: self.interactive,
            bodies: bodies(slots, pullable),
        })
    }

    /// Whether these inputs are `other`'s (the same values, not a copy).
    pub(crate) fn shared_with(&self, other: &InteractionInputs) -> bool {
        Arc::ptr_eq(&self.values, &other.values)
    }

    /// The first contact input: every input from it on is one.
    fn first_contact(&self) -> usize {
        if self.interactive {
            self.capacity * INPUTS_PER_BODY
        } else {
            0
        }
    }

    /// Number of inputs over all bodies.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Sets the force and the torque with which body `body`'s contacts hold it; false,
    /// changing nothing, for a fixed body.
    pub(crate) fn set_contact(
        &self,
        body: usize,
        force: Vector3<f64>,
        torque: Vector3<f64>,
    ) -> bool {
        let Some(first) = self.contact_block(body) else {
            return false;
        };
        self.store(first, force.as_slice());
        self.store(first + 3, torque.as_slice());
        true
    }

    /// Body `body`'s first contact input.
    pub(crate) fn contact_block(&self, body: usize) -> Option<usize> {
        let (slot, _) = self.bodies.get(body).copied().flatten()?;
        Some(self.first_contact() + slot * CONTACT_INPUTS)
    }

    /// Whether body `body` can be pushed (it moves, and the model is interactive).
    pub fn can_push(&self, body: usize) -> bool {
        self.block(body).is_some()
    }

    /// Whether body `body` can be pulled.
    pub fn can_pull(&self, body: usize) -> bool {
        matches!(self.block(body), Some((_, true)))
    }

    /// Pushes body `body` with `force` (zero to stop). Returns false, changing nothing, if the
    /// body cannot be pushed.
    pub fn set_push(&self, body: usize, force: Vector3<f64>) -> bool {
        let Some((first, _)) = self.block(body) else {
            return false;
        };
        self.store(first + offset::PUSH, force.as_slice());
        true
    }

    /// Pulls body `body`, or stops pulling it with `None`. Returns false, changing nothing, if
    /// the body cannot be pulled.
    pub fn set_pull(&self, body: usize, pull: Option<&Pull>) -> bool {
        let Some((first, true)) = self.block(body) else {
            return false;
        };
        let released = Pull {
            arm: Vector3::zeros(),
            target: Vector3::zeros(),
            stiffness: 0.0,
            damping: 0.0,
        };
        let pull = pull.unwrap_or(&released);
        self.store(first + offset::ARM, pull.arm.as_slice());
        self.store(first + offset::TARGET, pull.target.as_slice());
        self.store(first + offset::STIFFNESS, &[pull.stiffness]);
        self.store(first + offset::DAMPING, &[pull.damping]);
        true
    }

    /// The value of input `k`.
    pub(crate) fn get(&self, k: usize) -> f64 {
        f64::from_bits(self.values[k].load(Ordering::Relaxed))
    }

    fn store(&self, first: usize, values: &[f64]) {
        for (slot, v) in self.values[first..].iter().zip(values) {
            slot.store(v.to_bits(), Ordering::Relaxed);
        }
    }

    /// Body `body`'s first input and whether it is pullable.
    pub(crate) fn block(&self, body: usize) -> Option<(usize, bool)> {
        if !self.interactive {
            return None;
        }
        let (slot, pullable) = self.bodies.get(body).copied().flatten()?;
        Some((slot * INPUTS_PER_BODY, pullable))
    }
}

/// Per body, its slot and whether `pullable` includes it.
fn bodies(slots: &[Option<usize>], pullable: Option<&Pullable>) -> Arc<[Option<(usize, bool)>]> {
    slots
        .iter()
        .enumerate()
        .map(|(b, slot)| slot.map(|s| (s, pullable.is_some_and(|p| p.includes(b)))))
        .collect()
}

impl Assembly<'_> {
    /// Adds the push on body `body` whose inputs start at `first`, and the pull if `pull`.
    pub fn add_interaction(&mut self, body: usize, first: usize, pull: bool) {
        let inputs = |pool: &mut crate::sym::Pool, at: usize| {
            Vec3::symbols(pool, [0, 1, 2].map(|k| input(first + at + k)))
        };
        let pool = &mut self.pool;
        let push = inputs(pool, offset::PUSH);
        let spring = pull.then(|| {
            let arm = inputs(pool, offset::ARM);
            let target = inputs(pool, offset::TARGET);
            let stiffness = pool.symbol(input(first + offset::STIFFNESS));
            let damping = pool.symbol(input(first + offset::DAMPING));
            let point = self.world.kinematics(pool, body).point_at(pool, arm);
            let gap = target.sub(pool, point.position);
            let spring = gap.scale(pool, stiffness);
            let damper = point.velocity.scale(pool, damping);
            let force = spring.sub(pool, damper);
            (force, point.arm.cross(pool, force))
        });
        let source = Source::Body(body);
        self.load(body, push, None, (ElementKind::Push, source, false));
        let Some((force, torque)) = spring else {
            return;
        };
        self.load(
            body,
            force,
            Some(torque),
            (ElementKind::Pull, source, false),
        );
    }

    /// Adds the contact force and torque on body `body` whose contact inputs start at `first`.
    pub fn add_contact(&mut self, body: usize, first: usize) {
        let pool = &mut self.pool;
        let [force, torque] =
            [0, 3].map(|at| Vec3::symbols(pool, [0, 1, 2].map(|k| input(first + at + k))));
        self.load_without_work(body, force, torque);
    }
}
