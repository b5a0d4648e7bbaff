//! How a simulation is organised and how accurately it integrates.

use super::integrate::StepControl;

/// How equations are grouped and scheduled (the strategies compared in figures 5.7 and 5.11).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// One component per strongly connected component, each with its own step, advanced by the
    /// event-driven priority queue: always the component furthest behind that may step
    /// (section 5.2.3). The default.
    EventDriven,
    /// The same components, each run to the end in dependency order before the next starts
    /// (the "non-event-driven" case of figure 5.11).
    Sequential,
    /// All equations in one component with one step ("combined" in figure 5.7).
    Combined,
}

/// Settings of a [`Simulation`](super::Simulation).
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    pub strategy: Strategy,
    pub step: StepControl,
    /// A progress report is made every this many accepted steps (over all components).
    pub progress_every: u64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            strategy: Strategy::EventDriven,
            step: StepControl::default(),
            progress_every: 1000,
        }
    }
}
