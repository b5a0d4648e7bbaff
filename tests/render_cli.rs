//! `asgard render` and `asgard export` from the outside: pictures, movies, every example's
//! exports read back by reference readers (the Rayshade grammar checker, the Khronos glTF
//! validator, ghostscript), and errors located in the scene text. Files go under
//! target/tmp/render/cli-*/.

mod render_support;

use render_support::ghostscript::ghostscript;
use render_support::gltf_validator::{accessor_floats, ensure_validator, validate};
use render_support::golden::{
    differences, golden, intermediate_pixels, read_png, MAX_DIFFERING, REGENERATE,
};
use render_support::output_dir;
use render_support::rayshade_grammar::Checker;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn asgard(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_asgard"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the asgard binary runs")
}

/// Runs asgard and checks that it succeeded; returns its standard error.
fn succeed(args: &[&str]) -> String {
    let output = asgard(args);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "asgard {args:?} failed: {stderr}");
    stderr
}

/// Runs asgard and checks that it failed with status 1; returns its standard error.
fn fail(args: &[&str]) -> String {
    fail_with(1, args)
}

/// Runs asgard and checks that it exited with `status` (1 for errors in the scene or the
/// output, 2 for a command line the parser refuses); returns its standard error.
fn fail_with(status: i32, args: &[&str]) -> String {
    let output = asgard(args);
    assert_eq!(output.status.code(), Some(status), "asgard {args:?}");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn examples() -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "asg"))
            .collect();
    found.sort();
    assert!(found.len() >= 4, "too few examples: {found:?}");
    found
}

