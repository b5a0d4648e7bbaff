//! Graphical edits as text patches: exact edits on small scenes, refusals with reasons, and a
//! property test over every example: each editable parameter, patched with a new value,
//! re-evaluates to a scene that differs in exactly that element and aspect.

use asgard::scene::model::Vec3;
use asgard::scene::{
    diff, evaluate, patch, Aspects, ChangeKind, EditValue, ElementChange, ElementKind, InitVar,
    Scene, Target,
};
use proptest::prelude::*;
use std::path::Path;

fn scene(text: &str) -> Scene {
    evaluate(text).unwrap_or_else(|e| panic!("{}", e.diagnostic("test.asg")))
}

/// The text after setting `target` to `value`.
fn patched(text: &str, target: Target, value: EditValue) -> String {
    let s = scene(text);
    patch(text, &s, target, value)
        .unwrap_or_else(|e| panic!("{target:?}: {e}"))
        .apply(text)
}

fn refusal(text: &str, target: Target, value: EditValue) -> String {
    let s = scene(text);
    patch(text, &s, target, value).expect_err("refused").reason
}

fn v(x: f64, y: f64, z: f64) -> EditValue {
    EditValue::Vector(Vec3::new(x, y, z))
}

const BALL: &str = "shape_set ball desc {sphere 0.5}\n";

#[test]
fn a_drag_rewrites_only_the_numbers_that_changed() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/pendulum.asg"),
    )
    .unwrap();
    let b3 = Target::BodyInit {
        body: 2,
        var: InitVar::Pos,
    };
    let after = patched(&text, b3, v(9.5, -1.2, 0.0));
    assert_eq!(
        after,
        text.replace(
            "body b3 shape ss1 init_pos {10 -1.17 0} init_dpos {-3 0 0}",
            "body b3 shape ss1 init_pos {9.5 -1.2 0} init_dpos {-3 0 0}"
        )
    );
    // Drag precision: six significant digits, no trailing zeros.
    let after = patched(&text, b3, v(1.0 / 3.0, -1.17, 2e-9));
    assert!(after.contains("init_pos {0.333333 -1.17 2e-9}"), "{after}");
}

#[test]
fn layout_and_comments_survive() {
    let text = format!(
        "{BALL}body b1 shape ball \\\n    init_pos {{ 1   2\n 3 }} ;# where it starts\n# done\n"
    );
    let after = patched(
        &text,
        Target::BodyInit {
            body: 0,
            var: InitVar::Pos,
        },
        v(1.0, 5.0, 3.0),
    );
    assert_eq!(after, text.replace("{ 1   2\n 3 }", "{ 1   5\n 3 }"));
}

#[test]
fn absent_parameters_are_added_to_their_command() {
    let text = format!("{BALL}body b1 shape ball ;# no initial values\nforce body b1 y -9.8\n");
    let after = patched(
        &text,
        Target::BodyInit {
            body: 0,
            var: InitVar::Drot,
        },
        v(0.0, 0.0, 1.5),
    );
    assert_eq!(
        after,
        text.replace(
            "body b1 shape ball ;",
            "body b1 shape ball init_drot {0 0 1.5} ;"
        )
    );
    let after = patched(&text, Target::ForceVector(0), v(2.0, -9.8, 0.0));
    assert_eq!(
        after,
        text.replace("force body b1 y -9.8", "force body b1 y -9.8 x 2")
    );
    let after = patched(&text, Target::ForceOffset(0), v(0.0, 0.25, 0.0));
    assert_eq!(after, text.replace("y -9.8", "y -9.8 offset {0 0.25 0}"));
}

#[test]
fn trajectory_points_and_times() {
    let text = format!(
        "{BALL}body b shape ball\ntrajectory T points {{{{0 0 0 0}} {{1 1 0 0}} {{2 2 0 0}}}}\n"
    );
    let point = Target::ControlPoint {
        trajectory: 0,
        piece: 0,
        point: 1,
    };
    let after = patched(&text, point, v(1.0, 0.5, -0.25));
    assert!(
        after.contains("{{0 0 0 0} {1 1 0.5 -0.25} {2 2 0 0}}"),
        "{after}"
    );
    let time = Target::ControlTime {
        trajectory: 0,
        piece: 0,
        point: 1,
    };
    let after = patched(&text, time, EditValue::Number(1.25));
    assert!(
        after.contains("{{0 0 0 0} {1.25 1 0 0} {2 2 0 0}}"),
        "{after}"
    );
    assert_eq!(
        refusal(&text, time, EditValue::Number(2.5)),
        "the time of this point of trajectory T must stay between 0 and 2, the times around it"
    );
}

