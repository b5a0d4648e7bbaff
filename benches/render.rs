//! Off-screen render + read-back speed at 640×480 for 10, 1,000 and 10,000 objects (half
//! boxes, half spheres), reported as frames per second and as a ratio to an empty frame
//! measured in the same run.
//!
//! Run: `cargo bench --bench render`

use asgard::render::camera::{Bounds, Viewport};
use asgard::render::frame::{Frame, Object};
use asgard::render::mesh::{Mesh, MeshKey};
use asgard::render::offscreen::OffscreenTarget;
use nalgebra::{Isometry3, Point3, Translation3, UnitQuaternion, Vector3};
use std::time::{Duration, Instant};

const WIDTH: u32 = 640;
const HEIGHT: u32 = 480;
const BOX: MeshKey = MeshKey(1);
const BALL: MeshKey = MeshKey(2);
/// Each case runs for at least this long and at least `MIN_FRAMES` frames.
const MEASURE: Duration = Duration::from_secs(2);
const MIN_FRAMES: u32 = 5;

fn box_mesh() -> Mesh {
    let points: Vec<Point3<f64>> = (0..8)
        .map(|i| {
            Point3::new(
                if i & 1 == 0 { -0.4 } else { 0.4 },
                if i & 2 == 0 { -0.4 } else { 0.4 },
                if i & 4 == 0 { -0.4 } else { 0.4 },
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
    Mesh::polyhedron(&points, &faces).expect("valid box")
}

/// `count` objects on a cubic lattice, alternately boxes and spheres, turned and coloured.
fn frame(count: usize) -> Frame {
    let side = (count as f64).cbrt().ceil().max(1.0) as usize;
    let objects: Vec<Object> = (0..count)
        .map(|i| {
            let (x, y, z) = (i % side, (i / side) % side, i / (side * side));
            let t = i as f64;
            Object {
                mesh: if i % 2 == 0 { BOX } else { BALL },
                pose: Isometry3::from_parts(
                    Translation3::new(x as f64, y as f64, z as f64),
                    UnitQuaternion::from_euler_angles(0.3 * t, 0.7 * t, 0.1 * t),
                ),
                offset: Vector3::zeros(),
                colour: [(x as f32 / side as f32), 0.5, (z as f32 / side as f32), 1.0],
                selected: i % 97 == 0,
            }
        })
        .collect();
    let mut frame = Frame {
        objects,
        ..Frame::default()
    };
    let extent = side.saturating_sub(1) as f64;
    let bounds = Bounds {
        min: Point3::new(-0.5, -0.5, -0.5),
        max: Point3::new(extent + 0.5, extent + 0.5, extent + 0.5),
    };
    frame.camera.rotation = UnitQuaternion::from_euler_angles(0.4, -0.6, 0.0);
    frame
        .camera
        .fit(&bounds, &Viewport::new(f64::from(WIDTH), f64::from(HEIGHT)));
    frame
}

/// Frames per second of render + read-back for `frame`.
fn measure(target: &mut OffscreenTarget, frame: &Frame) -> f64 {
    for _ in 0..3 {
        target.render(frame).expect("render");
    }
    let start = Instant::now();
    let mut frames = 0;
    while frames < MIN_FRAMES || start.elapsed() < MEASURE {
        std::hint::black_box(target.render(frame).expect("render"));
        frames += 1;
    }
    f64::from(frames) / start.elapsed().as_secs_f64()
}

fn main() {
    let mut target = OffscreenTarget::new(WIDTH, HEIGHT).expect("off-screen EGL context");
    target.upload_mesh(BOX, &box_mesh()).expect("upload box");
    target
        .upload_mesh(BALL, &Mesh::sphere(0.4, 1).expect("valid sphere"))
        .expect("upload sphere");
    let baseline = measure(&mut target, &frame(0));
    println!("render {WIDTH}x{HEIGHT} off-screen, render + read-back (spheres: 16x8 segments)");
    println!("{:>8} objects: {:>8.1} frames/s  (baseline)", 0, baseline);
    for count in [10, 1_000, 10_000] {
        let fps = measure(&mut target, &frame(count));
        println!(
            "{count:>8} objects: {fps:>8.1} frames/s  {:>6.3} × empty frame  {:>8.2} ms/frame",
            fps / baseline,
            1000.0 / fps
        );
    }
}