fn text(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn a_still_is_the_library_picture() {
    let dir = output_dir("cli-still");
    let png = dir.join("pendulum.png");
    succeed(&[
        "render",
        "examples/pendulum.asg",
        "--time",
        "1",
        "--size",
        "320x240",
        "-o",
        text(&png),
    ]);
    let (count, _) = differences(&read_png(&png), &read_png(&golden("pendulum-t1")));
    assert!(
        count as f64 / (320.0 * 240.0) <= MAX_DIFFERING,
        "{count} pixels differ"
    );
    let ppm = dir.join("pendulum.ppm");
    succeed(&[
        "render",
        "examples/pendulum.asg",
        "--time",
        "1",
        "--size",
        "32x24",
        "-o",
        text(&ppm),
    ]);
    let bytes = std::fs::read(&ppm).unwrap();
    assert!(bytes.starts_with(b"P6\n32 24\n255\n"));
    assert_eq!(bytes.len(), 13 + 32 * 24 * 3);
}

/// `asgard render` of the looks scene (tests/golden/looks.asg) with every look, compared with
/// its golden picture, and with each look turned off: the ground's grid lines, the shadows
/// and the smoothed edges each show in the picture and go with their option.
#[test]
fn a_still_has_the_ground_grid_shadows_and_smooth_edges_unless_turned_off() {
    let dir = output_dir("cli-looks");
    let render = |name: &str, options: &[&str]| {
        let png = dir.join(format!("{name}.png"));
        let args = [
            &["render", "tests/golden/looks.asg", "--size", "320x240"],
            options,
            &["-o", text(&png)],
        ]
        .concat();
        succeed(&args);
        read_png(&png)
    };
    let all = render("all", &[]);
    let golden_path = golden("render-looks");
    if std::env::var_os(REGENERATE).is_some() {
        std::fs::copy(dir.join("all.png"), &golden_path).unwrap();
    }
    let (count, _) = differences(&all, &read_png(&golden_path));
    assert!(
        count as f64 / (320.0 * 240.0) <= MAX_DIFFERING,
        "{count} pixels differ from {}",
        golden_path.display()
    );
    // Pixels at least `by` darker in `a` than in `b` (summed over the channels).
    let darker =
        |a: &asgard::render::image::RgbaImage, b: &asgard::render::image::RgbaImage, by: i32| {
            a.pixels
                .chunks_exact(4)
                .zip(b.pixels.chunks_exact(4))
                .filter(|(p, q)| {
                    let sum = |x: &[u8]| x[..3].iter().map(|&c| i32::from(c)).sum::<i32>();
                    sum(p) + by <= sum(q)
                })
                .count()
        };
    let no_shadows = render("no-shadows", &["--no-shadows"]);
    assert!(
        darker(&all, &no_shadows, 60) > 800,
        "no shadows to take away"
    );
    let no_grid = render("no-grid", &["--no-grid"]);
    assert!(
        darker(&all, &no_grid, 45) > 400,
        "no grid lines to take away"
    );
    let no_ground = render("no-ground", &["--no-ground"]);
    // The ground, a little darker than the background, covers much of the lower half.
    assert!(
        darker(&all, &no_ground, 20) > 15_000,
        "no ground to take away"
    );
    let edges = |image| {
        (0..240)
            .map(|y| intermediate_pixels(image, y))
            .sum::<usize>()
    };
    let hard = render("no-antialias", &["--no-msaa"]);
    assert!(edges(&all) >= 40, "{} smoothed edge pixels", edges(&all));
    assert!(
        edges(&hard) * 4 < edges(&all),
        "{} intermediate pixels without anti-aliasing, {} with",
        edges(&hard),
        edges(&all)
    );
}

#[test]
fn movies_have_one_frame_per_step_of_the_range() {
    let dir = output_dir("cli-movie");
    let folder = dir.join("frames");
    succeed(&[
        "render",
        "examples/pendulum.asg",
        "--movie",
        "--fps",
        "10",
        "--from",
        "0.5",
        "--to",
        "1.5",
        "--size",
        "160x120",
        "-o",
        text(&folder),
    ]);
    let mut frames: Vec<String> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    frames.sort();
    assert_eq!(frames.len(), 11);
    assert_eq!(frames[0], "frame-00000.png");
    // A movie holds still: without a camera element the view is fitted once, so the fixed
    // pivot of the pendulum stays on the same pixel and the frames differ only where it moves.
    let (first, last) = (
        read_png(&folder.join(&frames[0])),
        read_png(&folder.join(&frames[10])),
    );
    assert!(differences(&first, &last).0 > 0);
    let gif = dir.join("pendulum.gif");
    succeed(&[
        "render",
        "examples/pendulum.asg",
        "--movie",
        "--fps",
        "4",
        "--size",
        "160x120",
        "-o",
        text(&gif),
    ]);
    let mut decoder = gif::DecodeOptions::new()
        .read_info(std::fs::File::open(&gif).unwrap())
        .unwrap();
    let mut count = 0;
    while decoder.read_next_frame().unwrap().is_some() {
        count += 1;
    }
    // 0 to 5 s at 4 frames per second.
    assert_eq!(count, 21);
}

#[test]
fn the_camera_option_changes_the_view() {
    let dir = output_dir("cli-camera");
    let plain = dir.join("plain.png");
    let turned = dir.join("turned.png");
    let args = [
        "render",
        "examples/double_pendulum.asg",
        "--time",
        "1",
        "--size",
        "160x120",
    ];
    succeed(&[&args[..], &["-o", text(&plain)]].concat());
    succeed(
        &[
            &args[..],
            &["--camera", "rot 0 0.6 0 scale 0.5", "-o", text(&turned)],
        ]
        .concat(),
    );
    assert!(differences(&read_png(&plain), &read_png(&turned)).0 > 500);
    let error = fail_with(
        2,
        &[&args[..], &["--camera", "tilt 2", "-o", text(&turned)]].concat(),
    );
    assert!(error.contains("unknown value \"tilt\""), "{error}");
}

#[test]
fn errors_are_located_and_exit_with_status_1() {
    let dir = output_dir("cli-errors");
    let broken = dir.join("broken.asg");
    std::fs::write(
        &broken,
        "shape_set ball desc {sphere 1}\nbody b shape ball init_pos {1 2}\n",
    )
    .unwrap();
    let out = dir.join("x.png");
    let error = fail(&["render", text(&broken), "-o", text(&out)]);
    let located = format!("{}:2:", broken.display());
    assert!(
        error.starts_with(&located) && error.contains(": error: "),
        "{error}"
    );
    let error = fail(&[
        "export",
        text(&broken),
        "--format",
        "glb",
        "-o",
        text(&dir.join("x.glb")),
    ]);
    assert!(error.starts_with(&located), "{error}");
    let error = fail(&[
        "render",
        "examples/pendulum.asg",
        "--time",
        "9",
        "-o",
        text(&out),
    ]);
    assert!(
        error.contains("--time 9 is outside the simulated time range 0 to 5"),
        "{error}"
    );
    let error = fail(&[
        "render",
        "examples/pendulum.asg",
        "-o",
        text(&dir.join("x.jpg")),
    ]);
    assert!(error.contains(".png or .ppm"), "{error}");
    let error = fail(&[
        "render",
        "examples/pendulum.asg",
        "--movie",
        "-o",
        text(&dir.join("x.avi")),
    ]);
    assert!(error.contains("unknown movie format"), "{error}");
    let error = fail(&[
        "export",
        "examples/pendulum.asg",
        "--format",
        "gltf",
        "--time",
        "1",
        "-o",
        text(&dir.join("x.gltf")),
    ]);
    assert!(error.contains("--time does not apply to glTF"), "{error}");
    let missing = dir.join("no/such/folder/x.png");
    let error = fail(&["render", "examples/pendulum.asg", "-o", text(&missing)]);
    assert!(error.contains("does not exist"), "{error}");
    assert!(!missing.exists());
}

#[test]
fn every_example_exports_a_rayshade_file_that_follows_the_grammar() {
    let dir = output_dir("cli-rayshade");
    for example in examples() {
        let name = example.file_stem().unwrap().to_string_lossy().into_owned();
        let out = dir.join(format!("{name}.ray"));
        succeed(&[
            "export",
            text(&example),
            "--format",
            "rayshade",
            "-o",
            text(&out),
        ]);
        let file = std::fs::read_to_string(&out).unwrap();
        let mut checker = Checker::new(&file);
        checker.file().unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            checker.counts.get("sphere").copied().unwrap_or(0)
                + checker.counts.get("list").copied().unwrap_or(0)
                > 0,
            "{name}: no objects"
        );
    }
}

