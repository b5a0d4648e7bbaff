//! The ipc module across real processes: frame memory written by one process and read by
//! another, and the private D-Bus connection a host makes to a child it starts.
//!
//! The child processes are this test binary started again with child arguments, as a host
//! starts `asgard slave --dbus-fd N`: `--dbus-fd N` serves the peer end of a connection,
//! `frame-reader N W H STRIDE BUFFERS SIZE` reads frames from inherited memory. So the test has
//! its own `main` (`harness = false` in Cargo.toml) and runs its tests in turn.

use asgard::ipc::frames::FrameReader;
use asgard::ipc::names::PEER_DESTINATION;
use asgard::ipc::transport::{
    inherited_socket, pass_descriptor, slave_connection, TransportError, DBUS_FD_OPTION,
};
use asgard::ipc::{FrameLayout, FrameWriter, RenditionSize, SlaveProcess};
use std::io::{BufRead, BufReader};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::process::{Child, Command, ExitCode, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use zbus::export::futures_core::Stream;

/// Frames the reading child must accept before it reports.
const FRAMES_TO_ACCEPT: u64 = 300;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some(DBUS_FD_OPTION) => peer(&args[1]),
        Some("frame-reader") => frame_reader(&args[1..]),
        _ => {
            let tests: [(&str, fn()); 3] = [
                (
                    "frames_written_by_one_process_are_read_whole_by_another",
                    cross_process_frames,
                ),
                (
                    "a_child_gets_only_its_end_and_the_connection_works",
                    private_connection,
                ),
                ("a_program_that_is_not_a_slave_fails_the_start", not_a_slave),
            ];
            for (name, test) in tests {
                print!("test {name} ... ");
                test();
                println!("ok");
            }
            ExitCode::SUCCESS
        }
    }
}

fn this_binary() -> Command {
    Command::new(std::env::current_exe().expect("the test binary's path"))
}

