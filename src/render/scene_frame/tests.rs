use super::*;
use crate::render::camera::Viewport;
use crate::scene::evaluate;
use crate::scene::handles::{HandleKind, HandleScales};
use crate::scene::state::{BodyState, InitialStates};
use nalgebra::UnitQuaternion;

const VIEW: Viewport = Viewport {
    width: 400.0,
    height: 300.0,
};

const TEXT: &str = "\
shape_set cube desc {box {1 1 1} color red}
shape_set twin desc {box {1 1 1}}
shape_set duo desc {sub pos {0 0 0} sphere 0.5 color blue sub pos {0 2 0} sphere 0.5}
body a shape cube init_pos {0 0 0} init_dpos {1 0 0}
body b shape cube init_pos {3 0 0} color green
body c shape duo init_pos {0 4 0}
body d shape twin init_pos {-3 0 0} fixed 1
force body a gravity {0 -10 0}
force body c x {2 * $t} y 0 z 0 offset {0 1 0}
link body1 a offset1 {0.5 0 0} body2 b offset2 {-0.5 0 0}
link body1 c point {0 {5 + $t} 0}
trajectory path points {{0 0 0 5} {1 2 0 5} {2 2 2 5}} points {{3 0 0 5} {4 1 1 5}}
link body1 d trajectory path
lightsource lamp type point pos {1 2 3} color {1 0.5 0} intensity 2
lightsource sun type directional dir {0 -1 0}
";

fn setup() -> (Scene, SceneFrames) {
    let scene = evaluate(TEXT).unwrap();
    let frames = SceneFrames::new(&scene).unwrap();
    (scene, frames)
}

fn initial_frame(options: &FrameOptions, time: f64) -> Frame {
    let (scene, frames) = setup();
    frames.frame(
        &scene,
        &InitialStates { scene: &scene },
        time,
        options,
        &VIEW,
    )
}

#[test]
fn meshes_are_keyed_by_geometry() {
    let (scene, frames) = setup();
    let frame = initial_frame(&FrameOptions::default(), 0.0);
    // a, b and d are unit cubes (two shape sets, one geometry); c has two equal balls.
    let keys: Vec<MeshKey> = frame.objects.iter().map(|o| o.mesh).collect();
    assert_eq!(keys.len(), 5);
    assert_eq!(keys[0], keys[1]);
    assert_eq!(keys[0], keys[4]);
    assert_eq!(keys[2], keys[3]);
    assert_ne!(keys[0], keys[2]);
    assert_eq!(frames.meshes().iter().count(), 2);
    // The same text evaluated again gives the same keys: nothing to upload again.
    let again = SceneFrames::new(&evaluate(TEXT).unwrap()).unwrap();
    let same: Vec<MeshKey> = again.meshes().iter().map(|(k, _)| k).collect();
    assert_eq!(
        same,
        frames.meshes().iter().map(|(k, _)| k).collect::<Vec<_>>()
    );
    assert!(frame
        .objects
        .iter()
        .all(|o| frames.meshes().get(o.mesh).is_some()));
    assert_eq!(frames.gltf_bodies(&scene).len(), 4);
}

#[test]
fn body_colours_win_over_part_colours_which_win_over_the_palette() {
    let frame = initial_frame(&FrameOptions::default(), 0.0);
    let colours: Vec<Rgba> = frame.objects.iter().map(|o| o.colour).collect();
    assert_eq!(colours[0], [1.0, 0.0, 0.0, 1.0]);
    assert_eq!(colours[1][..3], [0.0, 0.5019608, 0.0][..]);
    assert_eq!(colours[2], [0.0, 0.0, 1.0, 1.0]);
    assert_eq!(colours[3], palette::BODIES[2]);
    assert_eq!(colours[4], palette::BODIES[3]);
}

#[test]
fn parts_sit_around_the_centre_of_mass() {
    let frame = initial_frame(&FrameOptions::default(), 0.0);
    // c's two equal balls are 2 apart: its centre of mass is midway, at its position.
    let (low, high) = (&frame.objects[2], &frame.objects[3]);
    assert_eq!(low.pose.translation.vector, Vector3::new(0.0, 4.0, 0.0));
    assert!((low.offset - Vector3::new(0.0, -1.0, 0.0)).norm() < 1e-9);
    assert!((high.offset - Vector3::new(0.0, 1.0, 0.0)).norm() < 1e-9);
}

/// A source that has body a turned a quarter about z and moved up by the time, knows
/// nothing about c, and leaves the others at rest where they start.
struct Moving<'a>(&'a Scene);

