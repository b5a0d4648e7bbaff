//! The time bank: real time paid in as it passes, paid out in whole fixed timesteps.
//!
//! Amounts are kept in integer nanoseconds so that the number of steps is exact: 1 s with a
//! 0.1 s step is ten steps, not nine and a remainder, as floating-point division could make it.

use super::error::LiveError;
use std::time::Duration;

/// Real time not yet simulated, and how to pay it out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeBank {
    dt: Duration,
    balance: Duration,
    divide_remainder: bool,
}

/// What one deposit pays out: `steps` updates of `step_dt` seconds each.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Withdrawal {
    pub steps: u64,
    pub step_dt: f64,
}

impl TimeBank {
    /// A bank paying out steps of `dt`, which must not be zero. With `divide_remainder`, each
    /// payout also spreads what is left over the steps it pays (smooth, but the step length
    /// then depends on the machine's speed); without, the remainder waits for the next deposit
    /// and every step is exactly `dt`.
    pub fn new(dt: Duration, divide_remainder: bool) -> Result<TimeBank, LiveError> {
        if dt.is_zero() {
            return Err(LiveError::ZeroTimestep);
        }
        Ok(TimeBank {
            dt,
            balance: Duration::ZERO,
            divide_remainder,
        })
    }

    /// Pays in `elapsed` real time and pays out as many whole steps as the balance covers.
    pub fn deposit(&mut self, elapsed: Duration) -> Withdrawal {
        self.balance = self.balance.saturating_add(elapsed);
        let steps = self.balance.as_nanos() / self.dt.as_nanos();
        let steps = u64::try_from(steps).unwrap_or(u64::MAX);
        if steps == 0 {
            return Withdrawal {
                steps,
                step_dt: self.dt.as_secs_f64(),
            };
        }
        let step_dt = if self.divide_remainder {
            // The balance covers `steps` whole steps, so the share is never below dt; `max`
            // keeps floating-point rounding from making it one unit lower.
            let share = (self.balance.as_secs_f64() / steps as f64).max(self.dt.as_secs_f64());
            self.balance = Duration::ZERO;
            share
        } else {
            let paid = u128::from(steps) * self.dt.as_nanos();
            self.balance -= duration_from_nanos(paid);
            self.dt.as_secs_f64()
        };
        Withdrawal { steps, step_dt }
    }

    /// Puts `steps` steps of `step_dt` seconds (from the last payout) back: they were paid out
    /// but not run, so their real time is still owed to the simulation.
    pub fn refund(&mut self, steps: u64, step_dt: f64) {
        let amount = if self.divide_remainder {
            Duration::try_from_secs_f64(step_dt * steps as f64).unwrap_or(Duration::MAX)
        } else {
            duration_from_nanos(u128::from(steps) * self.dt.as_nanos())
        };
        self.balance = self.balance.saturating_add(amount);
    }

    /// Keeps at most `most` in the bank; returns what was given up. This is how a simulation
    /// that cannot keep up with real time falls behind it instead of owing ever more.
    pub fn limit(&mut self, most: Duration) -> Duration {
        let forfeited = self.balance.saturating_sub(most);
        self.balance -= forfeited;
        forfeited
    }

    /// Real time paid in and not yet paid out.
    pub fn balance(&self) -> Duration {
        self.balance
    }

    pub fn dt(&self) -> Duration {
        self.dt
    }
}

