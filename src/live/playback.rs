//! Playback of computed motion against the real-time clock (dissertation 4.1.9).
//!
//! A viewer draws as fast as it can and, before each frame, asks [`Playback::tick`] which
//! simulated time to show: while playing, simulated time advances with the real time that
//! passed (times a rate), whatever the frame rate. The motion may still be computing ahead:
//! playback never shows a time beyond the computed horizon. When it catches up it waits there
//! (and says so, for the viewer to show) and goes on from the horizon, not with a jump, once
//! more is computed. At the finish it stops, or loops back to the start.
//!
//! Real time is passed in as a reading of a [`Clock`](super::Clock) so the arithmetic is
//! tested with a [`ManualClock`](super::ManualClock); the graphical editor's viewers and the
//! slave's renditions share this one clock.

use std::time::Duration;

/// What playback is doing at a tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlaybackState {
    /// Stopped by the user (or never started) at a time before the finish.
    Paused,
    Playing,
    /// Playing, but held at the computed horizon until the simulation gets further.
    Waiting,
    /// Stopped at the finish time (not looping).
    Ended,
}

/// The simulated time to draw and what playback is doing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tick {
    pub time: f64,
    pub state: PlaybackState,
}

/// Why a playback setting was refused.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PlaybackError {
    /// Rates must be finite and greater than zero.
    Rate(f64),
    /// Seek targets must be finite.
    Time(f64),
}

impl std::fmt::Display for PlaybackError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlaybackError::Rate(r) => {
                write!(
                    f,
                    "playback rate {r} refused: expected a finite number above 0"
                )
            }
            PlaybackError::Time(t) => write!(f, "seek to {t} refused: expected a finite time"),
        }
    }
}

impl std::error::Error for PlaybackError {}

/// Where playback of one animation stands: its span, the time shown, whether and how fast it
/// runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Playback {
    start: f64,
    finish: f64,
    looping: bool,
    rate: f64,
    /// The simulated time shown when playback was last anchored (played, sought, waited…).
    time: f64,
    /// The clock reading at which `time` was shown, while playing.
    playing_since: Option<Duration>,
    /// Whether the last tick stopped at the finish.
    ended: bool,
}

impl Playback {
    /// Paused at `start`, for an animation from `start` to `finish` seconds, at rate 1.
    pub fn new(start: f64, finish: f64) -> Playback {
        Playback {
            start,
            finish: finish.max(start),
            looping: false,
            rate: 1.0,
            time: start,
            playing_since: None,
            ended: false,
        }
    }

    /// Changes the animation's span (the scene was edited); the time shown is kept inside it.
    pub fn set_span(&mut self, start: f64, finish: f64, now: Duration) {
        let time = self.time_at(now);
        self.start = start;
        self.finish = finish.max(start);
        self.anchor(time.clamp(self.start, self.finish), now);
    }

    /// Plays from the time shown; from the start if playback had ended.
    pub fn play(&mut self, now: Duration) {
        if self.ended || self.time >= self.finish {
            self.time = self.start;
        }
        self.ended = false;
        self.playing_since = Some(now);
    }

    /// Stops at the time shown at `now`.
    pub fn pause(&mut self, now: Duration) {
        self.time = self.time_at(now);
        self.playing_since = None;
    }

    /// Shows `time` (clamped to the span), playing on from there if playing.
    pub fn seek(&mut self, time: f64, now: Duration) -> Result<(), PlaybackError> {
        if !time.is_finite() {
            return Err(PlaybackError::Time(time));
        }
        self.ended = false;
        self.anchor(time.clamp(self.start, self.finish), now);
        Ok(())
    }

    /// Simulated seconds per real second.
    pub fn set_rate(&mut self, rate: f64, now: Duration) -> Result<(), PlaybackError> {
        if !(rate.is_finite() && rate > 0.0) {
            return Err(PlaybackError::Rate(rate));
        }
        let time = self.time_at(now);
        self.rate = rate;
        self.anchor(time, now);
        Ok(())
    }

