use super::*;
use std::os::unix::fs::symlink;

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

fn mode_of(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

fn set_mode(path: &Path, mode: u32) {
    fs::set_permissions(path, Permissions::from_mode(mode)).unwrap();
}

/// A process id that no process has: above the largest Linux hands out (2^22).
const NO_PROCESS: u32 = 99_999_999;

#[test]
fn first_save_creates_the_file_without_backup() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.sgml");
    write(&path, b"one", Options::DOCUMENT).unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"one");
    assert_eq!(names_in(dir.path()), ["a.sgml"]);
}

#[test]
fn later_saves_keep_exactly_one_backup_of_the_previous_version() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.sgml");
    write(&path, b"one", Options::DOCUMENT).unwrap();
    write(&path, b"two", Options::DOCUMENT).unwrap();
    write(&path, b"three", Options::DOCUMENT).unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"three");
    assert_eq!(fs::read(dir.path().join("a.sgml~")).unwrap(), b"two");
    assert_eq!(names_in(dir.path()), ["a.sgml", "a.sgml~"]);
}

#[test]
fn an_output_is_replaced_without_a_backup() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("motion.json");
    write(&path, b"old", Options::OUTPUT).unwrap();
    write(&path, b"new", Options::OUTPUT).unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"new");
    assert_eq!(names_in(dir.path()), ["motion.json"]);
}

#[test]
fn permissions_carry_over_and_links_are_followed() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.sgml");
    fs::write(&real, b"old").unwrap();
    set_mode(&real, 0o640);
    let link = dir.path().join("link.sgml");
    symlink(&real, &link).unwrap();
    write(&link, b"new", Options::DOCUMENT).unwrap();
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(fs::read(&real).unwrap(), b"new");
    assert_eq!(fs::read(dir.path().join("real.sgml~")).unwrap(), b"old");
    assert_eq!(mode_of(&real), 0o640);
}

/// A private document's new version is private before anything is written into it, and its
/// backup is private too.
#[test]
fn a_private_document_stays_private_in_its_temporary_and_backup() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("secret.sgml");
    fs::write(&path, b"old").unwrap();
    set_mode(&path, 0o600);
    let file = AtomicFile::create(&path, Options::DOCUMENT).unwrap();
    let temporary = names_in(dir.path())
        .into_iter()
        .find(|n| n.ends_with(".tmp"))
        .expect("the temporary file");
    assert_eq!(mode_of(&dir.path().join(&temporary)), 0o600, "{temporary}");
    let mut file = file;
    file.write_all(b"new").unwrap();
    file.commit().unwrap();
    assert_eq!(mode_of(&path), 0o600);
    assert_eq!(mode_of(&dir.path().join("secret.sgml~")), 0o600);
    assert_eq!(fs::read(dir.path().join("secret.sgml~")).unwrap(), b"old");
}

#[test]
fn a_read_only_file_is_refused_unless_replacing_it_was_confirmed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.sgml");
    fs::write(&path, b"old").unwrap();
    set_mode(&path, 0o444);

    let error = write(&path, b"new", Options::DOCUMENT).unwrap_err();
    assert_eq!(error.kind(), io::ErrorKind::PermissionDenied);
    let refusal = ReadOnlyFile::of(&error).expect("a read-only refusal");
    assert_eq!(refusal.path, path);
    assert_eq!(refusal.mode & 0o777, 0o444);
    assert!(
        error.to_string().contains("is read-only (mode 0444)"),
        "{error}"
    );
    assert_eq!(fs::read(&path).unwrap(), b"old");
    assert_eq!(names_in(dir.path()), ["a.sgml"]);
    let output = write(&path, b"new", Options::OUTPUT).unwrap_err();
    assert!(ReadOnlyFile::of(&output).is_some());

    let confirmed = Options::DOCUMENT.with_read_only(ReadOnly::Replace);
    write(&path, b"new", confirmed).unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"new");
    assert_eq!(mode_of(&path), 0o444, "the new version is read-only too");
    assert_eq!(fs::read(dir.path().join("a.sgml~")).unwrap(), b"old");
}

