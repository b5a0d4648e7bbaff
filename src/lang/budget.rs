//! The memory and time budget of the evaluation running on this thread.
//!
//! Memory is measured, not estimated after the fact: the process's global allocator
//! ([`Counting`]) keeps a per-thread count of the bytes allocated and not yet freed, so
//! everything a script causes on the interpreter's thread — strings, lists, array entries and
//! their keys, variables, parse trees and compiled code — is in the account, and freeing a
//! value (overwriting a variable, `unset`, a proc's locals going away) gives its bytes back.
//! An evaluation's use is the count above where it stood when the evaluation started.
//!
//! The budget lives in a thread-local so that code without the interpreter at hand (the
//! parser, list formatting and splitting, sorting) can poll it inside long loops: [`poll`]
//! reports when memory or time ran out and remembers it, and the interpreter turns that into
//! its limit error at the next command (see `interp::limits`). Built-ins that are about to make
//! something large ask first with [`Budget::check_bytes`] (through `Interp::check_memory`), so
//! a single huge request is refused before it is allocated.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::time::{Duration, Instant};

/// The system allocator, counting the bytes each thread holds.
pub struct Counting;

#[global_allocator]
static GLOBAL: Counting = Counting;

thread_local! {
    /// Bytes allocated by this thread minus bytes it freed (memory freed by another thread
    /// than the one that allocated it moves the count between threads, which never lets a
    /// script hold more than its budget on its own thread).
    static HELD: Cell<isize> = const { Cell::new(0) };
    static BUDGET: Cell<Option<Budget>> = const { Cell::new(None) };
}

/// The bytes a block of `size` really takes from the heap: glibc's malloc adds an 8-byte
/// header, rounds to 16 and never hands out less than 32, so a million small array keys cost
/// what the resident memory shows, not a third of it.
fn footprint(size: usize) -> isize {
    ((size + 8).next_multiple_of(16)).max(32) as isize
}

fn count(bytes: isize) {
    // `try_with` fails only while the thread is being torn down.
    let _ = HELD.try_with(|held| held.set(held.get().wrapping_add(bytes)));
}

// SAFETY: every call is forwarded to the system allocator with the same arguments; the
// bookkeeping touches only a thread-local integer without a destructor, which allocates
// nothing.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            count(footprint(layout.size()));
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if !p.is_null() {
            count(footprint(layout.size()));
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        count(-footprint(layout.size()));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            count(footprint(new_size) - footprint(layout.size()));
        }
        p
    }
}

/// Bytes this thread holds now.
pub fn held() -> isize {
    HELD.with(Cell::get)
}

/// Which limit ran out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Exhausted {
    Memory,
    Time,
}

/// One evaluation's allowance: memory above `baseline`, time until `deadline`.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    baseline: isize,
    max_memory: usize,
    deadline: Instant,
    /// The first limit found exhausted; it stays exhausted for the rest of the evaluation.
    exhausted: Option<Exhausted>,
}

impl Budget {
    /// A budget of `max_memory` bytes above what the thread holds now and `max_wall` of time
    /// from now.
    pub fn starting_now(max_memory: usize, max_wall: Duration) -> Budget {
        let now = Instant::now();
        Budget {
            baseline: held(),
            max_memory,
            deadline: now
                .checked_add(max_wall)
                .unwrap_or(now + Duration::from_secs(1 << 40)),
            exhausted: None,
        }
    }

    /// Bytes held above the baseline.
    pub fn used(&self) -> usize {
        usize::try_from(held().saturating_sub(self.baseline)).unwrap_or(0)
    }

    /// Bytes that may still be allocated.
    pub fn left(&self) -> usize {
        self.max_memory.saturating_sub(self.used())
    }

    /// Whether `bytes` more could be held without passing the limit.
    pub fn check_bytes(&self, bytes: usize) -> bool {
        self.used().saturating_add(bytes) <= self.max_memory
    }
}

/// Installs `budget` for this thread, returning the one it replaces (an evaluation nested in
/// another, by another interpreter, restores the outer one when it ends).
pub fn install(budget: Option<Budget>) -> Option<Budget> {
    BUDGET.with(|b| b.replace(budget))
}

/// The budget of the evaluation running on this thread, if any.
pub fn current() -> Option<Budget> {
    BUDGET.with(Cell::get)
}

/// Records that a limit ran out (the first one recorded wins).
pub fn exhaust(which: Exhausted) {
    BUDGET.with(|b| {
        if let Some(mut budget) = b.get() {
            if budget.exhausted.is_none() {
                budget.exhausted = Some(which);
                b.set(Some(budget));
            }
        }
    });
}

/// Checks memory and time against the running evaluation's budget; `Err` names the limit
/// that ran out (now or earlier in this evaluation). Without a budget, nothing runs out.
pub fn poll() -> Result<(), Exhausted> {
    poll_with_clock(true)
}

/// [`poll`], reading the clock only if `clock` (reading it costs more than the rest).
pub fn poll_with_clock(clock: bool) -> Result<(), Exhausted> {
    let Some(budget) = current() else {
        return Ok(());
    };
    if let Some(which) = budget.exhausted {
        return Err(which);
    }
    let found = if budget.used() > budget.max_memory {
        Some(Exhausted::Memory)
    } else if clock && Instant::now() > budget.deadline {
        Some(Exhausted::Time)
    } else {
        None
    };
    match found {
        Some(which) => {
            exhaust(which);
            Err(which)
        }
        None => Ok(()),
    }
}

/// Polls the budget every [`Ticker::EVERY`] steps of a long loop, so the check costs nothing
/// measurable per step.
#[derive(Default)]
pub struct Ticker {
    steps: u32,
}

impl Ticker {
    pub const EVERY: u32 = 4096;

    /// Counts one step; every `EVERY` steps, polls the budget.
    pub fn tick(&mut self) -> Result<(), Exhausted> {
        self.steps += 1;
        if self.steps >= Self::EVERY {
            self.steps = 0;
            return poll();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_count_follows_allocations_and_frees() {
        let before = held();
        let block = vec![0u8; 1 << 20];
        assert!(held() - before >= 1 << 20);
        drop(block);
        assert!(held() - before < 1 << 10);
    }

    #[test]
    fn polling_reports_memory_then_keeps_reporting_it() {
        let outer = install(Some(Budget::starting_now(1 << 20, Duration::from_secs(60))));
        assert_eq!(poll(), Ok(()));
        let block = vec![1u8; 2 << 20];
        assert_eq!(poll(), Err(Exhausted::Memory));
        drop(block);
        // Exhaustion is sticky for the rest of the evaluation.
        assert_eq!(poll(), Err(Exhausted::Memory));
        install(outer);
    }

    #[test]
    fn polling_reports_time() {
        let outer = install(Some(Budget::starting_now(1 << 30, Duration::ZERO)));
        let deadline = current().unwrap().deadline;
        while Instant::now() <= deadline {
            std::hint::spin_loop();
        }
        assert_eq!(poll(), Err(Exhausted::Time));
        install(outer);
    }
}
