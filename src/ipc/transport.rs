//! The private connection between a host and each of its slaves (dissertation 6.2.2: "a UNIX
//! pipe is set up to provide a bidirectional control channel").
//!
//! The host makes a connected pair of Unix stream sockets, starts `asgard slave --dbus-fd N`
//! with one end as descriptor N (the only descriptor it clears close-on-exec for), and speaks
//! D-Bus peer to peer on the other. No bus daemon is involved, so no other process can reach
//! the slave, and the slave exits when the host closes its end or dies.
//!
//! The host authenticates as the D-Bus *client* and the slave as the *server* (with a fresh
//! GUID). Client authentication over an existing socket is what every D-Bus library offers —
//! GDBus, sd-bus, dbus-python and jeepney (which has no server side at all) — so a third-party
//! host in any language can drive a slave; the slave is ours and can take the rarer role.

use super::wire::{checked_socket, Refusal};
use std::fmt;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus};
use zbus::connection::Builder;
use zbus::{Connection, Guid};

/// The command-line option that names the inherited socket.
pub const DBUS_FD_OPTION: &str = "--dbus-fd";

/// A slave process a host started, with the connection to it.
pub struct SlaveProcess {
    pub child: Child,
    pub connection: Connection,
}

/// Why a slave could not be started or reached.
#[derive(Debug)]
pub enum TransportError {
    /// The socket pair could not be made.
    Socket(io::Error),
    /// The program could not be started.
    Spawn { program: PathBuf, error: io::Error },
    /// The D-Bus handshake failed; the slave was ended, with this exit status.
    Handshake {
        error: zbus::Error,
        exit: Option<ExitStatus>,
    },
    /// `--dbus-fd` named a standard stream.
    StandardStream(RawFd),
    /// `--dbus-fd` named a descriptor that is not an open socket; `found` says what it is.
    NotASocket { fd: RawFd, found: String },
    /// The inherited socket could not be prepared.
    Inherit { fd: RawFd, error: io::Error },
}

impl fmt::Display for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TransportError::Socket(e) => write!(f, "cannot make a socket pair: {e}"),
            TransportError::Spawn { program, error } => {
                write!(f, "cannot start {}: {error}", program.display())
            }
            TransportError::Handshake {
                error,
                exit: Some(status),
            } => write!(
                f,
                "the D-Bus handshake with the slave failed (it ended with {status}): {error}"
            ),
            TransportError::Handshake { error, exit: None } => {
                write!(f, "the D-Bus handshake with the slave failed: {error}")
            }
            TransportError::StandardStream(fd) => write!(
                f,
                "{DBUS_FD_OPTION} {fd} names a standard stream; expected the socket the host \
                 passed (3 or more)"
            ),
            TransportError::NotASocket { fd, found } => write!(
                f,
                "{DBUS_FD_OPTION} {fd} is not an open socket ({found}); expected the socket the \
                 host passed"
            ),
            TransportError::Inherit { fd, error } => {
                write!(f, "cannot take over descriptor {fd}: {error}")
            }
        }
    }
}

impl std::error::Error for TransportError {}

impl SlaveProcess {
    /// Starts `command` (which should run `asgard slave`; [`DBUS_FD_OPTION`] and the
    /// descriptor number are appended) with one end of a new socket pair, and connects to it.
    pub async fn spawn(mut command: Command) -> Result<SlaveProcess, TransportError> {
        let (host_end, slave_end) = UnixStream::pair().map_err(TransportError::Socket)?;
        command
            .arg(DBUS_FD_OPTION)
            .arg(slave_end.as_raw_fd().to_string());
        pass_descriptor(&mut command, slave_end.as_fd());
        let mut child = command.spawn().map_err(|error| TransportError::Spawn {
            program: PathBuf::from(command.get_program()),
            error,
        })?;
        // The slave holds its end now; ours must close so that we see the slave end.
        drop(slave_end);
        match host_connection(host_end).await {
            Ok(connection) => Ok(SlaveProcess { child, connection }),
            Err(error) => {
                // Whatever it is, it must not outlive the failed start (killing a process that
                // has already exited does nothing, and `wait` then gives its own status).
                let _ = child.kill();
                let exit = child.wait().ok();
                Err(TransportError::Handshake { error, exit })
            }
        }
    }
}

