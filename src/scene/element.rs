//! Elements as one kind of thing: what kind each is, how to name it, where it was written.
//!
//! The scene model keeps each element kind in its own list; views, the diff and graphical edits
//! often need "any element", which [`ElementRef`] provides (a kind and an index into that kind's
//! list of one particular [`Scene`]).

use super::model::{Origin, Scene};
use crate::lang::span::Span;
use std::fmt;

/// The kinds of element a scene text defines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ElementKind {
    Shape,
    Body,
    Force,
    Link,
    Trajectory,
    Light,
    Camera,
    Simulator,
}

impl ElementKind {
    /// The word the scene language (and `asgard check --json`) uses for this kind.
    pub fn word(self) -> &'static str {
        match self {
            ElementKind::Shape => "shape_set",
            ElementKind::Body => "body",
            ElementKind::Force => "force",
            ElementKind::Link => "link",
            ElementKind::Trajectory => "trajectory",
            ElementKind::Light => "lightsource",
            ElementKind::Camera => "camera",
            ElementKind::Simulator => "simulator",
        }
    }
}

impl fmt::Display for ElementKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// One element of a particular scene: its kind and its index in that kind's list (0 for the
/// camera and the simulator).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ElementRef {
    pub kind: ElementKind,
    pub index: usize,
}

impl ElementRef {
    pub fn new(kind: ElementKind, index: usize) -> ElementRef {
        ElementRef { kind, index }
    }
}

impl Scene {
    /// Every element in kind order, then in the order the text created them.
    pub fn elements(&self) -> impl Iterator<Item = ElementRef> + '_ {
        let counts = [
            (ElementKind::Shape, self.shapes.len()),
            (ElementKind::Body, self.bodies.len()),
            (ElementKind::Force, self.forces.len()),
            (ElementKind::Link, self.links.len()),
            (ElementKind::Trajectory, self.trajectories.len()),
            (ElementKind::Light, self.lights.len()),
            (ElementKind::Camera, usize::from(self.camera.is_some())),
            (
                ElementKind::Simulator,
                usize::from(self.simulator_origin.is_some()),
            ),
        ];
        counts
            .into_iter()
            .flat_map(|(kind, n)| (0..n).map(move |i| ElementRef::new(kind, i)))
    }

    /// Where an element was written; `None` for an index out of range.
    pub fn origin(&self, element: ElementRef) -> Option<&Origin> {
        let i = element.index;
        match element.kind {
            ElementKind::Shape => self.shapes.get(i).map(|e| &e.origin),
            ElementKind::Body => self.bodies.get(i).map(|e| &e.origin),
            ElementKind::Force => self.forces.get(i).map(|e| &e.origin),
            ElementKind::Link => self.links.get(i).map(|e| &e.origin),
            ElementKind::Trajectory => self.trajectories.get(i).map(|e| &e.origin),
            ElementKind::Light => self.lights.get(i).map(|e| &e.origin),
            ElementKind::Camera => self.camera.as_ref().map(|e| &e.origin),
            ElementKind::Simulator => self.simulator_origin.as_ref(),
        }
    }

    /// A short human name: `body b1`, `force 3 on b2`, `link 1 (b1 to b2)`, `camera`.
    pub fn describe_element(&self, element: ElementRef) -> String {
        let i = element.index;
        let kind = element.kind;
        let named = |name: Option<&str>| match name {
            Some(name) => format!("{kind} {name}"),
            None => format!("{kind} #{i}"),
        };
        match kind {
            ElementKind::Shape => named(self.shapes.get(i).map(|e| e.name.as_str())),
            ElementKind::Body => named(self.bodies.get(i).map(|e| e.name.as_str())),
            ElementKind::Trajectory => named(self.trajectories.get(i).map(|e| e.name.as_str())),
            ElementKind::Light => named(self.lights.get(i).and_then(|e| e.name.as_deref())),
            ElementKind::Force => match self.forces.get(i) {
                Some(f) => format!("{} #{i} on {}", f.kind.word(), f.body),
                None => named(None),
            },
            ElementKind::Link => match self.links.get(i) {
                Some(l) => format!("link #{i} from {}", l.body1),
                None => named(None),
            },
            ElementKind::Camera | ElementKind::Simulator => kind.to_string(),
        }
    }

    /// The element whose command contains byte `offset` of the text (the one with the
    /// shortest command, if commands nest), for mapping a place in the language viewer to the
    /// element defined there. An element made inside a proc or loop body is found at its
    /// command in that body.
    pub fn element_at(&self, offset: usize) -> Option<ElementRef> {
        let probe = Span::new(offset, offset);
        self.elements()
            .filter_map(|e| Some((e, self.origin(e)?.command)))
            .filter(|(_, span)| span.contains(probe))
            .min_by_key(|(_, span)| span.len())
            .map(|(e, _)| e)
    }

    pub fn shape(&self, name: &str) -> Option<&super::model::ShapeSet> {
        self.shapes.iter().find(|s| s.name == name)
    }

    pub fn body(&self, name: &str) -> Option<&super::model::Body> {
        self.bodies.iter().find(|b| b.name == name)
    }

    pub fn trajectory(&self, name: &str) -> Option<&super::model::Trajectory> {
        self.trajectories.iter().find(|t| t.name == name)
    }
}

impl super::model::ForceKind {
    /// `force` or `torque`.
    pub fn word(self) -> &'static str {
        match self {
            super::model::ForceKind::Force => "force",
            super::model::ForceKind::Torque => "torque",
        }
    }
}
