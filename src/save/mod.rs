//! Writing a file so that a failure or a crash at any moment leaves either the old or the new
//! version, never a mixture: every file Asgard writes (documents, scenes, motion, pictures,
//! exports) goes through here.
//!
//! The new version is written to a temporary file next to the target, flushed to disk and
//! renamed over it. Along the way:
//!
//! - the temporary file (and the backup, where one is kept) is *created* with the mode of the
//!   file it replaces, and set to exactly that mode before a byte is written, so a private
//!   (0600) document is never readable by others, not even for a moment;
//! - a target nobody may write (no write permission bit, or not writable by this user) is
//!   refused before any work with a [`ReadOnlyFile`] error, unless the caller says the user
//!   confirmed ([`ReadOnly::Replace`]): renaming over it would succeed silently, since only the
//!   folder's permissions count for a rename;
//! - temporaries of our own naming (`.NAME.PID.N.tmp`) that a killed save left behind for this
//!   target are removed: those of processes that no longer run, and those of this process that
//!   no save of this process holds. A process that still runs may be saving right now, so its
//!   temporaries are left alone.
//!
//! A device, FIFO or socket (`-o /dev/null`, `-o /dev/stdout`) cannot be replaced and is written
//! directly.

use std::collections::BTreeSet;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::fs::{self, File, Metadata, OpenOptions, Permissions};
use std::io::{self, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// What to do when the file to be replaced is read-only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadOnly {
    /// Refuse with a [`ReadOnlyFile`] error (the default: the user has not been asked).
    Refuse,
    /// Replace it anyway (the user confirmed); the new version is read-only as well.
    Replace,
}

impl ReadOnly {
    /// `Replace` when `force` (a `--force` flag), else `Refuse`.
    pub fn replace_if(force: bool) -> ReadOnly {
        if force {
            ReadOnly::Replace
        } else {
            ReadOnly::Refuse
        }
    }
}

/// How a file is saved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Keep the version being replaced as `NAME~` (replacing an older backup).
    pub backup: bool,
    pub read_only: ReadOnly,
}

impl Options {
    /// A document or scene the user edits: with a backup, read-only files refused.
    pub const DOCUMENT: Options = Options {
        backup: true,
        read_only: ReadOnly::Refuse,
    };
    /// A file Asgard computes (motion, pictures, exports): no backup, read-only files refused.
    pub const OUTPUT: Options = Options {
        backup: false,
        read_only: ReadOnly::Refuse,
    };

    /// These options with `read_only` instead.
    pub fn with_read_only(self, read_only: ReadOnly) -> Options {
        Options { read_only, ..self }
    }
}

/// The refusal to replace a read-only file, carried inside an [`io::Error`] of kind
/// `PermissionDenied`; [`ReadOnlyFile::of`] finds it.
#[derive(Debug)]
pub struct ReadOnlyFile {
    pub path: PathBuf,
    /// The file's permission bits.
    pub mode: u32,
}

impl ReadOnlyFile {
    /// The refusal `error` carries, if it is one.
    pub fn of(error: &io::Error) -> Option<&ReadOnlyFile> {
        error.get_ref().and_then(|inner| inner.downcast_ref())
    }
}

impl ReadOnlyFile {
    /// "the file is read-only (mode 0444), `consequence`".
    pub fn explain(&self, consequence: &str) -> String {
        format!(
            "the file is read-only (mode {:04o}), {consequence}",
            self.mode & 0o7777
        )
    }
}

impl fmt::Display for ReadOnlyFile {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.explain("so it was not replaced"))
    }
}

impl std::error::Error for ReadOnlyFile {}

/// Writes `contents` to `path` atomically with `options` (see the module documentation). A
/// symbolic link is followed, so the file it points to is the one replaced.
pub fn write(path: &Path, contents: &[u8], options: Options) -> io::Result<()> {
    let mut file = AtomicFile::create(path, options)?;
    file.write_all(contents)?;
    file.commit()
}

/// A new version of a file being written: [`Write`] into it, then [`AtomicFile::commit`] puts
/// it in place. Dropped without a commit, it is removed and the old version stays.
pub struct AtomicFile(Target);

enum Target {
    /// A regular file, or none yet: a temporary file renamed over it.
    Replacement(Box<Replacement>),
    /// A device, FIFO or socket (`/dev/null`, `/dev/stdout` on a pipe): nothing can replace
    /// it, so it is written directly.
    Stream(File),
}

struct Replacement {
    new: TempFile,
    target: PathBuf,
    folder: PathBuf,
    name: OsString,
    previous: Option<Metadata>,
    backup: bool,
}

