//! Client proxies of the two interfaces, for hosts. zbus generates an async proxy
//! (`SubdocumentProxy`, for a GLib main loop or any executor) and a blocking one
//! (`SubdocumentProxyBlocking`, for threads) from each declaration; calls return the contract's
//! named [`Error`](super::Error) (imported as `CallError`: zbus names a type after each signal,
//! and the subdocument has a signal called `Error`).
//!
//! On a private connection nothing routes by bus name, but proxies still need a destination:
//! they default to [`PEER_DESTINATION`](super::names::PEER_DESTINATION). Over the session bus,
//! give the slave's name ([`slave_bus_name`](super::names::slave_bus_name)) to the builder.
//! Properties are best read uncached on a private connection (there is no bus daemon to
//! register the PropertiesChanged match with): build with `CacheProperties::No`.

use super::error::Error as CallError;
use super::frames::FrameBufferReply;
use zbus::zvariant::OwnedObjectPath;

/// `org.asgard.Subdocument1`: the scene of one animation subdocument.
#[zbus::proxy(
    interface = "org.asgard.Subdocument1",
    default_service = "org.asgard.Asgard1",
    default_path = "/org/asgard/Asgard1/Subdocument"
)]
pub trait Subdocument {
    /// Replaces the scene text (kept even when it does not evaluate: then `InvalidScene`).
    fn set_scene_text(&self, text: &str) -> Result<(), CallError>;

    fn get_scene_text(&self) -> Result<String, CallError>;

    /// Recomputes the motion; returns at once.
    fn simulate(&self) -> Result<(), CallError>;

    /// A new rendition of `width × height` pixels; its object path.
    fn create_rendition(&self, width: u32, height: u32) -> Result<OwnedObjectPath, CallError>;

    /// Opens an editor window: an [`EditorKind`](super::EditorKind) string.
    fn open_editor(&self, kind: &str) -> Result<(), CallError>;

    /// Shows or hides a [`HandleKind`](super::HandleKind) in every rendition.
    fn set_handles_visible(&self, kind: &str, visible: bool) -> Result<(), CallError>;

    #[zbus(property)]
    fn preferred_size(&self) -> zbus::Result<(u32, u32)>;

    #[zbus(property)]
    fn duration(&self) -> zbus::Result<f64>;

    /// A [`Status`](super::Status) string.
    #[zbus(property)]
    fn status(&self) -> zbus::Result<String>;

    #[zbus(property)]
    fn handles_visible(&self) -> zbus::Result<Vec<String>>;

    #[zbus(property)]
    fn renditions(&self) -> zbus::Result<Vec<OwnedObjectPath>>;

    /// The scene text changed inside the slave; store it.
    #[zbus(signal)]
    fn scene_text_changed(&self, text: String) -> zbus::Result<()>;

    /// An editor window the host opened asks it to save its document.
    #[zbus(signal)]
    fn save_requested(&self) -> zbus::Result<()>;

    #[zbus(signal)]
    fn simulation_progress(&self, reached: f64, finish: f64) -> zbus::Result<()>;

    /// The scene text does not evaluate, or the simulation failed.
    #[zbus(signal)]
    fn error(&self, message: String, line: u32, column: u32) -> zbus::Result<()>;
}

/// `org.asgard.Rendition1`: one rendition; build it with the path `CreateRendition` returned.
#[zbus::proxy(
    interface = "org.asgard.Rendition1",
    default_service = "org.asgard.Asgard1"
)]
pub trait Rendition {
    fn resize(&self, width: u32, height: u32) -> Result<(), CallError>;

    fn play(&self) -> Result<(), CallError>;

    fn pause(&self) -> Result<(), CallError>;

    fn seek(&self, time: f64) -> Result<(), CallError>;

    /// Pauses and moves `frames` frames of the simulator's output step (back when negative).
    fn step(&self, frames: i32) -> Result<(), CallError>;

    /// The frame memory and its layout: (fd, width, height, stride, buffers, buffer_size);
    /// map it with [`FrameReader::from_reply`](super::FrameReader::from_reply).
    fn get_frame_buffer(&self) -> Result<FrameBufferReply, CallError>;

    /// A [`PointerKind`](super::PointerKind) string, a button, rendition pixel coordinates and
    /// a [`Modifiers`](super::Modifiers) mask.
    fn pointer(
        &self,
        kind: &str,
        button: u32,
        x: f64,
        y: f64,
        modifiers: u32,
    ) -> Result<(), CallError>;

    fn scroll(&self, dx: f64, dy: f64, modifiers: u32) -> Result<(), CallError>;

    fn key(&self, name: &str, pressed: bool, modifiers: u32) -> Result<(), CallError>;

    fn close(&self) -> Result<(), CallError>;

    #[zbus(property)]
    fn time(&self) -> zbus::Result<f64>;

    #[zbus(property)]
    fn playing(&self) -> zbus::Result<bool>;

    #[zbus(property, name = "Loop")]
    fn looping(&self) -> zbus::Result<bool>;

    #[zbus(property, name = "Loop")]
    fn set_looping(&self, looping: bool) -> zbus::Result<()>;

    /// A [`PlaybackMode`](super::PlaybackMode) string.
    #[zbus(property)]
    fn mode(&self) -> zbus::Result<String>;

    /// Simulated seconds per real second; negative plays backwards.
    #[zbus(property)]
    fn rate(&self) -> zbus::Result<f64>;

    #[zbus(property)]
    fn set_rate(&self, rate: f64) -> zbus::Result<()>;

    #[zbus(property)]
    fn set_mode(&self, mode: &str) -> zbus::Result<()>;

    /// 1, or below 1 while a live run cannot keep pace with real time: its simulated time
    /// per real time over the last second.
    #[zbus(property)]
    fn live_rate(&self) -> zbus::Result<f64>;

    #[zbus(property)]
    fn size(&self) -> zbus::Result<(u32, u32)>;

    #[zbus(signal)]
    fn frame_ready(&self, serial: u64, buffer: u32, time: f64) -> zbus::Result<()>;

    #[zbus(signal)]
    fn frame_buffer_changed(&self, width: u32, height: u32) -> zbus::Result<()>;
}

impl RenditionProxyBlocking<'static> {
    /// The rendition at `path` on a private `connection` to a slave, its properties read
    /// uncached (see the module's doc): how a blocking host or test reaches a rendition it
    /// created.
    pub fn uncached(
        connection: &zbus::blocking::Connection,
        path: OwnedObjectPath,
    ) -> zbus::Result<RenditionProxyBlocking<'static>> {
        RenditionProxyBlocking::builder(connection)
            .path(path)?
            .cache_properties(zbus::proxy::CacheProperties::No)
            .build()
    }
}
