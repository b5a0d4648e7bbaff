//! Subcommands of the `asgard` binary; each lives in its own file and returns the exit code.

mod eval;

use clap::Subcommand;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Subcommand)]
pub enum Command {
    /// Run a scene-language script, printing `puts` output; errors as FILE:LINE:COL: error: MSG.
    Eval { file: PathBuf },
}

pub fn run(command: Command) -> ExitCode {
    match command {
        Command::Eval { file } => eval::run(file),
    }
}
