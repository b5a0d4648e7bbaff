//! Running a simulation: the scheduling loop, progress, cancellation, and a worker thread.

use super::error::{ErrorKind, SimError};
use super::motion::Motion;
use super::schedule::Simulation;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver};
use std::sync::Arc;
use std::thread::JoinHandle;

/// How far a run has come.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// Every component has been computed at least up to this time.
    pub time: f64,
    /// The end time.
    pub end: f64,
    /// Accepted steps so far (over all components and runs).
    pub steps: u64,
}

/// How a run ended, when it did not fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunOutcome {
    /// Every component reached the end time.
    Finished,
    /// Cancellation was requested; running again continues where this run stopped.
    Cancelled,
}

/// Optional cancellation flag and progress callback for [`Simulation::run`].
#[derive(Default)]
pub struct RunControl<'a> {
    /// Checked before every step; when set the run stops.
    pub cancel: Option<&'a AtomicBool>,
    /// Called every [`Options::progress_every`](super::Options) steps and at the end.
    pub progress: Option<&'a mut dyn FnMut(&Progress)>,
}

impl Simulation {
    /// Moves the simulation to a worker thread and runs it there.
    pub fn spawn(mut self) -> Worker {
        let cancel = Arc::new(AtomicBool::new(false));
        let (sender, progress) = channel();
        let motion = self.motion();
        let flag = cancel.clone();
        let thread = std::thread::spawn(move || {
            let mut report = |p: &Progress| {
                // The receiver may be gone; progress is then of no interest.
                let _ = sender.send(*p);
            };
            let mut control = RunControl {
                cancel: Some(&flag),
                progress: Some(&mut report),
            };
            let result = self.run(&mut control);
            (self, result)
        });
        Worker {
            thread,
            cancel,
            progress,
            motion,
        }
    }
}

/// A simulation running on its own thread.
pub struct Worker {
    thread: JoinHandle<(Simulation, Result<RunOutcome, SimError>)>,
    cancel: Arc<AtomicBool>,
    progress: Receiver<Progress>,
    motion: Motion,
}

impl Worker {
    /// Asks the run to stop after the current step.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    /// Progress reports, in order.
    pub fn progress(&self) -> &Receiver<Progress> {
        &self.progress
    }

    /// The motion computed so far (and as it grows).
    pub fn motion(&self) -> &Motion {
        &self.motion
    }

    pub fn is_finished(&self) -> bool {
        self.thread.is_finished()
    }

    /// Waits for the run to end and gives the simulation back with the run's result.
    pub fn join(self) -> Result<(Simulation, Result<RunOutcome, SimError>), SimError> {
        self.thread.join().map_err(|_| {
            SimError::new(
                ErrorKind::WorkerPanicked,
                "the simulation thread panicked; its simulation is lost",
            )
        })
    }
}
