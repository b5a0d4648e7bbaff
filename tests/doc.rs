//! Compound documents through the library: the bundled examples, lossless edits and saves,
//! and located errors for malformed documents.

use asgard::doc::{validate, Document, ErrorKind, InsertAt, LoadError};
use asgard::save::ReadOnly;
use proptest::prelude::*;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn examples() -> Vec<PathBuf> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut paths: Vec<PathBuf> = fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "sgml"))
        .collect();
    paths.sort();
    paths
}

fn example(name: &str) -> String {
    fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples")
            .join(name),
    )
    .unwrap()
}

#[test]
fn every_example_document_reads_and_validates() {
    let paths = examples();
    assert!(paths.len() >= 3, "{paths:?}");
    for path in paths {
        let document = Document::load(&path).unwrap();
        let problems: Vec<String> = validate(&document).iter().map(|e| e.to_string()).collect();
        assert!(problems.is_empty(), "{}: {problems:?}", path.display());
        assert!(!document.subdocuments().is_empty(), "{}", path.display());
    }
}

/// Each example scene runs in `tclsh` with the element commands defined as procedures that
/// accept anything: that checks the Tcl syntax and that no other commands are used. (The
/// element commands' own arguments are the scene language's business.)
#[test]
fn example_scenes_are_tcl_using_element_commands_only() {
    let dir = tempfile::tempdir().unwrap();
    for path in examples() {
        let document = Document::load(&path).unwrap();
        for (i, sub) in document.subdocuments().iter().enumerate() {
            let scene = dir.path().join(format!("scene{i}.asg"));
            fs::write(&scene, &sub.scene).unwrap();
            let script = format!(
                "foreach c {{shape_set force torque link trajectory lightsource camera simulator}} {{\n\
                     proc $c args {{}}\n\
                 }}\n\
                 proc body {{name args}} {{ proc $name args {{ return 1 }} }}\n\
                 if {{[catch {{source {{{}}}}} message]}} {{ puts stderr $message; exit 1 }}\n",
                scene.display()
            );
            let output = Command::new("tclsh")
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .and_then(|mut child| {
                    use std::io::Write;
                    child.stdin.take().unwrap().write_all(script.as_bytes())?;
                    child.wait_with_output()
                })
                .expect("tclsh runs (scripts/deps installs it)");
            assert!(
                output.status.success(),
                "{} subdocument {i}: {}",
                path.display(),
                String::from_utf8_lossy(&output.stderr)
            );
        }
    }
}

#[test]
fn memo_scene_has_plain_braces_and_an_unchanged_save_is_byte_identical() {
    let original = example("memo.sgml");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("memo.sgml");
    fs::write(&path, &original).unwrap();
    let document = Document::load(&path).unwrap();
    assert!(document.subdocuments()[0]
        .scene
        .starts_with("shape_set ss1 desc {sub pos {0 0 0} sphere 0.5}\n"));
    document.save(&path, ReadOnly::Refuse).unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), original);
    assert_eq!(
        fs::read_to_string(dir.path().join("memo.sgml~")).unwrap(),
        original
    );
}

#[test]
fn malformed_documents_give_located_errors() {
    let memo = example("memo.sgml");
    let cases = [
        (
            memo.replace("</PARAGRAPH>\n<PARAGRAPH>", "\n<PARAGRAPH>"),
            "22:1",
            "expected `</PARAGRAPH>`",
        ),
        (
            memo[..memo.rfind("</DOCUMENT>").unwrap()].to_string(),
            "1:1",
            "element `DOCUMENT` is never closed",
        ),
        (
            memo.replace("<TO>", "<TO "),
            "3:1",
            "tag `TO` is not closed",
        ),
        (
            memo.replace("Thanks", "Thanks & &bogus;"),
            "20:16",
            "unknown entity `&bogus;`",
        ),
        (
            memo.replace("simulator finish 3", "if {$a < 1} {}"),
            "14:8",
            "expected a tag",
        ),
        (
            memo.replace("<ASGARD>", "<ASGARD><!-- x -->"),
            "10:9",
            "inside ASGARD",
        ),
    ];
    for (text, at, message) in cases {
        let e = Document::parse(text).unwrap_err();
        assert_eq!(e.at.to_string(), at, "{e}");
        assert!(e.to_string().contains(message), "{e}");
    }

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("latin1.sgml");
    fs::write(&path, b"<DOCUMENT CMEMO>\n<TO>Andr\xe9</TO>").unwrap();
    match Document::load(&path) {
        Err(LoadError::Doc(e)) => {
            assert_eq!(
                (e.kind, e.at.to_string()),
                (ErrorKind::InvalidUtf8, "2:9".into())
            )
        }
        other => panic!("expected an encoding error, got {other:?}"),
    }
}

/// Asserts that `after` equals `before` outside `before[start..end]`.
fn same_outside(before: &str, after: &str, start: usize, end: usize) {
    assert_eq!(&after[..start], &before[..start]);
    assert_eq!(&after[after.len() - (before.len() - end)..], &before[end..]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Any scene text written into a document, saved and read back is the same text.
    #[test]
    fn scene_texts_round_trip_through_a_document(scene in "[^\u{0}]*") {
        let mut document = Document::parse(example("memo.sgml")).unwrap();
        document.replace_scene(0, &scene).unwrap();
        let index = document
            .insert_animation(InsertAt::InParagraph { paragraph: 1, offset: 3 }, &scene, None)
            .unwrap();
        let reread = Document::parse(document.text().to_string()).unwrap();
        prop_assert_eq!(&reread.subdocuments()[0].scene, &scene);
        prop_assert_eq!(&reread.subdocuments()[index].scene, &scene);
        prop_assert!(validate(&reread).is_empty());
    }

    /// Changing one of several subdocuments leaves every byte outside its scene as it was.
    #[test]
    fn replacing_one_scene_preserves_every_other_byte(
        scene in "[^\u{0}]*",
        which in 0usize..2,
    ) {
        let original = example("lesson.sgml");
        let mut document = Document::parse(original.clone()).unwrap();
        let others: Vec<String> =
            document.subdocuments().iter().map(|s| s.scene.clone()).collect();
        let span = document.subdocuments()[which].scene_span;
        document.replace_scene(which, &scene).unwrap();
        same_outside(&original, document.text(), span.start, span.end);
        for (i, sub) in document.subdocuments().iter().enumerate() {
            let expected = if i == which { &scene } else { &others[i] };
            prop_assert_eq!(&sub.scene, expected);
        }
    }
}

#[test]
fn scenes_round_trip_through_files() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("report.sgml");
    fs::write(&path, example("report.sgml")).unwrap();
    let scene = "set s \"a\\tb\" ;# {brace} \\ back <tag> & ]]> ünïcødé ∀x\r\nlast";
    let mut document = Document::load(&path).unwrap();
    document.replace_scene(0, scene).unwrap();
    document.save(&path, ReadOnly::Refuse).unwrap();
    let reread = Document::load(&path).unwrap();
    assert_eq!(reread.subdocuments()[0].scene, scene);
    assert_eq!(reread.text(), document.text());
    assert_eq!(
        fs::read_to_string(dir.path().join("report.sgml~")).unwrap(),
        example("report.sgml")
    );
}
