//! Trajectories in the simulation (5.1.3): as time-dependent values in expressions, links and
//! forces, and as constraints that prescribe a body's variables over each piece's interval.
//!
//! A trajectory attached to a body's
//! - position prescribes `x y z` with the curve and `dx dy dz` with its derivative, so at the
//!   end of the piece the body continues with the curve's end velocity (figure 5.5);
//! - velocity prescribes `dx dy dz` with the curve (the position integrates it);
//! - rotation (a rotation vector) prescribes the quaternion and the angular momentum that the
//!   curve's rate of turning implies, so the body keeps turning at the end;
//! - angular velocity (world axes) cannot be a prescription: the momentum `R I Rᵀ ω` that
//!   matches it depends on the orientation the simulation reaches. Instead the equations
//!   switch while a piece is in effect (see `Steering`): the quaternion turns at the curve's
//!   `ω`, and the momentum follows `R I Rᵀ ω` exactly once a mismatch from the piece's start
//!   has decayed (within a fiftieth of the shortest piece), so the body keeps turning at the
//!   curve's end value afterwards.
//!
//! While constrained, the variables ignore the forces and torques on them. Every piece's start
//! and end is a breakpoint of the components holding or reading the variables, so no step
//! crosses one. Two constraints on the same variables at the same time are an error.

use super::bodies::Bodies;
use super::body::BodyModel;
use super::body_index::BodyIndex;
use super::error::PhysicsError;
use super::rotation::angular_velocity_from_rate;
use super::symbols::Channel;
use crate::scene::model::{ConstrainedVar, Scene, Trajectory};
use crate::sim::{Prescription, VarId};
use nalgebra::{Quaternion, UnitQuaternion, Vector3};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// Position and time derivative of `trajectory` at `t`, linearly extrapolated outside its
/// pieces: the one place the simulator evaluates curves.
fn curve_at(trajectory: &Trajectory, t: f64) -> (Vector3<f64>, Vector3<f64>) {
    (trajectory.position(t), trajectory.velocity(t))
}

/// The scene's trajectories, shared by the equations and the prescriptions.
#[derive(Clone, Debug)]
pub(crate) struct Curves {
    trajectories: Arc<[Trajectory]>,
}

impl Curves {
    pub fn new(trajectories: &[Trajectory]) -> Curves {
        Curves {
            trajectories: trajectories.into(),
        }
    }

    /// Position and derivative of trajectory `index` at `t`.
    pub fn at(&self, index: usize, t: f64) -> (Vector3<f64>, Vector3<f64>) {
        curve_at(&self.trajectories[index], t)
    }

    /// The second derivative of trajectory `index` at `t`, by a central difference of the
    /// derivative (it only steers the step size of prescribed velocities).
    fn acceleration(&self, index: usize, t: f64) -> Vector3<f64> {
        let h = 1e-6 * (1.0 + t.abs());
        (self.at(index, t + h).1 - self.at(index, t - h).1) / (2.0 * h)
    }

    /// Whether one of trajectory `index`'s pieces is in effect at `t`, on `(start, end]`: the
    /// step that ends at a piece's end is still governed by it.
    fn is_active(&self, index: usize, t: f64) -> bool {
        self.trajectories[index]
            .pieces
            .iter()
            .any(|p| p.start() < t && t <= p.end())
    }

    /// Writes the value of each channel at `t` into `out`, evaluating each trajectory once.
    pub fn channel_values(&self, channels: &[Channel], t: f64, out: &mut [f64]) {
        let mut cached: Option<(usize, [f64; 6])> = None;
        for (channel, value) in channels.iter().zip(out) {
            let i = channel.trajectory;
            let k = channel.component;
            *value = match k {
                0..Channel::ACCELERATION => {
                    let values = match cached {
                        Some((index, values)) if index == i => values,
                        _ => {
                            let (p, v) = self.at(i, t);
                            let values = [p.x, p.y, p.z, v.x, v.y, v.z];
                            cached = Some((i, values));
                            values
                        }
                    };
                    values[k as usize]
                }
                Channel::ACCELERATION..Channel::ACTIVE => {
                    self.acceleration(i, t)[(k - Channel::ACCELERATION) as usize]
                }
                _ => f64::from(u8::from(self.is_active(i, t))),
            };
        }
    }

    /// The times where trajectory `index` has a piece start or end: a component reading it
    /// must not step across them (the curve's derivative jumps there).
    pub fn breakpoints(&self, index: usize) -> Vec<f64> {
        self.trajectories[index].breakpoints()
    }
}