/// Waits for `child` to end, failing the test after `limit`.
fn wait_with_limit(child: &mut Child, limit: Duration) -> ExitStatus {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().expect("waitpid") {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the child did not end within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Every byte depends on the serial and its position, so a copy mixing two frames shows.
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

/// The parent writes frames as fast as it can until the child, reading in another process,
/// has accepted [`FRAMES_TO_ACCEPT`] whole ones; then it drops its writer, and the child must
/// see the memory retired.
fn cross_process_frames() {
    let mut writer = FrameWriter::create(RenditionSize::new(160, 120).unwrap(), 2).unwrap();
    let layout = writer.layout();
    let mut command = this_binary();
    command
        .arg("frame-reader")
        .args(
            [
                writer.fd().as_raw_fd() as u64,
                u64::from(layout.width),
                u64::from(layout.height),
                u64::from(layout.stride),
                u64::from(layout.buffers),
                layout.buffer_size,
            ]
            .map(|n| n.to_string()),
        )
        .stdout(Stdio::piped());
    pass_descriptor(&mut command, writer.fd());
    let mut child = command.spawn().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let done = AtomicBool::new(false);
    let report = std::thread::scope(|scope| {
        let writing = scope.spawn(|| {
            let mut serial = 0;
            while !done.load(Ordering::Acquire) {
                serial += 1;
                writer.write(serial as f64, |p| pattern(serial, p));
            }
            serial
        });
        let report = lines.next().expect("the child's report").unwrap();
        done.store(true, Ordering::Release);
        assert!(writing.join().unwrap() >= FRAMES_TO_ACCEPT);
        report
    });
    assert_eq!(report, format!("accepted {FRAMES_TO_ACCEPT}"));
    drop(writer);
    assert_eq!(
        lines.next().expect("the child's second line").unwrap(),
        "retired"
    );
    assert!(wait_with_limit(&mut child, Duration::from_secs(60)).success());
}

/// The child side of [`cross_process_frames`].
fn frame_reader(args: &[String]) -> ExitCode {
    let n: Vec<u64> = args.iter().map(|a| a.parse().expect("a number")).collect();
    // SAFETY: the parent passed this descriptor under this number for us alone.
    let fd = unsafe { OwnedFd::from_raw_fd(n[0] as i32) };
    let layout = FrameLayout {
        width: n[1] as u32,
        height: n[2] as u32,
        stride: n[3] as u32,
        buffers: n[4] as u32,
        buffer_size: n[5],
    };
    let reader = FrameReader::open(fd, layout).expect("the frame memory opens");
    let mut pixels = Vec::new();
    let mut accepted = 0;
    let mut last = 0;
    while accepted < FRAMES_TO_ACCEPT {
        if let Some(frame) = reader.read_latest(&mut pixels) {
            if !is_frame(frame.serial, &pixels) || frame.time != frame.serial as f64 {
                eprintln!("frame {} was accepted torn", frame.serial);
                return ExitCode::FAILURE;
            }
            if frame.serial > last {
                accepted += 1;
                last = frame.serial;
            }
        }
    }
    println!("accepted {accepted}");
    while !reader.is_retired() {
        std::hint::spin_loop();
    }
    println!("retired");
    ExitCode::SUCCESS
}

/// A host starts a child on a private connection; the child checks that it inherited exactly
/// one descriptor besides its standard streams, serves the peer end, answers a ping, and ends
/// when the host closes the connection.
fn private_connection() {
    zbus::block_on(async {
        let mut command = this_binary();
        command.stdout(Stdio::piped());
        let SlaveProcess {
            mut child,
            connection,
        } = SlaveProcess::spawn(command).await.unwrap();
        let peer = zbus::fdo::PeerProxy::builder(&connection)
            .destination(PEER_DESTINATION)
            .unwrap()
            .path("/")
            .unwrap()
            .build()
            .await
            .unwrap();
        peer.ping().await.unwrap();
        drop(peer);
        drop(connection);
        let status = wait_with_limit(&mut child, Duration::from_secs(60));
        let mut report = String::new();
        std::io::Read::read_to_string(child.stdout.as_mut().unwrap(), &mut report).unwrap();
        assert_eq!(report, "inherited 1 descriptor\nclosed\n");
        assert!(status.success());
    });
}

/// The child side of [`private_connection`]: the peer end of the connection, on the socket
/// named by `--dbus-fd`, as a slave takes it.
fn peer(fd: &str) -> ExitCode {
    let fd: i32 = fd.parse().expect("a descriptor number");
    let inherited = std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&n| n > 2)
        .filter(|&n| {
            std::fs::read_link(format!("/proc/self/fd/{n}"))
                .is_ok_and(|t| t.to_string_lossy().starts_with("socket:"))
        })
        .count();
    println!(
        "inherited {inherited} descriptor{}",
        if inherited == 1 { "" } else { "s" }
    );
    let stream = inherited_socket(fd).expect("the host's socket");
    zbus::block_on(async {
        // Serving an object, as the slave does, starts the object server (which answers
        // org.freedesktop.DBus.Peer on every path) before the first call is read; started
        // later with `object_server()`, it could miss a call that arrived first.
        let (builder, _refusal) = slave_connection(stream).unwrap();
        let connection = builder
            .serve_at("/org/asgard/Asgard1/Test", Served)
            .unwrap()
            .build()
            .await
            .unwrap();
        let mut messages = zbus::MessageStream::from(&connection);
        while let Some(Ok(_)) = next(&mut messages).await {}
    });
    println!("closed");
    ExitCode::SUCCESS
}

/// An object with no members: serving it is what starts the peer's object server.
struct Served;

#[zbus::interface(name = "org.asgard.Asgard1.Test")]
impl Served {}

/// The next item of a stream.
async fn next<S: Stream + Unpin>(stream: &mut S) -> Option<S::Item> {
    std::future::poll_fn(|cx| std::pin::Pin::new(&mut *stream).poll_next(cx)).await
}

fn not_a_slave() {
    let e = zbus::block_on(SlaveProcess::spawn(Command::new("true")))
        .err()
        .unwrap();
    assert!(
        matches!(e, TransportError::Handshake { exit: Some(status), .. } if status.success()),
        "{e}"
    );
    assert!(
        e.to_string().starts_with(
            "the D-Bus handshake with the slave failed (it ended with exit status: 0)"
        ),
        "{e}"
    );
}
