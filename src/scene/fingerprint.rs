//! 128-bit digests of scene elements and expressions, computed once when the text is
//! evaluated, so that comparing two evaluations of a scene (`scene::diff`) reads one number per
//! element the edit left alone instead of every string and expression node of two separately
//! allocated scenes (a cache miss or two each: a quarter of the first update after adding a
//! body to a 1,000-body scene).
//!
//! A digest covers everything the comparison of its kind of element reads, and the element's
//! name, so that two elements with equal digests compare equal: `diff` takes an equal digest
//! as "unchanged" and compares the elements in full only when the digests differ (which may
//! also happen for equal elements: a digest encodes `-0.0` and `0.0` apart, the comparison
//! does not). Trusting equal digests is sound for this use: the digest is two halves of
//! SipHash-1-3 (std's `DefaultHasher`, fixed keys, each half started from a different byte)
//! over one unambiguous encoding (every string length-prefixed, every number its bits);
//! nothing adversarial writes the scenes, and two different elements agree on 128
//! pseudo-random bits with probability 2^-128, far below that of a memory error in the
//! comparison it replaces.
//!
//! The digests are kept beside the elements, in [`Fingerprints`], one list per kind in the
//! elements' order, filled when a scene's evaluation finishes; the elements are not changed
//! after that. A scene made otherwise (by hand, in tests) has none, and is compared in full.

use super::model::{
    Body, Color, ExprVec, Force, ForceKind, ForceValue, Geometry, Link, LinkTarget, Scene,
    ShapePart, ShapeSet, Vec3,
};
use std::hash::{DefaultHasher, Hasher};

/// The digests of a scene's shapes, bodies, forces and links, in their order (empty for a
/// scene not made by evaluating a text).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Fingerprints {
    pub(crate) shapes: Vec<u128>,
    pub(crate) bodies: Vec<u128>,
    pub(crate) forces: Vec<u128>,
    pub(crate) links: Vec<u128>,
}

impl Fingerprints {
    /// The digests of every shape, body, force and link of `scene`.
    pub(crate) fn of(scene: &Scene) -> Fingerprints {
        Fingerprints {
            shapes: scene.shapes.iter().map(shape).collect(),
            bodies: scene.bodies.iter().map(body).collect(),
            forces: scene.forces.iter().map(force).collect(),
            links: scene.links.iter().map(link).collect(),
        }
    }
}

/// The digests of one kind of element of two scenes, when both have them for all their
/// elements of that kind.
#[derive(Clone, Copy)]
pub(crate) struct Pair<'a> {
    old: &'a [u128],
    new: &'a [u128],
}

impl<'a> Pair<'a> {
    /// The digests `old` and `new` (of two scenes' `old_len` and `new_len` elements), if
    /// they are of every element.
    pub(crate) fn new(
        old: &'a [u128],
        old_len: usize,
        new: &'a [u128],
        new_len: usize,
    ) -> Option<Pair<'a>> {
        (old.len() == old_len && new.len() == new_len).then_some(Pair { old, new })
    }

    /// Whether old element `i` and new element `j` have the same digest: the same element.
    pub(crate) fn same(&self, i: usize, j: usize) -> bool {
        self.old[i] == self.new[j]
    }
}

/// An encoding being written, to digest.
pub(crate) struct Digest {
    bytes: Vec<u8>,
}

impl Digest {
    /// An encoding starting with `tag` (the kind of thing encoded).
    pub(crate) fn new(tag: u8) -> Digest {
        Digest { bytes: vec![tag] }
    }

    pub(crate) fn byte(&mut self, b: u8) -> &mut Digest {
        self.bytes.push(b);
        self
    }

    pub(crate) fn count(&mut self, n: usize) -> &mut Digest {
        self.bytes.extend_from_slice(&(n as u64).to_le_bytes());
        self
    }

    pub(crate) fn text(&mut self, s: &str) -> &mut Digest {
        self.count(s.len());
        self.bytes.extend_from_slice(s.as_bytes());
        self
    }

    pub(crate) fn number(&mut self, x: f64) -> &mut Digest {
        self.bytes.extend_from_slice(&x.to_bits().to_le_bytes());
        self
    }

    fn numbers(&mut self, xs: &[f64]) -> &mut Digest {
        xs.iter().for_each(|&x| {
            self.number(x);
        });
        self
    }

    fn color(&mut self, c: Color) {
        self.numbers(&[f64::from(c.r), f64::from(c.g), f64::from(c.b)]);
    }

    fn vector(&mut self, v: &Vec3) -> &mut Digest {
        self.numbers(v.as_slice())
    }

