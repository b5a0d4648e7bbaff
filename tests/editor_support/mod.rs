//! Driving `asgard edit` from outside, as a user would: a private X server (Xvfb) and D-Bus
//! session bus per test, input through xdotool, pictures through ImageMagick's `import`, and
//! the scene text read over D-Bus.
//!
//! Every wait is on a condition (a window mapped, a D-Bus answer, a picture that changed), with
//! a deadline after which the test fails saying what it waited for. Each test gets its own
//! display, so tests can run in parallel without their windows or keyboards meeting.
#![allow(dead_code)]

use asgard::render::camera::{Camera, Viewport};
use asgard::render::image::RgbaImage;
use asgard::render::scene_frame::SceneFrames;
use asgard::scene::handles::HandleScales;
use asgard::scene::Scene;
use asgard::ui::graphical::{initial_options, initial_view};
#[path = "../private_display/mod.rs"]
mod private_display;
use private_display::{private_display, start_reading_line, Owned};
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long any condition may take before the test gives up.
pub const PATIENCE: Duration = Duration::from_secs(90);

/// Where each window is put (x, y), so pictures and clicks land in known places. Windows have
/// no decorations under Xvfb without a window manager.
pub const GRAPHICAL_AT: (i32, i32) = (0, 0);
pub const LANGUAGE_AT: (i32, i32) = (870, 0);
pub const CONTROL_AT: (i32, i32) = (0, 700);

/// One `asgard edit` on its own display and bus.
pub struct Editor {
    // Dropped in this order: the editor, then its bus, then its display.
    editor: Owned,
    _bus: Owned,
    _display: Owned,
    pub display: String,
    pub bus_address: String,
    pub dir: tempfile::TempDir,
    pid: u32,
}

/// A window's place on the screen and size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x: i32,
    pub y: i32,
    pub width: i32,
    pub height: i32,
}

/// Where Debian's fonts-dejavu-core puts the fonts the editor tests draw text with.
const DEJAVU: &str = "/usr/share/fonts/truetype/dejavu";

impl Editor {
    /// Starts `asgard edit FILE` on a display and bus of its own, waits until its three
    /// windows are mapped and its scene is served on the bus, and puts the windows where the
    /// constants above say.
    pub fn start(file: &Path) -> Editor {
        let (x_server, display) = private_display();
        let mut dbus = Command::new("dbus-daemon");
        dbus.args(["--session", "--nofork", "--print-address=1"]);
        let (bus, address) = start_reading_line(dbus, "dbus-daemon");
        let dir = tempfile::tempdir().unwrap();
        // Steady pictures: no blinking cursor, no animations.
        let config = dir.path().join("config/gtk-4.0");
        std::fs::create_dir_all(&config).unwrap();
        std::fs::write(
            config.join("settings.ini"),
            "[Settings]\ngtk-cursor-blink=false\ngtk-enable-animations=false\n",
        )
        .unwrap();
        // Steady text: the DejaVu fonts only, whatever else the machine has installed (a
        // machine with Noto fonts drew the golden pictures' text in Noto Sans Mono).
        let fonts = dir.path().join("fonts.conf");
        std::fs::write(
            &fonts,
            format!(
                "<?xml version=\"1.0\"?>\n<!DOCTYPE fontconfig SYSTEM \"fonts.dtd\">\n\
                 <fontconfig>\n  <dir>{DEJAVU}</dir>\n  <cachedir>{}</cachedir>\n  \
                 <include ignore_missing=\"yes\">/etc/fonts/conf.d</include>\n</fontconfig>\n",
                dir.path().join("fontconfig-cache").display()
            ),
        )
        .unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_asgard"))
            .arg("edit")
            .arg(file)
            .env("DISPLAY", &display)
            .env("DBUS_SESSION_BUS_ADDRESS", &address)
            .env("XDG_CONFIG_HOME", dir.path().join("config"))
            .env("GDK_BACKEND", "x11")
            .env("NO_AT_BRIDGE", "1")
            .env("GTK_A11Y", "none")
            .env("FONTCONFIG_FILE", &fonts)
            .stdout(Stdio::null())
            .spawn()
            .expect("asgard edit starts");
        let pid = child.id();
        let editor = Editor {
            editor: Owned(child),
            _bus: bus,
            _display: x_server,
            display,
            bus_address: address,
            dir,
            pid,
        };
        editor.arrange();
        wait_for("the scene on the session bus", || editor.try_text());
        editor
    }

    /// Runs xdotool on this display; returns what it printed.
    pub fn xdotool(&self, args: &[&str]) -> String {
        crate::xdotool::xdotool(Some(&self.display), args)
    }

