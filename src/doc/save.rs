//! Saving a file so that a crash at any moment leaves either the old or the new version, never
//! a mixture, and the version before the save stays available as `NAME~`.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Writes `contents` to `path` atomically: into a temporary file in the same folder, flushed to
/// disk, then renamed over `path`. When `path` already exists, its current contents are kept as
/// `path~` (replacing an older backup) and its permissions carry over to the new version. A
/// symbolic link is followed, so the file it points to is the one saved.
pub fn write_with_backup(path: &Path, contents: &[u8]) -> io::Result<()> {
    let target = resolve_link(path)?;
    let folder = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} does not name a file", path.display()),
        )
    })?;
    let previous = match fs::metadata(&target) {
        Ok(meta) => Some(meta),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };

    let new = TempFile::create(&folder, name)?;
    new.file().write_all(contents)?;
    if let Some(meta) = &previous {
        new.file().set_permissions(meta.permissions())?;
    }
    new.file().sync_all()?;

    if previous.is_some() {
        let mut backup_name = name.to_os_string();
        backup_name.push("~");
        let backup = TempFile::create(&folder, &backup_name)?;
        io::copy(&mut File::open(&target)?, &mut backup.file())?;
        backup.file().sync_all()?;
        backup.rename_to(&folder.join(backup_name))?;
    }
    new.rename_to(&target)?;
    // The renames are durable only once the folder itself is flushed.
    File::open(&folder)?.sync_all()
}

/// `path`, or the file it links to.
fn resolve_link(path: &Path) -> io::Result<PathBuf> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => fs::canonicalize(path),
        Ok(_) => Ok(path.to_path_buf()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(path.to_path_buf()),
        Err(e) => Err(e),
    }
}

/// A new file next to the one being saved, removed again unless it is renamed into place.
struct TempFile {
    path: PathBuf,
    file: File,
    renamed: bool,
}

impl TempFile {
    /// Creates `.NAME.PID.N.tmp` in `folder`, trying further numbers while one exists.
    fn create(folder: &Path, name: &std::ffi::OsStr) -> io::Result<TempFile> {
        let pid = std::process::id();
        for n in 0.. {
            let mut temp_name = std::ffi::OsString::from(".");
            temp_name.push(name);
            temp_name.push(format!(".{pid}.{n}.tmp"));
            let path = folder.join(temp_name);
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(file) => {
                    return Ok(TempFile {
                        path,
                        file,
                        renamed: false,
                    })
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        unreachable!("the loop returns")
    }

    fn file(&self) -> &File {
        &self.file
    }

    fn rename_to(mut self, destination: &Path) -> io::Result<()> {
        fs::rename(&self.path, destination)?;
        self.renamed = true;
        Ok(())
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.renamed {
            // Best effort: the save already failed and reports why.
            let _ = fs::remove_file(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names_in(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn first_save_creates_the_file_without_backup() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.sgml");
        write_with_backup(&path, b"one").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"one");
        assert_eq!(names_in(dir.path()), ["a.sgml"]);
    }

    #[test]
    fn later_saves_keep_exactly_one_backup_of_the_previous_version() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.sgml");
        write_with_backup(&path, b"one").unwrap();
        write_with_backup(&path, b"two").unwrap();
        write_with_backup(&path, b"three").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"three");
        assert_eq!(fs::read(dir.path().join("a.sgml~")).unwrap(), b"two");
        assert_eq!(names_in(dir.path()), ["a.sgml", "a.sgml~"]);
    }

    #[cfg(unix)]
    #[test]
    fn permissions_carry_over_and_links_are_followed() {
        use std::os::unix::fs::{symlink, PermissionsExt};
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.sgml");
        fs::write(&real, b"old").unwrap();
        fs::set_permissions(&real, fs::Permissions::from_mode(0o640)).unwrap();
        let link = dir.path().join("link.sgml");
        symlink(&real, &link).unwrap();
        write_with_backup(&link, b"new").unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read(&real).unwrap(), b"new");
        assert_eq!(fs::read(dir.path().join("real.sgml~")).unwrap(), b"old");
        let mode = fs::metadata(&real).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
    }

    #[test]
    fn a_failed_save_leaves_the_old_file_and_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.sgml");
        write_with_backup(&path, b"old").unwrap();
        // A folder in the way of the backup makes the save fail after the new version was
        // written to its temporary file.
        fs::create_dir(dir.path().join("a.sgml~")).unwrap();
        fs::write(dir.path().join("a.sgml~").join("x"), b"").unwrap();
        assert!(write_with_backup(&path, b"new").is_err());
        assert_eq!(fs::read(&path).unwrap(), b"old");
        assert_eq!(names_in(dir.path()), ["a.sgml", "a.sgml~"]);
    }
}
