//! The slave's guard on its socket: every message a host sends is checked before zbus reads it.
//!
//! zbus (5.19) takes in a message whose header names an invalid interface, member, error
//! name, destination or sender (decoding the header fields does not check those names) and
//! panics when it reads the name back, in the task that receives messages: the connection then
//! stays open but deaf, and the host waits for replies that never come. The `dbus_request`
//! fuzz target found it with a `Introspect` call whose member name had a `/` in it
//! (docs/FUZZING.md).
//!
//! [`CheckedRead`] sits between the socket and zbus. It passes the authentication lines
//! through as they come, and from the client's `BEGIN` on frames the byte stream into messages
//! and hands zbus only those [`check_message`] accepts. At the first malformed message it fails
//! the read, which ends the connection (as a bus daemon disconnects a client that breaks the
//! protocol) and with it the slave: the host sees its slave end, with the reason on the
//! slave's standard error, instead of hanging.

use async_io::Async;
use std::fmt;
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::sync::{Arc, Mutex, PoisonError};
use zbus::connection::socket::{BoxedSplit, ReadHalf, Split, WriteHalf};
use zbus::fdo::ConnectionCredentials;
use zbus::names::{BusName, ErrorName, InterfaceName, MemberName, UniqueName};
use zbus::zvariant::serialized::{Context, Data};
use zbus::zvariant::{Endian, ObjectPath, Value};

/// The largest message the D-Bus specification (and zbus) allows: 128 MiB.
pub const MAX_MESSAGE_SIZE: usize = 128 << 20;

/// The fixed part of every message's header.
const PRIMARY_HEADER: usize = 16;

/// Why a message was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Malformed(pub String);

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a malformed D-Bus message: {}", self.0)
    }
}

impl std::error::Error for Malformed {}

fn endian(first: u8) -> Result<Endian, Malformed> {
    match first {
        b'l' => Ok(Endian::Little),
        b'B' => Ok(Endian::Big),
        other => Err(Malformed(format!(
            "its first byte is {other:#04x}; expected 'l' or 'B' (the byte order)"
        ))),
    }
}

/// The whole length of the message whose first 16 bytes are `header`, as the primary header
/// gives it (the header fields, padding to 8 and the body), within [`MAX_MESSAGE_SIZE`].
pub fn message_length(header: &[u8]) -> Result<usize, Malformed> {
    let Some(header) = header.get(..PRIMARY_HEADER) else {
        return Err(Malformed(format!(
            "{} bytes; a message has at least {PRIMARY_HEADER}",
            header.len()
        )));
    };
    let order = endian(header[0])?;
    let word = |at: usize| {
        let bytes = [header[at], header[at + 1], header[at + 2], header[at + 3]];
        match order {
            Endian::Little => u32::from_le_bytes(bytes),
            Endian::Big => u32::from_be_bytes(bytes),
        }
    };
    let fields = PRIMARY_HEADER as u64 + u64::from(word(12));
    let total = fields.next_multiple_of(8) + u64::from(word(4));
    if total > MAX_MESSAGE_SIZE as u64 {
        return Err(Malformed(format!(
            "{total} bytes long, more than the D-Bus limit of {MAX_MESSAGE_SIZE} bytes"
        )));
    }
    Ok(total as usize)
}

/// Checks what zbus reads from a message's header without checking: the names in its header
/// fields. `bytes` is one whole message ([`message_length`] long). Fields that do not decode
/// at all are left to zbus, which refuses such a message with an error rather than a panic.
pub fn check_message(bytes: &[u8]) -> Result<(), Malformed> {
    let order = endian(bytes.first().copied().unwrap_or(0))?;
    let end = message_length(bytes)?;
    if bytes.len() != end {
        return Err(Malformed(format!(
            "{} bytes where its header says {end}",
            bytes.len()
        )));
    }
    // The fields array starts at byte 12 with its length; alignment counts from the message.
    let fields = Data::new(&bytes[12..], Context::new_dbus(order, 12));
    let Ok((fields, _)) = fields.deserialize::<Vec<(u8, Value<'_>)>>() else {
        return Ok(());
    };
    for (code, value) in &fields {
        let text = match value {
            Value::Str(s) => s.as_str(),
            Value::ObjectPath(p) => p.as_str(),
            _ => continue,
        };
        let problem = match code {
            1 => ObjectPath::try_from(text).err().map(|_| "object path"),
            2 => InterfaceName::try_from(text)
                .err()
                .map(|_| "interface name"),
            3 => MemberName::try_from(text).err().map(|_| "member name"),
            4 => ErrorName::try_from(text).err().map(|_| "error name"),
            6 => BusName::try_from(text)
                .err()
                .map(|_| "destination bus name"),
            7 => UniqueName::try_from(text)
                .err()
                .map(|_| "sender (a unique bus name)"),
            _ => None,
        };
        if let Some(what) = problem {
            return Err(Malformed(format!(
                "header field {code} is '{}', not a valid {what}",
                text.chars().take(60).collect::<String>()
            )));
        }
    }
    Ok(())
}

