//! New elements and structural changes written into the scene text.
//!
//! A drag changes one literal and goes through `scene::patch`. What patching cannot say is
//! written here: whole element commands created from the Create menu (4.1.2-4.1.8), control
//! points added to or taken from a trajectory (4.1.4), and shape sets rewritten by the shape
//! editor (4.1.1). Each function returns the new text; the caller hands it to
//! `Session::set_text`, so the change is one undoable step of the text history like any other.
//!
//! New commands go to a sensible place rather than always to the end: after the last command
//! of the same kind, and never before a command defining something the new one names (a force
//! must follow its body). Commands written inside a loop or a procedure are not split: the new
//! command follows the whole top-level command that contains them.

use crate::geom::ConvexHull;
use crate::lang::list;
use crate::lang::number::format_significant;
use crate::lang::parse::parse_script;
use crate::lang::span::Span;
use crate::lang::value::Value;
use crate::scene::model::{Color, Geometry, Scene, ShapePart, ShapeSet, Vec3};
use crate::scene::{ElementKind, ElementRef, PatchError, DRAG_DIGITS};

/// A number as graphical editing writes it.
pub fn number(value: f64) -> String {
    format_significant(value, DRAG_DIGITS)
}

/// A vector as graphical editing writes it: `{x y z}`.
pub fn vector(v: &Vec3) -> String {
    format!("{{{} {} {}}}", number(v.x), number(v.y), number(v.z))
}

fn refuse<T>(reason: impl Into<String>) -> Result<T, PatchError> {
    Err(PatchError {
        reason: reason.into(),
    })
}

/// A name no element of `scene` has: `prefix` followed by the smallest free number from 1.
pub fn fresh_name(scene: &Scene, prefix: &str) -> String {
    let taken = |name: &str| {
        scene.shapes.iter().any(|s| s.name == name)
            || scene.bodies.iter().any(|b| b.name == name)
            || scene.trajectories.iter().any(|t| t.name == name)
            || scene.lights.iter().any(|l| l.name.as_deref() == Some(name))
    };
    (1u64..)
        .map(|n| format!("{prefix}{n}"))
        .find(|name| !taken(name))
        .expect("some number is free")
}

/// The kinds of command a new command of `kind` is best placed after, most wanted first.
fn neighbours(kind: ElementKind) -> &'static [ElementKind] {
    use ElementKind::*;
    match kind {
        Shape => &[Shape],
        Body => &[Body, Shape],
        Trajectory => &[Trajectory, Body, Shape],
        Force => &[Force, Link, Trajectory, Body],
        Link => &[Link, Force, Trajectory, Body],
        Light => &[Light, Camera],
        Camera => &[Camera, Light],
        Simulator => &[Simulator],
    }
}

/// The spans of the text's top-level commands (none when the text does not parse).
fn top_level_commands(text: &str) -> Vec<Span> {
    parse_script(text, 0)
        .map(|script| script.commands.iter().map(|c| c.span).collect())
        .unwrap_or_default()
}

/// Where the top-level command that contains `span` ends.
fn top_level_end(top: &[Span], span: Span) -> Option<usize> {
    top.iter().find(|c| c.contains(span)).map(|c| c.end)
}

/// `text` with `commands` (one or more lines, no trailing newline) inserted as new lines: after
/// the last command of a kind [`neighbours`] prefers for `kind`, and after the definitions of
/// everything in `requires`; at the end when neither places it.
pub fn insert_command(
    text: &str,
    scene: &Scene,
    kind: ElementKind,
    requires: &[ElementRef],
    commands: &str,
) -> String {
    let top = top_level_commands(text);
    let end_of = |e: ElementRef| {
        scene
            .origin(e)
            .and_then(|origin| top_level_end(&top, origin.command))
    };
    let preferred = neighbours(kind).iter().find_map(|&k| {
        scene
            .elements()
            .filter(|e| e.kind == k)
            .filter_map(end_of)
            .max()
    });
    let needed = requires.iter().filter_map(|&e| end_of(e)).max();
    let at = match preferred.max(needed) {
        Some(end) => text[end..].find('\n').map_or(text.len(), |i| end + i + 1),
        None => text.len(),
    };
    let mut out = String::with_capacity(text.len() + commands.len() + 2);
    out.push_str(&text[..at]);
    if at > 0 && !text[..at].ends_with('\n') {
        out.push('\n');
    }
    out.push_str(commands);
    out.push('\n');
    out.push_str(&text[at..]);
    out
}