    /// The id of the window whose title matches `name`, waiting until it is mapped.
    pub fn window(&self, name: &str) -> String {
        let found = self.xdotool(&["search", "--sync", "--onlyvisible", "--name", name]);
        found
            .lines()
            .next()
            .unwrap_or_else(|| panic!("no window named {name}"))
            .to_owned()
    }

    /// Puts the graphical viewer, language viewer and control panel side by side.
    fn arrange(&self) {
        for (name, (x, y)) in [
            ("Graphical viewer 1$", GRAPHICAL_AT),
            ("Language viewer 1$", LANGUAGE_AT),
            (" — Asgard$", CONTROL_AT),
        ] {
            let id = self.window(name);
            self.xdotool(&["windowmove", "--sync", &id, &x.to_string(), &y.to_string()]);
        }
    }

    /// Where a window is and how big.
    pub fn geometry(&self, id: &str) -> Rect {
        let out = self.xdotool(&["getwindowgeometry", "--shell", id]);
        let value = |key: &str| -> i32 {
            out.lines()
                .find_map(|l| l.strip_prefix(&format!("{key}=")))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or_else(|| panic!("no {key} in {out}"))
        };
        Rect {
            x: value("X"),
            y: value("Y"),
            width: value("WIDTH"),
            height: value("HEIGHT"),
        }
    }

    /// A picture of `rect` of the screen, as it is now.
    pub fn screenshot(&self, rect: Rect) -> RgbaImage {
        let file = self.dir.path().join("screen.png");
        let crop = format!("{}x{}+{}+{}", rect.width, rect.height, rect.x, rect.y);
        let status = Command::new("import")
            .args(["-window", "root", "-crop", &crop, "+repage"])
            .arg(format!("PNG32:{}", file.display()))
            .env("DISPLAY", &self.display)
            .status()
            .expect("import runs: run scripts/deps (imagemagick)");
        assert!(status.success(), "import failed");
        read_png(&file)
    }

