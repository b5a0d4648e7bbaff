//! A model's bodies in scene order, held in shared chunks of up to [`2 × CHUNK`](CHUNK)
//! bodies (each body shared on its own too), so that a [`Model::update`](super::Model::update)
//! that adds, deletes or changes a few bodies copies only the chunks holding them rather than
//! every body (at 10,000 bodies, a reference count per body and about 4 MB), and a
//! [`SceneMotion`](super::SceneMotion) reading an earlier motion keeps the bodies it had.
//!
//! Chunks vary in length: a body added or deleted changes the length of its chunk alone, and
//! the chunks after it are shared as they are (with fixed-length chunks every body after the
//! edit would move to another chunk). A table gives each body's chunk and place in it; it is
//! made again after such an edit, a pass over a list of pairs rather than over the bodies.

use super::body::BodyModel;
use std::ops::Index;
use std::sync::Arc;

/// Bodies per chunk when the chunks are made whole; an edit lets a chunk grow to twice this
/// before it is split.
const CHUNK: usize = 64;

/// The bodies of a model, in scene order; cloning it shares them.
#[derive(Clone, Debug, Default)]
pub struct Bodies {
    chunks: Vec<Arc<Vec<Arc<BodyModel>>>>,
    /// For each body, its chunk and its place in the chunk.
    at: Arc<Vec<(u32, u32)>>,
}

impl Bodies {
    pub fn len(&self) -> usize {
        self.at.len()
    }

    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }

    pub fn get(&self, body: usize) -> Option<&BodyModel> {
        let &(c, k) = self.at.get(body)?;
        Some(&self.chunks[c as usize][k as usize])
    }

    /// The bodies in scene order.
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            bodies: self,
            next: 0,
        }
    }

    /// Body `body`, to share with another list.
    pub(crate) fn shared(&self, body: usize) -> Arc<BodyModel> {
        let (c, k) = self.at[body];
        Arc::clone(&self.chunks[c as usize][k as usize])
    }

    /// Body `body`, to change (copied first if it is shared).
    pub(crate) fn get_mut(&mut self, body: usize) -> &mut BodyModel {
        let (c, k) = self.at[body];
        let chunk = Arc::make_mut(&mut self.chunks[c as usize]);
        Arc::make_mut(&mut chunk[k as usize])
    }

    /// The bodies after an edit that `removed` some (their places before it, ascending),
    /// `added` some (their places after it, ascending, each made by `make`) and kept the
    /// others in order. Only the chunks that lose or gain a body are copied; the others are
    /// shared as they are.
    pub(crate) fn spliced(
        &self,
        removed: &[usize],
        added: &[usize],
        mut make: impl FnMut(usize) -> Result<BodyModel, super::PhysicsError>,
    ) -> Result<Bodies, super::PhysicsError> {
        let mut chunks: Vec<Arc<Vec<Arc<BodyModel>>>> = Vec::with_capacity(self.chunks.len() + 1);
        let mut removed = removed.iter().copied().peekable();
        let mut added = added.iter().copied().peekable();
        // The old place of the chunk's first body, the new place of the next body kept or
        // added.
        let (mut start, mut j) = (0, 0);
        for chunk in &self.chunks {
            let end = start + chunk.len();
            let loses = removed.peek().is_some_and(|&o| o < end);
            let gains = added.peek().is_some_and(|&a| a < j + chunk.len());
            if !loses && !gains {
                chunks.push(Arc::clone(chunk));
                (start, j) = (end, j + chunk.len());
                continue;
            }
            let mut list = Vec::with_capacity(chunk.len() + 1);
            for (k, body) in chunk.iter().enumerate() {
                while added.next_if_eq(&j).is_some() {
                    list.push(Arc::new(make(j)?));
                    j += 1;
                }
                if removed.next_if_eq(&(start + k)).is_some() {
                    continue;
                }
                list.push(Arc::clone(body));
                j += 1;
            }
            push_split(&mut chunks, list);
            start = end;
        }
        // Bodies added after the last one kept: into the last chunk while it has room.
        let mut rest = Vec::new();
        for a in added {
            debug_assert_eq!(a, j, "added places follow the kept bodies");
            rest.push(Arc::new(make(a)?));
            j += 1;
        }
        if !rest.is_empty() {
            match chunks.last_mut() {
                Some(last) if last.len() + rest.len() <= 2 * CHUNK => {
                    Arc::make_mut(last).append(&mut rest)
                }
                _ => push_split(&mut chunks, rest),
            }
        }
        debug_assert!(removed.next().is_none(), "removed places are in the list");
        let bodies = Bodies::of_chunks(chunks);
        // Edits that leave many small chunks: made whole again (a pass over the bodies).
        if bodies.chunks.len() > 2 * bodies.len().div_ceil(CHUNK) + 2 {
            return Ok((0..bodies.len()).map(|b| bodies.shared(b)).collect());
        }
        Ok(bodies)
    }

    /// Puts `model` in place of body `body`.
    pub(crate) fn set(&mut self, body: usize, model: BodyModel) {
        let (c, k) = self.at[body];
        Arc::make_mut(&mut self.chunks[c as usize])[k as usize] = Arc::new(model);
    }

    /// The bodies of `chunks` (none empty), in turn.
    fn of_chunks(chunks: Vec<Arc<Vec<Arc<BodyModel>>>>) -> Bodies {
        let mut at = Vec::with_capacity(chunks.iter().map(|c| c.len()).sum());
        for (c, chunk) in chunks.iter().enumerate() {
            at.extend((0..chunk.len()).map(|k| (c as u32, k as u32)));
        }
        Bodies {
            chunks,
            at: Arc::new(at),
        }
    }
}

