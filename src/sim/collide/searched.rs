//! What the narrow phase found for each pair over the window being checked, kept while neither
//! body's motion changes.
//!
//! A window in a pile resolves its instants one after the other: each instant backs up a few
//! bodies, and the next check of the window looks again at every pair of every body not yet
//! checked to the window's end. Most of those pairs' bodies were not touched by the instant:
//! their motion over the window is what it was, and so is their first contact (or its
//! absence). A search's answer is kept with each body's count of motion changes (bumped at
//! every truncation of one of its components, the one way a computed motion changes) and is
//! reused for any later search of a part of the same interval while both counts stand.

use super::narrow::Found;

/// One pair's last search: over `[from, to]`, with the pair held or not, at the bodies'
/// motion counts `motions`, it found `found`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Searched {
    pub from: f64,
    pub to: f64,
    pub held: bool,
    pub motions: (u64, u64),
    pub found: Option<Found>,
}

impl Searched {
    /// The search's answer for `[from, to]`, if it still holds: the first contact in it, or
    /// `Some(None)` for none. `None` when the pair must be searched again.
    pub fn answer(
        &self,
        from: f64,
        to: f64,
        held: bool,
        motions: (u64, u64),
    ) -> Option<Option<Found>> {
        if held != self.held || motions != self.motions || from < self.from || to > self.to {
            return None;
        }
        match self.found {
            // The first contact found lies before `from`: what follows it was not searched.
            Some(f) if f.time < from => None,
            Some(f) if f.time <= to => Some(Some(f)),
            _ => Some(None),
        }
    }
}
