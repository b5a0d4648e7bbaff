//! Saving from the command line, checked on disk: `simulate -o`, `export -o` and
//! `doc replace` replace their file atomically (a run killed while writing leaves the old file,
//! and the next run removes the temporary it left), keep the mode of the file they replace
//! (a private document's backup is private too), and refuse a read-only file before doing any
//! work unless `--force` is given.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const ASGARD: &str = env!("CARGO_BIN_EXE_asgard");

fn asgard(args: &[&str]) -> Output {
    Command::new(ASGARD)
        .args(args)
        .output()
        .expect("the asgard binary runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

fn mode_of(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

fn set_mode(path: &Path, mode: u32) {
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// A ball falling for 5 s, sampled every millisecond: about a megabyte of JSON.
const FALLING: &str = "simulator finish 5 step 0.001
shape_set ball desc {sub pos {0 0 0} sphere 0.5}
body b shape ball init_pos {0 10 0} init_dpos {1 0 0} mass 2
force body b gravity {0 -9.81 0}
";

/// A scene whose simulation fails at t = 1.9: had it run, its error would be on stderr.
const FAILS: &str = "simulator finish 3 step 0.5
shape_set ball desc {sub pos {0 0 0} sphere 0.5}
body b shape ball
force body b x {1 / (2 - $t)} y 0 z 0
";

fn scene(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_simulation_killed_while_writing_leaves_the_old_output_and_the_next_run_cleans_up() {
    let dir = tempfile::tempdir().unwrap();
    let file = scene(dir.path(), "fall.asg", FALLING);
    let out = dir.path().join("motion.json");
    fs::write(&out, "old").unwrap();
    // A file size limit of 64 KiB kills the run (SIGXFSZ) in the middle of writing its output.
    let killed = unsafe {
        Command::new(ASGARD)
            .args(["simulate", s(&file), "-o", s(&out)])
            .pre_exec(|| {
                let limit = libc::rlimit {
                    rlim_cur: 64 * 1024,
                    rlim_max: 64 * 1024,
                };
                if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) == 0 {
                    Ok(())
                } else {
                    Err(std::io::Error::last_os_error())
                }
            })
            .output()
            .unwrap()
    };
    assert_eq!(killed.status.signal(), Some(libc::SIGXFSZ), "{killed:?}");
    assert_eq!(
        fs::read_to_string(&out).unwrap(),
        "old",
        "the old output stays"
    );
    let left: Vec<String> = names_in(dir.path())
        .into_iter()
        .filter(|n| n.starts_with(".motion.json.") && n.ends_with(".tmp"))
        .collect();
    assert_eq!(left.len(), 1, "the killed run's temporary: {left:?}");

    let output = asgard(&["simulate", s(&file), "-o", s(&out)]);
    assert!(output.status.success(), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_slice(&fs::read(&out).unwrap()).unwrap();
    assert_eq!(json["bodies"]["b"]["t"].as_array().unwrap().len(), 5001);
    assert_eq!(names_in(dir.path()), ["fall.asg", "motion.json"]);
}

#[test]
fn a_read_only_output_is_refused_before_the_simulation_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    let failing = scene(dir.path(), "fails.asg", FAILS);
    let out = dir.path().join("motion.csv");
    fs::write(&out, "old").unwrap();
    set_mode(&out, 0o444);
    let refused = asgard(&["simulate", s(&failing), "--format", "csv", "-o", s(&out)]);
    assert_eq!(refused.status.code(), Some(1));
    let message = stderr(&refused);
    assert!(
        message.contains(&format!(
            "{}: error: the file is read-only (mode 0444), so it was not replaced; --force replaces it",
            out.display()
        )),
        "{message}"
    );
    assert!(
        !message.contains("simulation failed"),
        "refused only after simulating: {message}"
    );
    assert_eq!(fs::read_to_string(&out).unwrap(), "old");
    assert_eq!(names_in(dir.path()), ["fails.asg", "motion.csv"]);

    let falling = scene(dir.path(), "fall.asg", FALLING);
    let forced = asgard(&[
        "simulate",
        s(&falling),
        "--format",
        "csv",
        "-o",
        s(&out),
        "--force",
    ]);
    assert!(forced.status.success(), "{}", stderr(&forced));
    assert!(fs::read_to_string(&out)
        .unwrap()
        .starts_with("body,t,x,y,z"));
    assert_eq!(mode_of(&out), 0o444, "it stays read-only");
    assert_eq!(
        names_in(dir.path()),
        ["fails.asg", "fall.asg", "motion.csv"]
    );
}

#[test]
fn an_output_keeps_the_mode_of_the_file_it_replaces() {
    let dir = tempfile::tempdir().unwrap();
    let file = scene(dir.path(), "fall.asg", FALLING);
    let out = dir.path().join("motion.json");
    fs::write(&out, "old").unwrap();
    set_mode(&out, 0o600);
    let output = asgard(&["simulate", s(&file), "-o", s(&out)]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(mode_of(&out), 0o600);
    assert_ne!(fs::read_to_string(&out).unwrap(), "old");
}

#[test]
fn export_refuses_a_read_only_file_unless_forced_and_keeps_modes() {
    let dir = tempfile::tempdir().unwrap();
    let file = scene(dir.path(), "fall.asg", FALLING);
    let out = dir.path().join("fall.ray");
    fs::write(&out, "old").unwrap();
    set_mode(&out, 0o444);
    let args = ["export", s(&file), "--format", "rayshade", "-o", s(&out)];
    let refused = asgard(&args);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        stderr(&refused).contains("read-only (mode 0444), so it was not replaced; --force"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(fs::read_to_string(&out).unwrap(), "old");

    let forced = asgard(&[&args[..], &["--force"]].concat());
    assert!(forced.status.success(), "{}", stderr(&forced));
    assert_ne!(fs::read_to_string(&out).unwrap(), "old");
    assert_eq!(mode_of(&out), 0o444);

    let gltf = dir.path().join("fall.gltf");
    fs::write(&gltf, "old").unwrap();
    set_mode(&gltf, 0o640);
    let exported = asgard(&["export", s(&file), "--format", "gltf", "-o", s(&gltf)]);
    assert!(exported.status.success(), "{}", stderr(&exported));
    assert_eq!(mode_of(&gltf), 0o640);
    assert!(fs::read_to_string(&gltf).unwrap().contains("\"asset\""));
    assert_eq!(names_in(dir.path()), ["fall.asg", "fall.gltf", "fall.ray"]);
}

/// A copy of the example memo, with `mode`, and a scene to put into it.
fn memo_with_mode(dir: &Path, mode: u32) -> (PathBuf, PathBuf, String) {
    let memo = dir.join("memo.sgml");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/memo.sgml");
    let original = fs::read_to_string(example).unwrap();
    fs::write(&memo, &original).unwrap();
    set_mode(&memo, mode);
    let new_scene = scene(dir, "new.asg", FALLING);
    (memo, new_scene, original)
}

#[test]
fn a_private_document_and_its_backup_stay_private() {
    let dir = tempfile::tempdir().unwrap();
    let (memo, new_scene, original) = memo_with_mode(dir.path(), 0o600);
    let output = asgard(&["doc", "replace", s(&memo), "0", s(&new_scene)]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(fs::read_to_string(&memo)
        .unwrap()
        .contains("simulator finish 5 step 0.001"));
    let backup = dir.path().join("memo.sgml~");
    assert_eq!(fs::read_to_string(&backup).unwrap(), original);
    assert_eq!(mode_of(&memo), 0o600);
    assert_eq!(mode_of(&backup), 0o600);
}

#[test]
fn doc_replace_refuses_a_read_only_document_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    let (memo, new_scene, original) = memo_with_mode(dir.path(), 0o444);
    let args = ["doc", "replace", s(&memo), "0", s(&new_scene)];
    let refused = asgard(&args);
    assert_eq!(refused.status.code(), Some(1));
    assert_eq!(
        stderr(&refused),
        format!(
            "asgard doc: {}: error: the file is read-only (mode 0444), so it was not replaced; \
             --force replaces it\n",
            memo.display()
        )
    );
    assert_eq!(fs::read_to_string(&memo).unwrap(), original);
    assert_eq!(names_in(dir.path()), ["memo.sgml", "new.asg"]);

    let forced = asgard(&[&args[..], &["--force"]].concat());
    assert!(forced.status.success(), "{}", stderr(&forced));
    assert!(fs::read_to_string(&memo)
        .unwrap()
        .contains("simulator finish 5 step 0.001"));
    assert_eq!(mode_of(&memo), 0o444, "it stays read-only");
    let backup = dir.path().join("memo.sgml~");
    assert_eq!(fs::read_to_string(&backup).unwrap(), original);
    assert_eq!(names_in(dir.path()), ["memo.sgml", "memo.sgml~", "new.asg"]);
}
