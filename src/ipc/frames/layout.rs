//! Where things are in the frame memory (the layout the rendition schema documents), and the
//! checks a reader makes before trusting a layout it was sent.

use super::FrameError;
use crate::ipc::size::RenditionSize;

/// The first eight bytes of frame memory.
pub const MAGIC: &[u8; 8] = b"ASGFRM01";

/// Bytes of the file header, before the first buffer.
pub const FILE_HEADER_SIZE: usize = 64;

/// Bytes of each buffer's header, before its pixels.
pub const BUFFER_HEADER_SIZE: usize = 64;

/// The most buffers one memory may hold.
pub const MAX_BUFFERS: u32 = 16;

/// Offsets of the file header's fields.
pub(super) mod file {
    pub const WIDTH: usize = 8;
    pub const HEIGHT: usize = 12;
    pub const STRIDE: usize = 16;
    pub const BUFFERS: usize = 20;
    pub const BUFFER_SIZE: usize = 24;
    pub const RETIRED: usize = 32;
}

/// Offsets of a buffer header's fields, from the buffer's start.
pub(super) mod buffer {
    pub const SEQUENCE: usize = 0;
    pub const SERIAL: usize = 8;
    pub const TIME: usize = 16;
}

/// The shape of one frame memory: what `GetFrameBuffer` returns beside the descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameLayout {
    pub width: u32,
    pub height: u32,
    /// Bytes from one pixel row to the next.
    pub stride: u32,
    /// How many frame buffers the memory holds.
    pub buffers: u32,
    /// Bytes of one buffer, header included; a multiple of 64.
    pub buffer_size: u64,
}

impl FrameLayout {
    /// The layout the slave makes for `size`: rows of exactly `4 × width` bytes, each buffer
    /// rounded up to 64 bytes so every header is aligned.
    pub fn new(size: RenditionSize, buffers: u32) -> Result<FrameLayout, FrameError> {
        if !(1..=MAX_BUFFERS).contains(&buffers) {
            return Err(FrameError::BadLayout(format!(
                "{buffers} buffers: expected 1 to {MAX_BUFFERS}"
            )));
        }
        let stride = 4 * size.width();
        let pixels = u64::from(stride) * u64::from(size.height());
        Ok(FrameLayout {
            width: size.width(),
            height: size.height(),
            stride,
            buffers,
            buffer_size: (BUFFER_HEADER_SIZE as u64 + pixels).next_multiple_of(64),
        })
    }

    /// Checks a layout received from a slave, so that every offset computed from it lies
    /// inside the memory and is aligned.
    pub fn check(&self) -> Result<(), FrameError> {
        let bad = |message: String| Err(FrameError::BadLayout(message));
        if let Err(e) = RenditionSize::new(self.width, self.height) {
            return bad(e.to_string());
        }
        if !(1..=MAX_BUFFERS).contains(&self.buffers) {
            return bad(format!(
                "{} buffers: expected 1 to {MAX_BUFFERS}",
                self.buffers
            ));
        }
        let row = 4 * u64::from(self.width);
        if u64::from(self.stride) < row {
            return bad(format!(
                "stride {} for width {}: expected at least {row} bytes",
                self.stride, self.width
            ));
        }
        let needed = BUFFER_HEADER_SIZE as u64 + self.pixels_len() as u64;
        if self.buffer_size < needed || self.buffer_size % 64 != 0 {
            return bad(format!(
                "buffer size {}: expected a multiple of 64 of at least {needed} bytes",
                self.buffer_size
            ));
        }
        Ok(())
    }

    /// Bytes of the whole memory.
    pub fn file_size(&self) -> u64 {
        FILE_HEADER_SIZE as u64 + u64::from(self.buffers) * self.buffer_size
    }

    /// Bytes of one frame's pixels: `stride × height`.
    pub fn pixels_len(&self) -> usize {
        self.stride as usize * self.height as usize
    }

    /// Where buffer `index` starts (its header).
    pub(super) fn buffer_offset(&self, index: u32) -> usize {
        FILE_HEADER_SIZE + index as usize * self.buffer_size as usize
    }

    /// Where buffer `index`'s pixels start.
    pub(super) fn pixels_offset(&self, index: u32) -> usize {
        self.buffer_offset(index) + BUFFER_HEADER_SIZE
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipc::names::RENDITION_XML;

    fn layout(width: u32, height: u32, buffers: u32) -> FrameLayout {
        FrameLayout::new(RenditionSize::new(width, height).unwrap(), buffers).unwrap()
    }

    #[test]
    fn buffers_are_aligned_and_hold_their_pixels() {
        let l = layout(3, 5, 2);
        assert_eq!(l.stride, 12);
        assert_eq!(l.buffer_size, 128);
        assert_eq!(l.file_size(), 64 + 2 * 128);
        assert_eq!(l.pixels_offset(1), 64 + 128 + 64);
        l.check().unwrap();
        let big = layout(8192, 8192, MAX_BUFFERS);
        big.check().unwrap();
        assert_eq!(big.file_size(), 64 + 16 * (64 + 4 * 8192 * 8192));
    }

    #[test]
    fn received_layouts_are_checked() {
        let good = layout(640, 480, 2);
        let message = |l: FrameLayout| l.check().unwrap_err().to_string();
        assert!(message(FrameLayout {
            stride: 100,
            ..good
        })
        .contains("stride 100 for width 640"));
        assert!(message(FrameLayout { buffers: 0, ..good }).contains("0 buffers"));
        assert!(message(FrameLayout {
            buffers: 17,
            ..good
        })
        .contains("17 buffers"));
        assert!(message(FrameLayout { width: 0, ..good }).contains("0×480"));
        assert!(message(FrameLayout {
            buffer_size: 64,
            ..good
        })
        .contains("buffer size 64"));
        let unaligned = FrameLayout {
            buffer_size: good.buffer_size + 8,
            ..good
        };
        assert!(message(unaligned).contains("multiple of 64"));
        assert!(FrameLayout::new(RenditionSize::new(1, 1).unwrap(), 0).is_err());
    }

    #[test]
    fn the_schema_documents_these_offsets() {
        let squeeze = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        let schema = squeeze(RENDITION_XML);
        let lines = [
            format!(
                "0 8 bytes magic \"{}\"",
                std::str::from_utf8(MAGIC).unwrap()
            ),
            format!("{} u32 width", file::WIDTH),
            format!("{} u32 height", file::HEIGHT),
            format!("{} u32 stride", file::STRIDE),
            format!("{} u32 buffers", file::BUFFERS),
            format!("{} u64 buffer_size", file::BUFFER_SIZE),
            format!("{} u32 retired", file::RETIRED),
            format!("{} u64 sequence", buffer::SEQUENCE),
            format!("{} u64 serial", buffer::SERIAL),
            format!("{} f64 the simulated time", buffer::TIME),
            format!("{BUFFER_HEADER_SIZE} pixels"),
            format!("file header, {FILE_HEADER_SIZE} bytes at offset 0"),
            format!("at offset {FILE_HEADER_SIZE} + I * buffer_size"),
        ];
        for line in lines {
            assert!(schema.contains(&line), "the schema lacks {line:?}");
        }
    }
}