    pub fn set_looping(&mut self, looping: bool) {
        self.looping = looping;
    }

    /// The time to draw when the clock reads `now` and the motion is computed up to `horizon`.
    pub fn tick(&mut self, now: Duration, horizon: f64) -> Tick {
        let Some(since) = self.playing_since else {
            let state = if self.ended {
                PlaybackState::Ended
            } else {
                PlaybackState::Paused
            };
            return Tick {
                time: self.time,
                state,
            };
        };
        let wanted = self.advanced(since, now);
        if wanted >= self.finish && horizon >= self.finish {
            let length = self.finish - self.start;
            if self.looping && length > 0.0 {
                let wrapped = self.start + (wanted - self.start) % length;
                self.anchor(wrapped, now);
                return self.playing(wrapped);
            }
            self.time = self.finish;
            self.playing_since = None;
            self.ended = true;
            return Tick {
                time: self.finish,
                state: PlaybackState::Ended,
            };
        }
        if wanted > horizon {
            let held = horizon.max(self.time);
            self.anchor(held, now);
            return Tick {
                time: held,
                state: PlaybackState::Waiting,
            };
        }
        self.playing(wanted)
    }

    pub fn is_playing(&self) -> bool {
        self.playing_since.is_some()
    }

    pub fn is_looping(&self) -> bool {
        self.looping
    }

    pub fn rate(&self) -> f64 {
        self.rate
    }

    pub fn start(&self) -> f64 {
        self.start
    }

    pub fn finish(&self) -> f64 {
        self.finish
    }

    /// The time that would be shown at `now`, not held at any horizon.
    pub fn time_at(&self, now: Duration) -> f64 {
        match self.playing_since {
            Some(since) => self.advanced(since, now).min(self.finish),
            None => self.time,
        }
    }

    fn advanced(&self, since: Duration, now: Duration) -> f64 {
        self.time + now.saturating_sub(since).as_secs_f64() * self.rate
    }

    fn anchor(&mut self, time: f64, now: Duration) {
        self.time = time;
        if self.playing_since.is_some() {
            self.playing_since = Some(now);
        }
    }

