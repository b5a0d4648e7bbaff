//! The full editor opened from a host (`OpenEditor('full')`), as a host sees it:
//!
//! - *open*: from the `OpenEditor` call to the control panel, the graphical viewer and the
//!   language viewer all mapped on the screen, against the baseline of opening one graphical
//!   viewer (`OpenEditor('graphical')`, what the host's Asgard menu offered before) in the
//!   same run;
//! - *edit*: from Ctrl+Return (Update) pressed in the editor's language viewer, after typing a
//!   new body, to the first `FrameReady` of the host's rendition after `SceneTextChanged`
//!   brought the new text, against the baseline of the host setting a text with one more body
//!   itself (`SetSceneText`) to its next `FrameReady`.
//!
//! Each is measured in a slave over its private connection, as the reference host starts
//! them (a fresh one per opening), five times, reporting the median and the worst in milliseconds and the ratio of the
//! medians. Needs a display (xdotool and the editor windows) and the `asgard` binary of the
//! same profile: `cargo build && xvfb-run -a -s '-screen 0 1280x1024x24' cargo bench --bench
//! editor_from_host` (or its binary under `target/*/deps/`).

use asgard::ipc::{RenditionProxyBlocking, SlaveProcess, SubdocumentProxyBlocking};
use std::path::PathBuf;
use std::process::Command;
use std::sync::mpsc;
use std::time::{Duration, Instant};
use zbus::proxy::CacheProperties;

const SCENE: &str = "shape_set s desc {sphere 0.5}
body b0 shape s init_pos {0 0 0}
simulator finish 1
";

const RUNS: usize = 5;

fn asgard() -> PathBuf {
    let bench = std::env::current_exe().unwrap();
    let profile = bench.parent().unwrap().parent().unwrap();
    profile.join("asgard")
}

