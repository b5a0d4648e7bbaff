//! The slave as a host sees it: time from starting `asgard slave` to the first frame, frames
//! delivered per second and their latency at 640×480 and 1280×720, and the slave's memory.
//!
//! Latency is the time from a `Seek` call to the arrival of the FrameReady of the frame showing
//! the sought time (the slave draws at most one frame ahead of what the host has been told).
//! The baseline each rate is reported against is the 60 frames/s the slave aims for.
//!
//! Run: `cargo bench --bench slave` (needs the `asgard` binary built: `cargo build --release`
//! for release numbers).

use asgard::ipc::{RenditionProxy, SlaveProcess, SubdocumentProxy};
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};
use zbus::export::futures_core::Stream;
use zbus::proxy::CacheProperties;

const SCENE: &str = "shape_set ss1 desc {sub pos {0 0 0} sphere 0.5}
body b2 artbody 1 shape ss1 init_pos {-1 0 0} init_dpos {1 0 0}
body b3 artbody 1 shape ss1 init_pos {1 0 0} init_dpos {0 1 0}
simulator finish 30
";

const TARGET_RATE: f64 = 60.0;

fn asgard() -> PathBuf {
    let bench = std::env::current_exe().unwrap();
    let profile = bench.parent().unwrap().parent().unwrap();
    profile.join("asgard")
}

async fn next<S: Stream + Unpin>(stream: &mut S) -> Option<S::Item> {
    std::future::poll_fn(|cx| std::pin::Pin::new(&mut *stream).poll_next(cx)).await
}

fn resident_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap()
}

async fn measure(width: u32, height: u32) {
    let started = Instant::now();
    let mut command = Command::new(asgard());
    command.arg("slave");
    let SlaveProcess {
        mut child,
        connection,
    } = SlaveProcess::spawn(command).await.unwrap();
    let subdocument = SubdocumentProxy::builder(&connection)
        .cache_properties(CacheProperties::No)
        .build()
        .await
        .unwrap();
    subdocument.set_scene_text(SCENE).await.unwrap();
    let path = subdocument.create_rendition(width, height).await.unwrap();
    let rendition = RenditionProxy::builder(&connection)
        .path(path)
        .unwrap()
        .cache_properties(CacheProperties::No)
        .build()
        .await
        .unwrap();
    let mut frames = rendition.receive_frame_ready().await.unwrap();
    rendition.play().await.unwrap();
    next(&mut frames).await.unwrap();
    let first_frame = started.elapsed();

    let counting = Instant::now();
    let mut count = 0u32;
    while counting.elapsed() < Duration::from_secs(3) {
        next(&mut frames).await.unwrap();
        count += 1;
    }
    let rate = f64::from(count) / counting.elapsed().as_secs_f64();

    rendition.pause().await.unwrap();
    let mut latencies = Vec::new();
    for k in 0..20 {
        let time = 1.0 + f64::from(k) * 0.5;
        let asked = Instant::now();
        rendition.seek(time).await.unwrap();
        loop {
            let frame = next(&mut frames).await.unwrap();
            if frame.args().unwrap().time == time {
                break;
            }
        }
        latencies.push(asked.elapsed().as_secs_f64() * 1000.0);
    }
    latencies.sort_by(f64::total_cmp);
    let rss = resident_kib(child.id());
    println!(
        "{width}x{height}: first frame {:.0} ms after start; {rate:.1} frames/s ({:.2}x of {TARGET_RATE}); \
         seek-to-frame latency median {:.1} ms, worst {:.1} ms (one frame at 60/s: 16.7 ms); \
         slave resident {} MiB",
        first_frame.as_secs_f64() * 1000.0,
        rate / TARGET_RATE,
        latencies[latencies.len() / 2],
        latencies[latencies.len() - 1],
        rss / 1024
    );
    drop(frames);
    drop(rendition);
    drop(subdocument);
    drop(connection);
    child.wait().unwrap();
}

fn main() {
    assert!(
        asgard().exists(),
        "build the asgard binary of this profile first"
    );
    zbus::block_on(async {
        measure(640, 480).await;
        measure(1280, 720).await;
    });
}
