//! Modules: the independent parts a driver runs (scene advance, viewer, input device), and the
//! handles that pause and resume one of them while the others go on.

use super::error::ModuleError;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A part of a live application that the driver updates in its loop. Modules know nothing of
/// each other; each can also be used on its own (`init`, then `update` in a loop of one's own).
pub trait Module {
    /// A short name for messages.
    fn name(&self) -> &str;

    /// Prepares the module; called once before the driver's loop starts.
    fn init(&mut self) -> Result<(), ModuleError> {
        Ok(())
    }

    /// Advances the module by `dt` seconds: a fixed timestep for a [`Schedule::FixedStep`]
    /// module, the real time since the previous iteration for a [`Schedule::EveryIteration`]
    /// one.
    fn update(&mut self, dt: f64);

    /// Releases what `init` took; called once after the loop ends.
    fn uninit(&mut self) {}
}

/// How the driver updates a module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// As many fixed timesteps per iteration as the real time that passed pays for (the scene
    /// advance): the simulation keeps up with real time however fast the machine is.
    FixedStep,
    /// Once per iteration with the real time elapsed since the previous one (viewers, input
    /// devices).
    EveryIteration,
}

/// Pauses and resumes one module from anywhere, including other threads and other modules.
/// While paused the module is skipped; the driver and the other modules keep running, and the
/// time that passes meanwhile is not made up for on resume.
#[derive(Clone, Debug, Default)]
pub struct ModuleHandle {
    paused: Arc<AtomicBool>,
}

impl ModuleHandle {
    pub fn pause(&self) {
        self.paused.store(true, Ordering::Release);
    }

    pub fn resume(&self) {
        self.paused.store(false, Ordering::Release);
    }

    pub fn is_paused(&self) -> bool {
        self.paused.load(Ordering::Acquire)
    }
}
