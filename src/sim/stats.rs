//! Work counters: how much each component cost, for `--stats`, benchmarks and tests.

use std::fmt;

/// What one component has cost so far (over all runs of a simulation).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ComponentStats {
    /// Number of variables in the component.
    pub size: usize,
    /// Accepted integration steps.
    pub steps: u64,
    /// Of those, the steps taken by the implicit method: the component was found stiff (see
    /// `sim::integrate`).
    pub implicit_steps: u64,
    /// Step attempts thrown away (Newton failure or error too large).
    pub rejected: u64,
    /// Newton–Raphson iterations (linear solves), accepted and rejected steps alike.
    pub newton_iterations: u64,
    /// Evaluations of the component's equations.
    pub evaluations: u64,
    /// Restarts with the conservative step (start, breakpoints, back-ups, resets).
    pub restarts: u64,
}

impl ComponentStats {
    fn add(&mut self, other: &ComponentStats) {
        self.size += other.size;
        self.steps += other.steps;
        self.implicit_steps += other.implicit_steps;
        self.rejected += other.rejected;
        self.newton_iterations += other.newton_iterations;
        self.evaluations += other.evaluations;
        self.restarts += other.restarts;
    }
}

/// Counters for every component of a simulation, indexed by component id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Statistics {
    pub components: Vec<ComponentStats>,
}

impl Statistics {
    /// Sums over all components (`size` is the number of variables).
    pub fn total(&self) -> ComponentStats {
        let mut total = ComponentStats::default();
        for c in &self.components {
            total.add(c);
        }
        total
    }

    /// Number of variables in the largest component.
    pub fn largest_component(&self) -> usize {
        self.components.iter().map(|c| c.size).max().unwrap_or(0)
    }
}

impl fmt::Display for Statistics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let total = self.total();
        writeln!(
            f,
            "{} components, {} variables, largest component {}",
            self.components.len(),
            total.size,
            self.largest_component()
        )?;
        write!(
            f,
            "{} steps ({} implicit), {} rejected, {} Newton iterations, {} evaluations, {} restarts",
            total.steps,
            total.implicit_steps,
            total.rejected,
            total.newton_iterations,
            total.evaluations,
            total.restarts
        )
    }
}
