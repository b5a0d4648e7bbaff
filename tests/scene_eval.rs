//! What the element commands make of a scene text: values, defaults, captured expressions,
//! spans and editability.

use asgard::lang::span::Span;
use asgard::scene::model::{
    CameraValue, ConstrainedVar, ForceKind, ForceValue, Geometry, LightKind, LinkTarget, Vec3,
};
use asgard::scene::{evaluate, ElementKind, ElementRef, Scene, Target};

fn scene(text: &str) -> Scene {
    evaluate(text).unwrap_or_else(|e| panic!("{}\n{}", e.diagnostic("test.asg"), e.trail))
}

/// The span of the `nth` (0-based) occurrence of `needle` in `text`.
fn at(text: &str, needle: &str, nth: usize) -> Span {
    let start = text
        .match_indices(needle)
        .nth(nth)
        .unwrap_or_else(|| panic!("{needle:?} #{nth} not in text"))
        .0;
    Span::new(start, start + needle.len())
}

const BALL: &str = "shape_set ball desc {sphere 0.5}\n";

#[test]
fn body_values_defaults_and_literal_spans() {
    let text = format!(
        "{BALL}set v 3\nbody b1 shape ball init_pos {{1 2 3}} init_dpos [list $v 0 0] mass 2 color red\n"
    );
    let s = scene(&text);
    let b = s.body("b1").unwrap();
    assert_eq!(b.init_pos.value, Vec3::new(1.0, 2.0, 3.0));
    assert_eq!(b.init_pos.span, Some(at(&text, "1 2 3", 0)));
    // Substituted: the value is known but it is not a literal of the command.
    assert_eq!(b.init_dpos.value, Vec3::new(3.0, 0.0, 0.0));
    assert_eq!(b.init_dpos.span, None);
    assert_eq!(b.init_rot.value, Vec3::zeros());
    assert_eq!(b.restitution.value, 1.0);
    assert_eq!(b.friction.value, 0.5);
    assert!(!b.fixed);
    assert_eq!(b.mass.as_ref().unwrap().value, 2.0);
    assert_eq!(b.color.as_ref().unwrap().value.to_hex(), "#ff0000");
    assert!(b.origin.editable);
    assert_eq!(
        b.origin.command,
        at(
            &text,
            "body b1 shape ball init_pos {1 2 3} init_dpos [list $v 0 0] mass 2 color red",
            0
        )
    );
}

#[test]
fn body_commands_answer_initial_values_and_mass() {
    let text = format!(
        "{BALL}body b1 shape ball init_pos {{1 2 3}} init_drot {{0 0 4}}\nputs \"[b1 y] [b1 drz] [format %.4f [b1 mass]]\"\n"
    );
    let s = scene(&text);
    // Unit density: 4/3 π 0.5³.
    assert_eq!(s.log, vec!["2.0 4.0 0.5236".to_string()]);
}

#[test]
fn shapes_spheres_boxes_faces_and_colours() {
    let text = "shape_set s desc {sphere 1 color blue sub pos {2 0 0} box {1 2 3} sub face {color #00ff00 {0 0 0} {1 0 0} {0 1 0}} face {{0 0 1} {0 0 0} {1 0 0}}}\nbody b shape s\n";
    let s = scene(text);
    let parts = &s.shape("s").unwrap().parts;
    assert_eq!(parts.len(), 3);
    assert_eq!(parts[0].geometry, Geometry::Sphere { radius: 1.0 });
    assert_eq!(parts[0].color.unwrap().to_hex(), "#0000ff");
    assert_eq!(parts[1].pos, Vec3::new(2.0, 0.0, 0.0));
    match &parts[1].geometry {
        Geometry::Polyhedron { vertices } => {
            assert_eq!(vertices.len(), 8);
            assert!(vertices
                .iter()
                .all(|v| v.x.abs() == 0.5 && v.y.abs() == 1.0 && v.z.abs() == 1.5));
        }
        other => panic!("{other:?}"),
    }
    // A tetrahedron from two faces; the face colour colours the part.
    match &parts[2].geometry {
        Geometry::Polyhedron { vertices } => assert_eq!(vertices.len(), 4),
        other => panic!("{other:?}"),
    }
    assert_eq!(parts[2].color.unwrap().to_hex(), "#00ff00");
    assert_eq!(
        s.shape("s").unwrap().desc_span,
        Some(Span::new(18, text.find("}}}\n").unwrap() + 2))
    );
}

