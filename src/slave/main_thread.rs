//! The bridge from zbus's executor thread to the slave's main thread.
//!
//! The scene (a [`Session`](crate::session::Session)), the GL contexts and any editor windows
//! live on the main thread, which runs a GLib main loop; zbus calls the interface methods on
//! its own executor thread. A method sends a job to the main thread and awaits the job's result,
//! so each D-Bus call is answered from the main thread's state without locks. The job queue is
//! bounded: when the main thread falls behind, calls wait in the socket rather than in memory.

use super::subdocument::Subdocument;
use crate::ipc::Error;
use std::rc::Rc;

/// Jobs waiting for the main thread at most; a sender beyond that waits.
const QUEUED_JOBS: usize = 32;

/// Work for the main thread.
pub type Job = Box<dyn FnOnce(&Rc<Subdocument>) + Send>;

/// The executor's handle on the main thread.
#[derive(Clone)]
pub struct MainThread {
    jobs: async_channel::Sender<Job>,
}

/// The main thread's end: the jobs to run, in order.
pub type Jobs = async_channel::Receiver<Job>;

impl MainThread {
    pub fn new() -> (MainThread, Jobs) {
        let (jobs, receiver) = async_channel::bounded(QUEUED_JOBS);
        (MainThread { jobs }, receiver)
    }

    /// Runs `work` on the main thread and returns its result.
    pub async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Rc<Subdocument>) -> T + Send + 'static,
    ) -> Result<T, Error> {
        let (reply, result) = async_channel::bounded(1);
        self.post(move |subdocument| {
            // The caller may have gone (its connection closed); then nobody needs the result.
            let _ = reply.try_send(work(subdocument));
        })
        .await?;
        result.recv().await.map_err(|_| shutting_down())
    }

    /// Queues `work` for the main thread without waiting for it to run.
    pub async fn post(
        &self,
        work: impl FnOnce(&Rc<Subdocument>) + Send + 'static,
    ) -> Result<(), Error> {
        self.jobs
            .send(Box::new(work))
            .await
            .map_err(|_| shutting_down())
    }

    /// Like [`MainThread::run`] for work that may itself fail with a contract error.
    pub async fn call<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Rc<Subdocument>) -> Result<T, Error> + Send + 'static,
    ) -> Result<T, Error> {
        self.run(work).await?
    }
}

fn shutting_down() -> Error {
    Error::Failed("the slave is shutting down".into())
}
