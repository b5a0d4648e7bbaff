//! Reading documents safely (issue 22, items 5 and 7): deep nesting, files that are not
//! documents (devices, FIFOs, oversized files), byte-order marks and NUL characters, through
//! the built `asgard doc` on files in a throwaway folder and through the library.

use asgard::doc::{validate, Document, MAX_NESTING};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const MEMO: &str = include_str!("../examples/memo.sgml");

fn asgard(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_asgard"))
        .args(args)
        .output()
        .expect("asgard runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `contents` written to a file in a fresh folder.
fn file_with(contents: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("doc.sgml");
    fs::write(&path, contents).expect("written");
    (dir, path)
}

fn arg(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

/// `depth` nested elements in one line.
fn nested(depth: usize) -> String {
    format!("{}{}", "<A>".repeat(depth), "</A>".repeat(depth))
}

#[test]
fn deep_nesting_is_a_located_error_not_a_stack_overflow() {
    for depth in [20_000, 1_000_000] {
        let (_dir, path) = file_with(nested(depth).as_bytes());
        for command in ["check", "list"] {
            let out = asgard(&["doc", command, arg(&path)]);
            assert_eq!(out.status.code(), Some(1), "doc {command} at {depth}");
            let column = 3 * MAX_NESTING + 1;
            assert_eq!(
                stderr(&out),
                format!(
                    "{}:1:{column}: error: element `A` is nested more than {MAX_NESTING} \
                     elements deep (the nesting limit); expected an end tag\n",
                    path.display()
                )
            );
        }
    }
}

/// The validator walks with its own stack: the deepest document the reader accepts validates
/// on a thread with a stack far too small for one frame per level.
#[test]
fn the_validator_does_not_recurse_on_depth() {
    let document = Document::parse(nested(MAX_NESTING)).expect("within the nesting limit");
    let problems = std::thread::Builder::new()
        .stack_size(64 * 1024)
        .spawn(move || validate(&document).len())
        .expect("a thread")
        .join()
        .expect("no stack overflow");
    // The document element is not `DOCUMENT`, and `A` is declared nowhere.
    assert_eq!(problems, 1 + MAX_NESTING);
}

#[test]
fn devices_and_fifos_are_refused_before_reading() {
    let out = asgard(&["doc", "check", "/dev/zero"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "asgard doc: /dev/zero: a character device, not a regular file; expected a document \
         file\n"
    );
    let dir = tempfile::tempdir().expect("a temporary directory");
    let fifo = dir.path().join("fifo.sgml");
    let name = std::ffi::CString::new(arg(&fifo)).expect("no NUL");
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    // No writer ever opens the FIFO: reading it would block forever.
    let out = asgard(&["doc", "list", arg(&fifo)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("a FIFO, not a regular file"),
        "{}",
        stderr(&out)
    );
    let out = asgard(&["doc", "check", arg(dir.path())]);
    assert!(
        stderr(&out).contains("a directory, not a regular file"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn documents_over_the_size_limit_are_refused_unless_the_limit_is_raised() {
    let padding = format!("<!-- {} -->\n", "x".repeat(17 << 20));
    let (_dir, path) = file_with(format!("{MEMO}{padding}").as_bytes());
    let out = asgard(&["doc", "check", arg(&path)]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!(
            "asgard doc: {}: the document is larger than the document size limit of {} \
             bytes; --max-size BYTES raises it\n",
            path.display(),
            16 << 20
        )
    );
    let out = asgard(&["doc", "check", "--max-size", "20000000", arg(&path)]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn a_byte_order_mark_is_accepted_by_every_command_and_kept() {
    let with_mark = format!("\u{feff}{MEMO}");
    let (_dir, path) = file_with(with_mark.as_bytes());
    for command in ["check", "list"] {
        let out = asgard(&["doc", command, arg(&path)]);
        assert!(out.status.success(), "doc {command}: {}", stderr(&out));
    }
    let document = Document::parse(with_mark.clone()).expect("read");
    assert_eq!(document.text(), with_mark, "saving writes the mark back");
}

#[test]
fn a_nul_character_is_an_error_at_its_line_and_column() {
    let text = MEMO.replacen("Whom it", "Whom\0it", 1);
    let (_dir, path) = file_with(text.as_bytes());
    for command in ["check", "list"] {
        let out = asgard(&["doc", command, arg(&path)]);
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(
            stderr(&out),
            format!(
                "{}:3:9: error: NUL character; expected text without NUL characters\n",
                path.display()
            )
        );
    }
}