#[test]
fn camera_lights_and_links() {
    let text = format!(
        "{BALL}body b shape ball\nlink body1 b offset1 {{0 0.5 0}} x 0 y {{3}} z 0\nlightsource sun type directional dir {{0 -1 0}}\ncamera pos {{0 0 {{10 + $t}}}} scale 2\n"
    );
    assert!(patched(&text, Target::LinkPoint(0), v(0.0, 4.0, 1.0)).contains("x 0 y {4} z 1"));
    assert!(
        patched(&text, Target::LinkOffset1(0), v(0.0, 0.5, 0.1)).contains("offset1 {0 0.5 0.1}")
    );
    assert!(patched(&text, Target::LightDir(0), v(0.0, -1.0, -1.0)).contains("dir {0 -1 -1}"));
    assert!(
        patched(&text, Target::LightPos(0), v(1.0, 2.0, 3.0)).contains("dir {0 -1 0} pos {1 2 3}")
    );
    assert!(patched(&text, Target::CameraScale, EditValue::Number(2.5)).contains("scale 2.5"));
    assert_eq!(
        refusal(&text, Target::CameraPos, v(0.0, 1.0, 10.0)),
        "component z of camera is the expression 10 + $t, not a literal number, so it cannot be changed graphically"
    );
}

#[test]
fn read_only_parameters_are_refused_with_a_reason() {
    let text = format!(
        "{BALL}foreach i {{1 2}} {{ body b$i shape ball init_pos [list $i 0 0] }}\nset p {{0 1 0}}\nbody c shape ball init_pos $p\nforce body c y {{-9.8 * [c mass]}}\n"
    );
    assert_eq!(
        refusal(&text, Target::BodyInit { body: 0, var: InitVar::Pos }, v(0.0, 0.0, 0.0)),
        "body b1 was created by a command that ran more than once (in a loop, or in a proc called several times): its text stands for several elements"
    );
    assert_eq!(
        refusal(&text, Target::BodyInit { body: 2, var: InitVar::Pos }, v(0.0, 2.0, 0.0)),
        "init_pos of body c is not written as literal numbers in its command, so it cannot be changed graphically"
    );
    assert_eq!(
        refusal(&text, Target::ForceVector(0), v(1.0, 0.0, 0.0)),
        "component y of force #0 on c is the expression -9.8 * [c mass], not a literal number, so it cannot be changed graphically"
    );
    assert_eq!(
        refusal(
            &text,
            Target::BodyInit {
                body: 7,
                var: InitVar::Pos
            },
            v(0.0, 0.0, 0.0)
        ),
        "the scene has no body #7"
    );
    assert_eq!(
        refusal(&text, Target::ForceOffset(0), EditValue::Number(1.0)),
        "this parameter of force #0 on c is a vector"
    );
    assert_eq!(
        refusal(&text, Target::ForceOffset(0), v(f64::NAN, 0.0, 0.0)),
        "the new value must be finite"
    );
}

#[test]
fn an_unchanged_value_is_an_empty_edit() {
    let text = format!("{BALL}body b shape ball init_pos {{1 2 3}}\n");
    let s = scene(&text);
    let edit = patch(
        &text,
        &s,
        Target::BodyInit {
            body: 0,
            var: InitVar::Pos,
        },
        v(1.0, 2.0, 3.0),
    )
    .unwrap();
    assert!(edit.is_empty());
}

// ----- the property over all examples -----

