//! `scripts/install` into a temporary prefix, checked with the desktop's own tools: the
//! launchers with desktop-file-validate, the AppStream metadata with appstreamcli, the file
//! types with update-mime-database and xdg-mime (through GIO, the reference
//! implementation of the shared MIME-info rules), every manual page with `man -l`, and the
//! uninstall leaving the prefix empty.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn run(command: &mut Command) -> Output {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("{command:?}: {e}"));
    assert!(
        output.status.success(),
        "{command:?} failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn text(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

fn install(prefix: &Path, extra: &[&str]) -> Output {
    run(Command::new(repo().join("scripts/install"))
        .args(["--binary", env!("CARGO_BIN_EXE_asgard")])
        .args(extra)
        .arg(prefix))
}

/// Every file under `dir`, relative to it.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                files.push(path.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    files.sort();
    files
}

/// `xdg-mime query filetype FILE` as a GNOME session sees it with the prefix's data first.
fn file_type(prefix: &Path, file: &Path) -> String {
    text(&run(Command::new("xdg-mime")
        .args(["query", "filetype"])
        .arg(file)
        .env("XDG_CURRENT_DESKTOP", "GNOME")
        .env("XDG_DATA_HOME", prefix.join("share"))
        .env("XDG_DATA_DIRS", "/usr/share")))
}

#[test]
fn install_passes_the_desktop_tools_and_uninstall_leaves_nothing() {
    let prefix = tempfile::tempdir().unwrap();
    let prefix = prefix.path();
    install(prefix, &["--media-url", "https://example.org/asgard/media"]);
    let share = prefix.join("share");

    // Launchers: valid, and running the installed binary.
    for entry in ["org.asgard.Editor", "org.asgard.Host"] {
        let path = share.join(format!("applications/{entry}.desktop"));
        let output = run(Command::new("desktop-file-validate").arg(&path));
        assert_eq!(
            text(&output),
            "",
            "{entry}: desktop-file-validate says something"
        );
        let desktop = std::fs::read_to_string(&path).unwrap();
        let binary = prefix.join("bin/asgard");
        assert!(
            desktop.contains(&format!("\nExec={} ", binary.display())),
            "{desktop}"
        );
    }

    // AppStream metadata, with the screenshot `asgard render` drew.
    let metainfo = share.join("metainfo/org.asgard.Editor.metainfo.xml");
    run(Command::new("appstreamcli")
        .args(["validate", "--no-net"])
        .arg(&metainfo));
    let xml = std::fs::read_to_string(&metainfo).unwrap();
    assert!(xml.contains("https://example.org/asgard/media/org.asgard.Editor-1.png"));
    let screenshot = share.join("asgard/screenshots/org.asgard.Editor-1.png");
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(&screenshot).unwrap(),
    ));
    let info = decoder.read_info().unwrap();
    assert_eq!((info.info().width, info.info().height), (1280, 720));

    // File types: a scene by its name, documents by their content (also without .sgml), and
    // another SGML file is not taken for one.
    run(Command::new("update-mime-database").arg(share.join("mime")));
    let scene = repo().join("examples/pendulum.asg");
    assert_eq!(file_type(prefix, &scene), "text/x-asgard-scene");
    let elsewhere = tempfile::tempdir().unwrap();
    let renamed = elsewhere.path().join("memo-without-extension");
    std::fs::copy(repo().join("examples/memo.sgml"), &renamed).unwrap();
    for document in ["memo.sgml", "lesson.sgml", "report.sgml"] {
        let path = repo().join("examples").join(document);
        assert_eq!(
            file_type(prefix, &path),
            "text/x-asgard-document",
            "{document}"
        );
    }
    assert_eq!(file_type(prefix, &renamed), "text/x-asgard-document");
    let other = elsewhere.path().join("other.sgml");
    std::fs::write(&other, "<!DOCTYPE BOOK>\n<BOOK><P>text</P></BOOK>\n").unwrap();
    assert_eq!(file_type(prefix, &other), "text/sgml");

    // A manual page for asgard and each of its commands, each rendered by man.
    let pages = files_under(&share.join("man/man1"));
    for command in [
        "asgard",
        "asgard-check",
        "asgard-doc",
        "asgard-doc-check",
        "asgard-edit",
        "asgard-eval",
        "asgard-export",
        "asgard-host",
        "asgard-live",
        "asgard-render",
        "asgard-simulate",
        "asgard-slave",
    ] {
        assert!(
            pages.contains(&PathBuf::from(format!("{command}.1"))),
            "{command}: {pages:?}"
        );
    }
    assert!(!pages
        .iter()
        .any(|p| p.to_string_lossy().contains("generate")));
    for page in &pages {
        let output = run(Command::new("man")
            .arg("-l")
            .arg(share.join("man/man1").join(page))
            .env("MANWIDTH", "80")
            .env("MANPAGER", "cat")
            .env("PAGER", "cat"));
        let rendered = text(&output);
        let name = page.file_stem().unwrap().to_string_lossy().to_string();
        assert!(
            rendered.contains("NAME") && rendered.contains(&name),
            "{name}: {rendered}"
        );
        assert_eq!(
            String::from_utf8_lossy(&output.stderr),
            "",
            "{name}: man warned"
        );
    }

    // Completion: bash reads its script and completes asgard's commands.
    let completion = share.join("bash-completion/completions/asgard");
    let output = run(Command::new("bash").arg("-c").arg(format!(
        "source '{}'; COMP_WORDS=(asgard ex); COMP_CWORD=1; COMP_LINE='asgard ex'; \
         COMP_POINT=9; _asgard asgard ex asgard; echo \"${{COMPREPLY[@]}}\"",
        completion.display()
    )));
    assert_eq!(text(&output), "export");
    for shell_file in [
        "zsh/site-functions/_asgard",
        "fish/vendor_completions.d/asgard.fish",
    ] {
        let script = std::fs::read_to_string(share.join(shell_file)).unwrap();
        assert!(script.contains("export"), "{shell_file}");
    }

    // Installing again replaces the installation; uninstalling leaves the prefix empty.
    install(prefix, &[]);
    assert!(!std::fs::read_to_string(&metainfo)
        .unwrap()
        .contains("<image"));
    let output = run(Command::new(repo().join("scripts/install"))
        .arg("--uninstall")
        .arg(prefix));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "",
        "uninstall complained"
    );
    let left: Vec<_> = std::fs::read_dir(prefix).unwrap().collect();
    assert!(left.is_empty(), "left behind: {:?}", files_under(prefix));
}

#[test]
fn uninstall_keeps_what_the_install_did_not_put_there() {
    let prefix = tempfile::tempdir().unwrap();
    let prefix = prefix.path();
    let mine = prefix.join("share/applications/mine.desktop");
    std::fs::create_dir_all(mine.parent().unwrap()).unwrap();
    std::fs::write(
        &mine,
        "[Desktop Entry]\nType=Application\nName=Mine\nExec=true\n",
    )
    .unwrap();
    install(prefix, &[]);
    run(Command::new(repo().join("scripts/install"))
        .arg("--uninstall")
        .arg(prefix));
    let left = files_under(prefix);
    // The user's launcher stays, with the launcher database rebuilt for it alone.
    assert!(
        left.contains(&PathBuf::from("share/applications/mine.desktop")),
        "{left:?}"
    );
    assert!(
        left.iter().all(|p| p.starts_with("share/applications")),
        "left behind: {left:?}"
    );
    let output = Command::new(repo().join("scripts/install"))
        .arg("--uninstall")
        .arg(prefix)
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("nothing to uninstall"));
}