/// Makes `command`'s process inherit `fd` under the same number: the descriptor's
/// close-on-exec flag is cleared in the child only, so no other process this one starts (a
/// host may start several slaves at once) inherits it.
pub fn pass_descriptor(command: &mut Command, fd: BorrowedFd<'_>) {
    let raw = fd.as_raw_fd();
    // SAFETY: the closure runs in the forked child before exec and makes one async-signal-safe
    // system call on a descriptor the child has under the same number (the caller keeps `fd`
    // open until the process is spawned).
    unsafe {
        command.pre_exec(move || {
            let inherited = BorrowedFd::borrow_raw(raw);
            rustix::io::fcntl_setfd(inherited, rustix::io::FdFlags::empty())?;
            Ok(())
        });
    }
}

/// The host's side of a private connection: a peer-to-peer D-Bus client on `stream`.
pub async fn host_connection(stream: UnixStream) -> zbus::Result<Connection> {
    Builder::async_io_unix_stream(stream).p2p().build().await
}

/// The slave's side of a private connection: a peer-to-peer D-Bus server on `stream`, to which
/// the slave adds its objects before building it. Every message the host sends is checked
/// before zbus reads it ([`super::wire`]); the [`Refusal`] says, once the connection has
/// ended, whether a malformed message ended it.
pub fn slave_connection(stream: UnixStream) -> zbus::Result<(Builder<'static>, Refusal)> {
    let (socket, refusal) =
        checked_socket(stream).map_err(|e| zbus::Error::InputOutput(e.into()))?;
    Ok((
        Builder::socket(socket).server(Guid::generate())?.p2p(),
        refusal,
    ))
}

/// Takes over the socket a host passed as descriptor `fd`, after checking that it is one, and
/// marks it close-on-exec so that processes the slave starts do not inherit it.
pub fn inherited_socket(fd: RawFd) -> Result<UnixStream, TransportError> {
    if (0..=2).contains(&fd) {
        return Err(TransportError::StandardStream(fd));
    }
    let found = match std::fs::read_link(format!("/proc/self/fd/{fd}")) {
        Ok(target) => target.to_string_lossy().into_owned(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => "not open".to_string(),
        Err(error) => return Err(TransportError::Inherit { fd, error }),
    };
    if !found.starts_with("socket:") {
        return Err(TransportError::NotASocket { fd, found });
    }
    // SAFETY: the descriptor is open (it is listed in /proc/self/fd) and nothing else in this
    // process owns it: it was inherited, and this function is its one taker.
    let owned = unsafe { OwnedFd::from_raw_fd(fd) };
    rustix::io::fcntl_setfd(&owned, rustix::io::FdFlags::CLOEXEC).map_err(|e| {
        TransportError::Inherit {
            fd,
            error: e.into(),
        }
    })?;
    Ok(UnixStream::from(owned))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors_that_are_not_the_hosts_socket_are_refused() {
        assert_eq!(
            inherited_socket(1).unwrap_err().to_string(),
            "--dbus-fd 1 names a standard stream; expected the socket the host passed (3 or more)"
        );
        let file = std::fs::File::open("Cargo.toml").unwrap();
        let e = inherited_socket(file.as_raw_fd()).unwrap_err();
        assert!(
            matches!(&e, TransportError::NotASocket { found, .. } if found.ends_with("Cargo.toml")),
            "{e}"
        );
        let e = inherited_socket(1_000_000).unwrap_err();
        assert!(e.to_string().contains("(not open)"), "{e}");
    }

    #[test]
    fn an_inherited_socket_becomes_close_on_exec() {
        let (a, b) = UnixStream::pair().unwrap();
        let fd = OwnedFd::from(b);
        rustix::io::fcntl_setfd(&fd, rustix::io::FdFlags::empty()).unwrap();
        let raw = std::os::fd::IntoRawFd::into_raw_fd(fd);
        let stream = inherited_socket(raw).unwrap();
        let flags = rustix::io::fcntl_getfd(&stream).unwrap();
        assert!(flags.contains(rustix::io::FdFlags::CLOEXEC));
        drop(a);
    }
}
