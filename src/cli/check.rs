//! `asgard check FILE… [--json] [--describe]`: evaluates scene files and reports errors as
//! `FILE:LINE:COL: error: MESSAGE` (warnings likewise) on standard error; exits with 1 if any
//! file has an error. Bodies that start inside each other are an error at the later body, as
//! simulating refuses them.

use super::read::{read_text, report};
use asgard::scene::{self, Scene, SceneError};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct CheckArgs {
    /// Scene files to evaluate.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print every element with its parameters, spans and editability as JSON (an array with
    /// one report per file).
    #[arg(long)]
    json: bool,
    /// Print a readable summary of each scene: shapes, bodies, forces, links, trajectories,
    /// lights, camera and time range.
    #[arg(long)]
    describe: bool,
}

pub fn run(args: CheckArgs) -> ExitCode {
    let mut failed = false;
    let mut reports = Vec::new();
    let several = args.files.len() > 1;
    for file in &args.files {
        let shown = file.display().to_string();
        let text = match read_text(file, "scene") {
            Ok(text) => text,
            Err(why) => {
                eprintln!("{shown}: error: {why}");
                failed = true;
                reports.push(serde_json::json!({
                    "file": shown,
                    "ok": false,
                    "error": { "message": why, "span": null },
                }));
                continue;
            }
        };
        let result = scene::evaluate(&text).and_then(|scene| refuse_overlap(scene, &text));
        report(&shown, &result);
        failed |= result.is_err();
        if args.describe {
            if let Ok(scene) = &result {
                if several {
                    println!("== {shown}");
                }
                print!("{}", scene::describe(scene));
            }
        }
        if args.json {
            let mut report = match &result {
                Ok(scene) => scene::scene_json(scene, &text),
                Err(e) => scene::error_json(e, &text),
            };
            report["file"] = serde_json::Value::from(shown);
            reports.push(report);
        }
    }
    if args.json {
        let text = serde_json::to_string_pretty(&reports).unwrap_or_default();
        println!("{text}");
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// The scene, or the error of its first pair of bodies that start overlapping.
pub fn refuse_overlap(scene: Scene, text: &str) -> Result<Scene, SceneError> {
    match scene::starting_overlap(&scene) {
        Some(overlap) => Err(SceneError::new(
            overlap.message(&scene),
            overlap.span(&scene),
            text,
        )),
        None => Ok(scene),
    }
}
