//! A readable summary of a scene (`asgard check --describe`): what a teacher wants to see to
//! know the text says what they meant.

use super::model::{
    CameraValue, ConstrainedVar, ExprVec, ForceValue, Geometry, LightKind, LinkTarget, Scene, Vec3,
};
use std::fmt::Write;

/// The summary, one element per line, grouped by kind.
pub fn describe(scene: &Scene) -> String {
    let mut out = String::new();
    let s = &scene.simulator;
    let _ = writeln!(
        out,
        "{} shape{}, {} bod{}, {} force{} and torque{}, {} link{}, {} trajector{}",
        scene.shapes.len(),
        plural(scene.shapes.len(), "", "s"),
        scene.bodies.len(),
        plural(scene.bodies.len(), "y", "ies"),
        scene.forces.len(),
        plural(scene.forces.len(), "", "s"),
        plural(scene.forces.len(), "", "s"),
        scene.links.len(),
        plural(scene.links.len(), "", "s"),
        scene.trajectories.len(),
        plural(scene.trajectories.len(), "y", "ies"),
    );
    let _ = writeln!(
        out,
        "time: {} s to {} s, step {} s, tolerance {}, collisions {}",
        num(s.start),
        num(s.finish),
        num(s.step),
        num(s.tolerance),
        if s.collisions { "on" } else { "off" }
    );
    section(
        &mut out,
        "shapes",
        scene.shapes.iter().map(|shape| {
            let parts: Vec<String> = shape
                .parts
                .iter()
                .map(|p| {
                    let what = match &p.geometry {
                        Geometry::Sphere { radius } => format!("sphere r={}", num(*radius)),
                        Geometry::Polyhedron { vertices } => {
                            format!("polyhedron of {} vertices", vertices.len())
                        }
                    };
                    if p.pos == Vec3::zeros() {
                        what
                    } else {
                        format!("{what} at {}", vector(&p.pos))
                    }
                })
                .collect();
            format!("{}: {}", shape.name, parts.join("; "))
        }),
    );
    section(
        &mut out,
        "bodies",
        scene.bodies.iter().map(|b| {
            let mass = match (&b.mass, scene.body_mass(b)) {
                (Some(m), _) => format!("mass {} kg", num(m.value)),
                (None, Ok(m)) => format!("mass {} kg (from the shape)", num(m)),
                (None, Err(e)) => format!("mass unknown ({e})"),
            };
            let mut line = format!(
                "{}: shape {}, {mass}, at {}",
                b.name,
                b.shape,
                vector(&b.init_pos.value)
            );
            for (label, v) in [
                ("rotated", &b.init_rot.value),
                ("moving", &b.init_dpos.value),
                ("spinning", &b.init_drot.value),
            ] {
                if *v != Vec3::zeros() {
                    let _ = write!(line, ", {label} {}", vector(v));
                }
            }
            if let Some(a) = &b.artbody {
                let _ = write!(line, ", part of {a}");
            }
            if b.fixed {
                line.push_str(", fixed");
            }
            line
        }),
    );
    section(
        &mut out,
        "forces and torques",
        scene.forces.iter().map(|f| {
            let value = match &f.value {
                ForceValue::Components(v) => expressions(v),
                ForceValue::Gravity(g) => format!("gravity {} times its mass", vector(&g.value)),
                ForceValue::Trajectory(t) => format!("trajectory {t}"),
            };
            let mut line = format!("{} on {}: {value}", f.kind.word(), f.body);
            if f.offset.value != Vec3::zeros() {
                let _ = write!(line, " at offset {}", vector(&f.offset.value));
            }
            line
        }),
    );
    section(
        &mut out,
        "links",
        scene.links.iter().map(|l| {
            let target = match &l.target {
                LinkTarget::Body { body2, offset2 } => {
                    format!("{body2} {}", vector(&offset2.value))
                }
                LinkTarget::Point(p) => format!("point {}", expressions(p)),
                LinkTarget::Trajectory(t) => format!("trajectory {t}"),
            };
            format!(
                "{} {} to {target}, tightness {}",
                l.body1,
                vector(&l.offset1.value),
                num(l.tightness.value)
            )
        }),
    );
    section(
        &mut out,
        "trajectories",
        scene.trajectories.iter().map(|t| {
            let points: usize = t.pieces.iter().map(|p| p.points.len()).sum();
            let (from, to) = t.time_range().unwrap_or_default();
            let mut line = format!(
                "{}: {} piece{}, {points} points, {} s to {} s",
                t.name,
                t.pieces.len(),
                plural(t.pieces.len(), "", "s"),
                num(from),
                num(to)
            );
            for a in &t.attachments {
                let var = match a.variable {
                    ConstrainedVar::Position => "position",
                    ConstrainedVar::Rotation => "rotation",
                    ConstrainedVar::Velocity => "velocity",
                    ConstrainedVar::AngularVelocity => "angular velocity",
                };
                let _ = write!(line, ", drives the {var} of {}", a.body);
            }
            line
        }),
    );
    section(
        &mut out,
        "lights",
        scene.lights.iter().map(|l| {
            let name = l.name.as_deref().unwrap_or("(unnamed)");
            let place = match (l.kind, &l.trajectory) {
                (LightKind::Directional, _) => {
                    format!("directional, shining {}", vector(&l.dir.value))
                }
                (LightKind::Point, Some(t)) => format!("point, following {t}"),
                (LightKind::Point, None) => format!("point at {}", vector(&l.pos.value)),
            };
            format!(
                "{name}: {place}, colour {}, intensity {}",
                l.color.to_hex(),
                num(l.intensity)
            )
        }),
    );
    if let Some(c) = &scene.camera {
        let value = |v: &CameraValue| match v {
            CameraValue::Constant(p) => vector(&p.value),
            CameraValue::Expressions(e) => expressions(e),
            CameraValue::Trajectory(t) => format!("trajectory {t}"),
        };
        let _ = writeln!(
            out,
            "camera: at {}, rotation {}, centre {}, scale {}",
            value(&c.pos),
            value(&c.rot),
            value(&c.center),
            num(c.scale.value)
        );
    }
    out
}

fn section(out: &mut String, title: &str, lines: impl Iterator<Item = String>) {
    let mut lines = lines.peekable();
    if lines.peek().is_none() {
        return;
    }
    let _ = writeln!(out, "{title}:");
    for line in lines {
        let _ = writeln!(out, "  {line}");
    }
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}

fn num(v: f64) -> String {
    crate::lang::number::format_significant(v, 6)
}

fn vector(v: &Vec3) -> String {
    format!("({}, {}, {})", num(v.x), num(v.y), num(v.z))
}

fn expressions(v: &ExprVec) -> String {
    match v.constant() {
        Some(c) => vector(&c),
        None => format!("({}, {}, {})", v.x.display(), v.y.display(), v.z.display()),
    }
}
