//! A real browser for tests: Debian's Chromium, headless, driven over the Chrome DevTools
//! Protocol on a pipe (`--remote-debugging-pipe`: commands on its file descriptor 3, answers
//! and events on 4, each message JSON ended by a NUL byte), so no port, driver or WebSocket
//! library is involved. WebGL runs on SwiftShader, Chromium's software rasteriser.
//!
//! [`Tab::errors`] gathers what the page reported as errors: console errors, uncaught
//! exceptions and the browser's own log entries of level error (a refused fetch, a script
//! that did not parse).

#![allow(dead_code)]

use serde_json::{json, Value};
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::{FromRawFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// The viewport of every tab, in CSS pixels (one device pixel each).
pub const WIDTH: u32 = 1000;
pub const HEIGHT: u32 = 1000;

/// The Chromium binary, when installed (`scripts/deps` installs Debian's).
pub fn chromium() -> Option<PathBuf> {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
}

/// A headless Chromium with a fresh profile in its own folder.
pub struct Browser {
    child: Child,
    commands: File,
    answers: BufReader<File>,
    next_id: u64,
    /// Events read while waiting for answers, oldest first.
    events: Vec<Value>,
}

/// One page of the browser: commands go to its session.
pub struct Tab<'a> {
    browser: &'a mut Browser,
    session: String,
}

fn pipe() -> (RawFd, RawFd) {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe2 writes.
    let status = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) };
    assert_eq!(status, 0, "pipe2: {}", std::io::Error::last_os_error());
    (fds[0], fds[1])
}

impl Browser {
    /// Starts Chromium with its profile in `profile` (made fresh by the caller).
    pub fn start(profile: &Path) -> Browser {
        let binary = chromium().expect("chromium is installed (scripts/deps)");
        let (command_read, command_write) = pipe();
        let (answer_read, answer_write) = pipe();
        let mut command = Command::new(binary);
        command
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--enable-unsafe-swiftshader",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-default-apps",
                "--disable-extensions",
                "--no-first-run",
                "--no-default-browser-check",
                "--mute-audio",
                "--hide-scrollbars",
                "--remote-debugging-pipe",
                &format!("--window-size={WIDTH},{HEIGHT}"),
                &format!("--user-data-dir={}", profile.display()),
                "about:blank",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // SAFETY: only async-signal-safe calls (dup2, fcntl) between fork and exec. The
        // copies are made without close-on-exec (a descriptor already in place has the flag
        // cleared), so Chromium inherits descriptors 3 and 4. The answer pipe was made after
        // the command pipe, so its descriptor is above 3 and the first copy cannot clobber it.
        unsafe {
            command.pre_exec(move || {
                for (from, to) in [(command_read, 3), (answer_write, 4)] {
                    let status = if from == to {
                        libc::fcntl(to, libc::F_SETFD, 0)
                    } else {
                        libc::dup2(from, to)
                    };
                    if status < 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                Ok(())
            });
        }
        let child = command.spawn().expect("start chromium");
        // SAFETY: the descriptors are ours and each is wrapped once; the child's copies are
        // closed here so that end of file is seen when Chromium exits.
        let (commands, answers) = unsafe {
            libc::close(command_read);
            libc::close(answer_write);
            (
                File::from_raw_fd(command_write),
                File::from_raw_fd(answer_read),
            )
        };
        Browser {
            child,
            commands,
            answers: BufReader::new(answers),
            next_id: 1,
            events: Vec::new(),
        }
    }

    /// Sends a command (to `session`, or to the browser) and returns its result, keeping the
    /// events that arrive before it.
    fn call(&mut self, session: Option<&str>, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(session) = session {
            message["sessionId"] = json!(session);
        }
        let mut bytes = serde_json::to_vec(&message).unwrap();
        bytes.push(0);
        self.commands.write_all(&bytes).expect("send to chromium");
        loop {
            let message = self.read();
            if message["id"] == json!(id) {
                if let Some(error) = message.get("error") {
                    panic!("{method}: {error}");
                }
                return message["result"].clone();
            }
            self.events.push(message);
        }
    }

    fn read(&mut self) -> Value {
        let mut bytes = Vec::new();
        let n = self
            .answers
            .read_until(0, &mut bytes)
            .expect("read from chromium");
        assert!(n > 0 && bytes.pop() == Some(0), "chromium closed its pipe");
        serde_json::from_slice(&bytes).expect("chromium sends JSON")
    }

    /// Opens a tab on about:blank and attaches to it, with page, runtime and log events on.
    pub fn tab(&mut self) -> Tab<'_> {
        let target = self.call(None, "Target.createTarget", json!({ "url": "about:blank" }));
        let attached = self.call(
            None,
            "Target.attachToTarget",
            json!({ "targetId": target["targetId"], "flatten": true }),
        );
        let session = attached["sessionId"].as_str().unwrap().to_string();
        let mut tab = Tab {
            browser: self,
            session,
        };
        for domain in ["Page", "Runtime", "Log"] {
            tab.call(&format!("{domain}.enable"), json!({}));
        }
        tab.call(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": false }),
        );
        tab
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Tab<'_> {
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        let session = self.session.clone();
        self.browser.call(Some(&session), method, params)
    }