fn xdotool(args: &[&str]) -> String {
    let out = Command::new("xdotool").args(args).output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Waits (polling, at most a minute) until a shown window's name matches each of `names`;
/// returns the id of the last.
fn wait_for_windows(names: &[&str]) -> String {
    let start = Instant::now();
    loop {
        let ids: Vec<String> = names
            .iter()
            .filter_map(|name| {
                xdotool(&["search", "--onlyvisible", "--name", name])
                    .lines()
                    .next()
                    .map(str::to_owned)
            })
            .collect();
        if ids.len() == names.len() {
            return ids.last().unwrap().clone();
        }
        assert!(start.elapsed() < Duration::from_secs(60), "no {names:?}");
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// A slave with the scene set and a paused rendition, and when each of its frames arrived.
struct Slave {
    child: std::process::Child,
    subdocument: SubdocumentProxyBlocking<'static>,
    frames: mpsc::Receiver<Instant>,
}

fn slave() -> Slave {
    let mut command = Command::new(asgard());
    command.arg("slave");
    let SlaveProcess { child, connection } = zbus::block_on(SlaveProcess::spawn(command)).unwrap();
    let connection = zbus::blocking::Connection::from(connection);
    let subdocument = SubdocumentProxyBlocking::builder(&connection)
        .cache_properties(CacheProperties::No)
        .build()
        .unwrap();
    subdocument.set_scene_text(SCENE).unwrap();
    let path = subdocument.create_rendition(320, 240).unwrap();
    let rendition = RenditionProxyBlocking::uncached(&connection, path).unwrap();
    let (sender, frames) = mpsc::channel();
    let announced = rendition.receive_frame_ready().unwrap();
    std::thread::spawn(move || {
        for _ in announced {
            if sender.send(Instant::now()).is_err() {
                return;
            }
        }
    });
    Slave {
        child,
        subdocument,
        frames,
    }
}

impl Slave {
    /// Waits until the motion is computed and no frame has come for a while, and forgets
    /// the frames that came.
    fn settle(&self) {
        let start = Instant::now();
        while self.subdocument.status().unwrap() != "ready" {
            assert!(start.elapsed() < Duration::from_secs(60), "no run finished");
            std::thread::sleep(Duration::from_millis(5));
        }
        while self.frames.recv_timeout(Duration::from_millis(300)).is_ok() {}
    }

    fn end(mut self) {
        drop(self.subdocument);
        drop(self.frames);
        // The slave ends with its connection; the signal thread holds a proxy until then.
        let _ = self.child.kill();
        self.child.wait().unwrap();
    }
}

/// Milliseconds from `OpenEditor(kind)` to the windows `names` shown.
fn open(kind: &str, names: &[&str]) -> f64 {
    let slave = slave();
    slave.settle();
    let asked = Instant::now();
    slave.subdocument.open_editor(kind).unwrap();
    wait_for_windows(names);
    let ms = asked.elapsed().as_secs_f64() * 1000.0;
    slave.end();
    ms
}

/// Milliseconds from each edit to the rendition's first frame after it: typed into the full
/// editor's language viewer and applied (`typed`), or set by the host.
fn edits(typed: bool) -> Vec<f64> {
    let slave = slave();
    slave.settle();
    let viewer = typed.then(|| {
        slave.subdocument.open_editor("full").unwrap();
        wait_for_windows(&["host's document — Language viewer 1$"])
    });
    let mut text = SCENE.to_string();
    let mut times = Vec::new();
    for k in 1..=RUNS {
        slave.settle();
        let body = format!("body b{k} shape s init_pos {{{k} 0 0}}");
        text.push_str(&body);
        text.push('\n');
        let asked = match &viewer {
            Some(viewer) => {
                xdotool(&["windowfocus", "--sync", viewer, "key", "ctrl+End"]);
                xdotool(&["key", "Return"]);
                xdotool(&["type", &body]);
                let asked = Instant::now();
                xdotool(&["key", "ctrl+Return"]);
                asked
            }
            None => {
                let asked = Instant::now();
                slave.subdocument.set_scene_text(&text).unwrap();
                asked
            }
        };
        let Ok(shown) = slave.frames.recv_timeout(Duration::from_secs(60)) else {
            panic!(
                "no frame within a minute of edit {k}; the text:\n{}",
                slave.subdocument.get_scene_text().unwrap()
            );
        };
        times.push(shown.duration_since(asked).as_secs_f64() * 1000.0);
        assert!(slave.subdocument.get_scene_text().unwrap().contains(&body));
    }
    slave.end();
    times
}

fn summary(mut ms: Vec<f64>) -> (f64, f64) {
    ms.sort_by(f64::total_cmp);
    (ms[ms.len() / 2], ms[ms.len() - 1])
}

fn main() {
    assert!(
        asgard().exists(),
        "build the asgard binary of this profile first"
    );
    assert!(
        std::env::var_os("DISPLAY").is_some(),
        "run under a display: xvfb-run -a -s '-screen 0 1280x1024x24' …"
    );
    let mut full = Vec::new();
    let mut single = Vec::new();
    for _ in 0..RUNS {
        single.push(open(
            "graphical",
            &["host's document — Graphical viewer 1$"],
        ));
        full.push(open(
            "full",
            &[
                "host's document — Asgard$",
                "host's document — Graphical viewer 1$",
                "host's document — Language viewer 1$",
            ],
        ));
    }
    let (full, full_worst) = summary(full);
    let (single, single_worst) = summary(single);
    println!(
        "open: full editor {full:.0} ms median ({full_worst:.0} worst); one graphical viewer \
         {single:.0} ms ({single_worst:.0}); ratio {:.2}",
        full / single
    );
    let (typed, typed_worst) = summary(edits(true));
    let (set, set_worst) = summary(edits(false));
    println!(
        "edit to frame: typed in the full editor {typed:.0} ms median ({typed_worst:.0} worst); \
         set by the host {set:.0} ms ({set_worst:.0}); ratio {:.2}",
        typed / set
    );
}
