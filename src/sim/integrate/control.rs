//! Step-size control: tolerances, step bounds, and how the next step is chosen.

/// An error bound per variable and unit of time: `absolute + relative * |x|`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    pub absolute: f64,
    pub relative: f64,
}

impl Tolerance {
    pub fn new(absolute: f64, relative: f64) -> Tolerance {
        Tolerance { absolute, relative }
    }

    /// The allowed error per unit of time for a variable of magnitude `magnitude`.
    pub fn weight(&self, magnitude: f64) -> f64 {
        self.absolute + self.relative * magnitude.abs()
    }
}

/// How a component's integrator chooses and checks its steps.
#[derive(Clone, Debug, PartialEq)]
pub struct StepControl {
    /// Bound on the error each step makes, per unit of time it covers: a step of length `h`
    /// may err by `h · tolerance.weight(|x|)` in each variable, at its end and (read through
    /// the track's interpolation) anywhere between (see [`StepControl::allowed`]). Over a span
    /// `T` the errors made add up to at most `T · weight`; how much they grow afterwards is the
    /// motion's own doing (an unstable motion, like a body flipping about its intermediate
    /// axis, amplifies them).
    pub tolerance: Tolerance,
    /// The conservative step taken at the start and after every restart from scratch
    /// (start, breakpoint, reset), when nothing is known about how the solution behaves
    /// (5.2.3). Also the shortest span a step's error is measured against: a shorter step may
    /// err as much as one this long (see [`StepControl::allowed`]).
    pub initial_step: f64,
    /// Steps never shrink below this; needing to is an error.
    pub min_step: f64,
    /// Steps never grow beyond this.
    pub max_step: f64,
    /// Newton–Raphson gives up (and the step is retried at half size) after this many
    /// iterations.
    pub max_newton_iterations: u32,
    /// Newton has converged when every residual is within this fraction of what the step may
    /// err; well below 1 so that solver error stays small next to truncation error.
    pub newton_tolerance: f64,
    /// A step that converged in at most this many iterations may be followed by a larger one.
    pub few_iterations: u32,
    /// A step that needed at least this many iterations is followed by one half as long.
    pub many_iterations: u32,
}

impl Default for StepControl {
    fn default() -> StepControl {
        StepControl {
            tolerance: Tolerance::new(1e-6, 1e-6),
            initial_step: 1e-4,
            min_step: 1e-12,
            max_step: f64::INFINITY,
            max_newton_iterations: 10,
            newton_tolerance: 0.01,
            few_iterations: 2,
            many_iterations: 5,
        }
    }
}

/// One rejection shrinks the step by at most this factor.
const MAX_SHRINK: f64 = 0.2;
/// Aim a little below the tolerance so the next step is not rejected at once.
const SAFETY: f64 = 0.9;

/// One of a step's error estimates relative to its bound (1.0 at the bound), and the power of
/// the step length it grows with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Estimate {
    pub ratio: f64,
    pub power: f64,
}

impl StepControl {
    /// The error a step of length `h` may make in a variable of magnitude `magnitude`: the
    /// tolerance per unit of time over `h`, or over the initial step if `h` is shorter. Where
    /// the equations jump within a step (a force switched off by a condition at a time nobody
    /// declared), its error is about `h` times the jump and so per unit of time it never falls
    /// below the jump whatever the step: without the floor no step could cross. With it, each
    /// step shorter than the initial one adds at most the tolerance times the initial step to
    /// the sum over the span.
    pub(crate) fn allowed(&self, h: f64, magnitude: f64) -> f64 {
        h.max(self.initial_step) * self.tolerance.weight(magnitude)
    }

    /// The factor to scale the step by, given the step's error `estimates` and the Newton
    /// iterations it took (none for an explicit method), growing by at most `growth`. Used both
    /// after rejection (errors above 1, factor below 1) and after acceptance.
    pub(crate) fn step_factor(&self, estimates: &[Estimate], iterations: u32, growth: f64) -> f64 {
        let mut factor = growth;
        for e in estimates {
            if e.ratio > 0.0 {
                factor = factor.min(SAFETY * e.ratio.powf(-1.0 / e.power));
            }
        }
        factor = factor.max(MAX_SHRINK);
        if iterations >= self.many_iterations {
            factor = factor.min(0.5);
        } else if iterations > self.few_iterations {
            factor = factor.min(1.0);
        }
        factor
    }

    /// Checks that the numbers make sense, saying which one does not.
    pub fn validate(&self) -> Result<(), String> {
        let positive = |name: &str, v: f64| {
            if v > 0.0 && !v.is_nan() {
                Ok(())
            } else {
                Err(format!("{name} must be positive, got {v}"))
            }
        };
        let t = &self.tolerance;
        if !(t.absolute >= 0.0 && t.relative >= 0.0 && t.absolute + t.relative > 0.0) {
            return Err(format!(
                "tolerance needs non-negative parts, not both zero, got absolute {} relative {}",
                t.absolute, t.relative
            ));
        }
        positive("initial step", self.initial_step)?;
        positive("minimum step", self.min_step)?;
        positive("maximum step", self.max_step)?;
        positive("Newton tolerance", self.newton_tolerance)?;
        if self.min_step > self.initial_step || self.initial_step > self.max_step {
            return Err(format!(
                "steps must satisfy minimum {} <= initial {} <= maximum {}",
                self.min_step, self.initial_step, self.max_step
            ));
        }
        if self.max_newton_iterations == 0 {
            return Err("at least one Newton iteration must be allowed".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn estimate(ratio: f64, power: f64) -> Estimate {
        Estimate { ratio, power }
    }

    #[test]
    fn factor_follows_errors_and_iterations() {
        let c = StepControl::default();
        assert_eq!(c.step_factor(&[], 1, 2.0), 2.0);
        assert_eq!(c.step_factor(&[estimate(0.0, 2.0)], 1, 5.0), 5.0);
        let f = c.step_factor(&[estimate(8.0, 3.0)], 1, 2.0);
        assert!((f - 0.45).abs() < 1e-12);
        let f = c.step_factor(&[estimate(1e-3, 4.0), estimate(4.0, 2.0)], 0, 5.0);
        assert!((f - 0.45).abs() < 1e-12);
        assert_eq!(c.step_factor(&[estimate(1e9, 2.0)], 1, 2.0), 0.2);
        assert_eq!(c.step_factor(&[], 3, 2.0), 1.0);
        assert_eq!(c.step_factor(&[], 7, 2.0), 0.5);
    }

    #[test]
    fn validation_names_the_bad_setting() {
        let c = StepControl {
            min_step: 1.0,
            ..StepControl::default()
        };
        assert!(c.validate().unwrap_err().contains("minimum 1"));
        let c = StepControl {
            tolerance: Tolerance::new(0.0, 0.0),
            ..StepControl::default()
        };
        assert!(c.validate().unwrap_err().starts_with("tolerance"));
        assert!(StepControl::default().validate().is_ok());
    }
}
