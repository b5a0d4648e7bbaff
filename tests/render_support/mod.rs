//! Shared pieces of the render tests: the test shapes, a sample scene and output folders.
#![allow(dead_code)]

pub mod ghostscript;
pub mod gltf_validator;
pub mod golden;
pub mod rayshade_grammar;

use asgard::render::camera::Camera;
use asgard::render::frame::{Arrow, Frame, Ground, Handle, Light, Line, Object, Polyline};
use asgard::render::mesh::{Mesh, MeshKey, MeshLibrary};
use nalgebra::{Isometry3, Point3, Translation3, UnitQuaternion, Vector3};
use std::path::PathBuf;

pub const CUBE: MeshKey = MeshKey(1);
pub const BALL: MeshKey = MeshKey(2);
pub const WEDGE: MeshKey = MeshKey(3);

/// A folder under target/ for one test's files, emptied first.
pub fn output_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("render")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A cube of side `side` centred on its origin.
pub fn cube(side: f64) -> Mesh {
    let h = side / 2.0;
    let points: Vec<Point3<f64>> = (0..8)
        .map(|i| {
            Point3::new(
                if i & 1 == 0 { -h } else { h },
                if i & 2 == 0 { -h } else { h },
                if i & 4 == 0 { -h } else { h },
            )
        })
        .collect();
    let faces = vec![
        vec![0, 2, 3, 1],
        vec![4, 5, 7, 6],
        vec![0, 1, 5, 4],
        vec![2, 6, 7, 3],
        vec![0, 4, 6, 2],
        vec![1, 3, 7, 5],
    ];
    Mesh::polyhedron(&points, &faces).unwrap()
}

/// A triangular prism (a wedge), to have a shape with triangles and quadrilaterals.
pub fn wedge() -> Mesh {
    let points = vec![
        Point3::new(-0.5, -0.5, -0.5),
        Point3::new(0.5, -0.5, -0.5),
        Point3::new(0.0, 0.5, -0.5),
        Point3::new(-0.5, -0.5, 0.5),
        Point3::new(0.5, -0.5, 0.5),
        Point3::new(0.0, 0.5, 0.5),
    ];
    let faces = vec![
        vec![0, 2, 1],
        vec![3, 4, 5],
        vec![0, 1, 4, 3],
        vec![1, 2, 5, 4],
        vec![2, 0, 3, 5],
    ];
    Mesh::polyhedron(&points, &faces).unwrap()
}

pub fn library() -> MeshLibrary {
    let mut meshes = MeshLibrary::new();
    meshes.insert(CUBE, cube(1.0));
    meshes.insert(BALL, Mesh::sphere(0.5, 2).unwrap());
    meshes.insert(WEDGE, wedge());
    meshes
}

pub fn object(mesh: MeshKey, at: [f64; 3], colour: [f32; 4]) -> Object {
    Object {
        mesh,
        pose: Isometry3::from_parts(
            Translation3::new(at[0], at[1], at[2]),
            UnitQuaternion::identity(),
        ),
        offset: Vector3::zeros(),
        colour,
        selected: false,
        hovered: false,
    }
}

/// A camera 6 units in front of the origin looking at it.
pub fn front_camera() -> Camera {
    Camera {
        translation: Vector3::new(0.0, 0.0, -6.0),
        ..Camera::default()
    }
}

/// A scene with a bit of everything, seen from an angle: a two-part pendulum-like body, a
/// ball, a link, force and velocity arrows, a trajectory, handles, a grid and two lights.
pub fn showcase() -> Frame {
    let tilt = UnitQuaternion::from_euler_angles(0.45, -0.6, 0.0);
    let mut arm = object(CUBE, [0.0, 0.0, 0.0], [0.8, 0.3, 0.2, 1.0]);
    arm.pose = Isometry3::from_parts(
        Translation3::new(-1.0, 0.8, 0.0),
        UnitQuaternion::from_euler_angles(0.0, 0.0, 0.4),
    );
    let mut tip = arm.clone();
    tip.mesh = WEDGE;
    tip.offset = Vector3::new(0.0, -1.2, 0.0);
    tip.colour = [0.3, 0.6, 0.9, 1.0];
    tip.selected = true;
    let ball = object(BALL, [1.3, -0.2, 0.3], [0.9, 0.8, 0.2, 1.0]);
    let trajectory: Vec<Point3<f64>> = (0..=40)
        .map(|i| {
            let t = i as f64 / 40.0;
            Point3::new(
                -2.0 + 4.0 * t,
                -1.0 + 1.5 * (std::f64::consts::PI * t).sin(),
                -1.0,
            )
        })
        .collect();
    Frame {
        objects: vec![arm, tip, ball],
        lines: vec![Line {
            from: Point3::new(-1.0, 0.8, 0.0),
            to: Point3::new(1.3, -0.2, 0.3),
            colour: [1.0, 1.0, 1.0, 1.0],
        }],
        arrows: vec![
            Arrow {
                origin: Point3::new(1.3, -0.2, 0.3),
                vector: Vector3::new(0.0, -1.2, 0.0),
                colour: [1.0, 0.2, 0.2, 1.0],
            },
            Arrow {
                origin: Point3::new(1.3, -0.2, 0.3),
                vector: Vector3::new(1.0, 0.4, 0.0),
                colour: [0.2, 1.0, 0.3, 1.0],
            },
        ],
        handles: vec![
            Handle {
                position: Point3::new(1.3, -0.2, 0.3),
                colour: [0.2, 0.9, 0.9, 1.0],
                highlighted: false,
            },
            Handle {
                position: Point3::new(-1.0, 0.8, 0.0),
                colour: [0.2, 0.9, 0.9, 1.0],
                highlighted: true,
            },
        ],
        polylines: vec![Polyline {
            control_points: vec![trajectory[0], trajectory[20], trajectory[40]],
            points: trajectory,
            colour: [0.9, 0.5, 1.0, 1.0],
        }],
        ground: Some(Ground {
            origin: Point3::new(0.0, -1.5, 0.0),
            normal: Vector3::y_axis(),
            spacing: 0.5,
            extent: 12.0,
            colour: [0.2, 0.21, 0.25, 1.0],
            line_colour: [0.35, 0.35, 0.4, 1.0],
        }),
        lights: vec![
            Light::Directional {
                direction: nalgebra::Unit::new_normalize(Vector3::new(-0.3, -1.0, -0.6)),
                colour: [0.8, 0.8, 0.8],
            },
            Light::Point {
                position: Point3::new(3.0, 2.0, 4.0),
                colour: [0.4, 0.4, 0.35],
            },
        ],
        camera: Camera {
            translation: Vector3::new(0.0, 0.0, -8.0),
            rotation: tilt,
            ..Camera::default()
        },
        background: [0.08, 0.09, 0.12, 1.0],
        ..Frame::default()
    }
}
