//! What changed between two evaluations of a scene text (4.2.2, 5.2.5).
//!
//! Named elements (shapes, bodies, trajectories, lights) are matched by name; the camera and
//! the simulator settings are one each. Forces and links have no names: they are matched
//! within the group acting on the same body, in text order, by the longest common subsequence
//! of identical elements, so that inserting a force before another one on the same body shows
//! as one added force and nothing else; elements left between two matched ones pair up as
//! changed.
//!
//! Each changed element says which aspects changed: its initial conditions (`init_*` only), its
//! equations of motion (shape, mass, inertia, forces, links, trajectories, fixed, articulated
//! body), how it collides (restitution, friction: no equation reads them) or only its
//! appearance (colours, lights, camera). The simulator resets only what changed:
//! [`SceneDiff::equations_changed`] and [`SceneDiff::initial_changed`] name the bodies whose
//! equations or initial values changed, whatever element the change was made in, and
//! [`SceneDiff::collision_changed`] those whose collisions must be redone.
//!
//! Spans and source text are not compared: an edit elsewhere that moves an element in the text
//! does not change it.

use super::element::ElementKind;
use super::fingerprint::Pair;
use super::model::{
    Body, Camera, CameraValue, Force, ForceValue, Light, Link, LinkTarget, Scene, ShapeSet,
    Trajectory,
};
use crate::lang::fxhash::FxHashMap;
use std::collections::BTreeSet;

/// Which aspects of an element changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Aspects {
    /// Initial conditions: `init_pos`, `init_rot`, `init_dpos`, `init_drot`.
    pub initial: bool,
    /// Anything the equations of motion depend on.
    pub equations: bool,
    /// How the body collides: restitution and friction.
    pub collision: bool,
    /// Only how the scene looks.
    pub appearance: bool,
}

impl Aspects {
    pub const INITIAL: Aspects = Aspects {
        initial: true,
        equations: false,
        collision: false,
        appearance: false,
    };
    pub const EQUATIONS: Aspects = Aspects {
        initial: false,
        equations: true,
        collision: false,
        appearance: false,
    };
    pub const APPEARANCE: Aspects = Aspects {
        initial: false,
        equations: false,
        collision: false,
        appearance: true,
    };

    pub fn any(self) -> bool {
        self.initial || self.equations || self.collision || self.appearance
    }
}

/// How one element differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangeKind {
    Added,
    Removed,
    Changed(Aspects),
}

/// One element that was added, removed or changed.
#[derive(Clone, Debug, PartialEq)]
pub struct ElementChange {
    pub kind: ElementKind,
    /// Its index in the old scene, unless added.
    pub old: Option<usize>,
    /// Its index in the new scene, unless removed.
    pub new: Option<usize>,
    pub change: ChangeKind,
}

/// The differences between two scenes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SceneDiff {
    /// Every added, removed or changed element, by kind, then in text order.
    pub changes: Vec<ElementChange>,
    /// Bodies of the new scene whose equations of motion changed: the body itself, its shape,
    /// a force or link acting on it, or a trajectory it follows or its forces and links use.
    /// Added bodies are included.
    pub equations_changed: BTreeSet<String>,
    /// Bodies of the new scene whose initial values changed (added bodies included).
    pub initial_changed: BTreeSet<String>,
    /// Bodies of the new scene whose restitution or friction changed: their collisions, and
    /// what followed them, must be computed again.
    pub collision_changed: BTreeSet<String>,
    /// Whether the bodies have the same names in the same order (so the same indices) before
    /// and after: what a model update would otherwise compare name by name.
    pub bodies_in_place: bool,
    /// Whether the bodies both scenes have come in the same order in both: only added and
    /// removed bodies stand between them, so that a model update can pair the kept bodies up
    /// in turn without comparing their names. (An added body may repeat a kept one's name in
    /// a scene that evaluating would refuse.)
    pub bodies_in_order: bool,
}

impl SceneDiff {
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// Whether the time range or integration settings changed.
    pub fn simulator_changed(&self) -> bool {
        self.changes
            .iter()
            .any(|c| c.kind == ElementKind::Simulator)
    }
}

