//! `asgard eval FILE`: runs a plain scene-language script, `puts` going to standard output.

use asgard::lang::{Interp, Limits, Output};
use std::path::PathBuf;
use std::process::ExitCode;

/// Evaluates the script; errors go to stderr as `FILE:LINE:COL: error: MESSAGE`.
pub fn run(file: PathBuf) -> ExitCode {
    let shown = file.display().to_string();
    let text = match std::fs::read_to_string(&file) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("{shown}: error: cannot read the script: {e}");
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
