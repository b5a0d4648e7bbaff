//! `asgard check`: exit codes, diagnostics, `--describe` and `--json`.

use std::path::Path;
use std::process::{Command, Output};

fn check(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_asgard"))
        .arg("check")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("asgard runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn describes_the_pendulum() {
    let out = check(&["--describe", "examples/pendulum.asg"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with("3 shapes, 3 bodies, 2 forces and torques, 2 links, 0 trajectories\ntime: 0 s to 5 s, step 0.1 s"), "{stdout}");
    assert!(
        stdout.contains("  b1: shape rod, mass 10 kg, at (5, 0, 0), part of b\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("  force on b1: (0, -10 * [b1 mass], 0)\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("  b2 (-5, 0, 0) to b1 (5, 0, 0), tightness 5000\n"),
        "{stdout}"
    );
    assert_eq!(
        text(&out.stderr),
        "examples/pendulum.asg:33:11: warning: shape \"box\" is not used by any body\n"
    );
}

#[test]
fn errors_are_diagnostics_and_fail() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.asg");
    std::fs::write(
        &bad,
        "shape_set s desc {sphere 1}\nbody b shape s init_pos\n",
    )
    .unwrap();
    let bad = bad.to_str().unwrap();
    let out = check(&[bad, "examples/orbit.asg"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        format!("{bad}:2:16: error: option \"init_pos\" of body needs a value\n")
    );
    let missing = check(&["no/such/file.asg"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(text(&missing.stderr).starts_with("no/such/file.asg: error: cannot read the scene:"));
}

#[test]
fn json_lists_elements_with_spans_and_editability() {
    let out = check(&["--json", "examples/pendulum.asg", "examples/memo.sgml"]);
    // memo.sgml is a document, not a scene: it fails, the pendulum does not.
    assert_eq!(out.status.code(), Some(1));
    let reports: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let pendulum = &reports[0];
    assert_eq!(pendulum["file"], "examples/pendulum.asg");
    assert_eq!(pendulum["ok"], true);
    let elements = pendulum["elements"].as_array().unwrap();
    let kinds: Vec<&str> = elements
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "shape_set",
            "shape_set",
            "shape_set",
            "body",
            "body",
            "body",
            "force",
            "force",
            "link",
            "link",
            "simulator"
        ]
    );
    let b3 = &elements[5];
    assert_eq!(b3["name"], "b3");
    assert_eq!(b3["editable"], true);
    let init_pos = &b3["params"]["init_pos"];
    assert_eq!(init_pos["value"], serde_json::json!([10.0, -1.17, 0.0]));
    assert_eq!(init_pos["editable"], true);
    assert_eq!(init_pos["span"]["line"], 46);
    let source = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/pendulum.asg"),
    )
    .unwrap();
    let (start, end) = (
        init_pos["span"]["start"].as_u64().unwrap() as usize,
        init_pos["span"]["end"].as_u64().unwrap() as usize,
    );
    assert_eq!(&source[start..end], "10 -1.17 0");
    let force = &elements[6]["params"]["value"]["components"]["y"];
    assert_eq!(force["expression"], "-10 * [b1 mass]");
    assert_eq!(force["editable"], false);
    assert_eq!(reports[1]["ok"], false);
    assert!(reports[1]["error"]["message"]
        .as_str()
        .unwrap()
        .starts_with("invalid command name"));
}
