//! The D-Bus interface's request decoding: arbitrary bytes taken as one message on a slave's
//! connection. The bytes go the way a slave takes what a host writes: `ipc::wire` frames them
//! by the primary header's lengths and checks the header's names (a message it refuses ends
//! the connection); zbus reads what passes into a `Message`, as its socket reader does; and
//! `ipc::request` decodes the call as the slave's object server would dispatch it (object
//! path, interface, member, the body against the method's signature, every argument's check).
//! Whatever the bytes, that ends in a refusal, a request or a named error, never a panic.
//!
//! Run and corpus: docs/FUZZING.md.

#![no_main]

use asgard::ipc::request::Request;
use asgard::ipc::wire::{check_message, message_length};
use libfuzzer_sys::fuzz_target;
use zbus::message::Message;
use zbus::zvariant::serialized::{Context, Data};
use zbus::zvariant::Endian;

fuzz_target!(|data: &[u8]| {
    let Ok(length) = message_length(data) else {
        return;
    };
    let Some(bytes) = data.get(..length) else {
        return;
    };
    if check_message(bytes).is_err() {
        return;
    }
    let endian = if bytes[0] == b'l' {
        Endian::Little
    } else {
        Endian::Big
    };
    let bytes = Data::new(bytes.to_vec(), Context::new_dbus(endian, 0));
    // SAFETY: zbus reads messages from a socket exactly this way (`Message::from_raw_parts`
    // on the bytes received); "unsafe" marks that the bytes are untrusted, which they are on a
    // slave's connection too.
    let Ok(message) = (unsafe { Message::from_bytes(bytes) }) else {
        return;
    };
    match Request::decode(&message) {
        Ok(request) => {
            let _ = format!("{request:?}");
        }
        Err(e) => assert!(!e.message().is_empty(), "{e:?}"),
    }
});