    fn playing(&self, time: f64) -> Tick {
        Tick {
            time,
            state: PlaybackState::Playing,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::live::ManualClock;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn simulated_time_follows_the_clock_whatever_the_frame_rate() {
        let clock = ManualClock::new();
        let mut p = Playback::new(0.0, 10.0);
        p.play(clock.read());
        // Two frames 40 ms apart, then one after a 500 ms stall: time is real time.
        clock.advance(ms(40));
        assert!(close(p.tick(clock.read(), 10.0).time, 0.04));
        clock.advance(ms(40));
        assert!(close(p.tick(clock.read(), 10.0).time, 0.08));
        clock.advance(ms(500));
        let t = p.tick(clock.read(), 10.0);
        assert!(close(t.time, 0.58));
        assert_eq!(t.state, PlaybackState::Playing);
    }

    #[test]
    fn the_rate_scales_simulated_time() {
        let clock = ManualClock::new();
        let mut p = Playback::new(0.0, 10.0);
        p.play(clock.read());
        clock.advance(ms(1000));
        p.set_rate(0.25, clock.read()).unwrap();
        clock.advance(ms(1000));
        assert!(close(p.tick(clock.read(), 10.0).time, 1.25));
        assert_eq!(p.set_rate(0.0, clock.read()), Err(PlaybackError::Rate(0.0)));
        assert!(p.set_rate(f64::NAN, clock.read()).is_err());
    }

    #[test]
    fn playback_waits_at_the_computed_horizon_and_goes_on_without_a_jump() {
        let clock = ManualClock::new();
        let mut p = Playback::new(0.0, 10.0);
        p.play(clock.read());
        clock.advance(ms(2000));
        let t = p.tick(clock.read(), 0.5);
        assert_eq!((t.time, t.state), (0.5, PlaybackState::Waiting));
        // A second later the simulation reached 3 s: playback resumes from 0.5, not at 2.5.
        clock.advance(ms(1000));
        let t = p.tick(clock.read(), 0.5);
        assert_eq!(t.state, PlaybackState::Waiting);
        clock.advance(ms(100));
        let t = p.tick(clock.read(), 3.0);
        assert!(close(t.time, 0.6));
        assert_eq!(t.state, PlaybackState::Playing);
    }

    #[test]
    fn playback_ends_at_the_finish_and_plays_again_from_the_start() {
        let clock = ManualClock::new();
        let mut p = Playback::new(0.0, 1.0);
        p.play(clock.read());
        clock.advance(ms(1500));
        let t = p.tick(clock.read(), 1.0);
        assert_eq!((t.time, t.state), (1.0, PlaybackState::Ended));
        assert!(!p.is_playing());
        clock.advance(ms(100));
        assert_eq!(p.tick(clock.read(), 1.0).state, PlaybackState::Ended);
        p.play(clock.read());
        clock.advance(ms(250));
        assert!(close(p.tick(clock.read(), 1.0).time, 0.25));
    }

    #[test]
    fn looping_wraps_to_the_start() {
        let clock = ManualClock::new();
        let mut p = Playback::new(1.0, 3.0);
        p.set_looping(true);
        p.play(clock.read());
        clock.advance(ms(2500));
        let t = p.tick(clock.read(), 3.0);
        assert!(close(t.time, 1.5));
        assert_eq!(t.state, PlaybackState::Playing);
        clock.advance(ms(500));
        assert!(close(p.tick(clock.read(), 3.0).time, 2.0));
    }

    #[test]
    fn looping_does_not_wrap_before_the_finish_is_computed() {
        let clock = ManualClock::new();
        let mut p = Playback::new(0.0, 2.0);
        p.set_looping(true);
        p.play(clock.read());
        clock.advance(ms(3000));
        let t = p.tick(clock.read(), 1.0);
        assert_eq!((t.time, t.state), (1.0, PlaybackState::Waiting));
    }

    #[test]
    fn pause_keeps_the_time_and_seek_moves_it_within_the_span() {
        let clock = ManualClock::new();
        let mut p = Playback::new(0.0, 5.0);
        p.play(clock.read());
        clock.advance(ms(700));
        p.pause(clock.read());
        clock.advance(ms(5000));
        let t = p.tick(clock.read(), 5.0);
        assert!(close(t.time, 0.7));
        assert_eq!(t.state, PlaybackState::Paused);
        p.seek(9.0, clock.read()).unwrap();
        assert_eq!(p.tick(clock.read(), 5.0).time, 5.0);
        p.seek(-1.0, clock.read()).unwrap();
        assert_eq!(p.tick(clock.read(), 5.0).time, 0.0);
        assert_eq!(
            p.seek(f64::INFINITY, clock.read()),
            Err(PlaybackError::Time(f64::INFINITY))
        );
    }

    #[test]
    fn seeking_while_playing_plays_on_from_the_new_time() {
        let clock = ManualClock::new();
        let mut p = Playback::new(0.0, 5.0);
        p.play(clock.read());
        clock.advance(ms(1000));
        p.seek(3.0, clock.read()).unwrap();
        clock.advance(ms(500));
        assert!(close(p.tick(clock.read(), 5.0).time, 3.5));
    }

    #[test]
    fn a_shorter_span_keeps_the_shown_time_inside_it() {
        let clock = ManualClock::new();
        let mut p = Playback::new(0.0, 10.0);
        p.seek(8.0, clock.read()).unwrap();
        p.set_span(0.0, 4.0, clock.read());
        assert_eq!(p.tick(clock.read(), 4.0).time, 4.0);
        assert_eq!((p.start(), p.finish()), (0.0, 4.0));
    }
}
