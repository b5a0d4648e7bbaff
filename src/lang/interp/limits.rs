//! Resource accounting against [`Limits`]: commands run, nesting depth, memory held and wall
//! time. Memory and time are kept in the thread's [`budget`], which the interpreter installs
//! for each top-level evaluation and checks at every command; built-ins that are about to
//! allocate much ask [`Interp::check_memory`] first.

use super::{Exception, Interp, WALL_CHECK_INTERVAL};
use crate::lang::budget::{self, Budget, Exhausted};

impl Interp {
    /// Counts one command against the limits (also used for loop iterations, so that an empty
    /// loop body still uses up the budget), and checks memory (every command) and wall time
    /// (every [`WALL_CHECK_INTERVAL`] commands).
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
        let clock = self.commands_run % WALL_CHECK_INTERVAL == 0;
        budget::poll_with_clock(clock).or_else(|which| self.exhausted(which))
    }

    fn hit_limit(&mut self, message: String) -> Result<(), Exception> {
        self.limit_hit = Some(message.clone());
        Err(Exception::limit(message))
    }

    /// The limit error for a budget that ran out, from now on for every command.
    pub(in crate::lang) fn exhausted(&mut self, which: Exhausted) -> Result<(), Exception> {
        let message = match which {
            Exhausted::Memory => format!(
                "memory limit exceeded (the script may hold {} bytes)",
                self.limits.max_memory
            ),
            Exhausted::Time => format!(
                "time limit exceeded ({:.3} s)",
                self.limits.max_wall.as_secs_f64()
            ),
        };
        self.hit_limit(message)
    }

    /// The limit error if the budget ran out while code without the interpreter at hand (the
    /// parser, list conversion) was working for this evaluation; that code stops early and
    /// fails, and this turns its failure into the limit error it really is.
    pub(super) fn exhausted_error(&mut self) -> Option<Exception> {
        let which = budget::poll_with_clock(false).err()?;
        self.exhausted(which).err()
    }

    /// Starts the memory and time budget of a top-level evaluation; returns the budget of an
    /// evaluation this one runs inside (by another interpreter), to restore at the end.
    pub(super) fn start_budget(&mut self) -> Option<Budget> {
        budget::install(Some(Budget::starting_now(
            self.limits.max_memory,
            self.limits.max_wall,
        )))
    }

    /// Commands executed so far in the current (or last) top-level evaluation.
    pub fn commands_run(&self) -> u64 {
        self.commands_run
    }

    /// Checks, before allocating them, that `bytes` more could be held without passing the
    /// memory limit; a refusal is the memory-limit error. Outside an evaluation nothing is
    /// refused.
    pub fn check_memory(&mut self, bytes: usize) -> Result<(), Exception> {
        match budget::current() {
            Some(b) if !b.check_bytes(bytes) => {
                budget::exhaust(Exhausted::Memory);
                self.exhausted(Exhausted::Memory)
            }
            _ => Ok(()),
        }
    }

    /// Bytes that may still be allocated in this evaluation.
    pub fn memory_left(&self) -> usize {
        budget::current().map_or(usize::MAX, |b| b.left())
    }

    /// Checks memory and time from inside a long loop of a built-in (see [`budget::Ticker`]).
    pub(in crate::lang) fn tick(&mut self, ticker: &mut budget::Ticker) -> Result<(), Exception> {
        ticker.tick().or_else(|which| self.exhausted(which))
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
