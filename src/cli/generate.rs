//! `asgard generate` (hidden): manual pages and shell completion made from the command line's
//! own definition, for `scripts/install`.
//!
//! They are generated at install time rather than kept in the source tree, so they cannot
//! drift from the options the binary really has: `clap_mangen` writes one page per command
//! (`asgard.1`, `asgard-export.1`, `asgard-doc-check.1`, …; hidden commands have none) and
//! `clap_complete` the completion script of each shell.

use clap::{CommandFactory, Subcommand};
use clap_complete::Shell;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Subcommand, Debug)]
pub enum GenerateArgs {
    /// Write a section-1 manual page for `asgard` and for each of its commands into DIR
    /// (which must exist).
    Man { dir: PathBuf },
    /// Print the completion script for SHELL on standard output.
    Completion {
        #[arg(value_enum)]
        shell: Shell,
    },
}

pub fn run(args: GenerateArgs) -> ExitCode {
    let result = match args {
        GenerateArgs::Man { dir } => manuals(&dir),
        GenerateArgs::Completion { shell } => completion(shell),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("asgard generate: error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn manuals(dir: &Path) -> Result<(), String> {
    if !dir.is_dir() {
        return Err(format!("{}: not a folder", dir.display()));
    }
    clap_mangen::generate_to(crate::Args::command(), dir)
        .map_err(|e| format!("{}: cannot write the manual pages: {e}", dir.display()))
}

fn completion(shell: Shell) -> Result<(), String> {
    let mut command = crate::Args::command();
    let mut out = std::io::stdout().lock();
    clap_complete::generate(shell, &mut command, "asgard", &mut out);
    out.flush().map_err(|e| format!("standard output: {e}"))
}