#[test]
fn every_example_exports_gltf_that_passes_the_khronos_validator() {
    let module = ensure_validator();
    let dir = output_dir("cli-gltf");
    for example in examples() {
        let name = example.file_stem().unwrap().to_string_lossy().into_owned();
        for format in ["glb", "gltf"] {
            let out = dir.join(format!("{name}.{format}"));
            succeed(&[
                "export",
                text(&example),
                "--format",
                format,
                "-o",
                text(&out),
            ]);
            let report = validate(&module, &out);
            let issues = &report["issues"];
            assert_eq!(issues["numErrors"], 0, "{name}.{format}: {issues:#}");
            assert_eq!(issues["numWarnings"], 0, "{name}.{format}: {issues:#}");
            let info = &report["info"];
            assert_eq!(info["animationCount"], 1, "{name}.{format}: {info:#}");
        }
    }
}

#[test]
fn the_gltf_animation_replays_the_simulated_motion() {
    let dir = output_dir("cli-gltf-motion");
    let out = dir.join("projectile.gltf");
    succeed(&[
        "export",
        "examples/projectile.asg",
        "--format",
        "gltf",
        "-o",
        text(&out),
    ]);
    let document: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let animation = &document["animations"][0];
    assert!(animation["samplers"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["interpolation"] == "CUBICSPLINE"));
    // Two bodies (ground and ball), each with a translation and a rotation channel.
    assert_eq!(animation["channels"].as_array().unwrap().len(), 4);
    let input =
        &document["accessors"][animation["samplers"][0]["input"].as_u64().unwrap() as usize];
    assert_eq!(input["min"][0], 0.0);
    assert!(
        (input["max"][0].as_f64().unwrap() - 2.5).abs() < 1e-6,
        "{input}"
    );
    // Many more samples than the output step: every track point of the simulation.
    assert!(input["count"].as_u64().unwrap() > 20, "{input}");
}

