use super::*;
use crate::scene::evaluate;
use proptest::prelude::*;
use std::f64::consts::FRAC_PI_2;

const TEXT: &str = "\
shape_set cube desc {box {2 2 2}}
shape_set ball desc {sphere 1}
body a shape cube init_pos {1 2 3} init_rot {0 0 0} init_dpos {2 0 0} init_drot {0 0 3}
body b shape ball init_pos {10 0 0}
body wall shape cube init_pos {0 -5 0} fixed 1
force body a vector {0 -5 0} offset {1 0 0}
force body b gravity {0 -10 0}
force body a x {sin($t)} y 0 z 0
torque body a vector {0 0 2}
link body1 a offset1 {1 0 0} body2 b offset2 {-1 0 0} tightness 100
link body1 b point {10 5 0}
trajectory T points {{0 0 0 0} {1 1 1 0}}
lightsource sun type directional pos {0 10 0} dir {0 -2 0}
foreach i {1 2} { body c$i shape ball init_pos [list [expr {3 * $i}] 0 5] }
";

struct Fixture {
    scene: Scene,
    shapes: SceneShapes,
    handles: Vec<Handle>,
}

fn fixture(text: &str) -> Fixture {
    let scene = evaluate(text).unwrap();
    let shapes = SceneShapes::new(&scene).unwrap();
    let handles = handles(&scene, &shapes, &HandleScales::default());
    Fixture {
        scene,
        shapes,
        handles,
    }
}

impl Fixture {
    fn handle(&self, target: Target) -> &Handle {
        self.handles
            .iter()
            .find(|h| h.target == target)
            .unwrap_or_else(|| panic!("no handle for {target:?}"))
    }
}

/// A drag seen from far along +z, looking down −z, with the pointer over (x, y).
fn from_front(x: f64, y: f64, free: bool) -> Drag {
    Drag {
        ray: Ray::new(Vec3::new(x, y, 50.0), Vec3::new(0.0, 0.0, -1.0)).unwrap(),
        screen_normal: Vec3::new(0.0, 0.0, -1.0),
        free,
    }
}

fn vector(edit: &Edit) -> Vec3 {
    match edit.value {
        EditValue::Vector(v) => v,
        EditValue::Number(n) => panic!("expected a vector, got {n}"),
    }
}

fn body_init(body: usize, var: InitVar) -> Target {
    Target::BodyInit { body, var }
}

#[test]
fn handles_sit_where_the_initial_state_puts_them() {
    let f = fixture(TEXT);
    let at = |target| f.handle(target).position;
    assert_eq!(at(body_init(0, InitVar::Pos)), Vec3::new(1.0, 2.0, 3.0));
    // Velocity (2, 0, 0) drawn one second ahead; angular velocity (0, 0, 3).
    assert_eq!(at(body_init(0, InitVar::Dpos)), Vec3::new(3.0, 2.0, 3.0));
    assert_eq!(at(body_init(0, InitVar::Drot)), Vec3::new(1.0, 2.0, 6.0));
    // The force on a is applied 1 along its x axis and drawn at 0.1 per newton.
    assert_eq!(at(Target::ForceOffset(0)), Vec3::new(2.0, 2.0, 3.0));
    assert!((at(Target::ForceVector(0)) - Vec3::new(2.0, 1.5, 3.0)).norm() < 1e-12);
    // Gravity on b shows the force: 10 × the unit ball's mass, downwards.
    let mass = 4.0 / 3.0 * std::f64::consts::PI;
    let gravity_head = at(Target::ForceVector(1));
    assert!((gravity_head - Vec3::new(10.0, -mass, 0.0)).norm() < 1e-6);
    assert_eq!(at(Target::LinkOffset1(0)), Vec3::new(2.0, 2.0, 3.0));
    assert_eq!(at(Target::LinkOffset2(0)), Vec3::new(9.0, 0.0, 0.0));
    assert_eq!(at(Target::LinkPoint(1)), Vec3::new(10.0, 5.0, 0.0));
    let point = |point| Target::ControlPoint {
        trajectory: 0,
        piece: 0,
        point,
    };
    assert_eq!(at(point(1)), Vec3::new(1.0, 1.0, 0.0));
    assert_eq!(at(Target::LightPos(0)), Vec3::new(0.0, 10.0, 0.0));
    assert_eq!(at(Target::LightDir(0)), Vec3::new(0.0, 8.0, 0.0));
    // The rotation handle is on the body's x axis, outside the cube.
    let arm = at(body_init(0, InitVar::Rot)) - Vec3::new(1.0, 2.0, 3.0);
    assert!(arm.y.abs() < 1e-12 && arm.z.abs() < 1e-12 && arm.x >= 3f64.sqrt() - 1e-9);
}

