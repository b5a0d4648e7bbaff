//! A viewer's transport: which simulated time to show, against the real-time clock
//! (dissertation 4.1.9), and the controls every player has — play and pause, reverse, a rate
//! from 1/8× to 8×, one frame either way, start and end, seek and loop.
//!
//! A viewer draws as fast as it can and, before each frame, asks [`Transport::tick`] which
//! simulated time to show: while playing, simulated time moves with the real time that passed
//! times the rate (negative: backwards), whatever the frame rate. The motion may still be
//! computing ahead: playing forward never shows a time beyond the computed horizon. When it
//! catches up it waits there (and says so, for the viewer to show) and goes on from the horizon,
//! not with a jump, once more is computed. At the end it stops, or loops back to the other end.
//!
//! Real time is passed in as a reading of a [`Clock`](crate::live::Clock) so the arithmetic is
//! tested with a [`ManualClock`](crate::live::ManualClock); the editor's graphical viewers and
//! the slave's renditions each own one.

use std::time::Duration;

/// The slowest and fastest playing rates, in simulated seconds per real second (either way).
pub const MIN_RATE: f64 = 0.125;
pub const MAX_RATE: f64 = 8.0;

/// The rate after `]` (`faster`: twice the speed) or `[` (half the speed) from `rate`: the
/// same way, within [`MIN_RATE`] and [`MAX_RATE`].
pub fn next_speed(rate: f64, faster: bool) -> f64 {
    let factor = if faster { 2.0 } else { 0.5 };
    (rate.abs() * factor)
        .clamp(MIN_RATE, MAX_RATE)
        .copysign(rate)
}

/// What the transport is doing at a tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// Stopped by the user (or never started) away from the end it played towards.
    Paused,
    Playing,
    /// Playing forward, but held at the computed horizon until the simulation gets further.
    Waiting,
    /// Stopped at the end it played towards (not looping).
    Ended,
}

/// Which way time goes while playing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Forward,
    Reverse,
}

/// The simulated time to draw and what the transport is doing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tick {
    pub time: f64,
    pub state: State,
}

/// Why a transport setting was refused.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TransportError {
    /// Rates must be finite, and between [`MIN_RATE`] and [`MAX_RATE`] either way.
    Rate(f64),
    /// Seek targets must be finite.
    Time(f64),
    /// A frame's length must be finite and greater than zero.
    Frame(f64),
}

impl std::fmt::Display for TransportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TransportError::Rate(r) => write!(
                f,
                "playing rate {r} refused: expected {MIN_RATE} to {MAX_RATE} (negative for reverse)"
            ),
            TransportError::Time(t) => write!(f, "seek to {t} refused: expected a finite time"),
            TransportError::Frame(d) => write!(
                f,
                "frame length {d} refused: expected a finite number above 0"
            ),
        }
    }
}

impl std::error::Error for TransportError {}

/// Where playback of one animation stands: its span, the time shown, whether, which way and
/// how fast it plays.
#[derive(Clone, Debug, PartialEq)]
pub struct Transport {
    start: f64,
    finish: f64,
    looping: bool,
    /// Simulated seconds per real second; negative plays backwards.
    rate: f64,
    /// The simulated time shown when the transport was last anchored (played, sought, …).
    time: f64,
    /// The clock reading at which `time` was shown, while playing.
    playing_since: Option<Duration>,
    /// Whether the last tick stopped at an end.
    ended: bool,
}