/// The text with `span` replaced by `with`.
fn replaced(text: &str, span: Span, with: &str) -> String {
    let mut out = String::with_capacity(text.len() + with.len());
    out.push_str(&text[..span.start]);
    out.push_str(with);
    out.push_str(&text[span.end..]);
    out
}

/// One control point of one trajectory piece, by indices into a [`Scene`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PointRef {
    pub trajectory: usize,
    pub piece: usize,
    pub point: usize,
}

/// A literal's span widened to its braces, when it was written in braces (the scene keeps the
/// span of a braced word's content).
fn braced(text: &str, span: Span) -> Span {
    let opened = span.start > 0 && text.as_bytes()[span.start - 1] == b'{';
    let closed = text.as_bytes().get(span.end) == Some(&b'}');
    if opened && closed {
        Span::new(span.start - 1, span.end + 1)
    } else {
        span
    }
}

/// Checks that the trajectory's text may be rewritten and returns its point's literal span,
/// braces included.
fn point_span(text: &str, scene: &Scene, at: PointRef) -> Result<Span, PatchError> {
    let Some(trajectory) = scene.trajectories.get(at.trajectory) else {
        return refuse("the scene has no such trajectory");
    };
    let Some(control) = trajectory
        .pieces
        .get(at.piece)
        .and_then(|p| p.points.get(at.point))
    else {
        return refuse(format!(
            "trajectory {} has no such control point",
            trajectory.name
        ));
    };
    if !trajectory.origin.editable {
        return refuse(format!(
            "trajectory {} was created by a command that ran more than once: its text stands for several trajectories",
            trajectory.name
        ));
    }
    control.span.map_or_else(
        || {
            refuse(format!(
                "the points of trajectory {} are not written as a literal list",
                trajectory.name
            ))
        },
        |span| Ok(braced(text, span)),
    )
}

/// The text with a new control point next to `at` (after it, or before it), at world position
/// `pos`, and the index the new point has in its piece. Its time is midway to the neighbouring
/// point (or piece), or one second beyond the end of the trajectory.
pub fn insert_control_point(
    text: &str,
    scene: &Scene,
    at: PointRef,
    after: bool,
    pos: Vec3,
) -> Result<(String, usize), PatchError> {
    let span = point_span(text, scene, at)?;
    let trajectory = &scene.trajectories[at.trajectory];
    let pieces = &trajectory.pieces;
    let points = &pieces[at.piece].points;
    let time = points[at.point].time;
    let neighbour = if after {
        points
            .get(at.point + 1)
            .map(|p| p.time)
            .or_else(|| pieces.get(at.piece + 1).map(|p| p.start()))
    } else {
        at.point
            .checked_sub(1)
            .map(|k| points[k].time)
            .or_else(|| at.piece.checked_sub(1).map(|p| pieces[p].end()))
    };
    let new_time = match neighbour {
        Some(other) => (time + other) / 2.0,
        None if after => time + 1.0,
        None => time - 1.0,
    };
    let written = number(new_time);
    let rounded: f64 = written.parse().unwrap_or(new_time);
    let between = |a: f64, b: f64| a.min(b) < rounded && rounded < a.max(b);
    if neighbour.is_some_and(|other| !between(time, other)) {
        return refuse(format!(
            "trajectory {}: no room for another point between times {time} and {}",
            trajectory.name,
            neighbour.unwrap_or(time)
        ));
    }
    let literal = format!(
        "{{{written} {} {} {}}}",
        number(pos.x),
        number(pos.y),
        number(pos.z)
    );
    let (insert_at, with) = if after {
        (span.end, format!(" {literal}"))
    } else {
        (span.start, format!("{literal} "))
    };
    let new_text = replaced(text, Span::new(insert_at, insert_at), &with);
    Ok((new_text, if after { at.point + 1 } else { at.point }))
}

