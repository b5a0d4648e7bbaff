//! `link`: a critically damped spring from a point on a body to a point on another body, a
//! point in space (constant or moving) or a trajectory (5.1.2).

use super::args::{self, Options};
use super::expr::expression_vector;
use super::force::{body_name, components, optional_vector, trajectory_name};
use super::Shared;
use crate::lang::{Arg, Exception, Interp, Value};
use crate::scene::model::{Link, LinkTarget, Param};

pub(super) const OPTIONS: &[&str] = &[
    "body1",
    "offset1",
    "body2",
    "offset2",
    "x",
    "y",
    "z",
    "point",
    "trajectory",
    "tightness",
];

/// The spring constant when none is given, in newtons per metre.
pub const DEFAULT_TIGHTNESS: f64 = 1000.0;

/// `link body1 A ?offset1 V? (body2 B ?offset2 V? | x E y E z E | point {x y z} |
/// trajectory T) ?tightness K?`
pub(super) fn link(
    interp: &mut Interp,
    shared: &Shared,
    words: &[Arg],
) -> Result<Value, Exception> {
    let command = interp.current_span();
    let options = Options::parse(words, 1, "link", OPTIONS, &[])?;
    let body1 = options.require("body1", command)?;
    let groups: &[&[&str]] = &[
        &["body2", "offset2"],
        &["x", "y", "z"],
        &["point"],
        &["trajectory"],
    ];
    let target = match options.exclusive(groups)? {
        Some((0, word, _)) => {
            let Some(body2) = options.get("body2") else {
                return Err(Exception::error_at(
                    "offset2 is the point on a second body: give body2 too",
                    word.span,
                ));
            };
            if body2.value.as_str() == body1.value.as_str() {
                return Err(Exception::error_at(
                    "a link joins two different bodies: body2 is the same as body1",
                    body2.span,
                ));
            }
            LinkTarget::Body {
                body2: body_name(shared, body2, "body2")?,
                offset2: optional_vector(&options, "offset2")?,
            }
        }
        Some((1, _, _)) => {
            LinkTarget::Point(Box::new(components(interp, shared, &options, command)?))
        }
        Some((2, _, point)) => {
            LinkTarget::Point(Box::new(expression_vector(interp, shared, point, "point")?))
        }
        Some((_, _, trajectory)) => LinkTarget::Trajectory(trajectory_name(shared, trajectory)?),
        None => {
            return Err(Exception::error_at(
                "link needs a target: body2 B, x/y/z components, point {x y z} or trajectory T",
                command,
            ))
        }
    };
    let offset1 = optional_vector(&options, "offset1")?;
    let tightness = match options.get("tightness") {
        Some(arg) => args::positive(arg, "tightness")?,
        None => Param::computed(DEFAULT_TIGHTNESS),
    };
    let body1 = body_name(shared, body1, "body1")?;
    let mut builder = shared.borrow_mut();
    let origin = builder.origin(command);
    builder.scene.links.push(Link {
        body1,
        offset1,
        target,
        tightness,
        origin,
    });
    Ok(Value::empty())
}