/// An interval over which a trajectory constrains one of a body's state variables.
#[derive(Clone, Debug, PartialEq)]
pub struct Constraint {
    pub variable: ConstrainedVar,
    pub start: f64,
    pub end: f64,
    /// Index of the trajectory in the scene.
    pub trajectory: usize,
}

impl Constraint {
    /// Whether the constraint holds at `t` (its interval is closed).
    pub fn holds_at(&self, t: f64) -> bool {
        self.start <= t && t <= self.end
    }
}

/// The constraints of the bodies that `only` selects (the others have none here) from every
/// trajectory attached to them, and the prescriptions of their variables. `index` finds a body
/// of the scene by name.
pub(crate) fn constrain(
    scene: &Scene,
    bodies: &Bodies,
    curves: &Curves,
    index: &BodyIndex,
    only: impl Fn(usize) -> bool,
) -> Result<Constrained, PhysicsError> {
    let (span_start, span_end) = (scene.simulator.start, scene.simulator.finish);
    // By body, only those constrained (an update constrains a few bodies of many).
    let mut constraints: BTreeMap<usize, Vec<Constraint>> = BTreeMap::new();
    let mut names: HashMap<VarId, String> = HashMap::new();
    let mut prescribed: HashMap<VarId, Vec<(f64, f64, usize, Prescription)>> = HashMap::new();
    for (ti, trajectory) in scene.trajectories.iter().enumerate() {
        let at = Some(trajectory.origin.command);
        for attachment in &trajectory.attachments {
            let b = index.get(&attachment.body).ok_or_else(|| {
                PhysicsError::model(
                    format!(
                        "trajectory {} is attached to `{}`, which is not a body",
                        trajectory.name, attachment.body
                    ),
                    at,
                )
            })?;
            if !only(b) {
                continue;
            }
            let body = &bodies[b];
            let Some(vars) = body.vars else {
                return Err(PhysicsError::model(
                    format!(
                        "trajectory {} is attached to {}, which is fixed",
                        trajectory.name, body.name
                    ),
                    at,
                ));
            };
            for piece in &trajectory.pieces {
                let start = piece.start().max(span_start);
                let end = piece.end().min(span_end);
                // Start and end are finite (checked with the simulator), so this is start >= end.
                if start >= end {
                    continue;
                }
                constraints.entry(b).or_default().push(Constraint {
                    variable: attachment.variable,
                    start,
                    end,
                    trajectory: ti,
                });
                let functions = prescriptions(
                    attachment.variable,
                    vars_of(attachment.variable, vars),
                    ti,
                    body,
                    curves,
                );
                for (var, function) in functions {
                    names.entry(var).or_insert_with(|| {
                        let offset = var.index() - vars.first.index();
                        format!("{}.{}", body.name, super::body::slot::NAMES[offset])
                    });
                    prescribed.entry(var).or_default().push((
                        start,
                        end,
                        ti,
                        Prescription::new(start, end, function),
                    ));
                }
            }
        }
    }
    check_turning(scene, bodies, &constraints)?;
    let mut vars: Vec<VarId> = prescribed.keys().copied().collect();
    vars.sort_unstable();
    let mut prescriptions = Vec::new();
    for var in vars {
        let mut list = prescribed.remove(&var).unwrap_or_default();
        list.sort_by(|a, b| a.0.total_cmp(&b.0));
        for pair in list.windows(2) {
            let ((s0, e0, t0, _), (s1, e1, t1, _)) = (&pair[0], &pair[1]);
            if s1 < e0 {
                let (first, second) = (&scene.trajectories[*t0], &scene.trajectories[*t1]);
                return Err(PhysicsError::model(
                    format!(
                        "trajectories {} [{s0}, {e0}] and {} [{s1}, {e1}] both constrain {} at the same time",
                        first.name,
                        second.name,
                        names[&var]
                    ),
                    Some(second.origin.command),
                ));
            }
        }
        prescriptions.extend(list.into_iter().map(|(_, _, _, p)| (var, p)));
    }
    let constraints = constraints.into_iter().collect();
    Ok(Constrained {
        constraints,
        prescriptions,
    })
}

/// What [`constrain`] found: per constrained body its constraints, and the prescriptions of
/// their variables.
pub(crate) struct Constrained {
    pub constraints: Vec<(usize, Vec<Constraint>)>,
    pub prescriptions: Vec<(VarId, Prescription)>,
}

