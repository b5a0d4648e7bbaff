//! Playing computed motion back against the real-time clock (4.1.9).
//!
//! The viewer draws as fast as the display allows and, before each frame, asks where in
//! simulated time the scene should be: the simulated time advances with the real time that
//! passed since Play, whatever the frame rate. The simulation may still be computing ahead;
//! playback never shows a time that is not computed yet. When it catches up with the computed
//! horizon it waits there, and resumes from the horizon (not with a jump) when more is
//! computed. It ends at the animation's finish time.

use std::time::Duration;

/// Where playback stands after a tick.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PlaybackState {
    Playing,
    /// Held at the computed horizon until the simulation gets further.
    Waiting,
    /// The finish time is reached.
    Ended,
}

/// The time to draw and the state playback is in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tick {
    pub time: f64,
    pub state: PlaybackState,
}

/// One run of playback: the simulated time that corresponds to one reading of the clock.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Playback {
    time: f64,
    wall: Duration,
}

impl Playback {
    /// Playback from simulated time `time`, the clock now reading `wall`.
    pub fn start(time: f64, wall: Duration) -> Playback {
        Playback { time, wall }
    }

    /// The time to draw when the clock reads `wall`, the motion being computed up to `horizon`
    /// and the animation ending at `finish`.
    pub fn tick(&mut self, wall: Duration, horizon: f64, finish: f64) -> Tick {
        let elapsed = wall.saturating_sub(self.wall).as_secs_f64();
        let wanted = self.time + elapsed;
        if wanted >= finish && horizon >= finish {
            return Tick {
                time: finish,
                state: PlaybackState::Ended,
            };
        }
        if wanted > horizon {
            // Hold at the horizon, and go on from there once more is known.
            let held = horizon.max(self.time);
            *self = Playback::start(held, wall);
            return Tick {
                time: held,
                state: PlaybackState::Waiting,
            };
        }
        Tick {
            time: wanted,
            state: PlaybackState::Playing,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::live::{Clock, ManualClock};

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn simulated_time_follows_the_clock_whatever_the_frame_rate() {
        let mut clock = ManualClock::new();
        let mut playback = Playback::start(1.0, clock.now());
        clock.advance(ms(250));
        let tick = playback.tick(clock.now(), 10.0, 5.0);
        assert_eq!(tick.state, PlaybackState::Playing);
        assert!((tick.time - 1.25).abs() < 1e-12);
        // A slow frame: 1.5 s pass before the next one, and the scene jumps ahead by as much.
        clock.advance(ms(1500));
        assert!((playback.tick(clock.now(), 10.0, 5.0).time - 2.75).abs() < 1e-12);
    }

    #[test]
    fn playback_waits_at_the_horizon_and_resumes_from_it() {
        let mut clock = ManualClock::new();
        let mut playback = Playback::start(0.0, clock.now());
        clock.advance(ms(2000));
        let tick = playback.tick(clock.now(), 0.5, 5.0);
        assert_eq!(
            tick,
            Tick {
                time: 0.5,
                state: PlaybackState::Waiting
            }
        );
        // The simulation gets to 3 s while another second passes: playback went on from 0.5.
        clock.advance(ms(1000));
        let tick = playback.tick(clock.now(), 3.0, 5.0);
        assert_eq!(tick.state, PlaybackState::Playing);
        assert!((tick.time - 1.5).abs() < 1e-12);
    }

    #[test]
    fn playback_ends_at_the_finish() {
        let mut clock = ManualClock::new();
        let mut playback = Playback::start(4.5, clock.now());
        clock.advance(ms(800));
        assert_eq!(
            playback.tick(clock.now(), f64::INFINITY, 5.0),
            Tick {
                time: 5.0,
                state: PlaybackState::Ended
            }
        );
    }
}
