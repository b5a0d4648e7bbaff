//! The session's simulator: one worker thread that owns the compiled model and its simulation.
//!
//! The GUI thread never waits for the simulator. It sends the scene to simulate; the worker
//! compiles it, hands back the motion object at once (playback may start while the tracks
//! grow behind it, 4.1.9), reports progress, and says how the run ended. A new request cancels
//! the run in progress. The worker keeps its [`Solver`] between requests, so a new scene is an
//! edit of the previous one: only the motion the edit affects is reset and recomputed (5.2.5). Messages are tagged with the request they answer, so news from a
//! cancelled run is recognised and dropped. The worker calls the session's waker after every
//! message so the shell can schedule [`Simulator::poll`] on its own main loop.

use crate::lang::span::Span;
use crate::scene::Scene;
use crate::sim::physics::SceneMotion;
use crate::sim::{Progress, RunControl, RunOutcome, Solver, Strategy};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;

/// Something the shell calls from any thread to get [`crate::session::Session::poll`] run on
/// its main thread soon.
pub type Waker = Arc<dyn Fn() + Send + Sync>;

/// Where the simulation stands.
#[derive(Clone, Debug, PartialEq)]
pub enum SimStatus {
    /// Nothing simulated yet.
    Idle,
    /// Computing; `progress` is how far every body is known.
    Running(Progress),
    /// The whole time range is computed.
    Finished,
    /// The run stopped with this error; the motion computed up to then stays usable.
    Failed(String),
}

/// What the worker reports back.
pub enum Report {
    /// The scene compiled; this motion fills in as the run goes.
    Started(SceneMotion),
    Progress(Progress),
    Finished,
    /// The message, and the element of the scene text to blame when one is known.
    Failed(String, Option<Span>),
}

enum Request {
    Simulate { scene: Box<Scene>, id: u64 },
}

/// The main-thread side of the worker.
pub struct Simulator {
    requests: Option<Sender<Request>>,
    reports: Receiver<(u64, Report)>,
    cancel: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    /// The request whose reports count.
    current: u64,
}

impl Simulator {
    pub fn new(waker: Waker) -> Simulator {
        let (request_tx, request_rx) = channel();
        let (report_tx, report_rx) = channel();
        let cancel = Arc::new(AtomicBool::new(false));
        let flag = cancel.clone();
        let thread = std::thread::Builder::new()
            .name("asgard-simulator".into())
            .spawn(move || serve(request_rx, report_tx, flag, waker))
            .expect("spawning the simulator thread");
        Simulator {
            requests: Some(request_tx),
            reports: report_rx,
            cancel,
            thread: Some(thread),
            current: 0,
        }
    }

    /// Cancels whatever is running and starts simulating `scene`.
    pub fn simulate(&mut self, scene: Scene) {
        self.current += 1;
        self.cancel.store(true, Ordering::SeqCst);
        if let Some(requests) = &self.requests {
            // The worker only goes away when we drop the sender.
            let _ = requests.send(Request::Simulate {
                scene: Box::new(scene),
                id: self.current,
            });
        }
    }

    /// Stops the run in progress, if any; its motion so far stays readable.
    pub fn cancel(&mut self) {
        self.current += 1;
        self.cancel.store(true, Ordering::SeqCst);
    }

    /// Reports of the current request that arrived since the last call, in order.
    pub fn poll(&mut self) -> Vec<Report> {
        let mut out = Vec::new();
        while let Ok((id, report)) = self.reports.try_recv() {
            if id == self.current {
                out.push(report);
            }
        }
        out
    }
}

impl Drop for Simulator {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::SeqCst);
        self.requests = None;
        if let Some(thread) = self.thread.take() {
            // A panic on the worker has nothing left to report to.
            let _ = thread.join();
        }
    }
}

fn serve(
    requests: Receiver<Request>,
    reports: Sender<(u64, Report)>,
    cancel: Arc<AtomicBool>,
    waker: Waker,
) {
    let send = |id: u64, report: Report| {
        if reports.send((id, report)).is_ok() {
            waker();
        }
    };
    let mut solver: Option<Solver> = None;
    while let Ok(mut request) = requests.recv() {
        // Only the newest request matters; skip any that queued up behind it.
        while let Ok(newer) = requests.try_recv() {
            request = newer;
        }
        let Request::Simulate { scene, id } = request;
        cancel.store(false, Ordering::SeqCst);
        let prepared = match solver.as_mut() {
            Some(solver) => solver.update(*scene).map(|_| ()),
            None => Solver::new(*scene, Strategy::EventDriven).map(|new| solver = Some(new)),
        };
        let Some(solver) = solver.as_mut().filter(|_| prepared.is_ok()) else {
            if let Err(e) = prepared {
                send(id, Report::Failed(e.to_string(), e.span()));
            }
            continue;
        };
        send(id, Report::Started(solver.motion()));
        let mut progress = |p: &Progress| send(id, Report::Progress(*p));
        let mut control = RunControl {
            cancel: Some(&cancel),
            progress: Some(&mut progress),
        };
        match solver.run(&mut control) {
            Ok(RunOutcome::Finished) => send(id, Report::Finished),
            Ok(RunOutcome::Cancelled) => {}
            Err(e) => send(id, Report::Failed(e.to_string(), e.span())),
        }
    }
}
