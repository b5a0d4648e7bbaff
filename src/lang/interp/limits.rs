//! Resource accounting against [`Limits`]: commands run, nesting depth, bytes created and
//! wall time.

use super::{Exception, Interp, WALL_CHECK_INTERVAL};

impl Interp {
    /// Counts one command against the limits (also used for loop iterations, so that an empty
    /// loop body still uses up the budget).
    pub(in crate::lang) fn count_command(&mut self) -> Result<(), Exception> {
        if let Some(message) = &self.limit_hit {
            return Err(Exception::limit(message.clone()));
        }
        self.commands_run += 1;
        if self.commands_run > self.limits.max_commands {
            return self.hit_limit(format!(
                "command limit exceeded ({} commands)",
                self.limits.max_commands
            ));
        }
        if self.commands_run % WALL_CHECK_INTERVAL == 0
            && self.started.elapsed() > self.limits.max_wall
        {
            return self.hit_limit(format!(
                "time limit exceeded ({:.3} s)",
                self.limits.max_wall.as_secs_f64()
            ));
        }
        Ok(())
    }

    fn hit_limit(&mut self, message: String) -> Result<(), Exception> {
        self.limit_hit = Some(message.clone());
        Err(Exception::limit(message))
    }

    /// Commands executed so far in the current (or last) top-level evaluation.
    pub fn commands_run(&self) -> u64 {
        self.commands_run
    }

    /// Accounts for `bytes` of newly created string or list data.
    pub fn charge(&mut self, bytes: usize) -> Result<(), Exception> {
        self.memory = self.memory.saturating_add(bytes);
        if self.memory > self.limits.max_memory {
            return self.hit_limit(format!(
                "memory limit exceeded ({} bytes of string and list data)",
                self.limits.max_memory
            ));
        }
        Ok(())
    }

    /// Checks that `bytes` more could be created, before creating them.
    pub fn check_memory(&mut self, bytes: usize) -> Result<(), Exception> {
        if self.memory.saturating_add(bytes) > self.limits.max_memory {
            return self.charge(bytes);
        }
        Ok(())
    }

    /// Bytes of string and list data that may still be created in this evaluation.
    pub fn memory_left(&self) -> usize {
        self.limits.max_memory.saturating_sub(self.memory)
    }

    pub(super) fn enter(&mut self) -> Result<(), Exception> {
        if self.depth >= self.limits.max_depth {
            return Err(Exception::limit(format!(
                "too many nested evaluations (limit {})",
                self.limits.max_depth
            )));
        }
        self.depth += 1;
        Ok(())
    }
}