    fn proxy(&self) -> Option<zbus::blocking::Proxy<'static>> {
        let connection = zbus::blocking::connection::Builder::address(self.bus_address.as_str())
            .ok()?
            .build()
            .ok()?;
        zbus::blocking::Proxy::new_owned(
            connection,
            format!("org.asgard.Asgard1.Slave{}", self.pid),
            "/org/asgard/Asgard1/Subdocument",
            "org.asgard.Subdocument1",
        )
        .ok()
    }

    /// Activates the editor's application action `name` with `parameter` over D-Bus, as a
    /// script does: through GApplication's `org.gtk.Actions` on the editor's connection (it
    /// has no well-known name for it; it is the one of the editor's process serving them).
    pub fn activate_action(&self, name: &str, parameter: zbus::zvariant::Value<'_>) {
        let platform: std::collections::HashMap<&str, zbus::zvariant::Value<'_>> =
            Default::default();
        let parameters = [parameter];
        let answered = self.actions("/org/asgard/Editor").iter().any(|p| {
            p.call::<_, _, ()>("Activate", &(name, &parameters[..], &platform))
                .is_ok()
        });
        assert!(answered, "no connection of the editor activated {name}");
    }

    /// `org.gtk.Actions` at `path` on each of the editor process's own connections.
    fn actions(&self, path: &str) -> Vec<zbus::blocking::Proxy<'static>> {
        let connection = zbus::blocking::connection::Builder::address(self.bus_address.as_str())
            .and_then(|b| b.build())
            .expect("the test's session bus");
        let bus = zbus::blocking::fdo::DBusProxy::new(&connection).unwrap();
        let names = bus.list_names().unwrap();
        names
            .iter()
            .filter(|n| n.starts_with(':'))
            .filter(|n| {
                bus.get_connection_unix_process_id(n.as_ref())
                    .is_ok_and(|pid| pid == self.pid)
            })
            .filter_map(|n| {
                zbus::blocking::Proxy::new_owned(
                    connection.clone(),
                    n.to_string(),
                    path.to_owned(),
                    "org.gtk.Actions",
                )
                .ok()
            })
            .collect()
    }

    /// `org.gtk.Actions` of the window that has the action `name` (GTK publishes window N's
    /// actions at `/org/asgard/Editor/window/N`), and the action's state.
    fn window_action(
        &self,
        name: &str,
    ) -> (zbus::blocking::Proxy<'static>, zbus::zvariant::OwnedValue) {
        type Description = (
            bool,
            zbus::zvariant::Signature,
            Vec<zbus::zvariant::OwnedValue>,
        );
        (1..=32)
            .flat_map(|window| self.actions(&format!("/org/asgard/Editor/window/{window}")))
            .find_map(|p| {
                let (_, _, state) = p.call::<_, _, Description>("Describe", &(name,)).ok()?;
                Some((p, state.into_iter().next()?))
            })
            .unwrap_or_else(|| panic!("no window publishes the action {name}"))
    }

    /// `org.gtk.Actions` of the language viewer, which has the `fold` action, and its state.
    fn fold_action(&self) -> (zbus::blocking::Proxy<'static>, zbus::zvariant::OwnedValue) {
        self.window_action("fold")
    }

    /// The state of the graphical viewer's action `name`: `time` (the time shown) or `rate`
    /// (simulated seconds per second, negative backwards).
    pub fn viewer_value(&self, name: &str) -> f64 {
        let (_, state) = self.window_action(name);
        f64::try_from(state).unwrap_or_else(|e| panic!("the state of {name} is a double: {e}"))
    }

    /// Activates the language viewer's `fold` action with `name`: the literal so named is
    /// folded or unfolded, as a click on its icon does.
    pub fn fold(&self, name: &str) {
        let platform: std::collections::HashMap<&str, zbus::zvariant::Value<'_>> =
            Default::default();
        let parameters = [zbus::zvariant::Value::from(name)];
        let (proxy, _) = self.fold_action();
        proxy
            .call::<_, _, ()>("Activate", &("fold", &parameters[..], &platform))
            .unwrap_or_else(|e| panic!("fold {name}: {e}"));
    }

    /// The state of the language viewer's `fold` action: each literal that can be folded, by
    /// name (`shape_set NAME`, `trajectory NAME points N`), and whether it is folded.
    pub fn folds(&self) -> std::collections::BTreeMap<String, bool> {
        let (_, state) = self.fold_action();
        std::collections::HashMap::<String, bool>::try_from(state)
            .expect("the fold action's state is a{sb}")
            .into_iter()
            .collect()
    }

    fn try_text(&self) -> Option<String> {
        self.proxy()?.call("GetSceneText", &()).ok()
    }

    /// The scene text, read over D-Bus.
    pub fn text(&self) -> String {
        self.try_text().expect("the editor answers GetSceneText")
    }

    /// Replaces the scene text over D-Bus, as a host does (one undo step in the editor).
    pub fn set_text(&self, text: &str) {
        let proxy = self.proxy().expect("the editor is on the bus");
        let () = proxy
            .call("SetSceneText", &(text,))
            .unwrap_or_else(|e| panic!("SetSceneText: {e}"));
    }

    /// Asks the editor over D-Bus to open a window: graphical, language, shape, trajectory or
    /// control-panel.
    pub fn open_editor(&self, kind: &str) {
        let proxy = self.proxy().expect("the editor is on the bus");
        let () = proxy
            .call("OpenEditor", &(kind,))
            .unwrap_or_else(|e| panic!("OpenEditor({kind}): {e}"));
    }

    /// The error a D-Bus call with one string argument answers with.
    pub fn proxy_call_error(&self, method: &str, argument: &str) -> String {
        let proxy = self.proxy().expect("the editor is on the bus");
        match proxy.call::<_, _, ()>(method, &(argument,)) {
            Ok(()) => panic!("{method}({argument}) succeeded"),
            Err(e) => e.to_string(),
        }
    }

    /// Waits for the file chooser titled `title`, names `path` in it and accepts.
    pub fn choose_file(&self, title: &str, path: &Path) {
        let chooser = self.window(&format!("^{title}$"));
        self.xdotool(&["windowfocus", "--sync", &chooser]);
        // The name field has the keyboard; a full path there picks the folder too.
        self.xdotool(&["key", "ctrl+a"]);
        self.xdotool(&["type", "--delay", "10", &path.to_string_lossy()]);
        self.xdotool(&["key", "Return"]);
    }

    /// The editor's status over D-Bus: ready, simulating or error.
    pub fn status(&self) -> String {
        self.proxy()
            .and_then(|p| p.get_property::<String>("Status").ok())
            .expect("the editor answers Status")
    }
}

