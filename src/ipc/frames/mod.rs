//! Frames in shared memory: how a slave hands rendered pictures to its host.
//!
//! GTK 4.8 cannot embed another process's window, so a rendition is drawn off-screen by the
//! slave and copied into a sealed memfd that the host maps (PLATFORM.md). The memory holds a
//! small file header and N frame buffers, each with a header of its own; the layout is the one
//! `schemas/org.asgard.Rendition1.xml` documents, so a host in any language can read it.
//!
//! A [`FrameWriter`] (the slave) makes the memory, seals it against shrinking and growing so
//! that a reader's mapping can never fault, and writes frames into the buffers in turn. Each
//! buffer's header holds a sequence counter: odd while the buffer is being written, even when
//! it holds a whole frame. A [`FrameReader`] (the host) maps the descriptor it received, checks
//! the layout against the header, and copies a frame out, reading the counter before and after:
//! a changed or odd counter means the copy is torn and is dropped, never shown.
//!
//! When a rendition is resized or closed its writer is dropped, which marks the memory
//! *retired*; readers see that and fetch the new memory.

mod layout;
mod memory;
mod reader;
mod writer;

pub use layout::{FrameLayout, BUFFER_HEADER_SIZE, FILE_HEADER_SIZE, MAGIC, MAX_BUFFERS};
pub use reader::{FrameBufferReply, FrameReader, ReadError};
pub use writer::FrameWriter;

use std::fmt;
use std::io;

/// A frame that was read, or written: its serial, its buffer and the simulated time it shows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameInfo {
    pub serial: u64,
    pub buffer: u32,
    pub time: f64,
}

/// Frame memory that could not be made or trusted.
#[derive(Debug)]
pub enum FrameError {
    /// A system call on the memory failed; `doing` says which step.
    Io {
        doing: &'static str,
        error: io::Error,
    },
    /// A layout that cannot describe frame memory.
    BadLayout(String),
    /// The memory's size is not the one its layout implies.
    SizeMismatch { expected: u64, found: u64 },
    /// The memory may shrink under the reader, which would crash it.
    NotSealed,
    /// The memory's header disagrees with the layout it came with.
    BadHeader(String),
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::Io { doing, error } => write!(f, "{doing}: {error}"),
            FrameError::BadLayout(m) => write!(f, "bad frame layout: {m}"),
            FrameError::SizeMismatch { expected, found } => write!(
                f,
                "the frame memory has {found} bytes, but its layout needs {expected}"
            ),
            FrameError::NotSealed => write!(
                f,
                "the frame memory is not sealed against shrinking, so mapping it is unsafe"
            ),
            FrameError::BadHeader(m) => write!(f, "bad frame memory header: {m}"),
        }
    }
}

impl std::error::Error for FrameError {}

impl FrameError {
    fn io(doing: &'static str) -> impl FnOnce(io::Error) -> FrameError {
        move |error| FrameError::Io { doing, error }
    }
}

#[cfg(test)]
mod tests;
