//! Processor time by simulated interval, for `asgard simulate --stats`: how much of the run's
//! processor time each stretch of simulated time took, from one run.
//!
//! A run cut short with `--until` is not the same run's beginning: its windows and checks fall
//! elsewhere, so comparing `--until 5` with `--until 12` cannot tell what the last seconds of a
//! 12-second run cost. Instead the run's progress reports (every [`REPORT_EVERY`] accepted
//! steps) are stamped with the thread's processor time, and the time between two reports is
//! spread evenly over the simulated time the slowest component advanced between them (the
//! frontier: every component is computed at least that far). Components run ahead of the
//! frontier by up to a window, so an interval's figure is exact to within a window's work.

use asgard::live::thread_processor_time;
use serde::Serialize;
use std::time::Duration;

/// Accepted steps between two progress reports while the profile is kept: often enough that a
/// report's work lies within a short stretch of simulated time, seldom enough to cost nothing.
pub const REPORT_EVERY: u64 = 100;

/// At most this many intervals: the interval is the shortest of 1, 2 or 5 times a power of ten
/// seconds that covers the run with no more.
const MAX_INTERVALS: usize = 20;

/// Processor seconds per interval of simulated time, filled from progress reports.
#[derive(Serialize)]
pub struct CostByInterval {
    /// Simulated time the first interval starts at.
    start: f64,
    /// Length of each interval, simulated seconds.
    width: f64,
    /// Processor seconds spent while the frontier was in each interval.
    processor_s: Vec<f64>,
    /// The frontier and the thread's processor time at the last report.
    #[serde(skip)]
    last: (f64, Duration),
}

impl CostByInterval {
    /// An empty profile of the simulated range `[start, end]`, starting the clock now.
    pub fn new(start: f64, end: f64) -> CostByInterval {
        let width = interval_for(end - start);
        let count = (((end - start) / width).ceil() as usize).clamp(1, MAX_INTERVALS);
        CostByInterval {
            start,
            width,
            processor_s: vec![0.0; count],
            last: (start, thread_processor_time()),
        }
    }

    /// Attributes the processor time since the last report to the frontier's advance from its
    /// time then to `frontier`, evenly (all to its interval when it did not move).
    pub fn report(&mut self, frontier: f64) {
        self.report_at(frontier, thread_processor_time());
    }

    /// [`report`](Self::report) with the thread's processor time `now` given.
    fn report_at(&mut self, frontier: f64, now: Duration) {
        let spent = now.saturating_sub(self.last.1).as_secs_f64();
        let from = self.last.0;
        let to = frontier.max(from);
        self.last = (to, now);
        if to - from <= 0.0 {
            let i = self.index(from);
            self.processor_s[i] += spent;
            return;
        }
        let (first, last) = (self.index(from), self.index(to));
        for i in first..=last {
            let lo = (self.start + i as f64 * self.width).max(from);
            let hi = (self.start + (i + 1) as f64 * self.width).min(to);
            self.processor_s[i] += spent * (hi - lo).max(0.0) / (to - from);
        }
    }

    /// The interval holding simulated time `t`.
    fn index(&self, t: f64) -> usize {
        let i = ((t - self.start) / self.width).floor();
        (i.max(0.0) as usize).min(self.processor_s.len() - 1)
    }

    /// One line for standard error: each interval's processor seconds.
    pub fn line(&self) -> String {
        let parts: Vec<String> = self
            .processor_s
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let from = self.start + i as f64 * self.width;
                format!("{}–{}: {s:.3}", trim(from), trim(from + self.width))
            })
            .collect();
        format!(
            "processor s by simulated interval ({} s each): {}\n",
            trim(self.width),
            parts.join(", ")
        )
    }
}

/// The shortest of 1, 2 or 5 × 10^k seconds that covers `range` in at most [`MAX_INTERVALS`].
fn interval_for(range: f64) -> f64 {
    if !(range.is_finite() && range > 0.0) {
        return 1.0;
    }
    let least = range / MAX_INTERVALS as f64;
    let decade = 10f64.powf(least.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * decade)
        .find(|w| range / w <= MAX_INTERVALS as f64 + 1e-9)
        .unwrap_or(10.0 * decade)
}

/// A number of seconds without trailing zeros (`0.05`, `2`).
fn trim(x: f64) -> String {
    let text = format!("{x:.6}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interval_is_one_two_or_five_times_a_power_of_ten_covering_the_range_in_twenty() {
        assert_eq!(interval_for(12.0), 1.0);
        assert_eq!(interval_for(20.0), 1.0);
        assert_eq!(interval_for(21.0), 2.0);
        assert_eq!(interval_for(1.0), 0.05);
        assert_eq!(interval_for(4.0), 0.2);
        assert_eq!(interval_for(100.0), 5.0);
        assert_eq!(interval_for(0.0), 1.0);
    }

    #[test]
    fn time_between_reports_is_spread_over_the_frontiers_advance() {
        let mut cost = CostByInterval::new(0.0, 12.0);
        assert_eq!(cost.processor_s.len(), 12);
        // Pretend 3 s were spent while the frontier went from 0 to 1.5, then 1 s while it
        // stood at 1.5, then 2 s from 1.5 to 11.5.
        cost.last.1 = Duration::ZERO;
        cost.report_at(1.5, Duration::from_secs(3));
        cost.report_at(1.5, Duration::from_secs(4));
        cost.report_at(11.5, Duration::from_secs(6));
        let near = |a: f64, b: f64| (a - b).abs() < 1e-3;
        assert!(near(cost.processor_s[0], 2.0), "{:?}", cost.processor_s);
        assert!(
            near(cost.processor_s[1], 1.0 + 1.0 + 0.1),
            "{:?}",
            cost.processor_s
        );
        for i in 2..11 {
            assert!(near(cost.processor_s[i], 0.2), "{:?}", cost.processor_s);
        }
        assert!(near(cost.processor_s[11], 0.1), "{:?}", cost.processor_s);
        let total: f64 = cost.processor_s.iter().sum();
        assert!(near(total, 6.0), "{total}");
        assert!(cost
            .line()
            .starts_with("processor s by simulated interval (1 s each): 0–1: 2.0"));
    }
}