#[test]
fn what_cannot_be_dragged_has_no_handle_or_is_read_only() {
    let f = fixture(TEXT);
    // The fixed wall has position and rotation handles but no velocities.
    let wall: Vec<HandleKind> = f
        .handles
        .iter()
        .filter(|h| matches!(h.target, Target::BodyInit { body: 2, .. }))
        .map(|h| h.kind)
        .collect();
    assert_eq!(wall, [HandleKind::BodyPosition, HandleKind::BodyRotation]);
    // The force of sin($t) has a base but no head.
    assert!(f.handles.iter().all(|h| h.target != Target::ForceVector(2)));
    assert!(f.handles.iter().any(|h| h.target == Target::ForceOffset(2)));
    // Bodies made in a loop are read-only, as is what the text does not write as a literal.
    let c1 = f.handle(body_init(3, InitVar::Pos));
    assert!(!c1.editable);
    assert_eq!(
        c1.drag(&from_front(0.0, 0.0, false), &f.shapes),
        Err(DragError::ReadOnly(body_init(3, InitVar::Pos)))
    );
    assert!(f.handle(body_init(0, InitVar::Pos)).editable);
    assert!(!f.handle(body_init(1, InitVar::Dpos)).editable);
}

#[test]
fn a_velocity_drag_becomes_a_text_edit() {
    let f = fixture(TEXT);
    let handle = f.handle(body_init(0, InitVar::Dpos));
    // In the plane z = 3 through the handle, from (3, 2) to (5, 3): velocity (4, 1, 0).
    let edit = handle
        .drag(&from_front(5.0, 3.0, false), &f.shapes)
        .unwrap();
    assert_eq!(edit.position, Vec3::new(5.0, 3.0, 3.0));
    assert!((vector(&edit) - Vec3::new(4.0, 1.0, 0.0)).norm() < 1e-12);
    let text = edit.patch(TEXT, &f.scene).unwrap().apply(TEXT);
    assert!(text.contains("init_dpos {4 1 0}"), "{text}");
    let scene = evaluate(&text).unwrap();
    assert_eq!(scene.bodies[0].init_dpos.value, Vec3::new(4.0, 1.0, 0.0));
}

#[test]
fn gravity_is_edited_as_the_acceleration() {
    let f = fixture(TEXT);
    let handle = f.handle(Target::ForceVector(1));
    let mass = 4.0 / 3.0 * std::f64::consts::PI;
    // Twice as far below the ball: twice the gravity.
    let edit = handle
        .drag(&from_front(10.0, -2.0 * mass, false), &f.shapes)
        .unwrap();
    assert!((vector(&edit) - Vec3::new(0.0, -20.0, 0.0)).norm() < 1e-9);
    assert!(
        handle.label.starts_with("gravity 0 -10 0"),
        "{}",
        handle.label
    );
}

#[test]
fn link_ends_stay_on_the_surface_unless_the_drag_is_free() {
    let f = fixture(TEXT);
    let handle = f.handle(Target::LinkOffset2(0));
    // Ball b of radius 1 at (10, 0, 0): the pointer over (10.5, 0.5) meets it at z = √0.5.
    let edit = handle
        .drag(&from_front(10.5, 0.5, false), &f.shapes)
        .unwrap();
    assert!(edit.on_surface);
    assert!((vector(&edit) - Vec3::new(0.5, 0.5, 0.5f64.sqrt())).norm() < 1e-12);
    // Free: in the screen plane through the handle (z = 0).
    let edit = handle
        .drag(&from_front(10.5, 0.5, true), &f.shapes)
        .unwrap();
    assert!(!edit.on_surface);
    assert!((vector(&edit) - Vec3::new(0.5, 0.5, 0.0)).norm() < 1e-12);
    // Off the body the end leaves the surface and follows the pointer in the screen plane.
    let edit = handle
        .drag(&from_front(12.0, 0.0, false), &f.shapes)
        .unwrap();
    assert!(!edit.on_surface);
    assert!((vector(&edit) - Vec3::new(2.0, 0.0, 0.0)).norm() < 1e-12);
}

#[test]
fn the_rotation_handle_turns_the_body_about_its_centre_of_mass() {
    let f = fixture(TEXT);
    let handle = f.handle(body_init(0, InitVar::Rot));
    // From the +x side of a (at (1, 2, 3)) to straight above it: a quarter turn about z.
    let edit = handle
        .drag(&from_front(1.0, 7.0, false), &f.shapes)
        .unwrap();
    assert!((vector(&edit) - Vec3::new(0.0, 0.0, FRAC_PI_2)).norm() < 1e-12);
    assert!(handle.label.contains("(none)"), "{}", handle.label);
    let spin = f.handle(body_init(0, InitVar::Drot));
    assert!(spin.label.contains("3 rad/s about 0 0 1"), "{}", spin.label);
}

