//! `asgard live FILE`: runs a scene in live mode, in real time and headless, for a number of
//! seconds, optionally pulling bodies along scripted drags, and prints the final states, the
//! number of collisions and the recorded trajectories as JSON.
//!
//! A drag `BODY:x,y,z@t0..t1` grabs BODY by its centre of mass at simulated time t0, pulls it
//! towards the point (x, y, z) and lets go at t1. Errors in the scene are reported as
//! `FILE:LINE:COL: error: …`; a live step that fails is reported and ends the run with
//! status 1 after printing the states reached.
//!
//! The run is paced as live mode on screen is ([`Pacing::LIVE`]): when a step costs more than
//! the real time it covers, the scene falls behind real time rather than the run taking ever
//! longer. It ends when the simulated time reaches start + S, or after S seconds of real time
//! and the lag a live scene may make up ([`MAX_LAG`]), whichever comes first; the JSON then
//! says how fast it ran (`real_time_ratio`, simulated per real seconds) and whether it fell
//! behind (`slowed`), and standard error says so too.

use super::read::{read_scene, ReadScene};
use asgard::live::scene::{LiveControls, LiveOptions, SceneAdvance};
use asgard::live::{Driver, Module, Pacing, Rate, Schedule, StopHandle, MAX_LAG};
use asgard::sim::physics::{BodyState, Pullable};
use clap::Args;
use nalgebra::Vector3;
use serde_json::{json, Map, Value};
use std::path::PathBuf;
use std::process::ExitCode;
use std::str::FromStr;
use std::time::{Duration, Instant};

#[derive(Args)]
pub struct LiveArgs {
    /// The scene text.
    file: PathBuf,
    /// How long to run, in seconds (real time, which is also simulated time while the scene
    /// keeps pace; a scene too costly to keep pace stops after S seconds of real time).
    #[arg(long, value_name = "S")]
    seconds: f64,
    /// The fixed timestep (default: the scene's `simulator live_dt`).
    #[arg(long, value_name = "DT")]
    dt: Option<f64>,
    /// Turn remainder-time division off: every step is exactly dt.
    #[arg(long)]
    no_divide: bool,
    /// Pull a body: BODY:x,y,z@t0..t1 (repeatable).
    #[arg(long, value_name = "BODY:x,y,z@t0..t1")]
    drag: Vec<Drag>,
    /// Record a body and print its motion as `trajectory` text (repeatable).
    #[arg(long, value_name = "BODY")]
    record: Vec<String>,
}

/// A scripted drag.
#[derive(Clone, Debug, PartialEq)]
struct Drag {
    body: String,
    target: Vector3<f64>,
    from: f64,
    until: f64,
}

impl FromStr for Drag {
    type Err = String;

    fn from_str(text: &str) -> Result<Drag, String> {
        let expected = || format!("expected BODY:x,y,z@t0..t1 with t0 <= t1, got `{text}`");
        let (body, rest) = text.split_once(':').ok_or_else(expected)?;
        let (point, times) = rest.split_once('@').ok_or_else(expected)?;
        let (from, until) = times.split_once("..").ok_or_else(expected)?;
        let number = |s: &str, what: &str| {
            s.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| format!("{what} `{s}` is not a number, in `{text}`"))
        };
        let coordinates = point
            .split(',')
            .map(|c| number(c, "coordinate"))
            .collect::<Result<Vec<f64>, String>>()?;
        let [x, y, z] = coordinates[..] else {
            return Err(format!("the target needs 3 coordinates x,y,z, in `{text}`"));
        };
        let drag = Drag {
            body: body.trim().to_string(),
            target: Vector3::new(x, y, z),
            from: number(from, "start time")?,
            until: number(until, "end time")?,
        };
        if drag.body.is_empty() || drag.from > drag.until {
            return Err(expected());
        }
        Ok(drag)
    }
}

