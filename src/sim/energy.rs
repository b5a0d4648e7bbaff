//! The energy ledger of a run: the change of the bodies' kinetic energy, accounted for by
//! cause.
//!
//! Kinetic energy (translation and rotation of every moving body) changes for three kinds of
//! reasons, each measured on its own:
//!
//! - the work of each force, torque, link, push and pull, summed along the computed motion
//!   ([`Model::work`]);
//! - the instantaneous changes the collider makes — impulses, bodies brought to rest — each
//!   recorded with the energy it took or gave ([`Collider::energy`]);
//! - the integrator's own error, which no element does: the remainder, `drift`.
//!
//! On a closed elastic scene impulses and forces give nothing and the drift is the whole
//! change; a gain that no force explains shows up in its cause's line.

use crate::scene::Scene;
use crate::sim::collide::ledger::Cause;
use crate::sim::collide::Collider;
use crate::sim::physics::{BodyState, Model, SceneMotion, Work};
use serde::Serialize;

/// The ledger of one run from the start to `until`.
#[derive(Clone, Debug, PartialEq)]
pub struct Ledger {
    pub until: f64,
    /// The bodies' kinetic energy at the start and at `until`, joules.
    pub kinetic_start: f64,
    pub kinetic_end: f64,
    /// The change made by instantaneous changes, per cause.
    pub instantaneous: Vec<(Cause, f64)>,
    /// The work of each element, in the scene's order.
    pub work: Vec<Work>,
}

impl Ledger {
    /// Measures the ledger of `motion` (a simulation of `model`, compiled or last updated for
    /// `scene`, with `collider` its collisions) from the start to `until`, or to where every
    /// body is computed if that is earlier.
    pub fn measure(
        model: &Model,
        scene: &Scene,
        motion: &SceneMotion,
        collider: Option<&Collider>,
        until: f64,
    ) -> Ledger {
        let start = model.simulator().start;
        let until = until.min(motion.complete_until()).max(start);
        Ledger {
            until,
            kinetic_start: kinetic_energy(model, motion, start),
            kinetic_end: kinetic_energy(model, motion, until),
            instantaneous: collider
                .map_or_else(Vec::new, |c| c.energy(until, &motion.motion().tracks())),
            work: model.work(scene, motion.motion(), until),
        }
    }

    /// The measured change of kinetic energy.
    pub fn change(&self) -> f64 {
        self.kinetic_end - self.kinetic_start
    }

    /// The work of all elements together.
    pub fn total_work(&self) -> f64 {
        self.work.iter().map(|w| w.work).sum()
    }

    /// The change made by instantaneous changes of every cause together.
    pub fn total_instantaneous(&self) -> f64 {
        self.instantaneous.iter().map(|&(_, e)| e).sum()
    }

    /// What no cause explains: the integrator's own error.
    pub fn drift(&self) -> f64 {
        self.change() - self.total_work() - self.total_instantaneous()
    }
}

/// The total kinetic energy of the moving bodies at `t` (0 where a body is not computed).
pub fn kinetic_energy(model: &Model, motion: &SceneMotion, t: f64) -> f64 {
    model
        .bodies()
        .iter()
        .enumerate()
        .filter(|(_, b)| !b.is_fixed())
        .filter_map(|(i, body)| {
            let s: BodyState = motion.state(i, t)?;
            let momentum = body.world_inertia(&s.rotation) * s.angular_velocity;
            Some(
                0.5 * body.mass * s.velocity.norm_squared()
                    + 0.5 * s.angular_velocity.dot(&momentum),
            )
        })
        .sum()
}

/// The ledger as `--stats` writes it: `{"until", "kinetic": {"start", "end", "change"},
/// "instantaneous": {CAUSE: J}, "work": [{"element", "bodies", "line", "work"}], "work_total",
/// "drift"}`.
#[derive(Serialize)]
pub struct LedgerJson {
    pub until: f64,
    pub kinetic: KineticJson,
    pub instantaneous: std::collections::BTreeMap<Cause, f64>,
    pub work: Vec<WorkJson>,
    pub work_total: f64,
    pub drift: f64,
}

#[derive(Serialize)]
pub struct KineticJson {
    pub start: f64,
    pub end: f64,
    pub change: f64,
}

#[derive(Serialize)]
pub struct WorkJson {
    pub element: &'static str,
    pub bodies: Vec<String>,
    /// The line of the element's command, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    pub work: f64,
}

impl Ledger {
    /// The ledger in `--stats` form; `line_of` turns a byte offset of the scene text into a
    /// line number.
    pub fn to_json(&self, line_of: impl Fn(usize) -> usize) -> LedgerJson {
        LedgerJson {
            until: self.until,
            kinetic: KineticJson {
                start: self.kinetic_start,
                end: self.kinetic_end,
                change: self.change(),
            },
            instantaneous: self.instantaneous.iter().copied().collect(),
            work: self
                .work
                .iter()
                .map(|w| WorkJson {
                    element: w.kind.name(),
                    bodies: w.bodies.clone(),
                    line: w.span.map(|s| line_of(s.start)),
                    work: w.work,
                })
                .collect(),
            work_total: self.total_work(),
            drift: self.drift(),
        }
    }
}
