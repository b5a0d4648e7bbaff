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
//!
//! A loaded persistent pair is watched for opening instead (see `contact::opens`): that search
//! also depends on the load the pair's last solve left, so its answer is kept with that solve's
//! stamp. Without it, a pile's window re-searched every opened pair at every one of its
//! instants, though an instant elsewhere in the pile had changed neither body: 35,700 searches
//! of 26 halvings each for 2,950 instants in 200 balls' first second.

use super::narrow::Found;

/// What a pair's search looked for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Watch {
    /// Its first contact: a pair left to the narrow phase.
    Contact,
    /// A persistent pair sinking past its guard depth.
    Sinking,
    /// A persistent pair opening (see `contact::opens`) from where its last solve left it
    /// (`None`: not solved yet).
    Opening(Option<OpeningLoad>),
}

/// What a persistent pair's opening is measured from: its last solve's time, the pair's gap
/// then, and whether that solve pressed it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct OpeningLoad {
    pub time: f64,
    pub gap: f64,
    pub pressed: bool,
}

/// One pair's last search: over `[from, to]`, watching for `watch`, at the bodies' motion
/// counts `motions`, it found `found`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Searched {
    pub from: f64,
    pub to: f64,
    pub watch: Watch,
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
        watch: Watch,
        motions: (u64, u64),
    ) -> Option<Option<Found>> {
        if watch != self.watch || motions != self.motions || from < self.from || to > self.to {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn opening(time: f64) -> Watch {
        Watch::Opening(Some(OpeningLoad {
            time,
            gap: 0.0,
            pressed: true,
        }))
    }

    #[test]
    fn an_answer_holds_only_for_what_was_watched_and_the_same_motions() {
        let kept = Searched {
            from: 0.0,
            to: 0.01,
            watch: opening(0.0),
            motions: (3, 4),
            found: None,
        };
        // A later part of the same interval, the same load and motions: nothing opens.
        assert_eq!(
            kept.answer(0.005, 0.01, opening(0.0), (3, 4))
                .map(|f| f.is_none()),
            Some(true)
        );
        // The pair solved again, watched for something else, a body moved, or an earlier
        // start: searched anew.
        assert!(kept.answer(0.005, 0.01, opening(0.004), (3, 4)).is_none());
        assert!(kept.answer(0.005, 0.01, Watch::Sinking, (3, 4)).is_none());
        assert!(kept.answer(0.005, 0.01, opening(0.0), (3, 5)).is_none());
        assert!(kept.answer(-0.001, 0.01, opening(0.0), (3, 4)).is_none());
    }
}