#[test]
fn light_directions_keep_their_length() {
    let f = fixture(TEXT);
    let handle = f.handle(Target::LightDir(0));
    let edit = handle
        .drag(&from_front(5.0, 10.0, false), &f.shapes)
        .unwrap();
    assert!((vector(&edit) - Vec3::new(2.0, 0.0, 0.0)).norm() < 1e-12);
}

#[test]
fn a_drag_parallel_to_the_screen_plane_is_refused() {
    let f = fixture(TEXT);
    let handle = f.handle(body_init(0, InitVar::Pos));
    let drag = Drag {
        ray: Ray::new(Vec3::new(0.0, 0.0, 50.0), Vec3::new(1.0, 0.0, 0.0)).unwrap(),
        screen_normal: Vec3::new(0.0, 0.0, -1.0),
        free: false,
    };
    assert_eq!(handle.drag(&drag, &f.shapes), Err(DragError::OffPlane));
}

#[test]
fn fitted_scales_draw_the_longest_vectors_at_a_fraction_of_the_scene() {
    let f = fixture(TEXT);
    let scales = HandleScales::fitted(&f.scene, &f.shapes);
    let radius = initial_radius(&f.scene, &f.shapes);
    assert!((scales.velocity * 2.0 - FITTED_FRACTION * radius).abs() < 1e-9);
    assert!((scales.angular_velocity * 3.0 - FITTED_FRACTION * radius).abs() < 1e-9);
    assert!((scales.torque * 2.0 - FITTED_FRACTION * radius).abs() < 1e-9);
}

proptest! {
    /// Dragging any editable handle of the example and evaluating the patched text puts the
    /// handle where the drag left it (rotation and direction handles: on the same line from
    /// their base).
    #[test]
    fn a_drag_round_trips_through_the_text(pick in 0usize..64, dx in -2.0f64..2.0, dy in -2.0f64..2.0) {
        let f = fixture(TEXT);
        let editable: Vec<&Handle> = f.handles.iter().filter(|h| h.editable).collect();
        let handle = editable[pick % editable.len()];
        let drag = from_front(handle.position.x + dx, handle.position.y + dy, true);
        let edit = handle.drag(&drag, &f.shapes).unwrap();
        let text = edit.patch(TEXT, &f.scene).unwrap().apply(TEXT);
        let after = fixture(&text);
        let moved = after.handle(handle.target);
        match handle.kind {
            HandleKind::BodyRotation | HandleKind::LightDirection => {
                let base = match handle.kind {
                    HandleKind::BodyRotation => f.handle(body_init(0, InitVar::Pos)).position,
                    _ => f.handle(Target::LightPos(0)).position,
                };
                let (a, b) = ((moved.position - base).normalize(), (edit.position - base).normalize());
                prop_assert!((a - b).norm() < 1e-4, "{:?}: {} vs {}", handle.target, a, b);
            }
            _ => prop_assert!(
                (moved.position - edit.position).norm() < 1e-4 * (1.0 + edit.position.norm()),
                "{:?}: {} vs {}", handle.target, moved.position, edit.position
            ),
        }
    }
}

#[test]
fn the_camera_has_a_handle_where_it_stands_and_one_on_the_point_it_looks_at() {
    let f = fixture(
        "shape_set ball desc {sphere 1}\nbody b shape ball\n\
         camera pos {0 1 10} center {0 1 0}",
    );
    let position = f.handle(Target::CameraPos);
    let target = f.handle(Target::CameraCenter);
    assert_eq!(position.kind, HandleKind::CameraPosition);
    assert_eq!(position.position, Vec3::new(0.0, 1.0, 10.0));
    assert_eq!(target.kind, HandleKind::CameraTarget);
    assert_eq!(target.position, Vec3::new(0.0, 1.0, 0.0));
    assert!(position.editable && target.editable);
    // Dragged as points: the value is where the pointer puts it.
    let edit = position
        .drag(&from_front(2.0, 3.0, false), &f.shapes)
        .unwrap();
    assert_eq!(vector(&edit), Vec3::new(2.0, 3.0, 10.0));

    // A camera on a trajectory shows where it starts, and refuses a drag with the reason.
    let f = fixture(
        "trajectory p points {{0 0 1 9} {1 5 1 9}}\ncamera pos p center {0 0 0}\n\
         shape_set ball desc {sphere 1}\nbody b shape ball",
    );
    let moving = f.handle(Target::CameraPos);
    assert_eq!(moving.position, Vec3::new(0.0, 1.0, 9.0));
    assert!(!moving.editable);
    let why = moving.refusal();
    assert!(
        why.contains("follows trajectory p: edit it in the text"),
        "{why}"
    );
    assert!(f.handles.iter().all(|h| !h.kind.is_camera() || !h.editable));
}
