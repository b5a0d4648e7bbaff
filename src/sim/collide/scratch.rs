//! Values per body that one check window works out, kept from window to window and cleared in
//! time proportional to how many were set: a window that checks a few bodies among thousands
//! must not pay for the others.

use crate::sim::memory::refill;

/// At most one value per body; see the module documentation.
#[derive(Debug)]
pub(crate) struct PerBody<T> {
    values: Vec<Option<T>>,
    set: Vec<usize>,
}

impl<T> Default for PerBody<T> {
    fn default() -> Self {
        PerBody {
            values: Vec::new(),
            set: Vec::new(),
        }
    }
}

impl<T> PerBody<T> {
    /// Nothing set, for `bodies` bodies, in the memory of `self` (see [`refill`]).
    pub fn reset(mut self, bodies: usize) -> PerBody<T>
    where
        T: Clone,
    {
        self.set.clear();
        refill(&mut self.values, bodies, None);
        self
    }

    pub fn get(&self, b: usize) -> Option<&T> {
        self.values[b].as_ref()
    }

    pub fn insert(&mut self, b: usize, value: T) {
        if self.values[b].is_none() {
            self.set.push(b);
        }
        self.values[b] = Some(value);
    }

    /// Forgets every value.
    pub fn clear(&mut self) {
        for b in self.set.drain(..) {
            self.values[b] = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::PerBody;

    #[test]
    fn clearing_forgets_what_was_set_and_only_that() {
        let mut values = PerBody::default().reset(4);
        values.insert(1, 'a');
        values.insert(3, 'b');
        values.insert(1, 'c');
        assert_eq!(
            (values.get(0), values.get(1), values.get(3)),
            (None, Some(&'c'), Some(&'b'))
        );
        values.clear();
        assert!((0..4).all(|b| values.get(b).is_none()));
        values.insert(2, 'd');
        assert_eq!(values.get(2), Some(&'d'));
    }
}
