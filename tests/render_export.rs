//! Exports: the PostScript renders through ghostscript, every glTF passes the Khronos
//! validator, and the Rayshade file follows the Rayshade 4 grammar. Files stay under
//! target/tmp/render/export-*/.

mod render_support;

use asgard::render::export::gltf::{self, Body, Motion, Part, Rate};
use asgard::render::export::postscript::to_eps;
use asgard::render::export::rayshade::to_rayshade;
use asgard::render::export::ExportError;
use asgard::render::frame::Frame;
use asgard::render::mesh::MeshKey;
use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
use render_support::ghostscript::ghostscript;
use render_support::gltf_validator::{accessor_floats, ensure_validator, validate};
use render_support::rayshade_grammar::Checker;
use render_support::*;

const WIDTH: u32 = 320;
const HEIGHT: u32 = 240;

fn rgb_at(pixels: &[u8], width: u32, x: u32, y: u32) -> [u8; 3] {
    let i = 3 * (y * width + x) as usize;
    [pixels[i], pixels[i + 1], pixels[i + 2]]
}

#[test]
fn postscript_is_epsf_and_renders_through_ghostscript() {
    let dir = output_dir("export-postscript");
    let eps = to_eps(&showcase(), &library(), WIDTH, HEIGHT).unwrap();
    let mut lines = eps.lines();
    assert_eq!(lines.next(), Some("%!PS-Adobe-3.0 EPSF-3.0"));
    assert_eq!(lines.next(), Some("%%BoundingBox: 0 0 320 240"));
    assert!(eps.trim_end().ends_with("%%EOF"));
    let path = dir.join("showcase.eps");
    std::fs::write(&path, &eps).unwrap();
    let (width, height, pixels) = ghostscript(&path, &dir.join("showcase.png"));
    assert_eq!((width, height), (WIDTH, HEIGHT));
    let colours: std::collections::HashSet<&[u8]> = pixels.chunks_exact(3).collect();
    assert!(
        colours.len() > 20,
        "picture is nearly empty: {} colours",
        colours.len()
    );

    let mut wire = showcase();
    wire.wireframe = true;
    let path = dir.join("showcase-wireframe.eps");
    std::fs::write(&path, to_eps(&wire, &library(), WIDTH, HEIGHT).unwrap()).unwrap();
    ghostscript(&path, &dir.join("showcase-wireframe.png"));
}

fn cube_frame() -> Frame {
    Frame {
        objects: vec![object(CUBE, [0.0, 0.0, 0.0], [0.6, 0.3, 0.2, 1.0])],
        camera: front_camera(),
        background: [1.0, 1.0, 1.0, 1.0],
        ..Frame::default()
    }
}

#[test]
fn back_faces_are_culled() {
    let eps = to_eps(&cube_frame(), &library(), WIDTH, HEIGHT).unwrap();
    // Seen head on, only the front face of the cube faces the eye.
    assert_eq!(eps.matches(" face\n").count(), 1);
    let mut wire = cube_frame();
    wire.wireframe = true;
    let eps = to_eps(&wire, &library(), WIDTH, HEIGHT).unwrap();
    assert_eq!(eps.matches(" edge\n").count(), 6);
}

#[test]
fn nearer_faces_cover_farther_ones() {
    let dir = output_dir("export-painter");
    let mut frame = cube_frame();
    // A blue cube in front of the red one, listed first so that drawing order alone would
    // put it underneath.
    frame
        .objects
        .insert(0, object(CUBE, [0.3, 0.0, 1.5], [0.1, 0.2, 0.8, 1.0]));
    let path = dir.join("two-cubes.eps");
    std::fs::write(&path, to_eps(&frame, &library(), WIDTH, HEIGHT).unwrap()).unwrap();
    let (width, _, pixels) = ghostscript(&path, &dir.join("two-cubes.png"));
    let [r, g, b] = rgb_at(&pixels, width, WIDTH / 2 + 5, HEIGHT / 2);
    // The default light comes from above, so the face turned to the eye is half lit.
    assert!(
        b > 100 && r < 60 && g < 80,
        "overlap shows {:?}, not the near blue cube",
        [r, g, b]
    );
}

#[test]
fn missing_meshes_are_reported() {
    let mut frame = cube_frame();
    frame.objects[0].mesh = MeshKey(99);
    let error = to_eps(&frame, &library(), WIDTH, HEIGHT).unwrap_err();
    assert!(matches!(
        error,
        ExportError::MissingMesh {
            key: MeshKey(99),
            object: 0
        }
    ));
    assert!(to_rayshade(&frame, &library(), WIDTH, HEIGHT).is_err());
}

