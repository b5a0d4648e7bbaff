//! Interned sets of symbols: what each node depends on.
//!
//! The simulator builds its dependency graph from these sets and differentiation skips every
//! subexpression that does not mention the variable, so the query must be immediate. Each node
//! records the id of its set when it is created (the union of its children's sets). Nodes vastly
//! outnumber distinct sets, so sets are stored once and unions are memoized.

use super::hash::FastMap;
use super::pool::Symbol;

/// Index of an interned set; 0 is the empty set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct SetId(u32);

impl SetId {
    pub(crate) const EMPTY: SetId = SetId(0);
}

pub(crate) struct SymbolSets {
    /// Each set sorted ascending, without repeats.
    sets: Vec<Box<[Symbol]>>,
    index: FastMap<Box<[Symbol]>, SetId>,
    unions: FastMap<(SetId, SetId), SetId>,
    scratch: Vec<Symbol>,
}

impl SymbolSets {
    pub(crate) fn new() -> SymbolSets {
        let mut sets = SymbolSets {
            sets: Vec::new(),
            index: FastMap::default(),
            unions: FastMap::default(),
            scratch: Vec::new(),
        };
        let empty = sets.intern(&[]);
        debug_assert_eq!(empty, SetId::EMPTY);
        sets
    }

    pub(crate) fn get(&self, id: SetId) -> &[Symbol] {
        &self.sets[id.0 as usize]
    }

    pub(crate) fn singleton(&mut self, symbol: Symbol) -> SetId {
        self.intern(&[symbol])
    }

    pub(crate) fn union(&mut self, a: SetId, b: SetId) -> SetId {
        if a == b || b == SetId::EMPTY {
            return a;
        }
        if a == SetId::EMPTY {
            return b;
        }
        let key = if a.0 < b.0 { (a, b) } else { (b, a) };
        if let Some(&id) = self.unions.get(&key) {
            return id;
        }
        let mut merged = std::mem::take(&mut self.scratch);
        merged.clear();
        let (x, y) = (self.get(a), self.get(b));
        let (mut i, mut j) = (0, 0);
        while i < x.len() && j < y.len() {
            match x[i].cmp(&y[j]) {
                std::cmp::Ordering::Less => {
                    merged.push(x[i]);
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    merged.push(y[j]);
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    merged.push(x[i]);
                    i += 1;
                    j += 1;
                }
            }
        }
        merged.extend_from_slice(&x[i..]);
        merged.extend_from_slice(&y[j..]);
        let id = self.intern(&merged);
        self.scratch = merged;
        self.unions.insert(key, id);
        id
    }

    fn intern(&mut self, symbols: &[Symbol]) -> SetId {
        if let Some(&id) = self.index.get(symbols) {
            return id;
        }
        let id = SetId(u32::try_from(self.sets.len()).expect("fewer than 2^32 symbol sets"));
        self.sets.push(symbols.into());
        self.index.insert(symbols.into(), id);
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unions_are_sorted_deduplicated_and_shared() {
        let mut sets = SymbolSets::new();
        let a = sets.singleton(Symbol(3));
        let b = sets.singleton(Symbol(1));
        let ab = sets.union(a, b);
        assert_eq!(sets.get(ab), &[Symbol(1), Symbol(3)]);
        assert_eq!(sets.union(b, a), ab);
        assert_eq!(sets.union(ab, a), ab);
        assert_eq!(sets.union(SetId::EMPTY, ab), ab);
        let c = sets.singleton(Symbol(2));
        let abc = sets.union(ab, c);
        assert_eq!(sets.get(abc), &[Symbol(1), Symbol(2), Symbol(3)]);
        assert_eq!(sets.singleton(Symbol(3)), a);
    }
}
