//! The forces and links by the names of the bodies they act on or read, kept across edits so
//! that a [`Model::update`](super::Model::update) finds the elements an edit reached without
//! visiting every element of the scene.
//!
//! A force acts on its body and reads the bodies its `[NAME ATTR]` references name; a link
//! acts on its first body and its second (if it joins two) and reads the bodies its point's
//! expressions name. The name index holds each element by a *key* that stays the element's
//! while it is in the scene, and a table gives each key's place in the text (see
//! [`keys`](super::keys)): an element added or removed before others shifts the per-element
//! lists and the places of the elements after it (two passes over contiguous lists), but no
//! entry of the name index, which renumbering once cost a cache miss per entry (a quarter of
//! adding a body at 10,000 bodies). An update
//! moves the index to the edited scene through the [`SceneDiff`]: the elements removed or
//! changed leave it, the kept ones keep their keys and follow their places in the text, and
//! those added or changed enter it.

use super::keys::{Keys, FEW_MOVES};
use crate::lang::fxhash::FxHashMap;
use crate::scene::model::{Force, ForceValue, Link, LinkTarget, Scene};
use crate::scene::{ChangeKind, ElementKind, SceneDiff};
use crate::sim::memory::with_room;

/// A force or a link, by its place in the scene.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Element {
    Force(u32),
    Link(u32),
}

/// How an element names a body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// The element's load is on the body: its equations are the body's.
    Acts,
    /// The element's expressions read the body's state or mass.
    Reads,
}

/// The bodies one element names, as the index holds them.
#[derive(Clone, Debug, Default)]
struct Named {
    acts: Vec<String>,
    reads: Vec<String>,
}

/// A force or a link by its key (see the module documentation), as the name index holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Key {
    Force(u32),
    Link(u32),
}

/// The forces or the links: per element in scene order its key and the bodies it names, and
/// each key's place.
#[derive(Clone, Debug, Default)]
struct Column {
    elements: Vec<(u32, Named)>,
    /// By key, the element's place in the scene.
    places: Keys,
}

impl Column {
    /// The elements of a scene, keyed by their places; the list made with room for elements
    /// an edit adds ([`with_room`]: held at its length, the first edit adding a force copied
    /// it whole, 0.1 MB at 1,000 bodies, into new memory).
    fn of(named: impl ExactSizeIterator<Item = Named>) -> Column {
        let mut elements = Vec::with_capacity(with_room(named.len()));
        elements.extend(named.enumerate().map(|(i, n)| (i as u32, n)));
        Column {
            places: Keys::identity(elements.len()),
            elements,
        }
    }

    /// Moves the elements to their places after an edit that removed the elements at
    /// `removed` (places before it; their keys freed, they have left the name index) and
    /// added those at `added` (places after it; each takes a key, its names empty until it
    /// enters), both sorted; `map` gives each element's place after the edit and `len` is the
    /// number after it. A few moves are made in place (each shifting the elements after it, a
    /// copy of a few words per element), and the places of the keys from the first move on
    /// are set again.
    fn follow(
        &mut self,
        map: &[Option<usize>],
        (removed, added): (&[usize], &[usize]),
        len: usize,
    ) {
        for &i in removed {
            self.places.release(self.elements[i].0);
        }
        let adds_up = self.elements.len() + added.len() == len + removed.len();
        let first = if adds_up && removed.len() + added.len() <= FEW_MOVES {
            for &i in removed.iter().rev() {
                self.elements.remove(i);
            }
            // In ascending order each added element's place is already its place after the
            // edit.
            for &j in added {
                let key = self.places.take();
                self.elements.insert(j, (key, Named::default()));
            }
            let first_removed = removed.first().copied().unwrap_or(len);
            first_removed.min(added.first().copied().unwrap_or(len))
        } else {
            let mut after: Vec<Option<(u32, Named)>> = vec![None; len];
            for (element, &to) in std::mem::take(&mut self.elements).into_iter().zip(map) {
                if let Some(j) = to {
                    after[j] = Some(element);
                }
            }
            self.elements = Vec::with_capacity(with_room(len));
            for element in after {
                let element = element.unwrap_or_else(|| (self.places.take(), Named::default()));
                self.elements.push(element);
            }
            0
        };
        let keys = self.elements.iter().map(|&(key, _)| key);
        self.places.set_places(keys, first);
    }
}

/// The scene's forces and links by the body names they act on or read.
#[derive(Clone, Debug, Default)]
pub(crate) struct Readers {
    forces: Column,
    links: Column,
    by_name: FxHashMap<String, Vec<(Key, Role)>>,
}

