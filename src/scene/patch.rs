//! Graphical edits written back into the text (4.2.2).
//!
//! A drag in a graphical view changes one parameter of one element; [`patch`] turns that into
//! the smallest text edit that says the same thing: only the numbers that changed are rewritten,
//! in place, and every other byte (comments, layout, the other numbers of the same list) is
//! kept. A parameter that was not written at all (`body b3 shape ball` has no `init_pos`) is
//! added at the end of its command. Parameters the text does not state as literals of a
//! command that created only this element are refused with the reason.
//!
//! Numbers are written compactly: rounded to a number of significant digits (6 for drags), in
//! the shortest form that reads back as that rounded value (`9.5`, `-1.2`, `0`, `1e-7`).

use super::element::{ElementKind, ElementRef};
use super::model::{CameraValue, ExprVec, ForceValue, LinkTarget, Origin, Param, Scene, Vec3};
use super::source_map::Target;
use crate::lang::ast::Command;
use crate::lang::list;
use crate::lang::number::{format_significant, parse_number, round_significant};
use crate::lang::parse::parse_script;
use crate::lang::span::Span;
use std::fmt;

/// Significant digits of numbers written by a drag.
pub const DRAG_DIGITS: usize = 6;

/// The new value of a parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EditValue {
    Vector(Vec3),
    Number(f64),
}

/// Bytes of the text to replace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replacement {
    pub span: Span,
    pub text: String,
}

/// A text edit: non-overlapping replacements in text order. Empty when the text already says
/// the new value.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TextEdit {
    pub replacements: Vec<Replacement>,
}

impl TextEdit {
    pub fn is_empty(&self) -> bool {
        self.replacements.is_empty()
    }

    /// The text with the edit made.
    pub fn apply(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len() + 32);
        let mut at = 0;
        for r in &self.replacements {
            out.push_str(&text[at..r.span.start]);
            out.push_str(&r.text);
            at = r.span.end;
        }
        out.push_str(&text[at..]);
        out
    }
}

/// Why a graphical edit cannot be written into the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatchError {
    pub reason: String,
}

impl fmt::Display for PatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)
    }
}

impl std::error::Error for PatchError {}

fn refuse<T>(reason: impl Into<String>) -> Result<T, PatchError> {
    Err(PatchError {
        reason: reason.into(),
    })
}

/// The edit of `text` (from which `scene` was evaluated) that sets `target` to `value`,
/// numbers written with [`DRAG_DIGITS`] significant digits.
pub fn patch(
    text: &str,
    scene: &Scene,
    target: Target,
    value: EditValue,
) -> Result<TextEdit, PatchError> {
    patch_with_digits(text, scene, target, value, DRAG_DIGITS)
}

/// [`patch`] writing numbers with `digits` significant digits (1 to 17).
pub fn patch_with_digits(
    text: &str,
    scene: &Scene,
    target: Target,
    value: EditValue,
    digits: usize,
) -> Result<TextEdit, PatchError> {
    let element = target.element();
    let name = scene.describe_element(element);
    let Some(origin) = scene.origin(element) else {
        return refuse(format!("the scene has no {name}"));
    };
    if !origin.editable {
        return refuse(format!(
            "{name} was created by a command that ran more than once (in a loop, or in a proc called several times): its text stands for several elements"
        ));
    }
    if origin.command.end > text.len() || !text.is_char_boundary(origin.command.start) {
        return refuse("the text is not the one the scene was evaluated from");
    }
    let mut patcher = Patcher {
        text,
        origin,
        element,
        name,
        digits: digits.clamp(1, 17),
        edits: Vec::new(),
    };
    if !value_is_finite(value) {
        return refuse("the new value must be finite");
    }
    match value {
        EditValue::Vector(v) => patcher.vector_target(scene, target, v)?,
        EditValue::Number(n) => patcher.scalar_target(scene, target, n)?,
    }
    let mut replacements = patcher.edits;
    replacements.sort_by_key(|r| r.span.start);
    Ok(TextEdit { replacements })
}

fn value_is_finite(value: EditValue) -> bool {
    match value {
        EditValue::Vector(v) => v.iter().all(|c| c.is_finite()),
        EditValue::Number(n) => n.is_finite(),
    }
}

struct Patcher<'a> {
    text: &'a str,
    origin: &'a Origin,
    element: ElementRef,
    name: String,
    digits: usize,
    edits: Vec<Replacement>,
}

