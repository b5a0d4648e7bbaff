//! Who may call a slave.
//!
//! On the private connection a host gives it (`--dbus-fd N`) there is only one peer, the host,
//! and every call is its. On the session bus (`--session-bus`) every process of the session
//! could call, and one that replaced the scene would have the host store it in a document. So
//! there the slave answers only:
//!
//! - connections of the process that started it (its parent, while it lives), of the same user;
//! - connections that *authenticated*: called `org.asgard.SessionAccess1.Authenticate` with the
//!   token the slave printed on its standard output at start-up, from a process of the same
//!   user.
//!
//! Every other call is answered `org.asgard.Asgard1.Error.AccessDenied` (properties:
//! `org.freedesktop.DBus.Error.AccessDenied`), saying how to get in. Introspection and `Ping`
//! stay open: they tell nothing but the contract. Signals are broadcast as on any bus, so
//! other processes of the session can hear them; a scene that must stay private belongs on the
//! private connection.
//!
//! A sender's credentials come from the bus daemon (`GetConnectionCredentials`, which it takes
//! from the socket when the connection is made, so they cannot be forged); a connection found
//! to be admitted is remembered by its unique name, which the bus never reuses.

use crate::ipc::names::{slave_bus_name, SESSION_ACCESS_INTERFACE};
use crate::ipc::Error;
use std::collections::HashSet;
use std::io::Read;
use std::sync::Mutex;
use zbus::message::Header;
use zbus::names::{BusName, OwnedUniqueName};

/// Bytes of randomness in a token (printed as twice as many hex digits).
const TOKEN_BYTES: usize = 16;

/// Who may call this slave.
pub enum Access {
    /// The private connection: its one peer is the host.
    Private,
    /// The session bus: the starting process and connections that authenticated.
    Session(SessionAccess),
}

/// The session-bus rules of [`Access::Session`].
pub struct SessionAccess {
    token: String,
    /// The slave's user.
    uid: u32,
    /// The process that started the slave.
    starter: u32,
    admitted: Mutex<HashSet<OwnedUniqueName>>,
}

impl SessionAccess {
    /// The rules for a slave started now by its parent process, with a fresh random token.
    pub fn new() -> std::io::Result<SessionAccess> {
        let mut bytes = [0u8; TOKEN_BYTES];
        std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
        let token = bytes.iter().map(|b| format!("{b:02x}")).collect();
        Ok(SessionAccess {
            token,
            uid: rustix::process::getuid().as_raw(),
            starter: parent_pid(),
            admitted: Mutex::new(HashSet::new()),
        })
    }

    /// The token to print at start-up.
    pub fn token(&self) -> &str {
        &self.token
    }

    fn is_admitted(&self, name: &OwnedUniqueName) -> bool {
        self.admitted.lock().is_ok_and(|a| a.contains(name))
    }

    fn admit(&self, name: OwnedUniqueName) {
        if let Ok(mut admitted) = self.admitted.lock() {
            admitted.insert(name);
        }
    }

    /// Why a caller is refused: what it is, and how it gets in.
    fn refusal(&self, what: &str) -> Error {
        Error::AccessDenied(format!(
            "{what}: on the session bus this slave answers only the process that started it \
             (process {starter}) and connections of user {uid} that called \
             {SESSION_ACCESS_INTERFACE}.Authenticate with the token it printed at start-up \
             (after {name})",
            starter = self.starter,
            uid = self.uid,
            name = slave_bus_name(std::process::id()),
        ))
    }
}

/// The parent process's id (1 or a reaper's once the parent is gone).
fn parent_pid() -> u32 {
    rustix::process::Pid::as_raw(rustix::process::getppid()) as u32
}

/// The sender of a call, and its user and process as the bus daemon knows them.
struct Caller {
    name: OwnedUniqueName,
    uid: Option<u32>,
    pid: Option<u32>,
}

async fn caller(header: &Header<'_>, connection: &zbus::Connection) -> Result<Caller, Error> {
    let name: OwnedUniqueName = header
        .sender()
        .ok_or_else(|| Error::AccessDenied("a call without a sender".into()))?
        .to_owned()
        .into();
    let bus = zbus::fdo::DBusProxy::new(connection)
        .await
        .map_err(|e| Error::Failed(format!("cannot ask the bus who is calling: {e}")))?;
    let credentials = bus
        .get_connection_credentials(BusName::Unique(name.as_ref()))
        .await
        .map_err(|e| Error::Failed(format!("cannot ask the bus who {name} is: {e}")))?;
    Ok(Caller {
        uid: credentials.unix_user_id(),
        pid: credentials.process_id(),
        name,
    })
}

impl Access {
    /// Whether the sender of the call with `header` may call (see the module documentation);
    /// a property read the object server makes itself has no header and is let through.
    pub async fn check(
        &self,
        header: Option<&Header<'_>>,
        connection: &zbus::Connection,
    ) -> Result<(), Error> {
        let (Access::Session(rules), Some(header)) = (self, header) else {
            return Ok(());
        };
        if header
            .sender()
            .is_some_and(|s| rules.is_admitted(&s.to_owned().into()))
        {
            return Ok(());
        }
        let caller = caller(header, connection).await?;
        let starter_lives = parent_pid() == rules.starter;
        if caller.uid == Some(rules.uid) && caller.pid == Some(rules.starter) && starter_lives {
            rules.admit(caller.name);
            return Ok(());
        }
        Err(rules.refusal(&format!("{} is not admitted", caller.name)))
    }

    /// `Authenticate(token)`: admits the caller when `token` is the one printed at start-up
    /// and the caller runs as the slave's user.
    pub async fn authenticate(
        &self,
        token: &str,
        header: &Header<'_>,
        connection: &zbus::Connection,
    ) -> Result<(), Error> {
        let Access::Session(rules) = self else {
            return Ok(());
        };
        let caller = caller(header, connection).await?;
        if caller.uid != Some(rules.uid) {
            let user = caller.uid.map_or("unknown".into(), |u| u.to_string());
            return Err(rules.refusal(&format!(
                "{} runs as user {user}, not the slave's",
                caller.name
            )));
        }
        if !same_secret(token.as_bytes(), rules.token.as_bytes()) {
            return Err(rules.refusal(&format!(
                "{} gave a token that is not this slave's",
                caller.name
            )));
        }
        rules.admit(caller.name);
        Ok(())
    }
}

/// Whether `a` and `b` are equal, in time that does not depend on where they differ.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0, |d, (x, y)| d | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_fresh_hex_of_the_stated_length() {
        let a = SessionAccess::new().unwrap();
        let b = SessionAccess::new().unwrap();
        assert_eq!(a.token().len(), 2 * TOKEN_BYTES);
        assert!(a.token().bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a.token(), b.token());
    }

    #[test]
    fn secrets_compare_by_content() {
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"abc", b"abd"));
        assert!(!same_secret(b"abc", b"abcd"));
    }

    #[test]
    fn the_refusal_says_how_to_get_in() {
        let rules = SessionAccess::new().unwrap();
        let Error::AccessDenied(message) = rules.refusal(":1.7 is not admitted") else {
            panic!("not AccessDenied");
        };
        assert!(message.starts_with(":1.7 is not admitted: "), "{message}");
        assert!(message.contains("org.asgard.SessionAccess1.Authenticate"));
        assert!(message.contains("printed at start-up"));
    }
}