impl Readers {
    /// The index of every force and link of `scene`.
    pub fn of(scene: &Scene) -> Readers {
        let mut readers = Readers {
            forces: Column::of(scene.forces.iter().map(force_names)),
            links: Column::of(scene.links.iter().map(link_names)),
            by_name: FxHashMap::default(),
        };
        for i in 0..readers.forces.elements.len() {
            readers.enter(Element::Force(i as u32));
        }
        for i in 0..readers.links.elements.len() {
            readers.enter(Element::Link(i as u32));
        }
        readers
    }

    /// Moves the index from the scene before an edit to `scene`, the edit `changes` describes;
    /// `forces` and `links` map each element before the edit to its place after it (`None`
    /// when every element of the kind kept its place).
    pub fn follow(
        &mut self,
        scene: &Scene,
        changes: &SceneDiff,
        forces: Option<&[Option<usize>]>,
        links: Option<&[Option<usize>]>,
    ) {
        let gone = |c: &&_| matches!(c, ChangeKind::Removed | ChangeKind::Changed(_));
        let element = |kind: ElementKind, i: usize| match kind {
            ElementKind::Force => Some(Element::Force(i as u32)),
            ElementKind::Link => Some(Element::Link(i as u32)),
            _ => None,
        };
        for c in &changes.changes {
            if let (Some(old), true) = (c.old, gone(&&c.change)) {
                if let Some(e) = element(c.kind, old) {
                    self.leave(e);
                }
            }
        }
        if let Some(map) = forces {
            let (removed, added) = moves(changes, ElementKind::Force);
            let len = scene.forces.len();
            self.forces.follow(map, (&removed, &added), len);
        }
        if let Some(map) = links {
            let (removed, added) = moves(changes, ElementKind::Link);
            let len = scene.links.len();
            self.links.follow(map, (&removed, &added), len);
        }
        for c in &changes.changes {
            let (ChangeKind::Added | ChangeKind::Changed(_), Some(new)) = (c.change, c.new) else {
                continue;
            };
            let named = match c.kind {
                ElementKind::Force => force_names(&scene.forces[new]),
                ElementKind::Link => link_names(&scene.links[new]),
                _ => continue,
            };
            let e = element(c.kind, new).expect("a force or a link");
            self.slot_mut(e).1 = named;
            self.enter(e);
        }
    }

    /// The elements that name body `name` (by their places in the scene), and how.
    pub fn of_body<'a>(&'a self, name: &str) -> impl Iterator<Item = (Element, Role)> + 'a {
        let entries = self.by_name.get(name).map_or(&[][..], Vec::as_slice);
        entries.iter().map(|&(key, role)| {
            let element = match key {
                Key::Force(k) => Element::Force(self.forces.places.place(k)),
                Key::Link(k) => Element::Link(self.links.places.place(k)),
            };
            (element, role)
        })
    }

    /// The key and the names of element `e`.
    fn slot_mut(&mut self, e: Element) -> &mut (u32, Named) {
        match e {
            Element::Force(i) => &mut self.forces.elements[i as usize],
            Element::Link(i) => &mut self.links.elements[i as usize],
        }
    }

    /// Lists element `e` under the names it holds.
    fn enter(&mut self, e: Element) {
        let (key, Named { acts, reads }) = self.slot_mut(e).clone();
        let key = keyed(e, key);
        let roles = acts
            .into_iter()
            .map(|n| (n, Role::Acts))
            .chain(reads.into_iter().map(|n| (n, Role::Reads)));
        for (name, role) in roles {
            let entries = self.by_name.entry(name).or_default();
            if !entries.contains(&(key, role)) {
                entries.push((key, role));
            }
        }
    }

    /// Takes element `e` off the names it holds (it keeps its key).
    fn leave(&mut self, e: Element) {
        let (key, named) = self.slot_mut(e);
        let (key, named) = (keyed(e, *key), std::mem::take(named));
        for name in named.acts.iter().chain(&named.reads) {
            if let Some(entries) = self.by_name.get_mut(name) {
                entries.retain(|&(x, _)| x != key);
                if entries.is_empty() {
                    self.by_name.remove(name);
                }
            }
        }
    }
}

/// The key `key` of an element of `e`'s kind.
fn keyed(e: Element, key: u32) -> Key {
    match e {
        Element::Force(_) => Key::Force(key),
        Element::Link(_) => Key::Link(key),
    }
}