/// Pushes `list` onto `chunks` as chunks of at most twice [`CHUNK`] bodies (none if it is
/// empty).
fn push_split(chunks: &mut Vec<Arc<Vec<Arc<BodyModel>>>>, list: Vec<Arc<BodyModel>>) {
    if list.len() <= 2 * CHUNK {
        if !list.is_empty() {
            chunks.push(Arc::new(list));
        }
        return;
    }
    let mut list = list.into_iter().peekable();
    while list.peek().is_some() {
        chunks.push(Arc::new(list.by_ref().take(CHUNK).collect()));
    }
}

/// The iterator of [`Bodies::iter`].
#[derive(Clone)]
pub struct Iter<'a> {
    bodies: &'a Bodies,
    next: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a BodyModel;

    fn next(&mut self) -> Option<&'a BodyModel> {
        let body = self.bodies.get(self.next)?;
        self.next += 1;
        Some(body)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.bodies.len() - self.next;
        (left, Some(left))
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl Index<usize> for Bodies {
    type Output = BodyModel;

    fn index(&self, body: usize) -> &BodyModel {
        let Some(&(c, k)) = self.at.get(body) else {
            panic!("body {body} of {}", self.len());
        };
        &self.chunks[c as usize][k as usize]
    }
}

impl<'a> IntoIterator for &'a Bodies {
    type Item = &'a BodyModel;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl From<Vec<BodyModel>> for Bodies {
    fn from(bodies: Vec<BodyModel>) -> Bodies {
        bodies.into_iter().map(Arc::new).collect()
    }
}

impl FromIterator<Arc<BodyModel>> for Bodies {
    fn from_iter<I: IntoIterator<Item = Arc<BodyModel>>>(bodies: I) -> Bodies {
        let mut chunks: Vec<Arc<Vec<Arc<BodyModel>>>> = Vec::new();
        let mut bodies = bodies.into_iter().peekable();
        while bodies.peek().is_some() {
            chunks.push(Arc::new(bodies.by_ref().take(CHUNK).collect()));
        }
        Bodies::of_chunks(chunks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::physics::body::InitialState;
    use nalgebra::{Matrix3, UnitQuaternion, Vector3};

    fn body(name: String) -> BodyModel {
        BodyModel {
            name,
            mass: 1.0,
            inertia: Matrix3::identity(),
            inverse_inertia: Matrix3::identity(),
            center: Vector3::zeros(),
            vars: None,
            initial: InitialState {
                position: Vector3::zeros(),
                rotation: UnitQuaternion::identity(),
                velocity: Vector3::zeros(),
                angular_velocity: Vector3::zeros(),
            },
            free_spin: false,
        }
    }

    fn names(bodies: &Bodies) -> Vec<String> {
        bodies.iter().map(|b| b.name.clone()).collect()
    }

    /// Edits that add and remove bodies at the start, in the middle, at chunk boundaries and
    /// at the end, one after another: the list holds the expected names in order, every body
    /// is found by its place, the chunks no edit reached are shared, and the chunks stay
    /// within bounds.
    #[test]
    fn splicing_keeps_the_order_and_shares_the_chunks_no_edit_reached() {
        let mut expected: Vec<String> = (0..300).map(|i| format!("b{i}")).collect();
        let mut bodies: Bodies = expected.iter().cloned().map(body).map(Arc::new).collect();
        let mut made = 0;
        let edits: [(&[usize], &[usize]); 9] = [
            (&[], &[150]),
            (&[0], &[]),
            (&[], &[0, 1, 2]),
            (&[63, 64, 65], &[64]),
            (&[], &[301]),
            (&[5, 200], &[5, 100, 250]),
            (&[], &(10..200).collect::<Vec<_>>()),
            (&(0..400).step_by(2).collect::<Vec<_>>(), &[]),
            (&(0..250).collect::<Vec<_>>(), &[0]),
        ];
        for (removed, added) in edits {
            for &o in removed.iter().rev() {
                expected.remove(o);
            }
            for &j in added {
                expected.insert(j, format!("new{made}"));
                made += 1;
            }
            let before = bodies.clone();
            let mut k = made - added.len();
            bodies = bodies
                .spliced(removed, added, |j| {
                    assert!(added.contains(&j));
                    k += 1;
                    Ok(body(format!("new{}", k - 1)))
                })
                .unwrap();
            assert_eq!(names(&bodies), expected, "{removed:?} {added:?}");
            for (j, name) in expected.iter().enumerate() {
                assert_eq!(&bodies[j].name, name);
                assert_eq!(&bodies.shared(j).name, name);
            }
            assert!(bodies
                .chunks
                .iter()
                .all(|c| !c.is_empty() && c.len() <= 2 * CHUNK));
            // The first chunk is shared unless the edit reached it.
            let first = removed.iter().chain(added).min().copied();
            if first.is_none_or(|f| f >= before.chunks[0].len()) && !before.is_empty() {
                assert!(Arc::ptr_eq(&before.chunks[0], &bodies.chunks[0]));
            }
        }
    }

    /// One body added in the middle of 10,000 copies one chunk: the others are shared.
    #[test]
    fn a_body_added_copies_one_chunk() {
        let bodies: Bodies = (0..10_000)
            .map(|i| Arc::new(body(format!("b{i}"))))
            .collect();
        let after = bodies
            .spliced(&[], &[5_000], |_| Ok(body("new".into())))
            .unwrap();
        assert_eq!(after.len(), 10_001);
        assert_eq!(after[5_000].name, "new");
        assert_eq!(after[5_001].name, "b5000");
        let shared = (after.chunks.iter())
            .filter(|c| bodies.chunks.iter().any(|o| Arc::ptr_eq(c, o)))
            .count();
        assert_eq!(shared, bodies.chunks.len() - 1);
    }
}
