//! The driver: initialises its modules, then loops, paying the real time that passed into a
//! time bank and updating the scene in fixed steps drawn from it, until asked to stop.

use super::bank::TimeBank;
use super::clock::{Clock, SystemClock};
use super::error::LiveError;
use super::module::{Module, ModuleHandle, Schedule};
use super::pace::{Pacer, Pacing, Rate};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The timestep a driver starts with: 0.01 s, a usual rate for physics.
pub const DEFAULT_DT: Duration = Duration::from_millis(10);

/// Asks a running driver to stop, from any thread. The driver finishes its current iteration,
/// shuts its modules down and returns from [`Driver::run`]. A request made while no run is in
/// progress ends the next run before its first iteration.
#[derive(Clone, Debug, Default)]
pub struct StopHandle {
    requested: Arc<AtomicBool>,
}

impl StopHandle {
    pub fn request_stop(&self) {
        self.requested.store(true, Ordering::Release);
    }

    pub fn is_stop_requested(&self) -> bool {
        self.requested.load(Ordering::Acquire)
    }

    fn clear(&self) {
        self.requested.store(false, Ordering::Release);
    }
}

struct Entry {
    module: Box<dyn Module>,
    schedule: Schedule,
    handle: ModuleHandle,
}

/// Runs modules in one loop on the calling thread.
///
/// Each iteration reads the clock, pays the time elapsed since the previous iteration into the
/// time bank, takes the steps it pays out (N = floor(bank / dt)), each step updating every
/// [`Schedule::FixedStep`] module that is not paused in the order they were added, and then
/// updates every [`Schedule::EveryIteration`] module that is not paused once with the elapsed
/// time. If rendering took 1 s and dt is 0.1 s, the scene takes ten steps in the next
/// iteration. A stop requested by a module during a step ends the run after that step.
///
/// With [`Driver::set_pacing`] an iteration takes steps only within a processor-time budget
/// and the simulation falls behind real time when it cannot keep up ([`Pacer`]); by default
/// ([`Pacing::CATCH_UP`]) every step due is taken.
///
/// With remainder division (the default) the steps of one iteration share out everything in
/// the bank, so motion is smooth but step lengths vary with the machine's speed. Without it
/// every step is exactly dt and the remainder waits: the same sequence of steps on any machine,
/// bit for bit.
///
/// When an iteration updates nothing (only fixed-step modules and less than a step in the
/// bank, or everything paused) the driver sleeps until the next step is due instead of
/// spinning.
pub struct Driver {
    modules: Vec<Entry>,
    clock: Box<dyn Clock>,
    dt: Duration,
    remainder_division: bool,
    pacing: Pacing,
    starting: Vec<Box<dyn FnMut()>>,
    stop: StopHandle,
}

/// A stop requested during a step, ending the iteration.
struct Stopped;

impl Default for Driver {
    fn default() -> Driver {
        Driver::new()
    }
}

impl Driver {
    /// A driver on the system clock with the default timestep and remainder division on.
    pub fn new() -> Driver {
        Driver::with_clock(SystemClock::new())
    }

    /// A driver reading time from `clock`.
    pub fn with_clock(clock: impl Clock + 'static) -> Driver {
        Driver {
            modules: Vec::new(),
            clock: Box::new(clock),
            dt: DEFAULT_DT,
            remainder_division: true,
            pacing: Pacing::CATCH_UP,
            starting: Vec::new(),
            stop: StopHandle::default(),
        }
    }

    /// Sets the desired fixed timestep of [`Schedule::FixedStep`] modules.
    pub fn set_desired_dt(&mut self, dt: Duration) -> Result<(), LiveError> {
        if dt.is_zero() {
            return Err(LiveError::ZeroTimestep);
        }
        self.dt = dt;
        Ok(())
    }

    pub fn desired_dt(&self) -> Duration {
        self.dt
    }

    /// Turns remainder-time division on (smooth) or off (every step exactly dt).
    pub fn set_remainder_division(&mut self, on: bool) {
        self.remainder_division = on;
    }

    pub fn remainder_division(&self) -> bool {
        self.remainder_division
    }

    /// Sets how much work an iteration may do ([`Pacing::LIVE`] for a live run in real
    /// time); the default takes every step due.
    pub fn set_pacing(&mut self, pacing: Pacing) {
        self.pacing = pacing;
    }

    /// Adds a module, updated after those added before it; the handle pauses and resumes it.
    pub fn add_module(
        &mut self,
        module: impl Module + 'static,
        schedule: Schedule,
    ) -> ModuleHandle {
        let handle = ModuleHandle::default();
        self.modules.push(Entry {
            module: Box::new(module),
            schedule,
            handle: handle.clone(),
        });
        handle
    }

    /// Adds a callback run once every module has been initialised, just before the loop
    /// starts.
    pub fn on_starting(&mut self, callback: impl FnMut() + 'static) {
        self.starting.push(Box::new(callback));
    }

    /// A handle that stops this driver from any thread.
    pub fn stop_handle(&self) -> StopHandle {
        self.stop.clone()
    }

    /// Initialises the modules, runs the `starting` callbacks, and loops until a stop is
    /// requested; then shuts the modules down in reverse order. Returns only when stopped,
    /// with the rate the run achieved (simulated time per real time, and whether real time was
    /// given up), or at once if a module fails to initialise (the ones already initialised are
    /// shut down).
    pub fn run(&mut self) -> Result<Rate, LiveError> {
        let mut pacer = Pacer::new(
            TimeBank::new(self.dt, self.remainder_division)?,
            self.pacing,
        );
        self.init_modules()?;
        for callback in &mut self.starting {
            callback();
        }
        let mut last = self.clock.now();
        while !self.stop.is_stop_requested() {
            let now = self.clock.now();
            let elapsed = now.saturating_sub(last);
            last = now;
            let active = |entry: &&mut Entry, schedule| {
                entry.schedule == schedule && !entry.handle.is_paused()
            };
            let stepping = self
                .modules
                .iter_mut()
                .any(|e| active(&e, Schedule::FixedStep));
            let (modules, stop) = (&mut self.modules, &self.stop);
            let frame = pacer.frame(elapsed, |dt| {
                for entry in modules
                    .iter_mut()
                    .filter(|e| active(e, Schedule::FixedStep))
                {
                    entry.module.update(dt);
                }
                if stop.is_stop_requested() {
                    Err(Stopped)
                } else {
                    Ok(())
                }
            });
            let Ok(frame) = frame else { break };
            let mut updated = stepping && frame.steps > 0;
            for entry in modules
                .iter_mut()
                .filter(|e| active(e, Schedule::EveryIteration))
            {
                entry.module.update(elapsed.as_secs_f64());
                updated = true;
            }
            if !updated {
                let bank = pacer.bank();
                self.clock.sleep(bank.dt().saturating_sub(bank.balance()));
            }
        }
        for entry in self.modules.iter_mut().rev() {
            entry.module.uninit();
        }
        self.stop.clear();
        Ok(pacer.total())
    }

    fn init_modules(&mut self) -> Result<(), LiveError> {
        for i in 0..self.modules.len() {
            if let Err(source) = self.modules[i].module.init() {
                for entry in self.modules[..i].iter_mut().rev() {
                    entry.module.uninit();
                }
                return Err(LiveError::Init {
                    module: self.modules[i].module.name().to_string(),
                    source,
                });
            }
        }
        Ok(())
    }
}
