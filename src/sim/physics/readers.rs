//! The forces and links by the names of the bodies they act on or read, kept across edits so
//! that a [`Model::update`](super::Model::update) finds the elements an edit reached without
//! visiting every element of the scene.
//!
//! A force acts on its body and reads the bodies its `[NAME ATTR]` references name; a link
//! acts on its first body and its second (if it joins two) and reads the bodies its point's
//! expressions name. An update moves the index to the edited scene through the
//! [`SceneDiff`]: the elements removed or changed leave it, the kept ones follow their
//! places in the text, and those added or changed enter it; a scene whose elements kept
//! their places costs only the changed elements.

use crate::lang::fxhash::FxHashMap;
use crate::scene::model::{Force, ForceValue, Link, LinkTarget, Scene};
use crate::scene::{ChangeKind, ElementKind, SceneDiff};

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

/// The scene's forces and links by the body names they act on or read.
#[derive(Clone, Debug, Default)]
pub(crate) struct Readers {
    /// Per force, in scene order, the bodies it names.
    forces: Vec<Named>,
    /// Per link, in scene order, the bodies it names.
    links: Vec<Named>,
    by_name: FxHashMap<String, Vec<(Element, Role)>>,
}

impl Readers {
    /// The index of every force and link of `scene`.
    pub fn of(scene: &Scene) -> Readers {
        let mut readers = Readers {
            forces: scene.forces.iter().map(force_names).collect(),
            links: scene.links.iter().map(link_names).collect(),
            by_name: FxHashMap::default(),
        };
        for i in 0..readers.forces.len() {
            readers.enter(Element::Force(i as u32));
        }
        for i in 0..readers.links.len() {
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
        if forces.is_some() || links.is_some() {
            for entries in self.by_name.values_mut() {
                for (e, _) in entries.iter_mut() {
                    *e = match *e {
                        Element::Force(i) => Element::Force(place(forces, i)),
                        Element::Link(i) => Element::Link(place(links, i)),
                    };
                }
            }
        }
        if let Some(map) = forces {
            let (removed, added) = moves(changes, ElementKind::Force);
            move_to(
                &mut self.forces,
                map,
                (&removed, &added),
                scene.forces.len(),
            );
        }
        if let Some(map) = links {
            let (removed, added) = moves(changes, ElementKind::Link);
            move_to(&mut self.links, map, (&removed, &added), scene.links.len());
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
            *self.named_mut(e) = named;
            self.enter(e);
        }
    }

    /// The elements that name body `name`, and how.
    pub fn of_body(&self, name: &str) -> &[(Element, Role)] {
        self.by_name.get(name).map_or(&[], Vec::as_slice)
    }

    fn named(&self, e: Element) -> &Named {
        match e {
            Element::Force(i) => &self.forces[i as usize],
            Element::Link(i) => &self.links[i as usize],
        }
    }

    fn named_mut(&mut self, e: Element) -> &mut Named {
        match e {
            Element::Force(i) => &mut self.forces[i as usize],
            Element::Link(i) => &mut self.links[i as usize],
        }
    }

    /// Lists element `e` under the names it holds.
    fn enter(&mut self, e: Element) {
        let Named { acts, reads } = self.named(e).clone();
        let roles = acts
            .into_iter()
            .map(|n| (n, Role::Acts))
            .chain(reads.into_iter().map(|n| (n, Role::Reads)));
        for (name, role) in roles {
            let entries = self.by_name.entry(name).or_default();
            if !entries.contains(&(e, role)) {
                entries.push((e, role));
            }
        }
    }

    /// Takes element `e` off the names it holds.
    fn leave(&mut self, e: Element) {
        let named = std::mem::take(self.named_mut(e));
        for name in named.acts.iter().chain(&named.reads) {
            if let Some(entries) = self.by_name.get_mut(name) {
                entries.retain(|&(x, _)| x != e);
                if entries.is_empty() {
                    self.by_name.remove(name);
                }
            }
        }
    }
}

/// Where the element at `i` before an edit is after it (it was kept: a removed element has
/// left the index before the places are moved).
fn place(map: Option<&[Option<usize>]>, i: u32) -> u32 {
    match map {
        None => i,
        Some(map) => map[i as usize].expect("a kept element has a place after the edit") as u32,
    }
}

/// Elements removed (their places before the edit) and added (their places after it) of
/// `kind`, each list sorted.
fn moves(changes: &SceneDiff, kind: ElementKind) -> (Vec<usize>, Vec<usize>) {
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

/// Elements removed and added beyond which [`move_to`] makes a new list rather than moving
/// the elements after each one.
const FEW_MOVES: usize = 16;

/// Moves the per-element lists to their places after an edit (new places empty until the
/// added elements enter): `map` gives each element's place, `removed` and `added` (sorted)
/// the places that went and came. A few moves are made in place, each shifting the elements
/// after it (a copy of a pointer's worth per element), rather than moving every list.
fn move_to(
    list: &mut Vec<Named>,
    map: &[Option<usize>],
    (removed, added): (&[usize], &[usize]),
    len: usize,
) {
    let adds_up = list.len() + added.len() == len + removed.len();
    if adds_up && removed.len() + added.len() <= FEW_MOVES {
        for &i in removed.iter().rev() {
            list.remove(i);
        }
        // In ascending order each added element's place is already its place after the edit.
        for &j in added {
            list.insert(j, Named::default());
        }
        return;
    }
    let mut after = vec![Named::default(); len];
    for (named, &to) in std::mem::take(list).into_iter().zip(map) {
        if let Some(j) = to {
            after[j] = named;
        }
    }
    *list = after;
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
