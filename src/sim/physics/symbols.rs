//! How the symbols of the equations are numbered: time, state variables, external inputs (set
//! from outside between steps, see [`interaction`](super::interaction)) and time-dependent
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

/// The numbering of all symbols of one scene's equations: time is 0, state variable `v` is
/// `1 + v`, external inputs follow the state variables, and channels follow the inputs in the
/// order they were first used.
#[derive(Clone, Debug, Default)]
pub(crate) struct SymbolTable {
    variables: u32,
    inputs: u32,
    channels: Vec<Channel>,
    index: HashMap<Channel, u32>,
}

impl SymbolTable {
    pub fn new(variables: usize, inputs: usize) -> SymbolTable {
        SymbolTable {
            variables: variables as u32,
            inputs: inputs as u32,
            ..SymbolTable::default()
        }
    }

    /// The symbol of external input `k` (below the count given to [`SymbolTable::new`]).
    pub fn input(&self, k: usize) -> Symbol {
        debug_assert!(k < self.inputs as usize);
        Symbol(1 + self.variables + k as u32)
    }

    /// The symbol of `channel`, numbering it on first use.
    pub fn channel(&mut self, channel: Channel) -> Symbol {
        let next = self.channels.len() as u32;
        let k = *self.index.entry(channel).or_insert(next);
        if k == next {
            self.channels.push(channel);
        }
        Symbol(1 + self.variables + self.inputs + k)
    }

    pub fn channels(&self) -> &[Channel] {
        &self.channels
    }

    pub fn meaning(&self, symbol: Symbol) -> Meaning {
        match symbol.0 {
            0 => Meaning::Time,
            s if s <= self.variables => Meaning::State(VarId(s - 1)),
            s if s <= self.variables + self.inputs => {
                Meaning::Input((s - 1 - self.variables) as usize)
            }
            s => Meaning::Channel((s - 1 - self.variables - self.inputs) as usize),
        }
    }
}
