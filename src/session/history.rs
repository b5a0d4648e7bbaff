//! Undo and redo as text history.
//!
//! The text is the document, so undoing anything — a typed Update, a handle drag, "set initial
//! state from here" — is going back to an earlier text. A drag produces many small edits; the
//! caller groups them so one undo step takes back the whole drag.

/// Earlier and later texts around the current one.
#[derive(Debug, Default)]
pub struct History {
    undo: Vec<String>,
    redo: Vec<String>,
    /// While a group is open, further changes extend the step that opened it.
    group_open: bool,
    group_recorded: bool,
}

/// How many earlier texts are kept.
const LIMIT: usize = 500;

impl History {
    /// Records that `previous` is being replaced. Inside an open group only the first change
    /// of the group is recorded, so the group undoes as one step.
    pub fn record(&mut self, previous: &str) {
        if self.group_open && self.group_recorded {
            return;
        }
        self.group_recorded = self.group_open;
        self.redo.clear();
        self.undo.push(previous.to_owned());
        if self.undo.len() > LIMIT {
            self.undo.remove(0);
        }
    }

    /// Starts grouping changes into one step (a drag).
    pub fn open_group(&mut self) {
        self.group_open = true;
        self.group_recorded = false;
    }

    pub fn close_group(&mut self) {
        self.group_open = false;
        self.group_recorded = false;
    }

    /// The text before `current`, if any; `current` becomes redoable.
    pub fn undo(&mut self, current: &str) -> Option<String> {
        self.close_group();
        let previous = self.undo.pop()?;
        self.redo.push(current.to_owned());
        Some(previous)
    }

    /// The text an undo replaced, if any; `current` becomes undoable again.
    pub fn redo(&mut self, current: &str) -> Option<String> {
        self.close_group();
        let next = self.redo.pop()?;
        self.undo.push(current.to_owned());
        Some(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undo_and_redo_walk_the_texts() {
        let mut h = History::default();
        h.record("a");
        h.record("b");
        assert_eq!(h.undo("c").as_deref(), Some("b"));
        assert_eq!(h.undo("b").as_deref(), Some("a"));
        assert_eq!(h.undo("a"), None);
        assert_eq!(h.redo("a").as_deref(), Some("b"));
        assert_eq!(h.redo("b").as_deref(), Some("c"));
        assert_eq!(h.redo("c"), None);
    }

    #[test]
    fn a_group_undoes_as_one_step() {
        let mut h = History::default();
        h.record("start");
        h.open_group();
        h.record("drag0");
        h.record("drag1");
        h.record("drag2");
        h.close_group();
        assert_eq!(h.undo("drag3").as_deref(), Some("drag0"));
        assert_eq!(h.undo("drag0").as_deref(), Some("start"));
    }

    #[test]
    fn a_new_change_forgets_the_redo_texts() {
        let mut h = History::default();
        h.record("a");
        assert_eq!(h.undo("b").as_deref(), Some("a"));
        h.record("a");
        assert_eq!(h.redo("a"), None);
    }
}
