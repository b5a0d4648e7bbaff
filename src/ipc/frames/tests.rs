use super::*;
use crate::ipc::size::RenditionSize;
use proptest::prelude::*;
use rustix::fs::{MemfdFlags, SealFlags};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

fn writer(width: u32, height: u32, buffers: u32) -> FrameWriter {
    FrameWriter::create(RenditionSize::new(width, height).unwrap(), buffers).unwrap()
}

fn reader_of(writer: &FrameWriter) -> FrameReader {
    FrameReader::open(writer.fd().try_clone_to_owned().unwrap(), writer.layout()).unwrap()
}

/// Fills a frame so that every byte depends on the serial and its position: a copy mixing
/// two frames cannot pass [`is_frame`].
fn pattern(serial: u64, pixels: &mut [u8]) {
    for (i, p) in pixels.iter_mut().enumerate() {
        *p = (serial as usize).wrapping_mul(31).wrapping_add(i) as u8;
    }
}

fn is_frame(serial: u64, pixels: &[u8]) -> bool {
    pixels
        .iter()
        .enumerate()
        .all(|(i, &p)| p == (serial as usize).wrapping_mul(31).wrapping_add(i) as u8)
}

#[test]
fn frames_go_to_the_buffers_in_turn_and_read_back() {
    let mut w = writer(3, 2, 2);
    let r = reader_of(&w);
    let mut pixels = Vec::new();
    assert_eq!(r.read(0, &mut pixels), Err(ReadError::Empty));
    assert_eq!(r.read_latest(&mut pixels), None);
    assert_eq!(
        r.read(2, &mut pixels),
        Err(ReadError::NoSuchBuffer {
            buffer: 2,
            buffers: 2
        })
    );
    let mut written = Vec::new();
    for serial in 1..=3 {
        written.push(w.write(serial as f64 * 0.5, |p| pattern(serial, p)));
    }
    let buffers: Vec<u32> = written.iter().map(|f| f.buffer).collect();
    assert_eq!(buffers, [0, 1, 0]);
    let info = r.read(1, &mut pixels).unwrap();
    assert_eq!((info.serial, info.time), (2, 1.0));
    assert_eq!(pixels.len(), 3 * 2 * 4);
    assert!(is_frame(2, &pixels));
    let latest = r.read_latest(&mut pixels).unwrap();
    assert_eq!(latest, written[2]);
    assert!(is_frame(3, &pixels));
    assert_eq!(w.serial(), 3);
}

#[test]
fn rows_are_copied_top_first() {
    let mut w = writer(2, 2, 1);
    let r = reader_of(&w);
    let rows: Vec<u8> = (0..16).collect();
    w.write_rows(0.0, &rows).unwrap();
    let mut pixels = Vec::new();
    r.read(0, &mut pixels).unwrap();
    assert_eq!(pixels, rows);
    let e = w.write_rows(0.0, &rows[..12]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "bad frame layout: a picture of 12 bytes for frames of 2×2 pixels"
    );
}

#[test]
fn a_buffer_being_written_reads_as_torn() {
    let mut w = writer(4, 4, 2);
    let r = reader_of(&w);
    w.write(0.0, |p| pattern(1, p));
    let mut pixels = Vec::new();
    w.write(0.1, |p| {
        pattern(2, p);
        assert_eq!(r.read(1, &mut pixels), Err(ReadError::Torn));
        assert_eq!(r.read(0, &mut pixels).map(|f| f.serial), Ok(1));
    });
    assert_eq!(r.read(1, &mut pixels).map(|f| f.serial), Ok(2));
}

#[test]
fn dropping_the_writer_retires_the_memory() {
    let w = writer(1, 1, 1);
    let r = reader_of(&w);
    assert!(!r.is_retired());
    drop(w);
    assert!(r.is_retired());
}

#[test]
fn the_memory_is_sealed() {
    let w = writer(8, 8, 2);
    let seals = rustix::fs::fcntl_get_seals(w.fd()).unwrap();
    assert!(seals.contains(SealFlags::SHRINK | SealFlags::GROW | SealFlags::SEAL));
    assert!(rustix::fs::ftruncate(w.fd(), 0).is_err());
}

