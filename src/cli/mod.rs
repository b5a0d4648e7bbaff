//! Subcommands of the `asgard` binary; each lives in its own file and returns the exit code.

mod doc;

use clap::Subcommand;
use std::process::ExitCode;

#[derive(Subcommand)]
pub enum Command {
    /// Compound documents: list, extract, replace and check animation subdocuments.
    #[command(subcommand)]
    Doc(doc::DocCommand),
}

pub fn run(command: Command) -> ExitCode {
    match command {
        Command::Doc(command) => doc::run(command),
    }
}
