//! `asgard eval FILE`: runs a plain scene-language script, `puts` going to standard output.

use super::read::read_text;
use asgard::lang::{Interp, Limits, Output};
use std::path::PathBuf;
use std::process::ExitCode;

/// Evaluates the script; errors go to stderr as `FILE:LINE:COL: error: MESSAGE`.
pub fn run(file: PathBuf) -> ExitCode {
    let shown = file.display().to_string();
    let text = match read_text(&file, "script") {
        Ok(text) => text,
        Err(why) => {
            eprintln!("{shown}: error: {why}");
            return ExitCode::FAILURE;
        }
    };
    let mut interp = Interp::new(Limits::default());
    interp.set_output(Output::Stdout);
    match interp.eval_source(&text) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{}", e.diagnostic(&shown, &text));
            ExitCode::FAILURE
        }
    }
}
