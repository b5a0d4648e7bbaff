//! `trajectory NAME points {{t x y z} …} ?points {…}?… ?body B var pos|rot|dpos|drot?`: a
//! path in time made of pieces over disjoint intervals, optionally constraining a body's state
//! variable while a piece is active (4.1.4, 5.1.3).
//!
//! The trajectory also becomes a command `NAME ATTR ?TIME?` giving its value (`x y z`) or
//! derivative (`dx dy dz`) at TIME (the simulator's start time by default).

use super::args::{self, element_arg, literal_span, Options};
use super::force::body_name;
use super::Shared;
use crate::lang::{Arg, Exception, Interp, Value};
use crate::scene::attribute::{Attribute, Quantity, TRAJECTORY_ATTRIBUTES};
use crate::scene::model::{
    Attachment, ConstrainedVar, ControlPoint, Trajectory, TrajectoryPiece, Vec3,
};

pub(super) const OPTIONS: &[&str] = &["points", "body", "var"];
const VARIABLES: &[&str] = &["pos", "rot", "dpos", "drot"];

pub(super) fn trajectory(
    interp: &mut Interp,
    shared: &Shared,
    words: &[Arg],
) -> Result<Value, Exception> {
    let command = interp.current_span();
    let Some(name_arg) = words.get(1) else {
        return Err(super::usage(
            "trajectory NAME points {{t x y z} ...} ?points {...}? ?body BODY var pos|rot|dpos|drot?",
        ));
    };
    let name = args::name(name_arg, "trajectory")?;
    let options = Options::parse(words, 2, "trajectory", OPTIONS, &["points"])?;
    options.require("points", command)?;
    let mut pieces: Vec<TrajectoryPiece> = Vec::new();
    for arg in options.all("points") {
        let piece = piece(arg)?;
        if let Some(other) = pieces
            .iter()
            .find(|p| piece.start() < p.end() && p.start() < piece.end())
        {
            return Err(Exception::error_at(
                format!(
                    "this piece (times {} to {}) overlaps an earlier piece (times {} to {}): the pieces of a trajectory cover disjoint intervals",
                    piece.start(),
                    piece.end(),
                    other.start(),
                    other.end()
                ),
                arg.span,
            ));
        }
        pieces.push(piece);
    }
    pieces.sort_by(|a, b| a.start().total_cmp(&b.start()));
    let attachments = match (options.get("body"), options.get("var")) {
        (None, None) => Vec::new(),
        (Some(body), Some(var)) => {
            let variable = variable(var)?;
            let body = body_name(shared, body, "body")?;
            vec![Attachment { body, variable }]
        }
        (Some(body), None) => {
            return Err(Exception::error_at(
                format!(
                    "a trajectory attached to a body needs var ({})",
                    args::one_of(VARIABLES)
                ),
                body.span,
            ))
        }
        (None, Some(var)) => {
            return Err(Exception::error_at(
                "var says which state variable of a body the trajectory drives: give body too",
                var.span,
            ))
        }
    };
    let mut builder = shared.borrow_mut();
    builder.check_command_name(interp, &name, name_arg.span)?;
    if let (Some(attached), Some(body_word)) = (attachments.first(), options.get("body")) {
        check_no_conflict(&builder.scene.trajectories, attached, &pieces, body_word)?;
    }
    let origin = builder.origin(command);
    let index = builder.add_trajectory(Trajectory {
        name: name.clone(),
        pieces,
        attachments,
        origin,
    });
    drop(builder);
    let shared = shared.clone();
    interp.register(&name, move |_, words| value(&shared, index, words));
    Ok(Value::from(name))
}