/// Why a checked stream stopped, readable after the connection ended (none while it is open,
/// or when it ended otherwise).
#[derive(Clone, Debug, Default)]
pub struct Refusal(Arc<Mutex<Option<Malformed>>>);

impl Refusal {
    /// The message that stopped the stream, if one did.
    pub fn reason(&self) -> Option<Malformed> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn set(&self, reason: Malformed) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(reason);
    }
}

/// Where the stream stands: authentication lines until the client's `BEGIN`, then messages.
#[derive(Debug)]
enum Phase {
    /// The bytes of the line read so far.
    Authenticating(Vec<u8>),
    Messages,
}

/// The read half of a slave's socket with every message checked (see the module
/// documentation).
#[derive(Debug)]
pub struct CheckedRead {
    socket: Arc<Async<UnixStream>>,
    phase: Phase,
    /// Bytes read and not yet framed into a whole message, with the descriptors that came
    /// with them.
    incoming: Vec<u8>,
    incoming_fds: Vec<OwnedFd>,
    /// Bytes passed and not yet handed to zbus (`ready[given..]`).
    ready: Vec<u8>,
    given: usize,
    ready_fds: Vec<OwnedFd>,
    /// The message that stopped the stream: the reads fail with it once `ready` is given.
    refused: Option<Malformed>,
    /// Where the reason is kept for the slave to report.
    refusal: Refusal,
}

/// How much is read from the socket at a time.
const READ_SIZE: usize = 64 << 10;

impl CheckedRead {
    fn new(socket: Arc<Async<UnixStream>>, refusal: Refusal) -> CheckedRead {
        CheckedRead {
            socket,
            phase: Phase::Authenticating(Vec::new()),
            incoming: Vec::new(),
            incoming_fds: Vec::new(),
            ready: Vec::new(),
            given: 0,
            ready_fds: Vec::new(),
            refused: None,
            refusal,
        }
    }

    /// Moves what is incoming to what is ready, as far as it may go: authentication bytes up
    /// to and including the `BEGIN` line, then whole checked messages.
    fn pass(&mut self) -> Result<(), Malformed> {
        loop {
            match &mut self.phase {
                Phase::Authenticating(line) => {
                    let mut taken = 0;
                    let mut began = false;
                    for &byte in &self.incoming {
                        taken += 1;
                        line.push(byte);
                        if byte == b'\n' {
                            began = line == b"BEGIN\r\n";
                            line.clear();
                            if began {
                                break;
                            }
                        }
                    }
                    self.ready.extend(self.incoming.drain(..taken));
                    self.ready_fds.append(&mut self.incoming_fds);
                    if !began {
                        return Ok(());
                    }
                    self.phase = Phase::Messages;
                }
                Phase::Messages => {
                    if self.incoming.len() < PRIMARY_HEADER {
                        return Ok(());
                    }
                    let length = message_length(&self.incoming)?;
                    if self.incoming.len() < length {
                        return Ok(());
                    }
                    check_message(&self.incoming[..length])?;
                    self.ready.extend(self.incoming.drain(..length));
                    self.ready_fds.append(&mut self.incoming_fds);
                }
            }
        }
    }
}

#[async_trait::async_trait]
impl ReadHalf for CheckedRead {
    async fn recvmsg(&mut self, buf: &mut [u8]) -> io::Result<(usize, Vec<OwnedFd>)> {
        loop {
            if self.given < self.ready.len() {
                let n = buf.len().min(self.ready.len() - self.given);
                buf[..n].copy_from_slice(&self.ready[self.given..self.given + n]);
                self.given += n;
                if self.given == self.ready.len() {
                    self.ready.clear();
                    self.given = 0;
                }
                return Ok((n, std::mem::take(&mut self.ready_fds)));
            }
            if let Some(refused) = &self.refused {
                return Err(io::Error::new(io::ErrorKind::InvalidData, refused.clone()));
            }
            let mut chunk = vec![0; READ_SIZE];
            let (read, fds) = self.socket.recvmsg(&mut chunk).await?;
            if read == 0 {
                return Ok((0, fds));
            }
            self.incoming.extend_from_slice(&chunk[..read]);
            self.incoming_fds.extend(fds);
            if let Err(refused) = self.pass() {
                // What passed before it is still handed over.
                self.refusal.set(refused.clone());
                self.refused = Some(refused);
            }
        }
    }

