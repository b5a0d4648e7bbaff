//! Keys that stay an element's while it is in the scene, and a table of their places: what
//! the name indexes hold instead of places ([`BodyIndex`](super::body_index::BodyIndex) for
//! the bodies, [`Readers`](super::readers::Readers) for the forces and links). An element
//! added or removed before others then moves the places of the keys after it (a pass over a
//! contiguous list) but no entry of a hash map, which renumbering once cost a cache miss per
//! entry.

/// The place of a key no element holds.
const FREE: u32 = u32::MAX;

/// Elements removed and added beyond which an index makes its list by place again rather
/// than removing and inserting each (a copy of the entries after each move).
pub(super) const FEW_MOVES: usize = 16;

/// By key, its element's place; and the keys no element holds, to take again.
#[derive(Clone, Debug, Default)]
pub(super) struct Keys {
    places: Vec<u32>,
    free: Vec<u32>,
}

impl Keys {
    /// Keys `0..n`, each at its own place.
    pub fn identity(n: usize) -> Keys {
        Keys {
            places: (0..n as u32).collect(),
            free: Vec::new(),
        }
    }

    /// The place of the element holding `key`.
    pub fn place(&self, key: u32) -> u32 {
        self.places[key as usize]
    }

    /// A key for an added element (its place set by [`Keys::set_places`]).
    pub fn take(&mut self) -> u32 {
        self.free.pop().unwrap_or_else(|| {
            self.places.push(FREE);
            (self.places.len() - 1) as u32
        })
    }

    /// Frees the key of a removed element.
    pub fn release(&mut self, key: u32) {
        self.places[key as usize] = FREE;
        self.free.push(key);
    }

    /// Sets the places of the keys `by_place` lists in place order, from place `first` on.
    pub fn set_places(&mut self, by_place: impl Iterator<Item = u32>, first: usize) {
        for (j, key) in by_place.enumerate().skip(first) {
            self.places[key as usize] = j as u32;
        }
    }

    /// How many keys there are, held or free.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.places.len()
    }

    /// How many keys are free.
    #[cfg(test)]
    pub fn free(&self) -> usize {
        self.free.len()
    }
}
