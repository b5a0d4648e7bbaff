//! The `asgard` command: one binary, one subcommand per job.

mod cli;

use clap::Parser;
use std::process::ExitCode;

// The command line; `cli::generate` makes the manual pages and completion from it. (Not a
// doc comment: clap would show one in --help.)
#[derive(Parser)]
#[command(
    name = "asgard",
    version,
    about = "Physically based 3D animation editor"
)]
struct Args {
    #[command(subcommand)]
    command: cli::Command,
}

fn main() -> ExitCode {
    asgard::sim::memory::keep_freed_memory();
    let args = Args::parse();
    cli::run(args.command)
}
