//! The slave process (dissertation 6.2.2-6.2.3): `asgard slave` serves the embedding contract
//! of [`crate::ipc`] for one scene and draws its renditions.
//!
//! One process per animation subdocument. The main thread runs a GLib main loop that owns the
//! scene's [`Session`] ([`subdocument`]), draws every rendition off-screen with `render` into
//! its shared frame memory at the playback rate ([`rendition`], [`picture`]) and handles the
//! pointer events the host forwards through the view layer (`crate::view`), as the editor's
//! viewers handle theirs: the slave does its own viewing transformation and handle editing,
//! and a handle drag becomes a text patch through the session, which the host hears of as
//! `SceneTextChanged`. zbus serves the interfaces on its own thread ([`service`]) and hands
//! every call to the main thread ([`main_thread`]); signals go back through one ordered,
//! bounded queue ([`outbox`]).
//!
//! The same service serves the stand-alone editor's session on the session bus
//! ([`serve_session`]): `asgard edit` has no interface of its own.
//!
//! The slave ends when its connection closes: the host closed it or went away (on the
//! session bus, when the bus goes away), or, on a private connection, sent a malformed
//! message (`ipc::wire`), which the slave names on its standard error before it exits with
//! status 1. On the session bus it answers only the process that
//! started it and connections that authenticated with the token it prints at start-up
//! ([`access`]).
//!
//! A rendition in `live` mode runs the scene itself with a view's live run
//! (`crate::view::live::LiveRun` over `crate::live::scene::SceneAdvance`), advanced to the
//! real time of each frame tick; pointer presses on bodies pull them and arrow keys push them
//! ([`rendition`]).
//!
//! `OpenEditor` opens the editor's windows (`crate::ui`) on the slave's own session and main
//! loop, initialising GTK the first time (without a display it answers `NotAvailable`).

mod access;
mod main_thread;
mod outbox;
mod picture;
mod rendition;
mod service;
mod subdocument;

use crate::ipc::names::{slave_bus_name, SUBDOCUMENT_PATH};
use crate::ipc::transport;
use crate::ipc::wire::Refusal;
use crate::session::Session;
use access::{Access, SessionAccess};
use gtk4::glib;
use main_thread::{Jobs, MainThread};
use service::{SessionAccessService, SubdocumentService};
use std::fmt;
use std::io::Write;
use std::os::unix::net::UnixStream;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;
use subdocument::Subdocument;

/// How often renditions are drawn while they play: 60 frames a second.
const FRAME_INTERVAL: Duration = Duration::from_micros(16_667);

/// Where the slave serves its objects.
pub enum Bus {
    /// A private peer-to-peer connection on a socket the host passed (`--dbus-fd N`); the
    /// slave is the D-Bus server of the pair, the host the client.
    Peer(UnixStream),
    /// The session bus, under `org.asgard.Asgard1.Slave<PID>` (`--session-bus`), for tools:
    /// calls are answered for the starting process and for connections that authenticated
    /// with the token printed at start-up ([`access`]).
    Session,
}

/// Why the slave could not serve.
#[derive(Debug)]
pub struct SlaveError(String);

impl fmt::Display for SlaveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SlaveError {}

/// Serves the contract on `bus` until the connection closes.
pub fn run(bus: Bus) -> Result<(), SlaveError> {
    let (main, jobs) = MainThread::new();
    let (connection, access, refusal) = connect(bus, main)?;
    announce(&access)?;
    let context = glib::MainContext::default();
    let _owner = context
        .acquire()
        .map_err(|e| SlaveError(format!("cannot own the main loop: {e}")))?;
    let main_loop = glib::MainLoop::new(Some(&context), false);
    let (wake, woken) = async_channel::bounded::<()>(1);
    let waker = Arc::new(move || {
        // Full means a poll is already due.
        let _ = wake.try_send(());
    });
    let outbox = outbox::Outbox::new(connection.clone());
    let subdocument = Subdocument::new(outbox, waker);
    let polled = Rc::downgrade(&subdocument);
    glib::spawn_future_local(async move {
        while woken.recv().await.is_ok() {
            match polled.upgrade() {
                Some(subdocument) => subdocument.poll(),
                None => break,
            }
        }
    });
    attach(&subdocument, jobs);
    let watched = connection.clone();
    let ending = main_loop.clone();
    glib::spawn_future_local(async move {
        watched.closed().await;
        ending.quit();
    });

    main_loop.run();
    match refusal.and_then(|r| r.reason()) {
        Some(reason) => Err(SlaveError(format!(
            "the host sent {reason}; the connection was closed"
        ))),
        None => Ok(()),
    }
}