impl Transport {
    /// Paused at `start`, for an animation from `start` to `finish` seconds, at rate 1.
    pub fn new(start: f64, finish: f64) -> Transport {
        Transport {
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

    /// Plays from the time shown; from the other end when it stands at the end it plays
    /// towards.
    pub fn play(&mut self, now: Duration) {
        let at_end = match self.direction() {
            Direction::Forward => self.time >= self.finish,
            Direction::Reverse => self.time <= self.start,
        };
        if self.ended || at_end {
            self.time = match self.direction() {
                Direction::Forward => self.start,
                Direction::Reverse => self.finish,
            };
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
    pub fn seek(&mut self, time: f64, now: Duration) -> Result<(), TransportError> {
        if !time.is_finite() {
            return Err(TransportError::Time(time));
        }
        self.ended = false;
        self.anchor(time.clamp(self.start, self.finish), now);
        Ok(())
    }

    /// Pauses and moves `frames` frames of `frame` seconds (forward when positive), within
    /// the span: the Step control.
    pub fn step(&mut self, frames: i64, frame: f64, now: Duration) -> Result<(), TransportError> {
        if !(frame.is_finite() && frame > 0.0) {
            return Err(TransportError::Frame(frame));
        }
        self.pause(now);
        self.seek(self.time + frames as f64 * frame, now)
    }

    /// Shows the start (`Direction::Reverse`) or the finish (`Direction::Forward`), playing on
    /// from there if playing.
    pub fn go_to_end(&mut self, end: Direction, now: Duration) {
        let time = match end {
            Direction::Forward => self.finish,
            Direction::Reverse => self.start,
        };
        self.ended = false;
        self.anchor(time, now);
    }

    /// Simulated seconds per real second, negative to play backwards; its size between
    /// [`MIN_RATE`] and [`MAX_RATE`].
    pub fn set_rate(&mut self, rate: f64, now: Duration) -> Result<(), TransportError> {
        if !(rate.is_finite() && (MIN_RATE..=MAX_RATE).contains(&rate.abs())) {
            return Err(TransportError::Rate(rate));
        }
        let time = self.time_at(now);
        self.rate = rate;
        self.ended = false;
        self.anchor(time, now);
        Ok(())
    }

    /// Plays the way `direction` says at the same speed.
    pub fn set_direction(&mut self, direction: Direction, now: Duration) {
        let speed = self.rate.abs();
        let rate = match direction {
            Direction::Forward => speed,
            Direction::Reverse => -speed,
        };
        // The speed was checked when it was set.
        let _ = self.set_rate(rate, now);
    }

    pub fn set_looping(&mut self, looping: bool) {
        self.looping = looping;
    }

    /// The time to draw when the clock reads `now` and the motion is computed up to `horizon`.
    pub fn tick(&mut self, now: Duration, horizon: f64) -> Tick {
        let Some(since) = self.playing_since else {
            let state = if self.ended {
                State::Ended
            } else {
                State::Paused
            };
            return Tick {
                time: self.time,
                state,
            };
        };
        let wanted = self.advanced(since, now);
        let length = self.finish - self.start;
        match self.direction() {
            Direction::Forward if wanted >= self.finish && horizon >= self.finish => {
                if self.looping && length > 0.0 {
                    let wrapped = self.start + (wanted - self.start) % length;
                    self.anchor(wrapped, now);
                    return playing(wrapped);
                }
                self.end_at(self.finish)
            }
            Direction::Forward if wanted > horizon => {
                let held = horizon.max(self.time);
                self.anchor(held, now);
                Tick {
                    time: held,
                    state: State::Waiting,
                }
            }
            Direction::Reverse if wanted <= self.start => {
                if self.looping && length > 0.0 {
                    let wrapped = self.finish - (self.start - wanted) % length;
                    self.anchor(wrapped, now);
                    return playing(wrapped);
                }
                self.end_at(self.start)
            }
            // Backwards from beyond the computed horizon: from the horizon.
            Direction::Reverse if wanted > horizon => {
                let from = horizon.max(self.start);
                self.anchor(from, now);
                playing(from)
            }
            _ => playing(wanted),
        }
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

    pub fn direction(&self) -> Direction {
        if self.rate < 0.0 {
            Direction::Reverse
        } else {
            Direction::Forward
        }
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
            Some(since) => self
                .advanced(since, now)
                .clamp(self.start, self.finish.max(self.start)),
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

    fn end_at(&mut self, time: f64) -> Tick {
        self.time = time;
        self.playing_since = None;
        self.ended = true;
        Tick {
            time,
            state: State::Ended,
        }
    }
}

fn playing(time: f64) -> Tick {
    Tick {
        time,
        state: State::Playing,
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
        let mut p = Transport::new(0.0, 10.0);
        p.play(clock.read());
        // Two frames 40 ms apart, then one after a 500 ms stall: time is real time.
        clock.advance(ms(40));
        assert!(close(p.tick(clock.read(), 10.0).time, 0.04));
        clock.advance(ms(40));
        assert!(close(p.tick(clock.read(), 10.0).time, 0.08));
        clock.advance(ms(500));
        let t = p.tick(clock.read(), 10.0);
        assert!(close(t.time, 0.58));
        assert_eq!(t.state, State::Playing);
    }

    #[test]
    fn the_rate_scales_simulated_time() {
        let clock = ManualClock::new();
        let mut p = Transport::new(0.0, 10.0);
        p.play(clock.read());
        clock.advance(ms(1000));
        p.set_rate(0.25, clock.read()).unwrap();
        clock.advance(ms(1000));
        assert!(close(p.tick(clock.read(), 10.0).time, 1.25));
        assert_eq!(
            p.set_rate(0.0, clock.read()),
            Err(TransportError::Rate(0.0))
        );
        assert!(p.set_rate(f64::NAN, clock.read()).is_err());
        assert!(p.set_rate(9.0, clock.read()).is_err());
        assert!(p.set_rate(-0.1, clock.read()).is_err());
        assert_eq!(p.rate(), 0.25);
    }

    #[test]
    fn playback_waits_at_the_computed_horizon_and_goes_on_without_a_jump() {
        let clock = ManualClock::new();
        let mut p = Transport::new(0.0, 10.0);
        p.play(clock.read());
        clock.advance(ms(2000));
        let t = p.tick(clock.read(), 0.5);
        assert_eq!((t.time, t.state), (0.5, State::Waiting));
        // A second later the simulation reached 3 s: playback resumes from 0.5, not at 2.5.
        clock.advance(ms(1000));
        let t = p.tick(clock.read(), 0.5);
        assert_eq!(t.state, State::Waiting);
        clock.advance(ms(100));
        let t = p.tick(clock.read(), 3.0);
        assert!(close(t.time, 0.6));
        assert_eq!(t.state, State::Playing);
    }

    #[test]
    fn playback_ends_at_the_finish_and_plays_again_from_the_start() {
        let clock = ManualClock::new();
        let mut p = Transport::new(0.0, 1.0);
        p.play(clock.read());
        clock.advance(ms(1500));
        let t = p.tick(clock.read(), 1.0);
        assert_eq!((t.time, t.state), (1.0, State::Ended));
        assert!(!p.is_playing());
        clock.advance(ms(100));
        assert_eq!(p.tick(clock.read(), 1.0).state, State::Ended);
        p.play(clock.read());
        clock.advance(ms(250));
        assert!(close(p.tick(clock.read(), 1.0).time, 0.25));
    }

    #[test]
    fn looping_wraps_to_the_start() {
        let clock = ManualClock::new();
        let mut p = Transport::new(1.0, 3.0);
        p.set_looping(true);
        p.play(clock.read());
        clock.advance(ms(2500));
        let t = p.tick(clock.read(), 3.0);
        assert!(close(t.time, 1.5));
        assert_eq!(t.state, State::Playing);
        clock.advance(ms(500));
        assert!(close(p.tick(clock.read(), 3.0).time, 2.0));
    }

    #[test]
    fn looping_does_not_wrap_before_the_finish_is_computed() {
        let clock = ManualClock::new();
        let mut p = Transport::new(0.0, 2.0);
        p.set_looping(true);
        p.play(clock.read());
        clock.advance(ms(3000));
        let t = p.tick(clock.read(), 1.0);
        assert_eq!((t.time, t.state), (1.0, State::Waiting));
    }

    #[test]
    fn pause_keeps_the_time_and_seek_moves_it_within_the_span() {
        let clock = ManualClock::new();
        let mut p = Transport::new(0.0, 5.0);
        p.play(clock.read());
        clock.advance(ms(700));
        p.pause(clock.read());
        clock.advance(ms(5000));
        let t = p.tick(clock.read(), 5.0);
        assert!(close(t.time, 0.7));
        assert_eq!(t.state, State::Paused);
        p.seek(9.0, clock.read()).unwrap();
        assert_eq!(p.tick(clock.read(), 5.0).time, 5.0);
        p.seek(-1.0, clock.read()).unwrap();
        assert_eq!(p.tick(clock.read(), 5.0).time, 0.0);
        assert_eq!(
            p.seek(f64::INFINITY, clock.read()),
            Err(TransportError::Time(f64::INFINITY))
        );
    }

    #[test]
    fn seeking_while_playing_plays_on_from_the_new_time() {
        let clock = ManualClock::new();
        let mut p = Transport::new(0.0, 5.0);
        p.play(clock.read());
        clock.advance(ms(1000));
        p.seek(3.0, clock.read()).unwrap();
        clock.advance(ms(500));
        assert!(close(p.tick(clock.read(), 5.0).time, 3.5));
    }

    #[test]
    fn a_shorter_span_keeps_the_shown_time_inside_it() {
        let clock = ManualClock::new();
        let mut p = Transport::new(0.0, 10.0);
        p.seek(8.0, clock.read()).unwrap();
        p.set_span(0.0, 4.0, clock.read());
        assert_eq!(p.tick(clock.read(), 4.0).time, 4.0);
        assert_eq!((p.start(), p.finish()), (0.0, 4.0));
    }

    #[test]
    fn reverse_plays_back_to_the_start_and_again_from_the_finish() {
        let clock = ManualClock::new();
        let mut p = Transport::new(0.0, 2.0);
        p.seek(1.5, clock.read()).unwrap();
        p.set_rate(-2.0, clock.read()).unwrap();
        assert_eq!(p.direction(), Direction::Reverse);
        p.play(clock.read());
        clock.advance(ms(500));
        assert!(close(p.tick(clock.read(), 2.0).time, 0.5));
        clock.advance(ms(500));
        let t = p.tick(clock.read(), 2.0);
        assert_eq!((t.time, t.state), (0.0, State::Ended));
        // Played again backwards from the start: from the finish.
        p.play(clock.read());
        clock.advance(ms(250));
        assert!(close(p.tick(clock.read(), 2.0).time, 1.5));
        // The same speed forwards.
        p.set_direction(Direction::Forward, clock.read());
        assert_eq!(p.rate(), 2.0);
        clock.advance(ms(250));
        assert!(close(p.tick(clock.read(), 2.0).time, 2.0));
    }

    #[test]
    fn reverse_loops_to_the_finish() {
        let clock = ManualClock::new();
        let mut p = Transport::new(1.0, 3.0);
        p.set_looping(true);
        p.set_rate(-1.0, clock.read()).unwrap();
        p.seek(1.5, clock.read()).unwrap();
        p.play(clock.read());
        clock.advance(ms(1000));
        let t = p.tick(clock.read(), 3.0);
        assert!(close(t.time, 2.5), "{t:?}");
        assert_eq!(t.state, State::Playing);
    }

    #[test]
    fn reverse_starts_from_the_computed_horizon() {
        let clock = ManualClock::new();
        let mut p = Transport::new(0.0, 10.0);
        p.seek(8.0, clock.read()).unwrap();
        p.set_rate(-1.0, clock.read()).unwrap();
        p.play(clock.read());
        clock.advance(ms(500));
        assert!(close(p.tick(clock.read(), 4.0).time, 4.0));
        clock.advance(ms(500));
        assert!(close(p.tick(clock.read(), 4.0).time, 3.5));
    }

    #[test]
    fn steps_pause_and_move_whole_frames_within_the_span() {
        let clock = ManualClock::new();
        let mut p = Transport::new(0.0, 1.0);
        p.play(clock.read());
        clock.advance(ms(100));
        p.step(1, 0.25, clock.read()).unwrap();
        assert!(!p.is_playing());
        assert!(close(p.tick(clock.read(), 1.0).time, 0.35));
        p.step(-1, 0.25, clock.read()).unwrap();
        assert!(close(p.time_at(clock.read()), 0.1));
        p.step(-3, 0.25, clock.read()).unwrap();
        assert_eq!(p.time_at(clock.read()), 0.0);
        p.step(10, 0.25, clock.read()).unwrap();
        assert_eq!(p.time_at(clock.read()), 1.0);
        assert_eq!(
            p.step(1, 0.0, clock.read()),
            Err(TransportError::Frame(0.0))
        );
    }

    #[test]
    fn speed_doubles_and_halves_within_the_bounds_keeping_the_direction() {
        let mut rate = -1.0;
        for _ in 0..5 {
            rate = next_speed(rate, true);
        }
        assert_eq!(rate, -MAX_RATE);
        for _ in 0..8 {
            rate = next_speed(rate, false);
        }
        assert_eq!(rate, -MIN_RATE);
        assert_eq!(next_speed(1.0, false), 0.5);
    }

    #[test]
    fn start_and_end_jump_and_play_on() {
        let clock = ManualClock::new();
        let mut p = Transport::new(0.0, 4.0);
        p.go_to_end(Direction::Forward, clock.read());
        assert_eq!(p.time_at(clock.read()), 4.0);
        p.go_to_end(Direction::Reverse, clock.read());
        p.play(clock.read());
        clock.advance(ms(500));
        assert!(close(p.tick(clock.read(), 4.0).time, 0.5));
    }
}
