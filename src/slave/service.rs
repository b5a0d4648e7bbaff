//! The two D-Bus interfaces as zbus serves them. Each method checks what it can without the
//! scene (enumerations, numbers and sizes with `ipc::request`'s checks, whether the rendition
//! was closed), then hands the call to the
//! main thread and answers with its result. Both interfaces handle calls one at a time in the
//! order they arrive (`spawn = false`): a press, its motions and its release must not overtake
//! each other.
//!
//! Pointer motion is coalesced: a motion is stored in the rendition's slot and the call
//! answered at once; the main thread handles only the latest position when it gets to it, so
//! a flood of motions costs neither memory nor redraws.
//!
//! Properties answer with the standard errors of `org.freedesktop.DBus.Properties` (zbus
//! answers Get and Set itself): `InvalidArgs` for a bad value, `NotSupported`, `Failed`,
//! `AccessDenied`.
//!
//! Every method and property first asks [`Access`] whether the caller may call: always on the
//! private connection, on the session bus only the starter and authenticated connections.
//! [`SessionAccessService`] is where a session-bus caller authenticates.

use super::access::Access;
use super::main_thread::MainThread;
use crate::ipc::names::rendition_path;
use crate::ipc::{request, Error, Modifiers, PointerKind};
use nalgebra::Point2;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use zbus::message::Header;
use zbus::object_server::{ObjectServer, SignalEmitter};
use zbus::zvariant::OwnedObjectPath;
use zbus::Connection;

/// `org.asgard.Subdocument1` at `/org/asgard/Asgard1/Subdocument`.
pub struct SubdocumentService {
    main: MainThread,
    access: Arc<Access>,
}

impl SubdocumentService {
    pub fn new(main: MainThread, access: Arc<Access>) -> SubdocumentService {
        SubdocumentService { main, access }
    }
}