#[test]
fn expressions_capture_loop_variables_and_keep_references_symbolic() {
    let text = format!(
        "{BALL}set g -9.8\nforeach i {{1 2}} {{\n    body b$i shape ball init_pos [list $i 0 0]\n    force body b$i x {{$i * sin($t)}} y {{$g * [b$i mass]}}\n}}\n"
    );
    let s = scene(&text);
    assert_eq!(s.forces.len(), 2);
    let shown: Vec<String> = s
        .forces
        .iter()
        .map(|f| match &f.value {
            ForceValue::Components(v) => {
                format!("{} | {} | {}", v.x.display(), v.y.display(), v.z.display())
            }
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        shown,
        [
            "1 * sin($t) | -9.8 * [b1 mass] | 0",
            "2 * sin($t) | -9.8 * [b2 mass] | 0"
        ]
    );
    let ForceValue::Components(v) = &s.forces[1].value else {
        unreachable!()
    };
    assert_eq!(v.y.source, "$g * [b$i mass]");
    let refs = v.y.references();
    assert_eq!(
        (refs[0].name.as_str(), refs[0].attr.as_str()),
        ("b2", "mass")
    );
    assert!(v.x.uses_time());
    assert_eq!(v.z.constant, Some(0.0));
    // One command made both: neither is editable.
    assert!(s.forces.iter().all(|f| !f.origin.editable));
    assert!(s.bodies.iter().all(|b| !b.origin.editable));
}

#[test]
fn other_commands_in_expressions_run_at_once() {
    let text = format!(
        "{BALL}proc half {{x}} {{ return [expr {{$x / 2.0}}] }}\nbody b1 shape ball\nforce body b1 y {{[half 3] + [b1 dy] + [expr {{2 * 2}}]}}\n"
    );
    let s = scene(&text);
    let ForceValue::Components(v) = &s.forces[0].value else {
        unreachable!()
    };
    assert_eq!(v.y.display(), "1.5 + [b1 dy] + 4");
    // The reference's words keep their place in the text.
    let r = &v.y.references()[0];
    assert_eq!(r.span, at(&text, "[b1 dy]", 0));
}

#[test]
fn bodies_may_be_referred_to_before_they_are_defined() {
    let text = format!(
        "{BALL}body a shape ball\nforce body a x {{[b x] - [a x]}}\nlink body1 a body2 b\nbody b shape ball init_pos {{1 0 0}}\n"
    );
    let s = scene(&text);
    assert_eq!(s.forces.len(), 1);
    assert!(matches!(&s.links[0].target, LinkTarget::Body { body2, .. } if body2 == "b"));
}

#[test]
fn constants_and_literal_spans_of_force_components() {
    let text = format!("{BALL}body b1 shape ball\nforce body b1 x 1.5 y {{-2}} offset {{0 0.5 0}}\ntorque body b1 vector {{0 0 {{2 * $t}}}}\nforce torque 1 body b1 z 3\n");
    let s = scene(&text);
    let ForceValue::Components(v) = &s.forces[0].value else {
        unreachable!()
    };
    assert_eq!(
        (v.x.constant, v.y.constant, v.z.constant),
        (Some(1.5), Some(-2.0), Some(0.0))
    );
    assert_eq!(v.x.span, Some(at(&text, "1.5", 0)));
    assert_eq!(v.y.span, Some(at(&text, "-2", 0)));
    assert_eq!(v.z.span, None);
    assert_eq!(s.forces[0].offset.value, Vec3::new(0.0, 0.5, 0.0));
    assert_eq!(s.forces[1].kind, ForceKind::Torque);
    let ForceValue::Components(v) = &s.forces[1].value else {
        unreachable!()
    };
    assert_eq!(v.z.display(), "2 * $t");
    assert_eq!(v.z.constant, None);
    assert_eq!(s.forces[2].kind, ForceKind::Torque);
}

#[test]
fn gravity_links_and_trajectories() {
    let text = format!(
        "{BALL}body b1 shape ball\nforce body b1 gravity {{0 -9.8 0}}\nlink body1 b1 offset1 {{0 0.5 0}} point {{0 5 0}} tightness 200\nlink body1 b1 trajectory T\ntrajectory T points {{{{0 0 0 0}} {{1 1 0 0}}}} points {{{{2 1 1 0}} {{3 0 1 0}}}} body b1 var pos\n"
    );
    let s = scene(&text);
    assert!(
        matches!(&s.forces[0].value, ForceValue::Gravity(g) if g.value == Vec3::new(0.0, -9.8, 0.0))
    );
    let LinkTarget::Point(p) = &s.links[0].target else {
        panic!()
    };
    assert_eq!(p.constant(), Some(Vec3::new(0.0, 5.0, 0.0)));
    assert_eq!(s.links[0].tightness.value, 200.0);
    assert_eq!(s.links[1].tightness.value, 1000.0);
    let t = s.trajectory("T").unwrap();
    assert_eq!(t.pieces.len(), 2);
    assert_eq!(t.pieces[1].points[0].span, Some(at(&text, "2 1 1 0", 0)));
    assert_eq!(t.attachments[0].variable, ConstrainedVar::Position);
    assert_eq!(t.position(0.5), Vec3::new(0.5, 0.0, 0.0));
}

#[test]
fn trajectory_pieces_are_sorted_and_answer_as_commands() {
    let text = "trajectory T points {{5 0 0 0} {6 1 0 0}} points {{0 0 0 0} {1 2 0 0}}\nputs [T x 0.5]\nputs [T dx 5.5]\nshape_set s desc {sphere 1}\nbody b shape s\n";
    let s = scene(text);
    let t = s.trajectory("T").unwrap();
    assert_eq!(t.pieces[0].start(), 0.0);
    assert_eq!(s.log, ["1.0", "1.0"]);
}

#[test]
fn lights_camera_and_simulator() {
    let text = format!(
        "{BALL}body b shape ball\ntrajectory path points {{{{0 0 5 5}} {{10 5 5 5}}}}\nlightsource sun type directional dir {{0 -1 0}} color {{1 0.9 0.8}} intensity 0.7\nlightsource lamp pos {{1 2 3}} trajectory path\ncamera pos {{0 {{2 + sin($t)}} 30}} rot path scale 2\nsimulator start 1 finish 4 step 0.05 tolerance 1e-6 live_dt 0.02 collisions off\n"
    );
    let s = scene(&text);
    assert_eq!(s.lights[0].kind, LightKind::Directional);
    assert_eq!(s.lights[0].dir.value, Vec3::new(0.0, -1.0, 0.0));
    assert_eq!(s.lights[0].intensity, 0.7);
    assert_eq!(s.lights[1].kind, LightKind::Point);
    assert_eq!(s.lights[1].trajectory.as_deref(), Some("path"));
    let camera = s.camera.as_ref().unwrap();
    assert!(matches!(&camera.pos, CameraValue::Expressions(e) if e.y.display() == "2 + sin($t)"));
    assert!(matches!(&camera.rot, CameraValue::Trajectory(t) if t == "path"));
    assert!(
        matches!(&camera.center, CameraValue::Constant(c) if c.value == Vec3::zeros() && c.span.is_none())
    );
    assert_eq!(camera.scale.value, 2.0);
    let sim = &s.simulator;
    assert_eq!(
        (
            sim.start,
            sim.finish,
            sim.step,
            sim.tolerance,
            sim.live_dt,
            sim.collisions
        ),
        (1.0, 4.0, 0.05, 1e-6, 0.02, false)
    );
}

#[test]
fn a_proc_called_twice_makes_read_only_elements() {
    let text = format!(
        "{BALL}proc ball {{name x}} {{ body $name shape ball init_pos [list $x 0 0] }}\nball a 1\nball b 2\nbody c shape ball init_pos {{0 1 0}}\n"
    );
    let s = scene(&text);
    assert!(!s.body("a").unwrap().origin.editable);
    assert!(!s.body("b").unwrap().origin.editable);
    assert!(s.body("c").unwrap().origin.editable);
    // The one editable literal, with the element it belongs to.
    let highlights = s.highlights();
    assert_eq!(highlights.len(), 1);
    assert_eq!(highlights[0].span, at(&text, "0 1 0", 0));
    assert_eq!(
        highlights[0].target,
        Target::BodyInit {
            body: 2,
            var: asgard::scene::InitVar::Pos
        }
    );
    assert_eq!(
        s.element_at(at(&text, "init_pos {0 1 0}", 0).start),
        Some(ElementRef::new(ElementKind::Body, 2))
    );
}

#[test]
fn unused_shapes_are_warned_about() {
    let text = "shape_set a desc {sphere 1}\nshape_set b desc {sphere 2}\nbody x shape a\n";
    let s = scene(text);
    assert_eq!(s.warnings.len(), 1);
    assert_eq!(s.warnings[0].message, "shape \"b\" is not used by any body");
    assert_eq!(s.warnings[0].span, at(text, "b", 0));
    assert_eq!(
        s.warnings[0].diagnostic("t.asg"),
        "t.asg:2:11: warning: shape \"b\" is not used by any body"
    );
}

#[test]
fn unused_trajectories_and_forces_on_fixed_bodies_are_warned_about() {
    let text = format!(
        "{BALL}body wall shape ball fixed 1\nforce body wall y -1\ntrajectory idle points {{{{0 0 0 0}} {{1 1 1 1}}}}\ntrajectory asked points {{{{0 0 0 0}} {{1 1 1 1}}}}\nset x [asked x 0.5]\ntrajectory used points {{{{0 0 0 0}} {{1 1 1 1}}}}\nforce body wall x {{[used x]}}\n"
    );
    let s = scene(&text);
    let messages: Vec<(&str, Span)> = s
        .warnings
        .iter()
        .map(|w| (w.message.as_str(), w.span))
        .collect();
    assert_eq!(
        messages,
        [
            (
                "trajectory \"idle\" is not used: it drives no body, and no force, link, light, camera or expression refers to it",
                at(&text, "trajectory idle points {{0 0 0 0} {1 1 1 1}}", 0)
            ),
            ("force on wall has no effect: the body is fixed", at(&text, "force body wall y -1", 0)),
            ("force on wall has no effect: the body is fixed", at(&text, "force body wall x {[used x]}", 0)),
        ]
    );
}

#[test]
fn long_literal_lists_may_be_elided() {
    let text = "shape_set s desc {sphere 1}\nbody b shape s\ntrajectory T points {{0 0 0 0} {1 1 1 1} {2 2 2 2} {3 3 3 3}}\n";
    let s = scene(text);
    assert_eq!(
        s.elidable_spans(30),
        vec![at(text, "{0 0 0 0} {1 1 1 1} {2 2 2 2} {3 3 3 3}", 0)]
    );
    assert_eq!(s.elidable_spans(8).len(), 2);
}
