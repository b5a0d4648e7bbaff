//! Where the driver reads the time: the system's monotonic clock, or a clock that moves only
//! when told to (for tests, and for rendering live motion at an exact frame rate offline).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A source of elapsed time.
pub trait Clock {
    /// The time since a fixed origin of this clock; never less than an earlier reading.
    fn now(&mut self) -> Duration;
    /// Lets `duration` pass; the driver calls this only when it has nothing to do.
    fn sleep(&mut self, duration: Duration);
}

/// The system's monotonic clock.
#[derive(Clone, Debug)]
pub struct SystemClock {
    origin: Instant,
}

impl SystemClock {
    pub fn new() -> SystemClock {
        SystemClock {
            origin: Instant::now(),
        }
    }
}

impl Default for SystemClock {
    fn default() -> SystemClock {
        SystemClock::new()
    }
}

impl Clock for SystemClock {
    fn now(&mut self) -> Duration {
        self.origin.elapsed()
    }

    fn sleep(&mut self, duration: Duration) {
        std::thread::sleep(duration);
    }
}

/// A clock whose time moves only by [`ManualClock::advance`] or by sleeping on it. Clones share
/// one time, so a module can advance the clock the driver reads.
#[derive(Clone, Debug, Default)]
pub struct ManualClock {
    nanos: Arc<AtomicU64>,
}

impl ManualClock {
    /// A clock reading zero.
    pub fn new() -> ManualClock {
        ManualClock::default()
    }

    /// Moves the time on by `duration` (saturating at about 584 years).
    pub fn advance(&self, duration: Duration) {
        let step = u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX);
        // fetch_update's closure never fails, so the result is always Ok.
        let _ = self
            .nanos
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                Some(n.saturating_add(step))
            });
    }

    /// The current time.
    pub fn read(&self) -> Duration {
        Duration::from_nanos(self.nanos.load(Ordering::Acquire))
    }
}

impl Clock for ManualClock {
    fn now(&mut self) -> Duration {
        self.read()
    }

    fn sleep(&mut self, duration: Duration) {
        self.advance(duration);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manual_clock_moves_only_when_told_and_clones_share_time() {
        let clock = ManualClock::new();
        let mut reader = clock.clone();
        assert_eq!(reader.now(), Duration::ZERO);
        clock.advance(Duration::from_millis(15));
        reader.sleep(Duration::from_millis(5));
        assert_eq!(reader.now(), Duration::from_millis(20));
        assert_eq!(clock.read(), Duration::from_millis(20));
        clock.advance(Duration::MAX);
        assert_eq!(clock.read(), Duration::from_nanos(u64::MAX));
    }

    #[test]
    fn system_clock_never_goes_back() {
        let mut clock = SystemClock::new();
        let a = clock.now();
        let b = clock.now();
        assert!(b >= a);
    }
}