    fn can_pass_unix_fd(&self) -> bool {
        true
    }

    async fn peer_credentials(&mut self) -> io::Result<ConnectionCredentials> {
        ReadHalf::peer_credentials(&mut self.socket).await
    }
}

/// `stream` split for zbus, its reads checked by [`CheckedRead`], and where the reason it
/// stopped will be.
pub fn checked_socket(stream: UnixStream) -> io::Result<(BoxedSplit, Refusal)> {
    let socket = Arc::new(Async::new(stream)?);
    let refusal = Refusal::default();
    let write: Box<dyn WriteHalf> = Box::new(socket.clone());
    let read: Box<dyn ReadHalf> = Box::new(CheckedRead::new(socket, refusal.clone()));
    Ok((Split::new(read, write), refusal))
}

#[cfg(test)]
mod tests {
    use super::*;
    use zbus::message::Message;

    fn call(member: &str) -> Vec<u8> {
        Message::method_call("/org/asgard/Asgard1/Subdocument", member)
            .unwrap()
            .interface("org.freedesktop.DBus.Peer")
            .unwrap()
            .build(&())
            .unwrap()
            .data()
            .to_vec()
    }

    /// The message zbus would take in and then panic on: the member name of a valid call
    /// overwritten with one that has a `/` (the fuzz target's finding, minimised).
    fn bad_member() -> Vec<u8> {
        let mut bytes = call("Pingx");
        let at = bytes.windows(5).position(|w| w == b"Pingx").unwrap();
        bytes[at + 4] = b'/';
        bytes
    }

    #[test]
    fn zbus_would_take_the_bad_message_in_and_the_check_refuses_it() {
        let bytes = bad_member();
        let data = Data::new(bytes.clone(), Context::new_dbus(Endian::Little, 0));
        // SAFETY: as in the fuzz target; the point is that zbus accepts these bytes.
        assert!(unsafe { Message::from_bytes(data) }.is_ok());
        assert_eq!(
            check_message(&bytes),
            Err(Malformed(
                "header field 3 is 'Ping/', not a valid member name".into()
            ))
        );
        assert_eq!(check_message(&call("Ping")), Ok(()));
    }

    #[test]
    fn lengths_come_from_the_primary_header_within_the_limit() {
        let good = call("Ping");
        assert_eq!(message_length(&good), Ok(good.len()));
        assert!(check_message(&good[..good.len() - 1]).is_err());
        let mut huge = good.clone();
        huge[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(message_length(&huge)
            .unwrap_err()
            .0
            .contains("more than the D-Bus limit"));
        assert!(message_length(b"x123456789abcdef")
            .unwrap_err()
            .0
            .contains("byte order"));
        assert!(message_length(b"l\x01").is_err());
    }

    /// A checked read over a socket pair: the authentication lines pass, then whole good
    /// messages, however the bytes are cut; a bad message fails the read.
    #[test]
    fn the_stream_passes_authentication_and_good_messages_and_stops_at_a_bad_one() {
        let (mut host, slave) = UnixStream::pair().unwrap();
        let (split, refusal) = checked_socket(slave).unwrap();
        let (mut read, _write) = split.take();
        let auth = b"\0AUTH EXTERNAL 30\r\nBEGIN\r\n".to_vec();
        let good = call("Ping");
        let mut stream = auth.clone();
        stream.extend(&good);
        stream.extend(&bad_member());
        std::thread::spawn(move || {
            for piece in stream.chunks(7) {
                std::io::Write::write_all(&mut host, piece).unwrap();
            }
            // Keep the socket open: the read must fail on the bad message, not at the end.
            std::thread::park();
        });
        let mut got: Vec<u8> = Vec::new();
        let failure = zbus::block_on(async {
            let mut buf = [0; 5];
            loop {
                match read.recvmsg(&mut buf).await {
                    Ok((n, _)) => got.extend(&buf[..n]),
                    Err(e) => return e,
                }
            }
        });
        let mut expected = auth;
        expected.extend(&good);
        assert_eq!(got, expected, "{failure}");
        assert_eq!(failure.kind(), io::ErrorKind::InvalidData);
        assert_eq!(
            refusal.reason().map(|r| r.to_string()),
            Some(failure.to_string())
        );
        assert!(
            failure.to_string().contains("not a valid member name"),
            "{failure}"
        );
    }
}