#[test]
fn non_finite_poses_are_located_errors() {
    let mut frame = cube_frame();
    frame
        .objects
        .push(object(CUBE, [0.0, f64::NAN, 0.0], [1.0; 4]));
    let error = to_rayshade(&frame, &library(), WIDTH, HEIGHT).unwrap_err();
    assert_eq!(error.to_string(), "object 1: pose or offset is not finite");
    let mut frame = cube_frame();
    frame.camera.scale = 0.0;
    let error = to_eps(&frame, &library(), WIDTH, HEIGHT).unwrap_err();
    assert!(error.to_string().starts_with("camera: "), "{error}");
}

#[test]
fn rayshade_file_follows_the_rayshade_4_grammar() {
    let dir = output_dir("export-rayshade");
    let text = to_rayshade(&showcase(), &library(), WIDTH, HEIGHT).unwrap();
    std::fs::write(dir.join("showcase.ray"), &text).unwrap();
    let mut checker = Checker::new(&text);
    checker.file().unwrap_or_else(|e| panic!("{e}\n{text}"));
    // The showcase has a cube and a wedge (lists of 6 and 5 polygons), one ball, two lights,
    // three colours and the ground (a plane with a surface of its own).
    assert_eq!(checker.counts.get("list"), Some(&2));
    assert_eq!(checker.counts.get("polygon"), Some(&11));
    assert_eq!(checker.counts.get("sphere"), Some(&1));
    assert_eq!(checker.counts.get("light"), Some(&2));
    assert_eq!(checker.counts.get("plane"), Some(&1));
    assert_eq!(checker.surfaces.len(), 4);
    assert!(text.contains("plane ground 0 -1.5 0 0 1 0"), "{text}");
    // Without the ground look there is no plane.
    let mut bare = showcase();
    bare.looks.ground = false;
    let text = to_rayshade(&bare, &library(), WIDTH, HEIGHT).unwrap();
    assert!(!text.contains("plane"));
    // A broken file is caught, so the checker can fail.
    let broken = text.replacen("sphere colour", "sphere nosuchsurface", 1);
    assert!(Checker::new(&broken).file().is_err());
}

#[test]
fn rayshade_camera_matches_the_view() {
    let frame = cube_frame();
    let text = to_rayshade(&frame, &library(), 400, 200).unwrap();
    let line = |key: &str| {
        text.lines()
            .find(|l| l.starts_with(&format!("{key} ")))
            .unwrap()
            .split_whitespace()
            .skip(1)
            .map_while(|t| t.parse::<f64>().ok())
            .collect::<Vec<_>>()
    };
    assert_eq!(line("eyep"), vec![0.0, 0.0, 6.0]);
    assert_eq!(line("lookp"), vec![0.0, 0.0, 0.0]);
    assert_eq!(line("up"), vec![0.0, 1.0, 0.0]);
    let fov = line("fov");
    assert!((fov[1] - 40.0).abs() < 1e-9);
    // Twice as wide as high: tan(h/2) = 2 tan(v/2).
    assert!(((fov[0] / 2.0).to_radians().tan() - 2.0 * 20f64.to_radians().tan()).abs() < 1e-6);
    // A frame without lights gets the renderer's default light, from above whatever the view.
    let light = text
        .lines()
        .find(|l| l.starts_with("light "))
        .unwrap()
        .split_whitespace()
        .filter_map(|t| t.parse::<f64>().ok())
        .collect::<Vec<_>>();
    assert_eq!(light[..3], [0.8, 0.8, 0.78]);
    let towards = nalgebra::Vector3::new(light[3], light[4], light[5]).normalize();
    assert!(towards.y > 0.7, "the default light comes from {towards:?}");
}

// ---------------------------------------------------------------------------------------
// glTF

/// The showcase's bodies swinging for two seconds, sampled 25 times.
fn swinging_bodies() -> (Vec<Body>, Motion) {
    let frame = showcase();
    let arm = &frame.objects[0];
    let tip = &frame.objects[1];
    let ball = &frame.objects[2];
    let bodies = vec![
        Body {
            name: "pendulum".into(),
            parts: vec![
                Part {
                    mesh: arm.mesh,
                    offset: arm.offset,
                    colour: arm.colour,
                },
                Part {
                    mesh: tip.mesh,
                    offset: tip.offset,
                    colour: tip.colour,
                },
            ],
            pose: arm.pose,
        },
        Body {
            name: "ball".into(),
            parts: vec![Part {
                mesh: ball.mesh,
                offset: Vector3::zeros(),
                colour: ball.colour,
            }],
            pose: ball.pose,
        },
        Body {
            name: "red cube".into(),
            parts: vec![Part {
                mesh: CUBE,
                offset: Vector3::zeros(),
                colour: [1.0, 0.0, 0.0, 0.5],
            }],
            pose: Isometry3::translation(0.0, 2.0, 0.0),
        },
    ];
    let times: Vec<f64> = (0..25).map(|i| i as f64 / 12.0).collect();
    let poses = vec![
        times
            .iter()
            .map(|t| {
                Isometry3::from_parts(
                    arm.pose.translation,
                    UnitQuaternion::from_euler_angles(0.0, 0.0, 1.2 * (3.0 * t).sin()),
                )
            })
            .collect(),
        times
            .iter()
            .map(|t| {
                Isometry3::from_parts(
                    Translation3::new(1.3, -0.2 - 0.5 * t * t, 0.3),
                    UnitQuaternion::from_euler_angles(0.0, 4.0 * t, 0.0),
                )
            })
            .collect(),
        times
            .iter()
            .map(|_| Isometry3::translation(0.0, 2.0, 0.0))
            .collect(),
    ];
    (
        bodies,
        Motion {
            times,
            poses,
            ..Motion::default()
        },
    )
}