/// The differences from `old` to `new`.
pub fn diff(old: &Scene, new: &Scene) -> SceneDiff {
    let mut d = Differ {
        old,
        new,
        out: SceneDiff::default(),
    };
    let (a, b) = (&old.fingerprints, &new.fingerprints);
    let shapes = Pair::new(&a.shapes, old.shapes.len(), &b.shapes, new.shapes.len());
    d.named(
        ElementKind::Shape,
        &old.shapes,
        &new.shapes,
        |s| Some(&s.name),
        shape_aspects,
        shapes,
    );
    let bodies = Pair::new(&a.bodies, old.bodies.len(), &b.bodies, new.bodies.len());
    (d.out.bodies_in_place, d.out.bodies_in_order) = d.named(
        ElementKind::Body,
        &old.bodies,
        &new.bodies,
        |b| Some(&b.name),
        body_aspects,
        bodies,
    );
    let forces = Pair::new(&a.forces, old.forces.len(), &b.forces, new.forces.len());
    d.unnamed(
        ElementKind::Force,
        &old.forces,
        &new.forces,
        |f| &f.body,
        |i, j| forces.is_some_and(|d| d.same(i, j)) || same_force(&old.forces[i], &new.forces[j]),
    );
    let links = Pair::new(&a.links, old.links.len(), &b.links, new.links.len());
    d.unnamed(
        ElementKind::Link,
        &old.links,
        &new.links,
        |l| &l.body1,
        |i, j| links.is_some_and(|d| d.same(i, j)) || same_link(&old.links[i], &new.links[j]),
    );
    d.named(
        ElementKind::Trajectory,
        &old.trajectories,
        &new.trajectories,
        |t| Some(&t.name),
        trajectory_aspects,
        None,
    );
    d.named(
        ElementKind::Light,
        &old.lights,
        &new.lights,
        |l| l.name.as_ref(),
        light_aspects,
        None,
    );
    d.singletons();
    d.affected_bodies();
    d.out
}

struct Differ<'a> {
    old: &'a Scene,
    new: &'a Scene,
    out: SceneDiff,
}

