//! Prescribed values: a variable that follows a given function of time over an interval.

use std::fmt;
use std::sync::Arc;

/// The function a prescribed variable follows: time → (value, derivative).
pub type PrescribedFn = dyn Fn(f64) -> (f64, f64) + Send + Sync;

/// Over the closed interval `[start, end]` the variable's value is `function(t).0` and its
/// derivative `function(t).1` (a trajectory constraint, section 5.1.3).
///
/// On the interval the variable is excluded from the Newton solve and takes the function's value
/// exactly at every computed time point; its own equation is ignored. Both interval ends are
/// breakpoints: the component holding the variable (and every component reading it) lands on
/// them exactly and restarts with a conservative step. At `start` the value jumps to the
/// function's value; after `end` the variable's own equation takes over from the function's end
/// value. To make a position continue with the trajectory's end velocity (figure 5.5), prescribe
/// the velocity variable with the trajectory's derivative over the same interval.
#[derive(Clone)]
pub struct Prescription {
    start: f64,
    end: f64,
    function: Arc<PrescribedFn>,
}

impl Prescription {
    pub fn new(
        start: f64,
        end: f64,
        function: impl Fn(f64) -> (f64, f64) + Send + Sync + 'static,
    ) -> Prescription {
        Prescription {
            start,
            end,
            function: Arc::new(function),
        }
    }

    pub fn start(&self) -> f64 {
        self.start
    }

    pub fn end(&self) -> f64 {
        self.end
    }

    /// Value and derivative at `t`.
    pub fn eval(&self, t: f64) -> (f64, f64) {
        (self.function)(t)
    }
}

impl fmt::Debug for Prescription {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Prescription [{}, {}]", self.start, self.end)
    }
}
