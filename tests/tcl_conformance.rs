//! Differential conformance: every script under tests/tcl/ runs through the reference `tclsh`
//! and through our interpreter; standard output and whether the script ended in an error must
//! be identical. tclsh is required (scripts/deps installs it): without it the test fails.

use asgard::lang::{Interp, Limits, Output};
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::rc::Rc;

/// What running a script produced.
#[derive(Debug, PartialEq)]
struct Outcome {
    stdout: String,
    errored: bool,
}

fn tclsh(script: &Path) -> Outcome {
    let output = Command::new("tclsh")
        .arg(script)
        .output()
        .expect("tclsh must be installed (scripts/deps installs package tcl8.6)");
    Outcome {
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        errored: !output.status.success(),
    }
}

fn ours(text: &str) -> Outcome {
    let captured = Rc::new(RefCell::new(String::new()));
    let sink = captured.clone();
    let mut interp = Interp::new(Limits::default());
    interp.set_output(Output::Callback(Box::new(move |t| {
        sink.borrow_mut().push_str(t)
    })));
    let errored = interp.eval_source(text).is_err();
    let stdout = captured.borrow().clone();
    Outcome { stdout, errored }
}

fn scripts() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tcl");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/tcl exists")
        .map(|e| e.expect("readable directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "tcl"))
        .collect();
    files.sort();
    files
}

#[test]
fn scripts_behave_as_in_tclsh() {
    let files = scripts();
    assert!(
        files.len() >= 200,
        "expected at least 200 scripts, found {}",
        files.len()
    );
    let mut failures = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("readable script");
        let reference = tclsh(file);
        let got = ours(&text);
        if got != reference {
            failures.push(format!(
                "=== {}\n--- script\n{text}\n--- tclsh (errored: {})\n{}\n--- asgard (errored: {})\n{}",
                file.display(),
                reference.errored,
                reference.stdout,
                got.errored,
                got.stdout
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} scripts differ from tclsh:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}