impl Differ<'_> {
    fn push(
        &mut self,
        kind: ElementKind,
        old: Option<usize>,
        new: Option<usize>,
        change: ChangeKind,
    ) {
        self.out.changes.push(ElementChange {
            kind,
            old,
            new,
            change,
        });
    }

    /// Elements matched by name; unnamed ones (if any) by their order among the unnamed.
    /// Usually the names come in the same order in both scenes, and the common runs of equal
    /// names at the start and at the end are compared pairwise without a lookup. Returns
    /// whether the names are the same in the same order, and whether the matched elements kept
    /// their order (each old one matched once at most). With `digests`, an old and a new
    /// element with the same digest are the same element, name and all (see
    /// `scene::fingerprint`), and are not read.
    fn named<T>(
        &mut self,
        kind: ElementKind,
        old: &[T],
        new: &[T],
        name: impl Fn(&T) -> Option<&String>,
        aspects: impl Fn(&T, &T) -> Aspects,
        digests: Option<Pair<'_>>,
    ) -> (bool, bool) {
        let same = |i: usize, j: usize| digests.is_some_and(|d| d.same(i, j));
        let same_name = |i: usize, j: usize| {
            same(i, j) || name(&old[i]).is_some_and(|n| Some(n) == name(&new[j]))
        };
        // What changed in old element `i`, new element `j`.
        let changed = |i: usize, j: usize| {
            (!same(i, j))
                .then(|| aspects(&old[i], &new[j]))
                .filter(|a| a.any())
        };
        let same_names = (0..old.len().min(new.len()))
            .take_while(|&i| same_name(i, i))
            .count();
        for i in 0..same_names {
            if let Some(a) = changed(i, i) {
                self.push(kind, Some(i), Some(i), ChangeKind::Changed(a));
            }
        }
        let (old_rest, new_rest) = (&old[same_names..], &new[same_names..]);
        // So is the common run of equal names at the end (a body added at the top leaves
        // every other body there): only the elements between the two runs are looked up.
        let same_end = (1..=old_rest.len().min(new_rest.len()))
            .take_while(|&k| same_name(old.len() - k, new.len() - k))
            .count();
        let (old_end, new_end) = (old_rest.len() - same_end, new_rest.len() - same_end);
        let (old_rest, new_rest, old_tail, new_tail) = (
            &old_rest[..old_end],
            &new_rest[..new_end],
            &old_rest[old_end..],
            &new_rest[new_end..],
        );
        // Names hashed with Fx, not SipHash: nothing adversarial chooses them.
        let old_index: FxHashMap<&str, usize> = old_rest
            .iter()
            .enumerate()
            .filter_map(|(i, e)| Some((name(e)?.as_str(), i)))
            .collect();
        let mut matched = vec![false; old_rest.len()];
        // The last old element matched, to tell whether the matches keep their order.
        let mut last: Option<usize> = None;
        let mut in_order = true;
        let mut unnamed_old = old_rest
            .iter()
            .enumerate()
            .filter(|(_, e)| name(e).is_none());
        for (j, e) in new_rest.iter().enumerate() {
            let i = match name(e) {
                Some(n) => old_index.get(n.as_str()).copied(),
                None => unnamed_old.next().map(|(i, _)| i),
            };
            let j = j + same_names;
            match i {
                Some(i) => {
                    in_order &= last.is_none_or(|l| l < i);
                    last = Some(i);
                    matched[i] = true;
                    if let Some(a) = changed(i + same_names, j) {
                        self.push(kind, Some(i + same_names), Some(j), ChangeKind::Changed(a));
                    }
                }
                None => self.push(kind, None, Some(j), ChangeKind::Added),
            }
        }
        for k in 0..old_tail.len().min(new_tail.len()) {
            let (i, j) = (same_names + old_end + k, same_names + new_end + k);
            if let Some(a) = changed(i, j) {
                self.push(kind, Some(i), Some(j), ChangeKind::Changed(a));
            }
        }
        for (i, _) in matched.iter().enumerate().filter(|(_, m)| !**m) {
            self.push(kind, Some(i + same_names), None, ChangeKind::Removed);
        }
        (same_names == old.len() && same_names == new.len(), in_order)
    }

    /// Forces and links: matched within groups of the same key (the body they act on). The
    /// identical elements at the start and end of both lists match each other in order (as
    /// they would within their groups); only the middle is grouped. `same(i, j)`: whether
    /// old element `i` and new element `j` are the same.
    fn unnamed<T>(
        &mut self,
        kind: ElementKind,
        old: &[T],
        new: &[T],
        key: impl Fn(&T) -> &String,
        same: impl Fn(usize, usize) -> bool,
    ) {
        let common = old.len().min(new.len());
        let prefix = (0..common).take_while(|&i| same(i, i)).count();
        let suffix = (1..=common - prefix)
            .take_while(|&k| same(old.len() - k, new.len() - k))
            .count();
        let old_middle = prefix..old.len() - suffix;
        let new_middle = prefix..new.len() - suffix;
        let mut keys: Vec<&str> = Vec::new();
        let mut groups: FxHashMap<&str, (Vec<usize>, Vec<usize>)> = FxHashMap::default();
        for (side, list, range) in [(0, old, old_middle), (1, new, new_middle)] {
            for i in range {
                let k = key(&list[i]).as_str();
                let group = groups.entry(k).or_insert_with(|| {
                    keys.push(k);
                    (Vec::new(), Vec::new())
                });
                if side == 0 {
                    group.0.push(i);
                } else {
                    group.1.push(i);
                }
            }
        }
        let mut found = Vec::new();
        for k in keys {
            let (o, n) = &groups[k];
            for (a, b) in align(o, n, &same) {
                match (a, b) {
                    (Some(i), Some(j)) if !same(i, j) => {
                        found.push((Some(i), Some(j), ChangeKind::Changed(Aspects::EQUATIONS)))
                    }
                    (Some(_), Some(_)) => {}
                    (Some(i), None) => found.push((Some(i), None, ChangeKind::Removed)),
                    (None, Some(j)) => found.push((None, Some(j), ChangeKind::Added)),
                    (None, None) => {}
                }
            }
        }
        // Text order: by new index, removed ones by old index after.
        found.sort_by_key(|(i, j, _)| (j.is_none(), j.or(*i)));
        for (i, j, change) in found {
            self.push(kind, i, j, change);
        }
    }

    fn singletons(&mut self) {
        match (&self.old.camera, &self.new.camera) {
            (Some(a), Some(b)) if !same_camera(a, b) => self.push(
                ElementKind::Camera,
                Some(0),
                Some(0),
                ChangeKind::Changed(Aspects::APPEARANCE),
            ),
            (None, Some(_)) => self.push(ElementKind::Camera, None, Some(0), ChangeKind::Added),
            (Some(_), None) => self.push(ElementKind::Camera, Some(0), None, ChangeKind::Removed),
            _ => {}
        }
        if self.old.simulator != self.new.simulator {
            let side = |s: &Scene| s.simulator_origin.as_ref().map(|_| 0);
            self.push(
                ElementKind::Simulator,
                side(self.old),
                side(self.new),
                ChangeKind::Changed(Aspects::EQUATIONS),
            );
        }
    }

    /// Fills the sets of bodies whose equations or initial values changed.
    fn affected_bodies(&mut self) {
        let (old, new) = (self.old, self.new);
        let mut equations: BTreeSet<&str> = BTreeSet::new();
        let mut initial: BTreeSet<&str> = BTreeSet::new();
        let mut collision: BTreeSet<&str> = BTreeSet::new();
        let mut changed_shapes: BTreeSet<&str> = BTreeSet::new();
        let mut changed_trajectories: BTreeSet<&str> = BTreeSet::new();
        for c in &self.out.changes {
            let equations_too = match c.change {
                ChangeKind::Changed(a) => a.equations,
                _ => true,
            };
            let both = c
                .old
                .into_iter()
                .map(|i| (old, i))
                .chain(c.new.map(|j| (new, j)));
            for (scene, i) in both {
                match c.kind {
                    ElementKind::Body => {
                        let name = scene.bodies[i].name.as_str();
                        if equations_too {
                            equations.insert(name);
                        }
                        if matches!(c.change, ChangeKind::Added)
                            || matches!(c.change, ChangeKind::Changed(a) if a.initial)
                        {
                            initial.insert(name);
                        }
                        if matches!(c.change, ChangeKind::Changed(a) if a.collision) {
                            collision.insert(name);
                        }
                    }
                    ElementKind::Shape if equations_too => {
                        changed_shapes.insert(scene.shapes[i].name.as_str());
                    }
                    ElementKind::Force => {
                        equations.insert(scene.forces[i].body.as_str());
                    }
                    ElementKind::Link => {
                        let link = &scene.links[i];
                        equations.insert(link.body1.as_str());
                        if let LinkTarget::Body { body2, .. } = &link.target {
                            equations.insert(body2.as_str());
                        }
                    }
                    ElementKind::Trajectory => {
                        let t = &scene.trajectories[i];
                        changed_trajectories.insert(t.name.as_str());
                        equations.extend(t.attachments.iter().map(|a| a.body.as_str()));
                    }
                    _ => {}
                }
            }
        }
        for body in &new.bodies {
            if changed_shapes.contains(body.shape.as_str()) {
                equations.insert(body.name.as_str());
            }
        }
        if !changed_trajectories.is_empty() {
            for force in &new.forces {
                if uses_trajectory_force(force, &changed_trajectories) {
                    equations.insert(force.body.as_str());
                }
            }
            for link in &new.links {
                if uses_trajectory_link(link, &changed_trajectories) {
                    equations.insert(link.body1.as_str());
                    if let LinkTarget::Body { body2, .. } = &link.target {
                        equations.insert(body2.as_str());
                    }
                }
            }
        }
        let exists = |name: &&str| new.body(name).is_some();
        self.out.equations_changed = equations
            .into_iter()
            .filter(exists)
            .map(str::to_string)
            .collect();
        self.out.initial_changed = initial
            .into_iter()
            .filter(exists)
            .map(str::to_string)
            .collect();
        self.out.collision_changed = collision
            .into_iter()
            .filter(exists)
            .map(str::to_string)
            .collect();
    }
}