impl AtomicFile {
    /// Starts a new version of `path`: checks that it may be replaced, removes the stale
    /// temporaries of earlier saves of it, and creates the temporary file with its mode.
    pub fn create(path: &Path, options: Options) -> io::Result<AtomicFile> {
        let previous = match fs::metadata(path) {
            Ok(meta) => Some(meta),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(e),
        };
        if let Some(meta) = &previous {
            if meta.is_dir() {
                return Err(io::Error::new(
                    io::ErrorKind::IsADirectory,
                    format!("{} is a folder; expected a file name", path.display()),
                ));
            }
            if !meta.is_file() {
                let stream = OpenOptions::new().write(true).open(path)?;
                return Ok(AtomicFile(Target::Stream(stream)));
            }
            if options.read_only == ReadOnly::Refuse && is_read_only(path, meta) {
                return Err(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    ReadOnlyFile {
                        path: path.to_path_buf(),
                        mode: meta.permissions().mode(),
                    },
                ));
            }
        }
        let target = resolve_link(path)?;
        let folder = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = target
            .file_name()
            .ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{} does not name a file", path.display()),
                )
            })?
            .to_os_string();
        remove_stale_temporaries(&folder, &name);
        let permissions = previous.as_ref().map(Metadata::permissions);
        let new = TempFile::create(&folder, &name, permissions.as_ref())?;
        Ok(AtomicFile(Target::Replacement(Box::new(Replacement {
            new,
            target,
            folder,
            name,
            previous,
            backup: options.backup,
        }))))
    }

    /// Flushes the new version to disk, keeps the old one as `NAME~` when asked to, and
    /// renames the new one into place.
    pub fn commit(self) -> io::Result<()> {
        let replacement = match self.0 {
            Target::Replacement(replacement) => replacement,
            Target::Stream(mut stream) => return stream.flush(),
        };
        let Replacement {
            new,
            target,
            folder,
            name,
            previous,
            backup,
        } = *replacement;
        new.file.sync_all()?;
        if let (true, Some(meta)) = (backup, &previous) {
            let mut backup_name = name;
            backup_name.push("~");
            let mut backup = TempFile::create(&folder, &backup_name, Some(&meta.permissions()))?;
            io::copy(&mut File::open(&target)?, &mut backup.file)?;
            backup.file.sync_all()?;
            backup.rename_to(&folder.join(backup_name))?;
        }
        new.rename_to(&target)?;
        // The renames are durable only once the folder itself is flushed.
        File::open(&folder)?.sync_all()
    }

    fn file(&mut self) -> &mut File {
        match &mut self.0 {
            Target::Replacement(replacement) => &mut replacement.new.file,
            Target::Stream(stream) => stream,
        }
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file().write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.file().write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file().flush()
    }
}

/// Whether nobody may write `path`: no write permission bit at all (which binds even the
/// superuser, whom `access` lets write anything), or not writable by this user.
fn is_read_only(path: &Path, meta: &Metadata) -> bool {
    meta.permissions().readonly() || rustix::fs::access(path, rustix::fs::Access::WRITE_OK).is_err()
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

/// The temporary files this process holds open now, so that its own stale ones (a save that
/// was cut off before its drop ran, in an earlier process with the same id) can be told apart.
static HELD: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());

fn held() -> MutexGuard<'static, BTreeSet<PathBuf>> {
    HELD.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The process id in `file`, when it is a temporary of ours for `name` or its backup:
/// `.NAME.PID.N.tmp` or `.NAME~.PID.N.tmp`.
fn temporary_owner(file: &OsStr, name: &OsStr) -> Option<u32> {
    let file = file.to_str()?;
    let name = name.to_str()?;
    let rest = file.strip_prefix('.')?.strip_prefix(name)?;
    let rest = rest.strip_prefix('~').unwrap_or(rest);
    let (pid, n) = rest
        .strip_prefix('.')?
        .strip_suffix(".tmp")?
        .split_once('.')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(pid) && digits(n)).then(|| pid.parse().ok())?
}

/// Whether process `pid` exists (it may belong to another user).
fn is_running(pid: u32) -> bool {
    let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return false;
    };
    !matches!(
        rustix::process::test_kill_process(pid),
        Err(rustix::io::Errno::SRCH)
    )
}

/// Removes the temporaries of earlier saves of `name` in `folder` that nobody holds any more.
/// Best effort: a folder that cannot be listed, or a file that cannot be removed, is left for
/// the save itself to report or for a later save to try again.
fn remove_stale_temporaries(folder: &Path, name: &OsStr) {
    let Ok(entries) = fs::read_dir(folder) else {
        return;
    };
    let own = std::process::id();
    for entry in entries.flatten() {
        let Some(pid) = temporary_owner(&entry.file_name(), name) else {
            continue;
        };
        let path = entry.path();
        let stale = if pid == own {
            !held().contains(&path)
        } else {
            !is_running(pid)
        };
        if stale && entry.file_type().is_ok_and(|t| t.is_file()) {
            let _ = fs::remove_file(&path);
        }
    }
}

/// A new file next to the one being saved, removed again unless it is renamed into place.
struct TempFile {
    path: PathBuf,
    file: File,
    renamed: bool,
}

impl TempFile {
    /// Creates `.NAME.PID.N.tmp` in `folder`, trying further numbers while one exists, with
    /// `permissions` (those of the file it replaces) from the start, or the default mode for a
    /// new file.
    fn create(folder: &Path, name: &OsStr, permissions: Option<&Permissions>) -> io::Result<Self> {
        let pid = std::process::id();
        // The creation mode can only be narrowed by the umask; the exact mode is set before
        // anything is written.
        let mode = permissions.map_or(0o666, |p| p.mode() & 0o777);
        for n in 0u64.. {
            let mut temp_name = OsString::from(".");
            temp_name.push(name);
            temp_name.push(format!(".{pid}.{n}.tmp"));
            let path = folder.join(temp_name);
            let opened = OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(mode)
                .open(&path);
            match opened {
                Ok(file) => {
                    held().insert(path.clone());
                    let temp = TempFile {
                        path,
                        file,
                        renamed: false,
                    };
                    if let Some(permissions) = permissions {
                        temp.file.set_permissions(permissions.clone())?;
                    }
                    return Ok(temp);
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        unreachable!("the loop returns")
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
        held().remove(&self.path);
    }
}

#[cfg(test)]
mod tests;
