//! `asgard simulate`: the output formats, the options, and how errors are reported.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn asgard(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_asgard"))
        .args(args)
        .output()
        .expect("the asgard binary runs")
}

fn scene_file(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

const FALLING: &str = "simulator finish 2 step 0.5
shape_set ball desc {sub pos {0 0 0} sphere 0.5}
body b shape ball init_pos {0 10 0} init_dpos {1 0 0} mass 2
body floor shape ball init_pos {0 -1 0} fixed 1
force body b gravity {0 -9.81 0}
";

fn stdout_json(output: &Output) -> Value {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("JSON output")
}

#[test]
fn json_has_the_documented_shape_and_samples_every_step() {
    let dir = tempfile::tempdir().unwrap();
    let file = scene_file(dir.path(), "fall.asg", FALLING);
    let json = stdout_json(&asgard(&["simulate", &file]));
    let top: Vec<&str> = json
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(top.len(), 5);
    for key in ["start", "finish", "bodies", "collisions", "stats"] {
        assert!(top.contains(&key), "{top:?}");
    }
    assert_eq!(json["start"], 0.0);
    assert_eq!(json["finish"], 2.0);
    assert_eq!(json["collisions"], Value::Array(Vec::new()));
    for key in ["steps", "components", "wall_s"] {
        assert!(json["stats"][key].is_number(), "stats.{key}");
    }
    let b = &json["bodies"]["b"];
    assert_eq!(b["mass"], 2.0);
    let inertia = b["inertia"].as_array().unwrap();
    assert_eq!(inertia.len(), 3);
    // A solid sphere of mass 2 and radius 0.5: 2/5 m r² on the diagonal.
    assert!((inertia[1][1].as_f64().unwrap() - 0.2).abs() < 1e-12);
    let times: Vec<f64> = b["t"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(times, [0.0, 0.5, 1.0, 1.5, 2.0]);
    for (k, &t) in times.iter().enumerate() {
        let pos = &b["pos"][k];
        assert!((pos[0].as_f64().unwrap() - t).abs() < 1e-12);
        let y = 10.0 - 0.5 * 9.81 * t * t;
        assert!((pos[1].as_f64().unwrap() - y).abs() < 1e-2, "t {t}");
        assert_eq!(b["rot"][k].as_array().unwrap().len(), 4);
        assert!((b["vel"][k][1].as_f64().unwrap() + 9.81 * t).abs() < 1e-9);
        assert_eq!(b["angvel"][k][2], 0.0);
    }
    // A fixed body is reported at its place at every sample.
    let floor = &json["bodies"]["floor"];
    assert_eq!(floor["pos"].as_array().unwrap().len(), 5);
    assert_eq!(floor["pos"][4][1], -1.0);
}

#[test]
fn until_sample_and_csv_options() {
    let dir = tempfile::tempdir().unwrap();
    let file = scene_file(dir.path(), "fall.asg", FALLING);
    let out = dir.path().join("motion.csv");
    let output = asgard(&[
        "simulate",
        &file,
        "--until",
        "1",
        "--sample",
        "0.25",
        "--format",
        "csv",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.stdout.is_empty());
    let csv = std::fs::read_to_string(&out).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("body,t,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz")
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    // Two bodies, samples at 0, 0.25, 0.5, 0.75 and 1.
    assert_eq!(rows.len(), 10);
    assert!(rows.iter().all(|r| r.len() == 15));
    assert_eq!(rows[4][0], "b");
    assert_eq!(rows[4][1].parse::<f64>().unwrap(), 1.0);
    // x = t, to rounding (the explicit method's stage weights sum to 1 only to rounding).
    assert!((rows[4][2].parse::<f64>().unwrap() - 1.0).abs() < 1e-12);
    assert_eq!(rows[5][0], "floor");
}

#[test]
fn strategies_agree_and_stats_show_the_partition() {
    let dir = tempfile::tempdir().unwrap();
    let file = scene_file(dir.path(), "fall.asg", FALLING);
    let event = asgard(&["simulate", &file, "--stats"]);
    let stderr = String::from_utf8_lossy(&event.stderr);
    assert!(stderr.contains("partition: 10 components"), "{stderr}");
    assert!(stderr.contains("steps"), "{stderr}");
    assert!(
        stderr.contains("processor s by simulated interval"),
        "{stderr}"
    );
    let event = stdout_json(&event);
    assert_eq!(event["stats"]["components"], 10);
    // The processor time by simulated interval covers the scene's range in intervals of
    // 1, 2 or 5 times a power of ten, none negative.
    let cost = &event["stats"]["cost"];
    let width = cost["width"].as_f64().unwrap();
    let spent: Vec<f64> = cost["processor_s"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_f64().unwrap())
        .collect();
    let range = event["finish"].as_f64().unwrap() - event["start"].as_f64().unwrap();
    assert!((spent.len() as f64 * width - range).abs() < width, "{cost}");
    assert!(
        spent.len() <= 20 && spent.iter().all(|&s| s >= 0.0),
        "{cost}"
    );
    let sequential = stdout_json(&asgard(&["simulate", &file, "--no-event"]));
    assert_eq!(event["bodies"], sequential["bodies"]);
    let combined = stdout_json(&asgard(&["simulate", &file, "--combined"]));
    assert_eq!(combined["stats"]["components"], 1);
    let (a, b) = (
        &event["bodies"]["b"]["vel"][4][1],
        &combined["bodies"]["b"]["vel"][4][1],
    );
    assert!((a.as_f64().unwrap() - b.as_f64().unwrap()).abs() < 1e-9);
    let clash = asgard(&["simulate", &file, "--combined", "--no-event"]);
    assert!(!clash.status.success());
}

#[test]
fn scene_errors_are_located() {
    let dir = tempfile::tempdir().unwrap();
    let file = scene_file(
        dir.path(),
        "bad.asg",
        "shape_set ball desc {sub pos {0 0 0} sphere 1}\nbody b shape ball\nforce body b x {[b x] & 1} y 0 z 0\n",
    );
    let output = asgard(&["simulate", &file]);
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with(&format!("{file}:3:17: error: ")),
        "{stderr}"
    );
    let missing = asgard(&["simulate", &dir.path().join("none.asg").to_string_lossy()]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot read the scene"));
}

#[test]
fn a_failing_simulation_names_body_component_and_time_and_keeps_its_motion() {
    let dir = tempfile::tempdir().unwrap();
    let file = scene_file(
        dir.path(),
        "blowup.asg",
        "simulator finish 3 step 0.5
shape_set ball desc {sub pos {0 0 0} sphere 0.5}
body b shape ball
force body b x {1 / (2 - $t)} y 0 z 0
",
    );
    let output = asgard(&["simulate", &file]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("simulation failed at t = 1.9")
            && stderr.contains("for body b in component"),
        "{stderr}"
    );
    // The motion up to the failure is still written: samples at 0, 0.5, 1 and 1.5.
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    let times = json["bodies"]["b"]["t"].as_array().unwrap();
    assert_eq!(times.len(), 4, "{times:?}");
}

#[test]
fn the_bundled_pendulum_simulates_five_seconds() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/pendulum.asg");
    let json = stdout_json(&asgard(&["simulate", file]));
    let b1 = &json["bodies"]["b1"];
    assert_eq!(b1["t"].as_array().unwrap().len(), 51);
    let lowest = b1["pos"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p[1].as_f64().unwrap())
        .fold(f64::INFINITY, f64::min);
    assert!(lowest < -4.0, "b1 only fell to {lowest}");
}

const TWO_BALLS: &str = "simulator finish 3 step 0.5
shape_set ball desc {sphere 0.5}
body a shape ball mass 1 init_pos {-2 0 0} init_dpos {1 0 0}
body b shape ball mass 1 init_pos {2 0 0} init_dpos {-1 0 0}
body c shape ball mass 1 init_pos {0 20 0}
";

#[test]
fn collisions_are_reported_and_then_updates_incrementally() {
    let dir = tempfile::tempdir().unwrap();
    let old = scene_file(dir.path(), "old.asg", TWO_BALLS);
    let json = stdout_json(&asgard(&["simulate", &old]));
    let collisions = json["collisions"].as_array().unwrap();
    assert_eq!(collisions.len(), 1, "{collisions:?}");
    let c = &collisions[0];
    assert!((c["t"].as_f64().unwrap() - 1.5).abs() < 1e-6);
    assert_eq!(c["bodies"], serde_json::json!(["a", "b"]));
    assert_eq!(c["point"].as_array().unwrap().len(), 3);
    assert!((c["normal"][0].as_f64().unwrap() - 1.0).abs() < 1e-9);
    // Elastic, head on at 2 m/s closing, reduced mass 0.5: 2 N s.
    assert!((c["impulse"].as_f64().unwrap() - 2.0).abs() < 1e-6, "{c}");
    assert_eq!(c["resting"], false);
    assert!(json["stats"].get("incremental").is_none());

    // Move c: only its components are recomputed; the collision stands.
    let new = scene_file(
        dir.path(),
        "new.asg",
        &TWO_BALLS.replace("init_pos {0 20 0}", "init_pos {0 30 0}"),
    );
    let json = stdout_json(&asgard(&["simulate", &old, "--then", &new]));
    assert_eq!(json["collisions"].as_array().unwrap().len(), 1);
    assert_eq!(json["bodies"]["c"]["pos"][0][1], 30.0);
    let incremental = &json["stats"]["incremental"];
    let seconds = |key: &str| {
        let value = incremental[key].as_f64();
        assert!(value.is_some_and(|s| s >= 0.0), "{key}: {incremental}");
        value.unwrap_or_default()
    };
    for kind in ["wall", "cpu"] {
        let part = |stage: &str| seconds(&format!("{stage}_{kind}_s"));
        // From scratch is building the solver and the first run; the update's run includes
        // `Solver::update`.
        let sum = part("build") + part("first");
        assert!(
            (part("scratch") - sum).abs() <= 1e-12 * sum.max(1.0),
            "{incremental}"
        );
        assert!(part("solver_update") <= part("update"), "{incremental}");
    }
    let (scratch, update) = (seconds("scratch_cpu_s"), seconds("update_cpu_s"));
    // To rounding: serde_json reads a printed number back to within an ulp, not always to it.
    let speedup = incremental["speedup_cpu"].as_f64();
    match (update > 0.0).then(|| scratch / update) {
        Some(expected) => assert!(
            speedup.is_some_and(|s| (s - expected).abs() <= 1e-12 * expected),
            "{incremental}"
        ),
        None => assert_eq!(speedup, None, "{incremental}"),
    }
    let (reset, total) = (
        incremental["components_reset"].as_u64().unwrap(),
        incremental["components_total"].as_u64().unwrap(),
    );
    assert!(reset > 0 && reset < total, "{reset} of {total} reset");
}
