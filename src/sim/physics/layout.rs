//! Where each moving body's state variables are: blocks of thirteen, numbered by *slot*
//! (variables `13 s .. 13 s + 13`), given to bodies by name and kept across edits.
//!
//! Numbering the blocks in scene order would make a body inserted at the top of the text move
//! every other body's variables, and so reset all of their motion. A slot instead stays with
//! its body's name for as long as the body moves; a body added later takes the slot of one
//! deleted earlier, or a new one at the end. A slot nobody holds keeps its variables in the
//! system, unread and with zero equations, until it is taken again.

use super::body::{slot, BodyVars, BODY_VARIABLES};
use crate::sim::VarId;
use std::collections::HashMap;

/// The slots of the moving bodies, by name.
#[derive(Clone, Debug, Default)]
pub(crate) struct Layout {
    slots: HashMap<String, usize>,
    /// Slots nobody holds, to be given to bodies added later (the latest freed last).
    free: Vec<usize>,
    /// Slots made so far: the system has thirteen variables per slot.
    count: usize,
}

/// Slots to take and give up in one edit, worked out before anything changes.
#[derive(Debug, Default)]
pub(crate) struct SlotPlan {
    /// Bodies that move now and had no slot, and the slot each takes.
    pub taken: Vec<(String, usize)>,
    /// Bodies that no longer move (deleted or fixed), and the slot each gives up.
    pub freed: Vec<(String, usize)>,
    /// The slot count after the edit.
    pub count: usize,
}

impl Layout {
    /// The slot of the moving body `name`, if it has one.
    pub fn slot(&self, name: &str) -> Option<usize> {
        self.slots.get(name).copied()
    }

    /// The bodies holding slots.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.slots.keys().map(String::as_str)
    }

    /// The slots to take for `moving` (bodies that move after an edit and may have no slot
    /// yet) and give up for `stopped` (bodies with slots that no longer move). Slots given up
    /// in this edit are not taken again in it, so that variables never change hands within
    /// one update.
    pub fn plan<'a>(
        &self,
        moving: impl Iterator<Item = &'a str>,
        stopped: impl Iterator<Item = &'a str>,
    ) -> SlotPlan {
        let mut free = self.free.iter().rev().copied();
        let mut count = self.count;
        let taken = moving
            .filter(|name| !self.slots.contains_key(*name))
            .map(|name| {
                let slot = free.next().unwrap_or_else(|| {
                    count += 1;
                    count - 1
                });
                (name.to_string(), slot)
            })
            .collect();
        let freed = stopped
            .filter_map(|name| Some((name.to_string(), self.slot(name)?)))
            .collect();
        SlotPlan {
            taken,
            freed,
            count,
        }
    }

    /// Carries out `plan`.
    pub fn apply(&mut self, plan: &SlotPlan) {
        for (name, slot) in &plan.taken {
            if let Some(k) = self.free.iter().rposition(|s| s == slot) {
                self.free.remove(k);
            }
            self.slots.insert(name.clone(), *slot);
        }
        for (name, slot) in &plan.freed {
            self.slots.remove(name);
            self.free.push(*slot);
        }
        self.count = plan.count;
    }

    /// The slot holders, by slot (`None` for free slots).
    pub fn owners(&self) -> Vec<Option<&str>> {
        let mut owners = vec![None; self.count];
        for (name, &slot) in &self.slots {
            owners[slot] = Some(name.as_str());
        }
        owners
    }
}

/// The variables of slot `slot`.
pub(crate) fn block(slot: usize) -> BodyVars {
    BodyVars {
        first: VarId((slot * BODY_VARIABLES) as u32),
    }
}

/// The slot of the block `vars`.
pub(crate) fn slot_of(vars: BodyVars) -> usize {
    slot_holding(vars.first)
}

/// The slot whose block holds variable `var`.
pub(crate) fn slot_holding(var: VarId) -> usize {
    var.index() / BODY_VARIABLES
}

/// The name of variable `k` of a block held by `owner`, or of a free block `slot`.
pub(crate) fn variable_name(owner: Option<&str>, slot: usize, k: usize) -> String {
    match owner {
        Some(name) => format!("{name}.{}", slot::NAMES[k]),
        None => format!("(unused {slot}).{}", slot::NAMES[k]),
    }
}
