//! A rendition's playback clock (dissertation 4.1.9): the simulated time to show is taken from
//! the real-time clock, so playback runs at real speed whatever the frame rate; it pauses,
//! seeks, stops at the end or loops. Times of the real clock are passed in (seconds from any
//! fixed origin), so the clock is tested without waiting.

/// Where playback is and whether it runs.
#[derive(Clone, Debug, PartialEq)]
pub struct PlaybackClock {
    start: f64,
    finish: f64,
    looping: bool,
    /// The simulated time shown when the clock was last set (played, paused, sought).
    time: f64,
    /// The real time at which `time` was shown, while playing.
    playing_since: Option<f64>,
}

impl PlaybackClock {
    /// A paused clock at `start`, for an animation from `start` to `finish` seconds.
    pub fn new(start: f64, finish: f64) -> PlaybackClock {
        PlaybackClock {
            start,
            finish: finish.max(start),
            looping: false,
            time: start,
            playing_since: None,
        }
    }

    /// The simulated time to show at real time `now`; playback that reached the end without
    /// looping stops there.
    pub fn time(&mut self, now: f64) -> f64 {
        let Some(since) = self.playing_since else {
            return self.time;
        };
        let t = self.time + (now - since).max(0.0);
        if t < self.finish {
            return t;
        }
        let length = self.finish - self.start;
        if self.looping && length > 0.0 {
            let wrapped = self.start + (t - self.start) % length;
            self.time = wrapped;
            self.playing_since = Some(now);
            wrapped
        } else {
            self.time = self.finish;
            self.playing_since = None;
            self.finish
        }
    }

    pub fn is_playing(&self) -> bool {
        self.playing_since.is_some()
    }

    pub fn is_looping(&self) -> bool {
        self.looping
    }

    /// Plays from the current time; from the start when it stands at the end.
    pub fn play(&mut self, now: f64) {
        let t = self.time(now);
        self.time = if t >= self.finish { self.start } else { t };
        self.playing_since = Some(now);
    }

    pub fn pause(&mut self, now: f64) {
        self.time = self.time(now);
        self.playing_since = None;
    }

    /// Moves to simulated time `t`, clamped to the animation; playback goes on from there if
    /// it was running.
    pub fn seek(&mut self, t: f64, now: f64) {
        self.time = t.clamp(self.start, self.finish);
        if self.playing_since.is_some() {
            self.playing_since = Some(now);
        }
    }

    pub fn set_looping(&mut self, looping: bool, now: f64) {
        self.time = self.time(now);
        if self.playing_since.is_some() {
            self.playing_since = Some(now);
        }
        self.looping = looping;
    }

    /// The animation's time range changed (a new scene); the current time is kept within it.
    pub fn set_range(&mut self, start: f64, finish: f64, now: f64) {
        let t = self.time(now);
        self.start = start;
        self.finish = finish.max(start);
        self.seek(t, now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn plays_at_real_speed_and_stops_at_the_end() {
        let mut clock = PlaybackClock::new(0.0, 3.0);
        assert_eq!(clock.time(10.0), 0.0);
        clock.play(10.0);
        assert_eq!(clock.time(11.5), 1.5);
        assert_eq!(clock.time(14.0), 3.0);
        assert!(!clock.is_playing());
        assert_eq!(clock.time(20.0), 3.0);
        clock.play(20.0);
        assert_eq!(clock.time(20.5), 0.5, "play at the end starts again");
    }

    #[test]
    fn loops_wrap_around() {
        let mut clock = PlaybackClock::new(1.0, 3.0);
        clock.set_looping(true, 0.0);
        clock.play(0.0);
        assert_eq!(clock.time(1.0), 2.0);
        assert_eq!(clock.time(2.5), 1.5);
        assert_eq!(clock.time(7.0), 2.0);
        assert!(clock.is_playing());
    }

    #[test]
    fn pause_and_seek() {
        let mut clock = PlaybackClock::new(0.0, 3.0);
        clock.play(0.0);
        clock.pause(1.0);
        assert_eq!(clock.time(5.0), 1.0);
        clock.seek(2.5, 5.0);
        assert_eq!(clock.time(6.0), 2.5);
        clock.seek(-4.0, 6.0);
        assert_eq!(clock.time(6.0), 0.0);
        clock.play(6.0);
        clock.seek(2.0, 7.0);
        assert_eq!(clock.time(7.5), 2.5);
        clock.set_range(0.0, 1.0, 7.5);
        assert_eq!(clock.time(7.5), 1.0);
    }

    proptest! {
        #[test]
        fn time_stays_in_range(
            start in -5.0f64..5.0,
            length in 0.0f64..10.0,
            looping: bool,
            steps in proptest::collection::vec((0u8..4, 0.0f64..20.0), 0..30),
        ) {
            let mut clock = PlaybackClock::new(start, start + length);
            let mut now = 0.0;
            for (action, amount) in steps {
                now += amount;
                match action {
                    0 => clock.play(now),
                    1 => clock.pause(now),
                    2 => clock.seek(start + amount - 5.0, now),
                    _ => clock.set_looping(looping, now),
                }
                let t = clock.time(now);
                prop_assert!(t >= start && t <= start + length, "{t}");
            }
        }
    }
}
