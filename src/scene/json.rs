//! The scene as JSON (`asgard check --json`): every element with its kind, parameters, the
//! spans they were written at (bytes and line/column) and whether graphical editing may
//! rewrite them. For tools and views that are not written in Rust.

use super::element::ElementRef;
use super::model::{
    CameraValue, Color, ExprVec, Expression, ForceValue, Geometry, LightKind, LinkTarget, Param,
    Scene, Vec3,
};
use super::{SceneError, Warning};
use crate::lang::span::{LineIndex, Span};
use serde_json::{json, Map, Value};

/// The report on a scene that evaluated.
pub fn scene_json(scene: &Scene, text: &str) -> Value {
    let j = Json {
        text,
        lines: LineIndex::new(text),
    };
    let elements: Vec<Value> = scene.elements().map(|e| j.element(scene, e)).collect();
    let s = &scene.simulator;
    json!({
        "ok": true,
        "elements": elements,
        "simulator": {
            "start": s.start,
            "finish": s.finish,
            "step": s.step,
            "tolerance": s.tolerance,
            "live_dt": s.live_dt,
            "live_rate": s.live_rate,
            "collisions": s.collisions,
        },
        "warnings": scene.warnings.iter().map(|w| j.warning(w)).collect::<Vec<_>>(),
        "log": scene.log,
    })
}

/// The report on a scene whose evaluation failed.
pub fn error_json(error: &SceneError, text: &str) -> Value {
    let j = Json {
        text,
        lines: LineIndex::new(text),
    };
    json!({
        "ok": false,
        "error": { "message": error.message, "span": j.span(error.span) },
    })
}

struct Json<'a> {
    text: &'a str,
    lines: LineIndex,
}