impl BodyStates for Moving<'_> {
    fn body_state(&self, body: usize, time: f64) -> Option<BodyState> {
        let mut state = BodyState::initial(&self.0.bodies[body]);
        match body {
            0 => {
                state.position.y += time;
                state.rotation = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), FRAC_PI_2);
                Some(state)
            }
            2 => None,
            _ => Some(state),
        }
    }
}

use std::f64::consts::FRAC_PI_2;

#[test]
fn links_follow_the_bodies_expressions_and_trajectories() {
    let (scene, frames) = setup();
    let frame = frames.frame(
        &scene,
        &Moving(&scene),
        2.0,
        &FrameOptions::default(),
        &VIEW,
    );
    assert_eq!(frame.lines.len(), 3);
    let ends = |i: usize| (frame.lines[i].from.coords, frame.lines[i].to.coords);
    // a is up by 2 and turned: its +x offset now points along +y.
    let (from, to) = ends(0);
    assert!((from - Vector3::new(0.0, 2.5, 0.0)).norm() < 1e-12);
    assert!((to - Vector3::new(2.5, 0.0, 0.0)).norm() < 1e-12);
    // c's state is unknown at 2: drawn at its initial position; the point is (0, 5 + t, 0).
    let (from, to) = ends(1);
    assert!((from - Vector3::new(0.0, 4.0, 0.0)).norm() < 1e-12);
    assert!((to - Vector3::new(0.0, 7.0, 0.0)).norm() < 1e-12);
    // d to the trajectory, which passes through (2, 2, 5) at t = 2.
    let (_, to) = ends(2);
    assert!((to - Vector3::new(2.0, 2.0, 5.0)).norm() < 1e-12);
    assert!(initial_frame(
        &FrameOptions {
            links: false,
            ..FrameOptions::default()
        },
        0.0
    )
    .lines
    .is_empty());
}

#[test]
fn vectors_show_velocities_and_forces_at_the_time() {
    let (scene, frames) = setup();
    let options = FrameOptions {
        vectors: true,
        ..FrameOptions::default()
    };
    let frame = frames.frame(&scene, &Moving(&scene), 1.5, &options, &VIEW);
    let scales = &options.scales;
    let coloured = |colour| frame.arrows.iter().filter(move |a| a.colour == colour);
    // Only a moves (d is fixed, the others are at rest).
    let velocities: Vec<&Arrow> = coloured(palette::VELOCITY).collect();
    assert_eq!(velocities.len(), 1);
    assert_eq!(
        velocities[0].vector,
        Vector3::new(scales.velocity, 0.0, 0.0)
    );
    let forces: Vec<&Arrow> = coloured(palette::FORCE).collect();
    assert_eq!(forces.len(), 2);
    // Gravity on the unit cube a (mass 1), at its centre of mass.
    assert!((forces[0].vector - Vector3::new(0.0, -10.0 * scales.force, 0.0)).norm() < 1e-9);
    assert_eq!(forces[0].origin, Point3::new(0.0, 1.5, 0.0));
    // 2t along x at t = 1.5, applied 1 above c's centre of mass.
    assert!((forces[1].vector - Vector3::new(3.0 * scales.force, 0.0, 0.0)).norm() < 1e-12);
    assert_eq!(forces[1].origin, Point3::new(0.0, 5.0, 0.0));
    assert!(initial_frame(&FrameOptions::default(), 0.0)
        .arrows
        .is_empty());
}

#[test]
fn trajectories_are_curves_through_their_control_points_per_piece() {
    let options = FrameOptions {
        trajectories: true,
        ..FrameOptions::default()
    };
    let frame = initial_frame(&options, 0.0);
    assert_eq!(frame.polylines.len(), 2);
    let first = &frame.polylines[0];
    assert_eq!(first.control_points.len(), 3);
    assert_eq!(first.points.len(), 1 + 2 * CURVE_SAMPLES);
    for control in &first.control_points {
        let nearest = first
            .points
            .iter()
            .map(|p| (p - control).norm())
            .fold(f64::INFINITY, f64::min);
        assert!(nearest < 1e-12);
    }
    assert_eq!(
        frame.polylines[1].points.last(),
        Some(&Point3::new(1.0, 1.0, 5.0))
    );
}

#[test]
fn lights_are_coloured_by_intensity() {
    let frame = initial_frame(&FrameOptions::default(), 0.0);
    assert_eq!(
        frame.lights[0],
        Light::Point {
            position: Point3::new(1.0, 2.0, 3.0),
            colour: [2.0, 1.0, 0.0],
        }
    );
    assert!(matches!(
        &frame.lights[1],
        Light::Directional { direction, colour: [1.0, 1.0, 1.0] } if direction.y == -1.0
    ));
}

