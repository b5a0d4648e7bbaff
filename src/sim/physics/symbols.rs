//! How the symbols of the equations are numbered: time, state variables, and time-dependent
//! inputs (trajectory values read by expressions, links and forces).

use crate::sim::VarId;
use crate::sym::Symbol;
use std::collections::HashMap;

/// Simulated time, `$t`.
pub(crate) const TIME: Symbol = Symbol(0);

/// The symbol of state variable `var`.
pub(crate) fn state(var: VarId) -> Symbol {
    Symbol(1 + var.0)
}

/// A value of a trajectory at the current time: its position (`component` 0..3) or its time
/// derivative (3..6), linearly extrapolated outside the trajectory's pieces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Channel {
    pub trajectory: usize,
    pub component: u8,
}

impl Channel {
    /// Whether the channel is a derivative (velocity) rather than a position.
    pub fn is_rate(self) -> bool {
        self.component >= 3
    }

    /// The derivative channel of a position channel.
    pub fn rate(self) -> Option<Channel> {
        (!self.is_rate()).then_some(Channel {
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
    Channel(usize),
}

/// The numbering of all symbols of one scene's equations: time is 0, state variable `v` is
/// `1 + v`, and channels follow the state variables in the order they were first used.
#[derive(Clone, Debug, Default)]
pub(crate) struct SymbolTable {
    variables: u32,
    channels: Vec<Channel>,
    index: HashMap<Channel, u32>,
}

impl SymbolTable {
    pub fn new(variables: usize) -> SymbolTable {
        SymbolTable {
            variables: variables as u32,
            ..SymbolTable::default()
        }
    }

    /// The symbol of `channel`, numbering it on first use.
    pub fn channel(&mut self, channel: Channel) -> Symbol {
        let next = self.channels.len() as u32;
        let k = *self.index.entry(channel).or_insert(next);
        if k == next {
            self.channels.push(channel);
        }
        Symbol(1 + self.variables + k)
    }

    pub fn channels(&self) -> &[Channel] {
        &self.channels
    }

    pub fn meaning(&self, symbol: Symbol) -> Meaning {
        match symbol.0 {
            0 => Meaning::Time,
            s if s <= self.variables => Meaning::State(VarId(s - 1)),
            s => Meaning::Channel((s - 1 - self.variables) as usize),
        }
    }
}
