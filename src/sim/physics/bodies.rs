//! A model's bodies in scene order, shared in chunks of [`CHUNK`] bodies and each body on its
//! own, so that a [`Model::update`](super::Model::update) that changes a few bodies copies the
//! chunks holding them (and a pointer per chunk) rather than every body (at 10,000 bodies,
//! about 4 MB and a name per body), and a [`SceneMotion`](super::SceneMotion) reading an
//! earlier motion keeps the bodies it had.

use super::body::BodyModel;
use std::ops::Index;
use std::sync::Arc;

/// Bodies per shared chunk: changing one body copies its chunk's pointers.
const CHUNK: usize = 64;

/// The bodies of a model, in scene order; cloning it shares them.
#[derive(Clone, Debug, Default)]
pub struct Bodies {
    chunks: Vec<Arc<Vec<Arc<BodyModel>>>>,
    len: usize,
}

impl Bodies {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn get(&self, body: usize) -> Option<&BodyModel> {
        (body < self.len).then(|| &*self.chunks[body / CHUNK][body % CHUNK])
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
        Arc::clone(&self.chunks[body / CHUNK][body % CHUNK])
    }

    /// Body `body`, to change (copied first if it is shared).
    pub(crate) fn get_mut(&mut self, body: usize) -> &mut BodyModel {
        let chunk = Arc::make_mut(&mut self.chunks[body / CHUNK]);
        Arc::make_mut(&mut chunk[body % CHUNK])
    }

    /// The bodies after an edit that removed and added some and kept the others in order:
    /// for each new place, `Some(old)` to share body `old`, `None` for `added` to make it.
    /// The chunks before the first new place that differs are shared as they are.
    pub(crate) fn spliced(
        &self,
        places: &[Option<usize>],
        mut added: impl FnMut(usize) -> Result<BodyModel, super::PhysicsError>,
    ) -> Result<Bodies, super::PhysicsError> {
        let same = places
            .iter()
            .enumerate()
            .take_while(|&(j, &o)| o == Some(j))
            .count();
        let kept = same / CHUNK;
        let mut bodies: Vec<Arc<BodyModel>> = Vec::with_capacity(places.len() - kept * CHUNK);
        for (j, &o) in places.iter().enumerate().skip(kept * CHUNK) {
            bodies.push(match o {
                Some(o) => self.shared(o),
                None => Arc::new(added(j)?),
            });
        }
        let mut rest: Bodies = bodies.into_iter().collect();
        let mut chunks = self.chunks[..kept].to_vec();
        chunks.append(&mut rest.chunks);
        Ok(Bodies {
            chunks,
            len: places.len(),
        })
    }

    /// Puts `model` in place of body `body`.
    pub(crate) fn set(&mut self, body: usize, model: BodyModel) {
        Arc::make_mut(&mut self.chunks[body / CHUNK])[body % CHUNK] = Arc::new(model);
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
        let left = self.bodies.len - self.next;
        (left, Some(left))
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl Index<usize> for Bodies {
    type Output = BodyModel;

    fn index(&self, body: usize) -> &BodyModel {
        assert!(body < self.len, "body {body} of {}", self.len);
        &self.chunks[body / CHUNK][body % CHUNK]
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
        let mut chunk = Vec::with_capacity(CHUNK);
        let mut len = 0;
        for body in bodies {
            chunk.push(body);
            len += 1;
            if chunk.len() == CHUNK {
                chunks.push(Arc::new(std::mem::replace(
                    &mut chunk,
                    Vec::with_capacity(CHUNK),
                )));
            }
        }
        if !chunk.is_empty() {
            chunks.push(Arc::new(chunk));
        }
        Bodies { chunks, len }
    }
}
