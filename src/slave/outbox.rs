//! Signals from the main thread to the host, sent in order by one task on the main loop.
//!
//! The main thread never waits for the socket: it queues a signal and goes on. The queue stays
//! small however slow the host is: a newer scene text or progress report replaces a queued
//! one (only the latest matters), property changes merge per property, and a rendition draws
//! its next frame only once the FrameReady of its previous one has been sent
//! ([`Outbox::frame_in_flight`]), so a host that stops reading stops the drawing too.

use super::service::{RenditionService, SubdocumentService};
use crate::ipc::names::{rendition_path, SUBDOCUMENT_INTERFACE, SUBDOCUMENT_PATH};
use crate::ipc::FrameInfo;
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap, VecDeque};
use std::rc::Rc;
use zbus::object_server::SignalEmitter;
use zbus::zvariant::Value;
use zbus::Connection;

/// A signal waiting to be sent.
#[derive(Debug)]
enum Signal {
    SceneTextChanged(String),
    SaveRequested,
    SimulationProgress {
        reached: f64,
        finish: f64,
    },
    Error {
        message: String,
        line: u32,
        column: u32,
    },
    FrameReady {
        rendition: u32,
        frame: FrameInfo,
    },
    FrameBufferChanged {
        rendition: u32,
        width: u32,
        height: u32,
    },
    /// `PropertiesChanged` of the subdocument (`rendition` 0) or of a rendition.
    PropertiesChanged {
        rendition: u32,
        changed: Vec<(&'static str, Value<'static>)>,
    },
}

/// The queue of signals and the task that sends them.
#[derive(Clone)]
pub struct Outbox {
    inner: Rc<Inner>,
}

struct Inner {
    queue: RefCell<VecDeque<Signal>>,
    /// Renditions whose last FrameReady is queued or being sent.
    frames_in_flight: RefCell<BTreeSet<u32>>,
    wake: async_channel::Sender<()>,
}

impl Outbox {
    /// An outbox sending on `connection`; its task runs on the thread's GLib main context.
    pub fn new(connection: Connection) -> Outbox {
        let (wake, woken) = async_channel::bounded(1);
        let outbox = Outbox {
            inner: Rc::new(Inner {
                queue: RefCell::new(VecDeque::new()),
                frames_in_flight: RefCell::new(BTreeSet::new()),
                wake,
            }),
        };
        let sender = outbox.clone();
        gtk4::glib::spawn_future_local(async move {
            while woken.recv().await.is_ok() {
                while let Some(signal) = sender.next() {
                    let rendition = match signal {
                        Signal::FrameReady { rendition, .. } => Some(rendition),
                        _ => None,
                    };
                    // A failure means the connection is closing; the slave ends with it.
                    let _ = send(&connection, signal).await;
                    if let Some(rendition) = rendition {
                        sender
                            .inner
                            .frames_in_flight
                            .borrow_mut()
                            .remove(&rendition);
                    }
                }
            }
        });
        outbox
    }

    fn next(&self) -> Option<Signal> {
        self.inner.queue.borrow_mut().pop_front()
    }

    fn push(&self, signal: Signal) {
        self.inner.queue.borrow_mut().push_back(signal);
        // Full means the task is already due to look at the queue.
        let _ = self.inner.wake.try_send(());
    }

    /// Queues `signal` in place of any queued signal that `replaces` matches.
    fn replace(&self, signal: Signal, replaces: impl Fn(&Signal) -> bool) {
        self.inner.queue.borrow_mut().retain(|s| !replaces(s));
        self.push(signal);
    }

    pub fn scene_text_changed(&self, text: String) {
        self.replace(Signal::SceneTextChanged(text), |s| {
            matches!(s, Signal::SceneTextChanged(_))
        });
    }

    /// Asks the host to save its document; queued after the scene text it is to store.
    pub fn save_requested(&self) {
        self.push(Signal::SaveRequested);
    }

    pub fn simulation_progress(&self, reached: f64, finish: f64) {
        self.replace(Signal::SimulationProgress { reached, finish }, |s| {
            matches!(s, Signal::SimulationProgress { .. })
        });
    }

    pub fn error(&self, message: String, line: u32, column: u32) {
        self.push(Signal::Error {
            message,
            line,
            column,
        });
    }

    /// Announces a frame of rendition `rendition`; it counts as in flight until sent.
    pub fn frame_ready(&self, rendition: u32, frame: FrameInfo) {
        self.inner.frames_in_flight.borrow_mut().insert(rendition);
        self.push(Signal::FrameReady { rendition, frame });
    }

    /// Whether rendition `rendition`'s last frame has not been announced yet.
    pub fn frame_in_flight(&self, rendition: u32) -> bool {
        self.inner.frames_in_flight.borrow().contains(&rendition)
    }

    pub fn frame_buffer_changed(&self, rendition: u32, width: u32, height: u32) {
        self.push(Signal::FrameBufferChanged {
            rendition,
            width,
            height,
        });
    }

    /// Announces new values of properties of the subdocument (`rendition` 0) or of a
    /// rendition, merged with changes of the same object still queued.
    pub fn properties_changed(&self, rendition: u32, changed: Vec<(&'static str, Value<'static>)>) {
        let mut queue = self.inner.queue.borrow_mut();
        let queued = queue.iter_mut().find_map(|s| match s {
            Signal::PropertiesChanged {
                rendition: r,
                changed,
            } if *r == rendition => Some(changed),
            _ => None,
        });
        if let Some(queued) = queued {
            for (name, value) in changed {
                queued.retain(|(n, _)| *n != name);
                queued.push((name, value));
            }
            return;
        }
        drop(queue);
        self.push(Signal::PropertiesChanged { rendition, changed });
    }
}

async fn send(connection: &Connection, signal: Signal) -> zbus::Result<()> {
    let subdocument = || SignalEmitter::new(connection, SUBDOCUMENT_PATH);
    let rendition = |n: u32| SignalEmitter::new(connection, rendition_path(n));
    match signal {
        Signal::SceneTextChanged(text) => {
            SubdocumentService::scene_text_changed(&subdocument()?, &text).await
        }
        Signal::SaveRequested => SubdocumentService::save_requested(&subdocument()?).await,
        Signal::SimulationProgress { reached, finish } => {
            SubdocumentService::simulation_progress(&subdocument()?, reached, finish).await
        }
        Signal::Error {
            message,
            line,
            column,
        } => SubdocumentService::error(&subdocument()?, &message, line, column).await,
        Signal::FrameReady {
            rendition: n,
            frame,
        } => {
            RenditionService::frame_ready(&rendition(n)?, frame.serial, frame.buffer, frame.time)
                .await
        }
        Signal::FrameBufferChanged {
            rendition: n,
            width,
            height,
        } => RenditionService::frame_buffer_changed(&rendition(n)?, width, height).await,
        Signal::PropertiesChanged {
            rendition: n,
            changed,
        } => {
            let (emitter, interface) = if n == 0 {
                (subdocument()?, SUBDOCUMENT_INTERFACE)
            } else {
                (rendition(n)?, crate::ipc::names::RENDITION_INTERFACE)
            };
            let values: HashMap<&str, Value<'_>> = changed.into_iter().collect();
            zbus::fdo::Properties::properties_changed(
                &emitter,
                interface.try_into()?,
                values,
                (&[] as &[&str]).into(),
            )
            .await
        }
    }
}
