//! Subcommands of the `asgard` binary; each lives in its own file and returns the exit code.

use clap::Subcommand;
use std::process::ExitCode;

#[derive(Subcommand)]
pub enum Command {}

pub fn run(command: Command) -> ExitCode {
    match command {}
}
