//! Pacing a live simulation to real time without ever blocking whoever drives it.
//!
//! Real time is paid into a [`TimeBank`] frame by frame and the simulation takes fixed steps
//! from it, but a step may cost more processor time than the real time it covers (a scene of
//! many bodies). Paying every step due would then make each frame longer than the last and
//! freeze the window or the main loop that runs it. So a [`Pacer`] bounds each frame's work by
//! *processor time*: it stops taking steps once the frame's [`Pacing::budget`] is used up (one
//! step always runs, so the scene moves on), leaves the steps it did not take in the bank, and
//! lets the bank hold at most [`Pacing::max_lag`] of real time: a moment's hiccup is made up in
//! the next frames, while a scene that cannot keep up falls behind real time, visibly slower,
//! instead of owing ever more. It measures the rate it achieves, simulated time per real time,
//! over the last second ([`Pacer::rate`]) and over the whole run ([`Pacer::total`]), and
//! whether real time had to be given up ([`Rate::slowed`]), so that callers can say "running at
//! 0.3× real time".
//!
//! The budget is counted in the processor time of the calling thread, not in simulated time
//! (which says nothing about cost) nor in wall time (which a busy machine inflates).

use super::bank::TimeBank;
use std::collections::VecDeque;
use std::fmt;
use std::time::Duration;

/// Processor time a live scene may take per frame on screen: about two thirds of a 60 Hz
/// frame, leaving the rest for drawing and input.
pub const FRAME_BUDGET: Duration = Duration::from_millis(10);

/// Real time a live scene may fall behind and still make up: a longer gap (a busy machine, a
/// hidden window) is given up, so the scene slows down instead of racing to catch up.
pub const MAX_LAG: Duration = Duration::from_millis(100);

/// How far back [`Pacer::rate`] looks.
const RATE_WINDOW: Duration = Duration::from_secs(1);

/// Limits on the work of one frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pacing {
    /// Processor time after which a frame takes no further step; `None`: every step due.
    pub budget: Option<Duration>,
    /// Real time the bank may owe the simulation after a frame; `None`: any amount.
    pub max_lag: Option<Duration>,
}

impl Pacing {
    /// Live mode: [`FRAME_BUDGET`] per frame, at most [`MAX_LAG`] behind.
    pub const LIVE: Pacing = Pacing {
        budget: Some(FRAME_BUDGET),
        max_lag: Some(MAX_LAG),
    };

    /// Every step due is taken, however long it takes: the time bank alone, for exact
    /// offline runs on a manual clock.
    pub const CATCH_UP: Pacing = Pacing {
        budget: None,
        max_lag: None,
    };
}

/// The processor time the calling thread has used so far.
pub fn thread_processor_time() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(
        u64::try_from(t.tv_sec).unwrap_or(0),
        u32::try_from(t.tv_nsec).unwrap_or(0),
    )
}

/// What one frame did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    /// Steps taken, each of `step_dt` seconds.
    pub steps: u64,
    pub step_dt: f64,
    /// Real time given up because the simulation was more than the lag limit behind.
    pub forfeited: Duration,
}

/// Simulated time per real time, and whether real time was given up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate {
    /// Simulated seconds per real second (1 when no real time has passed yet).
    pub ratio: f64,
    /// Whether the simulation fell behind real time for good: it could not keep up.
    pub slowed: bool,
}

impl Rate {
    /// The ratio to two significant digits (0.31, 0.0062), and how many decimals that takes.
    pub fn rounded(&self) -> (f64, usize) {
        if !(self.ratio.is_finite() && self.ratio > 0.0) {
            return (0.0, 0);
        }
        let decimals = (1 - self.ratio.log10().floor() as i32).clamp(0, 9) as usize;
        let scale = 10f64.powi(decimals as i32);
        ((self.ratio * scale).round() / scale, decimals)
    }
}

impl fmt::Display for Rate {
    /// "running at 0.31× real time" (two significant digits), or "running in real time".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.slowed {
            let (ratio, decimals) = self.rounded();
            write!(f, "running at {ratio:.decimals$}× real time")
        } else {
            f.write_str("running in real time")
        }
    }
}

/// Real time, simulated time and forfeited time of some frames, in whole nanoseconds so that
/// frames leave the window's sums exactly as they entered them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Tally {
    real: Duration,
    simulated: Duration,
    forfeited: Duration,
}

impl Tally {
    fn add(&mut self, other: &Tally) {
        self.real += other.real;
        self.simulated += other.simulated;
        self.forfeited += other.forfeited;
    }

