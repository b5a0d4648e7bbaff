//! `force` and `torque`: forces and torques on one body, given as expressions of time and
//! state, as a gravitational acceleration, or as a trajectory's value (5.1.1).

use super::args::{self, Options};
use super::expr::{expression, expression_vector, zero};
use super::{Expect, Shared};
use crate::lang::span::Span;
use crate::lang::{Arg, Exception, Interp, Value};
use crate::scene::model::{ExprVec, Force, ForceKind, ForceValue, Param, Vec3};

pub(super) const FORCE_OPTIONS: &[&str] = &[
    "torque",
    "body",
    "x",
    "y",
    "z",
    "vector",
    "gravity",
    "trajectory",
    "offset",
];
pub(super) const TORQUE_OPTIONS: &[&str] =
    &["body", "x", "y", "z", "vector", "trajectory", "offset"];

/// `force ?torque BOOL? body B (x E y E z E | vector {…} | gravity {…} | trajectory T)
/// ?offset {dx dy dz}?`
pub(super) fn force(
    interp: &mut Interp,
    shared: &Shared,
    words: &[Arg],
) -> Result<Value, Exception> {
    let options = Options::parse(words, 1, "force", FORCE_OPTIONS, &[])?;
    let kind = match options.get("torque") {
        Some(arg) if args::boolean(arg, "torque")? => ForceKind::Torque,
        _ => ForceKind::Force,
    };
    element(interp, shared, &options, kind)
}

/// `torque body B (x E y E z E | vector {…} | trajectory T) ?offset {dx dy dz}?`: the same
/// as `force torque 1 …`.
pub(super) fn torque(
    interp: &mut Interp,
    shared: &Shared,
    words: &[Arg],
) -> Result<Value, Exception> {
    let options = Options::parse(words, 1, "torque", TORQUE_OPTIONS, &[])?;
    element(interp, shared, &options, ForceKind::Torque)
}

fn element(
    interp: &mut Interp,
    shared: &Shared,
    options: &Options,
    kind: ForceKind,
) -> Result<Value, Exception> {
    let command = interp.current_span();
    let body = options.require("body", command)?;
    let groups: &[&[&str]] = &[&["x", "y", "z"], &["vector"], &["gravity"], &["trajectory"]];
    let value = match options.exclusive(groups)? {
        Some((0, _, _)) => {
            ForceValue::Components(Box::new(components(interp, shared, options, command)?))
        }
        Some((1, _, vector)) => ForceValue::Components(Box::new(expression_vector(
            interp, shared, vector, "vector",
        )?)),
        Some((2, word, _)) if kind == ForceKind::Torque => {
            return Err(Exception::error_at(
                "gravity is a force, not a torque",
                word.span,
            ))
        }
        Some((2, _, gravity)) => ForceValue::Gravity(args::vector(gravity, "gravity")?),
        Some((_, _, trajectory)) => ForceValue::Trajectory(trajectory_name(shared, trajectory)?),
        None => {
            let what = match kind {
                ForceKind::Force => "force needs a value: x/y/z components, vector {x y z}, gravity {gx gy gz} or trajectory T",
                ForceKind::Torque => "torque needs a value: x/y/z components, vector {x y z} or trajectory T",
            };
            return Err(Exception::error_at(what, command));
        }
    };
    let offset = optional_vector(options, "offset")?;
    let body = body_name(shared, body, "body")?;
    let mut builder = shared.borrow_mut();
    let origin = builder.origin(command);
    builder.scene.forces.push(Force {
        kind,
        body,
        value,
        offset,
        origin,
    });
    Ok(Value::empty())
}

/// `x E y E z E`, each optional (missing components are 0).
pub(super) fn components(
    interp: &mut Interp,
    shared: &Shared,
    options: &Options,
    command: Span,
) -> Result<ExprVec, Exception> {
    let mut component = |name: &str| match options.get(name) {
        Some(arg) => expression(interp, shared, arg),
        None => Ok(zero(command)),
    };
    Ok(ExprVec {
        x: component("x")?,
        y: component("y")?,
        z: component("z")?,
    })
}

/// An optional `{x y z}` option, zero when absent.
pub(super) fn optional_vector(options: &Options, option: &str) -> Result<Param<Vec3>, Exception> {
    match options.get(option) {
        Some(arg) => args::vector(arg, option),
        None => Ok(Param::computed(Vec3::zeros())),
    }
}

/// A body named by an option; checked at the end of the text if not defined yet.
pub(super) fn body_name(shared: &Shared, arg: &Arg, what: &str) -> Result<String, Exception> {
    let name = args::name(arg, what)?;
    let mut builder = shared.borrow_mut();
    if builder.body_index(&name).is_none() {
        builder.refer(&name, arg.span, Expect::Body);
    }
    Ok(name)
}

/// A trajectory named by an option; checked at the end of the text if not defined yet.
pub(super) fn trajectory_name(shared: &Shared, arg: &Arg) -> Result<String, Exception> {
    let name = args::name(arg, "trajectory")?;
    let mut builder = shared.borrow_mut();
    if builder.trajectory_index(&name).is_none() {
        builder.refer(&name, arg.span, Expect::Trajectory);
    }
    Ok(name)
}