pub fn run(args: LiveArgs) -> ExitCode {
    match live(&args) {
        Ok((output, failed)) => {
            println!("{output:#}");
            if failed {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

/// Runs the scene; returns the JSON to print and whether the run failed part way.
fn live(args: &LiveArgs) -> Result<(Value, bool), String> {
    let ReadScene {
        name: shown,
        text,
        scene,
    } = read_scene(&args.file)?;
    if !(args.seconds.is_finite() && args.seconds >= 0.0) {
        return Err(format!(
            "{shown}: error: --seconds must be a number of seconds, got {}",
            args.seconds
        ));
    }
    let dt = args.dt.unwrap_or(scene.simulator.live_dt);
    let dt = Duration::try_from_secs_f64(dt)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| format!("{shown}: error: --dt must be a positive number, got {dt}"))?;
    let index = |name: &str, option: &str| {
        scene
            .bodies
            .iter()
            .position(|b| b.name == name)
            .ok_or_else(|| format!("{shown}: error: {option} names no body of the scene: `{name}`"))
    };
    let mut drags = Vec::new();
    for drag in &args.drag {
        drags.push((index(&drag.body, "--drag")?, drag.clone()));
    }
    let record = args
        .record
        .iter()
        .map(|name| index(name, "--record"))
        .collect::<Result<Vec<usize>, String>>()?;
    let options = LiveOptions {
        pullable: Pullable::Only(drags.iter().map(|(b, _)| *b).collect()),
        record,
        ..LiveOptions::default()
    };
    let (advance, controls) =
        SceneAdvance::new(&scene, &options).map_err(|e| e.diagnostic(&shown, &text))?;
    if let Some((_, drag)) = drags
        .iter()
        .find(|(b, _)| !advance.model().inputs().can_pull(*b))
    {
        return Err(format!(
            "{shown}: error: --drag: body {} cannot be pulled: it is fixed",
            drag.body
        ));
    }
    let centers: Vec<Vector3<f64>> = advance.model().bodies().iter().map(|b| b.center).collect();

    let mut driver = Driver::new();
    driver
        .set_desired_dt(dt)
        .map_err(|e| format!("{shown}: error: {e}"))?;
    driver.set_remainder_division(!args.no_divide);
    driver.set_pacing(Pacing::LIVE);
    driver.add_module(advance, Schedule::FixedStep);
    let end = scene.simulator.start + args.seconds;
    driver.add_module(
        DragScript {
            controls: controls.clone(),
            drags: drags
                .into_iter()
                .map(|(body, drag)| (body, centers[body], drag, Phase::Waiting))
                .collect(),
            end,
            deadline: Instant::now()
                + Duration::try_from_secs_f64(args.seconds)
                    .unwrap_or(Duration::MAX)
                    .saturating_add(MAX_LAG),
            stop: driver.stop_handle(),
        },
        // After every scene step: the driver sleeps while no step is due.
        Schedule::FixedStep,
    );
    let started = Instant::now();
    let rate = driver.run().map_err(|e| format!("{shown}: error: {e}"))?;
    let real = started.elapsed().as_secs_f64();

    let error = controls.error();
    if let Some(message) = &error {
        eprintln!("{shown}: error: {message}");
    }
    let simulated = controls.time() - scene.simulator.start;
    let ratio = if real > 0.0 { simulated / real } else { 1.0 };
    if rate.slowed {
        let (shown_ratio, decimals) = Rate {
            ratio,
            slowed: true,
        }
        .rounded();
        eprintln!(
            "{shown}: note: live mode ran at {shown_ratio:.decimals$}× real time: a step costs \
             more than the real time it covers, so after {real:.2} s the scene had reached \
             t = {:.4} of {end}",
            controls.time()
        );
    }
    let mut bodies = Map::new();
    for (i, body) in scene.bodies.iter().enumerate() {
        if let Some(state) = controls.state(i) {
            bodies.insert(body.name.clone(), state_json(&state));
        }
    }
    let recording = controls.recording();
    let mut recorded = Map::new();
    for (body, name) in recording.bodies() {
        let value = match recording.to_trajectory(body) {
            Ok(text) => Value::String(text),
            Err(e) => json!({ "error": e.to_string() }),
        };
        recorded.insert(name.to_string(), value);
    }
    let output = json!({
        "time": controls.time(),
        "updates": controls.updates(),
        "collisions": controls.collision_count(),
        "real_seconds": real,
        "real_time_ratio": ratio,
        "slowed": rate.slowed,
        "dt": dt.as_secs_f64(),
        "remainder_division": !args.no_divide,
        "bodies": bodies,
        "recorded": recorded,
    });
    Ok((output, error.is_some()))
}

fn state_json(state: &BodyState) -> Value {
    let q = state.rotation.quaternion();
    json!({
        "position": state.position.as_slice(),
        "rotation": [q.w, q.i, q.j, q.k],
        "velocity": state.velocity.as_slice(),
        "angular_velocity": state.angular_velocity.as_slice(),
    })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Waiting,
    Pulling,
    Done,
}

/// Performs the drags when the scene's time comes, and stops the driver at the end time or,
/// for a scene that cannot keep pace with real time, at the real-time deadline; updated after
/// each scene step.
struct DragScript {
    controls: LiveControls,
    /// Body, its centre of mass in shape coordinates, the drag, and how far it has come.
    drags: Vec<(usize, Vector3<f64>, Drag, Phase)>,
    end: f64,
    deadline: Instant,
    stop: StopHandle,
}

impl Module for DragScript {
    fn name(&self) -> &str {
        "drags"
    }

    fn update(&mut self, _dt: f64) {
        let now = self.controls.time();
        for (body, center, drag, phase) in &mut self.drags {
            if *phase == Phase::Waiting && now >= drag.from {
                // The body was checked to be pullable and the numbers finite, so neither
                // request is refused.
                let grabbed = self.controls.grab(*body, *center);
                let moved = self.controls.move_target(drag.target);
                *phase = if grabbed.and(moved).is_ok() {
                    Phase::Pulling
                } else {
                    Phase::Done
                };
            }
            if *phase == Phase::Pulling && now >= drag.until {
                self.controls.release();
                *phase = Phase::Done;
            }
        }
        if now >= self.end || self.controls.error().is_some() || Instant::now() >= self.deadline {
            self.stop.request_stop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drags_parse_and_bad_ones_say_what_was_expected() {
        let drag: Drag = "b1:1,2.5,-3@0.5..2".parse().unwrap();
        assert_eq!(
            drag,
            Drag {
                body: "b1".into(),
                target: Vector3::new(1.0, 2.5, -3.0),
                from: 0.5,
                until: 2.0,
            }
        );
        let error = "b1:1,2@0..1".parse::<Drag>().unwrap_err();
        assert!(error.contains("3 coordinates"), "{error}");
        let error = "b1:1,2,x@0..1".parse::<Drag>().unwrap_err();
        assert!(error.contains("coordinate `x`"), "{error}");
        let error = "b1:1,2,3@2..1".parse::<Drag>().unwrap_err();
        assert!(error.starts_with("expected BODY:x,y,z@t0..t1"), "{error}");
        assert!("b1@0..1".parse::<Drag>().is_err());
    }
}