    /// Loads `path` and waits for its load event.
    pub fn open(&mut self, path: &Path) {
        let url = format!("file://{}", path.display());
        self.call("Page.navigate", json!({ "url": url }));
        loop {
            if let Some(i) = self.browser.events.iter().position(|e| {
                e["method"] == "Page.loadEventFired" && e["sessionId"] == json!(self.session)
            }) {
                self.browser.events.remove(i);
                return;
            }
            let event = self.browser.read();
            self.browser.events.push(event);
        }
    }

    /// The value of a JavaScript expression (awaited when it is a promise).
    pub fn eval(&mut self, expression: &str) -> Value {
        let result = self.call(
            "Runtime.evaluate",
            json!({ "expression": expression, "returnByValue": true, "awaitPromise": true }),
        );
        if let Some(exception) = result.get("exceptionDetails") {
            panic!("{expression}: {exception}");
        }
        result["result"]["value"].clone()
    }

    /// Waits in the page, frame by frame, until `condition` (an expression) is true, for at
    /// most `seconds` of the page's time; false if it never was.
    pub fn wait_for(&mut self, condition: &str, seconds: f64) -> bool {
        let script = format!(
            "new Promise((done) => {{ const end = performance.now() + {ms}; \
             const check = () => {{ if ({condition}) done(true); \
             else if (performance.now() > end) done(false); \
             else requestAnimationFrame(check); }}; check(); }})",
            ms = seconds * 1000.0
        );
        self.eval(&script) == json!(true)
    }

    /// Waits for the page to draw `frames` more animation frames.
    pub fn frames(&mut self, frames: u32) {
        let script = format!(
            "new Promise((done) => {{ let n = 0; const f = () => \
             (++n >= {frames} ? done(true) : requestAnimationFrame(f)); \
             requestAnimationFrame(f); }})"
        );
        self.eval(&script);
    }

