//! `asgard host [DOC]`: the reference compound-document host.

use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct HostArgs {
    /// The document to open; without it, the example memo (examples/memo.sgml).
    document: Option<PathBuf>,
    /// Serve the test-only state probe on the session bus (org.asgard.Asgard1.Host<PID>).
    #[arg(long, hide = true)]
    probe: bool,
}

pub fn run(args: HostArgs) -> ExitCode {
    asgard::host::run(args.document, args.probe)
}