fn uses_trajectory_force(force: &Force, names: &BTreeSet<&str>) -> bool {
    match &force.value {
        ForceValue::Trajectory(t) => names.contains(t.as_str()),
        ForceValue::Components(v) => v.components().iter().any(|c| {
            c.references()
                .iter()
                .any(|r| names.contains(r.name.as_str()))
        }),
        ForceValue::Gravity(_) => false,
    }
}

fn uses_trajectory_link(link: &Link, names: &BTreeSet<&str>) -> bool {
    match &link.target {
        LinkTarget::Trajectory(t) => names.contains(t.as_str()),
        LinkTarget::Point(v) => v.components().iter().any(|c| {
            c.references()
                .iter()
                .any(|r| names.contains(r.name.as_str()))
        }),
        LinkTarget::Body { .. } => false,
    }
}

/// Pairs the elements of two sequences: matched identical elements, elements left between
/// matches paired in order (changed), and the rest alone (removed or added).
fn align(
    old: &[usize],
    new: &[usize],
    same: impl Fn(usize, usize) -> bool,
) -> Vec<(Option<usize>, Option<usize>)> {
    let prefix = old
        .iter()
        .zip(new)
        .take_while(|(a, b)| same(**a, **b))
        .count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| same(**a, **b))
        .count();
    let (o, n) = (
        &old[prefix..old.len() - suffix],
        &new[prefix..new.len() - suffix],
    );
    let mut out: Vec<(Option<usize>, Option<usize>)> = old[..prefix]
        .iter()
        .zip(&new[..prefix])
        .map(|(a, b)| (Some(*a), Some(*b)))
        .collect();
    let anchors = common_subsequence(o, n, &same);
    let (mut i, mut j) = (0, 0);
    for (ai, aj) in anchors.into_iter().chain([(o.len(), n.len())]) {
        // The gap before this anchor: pair in order, the rest alone.
        let (gap_o, gap_n) = (&o[i..ai], &n[j..aj]);
        for k in 0..gap_o.len().max(gap_n.len()) {
            out.push((gap_o.get(k).copied(), gap_n.get(k).copied()));
        }
        if ai < o.len() {
            out.push((Some(o[ai]), Some(n[aj])));
        }
        (i, j) = (ai + 1, aj + 1);
    }
    out.extend(
        old[old.len() - suffix..]
            .iter()
            .zip(&new[new.len() - suffix..])
            .map(|(a, b)| (Some(*a), Some(*b))),
    );
    out
}