impl Json<'_> {
    fn span(&self, span: Span) -> Value {
        let start = self.lines.line_col(self.text, span.start);
        let end = self.lines.line_col(self.text, span.end);
        json!({
            "start": span.start,
            "end": span.end,
            "line": start.line,
            "column": start.column,
            "end_line": end.line,
            "end_column": end.column,
        })
    }

    fn opt_span(&self, span: Option<Span>) -> Value {
        span.map_or(Value::Null, |s| self.span(s))
    }

    fn warning(&self, w: &Warning) -> Value {
        json!({ "message": w.message, "span": self.span(w.span) })
    }

    /// A parameter: its value, its literal span, and whether a drag may rewrite it.
    fn param(&self, value: Value, span: Option<Span>, editable: bool) -> Value {
        json!({
            "value": value,
            "span": self.opt_span(span),
            "editable": editable && span.is_some(),
        })
    }

    fn vec_param(&self, p: &Param<Vec3>, editable: bool) -> Value {
        self.param(vec3(&p.value), p.span, editable)
    }

    fn num_param(&self, p: &Param<f64>, editable: bool) -> Value {
        self.param(json!(p.value), p.span, editable)
    }

    fn expression(&self, e: &Expression, editable: bool) -> Value {
        json!({
            "source": e.source,
            "expression": e.display(),
            "constant": e.constant,
            "span": self.opt_span(e.span),
            "editable": editable && e.span.is_some() && e.constant.is_some(),
        })
    }

    fn expressions(&self, v: &ExprVec, editable: bool) -> Value {
        json!({
            "x": self.expression(&v.x, editable),
            "y": self.expression(&v.y, editable),
            "z": self.expression(&v.z, editable),
        })
    }

    fn camera_value(&self, v: &CameraValue, editable: bool) -> Value {
        match v {
            CameraValue::Constant(p) => json!({ "constant": self.vec_param(p, editable) }),
            CameraValue::Expressions(e) => json!({ "expressions": self.expressions(e, editable) }),
            CameraValue::Trajectory(t) => json!({ "trajectory": t }),
        }
    }

    fn element(&self, scene: &Scene, e: ElementRef) -> Value {
        let origin = scene
            .origin(e)
            .expect("elements() yields existing elements");
        let ed = origin.editable;
        let i = e.index;
        let mut out = Map::new();
        out.insert("kind".into(), json!(e.kind.word()));
        out.insert("index".into(), json!(i));
        let params = match e.kind {
            super::ElementKind::Shape => {
                let s = &scene.shapes[i];
                out.insert("name".into(), json!(s.name));
                let parts: Vec<Value> = s
                    .parts
                    .iter()
                    .map(|p| {
                        let geometry = match &p.geometry {
                            Geometry::Sphere { radius } => json!({ "sphere": radius }),
                            Geometry::Polyhedron { vertices } => {
                                json!({ "polyhedron": vertices.iter().map(vec3).collect::<Vec<_>>() })
                            }
                        };
                        json!({ "pos": vec3(&p.pos), "geometry": geometry, "color": p.color.map(hex) })
                    })
                    .collect();
                json!({ "parts": parts, "desc_span": self.opt_span(s.desc_span) })
            }
            super::ElementKind::Body => {
                let b = &scene.bodies[i];
                out.insert("name".into(), json!(b.name));
                json!({
                    "shape": b.shape,
                    "init_pos": self.vec_param(&b.init_pos, ed),
                    "init_rot": self.vec_param(&b.init_rot, ed),
                    "init_dpos": self.vec_param(&b.init_dpos, ed),
                    "init_drot": self.vec_param(&b.init_drot, ed),
                    "mass": b.mass.as_ref().map(|m| self.num_param(m, false)),
                    "computed_mass": scene.body_mass(b).ok(),
                    "inertia": b.inertia.as_ref().map(|m| {
                        (0..3).map(|r| (0..3).map(|c| m.value[(r, c)]).collect::<Vec<_>>()).collect::<Vec<_>>()
                    }),
                    "artbody": b.artbody,
                    "color": b.color.as_ref().map(|c| hex(c.value)),
                    "restitution": b.restitution.value,
                    "friction": b.friction.value,
                    "fixed": b.fixed,
                })
            }
            super::ElementKind::Force => {
                let f = &scene.forces[i];
                let value = match &f.value {
                    ForceValue::Components(v) => json!({ "components": self.expressions(v, ed) }),
                    ForceValue::Gravity(g) => json!({ "gravity": self.vec_param(g, ed) }),
                    ForceValue::Trajectory(t) => json!({ "trajectory": t }),
                };
                json!({
                    "type": f.kind.word(),
                    "body": f.body,
                    "value": value,
                    "offset": self.vec_param(&f.offset, ed),
                })
            }
            super::ElementKind::Link => {
                let l = &scene.links[i];
                let target = match &l.target {
                    LinkTarget::Body { body2, offset2 } => {
                        json!({ "body2": body2, "offset2": self.vec_param(offset2, ed) })
                    }
                    LinkTarget::Point(p) => json!({ "point": self.expressions(p, ed) }),
                    LinkTarget::Trajectory(t) => json!({ "trajectory": t }),
                };
                json!({
                    "body1": l.body1,
                    "offset1": self.vec_param(&l.offset1, ed),
                    "target": target,
                    "tightness": self.num_param(&l.tightness, false),
                })
            }
            super::ElementKind::Trajectory => {
                let t = &scene.trajectories[i];
                out.insert("name".into(), json!(t.name));
                let pieces: Vec<Value> = t
                    .pieces
                    .iter()
                    .map(|p| {
                        let points: Vec<Value> = p
                            .points
                            .iter()
                            .map(|c| {
                                json!({
                                    "time": c.time,
                                    "pos": vec3(&c.pos),
                                    "span": self.opt_span(c.span),
                                    "editable": ed && c.span.is_some(),
                                })
                            })
                            .collect();
                        json!({ "span": self.opt_span(p.span), "points": points })
                    })
                    .collect();
                let attachments: Vec<Value> = t
                    .attachments
                    .iter()
                    .map(|a| json!({ "body": a.body, "var": a.variable.keyword() }))
                    .collect();
                json!({ "pieces": pieces, "attachments": attachments })
            }
            super::ElementKind::Light => {
                let l = &scene.lights[i];
                out.insert("name".into(), json!(l.name));
                json!({
                    "type": match l.kind { LightKind::Point => "point", LightKind::Directional => "directional" },
                    "pos": self.vec_param(&l.pos, ed),
                    "dir": self.vec_param(&l.dir, ed),
                    "color": hex(l.color),
                    "intensity": l.intensity,
                    "trajectory": l.trajectory,
                })
            }
            super::ElementKind::Camera => {
                let c = scene
                    .camera
                    .as_ref()
                    .expect("elements() yields the camera only if set");
                json!({
                    "pos": self.camera_value(&c.pos, ed),
                    "rot": self.camera_value(&c.rot, ed),
                    "center": self.camera_value(&c.center, ed),
                    "scale": self.num_param(&c.scale, ed),
                })
            }
            super::ElementKind::Simulator => json!({}),
        };
        out.insert("command".into(), self.span(origin.command));
        out.insert("editable".into(), json!(ed));
        out.insert("params".into(), params);
        Value::Object(out)
    }
}

fn vec3(v: &Vec3) -> Value {
    json!([v.x, v.y, v.z])
}

fn hex(c: Color) -> Value {
    json!(c.to_hex())
}
