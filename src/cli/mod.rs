//! Subcommands of the `asgard` binary; each lives in its own file and returns the exit code.

mod doc;
mod host;

use clap::Subcommand;
use std::process::ExitCode;

#[derive(Subcommand)]
pub enum Command {
    /// Compound documents: list, extract, replace and check animation subdocuments.
    #[command(subcommand)]
    Doc(doc::DocCommand),
    /// Open a compound document with its animations embedded, to read and edit it.
    Host(host::HostArgs),
}

pub fn run(command: Command) -> ExitCode {
    match command {
        Command::Doc(command) => doc::run(command),
        Command::Host(args) => host::run(args),
    }
}