/// The text without the control point `at`. A piece left with fewer than two points (the least
/// a piece has) goes with it, and a trajectory left with no pieces is deleted (4.1.4).
pub fn delete_control_point(text: &str, scene: &Scene, at: PointRef) -> Result<String, PatchError> {
    let span = point_span(text, scene, at)?;
    let trajectory = &scene.trajectories[at.trajectory];
    let piece = &trajectory.pieces[at.piece];
    if piece.points.len() > 2 {
        let literal = |k: usize| piece.points[k].span.map(|s| braced(text, s));
        let cut = match at.point.checked_sub(1).and_then(literal) {
            Some(before) => Span::new(before.end, span.end),
            None => match literal(1) {
                Some(after) => Span::new(span.start, after.start),
                None => span,
            },
        };
        return Ok(replaced(text, cut, ""));
    }
    let command = trajectory.origin.command;
    if trajectory.pieces.len() > 1 {
        let Some(list) = piece.span else {
            return refuse(format!(
                "the points of trajectory {} are not written as a literal list",
                trajectory.name
            ));
        };
        let list = braced(text, list);
        return match option_before(text, command, list) {
            Some(option) => Ok(replaced(text, Span::new(option, list.end), "")),
            None => refuse(format!(
                "the command of trajectory {} is not written out in the text",
                trajectory.name
            )),
        };
    }
    Ok(replaced(text, whole_lines(text, command), ""))
}

/// Where the option word before `value` (a word of the command at `command`) starts, counting
/// the blank before it, so that cutting from there to the value's end removes both words.
fn option_before(text: &str, command: Span, value: Span) -> Option<usize> {
    let script = parse_script(text.get(command.start..command.end)?, command.start).ok()?;
    let words = &script.commands.first()?.words;
    let index = words.iter().position(|w| w.span == value)?;
    let before = words.get(index.checked_sub(2)?)?;
    Some(before.span.end)
}