/// The velocities of [`swinging_bodies`]' motion, for CUBICSPLINE samplers.
fn swinging_rates(motion: &Motion) -> Vec<Vec<[Rate; 2]>> {
    let rates = |rate: &dyn Fn(f64) -> Rate| -> Vec<[Rate; 2]> {
        motion.times.iter().map(|&t| [rate(t); 2]).collect()
    };
    vec![
        rates(&|t| Rate {
            velocity: Vector3::zeros(),
            angular_velocity: Vector3::new(0.0, 0.0, 3.6 * (3.0 * t).cos()),
        }),
        rates(&|t| Rate {
            velocity: Vector3::new(0.0, -t, 0.0),
            angular_velocity: Vector3::new(0.0, 4.0, 0.0),
        }),
        rates(&|_| Rate::default()),
    ]
}

#[test]
fn gltf_and_glb_pass_the_khronos_validator() {
    let module = ensure_validator();
    let dir = output_dir("export-gltf");
    let (bodies, motion) = swinging_bodies();
    let asset = gltf::build(&library(), &bodies, &motion).unwrap();
    let cubic = Motion {
        rates: swinging_rates(&motion),
        ..motion.clone()
    };
    let cubic = gltf::build(&library(), &bodies, &cubic).unwrap();
    let still = gltf::build(&library(), &bodies, &Motion::default()).unwrap();
    for (name, asset) in [
        ("swing.gltf", &asset),
        ("swing.glb", &asset),
        ("swing-cubic.gltf", &cubic),
        ("swing-cubic.glb", &cubic),
        ("still.gltf", &still),
    ] {
        let path = dir.join(name);
        asset.write(&path).unwrap();
        let report = validate(&module, &path);
        let issues = &report["issues"];
        assert_eq!(issues["numErrors"], 0, "{name}: {issues:#}");
        assert_eq!(issues["numWarnings"], 0, "{name}: {issues:#}");
        let info = &report["info"];
        // One draw per part: cube, wedge, ball and the translucent cube, in four colours.
        assert_eq!(info["drawCallCount"], 4, "{name}: {info:#}");
        assert_eq!(info["materialCount"], 4, "{name}: {info:#}");
    }
    // Three body nodes with four part nodes; one mesh per (shape, colour).
    assert_eq!(asset.document["nodes"].as_array().unwrap().len(), 7);
    assert_eq!(asset.document["meshes"].as_array().unwrap().len(), 4);
    assert_eq!(
        asset.document["scenes"][0]["nodes"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    let document = &asset.document;
    let channels = document["animations"][0]["channels"].as_array().unwrap();
    assert_eq!(channels.len(), 6);
    assert!(document["animations"][0]["samplers"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["interpolation"] == "LINEAR"));
    assert!(cubic.document["animations"][0]["samplers"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["interpolation"] == "CUBICSPLINE"));
    assert!(still.document.get("animations").is_none());
}

#[test]
fn gltf_animation_holds_the_sampled_poses() {
    let (bodies, motion) = swinging_bodies();
    let asset = gltf::build(&library(), &bodies, &motion).unwrap();
    let document = &asset.document;
    let read_floats =
        |accessor: usize| -> Vec<f32> { accessor_floats(document, &asset.buffer, accessor) };
    let animation = &document["animations"][0];
    let channel = animation["channels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| {
            c["target"]["path"] == "translation"
                && document["nodes"][c["target"]["node"].as_u64().unwrap() as usize]["name"]
                    == "ball"
        })
        .unwrap();
    let sampler = &animation["samplers"][channel["sampler"].as_u64().unwrap() as usize];
    let times = read_floats(sampler["input"].as_u64().unwrap() as usize);
    let values = read_floats(sampler["output"].as_u64().unwrap() as usize);
    assert_eq!(times.len(), 25);
    for (k, pose) in motion.poses[1].iter().enumerate() {
        let expected = pose.translation.vector;
        for axis in 0..3 {
            assert!((f64::from(values[3 * k + axis]) - expected[axis]).abs() < 1e-6);
        }
        assert!((f64::from(times[k]) - motion.times[k]).abs() < 1e-6);
    }
}