fn examples() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut all: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "asg"))
        .map(|p| {
            (
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    all.sort();
    all
}

/// The parameters of editable elements a drag may address: every highlighted literal, and
/// the parameters that may be added because they are not written.
fn targets(s: &Scene) -> (Vec<Target>, Vec<Target>) {
    let mut highlighted: Vec<Target> = s.highlights().iter().map(|h| h.target).collect();
    highlighted.sort();
    highlighted.dedup();
    let mut others = Vec::new();
    for (i, b) in s.bodies.iter().enumerate() {
        if b.origin.editable {
            others.extend(InitVar::ALL.map(|var| Target::BodyInit { body: i, var }));
        }
    }
    for (i, f) in s.forces.iter().enumerate() {
        if f.origin.editable {
            others.extend([Target::ForceVector(i), Target::ForceOffset(i)]);
        }
    }
    for (i, l) in s.links.iter().enumerate() {
        if l.origin.editable {
            others.extend([
                Target::LinkOffset1(i),
                Target::LinkOffset2(i),
                Target::LinkPoint(i),
            ]);
        }
    }
    for (i, l) in s.lights.iter().enumerate() {
        if l.origin.editable {
            others.extend([Target::LightPos(i), Target::LightDir(i)]);
        }
    }
    if s.camera.is_some() {
        others.extend([
            Target::CameraPos,
            Target::CameraRot,
            Target::CameraCenter,
            Target::CameraScale,
        ]);
    }
    others.retain(|t| !highlighted.contains(t));
    (highlighted, others)
}

fn expected_aspect(target: Target) -> Aspects {
    match target.element().kind {
        ElementKind::Body => Aspects::INITIAL,
        ElementKind::Light | ElementKind::Camera => Aspects::APPEARANCE,
        _ => Aspects::EQUATIONS,
    }
}

fn rounded(v: f64) -> f64 {
    asgard::lang::number::format_significant(v, 6)
        .parse()
        .unwrap()
}

/// A new value for the target, moved by `delta` (and kept valid: times between their
/// neighbours, the camera scale positive).
fn moved(s: &Scene, target: Target, delta: f64) -> Option<EditValue> {
    match s.target_value(target)? {
        EditValue::Vector(v) => Some(EditValue::Vector(
            v + Vec3::new(delta, -0.5 * delta, 0.25 * delta),
        )),
        EditValue::Number(n) => match target {
            Target::ControlTime {
                trajectory,
                piece,
                point,
            } => {
                let points = &s.trajectories[trajectory].pieces[piece].points;
                let before = point.checked_sub(1).map_or(n - 1.0, |p| points[p].time);
                let after = points.get(point + 1).map_or(n + 1.0, |p| p.time);
                let room = if delta > 0.0 { after - n } else { n - before };
                Some(EditValue::Number(
                    n + delta.signum() * room * 0.25 * delta.abs().min(1.0),
                ))
            }
            _ => Some(EditValue::Number((n + delta).abs() + 0.1)),
        },
    }
}

fn check_edit(
    name: &str,
    text: &str,
    s: &Scene,
    target: Target,
    delta: f64,
    must_succeed: bool,
) -> Result<(), TestCaseError> {
    let Some(value) = moved(s, target, delta) else {
        return Ok(());
    };
    let edit = match patch(text, s, target, value) {
        Ok(edit) => edit,
        Err(e) if !must_succeed => {
            prop_assert!(!e.reason.is_empty());
            return Ok(());
        }
        Err(e) => return Err(TestCaseError::fail(format!("{name} {target:?}: {e}"))),
    };
    let new_text = edit.apply(text);
    let new = evaluate(&new_text).map_err(|e| {
        TestCaseError::fail(format!(
            "{name} {target:?}: {}\n{new_text}",
            e.diagnostic(name)
        ))
    })?;
    let d = diff(s, &new);
    let element = target.element();
    let expected = ElementChange {
        kind: element.kind,
        old: Some(element.index),
        new: Some(element.index),
        change: ChangeKind::Changed(expected_aspect(target)),
    };
    prop_assert_eq!(&d.changes, &vec![expected], "{} {:?}", name, target);
    let got = new.target_value(target);
    let want = match value {
        EditValue::Vector(v) => EditValue::Vector(v.map(rounded)),
        EditValue::Number(n) => EditValue::Number(rounded(n)),
    };
    prop_assert_eq!(got, Some(want), "{} {:?}", name, target);
    // Every byte outside the replaced spans is kept.
    let mut kept = String::new();
    let mut at = 0;
    for r in &edit.replacements {
        kept.push_str(&text[at..r.span.start]);
        at = r.span.end;
    }
    kept.push_str(&text[at..]);
    let mut rest = String::new();
    let mut at = 0;
    let mut shift: isize = 0;
    for r in &edit.replacements {
        let start = (r.span.start as isize + shift) as usize;
        rest.push_str(&new_text[at..start]);
        at = start + r.text.len();
        shift += r.text.len() as isize - r.span.len() as isize;
    }
    rest.push_str(&new_text[at..]);
    prop_assert_eq!(kept, rest);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]

    #[test]
    fn every_editable_parameter_patches_to_exactly_that_change(
        deltas in proptest::collection::vec(prop_oneof![-3.0f64..-0.01, 0.01f64..3.0], 16)
    ) {
        let mut checked = 0;
        for (name, text) in examples() {
            let s = scene(&text);
            let (highlighted, others) = targets(&s);
            for (k, target) in highlighted.iter().enumerate() {
                check_edit(&name, &text, &s, *target, deltas[k % deltas.len()], true)?;
                checked += 1;
            }
            for (k, target) in others.iter().enumerate() {
                check_edit(&name, &text, &s, *target, deltas[(k + 7) % deltas.len()], false)?;
            }
        }
        prop_assert!(checked > 20, "only {} editable literals in the examples", checked);
    }
}