fn duration_from_nanos(nanos: u128) -> Duration {
    const PER_SECOND: u128 = 1_000_000_000;
    let seconds = u64::try_from(nanos / PER_SECOND).unwrap_or(u64::MAX);
    Duration::new(seconds, (nanos % PER_SECOND) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const fn s(seconds: u64) -> Duration {
        Duration::from_secs(seconds)
    }

    #[test]
    fn five_seconds_with_a_two_second_step_is_two_steps_and_one_second_left() {
        let mut bank = TimeBank::new(s(2), false).unwrap();
        let w = bank.deposit(s(5));
        assert_eq!((w.steps, w.step_dt), (2, 2.0));
        assert_eq!(bank.balance(), s(1));
        // The second left over counts towards the next payout.
        let w = bank.deposit(s(1));
        assert_eq!((w.steps, w.step_dt), (1, 2.0));
        assert_eq!(bank.balance(), Duration::ZERO);
    }

    #[test]
    fn remainder_division_spreads_the_remainder_over_the_steps() {
        let mut bank = TimeBank::new(s(2), true).unwrap();
        let w = bank.deposit(s(5));
        assert_eq!((w.steps, w.step_dt), (2, 2.5));
        assert_eq!(bank.balance(), Duration::ZERO);
    }

    #[test]
    fn less_than_a_step_waits_in_the_bank() {
        for divide in [false, true] {
            let mut bank = TimeBank::new(Duration::from_millis(10), divide).unwrap();
            assert_eq!(bank.deposit(Duration::from_millis(7)).steps, 0);
            assert_eq!(bank.balance(), Duration::from_millis(7));
            assert_eq!(bank.deposit(Duration::from_millis(3)).steps, 1);
            assert_eq!(bank.balance(), Duration::ZERO);
        }
    }

    #[test]
    fn whole_multiples_are_exact() {
        // 1 s / 0.1 s in floating point is fine, but 0.3 s / 0.1 s is 2.9999999999999996.
        let mut bank = TimeBank::new(Duration::from_millis(100), false).unwrap();
        assert_eq!(bank.deposit(Duration::from_millis(300)).steps, 3);
        assert_eq!(bank.deposit(s(1)).steps, 10);
        assert_eq!(bank.balance(), Duration::ZERO);
    }

    #[test]
    fn a_divided_share_is_never_below_the_step() {
        // 3 × 393 µs in seconds divided by 3 rounds to one unit below 393 µs.
        let dt = Duration::from_micros(393);
        let mut bank = TimeBank::new(dt, true).unwrap();
        let w = bank.deposit(dt * 3);
        assert_eq!(w.steps, 3);
        assert!(w.step_dt >= dt.as_secs_f64());
    }

    #[test]
    fn refunded_steps_are_owed_again_and_a_limit_forfeits_the_rest() {
        let mut bank = TimeBank::new(Duration::from_millis(10), false).unwrap();
        let w = bank.deposit(Duration::from_millis(55));
        assert_eq!(w.steps, 5);
        bank.refund(3, w.step_dt);
        assert_eq!(bank.balance(), Duration::from_millis(35));
        assert_eq!(
            bank.limit(Duration::from_millis(20)),
            Duration::from_millis(15)
        );
        assert_eq!(bank.balance(), Duration::from_millis(20));
        assert_eq!(bank.limit(Duration::from_millis(50)), Duration::ZERO);

        let mut divided = TimeBank::new(Duration::from_millis(10), true).unwrap();
        let w = divided.deposit(Duration::from_millis(25));
        assert_eq!((w.steps, w.step_dt), (2, 0.0125));
        divided.refund(1, w.step_dt);
        assert_eq!(divided.balance(), Duration::from_micros(12_500));
    }

    #[test]
    fn a_zero_timestep_is_refused() {
        assert!(matches!(
            TimeBank::new(Duration::ZERO, false),
            Err(LiveError::ZeroTimestep)
        ));
    }

    proptest! {
        /// Without division no time is lost or invented: everything paid in is either paid
        /// out in whole steps or still in the bank, which holds less than one step.
        #[test]
        fn time_is_conserved(
            dt_us in 1u64..50_000,
            deposits in proptest::collection::vec(0u64..200_000, 0..50),
        ) {
            let dt = Duration::from_micros(dt_us);
            let mut bank = TimeBank::new(dt, false).unwrap();
            let mut steps = 0u64;
            for &d in &deposits {
                let w = bank.deposit(Duration::from_micros(d));
                prop_assert_eq!(w.step_dt, dt.as_secs_f64());
                steps += w.steps;
            }
            let paid_in: u64 = deposits.iter().sum();
            prop_assert_eq!(steps * dt_us + bank.balance().as_micros() as u64, paid_in);
            prop_assert!(bank.balance() < dt);
        }

        /// With division every payout uses up the bank, and the steps it pays cover the
        /// balance exactly.
        #[test]
        fn division_pays_out_everything(
            dt_us in 1u64..50_000,
            deposits in proptest::collection::vec(0u64..200_000, 0..50),
        ) {
            let dt = Duration::from_micros(dt_us);
            let mut bank = TimeBank::new(dt, true).unwrap();
            for &d in &deposits {
                let before = bank.balance() + Duration::from_micros(d);
                let w = bank.deposit(Duration::from_micros(d));
                if w.steps > 0 {
                    prop_assert_eq!(bank.balance(), Duration::ZERO);
                    prop_assert!(w.step_dt >= dt.as_secs_f64());
                    let covered = w.step_dt * w.steps as f64;
                    prop_assert!((covered - before.as_secs_f64()).abs() < 1e-9);
                } else {
                    prop_assert_eq!(bank.balance(), before);
                }
            }
        }
    }
}