/// Fails when two trajectories govern a body's turning at the same time (a rotation and an
/// angular velocity, or two angular velocities: these share no prescribed variable, so the
/// prescription check would not see them).
fn check_turning(
    scene: &Scene,
    bodies: &Bodies,
    constraints: &BTreeMap<usize, Vec<Constraint>>,
) -> Result<(), PhysicsError> {
    let turning = |c: &&Constraint| {
        matches!(
            c.variable,
            ConstrainedVar::Rotation | ConstrainedVar::AngularVelocity
        )
    };
    for (body, list) in constraints.iter().map(|(&b, list)| (&bodies[b], list)) {
        let list: Vec<&Constraint> = list.iter().filter(turning).collect();
        for (i, a) in list.iter().enumerate() {
            for b in &list[i + 1..] {
                let both_rotation = a.variable == ConstrainedVar::Rotation
                    && b.variable == ConstrainedVar::Rotation;
                if !both_rotation && a.start < b.end && b.start < a.end {
                    let (first, second) = (
                        &scene.trajectories[a.trajectory],
                        &scene.trajectories[b.trajectory],
                    );
                    return Err(PhysicsError::model(
                        format!(
                            "trajectories {} [{}, {}] and {} [{}, {}] both govern how {} turns at the same time",
                            first.name, a.start, a.end, second.name, b.start, b.end, body.name
                        ),
                        Some(second.origin.command),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// A prescribed function: time → (value, derivative).
type Function = Box<dyn Fn(f64) -> (f64, f64) + Send + Sync>;

fn vars_of(variable: ConstrainedVar, vars: super::body::BodyVars) -> Vec<VarId> {
    match variable {
        ConstrainedVar::Position => vars.position().into_iter().chain(vars.velocity()).collect(),
        ConstrainedVar::Velocity => vars.velocity().to_vec(),
        ConstrainedVar::Rotation => vars.rotation().into_iter().chain(vars.momentum()).collect(),
        ConstrainedVar::AngularVelocity => Vec::new(),
    }
}

/// The functions the variables `vars` (from [`vars_of`]) follow while trajectory `ti` is
/// attached as `variable`.
fn prescriptions(
    variable: ConstrainedVar,
    vars: Vec<VarId>,
    ti: usize,
    body: &BodyModel,
    curves: &Curves,
) -> Vec<(VarId, Function)> {
    let functions: Vec<Function> = match variable {
        ConstrainedVar::Position => (0..6)
            .map(|k| {
                let curves = curves.clone();
                let f: Function = if k < 3 {
                    Box::new(move |t| {
                        let (p, v) = curves.at(ti, t);
                        (p[k], v[k])
                    })
                } else {
                    Box::new(move |t| {
                        (curves.at(ti, t).1[k - 3], curves.acceleration(ti, t)[k - 3])
                    })
                };
                f
            })
            .collect(),
        ConstrainedVar::Velocity => (0..3)
            .map(|k| {
                let curves = curves.clone();
                let f: Function = Box::new(move |t| {
                    let (v, a) = curves.at(ti, t);
                    (v[k], a[k])
                });
                f
            })
            .collect(),
        ConstrainedVar::Rotation => (0..7)
            .map(|k| {
                let curves = curves.clone();
                let body = body.clone();
                let f: Function = Box::new(move |t| {
                    let turning = Turning::at(&curves, ti, &body, t);
                    if k < 4 {
                        (turning.rotation[k], turning.rate[k])
                    } else {
                        let h = 1e-6 * (1.0 + t.abs());
                        let ahead = Turning::at(&curves, ti, &body, t + h).momentum;
                        let behind = Turning::at(&curves, ti, &body, t - h).momentum;
                        (
                            turning.momentum[k - 4],
                            (ahead[k - 4] - behind[k - 4]) / (2.0 * h),
                        )
                    }
                });
                f
            })
            .collect(),
        ConstrainedVar::AngularVelocity => Vec::new(),
    };
    vars.into_iter().zip(functions).collect()
}

/// A body's orientation state while a rotation trajectory drives it.
struct Turning {
    /// `qw qx qy qz`.
    rotation: [f64; 4],
    /// Their rates `½ ω ⊗ q`.
    rate: [f64; 4],
    /// World angular momentum `R I Rᵀ ω`.
    momentum: Vector3<f64>,
}

impl Turning {
    fn at(curves: &Curves, ti: usize, body: &BodyModel, t: f64) -> Turning {
        let (r, r_rate) = curves.at(ti, t);
        let q = UnitQuaternion::from_scaled_axis(r);
        let omega = angular_velocity_from_rate(&r, &r_rate);
        let rate = Quaternion::from_imag(omega) * q.into_inner() * 0.5;
        let momentum = body.world_inertia(&q) * omega;
        let q = q.into_inner();
        Turning {
            rotation: [q.w, q.i, q.j, q.k],
            rate: [rate.w, rate.i, rate.j, rate.k],
            momentum,
        }
    }
}
