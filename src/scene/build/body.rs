//! `body NAME shape S ?option value …?`: a rigid body, an instance of a shape set (4.1.2).
//!
//! Each body also becomes a command `NAME ATTR` returning the initial value of one of its
//! state variables or its mass; inside force, link and camera expressions the same words stay
//! a symbolic reference to the state during simulation (see `expr`).

use super::args::{self, Options};
use super::Shared;
use crate::lang::{Arg, Exception, Interp, Value};
use crate::scene::attribute::{Attribute, Quantity, BODY_ATTRIBUTES};
use crate::scene::model::{Body, Param, Vec3, DEFAULT_FRICTION};
use nalgebra::Matrix3;

pub(super) const OPTIONS: &[&str] = &[
    "shape",
    "init_pos",
    "init_rot",
    "init_dpos",
    "init_drot",
    "mass",
    "inertia",
    "artbody",
    "color",
    "restitution",
    "friction",
    "fixed",
];

pub(super) fn body(
    interp: &mut Interp,
    shared: &Shared,
    words: &[Arg],
) -> Result<Value, Exception> {
    let command = interp.current_span();
    let Some(name_arg) = words.get(1) else {
        return Err(super::usage("body NAME shape SHAPE ?option value ...?"));
    };
    let name = args::name(name_arg, "body")?;
    let options = Options::parse(words, 2, "body", OPTIONS, &[])?;
    let shape = options.require("shape", command)?;
    let vector = |option: &str| match options.get(option) {
        Some(arg) => args::vector(arg, option),
        None => Ok(Param::computed(Vec3::zeros())),
    };
    let init_pos = vector("init_pos")?;
    let init_rot = vector("init_rot")?;
    let init_dpos = vector("init_dpos")?;
    let init_drot = vector("init_drot")?;
    let mass = options
        .get("mass")
        .map(|arg| args::positive(arg, "mass"))
        .transpose()?;
    let inertia = options.get("inertia").map(inertia).transpose()?;
    let artbody = options.get("artbody").map(|a| a.value.as_str().to_string());
    let color = options.get("color").map(args::color).transpose()?;
    let restitution = match options.get("restitution") {
        Some(arg) => {
            let r = args::number(arg, "restitution")?;
            if !(0.0..=1.0).contains(&r.value) {
                return Err(Exception::error_at(
                    format!(
                        "restitution must be from 0 (perfectly inelastic) to 1 (elastic), got {}",
                        arg.value
                    ),
                    arg.span,
                ));
            }
            r
        }
        None => Param::computed(1.0),
    };
    let friction = match options.get("friction") {
        Some(arg) => args::non_negative(arg, "friction")?,
        None => Param::computed(DEFAULT_FRICTION),
    };
    let fixed = match options.get("fixed") {
        Some(arg) => args::boolean(arg, "fixed")?,
        None => false,
    };
    let mut builder = shared.borrow_mut();
    builder.check_command_name(interp, &name, name_arg.span)?;
    if builder.shape_index(shape.value.as_str()).is_none() {
        return Err(unknown_shape(&builder.scene.shapes, shape));
    }
    let origin = builder.origin(command);
    let index = builder.add_body(Body {
        name: name.clone(),
        shape: shape.value.as_str().to_string(),
        init_pos,
        init_rot,
        init_dpos,
        init_drot,
        mass,
        inertia,
        artbody,
        color,
        restitution,
        friction,
        fixed,
        origin,
    });
    drop(builder);
    let shared = shared.clone();
    interp.register(&name, move |_, words| attribute(&shared, index, words));
    Ok(Value::from(name))
}

fn unknown_shape(shapes: &[crate::scene::model::ShapeSet], shape: &Arg) -> Exception {
    let known: Vec<&str> = shapes.iter().map(|s| s.name.as_str()).collect();
    let hint = if known.is_empty() {
        "no shape_set is defined before this body".to_string()
    } else {
        format!("shapes defined so far: {}", known.join(", "))
    };
    Exception::error_at(
        format!("unknown shape \"{}\" ({hint})", shape.value),
        shape.span,
    )
}

/// `inertia {ixx iyy izz}` (principal moments) or `inertia {{…} {…} {…}}` (the full tensor
/// in body axes, symmetric).
fn inertia(arg: &Arg) -> Result<Param<Matrix3<f64>>, Exception> {
    let rows = args::list(arg, "inertia")?;
    let shape_error = || {
        Exception::error_at(
            "inertia must be {ixx iyy izz} or a symmetric 3×3 matrix {{ixx ixy ixz} {iyx iyy iyz} {izx izy izz}}",
            arg.span,
        )
    };
    if rows.len() != 3 {
        return Err(shape_error());
    }
    let mut m = Matrix3::zeros();
    if rows.iter().all(|r| r.as_float().is_some()) {
        for (i, row) in rows.iter().enumerate() {
            m[(i, i)] = args::number_at(row, args::element_span(arg, row), "inertia")?;
        }
    } else {
        for (i, row) in rows.iter().enumerate() {
            let row = args::vector(&args::element_arg(arg, row), "a row of the inertia matrix")
                .map_err(|_| shape_error())?;
            for j in 0..3 {
                m[(i, j)] = row.value[j];
            }
        }
        let scale = m.abs().max().max(f64::MIN_POSITIVE);
        if (m - m.transpose()).abs().max() > 1e-9 * scale {
            return Err(Exception::error_at(
                "the inertia matrix must be symmetric",
                arg.span,
            ));
        }
    }
    if (0..3).any(|i| m[(i, i)] <= 0.0) {
        return Err(Exception::error_at(
            "the moments of inertia (the diagonal) must be greater than 0",
            arg.span,
        ));
    }
    Ok(Param {
        value: m,
        span: args::literal_span(arg),
    })
}

/// `NAME ATTR` run as plain Tcl: the initial value of the attribute.
fn attribute(shared: &Shared, index: usize, words: &[Arg]) -> Result<Value, Exception> {
    let builder = shared.borrow();
    let body = &builder.scene.bodies[index];
    let [_, attr] = words else {
        return Err(Exception::error(format!(
            "wrong # args: should be \"{} attribute\" with attribute one of {}",
            body.name,
            args::one_of(&BODY_ATTRIBUTES)
        )));
    };
    match Attribute::of_body(attr.value.as_str()) {
        Some(Attribute::Component(quantity, k)) => {
            let vector = match quantity {
                Quantity::Position => &body.init_pos,
                Quantity::Velocity => &body.init_dpos,
                Quantity::Rotation => &body.init_rot,
                Quantity::AngularVelocity => &body.init_drot,
            };
            Ok(Value::from_float(vector.value[k]))
        }
        Some(Attribute::Mass) => builder
            .scene
            .body_mass(body)
            .map(Value::from_float)
            .map_err(|e| {
                Exception::error(format!("cannot compute the mass of {}: {e}", body.name))
            }),
        None => Err(Exception::error_at(
            super::attribute_problem(&body.name, attr.value.as_str(), true).unwrap_or_default(),
            attr.span,
        )),
    }
}