/// Serves `session`, the stand-alone editor's, on the session bus exactly as `asgard slave
/// --session-bus` serves its own (the same name pattern, interfaces, access rules and
/// start-up line), from the GLib main loop GTK already runs; `OpenEditor` opens windows of
/// `app`. The service lives as long as that main loop.
pub fn serve_session(session: Rc<Session>, app: &gtk4::Application) -> Result<(), SlaveError> {
    let (main, jobs) = MainThread::new();
    let (connection, access, _) = connect(Bus::Session, main)?;
    announce(&access)?;
    let outbox = outbox::Outbox::new(connection);
    let subdocument = Subdocument::serving(session, outbox, Some(app.clone()));
    attach(&subdocument, jobs);
    Ok(())
}

/// The connection on `bus` serving the subdocument (and on the session bus the access
/// interface), with every call handed to `main`; who may call; on a private connection, the
/// record of a malformed message that closed it.
fn connect(
    bus: Bus,
    main: MainThread,
) -> Result<(zbus::Connection, Arc<Access>, Option<Refusal>), SlaveError> {
    let failed = |doing: &str| {
        let doing = doing.to_string();
        move |e: zbus::Error| SlaveError(format!("{doing}: {e}"))
    };
    let mut refusal = None;
    let (builder, access) = match bus {
        Bus::Peer(stream) => {
            let (builder, refused) = transport::slave_connection(stream)
                .map_err(failed("cannot use the host's socket"))?;
            refusal = Some(refused);
            (builder, Arc::new(Access::Private))
        }
        Bus::Session => {
            let rules = SessionAccess::new()
                .map_err(|e| SlaveError(format!("cannot make an access token: {e}")))?;
            let access = Arc::new(Access::Session(rules));
            let builder = zbus::connection::Builder::session()
                .and_then(|b| b.name(slave_bus_name(std::process::id())))
                .and_then(|b| {
                    b.serve_at(SUBDOCUMENT_PATH, SessionAccessService::new(access.clone()))
                })
                .map_err(failed("cannot use the session bus"))?;
            (builder, access)
        }
    };
    let service = SubdocumentService::new(main, access.clone());
    let connection = zbus::block_on(
        builder
            .serve_at(SUBDOCUMENT_PATH, service)
            .map_err(failed("cannot serve the subdocument"))?
            .build(),
    )
    .map_err(failed("cannot connect to the host"))?;
    Ok((connection, access, refusal))
}

/// On the session bus, prints `BUS_NAME TOKEN` as the first line of standard output: the
/// name is owned once the connection is built, so a tool reading this line can call.
fn announce(access: &Access) -> Result<(), SlaveError> {
    if let Access::Session(rules) = access {
        let mut out = std::io::stdout().lock();
        writeln!(
            out,
            "{} {}",
            slave_bus_name(std::process::id()),
            rules.token()
        )
        .and_then(|()| out.flush())
        .map_err(|e| SlaveError(format!("cannot print the access token: {e}")))?;
    }
    Ok(())
}

/// Runs the calls of `jobs` on `subdocument` and draws its renditions at the frame rate, on
/// the thread's default main context.
fn attach(subdocument: &Rc<Subdocument>, jobs: Jobs) {
    let jobs_for = subdocument.clone();
    glib::spawn_future_local(async move {
        while let Ok(job) = jobs.recv().await {
            job(&jobs_for);
        }
    });
    let drawn = Rc::downgrade(subdocument);
    glib::timeout_add_local(FRAME_INTERVAL, move || match drawn.upgrade() {
        Some(subdocument) => {
            subdocument.tick();
            glib::ControlFlow::Continue
        }
        None => glib::ControlFlow::Break,
    });
}