#[zbus::interface(name = "org.asgard.Subdocument1", spawn = false)]
impl SubdocumentService {
    async fn set_scene_text(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(connection)] connection: &Connection,
        text: String,
    ) -> Result<(), Error> {
        self.access.check(Some(&header), connection).await?;
        self.main.call(move |s| s.set_scene_text(text)).await
    }

    #[zbus(out_args("text"))]
    async fn get_scene_text(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(connection)] connection: &Connection,
    ) -> Result<String, Error> {
        self.access.check(Some(&header), connection).await?;
        self.main.run(|s| s.scene_text()).await
    }

    async fn simulate(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(connection)] connection: &Connection,
    ) -> Result<(), Error> {
        self.access.check(Some(&header), connection).await?;
        self.main.call(|s| s.simulate()).await
    }

    #[zbus(out_args("rendition"))]
    async fn create_rendition(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(connection)] connection: &Connection,
        width: u32,
        height: u32,
        #[zbus(object_server)] server: &ObjectServer,
    ) -> Result<OwnedObjectPath, Error> {
        self.access.check(Some(&header), connection).await?;
        let number = self
            .main
            .call(move |s| s.create_rendition(width, height))
            .await?;
        let path = OwnedObjectPath::try_from(rendition_path(number))
            .map_err(|e| Error::Failed(format!("bad rendition path: {e}")))?;
        let service = RenditionService::new(self.main.clone(), self.access.clone(), number);
        server
            .at(&path, service)
            .await
            .map_err(|e| Error::Failed(format!("cannot serve {path}: {e}")))?;
        Ok(path)
    }

    async fn open_editor(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(connection)] connection: &Connection,
        kind: String,
    ) -> Result<(), Error> {
        self.access.check(Some(&header), connection).await?;
        self.main.call(move |s| s.open_editor(&kind)).await
    }

    async fn set_handles_visible(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(connection)] connection: &Connection,
        kind: String,
        visible: bool,
    ) -> Result<(), Error> {
        self.access.check(Some(&header), connection).await?;
        self.main
            .call(move |s| s.set_handles_visible(&kind, visible))
            .await
    }

    #[zbus(property)]
    async fn preferred_size(
        &self,
        #[zbus(header)] header: Option<Header<'_>>,
        #[zbus(connection)] connection: &Connection,
    ) -> zbus::fdo::Result<(u32, u32)> {
        check_property(&self.access, header, connection).await?;
        property(self.main.run(|s| s.preferred_size()).await)
    }

    #[zbus(property)]
    async fn duration(
        &self,
        #[zbus(header)] header: Option<Header<'_>>,
        #[zbus(connection)] connection: &Connection,
    ) -> zbus::fdo::Result<f64> {
        check_property(&self.access, header, connection).await?;
        property(self.main.run(|s| s.duration()).await)
    }

    #[zbus(property)]
    async fn status(
        &self,
        #[zbus(header)] header: Option<Header<'_>>,
        #[zbus(connection)] connection: &Connection,
    ) -> zbus::fdo::Result<String> {
        check_property(&self.access, header, connection).await?;
        property(self.main.run(|s| s.status().as_str().to_string()).await)
    }

    #[zbus(property)]
    async fn handles_visible(
        &self,
        #[zbus(header)] header: Option<Header<'_>>,
        #[zbus(connection)] connection: &Connection,
    ) -> zbus::fdo::Result<Vec<String>> {
        check_property(&self.access, header, connection).await?;
        property(self.main.run(|s| s.handles_visible()).await)
    }

    #[zbus(property)]
    async fn renditions(
        &self,
        #[zbus(header)] header: Option<Header<'_>>,
        #[zbus(connection)] connection: &Connection,
    ) -> zbus::fdo::Result<Vec<OwnedObjectPath>> {
        check_property(&self.access, header, connection).await?;
        property(self.main.run(|s| s.rendition_paths()).await)
    }

    #[zbus(signal)]
    pub async fn scene_text_changed(emitter: &SignalEmitter<'_>, text: &str) -> zbus::Result<()>;

    #[zbus(signal)]
    pub async fn save_requested(emitter: &SignalEmitter<'_>) -> zbus::Result<()>;

    #[zbus(signal)]
    pub async fn simulation_progress(
        emitter: &SignalEmitter<'_>,
        reached: f64,
        finish: f64,
    ) -> zbus::Result<()>;

    #[zbus(signal)]
    pub async fn error(
        emitter: &SignalEmitter<'_>,
        message: &str,
        line: u32,
        column: u32,
    ) -> zbus::Result<()>;
}

/// The latest pointer motion not yet handled: position and modifiers.
type MotionSlot = Arc<Mutex<Option<(Point2<f64>, Modifiers)>>>;

/// `org.asgard.Rendition1` at `/org/asgard/Asgard1/Rendition/N`.
pub struct RenditionService {
    main: MainThread,
    access: Arc<Access>,
    number: u32,
    closed: AtomicBool,
    motion: MotionSlot,
}

impl RenditionService {
    fn new(main: MainThread, access: Arc<Access>, number: u32) -> RenditionService {
        RenditionService {
            main,
            access,
            number,
            closed: AtomicBool::new(false),
            motion: Arc::default(),
        }
    }

    fn open(&self) -> Result<u32, Error> {
        if self.closed.load(Ordering::Acquire) {
            return Err(Error::Closed(format!(
                "{} was closed",
                rendition_path(self.number)
            )));
        }
        Ok(self.number)
    }
}

#[zbus::interface(name = "org.asgard.Rendition1", spawn = false)]
impl RenditionService {
    async fn resize(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(connection)] connection: &Connection,
        width: u32,
        height: u32,
    ) -> Result<(), Error> {
        self.access.check(Some(&header), connection).await?;
        let n = self.open()?;
        self.main.call(move |s| s.resize(n, width, height)).await
    }

    async fn play(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(connection)] connection: &Connection,
    ) -> Result<(), Error> {
        self.access.check(Some(&header), connection).await?;
        let n = self.open()?;
        self.main.call(move |s| s.play(n, true)).await
    }

    async fn pause(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(connection)] connection: &Connection,
    ) -> Result<(), Error> {
        self.access.check(Some(&header), connection).await?;
        let n = self.open()?;
        self.main.call(move |s| s.play(n, false)).await
    }

    async fn seek(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(connection)] connection: &Connection,
        time: f64,
    ) -> Result<(), Error> {
        self.access.check(Some(&header), connection).await?;
        let n = self.open()?;
        let time = request::seek_time(time)?;
        self.main.call(move |s| s.seek(n, time)).await
    }

    async fn step(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(connection)] connection: &Connection,
        frames: i32,
    ) -> Result<(), Error> {
        self.access.check(Some(&header), connection).await?;
        let n = self.open()?;
        self.main.call(move |s| s.step(n, frames)).await
    }

    #[zbus(out_args("fd", "width", "height", "stride", "buffers", "buffer_size"))]
    async fn get_frame_buffer(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(connection)] connection: &Connection,
    ) -> Result<(zbus::zvariant::OwnedFd, u32, u32, u32, u32, u64), Error> {
        self.access.check(Some(&header), connection).await?;
        let n = self.open()?;
        self.main.call(move |s| s.frame_buffer(n)).await
    }

    // Five arguments of the contract, and the caller's header and connection for the check.
    #[allow(clippy::too_many_arguments)]
    async fn pointer(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(connection)] connection: &Connection,
        kind: String,
        button: u32,
        x: f64,
        y: f64,
        modifiers: u32,
    ) -> Result<(), Error> {
        self.access.check(Some(&header), connection).await?;
        let n = self.open()?;
        let request::PointerEvent {
            kind,
            button,
            at,
            modifiers,
        } = request::pointer(&kind, button, x, y, modifiers)?;
        if kind == PointerKind::Motion {
            let first = self
                .motion
                .lock()
                .map_err(|_| Error::Failed("the pointer state was lost".into()))?
                .replace((at, modifiers))
                .is_none();
            if first {
                let slot = self.motion.clone();
                self.main
                    .post(move |s| {
                        let latest = slot.lock().ok().and_then(|mut m| m.take());
                        if let Some((at, modifiers)) = latest {
                            // Only a closed rendition fails here, and the host learns that
                            // from its next call.
                            let _ = s.pointer(n, PointerKind::Motion, 0, at, modifiers);
                        }
                    })
                    .await?;
            }
            return Ok(());
        }
        let slot = self.motion.clone();
        self.main
            .call(move |s| {
                // A pending motion comes first.
                let latest = slot.lock().ok().and_then(|mut m| m.take());
                if let Some((moved, moved_modifiers)) = latest {
                    s.pointer(n, PointerKind::Motion, 0, moved, moved_modifiers)?;
                }
                s.pointer(n, kind, button, at, modifiers)
            })
            .await
    }

    async fn scroll(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(connection)] connection: &Connection,
        dx: f64,
        dy: f64,
        modifiers: u32,
    ) -> Result<(), Error> {
        self.access.check(Some(&header), connection).await?;
        let n = self.open()?;
        let _ = modifiers;
        let (_, dy) = request::scroll(dx, dy)?;
        self.main.call(move |s| s.scroll(n, dy)).await
    }

    async fn key(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(connection)] connection: &Connection,
        name: String,
        pressed: bool,
        modifiers: u32,
    ) -> Result<(), Error> {
        self.access.check(Some(&header), connection).await?;
        let n = self.open()?;
        let _ = modifiers;
        self.main.call(move |s| s.key(n, &name, pressed)).await
    }

    async fn close(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(connection)] connection: &Connection,
    ) -> Result<(), Error> {
        self.access.check(Some(&header), connection).await?;
        let n = self.open()?;
        self.main.call(move |s| s.close(n)).await?;
        self.closed.store(true, Ordering::Release);
        Ok(())
    }

    #[zbus(property(emits_changed_signal = "false"))]
    async fn time(
        &self,
        #[zbus(header)] header: Option<Header<'_>>,
        #[zbus(connection)] connection: &Connection,
    ) -> zbus::fdo::Result<f64> {
        check_property(&self.access, header, connection).await?;
        let n = self.open().map_err(property_error)?;
        property(self.main.call(move |s| s.time(n)).await)
    }

    #[zbus(property)]
    async fn playing(
        &self,
        #[zbus(header)] header: Option<Header<'_>>,
        #[zbus(connection)] connection: &Connection,
    ) -> zbus::fdo::Result<bool> {
        check_property(&self.access, header, connection).await?;
        let n = self.open().map_err(property_error)?;
        property(self.main.call(move |s| s.playing(n)).await)
    }

    #[zbus(property, name = "Loop")]
    async fn looping(
        &self,
        #[zbus(header)] header: Option<Header<'_>>,
        #[zbus(connection)] connection: &Connection,
    ) -> zbus::fdo::Result<bool> {
        check_property(&self.access, header, connection).await?;
        let n = self.open().map_err(property_error)?;
        property(self.main.call(move |s| s.looping(n)).await)
    }

    #[zbus(property, name = "Loop")]
    async fn set_looping(
        &self,
        #[zbus(header)] header: Option<Header<'_>>,
        #[zbus(connection)] connection: &Connection,
        looping: bool,
    ) -> zbus::fdo::Result<()> {
        check_property(&self.access, header, connection).await?;
        let n = self.open().map_err(property_error)?;
        property(self.main.call(move |s| s.set_looping(n, looping)).await)
    }

    #[zbus(property)]
    async fn rate(
        &self,
        #[zbus(header)] header: Option<Header<'_>>,
        #[zbus(connection)] connection: &Connection,
    ) -> zbus::fdo::Result<f64> {
        check_property(&self.access, header, connection).await?;
        let n = self.open().map_err(property_error)?;
        property(self.main.call(move |s| s.rate(n)).await)
    }

    #[zbus(property)]
    async fn set_rate(
        &self,
        #[zbus(header)] header: Option<Header<'_>>,
        #[zbus(connection)] connection: &Connection,
        rate: f64,
    ) -> zbus::fdo::Result<()> {
        check_property(&self.access, header, connection).await?;
        let n = self.open().map_err(property_error)?;
        let rate = request::playing_rate(rate).map_err(property_error)?;
        property(self.main.call(move |s| s.set_rate(n, rate, false)).await)
    }

    #[zbus(property)]
    async fn mode(
        &self,
        #[zbus(header)] header: Option<Header<'_>>,
        #[zbus(connection)] connection: &Connection,
    ) -> zbus::fdo::Result<String> {
        check_property(&self.access, header, connection).await?;
        let n = self.open().map_err(property_error)?;
        property(self.main.call(move |s| s.mode(n)).await)
    }

    #[zbus(property)]
    async fn set_mode(
        &self,
        #[zbus(header)] header: Option<Header<'_>>,
        #[zbus(connection)] connection: &Connection,
        mode: String,
    ) -> zbus::fdo::Result<()> {
        check_property(&self.access, header, connection).await?;
        let n = self.open().map_err(property_error)?;
        property(self.main.call(move |s| s.set_mode(n, &mode)).await)
    }

    #[zbus(property)]
    async fn live_rate(
        &self,
        #[zbus(header)] header: Option<Header<'_>>,
        #[zbus(connection)] connection: &Connection,
    ) -> zbus::fdo::Result<f64> {
        check_property(&self.access, header, connection).await?;
        let n = self.open().map_err(property_error)?;
        property(self.main.call(move |s| s.live_rate(n)).await)
    }

    #[zbus(property)]
    async fn size(
        &self,
        #[zbus(header)] header: Option<Header<'_>>,
        #[zbus(connection)] connection: &Connection,
    ) -> zbus::fdo::Result<(u32, u32)> {
        check_property(&self.access, header, connection).await?;
        let n = self.open().map_err(property_error)?;
        property(self.main.call(move |s| s.size(n)).await)
    }

    #[zbus(signal)]
    pub async fn frame_ready(
        emitter: &SignalEmitter<'_>,
        serial: u64,
        buffer: u32,
        time: f64,
    ) -> zbus::Result<()>;

    #[zbus(signal)]
    pub async fn frame_buffer_changed(
        emitter: &SignalEmitter<'_>,
        width: u32,
        height: u32,
    ) -> zbus::Result<()>;
}