    fn subtract(&mut self, other: &Tally) {
        self.real = self.real.saturating_sub(other.real);
        self.simulated = self.simulated.saturating_sub(other.simulated);
        self.forfeited = self.forfeited.saturating_sub(other.forfeited);
    }

    fn rate(&self) -> Rate {
        let real = self.real.as_secs_f64();
        Rate {
            ratio: if real > 0.0 {
                self.simulated.as_secs_f64() / real
            } else {
                1.0
            },
            slowed: !self.forfeited.is_zero(),
        }
    }
}

/// Takes a live simulation's steps frame by frame within a processor-time budget (see the
/// module documentation).
pub struct Pacer {
    bank: TimeBank,
    pacing: Pacing,
    processor: Box<dyn FnMut() -> Duration>,
    /// The frames of about the last [`RATE_WINDOW`] of real time, and their sum.
    recent: VecDeque<Tally>,
    window: Tally,
    total: Tally,
}

impl Pacer {
    /// A pacer taking steps from `bank` within `pacing`, timing them by the calling thread's
    /// processor time.
    pub fn new(bank: TimeBank, pacing: Pacing) -> Pacer {
        Pacer {
            bank,
            pacing,
            processor: Box::new(thread_processor_time),
            recent: VecDeque::new(),
            window: Tally::default(),
            total: Tally::default(),
        }
    }

    /// This pacer timing steps by `processor` instead (for tests: a clock that moves by a
    /// known amount per step).
    pub fn with_processor_clock(mut self, processor: impl FnMut() -> Duration + 'static) -> Pacer {
        self.processor = Box::new(processor);
        self
    }

    /// Pays in `elapsed` real time and takes the steps due with `step` (given each step's
    /// length), until none is due or the frame's budget is spent. A step that fails ends the
    /// frame with its error; it counts as taken.
    pub fn frame<E>(
        &mut self,
        elapsed: Duration,
        mut step: impl FnMut(f64) -> Result<(), E>,
    ) -> Result<Frame, E> {
        let payout = self.bank.deposit(elapsed);
        let started = (self.processor)();
        let mut taken = 0;
        let mut failure = None;
        while taken < payout.steps {
            let result = step(payout.step_dt);
            taken += 1;
            if let Err(e) = result {
                failure = Some(e);
                break;
            }
            let spent = (self.processor)().saturating_sub(started);
            if self.pacing.budget.is_some_and(|budget| spent >= budget) {
                break;
            }
        }
        self.bank.refund(payout.steps - taken, payout.step_dt);
        let forfeited = self
            .pacing
            .max_lag
            .map_or(Duration::ZERO, |most| self.bank.limit(most));
        self.record(Tally {
            real: elapsed,
            simulated: Duration::try_from_secs_f64(taken as f64 * payout.step_dt)
                .unwrap_or(Duration::MAX),
            forfeited,
        });
        match failure {
            Some(e) => Err(e),
            None => Ok(Frame {
                steps: taken,
                step_dt: payout.step_dt,
                forfeited,
            }),
        }
    }

    fn record(&mut self, frame: Tally) {
        self.total.add(&frame);
        self.window.add(&frame);
        self.recent.push_back(frame);
        while let Some(oldest) = self.recent.front() {
            if self.window.real.saturating_sub(oldest.real) < RATE_WINDOW {
                break;
            }
            self.window.subtract(oldest);
            self.recent.pop_front();
        }
    }

    /// The rate over about the last second of real time.
    pub fn rate(&self) -> Rate {
        self.window.rate()
    }

    /// The rate over every frame so far.
    pub fn total(&self) -> Rate {
        self.total.rate()
    }

    /// Real time paid in so far.
    pub fn real_time(&self) -> Duration {
        self.total.real
    }

