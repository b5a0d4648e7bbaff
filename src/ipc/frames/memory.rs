//! Typed access to the header words of mapped frame memory. The words are shared with another
//! process, so every access is atomic; the mapping is page-aligned and every field offset is a
//! multiple of its size, so the references are aligned.

use super::layout::{buffer, file, FrameLayout};
use std::sync::atomic::{AtomicU32, AtomicU64};

/// The header words of one frame buffer.
pub(super) struct BufferHeader<'a> {
    /// Even when the buffer holds a whole frame, odd while it is written.
    pub sequence: &'a AtomicU64,
    pub serial: &'a AtomicU64,
    /// The bits of the `f64` simulated time.
    pub time: &'a AtomicU64,
}

/// The header of buffer `index` of a mapping of `layout` starting at `base`.
///
/// # Safety
/// `base` must be the page-aligned start of a mapping of at least `layout.file_size()` bytes
/// that outlives `'a`, and `index < layout.buffers`.
pub(super) unsafe fn buffer_header<'a>(
    base: *const u8,
    layout: &FrameLayout,
    index: u32,
) -> BufferHeader<'a> {
    debug_assert!(index < layout.buffers);
    let start = layout.buffer_offset(index);
    // SAFETY: buffer offsets are multiples of 64 inside the mapping (caller's contract), and
    // the fields are 8-aligned within the header.
    unsafe {
        BufferHeader {
            sequence: word64(base, start + buffer::SEQUENCE),
            serial: word64(base, start + buffer::SERIAL),
            time: word64(base, start + buffer::TIME),
        }
    }
}

/// The file header's retired word.
///
/// # Safety
/// `base` must be the page-aligned start of a mapping of frame memory that outlives `'a`.
pub(super) unsafe fn retired<'a>(base: *const u8) -> &'a AtomicU32 {
    // SAFETY: the retired field is 4-aligned inside the 64-byte file header.
    unsafe { &*base.add(file::RETIRED).cast::<AtomicU32>() }
}

/// # Safety
/// `base + offset` must be 8-aligned and inside a mapping that outlives `'a`.
unsafe fn word64<'a>(base: *const u8, offset: usize) -> &'a AtomicU64 {
    // SAFETY: by the caller's contract the address is aligned and mapped for 'a; AtomicU64
    // has the size and alignment of u64 and may alias memory another process writes.
    unsafe { &*base.add(offset).cast::<AtomicU64>() }
}
