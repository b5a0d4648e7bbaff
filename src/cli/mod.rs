//! Subcommands of the `asgard` binary; each lives in its own file and returns the exit code.

mod check;
mod cost;
mod doc;
mod edit;
mod eval;
mod export;
mod export_html;
mod generate;
mod host;
mod limits;
mod live;
mod read;
mod render;
mod scene_file;
mod simulate;
mod slave;

use asgard::save::ReadOnlyFile;
use clap::Subcommand;
use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Subcommand)]
pub enum Command {
    /// Evaluate scene files: errors as FILE:LINE:COL: error: MSG, a summary or JSON on request.
    Check(check::CheckArgs),
    /// Compound documents: list, extract, replace and check animation subdocuments.
    Doc(doc::DocArgs),
    /// Edit a scene in the graphical and language viewers (a new scene without FILE).
    Edit(edit::EditArgs),
    /// Run a scene-language script, printing `puts` output; errors as FILE:LINE:COL: error: MSG.
    Eval { file: PathBuf },
    /// Simulate a scene and write the bodies' motion (JSON or CSV); errors as
    /// FILE:LINE:COL: error: MSG.
    Simulate(simulate::SimulateArgs),
    /// Draw a scene at one time (--time T -o frame.png) or as a movie (--movie -o OUT); scene
    /// errors as FILE:LINE:COL: error: MSG.
    Render(render::RenderArgs),
    /// Export a scene at one time as PPM, PostScript or a Rayshade file, or its whole motion
    /// as glTF 2.0 (.gltf or .glb) with cubic-spline animation channels, or a scene or compound
    /// document as a web page that plays its animations (html).
    Export(export::ExportArgs),
    /// Open a compound document with its animations embedded, to read and edit it.
    Host(host::HostArgs),
    /// Serve one animation subdocument to a host over D-Bus (started by hosts, not people).
    Slave(slave::SlaveArgs),
    /// Run a scene live in real time, headless, with scripted drags; prints the final states
    /// and recorded trajectories as JSON.
    Live(live::LiveArgs),
    /// Write manual pages or print shell completion (used by scripts/install).
    #[command(subcommand, hide = true)]
    Generate(generate::GenerateArgs),
}

pub fn run(command: Command) -> ExitCode {
    match command {
        Command::Check(args) => check::run(args),
        Command::Doc(args) => doc::run(args),
        Command::Edit(args) => edit::run(args),
        Command::Eval { file } => eval::run(file),
        Command::Simulate(args) => simulate::run(args),
        Command::Render(args) => render::run(args),
        Command::Export(args) => export::run(args),
        Command::Host(args) => host::run(args),
        Command::Slave(args) => slave::run(args),
        Command::Live(args) => live::run(args),
        Command::Generate(args) => generate::run(args),
    }
}

/// `PATH: error: …` for a failure to write `path`; a refusal to replace a read-only file says
/// that `--force` replaces it (every command that writes a named file has the flag).
fn write_error(path: &Path, error: &io::Error) -> String {
    let why = match ReadOnlyFile::of(error) {
        Some(refusal) => refusal.explain("so it was not replaced; --force replaces it"),
        None => error.to_string(),
    };
    format!("{}: error: {why}", path.display())
}
