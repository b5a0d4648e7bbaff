//! The host's side of frame memory.

use super::layout::{file, FrameLayout, MAGIC};
use super::memory::{buffer_header, retired, BufferHeader};
use super::{FrameError, FrameInfo};
use memmap2::{Mmap, MmapOptions};
use rustix::fs::SealFlags;
use std::fmt;
use std::os::fd::OwnedFd;
use std::sync::atomic::{fence, Ordering};

/// What `GetFrameBuffer` returns: (fd, width, height, stride, buffers, buffer_size).
pub type FrameBufferReply = (zbus::zvariant::OwnedFd, u32, u32, u32, u32, u64);

/// Frame memory received from a slave, mapped read-only.
pub struct FrameReader {
    /// Keeps the mapping alive; every access goes through `base`.
    _memory: Mmap,
    base: *const u8,
    layout: FrameLayout,
}

// SAFETY: `base` points into `_memory`, which the reader owns and which moves with it; the
// reader only reads through it.
unsafe impl Send for FrameReader {}

/// Why a frame could not be read from a buffer. Each is a normal event of a live rendition,
/// not a failure: the reader waits for the next FrameReady.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadError {
    /// The buffer index is beyond the memory's buffers.
    NoSuchBuffer { buffer: u32, buffers: u32 },
    /// No frame has been written to the buffer yet.
    Empty,
    /// The slave wrote the buffer while it was being copied.
    Torn,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::NoSuchBuffer { buffer, buffers } => write!(
                f,
                "frame buffer {buffer} does not exist: the memory has {buffers}"
            ),
            ReadError::Empty => write!(f, "the frame buffer holds no frame yet"),
            ReadError::Torn => write!(f, "the frame was overwritten while it was read"),
        }
    }
}

impl std::error::Error for ReadError {}

impl FrameReader {
    /// Maps frame memory received with `layout` (as `GetFrameBuffer` returns them), after
    /// checking that the layout is sane, the memory is sealed against shrinking and is as
    /// large as the layout says, and its header agrees.
    pub fn open(fd: OwnedFd, layout: FrameLayout) -> Result<FrameReader, FrameError> {
        layout.check()?;
        let seals = rustix::fs::fcntl_get_seals(&fd)
            .map_err(|e| FrameError::io("reading the frame memory's seals")(e.into()))?;
        if !seals.contains(SealFlags::SHRINK) {
            return Err(FrameError::NotSealed);
        }
        let stat = rustix::fs::fstat(&fd)
            .map_err(|e| FrameError::io("reading the frame memory's size")(e.into()))?;
        let found = stat.st_size as u64;
        if found != layout.file_size() {
            return Err(FrameError::SizeMismatch {
                expected: layout.file_size(),
                found,
            });
        }
        // SAFETY: the memory is sealed against shrinking and has the size mapped, so no access
        // inside the mapping can fault; the slave changes its contents, which the reader only
        // reads through atomics and the sequence check.
        let memory = unsafe { MmapOptions::new().len(layout.file_size() as usize).map(&fd) }
            .map_err(FrameError::io("mapping the frame memory"))?;
        check_header(&memory, &layout)?;
        let base = memory.as_ptr();
        Ok(FrameReader {
            _memory: memory,
            base,
            layout,
        })
    }

    /// Maps the memory of a `GetFrameBuffer` reply: (fd, width, height, stride, buffers,
    /// buffer_size).
    pub fn from_reply(
        (fd, width, height, stride, buffers, buffer_size): FrameBufferReply,
    ) -> Result<FrameReader, FrameError> {
        let layout = FrameLayout {
            width,
            height,
            stride,
            buffers,
            buffer_size,
        };
        FrameReader::open(fd.into(), layout)
    }

    pub fn layout(&self) -> FrameLayout {
        self.layout
    }

    /// True once the slave has stopped writing this memory (after a resize or close).
    pub fn is_retired(&self) -> bool {
        // SAFETY: `base` maps frame memory for as long as `self` lives.
        unsafe { retired(self.base) }.load(Ordering::Acquire) != 0
    }

