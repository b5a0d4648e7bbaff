//! The `asgard` command: one binary, one subcommand per job.

mod cli;

use clap::Parser;
use std::process::ExitCode;

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
    let args = Args::parse();
    cli::run(args.command)
}