    /// A screenshot of the viewport.
    pub fn screenshot(&mut self) -> Picture {
        let shot = self.call("Page.captureScreenshot", json!({ "format": "png" }));
        let bytes = base64_decode(shot["data"].as_str().unwrap());
        let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        let mut reader = decoder.read_info().unwrap();
        let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut pixels).unwrap();
        let channels = match info.color_type {
            png::ColorType::Rgb => 3,
            png::ColorType::Rgba => 4,
            other => panic!("a screenshot in {other:?}"),
        };
        assert_eq!(info.bit_depth, png::BitDepth::Eight);
        let rgb = pixels[..info.buffer_size()]
            .chunks_exact(channels)
            .flat_map(|p| [p[0], p[1], p[2]])
            .collect();
        Picture {
            width: info.width,
            height: info.height,
            pixels: rgb,
        }
    }

    /// A left click at (x, y) in CSS pixels.
    pub fn click(&mut self, x: f64, y: f64) {
        for kind in ["mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1 }),
            );
        }
    }

    /// A left-button drag from `from` to `to` in a few steps.
    pub fn drag(&mut self, from: (f64, f64), to: (f64, f64)) {
        let mouse = |tab: &mut Self, kind: &str, (x, y): (f64, f64), buttons: u32| {
            tab.call(
                "Input.dispatchMouseEvent",
                json!({ "type": kind, "x": x, "y": y, "button": "left", "buttons": buttons,
                        "clickCount": 1 }),
            );
        };
        mouse(self, "mouseMoved", from, 0);
        mouse(self, "mousePressed", from, 1);
        for k in 1..=5 {
            let f = f64::from(k) / 5.0;
            let at = (from.0 + (to.0 - from.0) * f, from.1 + (to.1 - from.1) * f);
            mouse(self, "mouseMoved", at, 1);
        }
        mouse(self, "mouseReleased", to, 0);
    }

    /// Every error the page has reported so far, as text.
    pub fn errors(&mut self) -> Vec<String> {
        let session = json!(self.session);
        self.browser
            .events
            .iter()
            .filter(|e| e["sessionId"] == session)
            .filter_map(|e| {
                let params = &e["params"];
                match e["method"].as_str()? {
                    "Runtime.exceptionThrown" => Some(params["exceptionDetails"].to_string()),
                    "Runtime.consoleAPICalled"
                        if matches!(params["type"].as_str(), Some("error" | "assert")) =>
                    {
                        Some(params["args"].to_string())
                    }
                    "Log.entryAdded" if params["entry"]["level"] == "error" => {
                        Some(params["entry"].to_string())
                    }
                    _ => None,
                }
            })
            .collect()
    }
}

/// A screenshot: RGB pixels, rows top to bottom.
pub struct Picture {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<u8>,
}

/// A rectangle in CSS pixels (as `getBoundingClientRect` gives it).
#[derive(Clone, Copy, Debug)]
pub struct Rect {
    pub left: f64,
    pub top: f64,
    pub right: f64,
    pub bottom: f64,
}

impl Rect {
    pub fn from_json(value: &Value) -> Rect {
        let get = |k: &str| {
            value[k]
                .as_f64()
                .unwrap_or_else(|| panic!("{k} in {value}"))
        };
        Rect {
            left: get("left"),
            top: get("top"),
            right: get("right"),
            bottom: get("bottom"),
        }
    }

    pub fn centre(&self) -> (f64, f64) {
        (
            (self.left + self.right) / 2.0,
            (self.top + self.bottom) / 2.0,
        )
    }

    fn contains(&self, x: u32, y: u32) -> bool {
        let (x, y) = (f64::from(x) + 0.5, f64::from(y) + 0.5);
        self.left <= x && x < self.right && self.top <= y && y < self.bottom
    }
}

impl Picture {
    pub fn rgb(&self, x: u32, y: u32) -> [u8; 3] {
        let i = 3 * (y * self.width + x) as usize;
        [self.pixels[i], self.pixels[i + 1], self.pixels[i + 2]]
    }

    /// How many pixels differ from `other`'s, inside `inside` (or outside it).
    pub fn differences(&self, other: &Picture, region: &Rect, inside: bool) -> usize {
        assert_eq!((self.width, self.height), (other.width, other.height));
        let mut count = 0;
        for y in 0..self.height {
            for x in 0..self.width {
                if region.contains(x, y) == inside && self.rgb(x, y) != other.rgb(x, y) {
                    count += 1;
                }
            }
        }
        count
    }

    /// How many pixels inside `region` are not `background`.
    pub fn not_background(&self, region: &Rect, background: [u8; 3]) -> usize {
        let mut count = 0;
        for y in 0..self.height {
            for x in 0..self.width {
                if region.contains(x, y) && self.rgb(x, y) != background {
                    count += 1;
                }
            }
        }
        count
    }

    pub fn save(&self, path: &Path) {
        let file = File::create(path).unwrap();
        let mut encoder = png::Encoder::new(file, self.width, self.height);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().unwrap();
        writer.write_image_data(&self.pixels).unwrap();
    }
}

fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {c}"),
        }
    };
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    for chunk in text.as_bytes().chunks(4) {
        let data: Vec<u8> = chunk.iter().copied().filter(|&c| c != b'=').collect();
        let n = data
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &c)| n | value(c) << (18 - 6 * i));
        for i in 0..data.len().saturating_sub(1) {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    out
}