/// Memory made by hand, to feed the reader what a faulty or hostile slave might send.
fn handmade(layout: FrameLayout, size: u64, seal: bool, magic: &[u8]) -> std::os::fd::OwnedFd {
    let fd =
        rustix::fs::memfd_create("test", MemfdFlags::CLOEXEC | MemfdFlags::ALLOW_SEALING).unwrap();
    let mut header = vec![0u8; 64];
    header[..magic.len()].copy_from_slice(magic);
    header[8..12].copy_from_slice(&layout.width.to_ne_bytes());
    header[12..16].copy_from_slice(&layout.height.to_ne_bytes());
    header[16..20].copy_from_slice(&layout.stride.to_ne_bytes());
    header[20..24].copy_from_slice(&layout.buffers.to_ne_bytes());
    header[24..32].copy_from_slice(&layout.buffer_size.to_ne_bytes());
    rustix::io::write(&fd, &header).unwrap();
    rustix::fs::ftruncate(&fd, size).unwrap();
    if seal {
        rustix::fs::fcntl_add_seals(&fd, SealFlags::SHRINK).unwrap();
    }
    fd
}

#[test]
fn the_reader_refuses_memory_it_cannot_trust() {
    let layout = FrameLayout::new(RenditionSize::new(4, 4).unwrap(), 2).unwrap();
    let size = layout.file_size();
    let open = |fd, layout| FrameReader::open(fd, layout).err().map(|e| e.to_string());
    assert_eq!(open(handmade(layout, size, true, MAGIC), layout), None);
    assert_eq!(
        open(handmade(layout, size, false, MAGIC), layout),
        Some(FrameError::NotSealed.to_string())
    );
    assert_eq!(
        open(handmade(layout, size - 64, true, MAGIC), layout).unwrap(),
        format!(
            "the frame memory has {} bytes, but its layout needs {size}",
            size - 64
        )
    );
    assert_eq!(
        open(handmade(layout, size, true, b"PNG\r\n"), layout).unwrap(),
        "bad frame memory header: it starts with \"PNG\\r\\n\\0\\0\\0\", not the magic \"ASGFRM01\""
    );
    let claimed = FrameLayout {
        width: 2,
        stride: 8,
        ..layout
    };
    assert_eq!(
        open(handmade(layout, size, true, MAGIC), claimed).unwrap(),
        "bad frame memory header: it says width 4, but it came with width 2"
    );
    let absurd = FrameLayout {
        buffers: 1000,
        ..layout
    };
    assert!(open(handmade(layout, size, true, MAGIC), absurd)
        .unwrap()
        .contains("1000 buffers"));
}

/// A writer thread races a reader thread; every frame the reader accepts must be whole.
#[test]
fn frames_read_across_threads_are_never_torn() {
    let mut w = writer(64, 48, 2);
    let r = reader_of(&w);
    let accepted = AtomicU64::new(0);
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let mut serial = 0;
            while !done.load(Ordering::Acquire) {
                serial += 1;
                w.write(0.0, |p| pattern(serial, p));
            }
        });
        let mut pixels = Vec::new();
        let mut last = 0;
        while accepted.load(Ordering::Relaxed) < 2000 {
            if let Some(frame) = r.read_latest(&mut pixels) {
                assert!(
                    is_frame(frame.serial, &pixels),
                    "frame {} is torn",
                    frame.serial
                );
                assert!(frame.serial >= last, "serials go backwards");
                last = frame.serial;
                accepted.fetch_add(1, Ordering::Relaxed);
            }
        }
        done.store(true, Ordering::Release);
    });
}

proptest! {
    #[test]
    fn the_latest_frame_is_the_last_written(
        width in 1u32..40,
        height in 1u32..40,
        buffers in 1u32..=MAX_BUFFERS,
        frames in 1u64..40,
    ) {
        let mut w = writer(width, height, buffers);
        let r = reader_of(&w);
        for serial in 1..=frames {
            w.write(serial as f64, |p| pattern(serial, p));
        }
        let mut pixels = Vec::new();
        let latest = r.read_latest(&mut pixels).unwrap();
        prop_assert_eq!(latest.serial, frames);
        prop_assert_eq!(latest.buffer, ((frames - 1) % u64::from(buffers)) as u32);
        prop_assert!(is_frame(frames, &pixels));
        prop_assert_eq!(pixels.len(), (4 * width * height) as usize);
    }
}
