//! `asgard doc` end to end: the built binary on files in a throwaway folder.

use asgard::doc::Document;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
}

fn asgard(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_asgard"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

/// A copy of an example in a fresh folder.
fn copy_of(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    fs::copy(example(name), &path).unwrap();
    (dir, path)
}

#[test]
fn list_shows_index_size_and_first_line() {
    let out = asgard(
        &["doc", "list", example("lesson.sgml").to_str().unwrap()],
        b"",
    );
    assert!(out.status.success());
    let document = Document::load(&example("lesson.sgml")).unwrap();
    let sizes: Vec<usize> = document
        .subdocuments()
        .iter()
        .map(|s| s.scene.len())
        .collect();
    assert_eq!(
        text(&out.stdout),
        format!(
            "0\t{}\t# A ball dropped from rest, 5 m above the origin; gravity is its only force.\n\
             1\t{}\t# A pendulum: a point 2 m to the left of the ball's centre is held at the\n",
            sizes[0], sizes[1]
        )
    );
}

#[test]
fn extract_writes_the_unescaped_scene() {
    let out = asgard(
        &[
            "doc",
            "extract",
            example("memo.sgml").to_str().unwrap(),
            "0",
        ],
        b"",
    );
    assert!(out.status.success());
    assert_eq!(
        text(&out.stdout),
        "shape_set ss1 desc {sub pos {0 0 0} sphere 0.5}\n\
         body b2 artbody 1 shape ss1 init_pos {-1 0 0} init_dpos {1 0 0}\n\
         body b3 artbody 1 shape ss1 init_pos {1 0 0} init_dpos {0 1 0}\n\
         simulator finish 3\n"
    );
}

#[test]
fn replace_changes_only_the_scene_bytes_and_keeps_a_backup() {
    let (dir, path) = copy_of("lesson.sgml");
    let original = fs::read_to_string(&path).unwrap();
    let span = Document::parse(original.clone()).unwrap().subdocuments()[1].scene_span;
    let scene = "body bob shape ball init_pos {3 0 0} ;# if {$x < 1 && 1} \\{\n";
    let scene_file = dir.path().join("new.asg");
    fs::write(&scene_file, scene).unwrap();

    let out = asgard(
        &[
            "doc",
            "replace",
            path.to_str().unwrap(),
            "1",
            scene_file.to_str().unwrap(),
        ],
        b"",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let saved = fs::read_to_string(&path).unwrap();
    assert_eq!(&saved[..span.start], &original[..span.start]);
    assert_eq!(
        &saved[saved.len() - (original.len() - span.end)..],
        &original[span.end..]
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("lesson.sgml~")).unwrap(),
        original
    );

    let out = asgard(&["doc", "extract", path.to_str().unwrap(), "1"], b"");
    assert_eq!(text(&out.stdout), scene);

    // From standard input; the other subdocument is untouched.
    let out = asgard(
        &["doc", "replace", path.to_str().unwrap(), "0", "-"],
        b"simulator finish 2\n",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let document = Document::load(&path).unwrap();
    assert_eq!(document.subdocuments()[0].scene, "simulator finish 2\n");
    assert_eq!(document.subdocuments()[1].scene, scene);
    assert_eq!(
        fs::read_to_string(dir.path().join("lesson.sgml~")).unwrap(),
        saved
    );
}

#[test]
fn check_accepts_the_examples_and_locates_problems() {
    for name in ["memo.sgml", "lesson.sgml", "report.sgml"] {
        let out = asgard(&["doc", "check", example(name).to_str().unwrap()], b"");
        assert!(out.status.success(), "{name}: {}", text(&out.stderr));
        assert!(out.stderr.is_empty() && out.stdout.is_empty());
    }

    let dir = tempfile::tempdir().unwrap();
    let invalid = dir.path().join("invalid.sgml");
    let memo = fs::read_to_string(example("memo.sgml")).unwrap();
    fs::write(&invalid, memo.replace("<FROM>Wayne</FROM>\n", "")).unwrap();
    let out = asgard(&["doc", "check", invalid.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(1));
    let file = invalid.display();
    assert_eq!(
        text(&out.stderr),
        format!(
            "{file}:4:1: error: element `SUBJECT` is not allowed here in `CMEMO`; expected `FROM`\n"
        )
    );

    let malformed = dir.path().join("malformed.sgml");
    fs::write(&malformed, memo.replace("</TEXT>", "</TXET>")).unwrap();
    let out = asgard(&["doc", "check", malformed.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        format!(
            "{}:20:57: error: expected `</TEXT>` to close the element opened at 20:1, found `</TXET>`\n",
            malformed.display()
        )
    );
}

/// Issue 22 item 9: a document whose markup is valid but whose scenes cannot run fails the
/// check, each scene's error at its line and column in the document.
#[test]
fn check_evaluates_each_scene_and_locates_its_errors_in_the_document() {
    let memo = fs::read_to_string(example("memo.sgml")).unwrap();
    let stored = "shape_set ss1 desc \\{sub pos \\{0 0 0\\} sphere 0.5\\}\n\
                  body b2 artbody 1 shape ss1 init_pos \\{-1 0 0\\} init_dpos \\{1 0 0\\}\n\
                  body b3 artbody 1 shape ss1 init_pos \\{1 0 0\\} init_dpos \\{0 1 0\\}\n\
                  simulator finish 3\n";
    assert!(memo.contains(stored));
    let animation = |scene: &str| {
        format!("<ANIMATION>\n<ASGARD>\n{scene}</ASGARD>\n</ANIMATION>\n</DOCUMENT>\n")
    };
    // Three animations in one paragraph: an endless loop (line 12), a command the sandbox
    // lacks after escaped braces (line 20, column 14), and an unclosed brace (line 27, at
    // the backslash of its stored `\{`).
    let scenes = [
        "set n 0\nwhile 1 \\{\\}\n",
        "# not a shell\nset a \\{1\\}; exec rm -rf /\n",
        "shape_set s desc \\{sub sphere 1\nbody b shape s\n",
    ];
    let body = scenes
        .iter()
        .map(|scene| animation(scene))
        .collect::<Vec<_>>()
        .join("<DOCUMENT ANIMATION>\n");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.sgml");
    let broken = memo.replace(&animation(stored), &body);
    fs::write(&path, &broken).unwrap();
    assert_eq!(Document::load(&path).unwrap().subdocuments().len(), 3);

    let out = asgard(&["doc", "check", path.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(1));
    let file = path.display();
    assert_eq!(
        text(&out.stderr),
        format!(
            "{file}:12:1: error: command limit exceeded (10000000 commands)\n\
             {file}:20:14: error: invalid command name \"exec\"\n\
             {file}:27:18: error: missing close-brace\n"
        )
    );
    assert!(out.stdout.is_empty());
    assert_eq!(fs::read_to_string(&path).unwrap(), broken);
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn bad_requests_fail_with_a_message_and_change_nothing() {
    let (dir, path) = copy_of("memo.sgml");
    let original = fs::read(&path).unwrap();
    let file = path.to_str().unwrap();

    let out = asgard(&["doc", "extract", file, "1"], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("no subdocument 1; the document has 1"));

    let latin1 = dir.path().join("latin1.asg");
    fs::write(&latin1, b"body caf\xe9\n").unwrap();
    let out = asgard(
        &["doc", "replace", file, "0", latin1.to_str().unwrap()],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("not UTF-8 (byte 8)"),
        "{}",
        text(&out.stderr)
    );

    let out = asgard(
        &["doc", "replace", file, "0", "/nonexistent/scene.asg"],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));

    assert_eq!(fs::read(&path).unwrap(), original);
    assert!(!dir.path().join("memo.sgml~").exists());

    let out = asgard(&["doc", "list", "/nonexistent/doc.sgml"], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).starts_with("asgard doc: /nonexistent/doc.sgml: "));

    let out = asgard(&["doc", "extract", file, "many"], b"");
    assert_eq!(out.status.code(), Some(2), "a usage error");
}