/// Elements removed (their places before the edit) and added (their places after it) of
/// `kind` (bodies, forces, links), each list sorted.
pub(super) fn moves(changes: &SceneDiff, kind: ElementKind) -> (Vec<usize>, Vec<usize>) {
    let (mut removed, mut added) = (Vec::new(), Vec::new());
    for c in changes.changes.iter().filter(|c| c.kind == kind) {
        match (c.change, c.old, c.new) {
            (ChangeKind::Removed, Some(i), _) => removed.push(i),
            (ChangeKind::Added, _, Some(j)) => added.push(j),
            _ => {}
        }
    }
    removed.sort_unstable();
    added.sort_unstable();
    (removed, added)
}

fn force_names(force: &Force) -> Named {
    let reads = match &force.value {
        ForceValue::Components(v) => v
            .components()
            .iter()
            .flat_map(|c| c.references())
            .map(|r| r.name)
            .collect(),
        _ => Vec::new(),
    };
    Named {
        acts: vec![force.body.clone()],
        reads,
    }
}

fn link_names(link: &Link) -> Named {
    let mut acts = vec![link.body1.clone()];
    let reads = match &link.target {
        LinkTarget::Body { body2, .. } => {
            acts.push(body2.clone());
            Vec::new()
        }
        LinkTarget::Point(v) => v
            .components()
            .iter()
            .flat_map(|c| c.references())
            .map(|r| r.name)
            .collect(),
        LinkTarget::Trajectory(_) => Vec::new(),
    };
    Named { acts, reads }
}

#[cfg(test)]
mod tests {
    use super::super::update::places;
    use super::*;
    use crate::scene::{diff, evaluate};

    /// `n` balls, ball `i` pushed by a force that reads ball `i + 1` (unless `without`
    /// names it) and linked to ball `i + 1` (or, for the last, to a point).
    fn text(n: usize, without: &[usize], at_top: bool) -> String {
        let mut t = String::from("shape_set ball desc {sphere 0.2}\n");
        for i in 0..n {
            t.push_str(&format!(
                "body b{i} shape ball init_pos {{{} 0 0}}\n",
                3 * i
            ));
        }
        if at_top {
            t.push_str("force body b3 y {[b0 x] * 2}\n");
        }
        for i in 0..n {
            let next = (i + 1) % n;
            if !without.contains(&i) {
                t.push_str(&format!("force body b{i} x {{[b{next} x] - [b{i} x]}}\n"));
            }
            if i + 1 < n {
                t.push_str(&format!("link body1 b{i} body2 b{next} tightness 5\n"));
            } else {
                t.push_str(&format!(
                    "link body1 b{i} point {{{{[b0 x]}} 1 0}} tightness 5\n"
                ));
            }
        }
        t
    }

    fn named(readers: &Readers, body: &str) -> Vec<(Element, bool)> {
        let mut list: Vec<_> = readers
            .of_body(body)
            .map(|(e, role)| (e, role == Role::Acts))
            .collect();
        list.sort_unstable();
        list
    }

    #[test]
    fn keys_follow_edits_few_and_many_as_a_fresh_index_finds_the_elements() {
        let n = 24;
        let many: Vec<usize> = (0..20).collect();
        let texts = [
            text(n, &[], false),
            text(n, &[5], false),
            text(n, &[5], true),
            text(n, &many, true),
            text(n, &[], false),
            text(n, &[0, 23], true),
            text(n, &[], false),
        ];
        let scene = |t: &str| evaluate(t).unwrap_or_else(|e| panic!("{}", e.diagnostic("t")));
        let mut old = scene(&texts[0]);
        let mut readers = Readers::of(&old);
        for t in &texts[1..] {
            let new = scene(t);
            let changes = diff(&old, &new);
            let forces = places(
                &changes,
                ElementKind::Force,
                old.forces.len(),
                new.forces.len(),
            );
            let links = places(
                &changes,
                ElementKind::Link,
                old.links.len(),
                new.links.len(),
            );
            readers.follow(&new, &changes, forces.as_deref(), links.as_deref());
            let fresh = Readers::of(&new);
            for i in 0..n {
                let body = format!("b{i}");
                assert_eq!(named(&readers, &body), named(&fresh, &body), "{body}: {t}");
            }
            let keys = readers.forces.elements.len() + readers.forces.places.free();
            assert_eq!(keys, readers.forces.places.len(), "every key held or free");
            old = new;
        }
    }
}