    /// Copies the frame in buffer `index` into `pixels` (replacing its contents with
    /// `stride × height` bytes), unless the buffer is empty or was written during the copy.
    pub fn read(&self, index: u32, pixels: &mut Vec<u8>) -> Result<FrameInfo, ReadError> {
        let header = self.header(index)?;
        let before = header.sequence.load(Ordering::Acquire);
        if before % 2 == 1 {
            return Err(ReadError::Torn);
        }
        let serial = header.serial.load(Ordering::Relaxed);
        let time = f64::from_bits(header.time.load(Ordering::Relaxed));
        if serial == 0 {
            return Err(ReadError::Empty);
        }
        // SAFETY: the pixel run of buffer `index` lies inside the mapping. The slave may write
        // it meanwhile; the sequence check below throws such a copy away.
        let source = unsafe {
            std::slice::from_raw_parts(
                self.base.add(self.layout.pixels_offset(index)),
                self.layout.pixels_len(),
            )
        };
        pixels.clear();
        pixels.extend_from_slice(source);
        fence(Ordering::Acquire);
        if header.sequence.load(Ordering::Relaxed) != before {
            return Err(ReadError::Torn);
        }
        Ok(FrameInfo {
            serial,
            buffer: index,
            time,
        })
    }

    /// Copies the newest whole frame of any buffer, if there is one.
    pub fn read_latest(&self, pixels: &mut Vec<u8>) -> Option<FrameInfo> {
        let mut candidates: Vec<(u64, u32)> = (0..self.layout.buffers)
            .filter_map(|i| {
                let serial = self.header(i).ok()?.serial.load(Ordering::Relaxed);
                Some((serial, i))
            })
            .collect();
        candidates.sort_unstable_by(|a, b| b.cmp(a));
        candidates
            .into_iter()
            .find_map(|(_, i)| self.read(i, pixels).ok())
    }

    fn header(&self, index: u32) -> Result<BufferHeader<'_>, ReadError> {
        if index >= self.layout.buffers {
            return Err(ReadError::NoSuchBuffer {
                buffer: index,
                buffers: self.layout.buffers,
            });
        }
        // SAFETY: `base` maps this checked layout for as long as `self` lives, and the index
        // was checked.
        Ok(unsafe { buffer_header(self.base, &self.layout, index) })
    }
}

/// Checks the file header against the layout received with the memory.
fn check_header(memory: &[u8], layout: &FrameLayout) -> Result<(), FrameError> {
    if &memory[..MAGIC.len()] != MAGIC {
        return Err(FrameError::BadHeader(format!(
            "it starts with {:?}, not the magic {:?}",
            String::from_utf8_lossy(&memory[..MAGIC.len()]),
            String::from_utf8_lossy(MAGIC)
        )));
    }
    let u32_at = |at: usize| u32::from_ne_bytes(memory[at..at + 4].try_into().expect("4 bytes"));
    let u64_at = |at: usize| u64::from_ne_bytes(memory[at..at + 8].try_into().expect("8 bytes"));
    let fields = [
        (
            "width",
            u64::from(u32_at(file::WIDTH)),
            u64::from(layout.width),
        ),
        (
            "height",
            u64::from(u32_at(file::HEIGHT)),
            u64::from(layout.height),
        ),
        (
            "stride",
            u64::from(u32_at(file::STRIDE)),
            u64::from(layout.stride),
        ),
        (
            "buffers",
            u64::from(u32_at(file::BUFFERS)),
            u64::from(layout.buffers),
        ),
        ("buffer size", u64_at(file::BUFFER_SIZE), layout.buffer_size),
    ];
    for (name, found, expected) in fields {
        if found != expected {
            return Err(FrameError::BadHeader(format!(
                "it says {name} {found}, but it came with {name} {expected}"
            )));
        }
    }
    Ok(())
}
