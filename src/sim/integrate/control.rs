//! Step-size control: tolerances, step bounds, and how the next step is chosen.

/// An error bound per variable: `absolute + relative * |x|`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    pub absolute: f64,
    pub relative: f64,
}

impl Tolerance {
    pub fn new(absolute: f64, relative: f64) -> Tolerance {
        Tolerance { absolute, relative }
    }

    /// The allowed error for a variable of magnitude `magnitude`.
    pub fn weight(&self, magnitude: f64) -> f64 {
        self.absolute + self.relative * magnitude.abs()
    }
}

/// How a component's integrator chooses and checks its steps.
#[derive(Clone, Debug, PartialEq)]
pub struct StepControl {
    /// Bound on the estimated local truncation error of each step.
    pub tolerance: Tolerance,
    /// Bound on the error of playing the track back by linear interpolation (4.1.9), or `None`
    /// to let steps grow as long as the truncation error allows.
    pub interpolation: Option<Tolerance>,
    /// The conservative step taken at the start and after every restart (breakpoint, back-up,
    /// reset), when nothing is known about how the solution behaves (5.2.3).
    pub initial_step: f64,
    /// Steps never shrink below this; needing to is an error.
    pub min_step: f64,
    /// Steps never grow beyond this.
    pub max_step: f64,
    /// Newton–Raphson gives up (and the step is retried at half size) after this many
    /// iterations.
    pub max_newton_iterations: u32,
    /// Newton has converged when every residual is within this fraction of its tolerance
    /// weight; well below 1 so that solver error stays small next to truncation error.
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
            interpolation: Some(Tolerance::new(1e-3, 1e-3)),
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

/// Growth is limited to the dissertation's factor of 2 per step.
const MAX_GROWTH: f64 = 2.0;
/// One rejection shrinks the step by at most this factor.
const MAX_SHRINK: f64 = 0.2;
/// Aim a little below the tolerance so the next step is not rejected at once.
const SAFETY: f64 = 0.9;

impl StepControl {
    /// The factor to scale the step by, given the step's errors relative to their tolerances
    /// (`truncation` of order h³, `interpolation` of order h², each 1.0 at the bound) and the
    /// Newton iterations it took. Used both after rejection (errors above 1, factor below 1)
    /// and after acceptance.
    pub(crate) fn step_factor(&self, truncation: f64, interpolation: f64, iterations: u32) -> f64 {
        let mut factor = MAX_GROWTH;
        if truncation > 0.0 {
            factor = factor.min(SAFETY / truncation.cbrt());
        }
        if interpolation > 0.0 {
            factor = factor.min(SAFETY / interpolation.sqrt());
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
        let tolerance = |name: &str, t: &Tolerance| {
            if t.absolute >= 0.0 && t.relative >= 0.0 && t.absolute + t.relative > 0.0 {
                Ok(())
            } else {
                Err(format!(
                    "{name} needs non-negative parts, not both zero, got absolute {} relative {}",
                    t.absolute, t.relative
                ))
            }
        };
        tolerance("tolerance", &self.tolerance)?;
        if let Some(t) = &self.interpolation {
            tolerance("interpolation tolerance", t)?;
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

    #[test]
    fn factor_follows_errors_and_iterations() {
        let c = StepControl::default();
        assert_eq!(c.step_factor(0.0, 0.0, 1), 2.0);
        assert!((c.step_factor(8.0, 0.0, 1) - 0.45).abs() < 1e-12);
        assert!((c.step_factor(0.0, 4.0, 1) - 0.45).abs() < 1e-12);
        assert_eq!(c.step_factor(1e9, 0.0, 1), 0.2);
        assert_eq!(c.step_factor(0.0, 0.0, 3), 1.0);
        assert_eq!(c.step_factor(0.0, 0.0, 7), 0.5);
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