    fn digest(&mut self, d: u128) -> &mut Digest {
        self.bytes.extend_from_slice(&d.to_le_bytes());
        self
    }

    fn optional<T>(&mut self, value: Option<T>, f: impl FnOnce(&mut Digest, T)) -> &mut Digest {
        match value {
            None => self.byte(0),
            Some(v) => {
                self.byte(1);
                f(self, v);
                self
            }
        }
    }

    fn expressions(&mut self, v: &ExprVec) -> &mut Digest {
        for e in v.components() {
            self.digest(e.fingerprint);
        }
        self
    }

    /// The digest of what was written.
    pub(crate) fn finish(&self) -> u128 {
        let half = |start: u8| {
            let mut h = DefaultHasher::new();
            h.write_u8(start);
            h.write(&self.bytes);
            h.finish()
        };
        (u128::from(half(0)) << 64) | u128::from(half(1))
    }
}

/// What `diff` compares of a shape set: its name, and each part's place, geometry and colour.
fn shape(s: &ShapeSet) -> u128 {
    // Every field named, so that a field added to the model must be placed here or left out
    // on purpose: a field `diff` compares but the digest misses would make edits of it unseen.
    let ShapeSet {
        name,
        parts,
        desc_span: _,
        origin: _,
    } = s;
    let mut d = Digest::new(b'S');
    d.text(name).count(parts.len());
    for ShapePart {
        pos,
        geometry,
        color,
    } in parts
    {
        d.vector(pos);
        match geometry {
            Geometry::Sphere { radius } => d.byte(0).number(*radius),
            Geometry::Polyhedron { vertices } => {
                d.byte(1).count(vertices.len());
                vertices.iter().for_each(|v| {
                    d.vector(v);
                });
                &mut d
            }
        };
        d.optional(*color, Digest::color);
    }
    d.finish()
}

/// What `diff` compares of a body: its name, shape, initial state, mass, inertia,
/// articulated body, fixedness, restitution, friction and colour.
fn body(b: &Body) -> u128 {
    let Body {
        name,
        shape,
        init_pos,
        init_rot,
        init_dpos,
        init_drot,
        mass,
        inertia,
        artbody,
        color,
        restitution,
        friction,
        fixed,
        origin: _,
    } = b;
    let mut d = Digest::new(b'B');
    d.text(name).text(shape);
    for v in [init_pos, init_rot, init_dpos, init_drot] {
        d.vector(&v.value);
    }
    d.optional(mass.as_ref(), |d, m| {
        d.number(m.value);
    });
    d.optional(inertia.as_ref(), |d, m| {
        d.numbers(m.value.as_slice());
    });
    d.optional(artbody.as_deref(), |d, a| {
        d.text(a);
    });
    d.byte(u8::from(*fixed))
        .number(restitution.value)
        .number(friction.value);
    d.optional(color.as_ref(), |d, c| d.color(c.value));
    d.finish()
}

/// What `diff` compares of a force: its kind, body, value and offset.
fn force(f: &Force) -> u128 {
    let Force {
        kind,
        body,
        value,
        offset,
        origin: _,
    } = f;
    let mut d = Digest::new(b'F');
    d.byte(match kind {
        ForceKind::Force => 0,
        ForceKind::Torque => 1,
    })
    .text(body);
    match value {
        ForceValue::Components(v) => d.byte(0).expressions(v),
        ForceValue::Gravity(g) => d.byte(1).vector(&g.value),
        ForceValue::Trajectory(t) => d.byte(2).text(t),
    };
    d.vector(&offset.value).finish()
}

