//! `asgard live`: a short real-time run with a scripted drag and a recording, a scene too
//! costly to keep pace that ends anyway and reports its slow-down, and how bad options are
//! reported. The runs take about a second of wall time at most; nothing is asserted about
//! speed, only about what the run reports.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn asgard(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_asgard"))
        .args(args)
        .output()
        .expect("the asgard binary runs")
}

fn scene_file(dir: &Path, text: &str) -> String {
    let path = dir.join("scene.asg");
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

/// A ball at rest in empty space and a fixed post.
const SCENE: &str = "simulator live_dt 0.02
shape_set ball desc {sub pos {0 0 0} sphere 0.5}
body b shape ball init_pos {0 0 0} mass 2
body post shape ball init_pos {5 0 0} fixed 1
";

fn vector(value: &Value) -> [f64; 3] {
    let v: Vec<f64> = value
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_f64().unwrap())
        .collect();
    [v[0], v[1], v[2]]
}

#[test]
fn a_scripted_drag_pulls_the_body_and_the_recording_becomes_a_trajectory() {
    let dir = tempfile::tempdir().unwrap();
    let file = scene_file(dir.path(), SCENE);
    let output = asgard(&[
        "live",
        &file,
        "--seconds",
        "0.4",
        "--no-divide",
        "--drag",
        "b:1,0,0@0..1",
        "--record",
        "b",
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["dt"], 0.02);
    assert_eq!(json["remainder_division"], false);
    let time = json["time"].as_f64().unwrap();
    assert!(time >= 0.4 - 1e-9, "{time}");
    assert!(json["updates"].as_u64().unwrap() >= 20);
    // Pulled by a spring of time constant 0.1 s for four of them: most of the way.
    let [x, y, z] = vector(&json["bodies"]["b"]["position"]);
    assert!(x > 0.8 && x < 1.0, "{x}");
    assert_eq!((y, z), (0.0, 0.0));
    assert_eq!(vector(&json["bodies"]["post"]["position"]), [5.0, 0.0, 0.0]);
    let trajectory = json["recorded"]["b"].as_str().unwrap();
    assert!(trajectory.starts_with("trajectory b_recorded points {{0 0 0 0} "));
    assert!(trajectory.ends_with("} body b var pos"));
}

#[test]
fn collisions_are_handled_and_counted() {
    // The ball (restitution 0.5) is pulled towards a point beyond the fixed post: it stops at
    // the post, its centre a metre from the post's, and the run reports the collisions.
    let dir = tempfile::tempdir().unwrap();
    let text = SCENE.replace("mass 2", "mass 2 restitution 0.5");
    let file = scene_file(dir.path(), &text);
    let output = asgard(&[
        "live",
        &file,
        "--seconds",
        "1",
        "--no-divide",
        "--drag",
        "b:8,0,0@0..1",
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(json["collisions"].as_u64().unwrap() >= 1, "{json}");
    let [x, _, _] = vector(&json["bodies"]["b"]["position"]);
    assert!(x < 4.0 + 1e-3, "the ball went through the post to x = {x}");
}

#[test]
fn bad_options_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let file = scene_file(dir.path(), SCENE);
    let stderr = |args: &[&str]| {
        let output = asgard(args);
        assert!(!output.status.success());
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let message = stderr(&["live", &file, "--seconds", "1", "--drag", "c:1,0,0@0..1"]);
    assert!(
        message.contains("--drag names no body of the scene: `c`"),
        "{message}"
    );
    let message = stderr(&["live", &file, "--seconds", "1", "--drag", "b:1,0@0..1"]);
    assert!(
        message.contains("the target needs 3 coordinates"),
        "{message}"
    );
    let message = stderr(&["live", &file, "--seconds", "1", "--drag", "post:1,0,0@0..1"]);
    assert!(message.contains("body post cannot be pulled"), "{message}");
    let message = stderr(&["live", &file, "--seconds", "1", "--dt", "0"]);
    assert!(
        message.contains("--dt must be a positive number"),
        "{message}"
    );
    let message = stderr(&["live", &file, "--seconds=-1"]);
    assert!(message.contains("--seconds must be"), "{message}");
}

/// 128 balls on a floor, stepped every 0.1 ms: a step costs far more processor time than the
/// real time it covers (about a hundred times on the machine this was written on).
const COSTLY: &str = "simulator live_dt 0.0001
shape_set ball desc {sphere 0.5}
shape_set slab desc {face {color grey {-20 0 -20} {20 0 -20} {20 0 20} {-20 0 20}} face {color grey {-20 -1 -20} {-20 -1 20} {20 -1 20} {20 -1 -20}}}
body floor shape slab fixed 1
for {set i 0} {$i < 8} {incr i} {
  for {set j 0} {$j < 8} {incr j} {
    for {set k 0} {$k < 2} {incr k} {
      body b$i-$j-$k shape ball init_pos [list [expr {$i * 1.01}] [expr {0.5 + $k * 1.01}] [expr {$j * 1.01}]]
      force body b$i-$j-$k gravity {0 -9.81 0}
    }
  }
}
";

/// A scene too costly to keep pace with real time still ends after its seconds of real time:
/// behind the simulated end, reporting that it slowed down and the ratio it achieved.
#[test]
fn a_scene_too_costly_for_real_time_slows_down_ends_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let file = scene_file(dir.path(), COSTLY);
    let output = asgard(&["live", &file, "--seconds", "1", "--no-divide"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["slowed"], true, "{json}");
    let ratio = json["real_time_ratio"].as_f64().unwrap();
    assert!(ratio > 0.0 && ratio < 1.0, "{ratio}");
    let time = json["time"].as_f64().unwrap();
    assert!(
        time < 1.0,
        "the run did not stop behind the simulated end: {time}"
    );
    assert!(json["updates"].as_u64().unwrap() >= 1);
    let said: f64 = stderr
        .split_once("note: live mode ran at ")
        .and_then(|(_, rest)| rest.split_once("× real time"))
        .and_then(|(number, _)| number.parse().ok())
        .unwrap_or_else(|| panic!("no slow-down note: {stderr}"));
    assert!((said - ratio).abs() <= 0.05 * ratio, "{said} for {ratio}");
}
