//! `asgard doc`: the animation subdocuments of a compound document, from the command line.

use asgard::doc::{validate, DocError, Document, LoadError, Subdocument, DEFAULT_MAX_SIZE};
use asgard::save::ReadOnly;
use asgard::scene;
use clap::Subcommand;
use std::fmt::Display;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct DocArgs {
    #[command(subcommand)]
    command: DocCommand,
    /// The largest document read, in bytes (default 16 MiB); larger ones are refused.
    #[arg(long, global = true, value_name = "BYTES", default_value_t = DEFAULT_MAX_SIZE)]
    max_size: u64,
}

#[derive(Subcommand)]
pub enum DocCommand {
    /// List the animation subdocuments: index, scene size in bytes, first line of the scene.
    List { file: PathBuf },
    /// Write the scene text of subdocument INDEX (from 0) to standard output.
    Extract { file: PathBuf, index: usize },
    /// Replace the scene text of subdocument INDEX with SCENE_FILE ("-" reads standard
    /// input). Only the scene's bytes change; the save is atomic and keeps FILE~. A read-only
    /// FILE is refused unless --force is given.
    Replace {
        file: PathBuf,
        index: usize,
        scene_file: PathBuf,
        /// Save over FILE even when it is read-only (it stays read-only).
        #[arg(long)]
        force: bool,
    },
    /// Read FILE, validate it against the document DTD and evaluate each animation's scene
    /// in the sandbox; report each problem as FILE:LINE:COL: error: … (scene errors at their
    /// place in the document) and exit with status 1 if there is any.
    Check { file: PathBuf },
}

pub fn run(args: DocArgs) -> ExitCode {
    let limit = args.max_size;
    let result = match args.command {
        DocCommand::List { file } => list(&file, limit),
        DocCommand::Extract { file, index } => extract(&file, index, limit),
        DocCommand::Replace {
            file,
            index,
            scene_file,
            force,
        } => replace(
            &file,
            index,
            &scene_file,
            ReadOnly::replace_if(force),
            limit,
        ),
        DocCommand::Check { file } => check(&file, limit),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Reported) => ExitCode::FAILURE,
        Err(Failure::Message(message)) => {
            eprintln!("asgard doc: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Why a command failed.
enum Failure {
    /// The problems were already printed.
    Reported,
    Message(String),
}

fn about(path: &Path, what: impl Display) -> Failure {
    Failure::Message(format!("{}: {what}", path.display()))
}

fn print_located(path: &Path, error: &DocError) {
    eprintln!("{}:{}: error: {}", path.display(), error.at, error.kind);
}

fn load(path: &Path, limit: u64) -> Result<Document, Failure> {
    Document::load_limited(path, limit).map_err(|e| match e {
        LoadError::Doc(e) => {
            print_located(path, &e);
            Failure::Reported
        }
        LoadError::Io(e) if e.kind() == io::ErrorKind::FileTooLarge => {
            about(path, format!("{e}; --max-size BYTES raises it"))
        }
        LoadError::Io(e) => about(path, e),
    })
}

fn list(path: &Path, limit: u64) -> Result<(), Failure> {
    let document = load(path, limit)?;
    let mut out = io::stdout().lock();
    for (index, sub) in document.subdocuments().iter().enumerate() {
        let first_line = sub
            .scene
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("");
        writeln!(out, "{index}\t{}\t{first_line}", sub.scene.len())
            .map_err(|e| Failure::Message(format!("standard output: {e}")))?;
    }
    Ok(())
}

fn extract(path: &Path, index: usize, limit: u64) -> Result<(), Failure> {
    let document = load(path, limit)?;
    let sub = document.subdocument(index).map_err(|e| about(path, e))?;
    let mut out = io::stdout().lock();
    out.write_all(sub.scene.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| Failure::Message(format!("standard output: {e}")))
}

fn replace(
    path: &Path,
    index: usize,
    scene_file: &Path,
    read_only: ReadOnly,
    limit: u64,
) -> Result<(), Failure> {
    let mut document = load(path, limit)?;
    let bytes = if scene_file == Path::new("-") {
        let mut bytes = Vec::new();
        io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| Failure::Message(format!("standard input: {e}")))?;
        bytes
    } else {
        std::fs::read(scene_file).map_err(|e| about(scene_file, e))?
    };
    let scene = String::from_utf8(bytes).map_err(|e| {
        about(
            scene_file,
            format!(
                "not UTF-8 (byte {}); expected a UTF-8 scene text",
                e.utf8_error().valid_up_to()
            ),
        )
    })?;
    document
        .replace_scene(index, &scene)
        .map_err(|e| about(path, e))?;
    document
        .save(path, read_only)
        .map_err(|e| Failure::Message(super::write_error(path, &e)))
}

fn check(path: &Path, limit: u64) -> Result<(), Failure> {
    let document = load(path, limit)?;
    let problems = validate(&document);
    for problem in &problems {
        print_located(path, problem);
    }
    let mut scene_errors = 0;
    for sub in document.subdocuments() {
        scene_errors += usize::from(!check_scene(path, &document, sub));
    }
    if problems.is_empty() && scene_errors == 0 {
        Ok(())
    } else {
        Err(Failure::Reported)
    }
}

/// Evaluates one subdocument's scene in the sandbox, as a slave would when the document is
/// shown (bodies that start overlapping are an error, as in `asgard check`), and prints its
/// error and warnings at their place in the document (a scene that
/// validates can still loop, call what the sandbox lacks, or not parse). True if it evaluated.
fn check_scene(path: &Path, document: &Document, sub: &Subdocument) -> bool {
    let file = path.display();
    match scene::evaluate(&sub.scene).and_then(|s| super::check::refuse_overlap(s, &sub.scene)) {
        Ok(scene) => {
            for warning in &scene.warnings {
                let at = document.scene_line_col(sub, warning.span.start);
                eprintln!("{file}:{at}: warning: {}", warning.message);
            }
            true
        }
        Err(e) => {
            let at = document.scene_line_col(sub, e.span.start);
            eprintln!("{file}:{at}: error: {}", e.message);
            false
        }
    }
}