/// What `diff` compares of a link: its first body and offset, its target and tightness.
fn link(l: &Link) -> u128 {
    let Link {
        body1,
        offset1,
        target,
        tightness,
        origin: _,
    } = l;
    let mut d = Digest::new(b'L');
    d.text(body1).vector(&offset1.value);
    match target {
        LinkTarget::Body { body2, offset2 } => d.byte(0).text(body2).vector(&offset2.value),
        LinkTarget::Point(v) => d.byte(1).expressions(v),
        LinkTarget::Trajectory(t) => d.byte(2).text(t),
    };
    d.number(tightness.value).finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{diff, evaluate};

    const BASE: &str = "\
shape_set ball desc {sphere 0.5}
shape_set brick desc {box {1 1 1} color red}
shape_set pair desc {sphere 0.2 sub pos {1 0 0} sphere 0.3}
body a shape ball init_pos {0 0 0} mass 2 restitution 0.5 friction 0.3
body b shape brick init_pos {3 0 0} init_rot {0 0.1 0} init_dpos {1 0 0} init_drot {0 0 1}
body c shape pair init_pos {6 0 0} artbody arm color blue inertia {1 2 3}
body d shape ball init_pos {9 0 0} fixed 1
force body a y -9.8
force body a x {sin($t) * [b x]} offset {0 0.1 0}
torque body b z {0.1 * cos($t)}
force body b gravity {0 -9.8 0}
force body c trajectory T
link body1 a offset1 {0 0.5 0} body2 b offset2 {0 -0.5 0} tightness 100
link body1 c point {6 {1 + [a y]} 0} tightness 50
link body1 b trajectory T
trajectory T points {{0 0 0 0} {1 1 0 0}}
";

    /// One change of everything a digest covers, each its own edit of `BASE`.
    const EDITS: &[(&str, &str)] = &[
        ("sphere 0.5", "sphere 0.6"),
        ("box {1 1 1} color red", "box {1 2 1} color red"),
        ("color red", "color green"),
        ("sub pos {1 0 0}", "sub pos {1.5 0 0}"),
        ("body a shape ball", "body a shape brick"),
        ("init_pos {0 0 0}", "init_pos {0 1 0}"),
        ("init_rot {0 0.1 0}", "init_rot {0 0.2 0}"),
        ("init_dpos {1 0 0}", "init_dpos {2 0 0}"),
        ("init_drot {0 0 1}", "init_drot {0 0 2}"),
        ("mass 2", "mass 3"),
        ("inertia {1 2 3}", "inertia {1 2 4}"),
        ("artbody arm", "artbody leg"),
        ("color blue", "color yellow"),
        ("restitution 0.5", "restitution 0.6"),
        ("friction 0.3", "friction 0.4"),
        ("fixed 1", "fixed 0"),
        ("force body a y -9.8", "force body a y -9.7"),
        ("force body a y", "torque body a y"),
        ("{sin($t) * [b x]}", "{sin($t) * [b y]}"),
        ("offset {0 0.1 0}", "offset {0 0.2 0}"),
        ("{0.1 * cos($t)}", "{0.1 * sin($t)}"),
        ("gravity {0 -9.8 0}", "gravity {0 -9.7 0}"),
        ("force body c trajectory T", "force body d trajectory T"),
        ("offset1 {0 0.5 0}", "offset1 {0 0.4 0}"),
        ("body2 b offset2", "body2 c offset2"),
        ("offset2 {0 -0.5 0}", "offset2 {0 -0.4 0}"),
        ("tightness 100", "tightness 90"),
        ("{1 + [a y]}", "{1 + [a z]}"),
        ("link body1 b trajectory T", "link body1 a trajectory T"),
        ("body d shape", "body e shape"),
    ];

    fn scene(text: &str) -> Scene {
        evaluate(text).unwrap_or_else(|e| panic!("{}", e.diagnostic("test")))
    }

    /// `scene` as a scene made by hand: without digests, so compared in full.
    fn without_digests(scene: &Scene) -> Scene {
        Scene {
            fingerprints: Fingerprints::default(),
            ..scene.clone()
        }
    }

    #[test]
    fn an_evaluated_scene_has_a_digest_per_element_and_the_same_text_the_same_ones() {
        let (a, b) = (scene(BASE), scene(&format!("# moved\n\n{BASE}")));
        let f = &a.fingerprints;
        assert_eq!(
            [
                f.shapes.len(),
                f.bodies.len(),
                f.forces.len(),
                f.links.len()
            ],
            [3, 4, 5, 3]
        );
        assert_eq!(a.fingerprints, b.fingerprints);
        assert!(diff(&a, &b).is_empty());
    }

    #[test]
    fn every_change_a_comparison_sees_changes_the_digest_and_the_diff_is_the_full_ones() {
        let old = scene(BASE);
        for (from, to) in EDITS {
            assert!(BASE.contains(from), "{from}");
            let new = scene(&BASE.replacen(from, to, 1));
            let quick = diff(&old, &new);
            let full = diff(&without_digests(&old), &without_digests(&new));
            assert!(!full.is_empty(), "{from} -> {to}");
            assert_eq!(quick, full, "{from} -> {to}");
        }
    }

    #[test]
    fn digests_that_differ_for_equal_elements_send_them_to_the_full_comparison() {
        let old = scene(BASE);
        let mut new = old.clone();
        // Every digest different, every element the same: nothing changed.
        for list in [
            &mut new.fingerprints.shapes,
            &mut new.fingerprints.bodies,
            &mut new.fingerprints.forces,
            &mut new.fingerprints.links,
        ] {
            list.iter_mut().for_each(|d| *d = !*d);
        }
        assert!(diff(&old, &new).is_empty());
    }
}
