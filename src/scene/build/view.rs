//! `lightsource` and `camera`: how the scene is lit and seen (4.1.7, 4.1.8). Neither affects
//! the motion.

use super::args::{self, element_arg, Options};
use super::expr::expression_vector;
use super::force::trajectory_name;
use super::Shared;
use crate::lang::{Arg, Exception, Interp, Value};
use crate::scene::model::{Camera, CameraValue, Color, Light, LightKind, Param, Vec3};

pub(super) const LIGHT_OPTIONS: &[&str] =
    &["type", "pos", "dir", "color", "intensity", "trajectory"];
pub(super) const CAMERA_OPTIONS: &[&str] = &["pos", "rot", "scale", "center"];

/// Where a light is when `pos` is not given.
pub const DEFAULT_LIGHT_POS: [f64; 3] = [0.0, 10.0, 10.0];
/// Where a directional light shines when `dir` is not given: down and away from the viewer.
pub const DEFAULT_LIGHT_DIR: [f64; 3] = [0.0, -1.0, -1.0];
/// Where the camera is when `pos` is not given: on the z axis, looking at the origin.
pub const DEFAULT_CAMERA_POS: [f64; 3] = [0.0, 0.0, 20.0];

/// `lightsource NAME ?type point|directional? ?pos {x y z}? ?dir {x y z}? ?color C?
/// ?intensity I? ?trajectory T?`
pub(super) fn lightsource(
    interp: &mut Interp,
    shared: &Shared,
    words: &[Arg],
) -> Result<Value, Exception> {
    let command = interp.current_span();
    let Some(name_arg) = words.get(1) else {
        return Err(super::usage(
            "lightsource NAME ?type point|directional? ?pos {x y z}? ?dir {x y z}? ?color C? ?intensity I?",
        ));
    };
    let name = args::name(name_arg, "light")?;
    let options = Options::parse(words, 2, "lightsource", LIGHT_OPTIONS, &[])?;
    let kind = match options.get("type") {
        None => LightKind::Point,
        Some(arg) => match arg.value.as_str() {
            "point" => LightKind::Point,
            "directional" => LightKind::Directional,
            other => {
                return Err(Exception::error_at(
                    format!("unknown light type \"{other}\": expected point or directional"),
                    arg.span,
                ))
            }
        },
    };
    let vector = |option: &str, default: [f64; 3]| match options.get(option) {
        Some(arg) => args::vector(arg, option),
        None => Ok(Param::computed(Vec3::from(default))),
    };
    let pos = vector("pos", DEFAULT_LIGHT_POS)?;
    let dir = vector("dir", DEFAULT_LIGHT_DIR)?;
    if let (Some(arg), LightKind::Directional) = (options.get("dir"), kind) {
        if dir.value.norm() == 0.0 {
            return Err(Exception::error_at(
                "the direction of a directional light must not be zero",
                arg.span,
            ));
        }
    }
    let color = match options.get("color") {
        Some(arg) => args::color(arg)?.value,
        None => Color::WHITE,
    };
    let intensity = match options.get("intensity") {
        Some(arg) => args::non_negative(arg, "intensity")?.value,
        None => 1.0,
    };
    let trajectory = options
        .get("trajectory")
        .map(|arg| trajectory_name(shared, arg))
        .transpose()?;
    let mut builder = shared.borrow_mut();
    if let Some(i) = builder.light_index(&name) {
        let line = builder.line(builder.scene.lights[i].origin.command);
        return Err(Exception::error_at(
            format!("duplicate name \"{name}\": a lightsource of that name is already defined on line {line}"),
            name_arg.span,
        ));
    }
    let origin = builder.origin(command);
    builder.add_light(Light {
        name: Some(name.clone()),
        kind,
        pos,
        dir,
        color,
        intensity,
        trajectory,
        origin,
    });
    Ok(Value::from(name))
}

/// `camera ?pos P? ?rot P? ?scale S? ?center P?`, P being `{x y z}` numbers, three
/// expressions of time and state, or a trajectory name.
pub(super) fn camera(
    interp: &mut Interp,
    shared: &Shared,
    words: &[Arg],
) -> Result<Value, Exception> {
    let command = interp.current_span();
    let options = Options::parse(words, 1, "camera", CAMERA_OPTIONS, &[])?;
    let mut value = |option: &str, default: [f64; 3]| match options.get(option) {
        Some(arg) => camera_value(interp, shared, arg, option),
        None => Ok(CameraValue::Constant(Param::computed(Vec3::from(default)))),
    };
    let pos = value("pos", DEFAULT_CAMERA_POS)?;
    let rot = value("rot", [0.0; 3])?;
    let center = value("center", [0.0; 3])?;
    let scale = match options.get("scale") {
        Some(arg) => args::positive(arg, "scale")?,
        None => Param::computed(1.0),
    };
    let mut builder = shared.borrow_mut();
    if let Some(existing) = &builder.scene.camera {
        let line = builder.line(existing.origin.command);
        return Err(Exception::error_at(
            format!("the camera is already defined on line {line}: a scene has one camera"),
            words[0].span,
        ));
    }
    let origin = builder.origin(command);
    builder.scene.camera = Some(Camera {
        pos,
        rot,
        scale,
        center,
        origin,
    });
    Ok(Value::empty())
}

fn camera_value(
    interp: &mut Interp,
    shared: &Shared,
    arg: &Arg,
    option: &str,
) -> Result<CameraValue, Exception> {
    let items = args::list(arg, option)?;
    match items {
        [x, y, z] if [x, y, z].iter().all(|v| v.as_float().is_some()) => {
            Ok(CameraValue::Constant(args::vector(arg, option)?))
        }
        [_, _, _] => Ok(CameraValue::Expressions(Box::new(expression_vector(
            interp, shared, arg, option,
        )?))),
        [name] if name.as_float().is_none() => {
            let name = element_arg(arg, name);
            let name = trajectory_name(shared, &name)?;
            Ok(CameraValue::Trajectory(name))
        }
        _ => Err(Exception::error_at(
            format!("camera {option} must be {{x y z}} (numbers or braced expressions) or the name of a trajectory"),
            arg.span,
        )),
    }
}
