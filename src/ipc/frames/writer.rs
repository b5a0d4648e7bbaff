//! The slave's side of frame memory.

use super::layout::{file, FrameLayout, MAGIC};
use super::memory::{buffer_header, retired};
use super::{FrameError, FrameInfo};
use crate::ipc::size::RenditionSize;
use memmap2::{MmapMut, MmapOptions};
use rustix::fs::{MemfdFlags, SealFlags};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::atomic::{fence, Ordering};

/// Frame memory for one rendition size, written by the slave. Dropping it marks the memory
/// retired, so readers know to fetch the next one.
pub struct FrameWriter {
    fd: OwnedFd,
    /// Keeps the mapping alive; every access goes through `base`.
    _memory: MmapMut,
    base: *mut u8,
    layout: FrameLayout,
    serial: u64,
}

// SAFETY: `base` points into `_memory`, which the writer owns and which moves with it; nothing
// else in this process holds a pointer into the mapping.
unsafe impl Send for FrameWriter {}

impl FrameWriter {
    /// Makes sealed memory with `buffers` frame buffers of `size`, all empty.
    pub fn create(size: RenditionSize, buffers: u32) -> Result<FrameWriter, FrameError> {
        let layout = FrameLayout::new(size, buffers)?;
        let fd = rustix::fs::memfd_create(
            "asgard-frames",
            MemfdFlags::CLOEXEC | MemfdFlags::ALLOW_SEALING,
        )
        .map_err(|e| FrameError::io("creating the frame memory")(e.into()))?;
        rustix::fs::ftruncate(&fd, layout.file_size())
            .map_err(|e| FrameError::io("sizing the frame memory")(e.into()))?;
        rustix::fs::fcntl_add_seals(&fd, SealFlags::SHRINK | SealFlags::GROW | SealFlags::SEAL)
            .map_err(|e| FrameError::io("sealing the frame memory")(e.into()))?;
        // SAFETY: the memfd is ours and sealed against shrinking, so the mapping stays valid
        // for as long as it exists whatever readers do with their descriptors.
        let mut memory = unsafe {
            MmapOptions::new()
                .len(layout.file_size() as usize)
                .map_mut(&fd)
        }
        .map_err(FrameError::io("mapping the frame memory"))?;
        let base = memory.as_mut_ptr();
        // The memory is new and zero-filled, and no reader has its descriptor yet.
        memory[..MAGIC.len()].copy_from_slice(MAGIC);
        let put32 = |memory: &mut MmapMut, at: usize, value: u32| {
            memory[at..at + 4].copy_from_slice(&value.to_ne_bytes())
        };
        put32(&mut memory, file::WIDTH, layout.width);
        put32(&mut memory, file::HEIGHT, layout.height);
        put32(&mut memory, file::STRIDE, layout.stride);
        put32(&mut memory, file::BUFFERS, layout.buffers);
        memory[file::BUFFER_SIZE..file::BUFFER_SIZE + 8]
            .copy_from_slice(&layout.buffer_size.to_ne_bytes());
        Ok(FrameWriter {
            fd,
            _memory: memory,
            base,
            layout,
            serial: 0,
        })
    }

    pub fn layout(&self) -> FrameLayout {
        self.layout
    }

    /// The memory's descriptor, to duplicate and send to a host.
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// The serial of the last frame written (0 before the first).
    pub fn serial(&self) -> u64 {
        self.serial
    }

    /// Writes the next frame: `fill` receives the pixel rows (`stride × height` bytes) of the
    /// buffer after the one written last, and the frame shows simulated time `time`.
    pub fn write(&mut self, time: f64, fill: impl FnOnce(&mut [u8])) -> FrameInfo {
        self.serial += 1;
        let index = ((self.serial - 1) % u64::from(self.layout.buffers)) as u32;
        // SAFETY: `base` maps this layout for as long as `self` lives; `index < buffers`.
        let header = unsafe { buffer_header(self.base, &self.layout, index) };
        let before = header.sequence.load(Ordering::Relaxed);
        header.sequence.store(before + 1, Ordering::Relaxed);
        // Readers that see the new pixels see the odd sequence too.
        fence(Ordering::Release);
        // SAFETY: the pixel run of buffer `index` lies inside the mapping, after the buffer's
        // header, and no other reference into it exists in this process.
        let pixels = unsafe {
            std::slice::from_raw_parts_mut(
                self.base.add(self.layout.pixels_offset(index)),
                self.layout.pixels_len(),
            )
        };
        fill(pixels);
        header.serial.store(self.serial, Ordering::Relaxed);
        header.time.store(time.to_bits(), Ordering::Relaxed);
        header.sequence.store(before + 2, Ordering::Release);
        FrameInfo {
            serial: self.serial,
            buffer: index,
            time,
        }
    }

    /// Writes a frame from rows of exactly `4 × width` bytes, top row first (as
    /// `render::image::RgbaImage` holds them); refuses a picture of another size.
    pub fn write_rows(&mut self, time: f64, rows: &[u8]) -> Result<FrameInfo, FrameError> {
        let row = 4 * self.layout.width as usize;
        let stride = self.layout.stride as usize;
        if rows.len() != row * self.layout.height as usize {
            return Err(FrameError::BadLayout(format!(
                "a picture of {} bytes for frames of {}×{} pixels",
                rows.len(),
                self.layout.width,
                self.layout.height
            )));
        }
        Ok(self.write(time, |pixels| {
            for (to, from) in pixels.chunks_exact_mut(stride).zip(rows.chunks_exact(row)) {
                to[..row].copy_from_slice(from);
            }
        }))
    }
}

impl Drop for FrameWriter {
    fn drop(&mut self) {
        // SAFETY: `base` maps frame memory for as long as `self` lives.
        unsafe { retired(self.base) }.store(1, Ordering::Release);
    }
}
