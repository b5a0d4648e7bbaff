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
use super::work::ElementKind;
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
#[derive(Clone, Debug)]
pub struct InteractionInputs {
    values: Arc<[AtomicU64]>,
    /// Per body (scene order): its first input and whether it is pullable; `None` for fixed
    /// bodies and in models that are not interactive.
    blocks: Arc<[Option<(usize, bool)>]>,
    /// Per body: its first contact input; `None` for fixed bodies.
    contact: Arc<[Option<usize>]>,
}

impl InteractionInputs {
    /// Inputs for `bodies` bodies of which `moving(b)` ones move and `pullable` can be pulled;
    /// with `pullable` `None`, no interaction inputs (a plain model), only contact inputs.
    pub(crate) fn new(
        bodies: usize,
        moving: impl Fn(usize) -> bool,
        pullable: Option<&Pullable>,
    ) -> InteractionInputs {
        let mut next = 0;
        let blocks: Arc<[Option<(usize, bool)>]> = (0..bodies)
            .map(|b| {
                let pullable = pullable?;
                if !moving(b) {
                    return None;
                }
                let first = next;
                next += INPUTS_PER_BODY;
                Some((first, pullable.includes(b)))
            })
            .collect();
        let contact: Arc<[Option<usize>]> = (0..bodies)
            .map(|b| {
                moving(b).then(|| {
                    next += CONTACT_INPUTS;
                    next - CONTACT_INPUTS
                })
            })
            .collect();
        InteractionInputs {
            values: (0..next).map(|_| AtomicU64::new(0)).collect(),
            blocks,
            contact,
        }
    }

    /// These inputs if `other`, the inputs of a model of an earlier version of the scene, have
    /// the same layout, else `other` itself: a model recompiled after an edit then shares
    /// its inputs with the components it keeps, whose compiled equations read `other`.
    pub(crate) fn or_same_as(self, other: &InteractionInputs) -> InteractionInputs {
        if self.blocks == other.blocks && self.contact == other.contact {
            other.clone()
        } else {
            self
        }
    }

    /// Whether these inputs are `other`'s (the same values, not a copy).
    pub(crate) fn shared_with(&self, other: &InteractionInputs) -> bool {
        Arc::ptr_eq(&self.values, &other.values)
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
        let Some(&Some(first)) = self.contact.get(body) else {
            return false;
        };
        self.store(first, force.as_slice());
        self.store(first + 3, torque.as_slice());
        true
    }

    /// Body `body`'s first contact input.
    pub(crate) fn contact_block(&self, body: usize) -> Option<usize> {
        self.contact.get(body).copied().flatten()
    }

    /// Whether body `body` can be pushed (it moves, and the model is interactive).
    pub fn can_push(&self, body: usize) -> bool {
        self.blocks.get(body).is_some_and(Option::is_some)
    }

    /// Whether body `body` can be pulled.
    pub fn can_pull(&self, body: usize) -> bool {
        matches!(self.blocks.get(body), Some(Some((_, true))))
    }

    /// Pushes body `body` with `force` (zero to stop). Returns false, changing nothing, if the
    /// body cannot be pushed.
    pub fn set_push(&self, body: usize, force: Vector3<f64>) -> bool {
        let Some(&Some((first, _))) = self.blocks.get(body) else {
            return false;
        };
        self.store(first + offset::PUSH, force.as_slice());
        true
    }

    /// Pulls body `body`, or stops pulling it with `None`. Returns false, changing nothing, if
    /// the body cannot be pulled.
    pub fn set_pull(&self, body: usize, pull: Option<&Pull>) -> bool {
        let Some(&Some((first, true))) = self.blocks.get(body) else {
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
        self.blocks.get(body).copied().flatten()
    }
}

impl Assembly<'_> {
    /// Adds the push on body `body` whose inputs start at `first`, and the pull if `pull`.
    pub fn add_interaction(&mut self, body: usize, first: usize, pull: bool) {
        let symbols = &self.world.symbols;
        let inputs = |pool: &mut crate::sym::Pool, at: usize| {
            Vec3::symbols(pool, [0, 1, 2].map(|k| symbols.input(first + at + k)))
        };
        let pool = &mut self.pool;
        let push = inputs(pool, offset::PUSH);
        let spring = pull.then(|| {
            let arm = inputs(pool, offset::ARM);
            let target = inputs(pool, offset::TARGET);
            let stiffness = pool.symbol(symbols.input(first + offset::STIFFNESS));
            let damping = pool.symbol(symbols.input(first + offset::DAMPING));
            let point = self.world.kinematics[body].point_at(pool, arm);
            let gap = target.sub(pool, point.position);
            let spring = gap.scale(pool, stiffness);
            let damper = point.velocity.scale(pool, damping);
            let force = spring.sub(pool, damper);
            (force, point.arm.cross(pool, force))
        });
        self.load(body, push, None, (ElementKind::Push, None, false));
        let Some((force, torque)) = spring else {
            return;
        };
        self.load(body, force, Some(torque), (ElementKind::Pull, None, false));
    }

    /// Adds the contact force and torque on body `body` whose contact inputs start at `first`.
    pub fn add_contact(&mut self, body: usize, first: usize) {
        let symbols = &self.world.symbols;
        let pool = &mut self.pool;
        let [force, torque] =
            [0, 3].map(|at| Vec3::symbols(pool, [0, 1, 2].map(|k| symbols.input(first + at + k))));
        self.load_without_work(body, force, torque);
    }
}