fn property<T>(result: Result<T, Error>) -> zbus::fdo::Result<T> {
    result.map_err(property_error)
}

/// [`Access::check`] for a property read or write, answered with the standard error.
async fn check_property(
    access: &Access,
    header: Option<Header<'_>>,
    connection: &Connection,
) -> zbus::fdo::Result<()> {
    access
        .check(header.as_ref(), connection)
        .await
        .map_err(property_error)
}

/// A contract error as the standard error `Properties.Get` and `Set` answer with.
fn property_error(e: Error) -> zbus::fdo::Error {
    match e {
        Error::InvalidArgument(m) | Error::InvalidSize(m) => zbus::fdo::Error::InvalidArgs(m),
        Error::NotAvailable(m) => zbus::fdo::Error::NotSupported(m),
        Error::AccessDenied(m) => zbus::fdo::Error::AccessDenied(m),
        other => zbus::fdo::Error::Failed(other.message()),
    }
}

/// `org.asgard.SessionAccess1` at `/org/asgard/Asgard1/Subdocument`, in session-bus mode.
pub struct SessionAccessService {
    access: Arc<Access>,
}

impl SessionAccessService {
    pub fn new(access: Arc<Access>) -> SessionAccessService {
        SessionAccessService { access }
    }
}

#[zbus::interface(name = "org.asgard.SessionAccess1")]
impl SessionAccessService {
    async fn authenticate(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(connection)] connection: &Connection,
        token: String,
    ) -> Result<(), Error> {
        self.access.authenticate(&token, &header, connection).await
    }
}
