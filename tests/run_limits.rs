//! Runs and output that used to grow without end (issue 22), each reproducer as a child
//! `asgard` process: it must stop with its limit's error, naming the limit and how to raise
//! it, before the work starts where the work can be counted, and with its peak resident memory
//! measured within the limit.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};

/// What a child `asgard` did: its exit status, standard error, and peak resident memory.
struct Ran {
    code: i32,
    stderr: String,
    peak: u64,
}

/// Runs `asgard ARGS` with standard output discarded; reaped by `wait4` for its resource
/// usage, which clippy cannot see (std's `wait` would not return it).
#[allow(clippy::zombie_processes)]
fn asgard(args: &[&str]) -> Ran {
    let mut child = Command::new(env!("CARGO_BIN_EXE_asgard"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("asgard runs");
    let mut stderr = String::new();
    child
        .stderr
        .as_mut()
        .expect("piped")
        .read_to_string(&mut stderr)
        .expect("stderr is read");
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: the child is ours and not yet reaped; the pointers are to live locals.
    let reaped = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(reaped, child.id() as i32, "wait4 reaps the child");
    assert!(
        libc::WIFEXITED(status),
        "asgard exits, not killed: {status}"
    );
    Ran {
        code: libc::WEXITSTATUS(status),
        stderr,
        // ru_maxrss is in kilobytes on Linux.
        peak: usage.ru_maxrss as u64 * 1024,
    }
}

fn scene_file(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

const BALL: &str = "shape_set ball desc {sphere 0.5}
body b shape ball init_pos {0 10 0} init_dpos {1 0 0}
force body b gravity {0 -9.81 0}
";

/// The program's own memory (code, libraries, allocator slack) on top of what a limit allows.
const MARGIN: u64 = 96 << 20;

#[test]
fn a_tiny_sample_step_is_refused_before_simulating() {
    let dir = tempfile::tempdir().unwrap();
    let file = scene_file(
        dir.path(),
        "ball.asg",
        &format!("simulator finish 5\n{BALL}"),
    );
    let ran = asgard(&["simulate", &file, "--sample", "1e-12"]);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert_eq!(
        ran.stderr.trim_end(),
        format!(
            "{file}: error: --sample 0.000000000001 from 0 to 5 makes 5000000000001 samples per \
             body, more than the limit of 1000000 samples; a larger --sample or an earlier \
             --until keeps within it, and --max-samples N raises the limit"
        )
    );
    assert!(ran.peak < MARGIN, "peak {} MiB", ran.peak >> 20);
    // At the limit it is allowed: 5 s in steps of 5e-6 s is 1,000,001 samples.
    let ran = asgard(&[
        "simulate",
        &file,
        "--sample",
        "5e-6",
        "--max-samples",
        "999999",
    ]);
    assert_eq!(ran.code, 1);
    assert!(
        ran.stderr.contains("makes 1000001 samples"),
        "{}",
        ran.stderr
    );
}

#[test]
fn output_is_written_as_it_is_sampled_so_memory_stays_flat() {
    let dir = tempfile::tempdir().unwrap();
    let file = scene_file(
        dir.path(),
        "ball.asg",
        &format!("simulator finish 2\n{BALL}"),
    );
    let few = asgard(&["simulate", &file, "--sample", "0.1"]);
    assert_eq!(few.code, 0, "{}", few.stderr);
    // A million samples: held in memory they were 104 MB of states and 8 MB of times.
    let many = asgard(&[
        "simulate",
        &file,
        "--sample",
        "2e-6",
        "--max-samples",
        "1000001",
    ]);
    assert_eq!(many.code, 0, "{}", many.stderr);
    eprintln!(
        "peak with 21 samples {} MiB, with 1,000,001 {} MiB",
        few.peak >> 20,
        many.peak >> 20
    );
    assert!(
        many.peak < few.peak + (16 << 20),
        "{} MiB against {} MiB",
        many.peak >> 20,
        few.peak >> 20
    );
    let csv = asgard(&[
        "simulate",
        &file,
        "--format",
        "csv",
        "--sample",
        "2e-6",
        "--max-samples",
        "1000001",
    ]);
    assert_eq!(csv.code, 0, "{}", csv.stderr);
    assert!(csv.peak < few.peak + (16 << 20), "{} MiB", csv.peak >> 20);
}

#[test]
fn a_scene_spanning_too_many_output_steps_is_refused_at_its_simulator_command() {
    let dir = tempfile::tempdir().unwrap();
    for (simulator, steps) in [
        ("simulator finish 1e9", "10000000000"),
        ("simulator step 1e-12", "10000000000000"),
    ] {
        let file = scene_file(dir.path(), "long.asg", &format!("{BALL}{simulator}\n"));
        for command in ["simulate", "render", "export"] {
            let mut args = vec![command, &file];
            let out = dir.path().join("out.ppm");
            let out = out.to_str().unwrap();
            match command {
                "render" => args.extend(["--time", "0", "-o", out]),
                "export" => args.extend(["--format", "ppm", "--time", "0", "-o", out]),
                _ => {}
            }
            let ran = asgard(&args);
            assert_eq!(ran.code, 1, "{command}: {}", ran.stderr);
            let expected = format!(
                "{file}:4:1: error: simulator: {} from start 0 make {steps} output steps, more \
                 than the limit of 1000000 output steps; a larger step or an earlier finish \
                 keeps within it (on the command line, --max-output-steps N raises the limit)",
                if simulator.contains("finish") {
                    "finish 1000000000 and step 0.1"
                } else {
                    "finish 10 and step 0.000000000001"
                }
            );
            assert!(
                ran.stderr.contains(&expected),
                "{command}: {}\nexpected {expected}",
                ran.stderr
            );
            assert!(ran.peak < MARGIN, "{command}: peak {} MiB", ran.peak >> 20);
        }
    }
    // The option raises the limit, and lowering it refuses a scene that fits the default.
    let file = scene_file(
        dir.path(),
        "short.asg",
        &format!("{BALL}simulator finish 2 step 0.5\n"),
    );
    let ran = asgard(&["simulate", &file, "--max-output-steps", "3"]);
    assert_eq!(ran.code, 1);
    assert!(
        ran.stderr
            .contains("make 4 output steps, more than the limit of 3"),
        "{}",
        ran.stderr
    );
    let ran = asgard(&["simulate", &file, "--max-output-steps", "4"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
}

/// Thirty tumbling boxes without collisions at a tight tolerance: thousands of steps a
/// second of simulated time, each adding to every box's track.
fn tumbling(boxes: usize) -> String {
    let mut text = String::from(
        "simulator finish 10000 step 0.1 tolerance 1e-12 collisions 0\n\
         shape_set brick desc {box {0.3 0.2 0.1}}\n",
    );
    for i in 0..boxes {
        text.push_str(&format!(
            "body b{i} shape brick init_pos {{{i} 0 0}} init_drot {{0.1 {i}.5 0.05}}\n"
        ));
    }
    text
}

#[test]
fn a_run_that_outgrows_the_memory_limit_stops_with_its_motion_so_far() {
    let dir = tempfile::tempdir().unwrap();
    let file = scene_file(dir.path(), "tumbling.asg", &tumbling(30));
    const LIMIT: u64 = 64 << 20;
    let ran = asgard(&["simulate", &file, "--max-memory", &LIMIT.to_string()]);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert!(
        ran.stderr.contains(&format!(
            "{file}: error: simulation failed at t = "
        )) && ran.stderr.contains(
            "the simulation holds 6"
        ) && ran.stderr.contains(
            "MiB more than when it started, over the memory limit of 64 MiB, before the finish \
             (10000); the motion up to then is kept"
        ),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains("--max-memory BYTES raises the limit"),
        "{}",
        ran.stderr
    );
    eprintln!("peak {} MiB", ran.peak >> 20);
    assert!(
        ran.peak < LIMIT + MARGIN,
        "peak {} MiB, over the {} MiB limit plus {} MiB",
        ran.peak >> 20,
        LIMIT >> 20,
        MARGIN >> 20
    );
}

#[test]
fn progress_is_reported_in_lines_when_standard_error_is_not_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let file = scene_file(
        dir.path(),
        "tumbling.asg",
        &tumbling(2).replace("finish 10000", "finish 20"),
    );
    let ran = asgard(&["simulate", &file, "--progress"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let percents: Vec<u32> = ran
        .stderr
        .lines()
        .map(|line| {
            let rest = line
                .strip_prefix(&format!("{file}: progress: t = "))
                .unwrap_or_else(|| panic!("not a progress line: {line}"));
            let open = rest.find(" (").unwrap() + 2;
            let close = rest.find("%)").unwrap();
            assert!(rest[close..].contains(" steps, "), "{line}");
            rest[open..close].parse().unwrap()
        })
        .collect();
    assert!(percents.len() >= 10, "{percents:?}");
    assert!(percents.windows(2).all(|w| w[0] < w[1]), "{percents:?}");
    assert_eq!(percents.last(), Some(&100));
}

#[test]
fn bodies_that_start_overlapping_are_refused_at_the_later_body() {
    let dir = tempfile::tempdir().unwrap();
    let text = "shape_set ball desc {sphere 0.5}
body a shape ball init_pos {0 0 0}
  body b shape ball init_pos {0.75 0 0}
";
    let file = scene_file(dir.path(), "sunk.asg", text);
    let expected = format!(
        "{file}:3:3: error: body b overlaps body a by 2.500e-1 at the start (t = 0): bodies \
         must start apart or touching; move one, turn collisions off (simulator collisions 0), \
         or make both directly linked parts of one articulated body"
    );
    for command in ["simulate", "check"] {
        let ran = asgard(&[command, &file]);
        assert_eq!(ran.code, 1, "{command}: {}", ran.stderr);
        assert_eq!(ran.stderr.trim_end(), expected, "{command}");
    }
    // Touching is not overlapping, and apart the scene simulates.
    let touching = scene_file(dir.path(), "touching.asg", &text.replace("0.75", "1"));
    assert_eq!(asgard(&["check", &touching]).code, 0);
    let apart = scene_file(dir.path(), "apart.asg", &text.replace("0.75", "1.5"));
    let ran = asgard(&["simulate", &apart]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
}