/// Beyond this many cells the middle parts are not searched for common elements (they are
/// paired in order): a single edit leaves a middle of one or two elements.
const MAX_LCS_CELLS: usize = 1 << 20;

/// Index pairs of a longest common subsequence of identical elements.
fn common_subsequence(
    o: &[usize],
    n: &[usize],
    same: &impl Fn(usize, usize) -> bool,
) -> Vec<(usize, usize)> {
    if o.is_empty() || n.is_empty() || o.len() * n.len() > MAX_LCS_CELLS {
        return Vec::new();
    }
    let w = n.len() + 1;
    // lengths[i * w + j]: LCS length of o[i..] and n[j..].
    let mut lengths = vec![0u32; (o.len() + 1) * w];
    for i in (0..o.len()).rev() {
        for j in (0..n.len()).rev() {
            lengths[i * w + j] = if same(o[i], n[j]) {
                lengths[(i + 1) * w + j + 1] + 1
            } else {
                lengths[(i + 1) * w + j].max(lengths[i * w + j + 1])
            };
        }
    }
    let mut pairs = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < o.len() && j < n.len() {
        if same(o[i], n[j]) {
            pairs.push((i, j));
            i += 1;
            j += 1;
        } else if lengths[(i + 1) * w + j] >= lengths[i * w + j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    pairs
}

fn shape_aspects(a: &ShapeSet, b: &ShapeSet) -> Aspects {
    let geometry = a.parts.len() != b.parts.len()
        || a.parts
            .iter()
            .zip(&b.parts)
            .any(|(p, q)| p.pos != q.pos || p.geometry != q.geometry);
    let colors = a
        .parts
        .iter()
        .map(|p| p.color)
        .ne(b.parts.iter().map(|p| p.color));
    Aspects {
        initial: false,
        equations: geometry,
        collision: false,
        appearance: colors,
    }
}

fn body_aspects(a: &Body, b: &Body) -> Aspects {
    let initial = a.init_pos.value != b.init_pos.value
        || a.init_rot.value != b.init_rot.value
        || a.init_dpos.value != b.init_dpos.value
        || a.init_drot.value != b.init_drot.value;
    let equations = a.shape != b.shape
        || a.mass.as_ref().map(|m| m.value) != b.mass.as_ref().map(|m| m.value)
        || a.inertia.as_ref().map(|m| m.value) != b.inertia.as_ref().map(|m| m.value)
        || a.artbody != b.artbody
        || a.fixed != b.fixed;
    let collision =
        a.restitution.value != b.restitution.value || a.friction.value != b.friction.value;
    let appearance = a.color.as_ref().map(|c| c.value) != b.color.as_ref().map(|c| c.value);
    Aspects {
        initial,
        equations,
        collision,
        appearance,
    }
}

fn same_force(a: &Force, b: &Force) -> bool {
    let value = match (&a.value, &b.value) {
        (ForceValue::Components(x), ForceValue::Components(y)) => x.same_as(y),
        (ForceValue::Gravity(x), ForceValue::Gravity(y)) => x.value == y.value,
        (ForceValue::Trajectory(x), ForceValue::Trajectory(y)) => x == y,
        _ => false,
    };
    value && a.kind == b.kind && a.body == b.body && a.offset.value == b.offset.value
}

fn same_link(a: &Link, b: &Link) -> bool {
    let target = match (&a.target, &b.target) {
        (
            LinkTarget::Body { body2, offset2 },
            LinkTarget::Body {
                body2: body2b,
                offset2: offset2b,
            },
        ) => body2 == body2b && offset2.value == offset2b.value,
        (LinkTarget::Point(x), LinkTarget::Point(y)) => x.same_as(y),
        (LinkTarget::Trajectory(x), LinkTarget::Trajectory(y)) => x == y,
        _ => false,
    };
    target
        && a.body1 == b.body1
        && a.offset1.value == b.offset1.value
        && a.tightness.value == b.tightness.value
}

fn trajectory_aspects(a: &Trajectory, b: &Trajectory) -> Aspects {
    let points = |t: &Trajectory| -> Vec<Vec<(f64, [f64; 3])>> {
        t.pieces
            .iter()
            .map(|p| p.points.iter().map(|c| (c.time, c.pos.into())).collect())
            .collect()
    };
    if points(a) != points(b) || a.attachments != b.attachments {
        Aspects::EQUATIONS
    } else {
        Aspects::default()
    }
}

fn light_aspects(a: &Light, b: &Light) -> Aspects {
    let same = a.kind == b.kind
        && a.pos.value == b.pos.value
        && a.dir.value == b.dir.value
        && a.color == b.color
        && a.intensity == b.intensity
        && a.trajectory == b.trajectory;
    if same {
        Aspects::default()
    } else {
        Aspects::APPEARANCE
    }
}

fn same_camera(a: &Camera, b: &Camera) -> bool {
    let same_value = |x: &CameraValue, y: &CameraValue| match (x, y) {
        (CameraValue::Constant(p), CameraValue::Constant(q)) => p.value == q.value,
        (CameraValue::Expressions(p), CameraValue::Expressions(q)) => p.same_as(q),
        (CameraValue::Trajectory(p), CameraValue::Trajectory(q)) => p == q,
        _ => false,
    };
    same_value(&a.pos, &b.pos)
        && same_value(&a.rot, &b.rot)
        && same_value(&a.center, &b.center)
        && a.scale.value == b.scale.value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alignment_keeps_identical_elements_matched() {
        let same = |a: usize, b: usize| a == b;
        // Old forces 1 2 3, new 9 1 2 3: one added in front.
        assert_eq!(
            align(&[1, 2, 3], &[9, 1, 2, 3], same),
            vec![
                (None, Some(9)),
                (Some(1), Some(1)),
                (Some(2), Some(2)),
                (Some(3), Some(3))
            ]
        );
        // The middle one changed.
        assert_eq!(
            align(&[1, 2, 3], &[1, 7, 3], same),
            vec![(Some(1), Some(1)), (Some(2), Some(7)), (Some(3), Some(3))]
        );
        // One removed, one changed.
        assert_eq!(
            align(&[1, 2, 3, 4], &[1, 8, 4], same),
            vec![
                (Some(1), Some(1)),
                (Some(2), Some(8)),
                (Some(3), None),
                (Some(4), Some(4))
            ]
        );
    }
}