/// One `points` list: at least two `{t x y z}` in increasing time.
fn piece(arg: &Arg) -> Result<TrajectoryPiece, Exception> {
    let items = args::list(arg, "points")?;
    if items.len() < 2 {
        return Err(Exception::error_at(
            "a piece of a trajectory needs at least 2 points {t x y z}",
            arg.span,
        ));
    }
    let mut points: Vec<ControlPoint> = Vec::with_capacity(items.len());
    for item in items {
        let point = element_arg(arg, item);
        let fields = args::list(&point, "a trajectory point")?;
        if fields.len() != 4 {
            return Err(Exception::error_at(
                format!(
                    "a trajectory point is {{t x y z}} (4 numbers), got {} element{}",
                    fields.len(),
                    if fields.len() == 1 { "" } else { "s" }
                ),
                point.span,
            ));
        }
        let mut numbers = [0.0; 4];
        for (slot, field) in numbers.iter_mut().zip(fields) {
            let what = "a trajectory point";
            *slot = args::number_at(field, args::element_span(&point, field), what)?;
        }
        if let Some(previous) = points.last() {
            if numbers[0] <= previous.time {
                return Err(Exception::error_at(
                    format!(
                        "times must increase along a piece: {} comes after {}",
                        numbers[0], previous.time
                    ),
                    point.span,
                ));
            }
        }
        points.push(ControlPoint {
            time: numbers[0],
            pos: Vec3::new(numbers[1], numbers[2], numbers[3]),
            span: literal_span(&point),
        });
    }
    Ok(TrajectoryPiece {
        points,
        span: literal_span(arg),
    })
}

fn variable(arg: &Arg) -> Result<ConstrainedVar, Exception> {
    match arg.value.as_str() {
        "pos" => Ok(ConstrainedVar::Position),
        "rot" => Ok(ConstrainedVar::Rotation),
        "dpos" => Ok(ConstrainedVar::Velocity),
        "drot" => Ok(ConstrainedVar::AngularVelocity),
        other => Err(Exception::error_at(
            format!(
                "unknown state variable \"{other}\": expected {}",
                args::one_of(VARIABLES)
            ),
            arg.span,
        )),
    }
}

/// Two trajectories may not drive the same variable of the same body at the same time.
fn check_no_conflict(
    others: &[Trajectory],
    attached: &Attachment,
    pieces: &[TrajectoryPiece],
    at: &Arg,
) -> Result<(), Exception> {
    for other in others {
        if !other.attachments.contains(attached) {
            continue;
        }
        let overlapping = pieces.iter().any(|p| {
            other
                .pieces
                .iter()
                .any(|q| p.start() < q.end() && q.start() < p.end())
        });
        if overlapping {
            return Err(Exception::error_at(
                format!(
                    "trajectory {} already drives this variable of {} during part of the same time",
                    other.name, attached.body
                ),
                at.span,
            ));
        }
    }
    Ok(())
}

/// `NAME ATTR ?TIME?` run as plain Tcl.
fn value(shared: &Shared, index: usize, words: &[Arg]) -> Result<Value, Exception> {
    shared.borrow_mut().trajectory_asked(index);
    let builder = shared.borrow();
    let trajectory = &builder.scene.trajectories[index];
    let (attr, time) = match words {
        [_, attr] => (attr, builder.scene.simulator.start),
        [_, attr, time] => (attr, args::number(time, "the time")?.value),
        _ => {
            return Err(Exception::error(format!(
                "wrong # args: should be \"{} attribute ?time?\" with attribute one of {}",
                trajectory.name,
                args::one_of(&TRAJECTORY_ATTRIBUTES)
            )))
        }
    };
    let (vector, i) = match Attribute::of_trajectory(attr.value.as_str()) {
        Some(Attribute::Component(Quantity::Velocity, i)) => (trajectory.velocity(time), i),
        Some(Attribute::Component(_, i)) => (trajectory.position(time), i),
        _ => {
            return Err(Exception::error_at(
                super::attribute_problem(&trajectory.name, attr.value.as_str(), false)
                    .unwrap_or_default(),
                attr.span,
            ))
        }
    };
    Ok(Value::from_float(vector[i]))
}