#[test]
fn handles_selection_and_wireframe_follow_the_options() {
    let options = FrameOptions {
        handles: vec![HandleKind::BodyPosition],
        highlighted_handle: Some(1),
        selected_bodies: vec![2],
        wireframe: true,
        ..FrameOptions::default()
    };
    let frame = initial_frame(&options, 0.0);
    assert_eq!(frame.handles.len(), 4);
    assert!(frame
        .handles
        .iter()
        .all(|h| h.colour == palette::handle(HandleKind::BodyPosition)));
    // Handle 1 of the full list is a's rotation handle, which is not shown.
    assert!(frame.handles.iter().all(|h| !h.highlighted));
    let selected: Vec<bool> = frame.objects.iter().map(|o| o.selected).collect();
    assert_eq!(selected, [false, false, true, true, false]);
    assert!(frame.wireframe);
    let editing = initial_frame(&FrameOptions::editing(HandleScales::default()), 0.0);
    assert!(editing.handles.len() > 10 && editing.ground.is_some() && !editing.arrows.is_empty());
}

#[test]
fn without_a_camera_element_the_view_is_fitted_to_the_bodies() {
    let frame = initial_frame(&FrameOptions::default(), 0.0);
    for object in &frame.objects {
        let seen = frame
            .camera
            .project(&(object.placement() * Point3::origin()), &VIEW)
            .unwrap();
        assert!(seen.x > 0.0 && seen.x < VIEW.width && seen.y > 0.0 && seen.y < VIEW.height);
    }
    let given = FrameOptions {
        camera: CameraChoice::Given(crate::render::camera::Camera::default()),
        ..FrameOptions::default()
    };
    assert_eq!(
        initial_frame(&given, 0.0).camera,
        crate::render::camera::Camera::default()
    );
}

#[test]
fn the_camera_element_places_the_eye_and_may_move() {
    let text = format!(
        "{TEXT}\ntrajectory rise points {{{{0 0 0 10}} {{4 0 8 10}}}}
         camera pos rise rot {{0 {{0.25 * $t}} 0}} center {{0 1 0}} scale 2"
    );
    let scene = evaluate(&text).unwrap();
    let frames = SceneFrames::new(&scene).unwrap();
    let states = InitialStates { scene: &scene };
    let camera = frames
        .frame(&scene, &states, 0.0, &FrameOptions::default(), &VIEW)
        .camera;
    // At scale 1 the eye would be at (0, 0, 10); scale 2 halves its distance to the centre.
    assert!((camera.eye() - Point3::new(0.0, 0.5, 5.0)).norm() < 1e-9);
    assert!((camera.view_direction().into_inner() - -Vector3::z()).norm() < 1e-12);
    // The centre is seen where it is from the eye at scale 1: scaling keeps it in place.
    let centre = camera.to_eye(&Point3::new(0.0, 1.0, 0.0));
    assert!((centre.coords - Vector3::new(0.0, 1.0, -10.0)).norm() < 1e-12);
    // At t = 2 the eye has risen halfway and the view has turned 0.5 rad about y.
    let camera = frames
        .frame(&scene, &states, 2.0, &FrameOptions::default(), &VIEW)
        .camera;
    let turned = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), 0.5) * -Vector3::z();
    assert!((camera.view_direction().into_inner() - turned).norm() < 1e-12);
    assert!((camera.eye() - Point3::new(0.0, 2.5, 5.0)).norm() < 1e-9);
}

#[test]
fn movie_frames_cover_the_range_and_the_view_stays_still_without_a_camera() {
    assert_eq!(frame_times(0.0, 1.0, 4.0), [0.0, 0.25, 0.5, 0.75, 1.0]);
    assert_eq!(frame_times(0.0, 5.0, 30.0).len(), 151);
    assert_eq!(frame_times(1.0, 1.2, 4.0), [1.0]);
    assert!(frame_times(1.0, 0.0, 4.0).is_empty());
    let (scene, frames) = setup();
    let moving = Moving(&scene);
    match frames.movie_camera(&scene, &moving, &[0.0, 10.0]) {
        // a rises by 10 over the movie: the fitted box holds it at both ends.
        CameraChoice::Fit(bounds) => assert!(bounds.max.y >= 10.5 && bounds.min.y <= -0.5),
        other => panic!("expected a fitted view, got {other:?}"),
    }
}
