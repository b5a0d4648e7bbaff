//! The options that raise a simulation's limits (`sim::RunLimits`), shared by the commands
//! that simulate: `simulate`, `render` and `export`.

use asgard::sim::limits::{DEFAULT_MAX_MEMORY, DEFAULT_MAX_OUTPUT_STEPS};
use asgard::sim::RunLimits;
use clap::Args;

#[derive(Args, Clone, Copy, Debug)]
pub struct RunLimitArgs {
    /// Refuse scenes spanning more than N output steps ((finish - start) / step).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_OUTPUT_STEPS)]
    max_output_steps: u64,
    /// Stop a simulation that grows by more than BYTES of memory.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_MEMORY)]
    max_memory: usize,
}

impl RunLimitArgs {
    pub fn limits(&self) -> RunLimits {
        RunLimits {
            max_output_steps: self.max_output_steps,
            max_memory: self.max_memory,
        }
    }
}