/// `span` widened to whole lines when nothing else shares them, so that deleting a command
/// leaves no blank line behind.
fn whole_lines(text: &str, span: Span) -> Span {
    let line_start = text[..span.start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[span.end..]
        .find('\n')
        .map_or(text.len(), |i| span.end + i + 1);
    let alone = text[line_start..span.start].trim().is_empty()
        && text[span.end..line_end].trim().is_empty();
    if alone {
        Span::new(line_start, line_end)
    } else {
        span
    }
}

/// A `shape_set` command for `parts`, one part per line: spheres as `sphere R`, polyhedra as
/// the faces of their convex hull (points inside the hull are dropped, 4.1.1). A part's
/// colour is written with the user's own word when `kept` has the colour it had in their
/// text (by part) and it is unchanged: `orange` stays `orange`.
pub fn shape_command(
    name: &str,
    parts: &[ShapePart],
    kept: &[Option<(Color, String)>],
) -> Result<String, PatchError> {
    let mut lines = Vec::with_capacity(parts.len());
    for (i, part) in parts.iter().enumerate() {
        let mut line = format!("sub pos {}", vector(&part.pos));
        match &part.geometry {
            Geometry::Sphere { radius } => line.push_str(&format!(" sphere {}", number(*radius))),
            Geometry::Polyhedron { vertices } => {
                let hull = ConvexHull::new(vertices).map_err(|e| PatchError {
                    reason: format!("part {} of shape {name}: {e}", i + 1),
                })?;
                for face in hull.faces() {
                    let corners: Vec<String> = face
                        .vertices
                        .iter()
                        .map(|&v| vector(&hull.vertices()[v]))
                        .collect();
                    line.push_str(&format!(" face {{{}}}", corners.join(" ")));
                }
            }
        }
        if let Some(colour) = part.color {
            let word = match kept.get(i) {
                Some(Some((was, word))) if *was == colour => word.clone(),
                _ => colour_literal(colour),
            };
            line.push_str(&format!(" color {word}"));
        }
        lines.push(line);
    }
    if lines.is_empty() {
        return refuse(format!("shape {name} has no parts"));
    }
    Ok(format!(
        "shape_set {name} desc {{\n    {}\n}}",
        lines.join("\n    ")
    ))
}

fn colour_literal(c: Color) -> String {
    let component = |x: f32| format_significant(f64::from(x), 3);
    format!(
        "{{{} {} {}}}",
        component(c.r),
        component(c.g),
        component(c.b)
    )
}

/// The text with shape set `name` defined as `parts`: its command rewritten when the scene has
/// it, else a new command after the other shape sets.
pub fn write_shape(
    text: &str,
    scene: &Scene,
    name: &str,
    parts: &[ShapePart],
) -> Result<String, PatchError> {
    let shape = scene.shapes.iter().find(|s| s.name == name);
    let kept = shape.map_or_else(Vec::new, |shape| colour_words(text, shape));
    let command = shape_command(name, parts, &kept)?;
    match shape {
        Some(shape) if !shape.origin.editable => refuse(format!(
            "shape {name} was created by a command that ran more than once: its text stands for several shapes"
        )),
        Some(shape) => Ok(replaced(text, shape.origin.command, &command)),
        None => Ok(insert_command(
            text,
            scene,
            ElementKind::Shape,
            &[],
            &command,
        )),
    }
}

/// The colour of each part of `shape` with the word it was written with in `text` (braces
/// included), when it was given a literal colour: its own `color`, or its first face's, as
/// the scene reads them.
fn colour_words(text: &str, shape: &ShapeSet) -> Vec<Option<(Color, String)>> {
    let mut words = vec![None; shape.parts.len()];
    let Some(desc) = shape.desc_span else {
        return words;
    };
    let Ok(tokens) = list::parse(&text[desc.start..desc.end], Some(desc)) else {
        return words;
    };
    let written = |value: &Value| {
        let span = braced(text, value.origin()?);
        Some(text[span.start..span.end].to_owned())
    };
    let mut part = 0;
    let mut i = 0;
    while i < tokens.len() {
        let word = tokens[i].as_str();
        if word == "sub" {
            part += usize::from(i > 0);
            i += 1;
            continue;
        }
        let colour = match (word, tokens.get(i + 1)) {
            ("color", Some(value)) => written(value),
            ("face", Some(face)) => list::parse(face.as_str(), face.origin())
                .ok()
                .filter(|items| items.len() > 1 && items[0].as_str() == "color")
                .and_then(|items| written(&items[1])),
            _ => None,
        };
        let given = shape.parts.get(part).and_then(|p| p.color);
        if let (Some(word), Some(given), Some(slot)) = (colour, given, words.get_mut(part)) {
            slot.get_or_insert((given, word));
        }
        i += 2;
    }
    words
}

/// The text with the `simulator` option `option` (`finish`, `step`, `tolerance`, `live_dt`,
/// `live_rate`) set to `value`: only that option's value word is rewritten when the command
/// gives it, else the option is added at the end of the command, else a `simulator` command
/// is added. The caller checks the value; evaluating the text checks it again.
pub fn write_simulator(
    text: &str,
    scene: &Scene,
    option: &str,
    value: f64,
) -> Result<String, PatchError> {
    let value = number(value);
    let Some(origin) = &scene.simulator_origin else {
        return Ok(insert_command(
            text,
            scene,
            ElementKind::Simulator,
            &[],
            &format!("simulator {option} {value}"),
        ));
    };
    if !origin.editable {
        return refuse(
            "the simulator settings were given by a command that ran more than once: its \
             text cannot be rewritten",
        );
    }
    let command = parse_script(text, 0).ok().and_then(|script| {
        script
            .commands
            .into_iter()
            .find(|c| c.span == origin.command)
    });
    let Some(command) = command else {
        return refuse("the simulator command is not a command of the text's top level");
    };
    let words = &command.words;
    let given = words
        .iter()
        .skip(1)
        .step_by(2)
        .position(|w| w.literal().as_deref() == Some(option))
        .and_then(|k| words.get(2 + 2 * k));
    Ok(match given {
        Some(word) => replaced(text, word.span, &value),
        None => {
            let end = words.last().map_or(command.span.end, |w| w.span.end);
            replaced(text, Span::new(end, end), &format!(" {option} {value}"))
        }
    })
}

/// A view as the `camera` command states it (4.1.7): where the eye is, its rotation vector,
/// the centre of rotation and scaling, and the zoom.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CameraView {
    pub pos: Vec3,
    pub rot: Vec3,
    pub center: Vec3,
    pub scale: f64,
}