/// Reads a PNG file as RGBA.
pub fn read_png(path: &Path) -> RgbaImage {
    try_read_png(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Reads a PNG file as RGBA, or says why not (missing, not yet complete, not a PNG).
pub fn try_read_png(path: &Path) -> Result<RgbaImage, String> {
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut decoder = png::Decoder::new(BufReader::new(file));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().map_err(|e| e.to_string())?;
    let size = reader
        .output_buffer_size()
        .ok_or("the image is too large")?;
    let mut pixels = vec![0; size];
    let info = reader.next_frame(&mut pixels).map_err(|e| e.to_string())?;
    pixels.truncate(info.buffer_size());
    let pixels = match info.color_type {
        png::ColorType::Rgba => pixels,
        png::ColorType::Rgb => pixels
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        other => return Err(format!("unexpected colour type {other:?}")),
    };
    Ok(RgbaImage {
        width: info.width,
        height: info.height,
        pixels,
    })
}

/// Waits until `done` gives a value, polling; fails after [`PATIENCE`] saying `what`.
pub fn wait_for<T>(what: &str, mut done: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Some(value) = done() {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A folder under target/ for one test's pictures, emptied first.
pub fn output_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("editor")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The colour the picture is cleared to (`render::scene_frame::palette::BACKGROUND`) as 8-bit
/// RGB.
pub fn background_rgb() -> [u8; 3] {
    asgard::render::scene_frame::palette::BACKGROUND.map(|c| (c * 255.0).round() as u8)[..3]
        .try_into()
        .unwrap()
}

/// Where in `picture` (taken of `at`) the scene is drawn, in screen coordinates. The left,
/// right and top edges are those of the pixels of the picture's background colour (the
/// default view looks a little down, so the picture's upper part shows the background over
/// the ground). The ground may reach the bottom edge, so that is where the picture's left
/// column, followed down, meets the colour of the window around the picture (the pixel right
/// of the picture's top right corner).
pub fn picture_area(picture: &RgbaImage, at: Rect) -> Option<Rect> {
    let bg = background_rgb();
    let near =
        |p: [u8; 4], c: [u8; 3], tolerance: u8| (0..3).all(|i| p[i].abs_diff(c[i]) <= tolerance);
    let (mut x0, mut y0, mut x1) = (u32::MAX, u32::MAX, 0);
    for y in 0..picture.height {
        for x in 0..picture.width {
            if near(picture.pixel(x, y).unwrap(), bg, 1) {
                x0 = x0.min(x);
                y0 = y0.min(y);
                x1 = x1.max(x);
            }
        }
    }
    if x0 > x1 {
        return None;
    }
    let around = picture.pixel(x1 + 1, y0).unwrap_or([0; 4]);
    let around = [around[0], around[1], around[2]];
    let y1 = (y0..picture.height)
        .take_while(|&y| !near(picture.pixel(x0, y).unwrap(), around, 2))
        .last()
        .unwrap_or(y0);
    Some(Rect {
        x: at.x + x0 as i32,
        y: at.y + y0 as i32,
        width: (x1 - x0 + 1) as i32,
        height: (y1 - y0 + 1) as i32,
    })
}

/// How many pixels of `a` and `b` (the same size) differ by more than `tolerance` in a channel.
pub fn differing(a: &RgbaImage, b: &RgbaImage, tolerance: u8) -> usize {
    a.pixels
        .chunks_exact(4)
        .zip(b.pixels.chunks_exact(4))
        .filter(|(p, q)| {
            p.iter()
                .zip(q.iter())
                .any(|(x, y)| x.abs_diff(*y) > tolerance)
        })
        .count()
}

/// The graphical viewer's picture area once the scene is drawn in it.
pub fn drawn_area(editor: &Editor) -> Rect {
    let window = editor.geometry(&editor.window("Graphical viewer 1$"));
    wait_for("the scene drawn in the graphical viewer", || {
        picture_area(&editor.screenshot(window), window).filter(|a| a.width > 300)
    })
}

/// The view the graphical viewer starts with, for a picture area of `area`'s size.
pub fn first_view(scene: &Scene, area: Rect) -> (Camera, Viewport) {
    let frames = SceneFrames::new(scene).unwrap();
    let options = initial_options(HandleScales::fitted(scene, frames.shapes()));
    let viewport = Viewport::new(f64::from(area.width), f64::from(area.height));
    (initial_view(scene, &frames, &options, &viewport), viewport)
}

/// Runs `asgard edit FILE` on a display of its own for a file it cannot open: waits for the
/// window titled `title` that says why, closes it with Return, and returns whether the editor
/// then exited successfully and what it wrote to standard error.
pub fn refused(file: &Path, title: &str) -> (bool, String) {
    let (_x_server, display) = private_display();
    let stderr = tempfile::NamedTempFile::new().unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_asgard"))
        .arg("edit")
        .arg(file)
        .env("DISPLAY", &display)
        .env("DBUS_SESSION_BUS_ADDRESS", "disabled:")
        .env("GDK_BACKEND", "x11")
        .env("NO_AT_BRIDGE", "1")
        .env("GTK_A11Y", "none")
        .stdout(Stdio::null())
        .stderr(stderr.reopen().unwrap())
        .spawn()
        .expect("asgard edit starts");
    let mut child = Owned(child);
    let window = crate::xdotool::xdotool(
        Some(&display),
        &["search", "--sync", "--onlyvisible", "--name", title],
    );
    let id = window.lines().next().expect("the window that says why");
    crate::xdotool::xdotool(
        Some(&display),
        &["windowfocus", "--sync", id, "key", "Return"],
    );
    let status = wait_for("the editor to exit after the window closed", || {
        child.0.try_wait().unwrap()
    });
    (
        status.success(),
        std::fs::read_to_string(stderr.path()).unwrap(),
    )
}