#[test]
fn the_gltf_cubic_splines_follow_the_flight_between_samples() {
    // examples/projectile.asg: the ball flies on a parabola until it lands at about 1.44 s.
    // Read between the samples as glTF's cubic spline reads it, the parabola is exact (to
    // 32-bit rounding); straight lines between the same samples miss it by g h² / 8.
    let dir = output_dir("cli-gltf-spline");
    let out = dir.join("projectile.glb");
    succeed(&[
        "export",
        "examples/projectile.asg",
        "--format",
        "glb",
        "-o",
        text(&out),
    ]);
    let glb = std::fs::read(&out).unwrap();
    let word = |at: usize| u32::from_le_bytes(glb[at..at + 4].try_into().unwrap()) as usize;
    let json_length = word(12);
    let document: serde_json::Value = serde_json::from_slice(&glb[20..20 + json_length]).unwrap();
    let bin = &glb[20 + json_length + 8..];
    let floats = |accessor: &serde_json::Value| -> Vec<f64> {
        let accessor = accessor.as_u64().unwrap() as usize;
        accessor_floats(&document, bin, accessor)
            .into_iter()
            .map(f64::from)
            .collect()
    };
    let animation = &document["animations"][0];
    let ball = document["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .position(|n| n["name"] == "ball")
        .unwrap();
    let channel = animation["channels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["target"]["node"] == ball && c["target"]["path"] == "translation")
        .unwrap();
    let sampler = &animation["samplers"][channel["sampler"].as_u64().unwrap() as usize];
    assert_eq!(sampler["interpolation"], "CUBICSPLINE");
    let times = floats(&sampler["input"]);
    let keys = floats(&sampler["output"]);
    assert_eq!(keys.len(), 9 * times.len());
    let (speed, g) = (10.0 * std::f64::consts::FRAC_1_SQRT_2, 9.81);
    let height = |t: f64| 0.25 + speed * t - 0.5 * g * t * t;
    let (mut spline_error, mut line_error): (f64, f64) = (0.0, 0.0);
    for k in 0..times.len() - 1 {
        let (t0, t1) = (times[k], times[k + 1]);
        if t1 > 1.4 {
            break;
        }
        // Key k: in-tangent, value, out-tangent, three floats each; y is the second.
        let (y0, out0) = (keys[9 * k + 4], keys[9 * k + 7]);
        let (in1, y1) = (keys[9 * (k + 1) + 1], keys[9 * (k + 1) + 4]);
        let h = t1 - t0;
        let spline = 0.5 * (y0 + y1) + h / 8.0 * (out0 - in1);
        let truth = height(0.5 * (t0 + t1));
        spline_error = spline_error.max((spline - truth).abs());
        line_error = line_error.max((0.5 * (y0 + y1) - truth).abs());
    }
    assert!(spline_error < 1e-5, "{spline_error}");
    assert!(
        line_error > 10.0 * spline_error,
        "{line_error} {spline_error}"
    );
}

#[test]
fn postscript_of_an_example_renders_through_ghostscript() {
    let dir = output_dir("cli-postscript");
    let eps = dir.join("double_pendulum.eps");
    succeed(&[
        "export",
        "examples/double_pendulum.asg",
        "--format",
        "ps",
        "--time",
        "1",
        "--size",
        "320x240",
        "-o",
        text(&eps),
    ]);
    let (width, height, pixels) = ghostscript(&eps, &dir.join("double_pendulum.png"));
    assert_eq!((width, height), (320, 240));
    // The light background with the blue rods drawn on it (shaded by the light from above)
    // over the grid.
    let bluish = pixels
        .chunks_exact(3)
        .filter(|p| p[2] > 90 && u16::from(p[2]) > u16::from(p[0]) + 30)
        .count();
    assert!(bluish > 500, "only {bluish} blue pixels");
    let ppm = dir.join("double_pendulum.ppm");
    succeed(&[
        "export",
        "examples/double_pendulum.asg",
        "--format",
        "ppm",
        "--size",
        "64x48",
        "-o",
        text(&ppm),
    ]);
    assert!(std::fs::read(&ppm)
        .unwrap()
        .starts_with(b"P6\n64 48\n255\n"));
}