/// The text with the scene's camera set to `view` ("Keep this view"): its `camera` command
/// rewritten when the scene has one (trajectory-driven values become the literals seen now),
/// else a new command after the light sources.
pub fn write_camera(text: &str, scene: &Scene, view: &CameraView) -> Result<String, PatchError> {
    let command = format!(
        "camera pos {} rot {} center {} scale {}",
        vector(&view.pos),
        vector(&view.rot),
        vector(&view.center),
        number(view.scale)
    );
    match &scene.camera {
        Some(camera) if !camera.origin.editable => refuse(
            "the camera was created by a command that ran more than once: its text cannot be \
             rewritten",
        ),
        Some(camera) => Ok(replaced(text, camera.origin.command, &command)),
        None => Ok(insert_command(
            text,
            scene,
            ElementKind::Camera,
            &[],
            &command,
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::evaluate;

    #[test]
    fn a_kept_view_becomes_the_camera_command_or_replaces_it() {
        let view = CameraView {
            pos: Vec3::new(1.0, 2.0, 30.0),
            rot: Vec3::new(0.0, 0.25, 0.0),
            center: Vec3::new(0.0, 0.5, 0.0),
            scale: 1.5,
        };
        let s = scene(SCENE);
        let text = write_camera(SCENE, &s, &view).unwrap();
        assert!(
            text.contains("camera pos {1 2 30} rot {0 0.25 0} center {0 0.5 0} scale 1.5\n"),
            "{text}"
        );
        let kept = scene(&text);
        assert_eq!(kept.camera.as_ref().unwrap().scale.value, 1.5);
        let moved = CameraView { scale: 2.0, ..view };
        let again = write_camera(&text, &kept, &moved).unwrap();
        assert_eq!(again.matches("camera ").count(), 1, "{again}");
        assert!(again.contains("center {0 0.5 0} scale 2\n"), "{again}");
    }

    const SCENE: &str = "simulator finish 2
shape_set ball desc {sphere 0.5}
# the bodies
body a shape ball init_pos {0 0 0}
force body a gravity {0 -9.8 0}
trajectory path points {{0 0 0 0} {1 1 0 0} {2 2 1 0}}
body b shape ball init_pos {3 0 0}
";

    fn scene(text: &str) -> Scene {
        evaluate(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
    }

    #[test]
    fn fresh_names_skip_taken_ones() {
        let s = scene(SCENE);
        assert_eq!(fresh_name(&s, "c"), "c1");
        let s = scene(&format!("{SCENE}body b1 shape ball\nbody b2 shape ball\n"));
        assert_eq!(fresh_name(&s, "b"), "b3");
    }

    #[test]
    fn a_new_body_follows_the_last_body() {
        let s = scene(SCENE);
        let text = insert_command(SCENE, &s, ElementKind::Body, &[], "body c shape ball");
        assert!(text.ends_with("body b shape ball init_pos {3 0 0}\nbody c shape ball\n"));
        scene(&text);
    }

    #[test]
    fn a_new_force_follows_the_body_it_acts_on() {
        let s = scene(SCENE);
        let b = ElementRef::new(ElementKind::Body, 1);
        let text = insert_command(
            SCENE,
            &s,
            ElementKind::Force,
            &[b],
            "force body b x 0 y -1 z 0",
        );
        // The last force comes before body b; the new one must come after b.
        assert!(text.ends_with("init_pos {3 0 0}\nforce body b x 0 y -1 z 0\n"));
        let evaluated = scene(&text);
        assert_eq!(evaluated.forces.len(), 2);
        // Without a body to follow, it goes after the last force.
        let a = ElementRef::new(ElementKind::Body, 0);
        let text = insert_command(
            SCENE,
            &s,
            ElementKind::Force,
            &[a],
            "force body a x 1 y 0 z 0",
        );
        assert!(text.contains("gravity {0 -9.8 0}\nforce body a x 1 y 0 z 0\ntrajectory"));
    }

    #[test]
    fn commands_in_a_loop_are_not_split() {
        let text =
            "shape_set ball desc {sphere 1}\nforeach i {1 2} {\n    body b$i shape ball\n}\n# end";
        let s = scene(text);
        let out = insert_command(text, &s, ElementKind::Body, &[], "body c shape ball");
        assert_eq!(
            out,
            "shape_set ball desc {sphere 1}\nforeach i {1 2} {\n    body b$i shape ball\n}\nbody c shape ball\n# end"
        );
        // An empty text, and a text without a final newline, get a line of their own.
        let empty = scene("");
        assert_eq!(
            insert_command("", &empty, ElementKind::Light, &[], "lightsource l1"),
            "lightsource l1\n"
        );
        let bare = "simulator finish 1";
        assert_eq!(
            insert_command(
                bare,
                &scene(bare),
                ElementKind::Light,
                &[],
                "lightsource l1"
            ),
            "simulator finish 1\nlightsource l1\n"
        );
    }

    fn point(piece: usize, point: usize) -> PointRef {
        PointRef {
            trajectory: 0,
            piece,
            point,
        }
    }

    #[test]
    fn control_points_are_inserted_midway_or_beyond_the_end() {
        let s = scene(SCENE);
        let (text, index) =
            insert_control_point(SCENE, &s, point(0, 0), true, Vec3::new(5.0, 6.0, 7.0)).unwrap();
        assert_eq!(index, 1);
        assert!(text.contains("points {{0 0 0 0} {0.5 5 6 7} {1 1 0 0} {2 2 1 0}}"));
        let (text, index) =
            insert_control_point(SCENE, &s, point(0, 2), true, Vec3::new(1.0, 1.0, 1.0)).unwrap();
        assert_eq!(index, 3);
        assert!(text.contains("{2 2 1 0} {3 1 1 1}}"));
        let (text, index) =
            insert_control_point(SCENE, &s, point(0, 0), false, Vec3::zeros()).unwrap();
        assert_eq!(index, 0);
        assert!(text.contains("points {{-1 0 0 0} {0 0 0 0}"));
        let t = scene(&text).trajectories[0].pieces[0].points.len();
        assert_eq!(t, 4);
    }

    #[test]
    fn deleting_points_removes_pieces_and_then_the_trajectory() {
        let s = scene(SCENE);
        let text = delete_control_point(SCENE, &s, point(0, 1)).unwrap();
        assert!(text.contains("points {{0 0 0 0} {2 2 1 0}}"), "{text}");
        let text = delete_control_point(SCENE, &s, point(0, 0)).unwrap();
        assert!(text.contains("points {{1 1 0 0} {2 2 1 0}}"), "{text}");
        // Down to two points, the next deletion takes the whole trajectory, line and all.
        let two = scene(&text);
        let gone = delete_control_point(&text, &two, point(0, 1)).unwrap();
        assert!(!gone.contains("trajectory"), "{gone}");
        assert!(gone.contains("gravity {0 -9.8 0}\nbody b"), "{gone}");
        // With two pieces, only the piece goes.
        let pieces =
            "trajectory p points {{0 0 0 0} {1 1 0 0}} points {{2 0 0 0} {3 0 0 0}} ;# two\n";
        let s = scene(pieces);
        let out = delete_control_point(pieces, &s, point(1, 0)).unwrap();
        assert_eq!(out, "trajectory p points {{0 0 0 0} {1 1 0 0}} ;# two\n");
        assert_eq!(scene(&out).trajectories[0].pieces.len(), 1);
    }

    #[test]
    fn points_of_trajectories_made_in_a_loop_are_refused() {
        let text = "foreach n {p q} {trajectory $n points {{0 0 0 0} {1 0 0 0}}}";
        let s = scene(text);
        let error = delete_control_point(text, &s, point(0, 0)).unwrap_err();
        assert!(error.reason.contains("more than once"), "{}", error.reason);
    }

    #[test]
    fn simulator_settings_rewrite_their_value_or_are_added() {
        let text =
            "# settings\nsimulator finish {2.5} step 0.02 ;# fine\nshape_set s desc {sphere 1}\n";
        let s = scene(text);
        let out = write_simulator(text, &s, "finish", 4.0).unwrap();
        assert_eq!(out, text.replace("{2.5}", "4"));
        let out = write_simulator(text, &s, "live_rate", 0.5).unwrap();
        assert!(out.contains("step 0.02 live_rate 0.5 ;# fine"), "{out}");
        assert_eq!(scene(&out).simulator.live_rate, 0.5);
        let bare = "shape_set s desc {sphere 1}\n";
        let out = write_simulator(bare, &scene(bare), "tolerance", 1e-6).unwrap();
        assert_eq!(scene(&out).simulator.tolerance, 1e-6);
    }

    #[test]
    fn a_rewritten_shape_keeps_the_colour_words_it_was_written_with() {
        let text = "shape_set toy desc {sub pos {0 0 0} sphere 0.2 color orange \
                    sub pos {1 0 0} face {color {0 0.5 1} {0 0 0} {1 0 0} {0 1 0} {0 0 1}} \
                    sub pos {2 0 0} sphere 0.1 color #ff0000}\n";
        let s = scene(text);
        let mut parts = s.shape("toy").unwrap().parts.clone();
        // The first part grows; the third changes its colour; the second is left alone.
        parts[0].geometry = Geometry::Sphere { radius: 0.3 };
        parts[2].color = Some(Color {
            r: 0.0,
            g: 1.0,
            b: 0.0,
        });
        let out = write_shape(text, &s, "toy", &parts).unwrap();
        assert!(out.contains("sphere 0.3 color orange"), "{out}");
        assert!(out.contains("color {0 0.5 1}"), "{out}");
        assert!(out.contains("sphere 0.1 color {0 1 0}"), "{out}");
        assert!(!out.contains("#ff0000"), "{out}");
    }

    #[test]
    fn shapes_are_written_as_spheres_and_hull_faces() {
        let parts = vec![
            ShapePart {
                pos: Vec3::new(0.0, 1.0, 0.0),
                geometry: Geometry::Sphere { radius: 0.5 },
                color: None,
            },
            ShapePart {
                pos: Vec3::zeros(),
                geometry: Geometry::Polyhedron {
                    vertices: vec![
                        Vec3::new(0.0, 0.0, 0.0),
                        Vec3::new(1.0, 0.0, 0.0),
                        Vec3::new(0.0, 1.0, 0.0),
                        Vec3::new(0.0, 0.0, 1.0),
                        // Inside the tetrahedron: dropped.
                        Vec3::new(0.1, 0.1, 0.1),
                    ],
                },
                color: Some(Color {
                    r: 1.0,
                    g: 0.5,
                    b: 0.0,
                }),
            },
        ];
        let text = write_shape(SCENE, &scene(SCENE), "ball", &parts).unwrap();
        let s = scene(&text);
        let ball = s.shape("ball").unwrap();
        assert_eq!(ball.parts.len(), 2);
        assert_eq!(ball.parts[0].geometry, Geometry::Sphere { radius: 0.5 });
        let Geometry::Polyhedron { vertices } = &ball.parts[1].geometry else {
            panic!("not a polyhedron");
        };
        assert!(!vertices.contains(&Vec3::new(0.1, 0.1, 0.1)));
        assert!(vertices.contains(&Vec3::new(0.0, 0.0, 1.0)));
        assert_eq!(ball.parts[1].color.map(|c| c.g), Some(0.5));
        // A new name adds a command after the other shape sets.
        let text = write_shape(SCENE, &scene(SCENE), "pebble", &parts[..1]).unwrap();
        assert!(text.contains("desc {sphere 0.5}\nshape_set pebble desc {"));
        assert_eq!(scene(&text).shapes.len(), 2);
        // A flat polyhedron cannot be written.
        let flat = ShapePart {
            pos: Vec3::zeros(),
            geometry: Geometry::Polyhedron {
                vertices: vec![Vec3::zeros(), Vec3::x(), Vec3::y(), Vec3::x() + Vec3::y()],
            },
            color: None,
        };
        assert!(shape_command("flat", &[flat], &[]).is_err());
    }
}