    pub fn bank(&self) -> &TimeBank {
        &self.bank
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::rc::Rc;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// A pacer with steps of 10 ms on a processor clock that the steps move.
    fn pacer(pacing: Pacing) -> (Pacer, Rc<Cell<Duration>>) {
        let clock = Rc::new(Cell::new(Duration::ZERO));
        let read = clock.clone();
        let pacer = Pacer::new(TimeBank::new(ms(10), false).unwrap(), pacing)
            .with_processor_clock(move || read.get());
        (pacer, clock)
    }

    /// A step that costs `cost` of processor time.
    fn costly(clock: &Rc<Cell<Duration>>, cost: Duration) -> impl FnMut(f64) -> Result<(), ()> {
        let clock = clock.clone();
        move |_| {
            clock.set(clock.get() + cost);
            Ok(())
        }
    }

    #[test]
    fn cheap_steps_keep_real_time() {
        let (mut pacer, clock) = pacer(Pacing::LIVE);
        let mut steps = 0;
        for _ in 0..120 {
            steps += pacer.frame(ms(20), costly(&clock, ms(1))).unwrap().steps;
        }
        assert_eq!(steps, 240);
        let rate = pacer.rate();
        assert_eq!(
            rate,
            Rate {
                ratio: 1.0,
                slowed: false
            }
        );
        assert_eq!(rate.to_string(), "running in real time");
        assert_eq!(pacer.total(), rate);
    }

    #[test]
    fn a_frame_stops_at_its_budget_and_a_hiccup_is_made_up() {
        let (mut pacer, clock) = pacer(Pacing::LIVE);
        // 80 ms due, 3 ms a step: the fourth step passes the 10 ms budget.
        let frame = pacer.frame(ms(80), costly(&clock, ms(3))).unwrap();
        assert_eq!(frame.steps, 4);
        assert_eq!(frame.forfeited, Duration::ZERO);
        assert_eq!(pacer.bank().balance(), ms(40));
        // Cheap again: the owed steps come in the next frame.
        let frame = pacer.frame(ms(20), costly(&clock, Duration::ZERO)).unwrap();
        assert_eq!(frame.steps, 6);
        assert!(!pacer.rate().slowed);
        assert!((pacer.rate().ratio - 1.0).abs() < 1e-12);
    }

    #[test]
    fn steps_dearer_than_real_time_slow_the_scene_down_and_say_so() {
        // A 10 ms step costs 50 ms: one step a frame, real time beyond 100 ms of lag given up.
        let (mut pacer, clock) = pacer(Pacing::LIVE);
        for _ in 0..40 {
            let frame = pacer.frame(ms(50), costly(&clock, ms(50))).unwrap();
            assert_eq!(frame.steps, 1);
        }
        assert!(pacer.bank().balance() <= MAX_LAG);
        let rate = pacer.rate();
        assert!(rate.slowed);
        assert!((rate.ratio - 0.2).abs() < 1e-9, "{rate:?}");
        assert_eq!(rate.to_string(), "running at 0.20× real time");
        assert!(pacer.total().slowed);
        assert_eq!(pacer.real_time(), ms(2000));
    }

    #[test]
    fn rates_show_two_significant_digits() {
        let shown = |ratio| {
            Rate {
                ratio,
                slowed: true,
            }
            .to_string()
        };
        assert_eq!(shown(0.3125), "running at 0.31× real time");
        assert_eq!(shown(0.006149), "running at 0.0061× real time");
        assert_eq!(shown(0.0), "running at 0× real time");
        let rate = Rate {
            ratio: 0.04567,
            slowed: true,
        };
        assert_eq!(rate.rounded(), (0.046, 3));
    }

    #[test]
    fn the_rate_forgets_what_is_older_than_a_second() {
        let (mut pacer, clock) = pacer(Pacing::LIVE);
        for _ in 0..40 {
            pacer.frame(ms(50), costly(&clock, ms(50))).unwrap();
        }
        for _ in 0..60 {
            pacer.frame(ms(20), costly(&clock, Duration::ZERO)).unwrap();
        }
        assert_eq!(
            pacer.rate(),
            Rate {
                ratio: 1.0,
                slowed: false
            }
        );
        assert!(pacer.total().slowed);
    }

    #[test]
    fn catching_up_takes_every_step_due() {
        let (mut pacer, clock) = pacer(Pacing::CATCH_UP);
        let frame = pacer.frame(ms(1000), costly(&clock, ms(50))).unwrap();
        assert_eq!((frame.steps, frame.forfeited), (100, Duration::ZERO));
    }

    #[test]
    fn a_failed_step_ends_the_frame_and_the_rest_stays_owed() {
        let (mut pacer, _) = pacer(Pacing::LIVE);
        let mut calls = 0;
        let result = pacer.frame(ms(50), |_| {
            calls += 1;
            if calls == 2 {
                Err("blew up")
            } else {
                Ok(())
            }
        });
        assert_eq!(result, Err("blew up"));
        assert_eq!(pacer.bank().balance(), ms(30));
    }

    #[test]
    fn the_thread_processor_clock_moves_with_work() {
        let before = thread_processor_time();
        let mut x = 0u64;
        while thread_processor_time() == before {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
        }
        assert!(thread_processor_time() > before, "{x}");
    }
}
