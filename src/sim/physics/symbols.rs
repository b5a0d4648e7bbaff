//! How the symbols of the equations are numbered: time, state variables, external inputs (set
//! from outside between steps, see [`interaction`](super::interaction)) and time-dependent
//! inputs (trajectory values read by expressions, links and forces).
//!
//! Each kind has a range of its own, whatever the scene's size, so that a symbol keeps its
//! meaning when an edit adds variables or inputs: the equations of the bodies an edit left
//! alone stay valid in the model's pool (see [`Model::update`](super::Model::update)).

use crate::sim::VarId;
use crate::sym::Symbol;
use std::collections::HashMap;

/// Simulated time, `$t`.
pub(crate) const TIME: Symbol = Symbol(0);

/// The first symbol of an external input; state variables lie below it.
const INPUT_BASE: u32 = 1 << 29;
/// The first symbol of a channel; external inputs lie below it.
const CHANNEL_BASE: u32 = 1 << 30;
/// The most state variables (and external inputs) a model may have: each kind's range.
pub(crate) const MAX_SYMBOLS: usize = (INPUT_BASE - 1) as usize;

/// The symbol of state variable `var`.
pub(crate) fn state(var: VarId) -> Symbol {
    Symbol(1 + var.0)
}

/// The symbol of external input `k`.
pub(crate) fn input(k: usize) -> Symbol {
    debug_assert!(k < MAX_SYMBOLS);
    Symbol(INPUT_BASE + k as u32)
}

/// A value of a trajectory at the current time, linearly extrapolated outside its pieces:
/// `component` 0..3 is its value, 3..6 its first and 6..9 its second time derivative, and 9
/// ([`Channel::ACTIVE`]) is 1 while one of its pieces is in effect (on `(start, end]`), else 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Channel {
    pub trajectory: usize,
    pub component: u8,
}

impl Channel {
    pub const VALUE: u8 = 0;
    pub const RATE: u8 = 3;
    pub const ACCELERATION: u8 = 6;
    pub const ACTIVE: u8 = 9;

    /// The channel holding this one's time derivative, if there is one.
    pub fn derivative(self) -> Option<Channel> {
        (self.component < Channel::ACCELERATION).then_some(Channel {
            trajectory: self.trajectory,
            component: self.component + 3,
        })
    }
}

/// What a symbol stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Meaning {
    Time,
    State(VarId),
    /// External input `k`: piecewise constant in time, set between steps.
    Input(usize),
    Channel(usize),
}

/// The numbering of all symbols of one model's equations: time is 0, state variable `v` is
/// `1 + v`, external input `k` is `INPUT_BASE + k`, and channels are numbered from
/// `CHANNEL_BASE` in the order they were first used.
#[derive(Clone, Debug, Default)]
pub(crate) struct SymbolTable {
    channels: Vec<Channel>,
    index: HashMap<Channel, u32>,
}

impl SymbolTable {
    pub fn new() -> SymbolTable {
        SymbolTable::default()
    }

    /// The symbol of `channel`, numbering it on first use.
    pub fn channel(&mut self, channel: Channel) -> Symbol {
        let next = self.channels.len() as u32;
        let k = *self.index.entry(channel).or_insert(next);
        if k == next {
            self.channels.push(channel);
        }
        Symbol(CHANNEL_BASE + k)
    }

    pub fn channels(&self) -> &[Channel] {
        &self.channels
    }

    pub fn meaning(&self, symbol: Symbol) -> Meaning {
        match symbol.0 {
            0 => Meaning::Time,
            s if s < INPUT_BASE => Meaning::State(VarId(s - 1)),
            s if s < CHANNEL_BASE => Meaning::Input((s - INPUT_BASE) as usize),
            s => Meaning::Channel((s - CHANNEL_BASE) as usize),
        }
    }
}