impl Patcher<'_> {
    fn vector_target(&mut self, scene: &Scene, target: Target, v: Vec3) -> Result<(), PatchError> {
        match target {
            Target::BodyInit { body, var } => {
                let b = &scene.bodies[body];
                let param = match var {
                    super::source_map::InitVar::Pos => &b.init_pos,
                    super::source_map::InitVar::Rot => &b.init_rot,
                    super::source_map::InitVar::Dpos => &b.init_dpos,
                    super::source_map::InitVar::Drot => &b.init_drot,
                };
                self.vector_param(param, var.option(), v)
            }
            Target::ForceVector(i) => match &scene.forces[i].value {
                ForceValue::Components(c) => self.components(c, v),
                ForceValue::Gravity(g) => self.vector_param(g, "gravity", v),
                ForceValue::Trajectory(t) => refuse(format!(
                    "{} follows trajectory {t}: move the trajectory's control points instead",
                    self.name
                )),
            },
            Target::ForceOffset(i) => self.vector_param(&scene.forces[i].offset, "offset", v),
            Target::LinkOffset1(i) => self.vector_param(&scene.links[i].offset1, "offset1", v),
            Target::LinkOffset2(i) => match &scene.links[i].target {
                LinkTarget::Body { offset2, .. } => self.vector_param(offset2, "offset2", v),
                _ => refuse(format!("{} does not join a second body", self.name)),
            },
            Target::LinkPoint(i) => match &scene.links[i].target {
                LinkTarget::Point(p) => self.components(p, v),
                _ => refuse(format!("{} is not attached to a point in space", self.name)),
            },
            Target::ControlPoint {
                trajectory,
                piece,
                point,
            } => {
                let control = self.control_point(scene, trajectory, piece, point)?;
                let span = self.control_span(control.span)?;
                self.rewrite_numbers(span, &[control.time, v.x, v.y, v.z])
            }
            Target::LightPos(i) => self.vector_param(&scene.lights[i].pos, "pos", v),
            Target::LightDir(i) => {
                if v.norm() == 0.0 {
                    return refuse("a light's direction must not be zero");
                }
                self.vector_param(&scene.lights[i].dir, "dir", v)
            }
            Target::CameraPos | Target::CameraRot | Target::CameraCenter => {
                let Some(camera) = &scene.camera else {
                    return refuse("the scene has no camera command");
                };
                let (value, option) = match target {
                    Target::CameraPos => (&camera.pos, "pos"),
                    Target::CameraRot => (&camera.rot, "rot"),
                    _ => (&camera.center, "center"),
                };
                match value {
                    CameraValue::Constant(param) => self.vector_param(param, option, v),
                    CameraValue::Expressions(e) => self.components(e, v),
                    CameraValue::Trajectory(t) => refuse(format!(
                        "the camera's {option} follows trajectory {t}: move the trajectory's control points instead"
                    )),
                }
            }
            Target::ControlTime { .. } | Target::CameraScale => self.wrong_kind("a number"),
        }
    }

    fn scalar_target(&mut self, scene: &Scene, target: Target, n: f64) -> Result<(), PatchError> {
        match target {
            Target::ControlTime {
                trajectory,
                piece,
                point,
            } => {
                let control = self.control_point(scene, trajectory, piece, point)?;
                let n = round_significant(n, self.digits);
                let (low, high) = time_bounds(scene, trajectory, piece, point);
                if !(low < n && n < high) {
                    return refuse(format!(
                        "the time of this point of trajectory {} must stay between {low} and {high}, the times around it",
                        scene.trajectories[trajectory].name
                    ));
                }
                let span = self.control_span(control.span)?;
                let p = control.pos;
                self.rewrite_numbers(span, &[n, p.x, p.y, p.z])
            }
            Target::CameraScale => {
                let Some(camera) = &scene.camera else {
                    return refuse("the scene has no camera command");
                };
                if n <= 0.0 {
                    return refuse("the camera scale must be greater than 0");
                }
                match camera.scale.span {
                    Some(span) => self.rewrite_numbers(span, &[n]),
                    None => self.add_option("scale", &format_significant(n, self.digits)),
                }
            }
            _ => self.wrong_kind("a vector"),
        }
    }

    fn wrong_kind(&self, expected: &str) -> Result<(), PatchError> {
        refuse(format!("this parameter of {} is {expected}", self.name))
    }

    fn control_point<'s>(
        &self,
        scene: &'s Scene,
        trajectory: usize,
        piece: usize,
        point: usize,
    ) -> Result<&'s super::model::ControlPoint, PatchError> {
        scene.trajectories[trajectory]
            .pieces
            .get(piece)
            .and_then(|p| p.points.get(point))
            .map_or_else(
                || refuse(format!("{} has no such control point", self.name)),
                Ok,
            )
    }

    fn control_span(&self, span: Option<Span>) -> Result<Span, PatchError> {
        span.map_or_else(
            || {
                refuse(format!(
                    "the points of {} are not written as a literal list in its command",
                    self.name
                ))
            },
            Ok,
        )
    }

    /// A `{x y z}` parameter: its literal rewritten, or the option added when absent.
    fn vector_param(
        &mut self,
        param: &Param<Vec3>,
        option: &str,
        v: Vec3,
    ) -> Result<(), PatchError> {
        match param.span {
            Some(span) => self.rewrite_numbers(span, v.as_slice()),
            None => self.add_option(option, &format!("{{{}}}", self.numbers(v.as_slice()))),
        }
    }

    /// A vector of expressions (force components, a link point, a camera value): each
    /// component that changes must be a literal number, or not written (then it is added).
    fn components(&mut self, v: &ExprVec, new: Vec3) -> Result<(), PatchError> {
        for (i, (component, name)) in v.components().into_iter().zip(["x", "y", "z"]).enumerate() {
            if [Some(new[i]), Some(round_significant(new[i], self.digits))]
                .contains(&component.constant)
            {
                continue;
            }
            match component.span {
                _ if component.source.is_empty() => {
                    self.add_option(name, &format_significant(new[i], self.digits))?
                }
                Some(span) if component.constant.is_some() => self.rewrite_numbers(span, &[new[i]])?,
                _ => {
                    return refuse(format!(
                        "component {name} of {} is {}, not a literal number, so it cannot be changed graphically",
                        self.name,
                        if component.span.is_some() {
                            format!("the expression {}", component.source)
                        } else {
                            format!("computed from \"{}\" when the scene runs", component.source)
                        }
                    ))
                }
            }
        }
        Ok(())
    }

    fn numbers(&self, values: &[f64]) -> String {
        let all: Vec<String> = values
            .iter()
            .map(|v| format_significant(*v, self.digits))
            .collect();
        all.join(" ")
    }

    /// Rewrites the numbers of the literal list at `span` that differ from `values`, each in
    /// place; the whole literal when its elements cannot be located one by one.
    fn rewrite_numbers(&mut self, span: Span, values: &[f64]) -> Result<(), PatchError> {
        let Some(literal) = self.text.get(span.start..span.end) else {
            return refuse("the text is not the one the scene was evaluated from");
        };
        let items = list::parse(literal, Some(span)).unwrap_or_default();
        let located = items.len() == values.len() && items.iter().all(|i| i.origin().is_some());
        if !located {
            self.edits.push(Replacement {
                span,
                text: self.numbers(values),
            });
            return Ok(());
        }
        for (item, value) in items.iter().zip(values) {
            // Unchanged values (given exactly) and values that round to what is written stay.
            let written = parse_number(item.as_str()).map(|n| n.as_f64());
            if [Some(*value), Some(round_significant(*value, self.digits))].contains(&written) {
                continue;
            }
            self.edits.push(Replacement {
                span: item.origin().expect("checked above"),
                text: format_significant(*value, self.digits),
            });
        }
        Ok(())
    }

    /// Adds `option value` at the end of the element's command, where the option is not
    /// written; if it is written, it is in a form graphical editing cannot rewrite.
    fn add_option(&mut self, option: &str, value: &str) -> Result<(), PatchError> {
        let command = self.command()?;
        let first_option = match self.element.kind {
            ElementKind::Shape
            | ElementKind::Body
            | ElementKind::Trajectory
            | ElementKind::Light => 2,
            _ => 1,
        };
        for word in command.words.iter().skip(first_option).step_by(2) {
            let Some(text) = word.literal().filter(|_| !word.expand) else {
                return refuse(format!(
                    "the options of {} are not all written out in its command",
                    self.name
                ));
            };
            if text == option {
                return refuse(format!(
                    "{option} of {} is not written as literal numbers in its command, so it cannot be changed graphically",
                    self.name
                ));
            }
        }
        let end = command
            .words
            .last()
            .map_or(self.origin.command.end, |w| w.span.end);
        self.edits.push(Replacement {
            span: Span::new(end, end),
            text: format!(" {option} {value}"),
        });
        Ok(())
    }

    /// The element's command, re-parsed from the text, checked to be the element command
    /// itself (not, say, an `eval` that built it).
    fn command(&self) -> Result<Command, PatchError> {
        let span = self.origin.command;
        let not_written = || {
            refuse(format!(
                "the command that created {} is not written out in the text",
                self.name
            ))
        };
        let Some(source) = self.text.get(span.start..span.end) else {
            return not_written();
        };
        let Ok(script) = parse_script(source, span.start) else {
            return not_written();
        };
        let [command] = script.commands.as_slice() else {
            return not_written();
        };
        let words = [self.element.kind.word(), "torque"];
        let is_element_command = command
            .words
            .first()
            .and_then(|w| w.literal())
            .is_some_and(|w| {
                w == words[0] || (self.element.kind == ElementKind::Force && w == words[1])
            });
        if !is_element_command {
            return not_written();
        }
        Ok(command.clone())
    }
}

/// The open interval a control point's time must stay in: after the point before it and
/// before the point after it, or clear of the neighbouring pieces at a piece's ends.
fn time_bounds(scene: &Scene, trajectory: usize, piece: usize, point: usize) -> (f64, f64) {
    let pieces = &scene.trajectories[trajectory].pieces;
    let points = &pieces[piece].points;
    let low = match point.checked_sub(1) {
        Some(before) => points[before].time,
        None => piece
            .checked_sub(1)
            .map_or(f64::NEG_INFINITY, |p| pieces[p].end()),
    };
    let high = match points.get(point + 1) {
        Some(after) => after.time,
        None => pieces.get(piece + 1).map_or(f64::INFINITY, |p| p.start()),
    };
    (low, high)
}