#[test]
fn other_errors_are_not_read_only_refusals() {
    let dir = tempfile::tempdir().unwrap();
    let error = write(&dir.path().join("no/such/folder"), b"x", Options::OUTPUT).unwrap_err();
    assert!(ReadOnlyFile::of(&error).is_none());
    let error = write(dir.path(), b"x", Options::OUTPUT).unwrap_err();
    assert!(ReadOnlyFile::of(&error).is_none());
}

#[test]
fn stale_temporaries_of_this_file_are_removed_and_live_ones_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.sgml");
    fs::write(&path, b"old").unwrap();
    let own = std::process::id();
    let stale = [
        format!(".a.sgml.{NO_PROCESS}.0.tmp"),
        format!(".a.sgml~.{NO_PROCESS}.3.tmp"),
        // This process's id, but no save of this process holds it: a killed process's that
        // had the same id.
        format!(".a.sgml.{own}.7.tmp"),
    ];
    let kept = [
        // Process 1 runs: it may be saving this very moment.
        ".a.sgml.1.0.tmp".to_string(),
        // Another file's temporary, and names that are not ours.
        format!(".b.sgml.{NO_PROCESS}.0.tmp"),
        format!(".a.sgml.{NO_PROCESS}.x.tmp"),
        format!("a.sgml.{NO_PROCESS}.0.tmp"),
    ];
    for name in stale.iter().chain(&kept) {
        fs::write(dir.path().join(name), b"partial").unwrap();
    }
    write(&path, b"new", Options::DOCUMENT).unwrap();
    let mut expected: Vec<String> = kept.to_vec();
    expected.extend(["a.sgml".to_string(), "a.sgml~".to_string()]);
    expected.sort();
    assert_eq!(names_in(dir.path()), expected);
}

#[test]
fn a_save_in_progress_keeps_its_temporary_while_another_save_cleans_up() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.sgml");
    fs::write(&path, b"old").unwrap();
    let mut first = AtomicFile::create(&path, Options::DOCUMENT).unwrap();
    write(&path, b"second", Options::DOCUMENT).unwrap();
    first.write_all(b"first").unwrap();
    first.commit().unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"first");
    assert_eq!(names_in(dir.path()), ["a.sgml", "a.sgml~"]);
}

#[test]
fn a_file_dropped_before_its_commit_leaves_the_old_version_and_no_temporary() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("motion.csv");
    fs::write(&path, b"old").unwrap();
    let mut file = AtomicFile::create(&path, Options::OUTPUT).unwrap();
    file.write_all(b"half of the ne").unwrap();
    drop(file);
    assert_eq!(fs::read(&path).unwrap(), b"old");
    assert_eq!(names_in(dir.path()), ["motion.csv"]);
}

#[test]
fn a_failed_save_leaves_the_old_file_and_no_temporary() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.sgml");
    write(&path, b"old", Options::DOCUMENT).unwrap();
    // A folder in the way of the backup makes the save fail after the new version was
    // written to its temporary file.
    fs::create_dir(dir.path().join("a.sgml~")).unwrap();
    fs::write(dir.path().join("a.sgml~").join("x"), b"").unwrap();
    assert!(write(&path, b"new", Options::DOCUMENT).is_err());
    assert_eq!(fs::read(&path).unwrap(), b"old");
    assert_eq!(names_in(dir.path()), ["a.sgml", "a.sgml~"]);
}

#[test]
fn a_device_is_written_directly_and_left_in_place() {
    write(Path::new("/dev/null"), b"gone", Options::OUTPUT).unwrap();
    let meta = fs::metadata("/dev/null").unwrap();
    assert!(!meta.is_file(), "/dev/null is still the device");
}
