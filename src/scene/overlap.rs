//! Bodies that start inside each other.
//!
//! Collision detection looks for the moment two bodies meet; bodies already sunk into each
//! other at the start never meet, so the collider would either let them pass through each
//! other or push them apart with impulses out of nowhere. A scene whose bodies start
//! overlapping is therefore refused before it is simulated, with the place of the body that
//! overlaps (the one defined later of the pair).
//!
//! Only pairs the collider would handle count: both bodies have a shape, collisions are on,
//! not both are immovable at the start (fixed, or held by a trajectory: such pairs pass
//! through each other with a warning), and they are not directly linked parts of one
//! articulated body (which may overlap, to model joints, 5.3.1). Touching is not overlapping:
//! a penetration up to [`OVERLAP_TOLERANCE`] of the smaller body's size is rounding (a ball
//! resting on the floor at exactly its radius).

use super::model::{Body, ConstrainedVar, Geometry, LinkTarget, Scene, ShapeSet, Trajectory};
use super::shapes::{CentredShape, SceneShapes};
use super::state::BodyState;
use super::SceneDiff;
use crate::geom::broad::SweepAndPrune;
use crate::geom::distance::{closest_between_shapes, ShapePairCache};
use crate::geom::{Aabb, Shape};
use crate::lang::fxhash::FxHashMap;
use crate::lang::span::Span;
use nalgebra::UnitQuaternion;
use std::collections::{BTreeSet, HashSet};

/// The deepest penetration that still counts as touching, as a fraction of the smaller body's
/// size (the radius of its bounding sphere).
pub const OVERLAP_TOLERANCE: f64 = 1e-6;

/// Two bodies that overlap at the start.
#[derive(Clone, Debug, PartialEq)]
pub struct Overlap {
    /// The body defined first (an index into [`Scene::bodies`]).
    pub first: usize,
    /// The body defined later: the one the error points at.
    pub second: usize,
    /// How deep they are inside each other.
    pub depth: f64,
    /// The smaller body's size (the radius of its bounding sphere), which the depth counts
    /// against.
    pub size: f64,
}

impl Overlap {
    /// `body B overlaps body A by D at the start (t = T): …`.
    pub fn message(&self, scene: &Scene) -> String {
        format!(
            "body {} overlaps body {} by {:.3e} at the start (t = {}): bodies must start apart \
             or touching; move one, turn collisions off (simulator collisions 0), or make both \
             directly linked parts of one articulated body",
            scene.bodies[self.second].name,
            scene.bodies[self.first].name,
            self.depth,
            scene.simulator.start
        )
    }

    /// The command of the later body.
    pub fn span(&self, scene: &Scene) -> Span {
        scene.bodies[self.second].origin.command
    }
}

/// The first pair of bodies (in the order of the later body, then the earlier) that overlap at
/// the start, if any. Shapes whose geometry cannot be built are left to the errors that
/// building them gives elsewhere.
pub fn starting_overlap(scene: &Scene) -> Option<Overlap> {
    let active = active_at_start(scene);
    let placed = scene
        .bodies
        .iter()
        .map(|body| placed_at_start(scene, body, &active))
        .collect::<Vec<_>>();
    overlaps(scene, &placed)?
        .into_iter()
        .min_by_key(|o| (o.second, o.first))
}

/// Past this fraction of the bodies edited, [`starting_overlap_after_edit`] checks the whole
/// scene: testing each edited body against every other would cost more.
const EDITED_FRACTION: usize = 16;

/// [`starting_overlap`] of `scene`, the edit that `changes` describes of a scene none of whose
/// bodies started overlapping. Only the bodies whose initial values or equations changed can
/// have changed anything the check reads (their start state, shape, fixed flag, articulated
/// body, links or trajectories), so every pair that overlaps now has one of them: only their
/// shapes are built and tested, each against the bodies whose rough bounding spheres reach it
/// (see `rough_reach`). The cost follows the edit, not the scene, and the answer is the same.
pub fn starting_overlap_after_edit(scene: &Scene, changes: &SceneDiff) -> Option<Overlap> {
    let n = scene.bodies.len();
    if !scene.simulator.collisions || n < 2 {
        return None;
    }
    let names: BTreeSet<&String> = changes
        .equations_changed
        .iter()
        .chain(&changes.initial_changed)
        .collect();
    if names.len() * EDITED_FRACTION > n {
        return starting_overlap(scene);
    }
    let edited: Vec<usize> = names
        .into_iter()
        .filter_map(|name| scene.bodies.iter().position(|b| b.name == *name))
        .collect();
    let mut is_edited = vec![false; n];
    for &e in &edited {
        is_edited[e] = true;
    }
    let active = active_at_start(scene);
    // The edited bodies' shape sets and how far any shape reaches, in one pass over the shape
    // sets that hashes no name: the others' sets are looked up by name only for the bodies
    // near enough an edited one to need them (indexing every name was a twentieth of the
    // first update after adding a body to 1,000).
    let mut max_reach = 0.0f64;
    let mut edited_sets: Vec<Option<&ShapeSet>> = vec![None; edited.len()];
    for set in &scene.shapes {
        max_reach = max_reach.max(rough_reach(set));
        for (&e, found) in edited.iter().zip(&mut edited_sets) {
            if found.is_none() && scene.bodies[e].shape == set.name {
                *found = Some(set);
            }
        }
    }
    let mut shape_sets = ShapeSets::new(scene);
    let mut built: FxHashMap<&str, Option<CentredShape>> = FxHashMap::default();
    let mut found: Vec<Overlap> = Vec::new();
    for (&e, set) in edited.iter().zip(edited_sets) {
        let body = &scene.bodies[e];
        let Some(set) = set else {
            continue;
        };
        let (state, held) = placed_at_start(scene, body, &active);
        let reach = rough_reach(set);
        for (o, other) in scene.bodies.iter().enumerate() {
            // Each pair of two edited bodies once.
            if o == e || (o > e && is_edited[o]) {
                continue;
            }
            let (other_state, other_held) = placed_at_start(scene, other, &active);
            let apart = (other_state.position - state.position).norm();
            if apart > reach + max_reach || (held && other_held) {
                continue;
            }
            let Some(other_set) = shape_sets.get(&other.shape) else {
                continue;
            };
            if apart > reach + rough_reach(other_set) {
                continue;
            }
            if linked_pair(scene, e, o) {
                continue;
            }
            for (name, set) in [
                (body.shape.as_str(), set),
                (other.shape.as_str(), other_set),
            ] {
                built
                    .entry(name)
                    .or_insert_with(|| CentredShape::new(set).ok());
            }
            // A shape that cannot be built is left to the errors that building it gives.
            let (Some(Some(a)), Some(Some(b))) = (
                built.get(body.shape.as_str()),
                built.get(other.shape.as_str()),
            ) else {
                return None;
            };
            let (first, second) = if e < o { (e, o) } else { (o, e) };
            let ((shape_a, state_a), (shape_b, state_b)) = if e < o {
                ((&a.shape, &state), (&b.shape, &other_state))
            } else {
                ((&b.shape, &other_state), (&a.shape, &state))
            };
            if !shape_a
                .aabb(&state_a.pose())
                .overlaps(&shape_b.aabb(&state_b.pose()))
            {
                continue;
            }
            found.extend(overlap_of(
                first, second, shape_a, state_a, shape_b, state_b,
            ));
        }
    }
    found.into_iter().min_by_key(|o| (o.second, o.first))
}

/// The deepest overlap among the bodies of `scene` in `states` (one per body, in scene order),
/// if any pair the collider would handle overlaps past [`OVERLAP_TOLERANCE`]: the measure of a
/// simulation's motion that no collision was missed (the differential tests read it at sampled
/// times). Fixed bodies count as immovable, so that walls built of touching slabs are no
/// overlap.
pub fn deepest_overlap(scene: &Scene, states: &[BodyState]) -> Option<Overlap> {
    let placed = states
        .iter()
        .zip(&scene.bodies)
        .map(|(state, body)| (*state, body.fixed))
        .collect::<Vec<_>>();
    overlaps(scene, &placed)?
        .into_iter()
        .max_by(|a, b| (a.depth / a.size).total_cmp(&(b.depth / b.size)))
}

/// Every pair of bodies `placed` (each body's state and whether it is immovable) that overlap
/// past [`OVERLAP_TOLERANCE`]; `None` when collisions are off or the shapes cannot be built.
fn overlaps(scene: &Scene, placed: &[(BodyState, bool)]) -> Option<Vec<Overlap>> {
    if !scene.simulator.collisions || scene.bodies.len() < 2 {
        return Some(Vec::new());
    }
    let shapes = SceneShapes::new(scene).ok()?;
    let placed: Vec<Option<(&Shape, &BodyState, bool)>> = placed
        .iter()
        .enumerate()
        .map(|(b, (state, held))| Some((&shapes.of_body(b)?.shape, state, *held)))
        .collect();
    let linked = linked_parts(scene);
    let boxes: Vec<Aabb> = placed
        .iter()
        .map(|p| match p {
            Some((shape, state, _)) => shape.aabb(&state.pose()),
            // No shape: a box that overlaps nothing (NaN bounds never compare).
            None => Aabb::new([f64::NAN; 3].into(), [f64::NAN; 3].into()),
        })
        .collect();
    let mut broad = SweepAndPrune::new();
    broad.update(&boxes);
    let candidates = broad.pairs(|a, b| match (&placed[a], &placed[b]) {
        (Some((_, _, held_a)), Some((_, _, held_b))) => {
            let both_immovable = *held_a && *held_b;
            !both_immovable && !linked.contains(&(a, b))
        }
        _ => false,
    });
    let mut found: Vec<Overlap> = Vec::new();
    for (a, b) in candidates {
        let (Some((shape_a, state_a, _)), Some((shape_b, state_b, _))) = (&placed[a], &placed[b])
        else {
            continue;
        };
        found.extend(overlap_of(a, b, shape_a, state_a, shape_b, state_b));
    }
    Some(found)
}

/// How far bodies `a` and `b` (`a < b`), of these shapes in these states, are inside each
/// other, if past [`OVERLAP_TOLERANCE`].
fn overlap_of(
    a: usize,
    b: usize,
    shape_a: &Shape,
    state_a: &BodyState,
    shape_b: &Shape,
    state_b: &BodyState,
) -> Option<Overlap> {
    let contact = closest_between_shapes(
        shape_a,
        &state_a.pose(),
        shape_b,
        &state_b.pose(),
        &mut ShapePairCache::default(),
    )
    .contact;
    let size = |shape: &Shape, state: &BodyState| shape.bounding_sphere(&state.pose()).radius;
    let smaller = size(shape_a, state_a).min(size(shape_b, state_b));
    (-contact.distance > OVERLAP_TOLERANCE * smaller).then_some(Overlap {
        first: a,
        second: b,
        depth: -contact.distance,
        size: smaller,
    })
}

/// A radius about a body's centre of mass that its shape stays within, read from the shape
/// set's parts without building its geometry: every point of the shape lies within `d` of the
/// first part's place, and so does the centre of mass (it lies in the shape's convex hull),
/// so the shape lies within `2 d` of the centre of mass.
fn rough_reach(set: &ShapeSet) -> f64 {
    let Some(first) = set.parts.first() else {
        return 0.0;
    };
    let d = set
        .parts
        .iter()
        .map(|part| {
            let extent = match &part.geometry {
                Geometry::Sphere { radius } => *radius,
                Geometry::Polyhedron { vertices } => {
                    vertices.iter().map(|v| v.norm()).fold(0.0, f64::max)
                }
            };
            (part.pos - first.pos).norm() + extent
        })
        .fold(0.0, f64::max);
    2.0 * d
}

/// A scene's shape sets by name (the first of a name), indexed at the first look-up.
struct ShapeSets<'a> {
    scene: &'a Scene,
    // Fx, not SipHash: a thousand names hashed, none chosen adversarially.
    index: Option<FxHashMap<&'a str, &'a ShapeSet>>,
}

impl<'a> ShapeSets<'a> {
    fn new(scene: &'a Scene) -> ShapeSets<'a> {
        ShapeSets { scene, index: None }
    }

    /// The shape set called `name`.
    fn get(&mut self, name: &str) -> Option<&'a ShapeSet> {
        let scene = self.scene;
        let index = self.index.get_or_insert_with(|| {
            (scene.shapes.iter().rev())
                .map(|s| (s.name.as_str(), s))
                .collect()
        });
        index.get(name).copied()
    }
}

/// The trajectories in effect at the scene's start.
fn active_at_start(scene: &Scene) -> Vec<&Trajectory> {
    let start = scene.simulator.start;
    scene
        .trajectories
        .iter()
        .filter(|t| t.piece_at(start).is_some())
        .collect()
}

/// Where `body` is at the start and whether it is immovable then: fixed, or held by one of the
/// trajectories `active` at the start ([`active_at_start`]), whose position and rotation it
/// takes over its initial values.
fn placed_at_start(scene: &Scene, body: &Body, active: &[&Trajectory]) -> (BodyState, bool) {
    let start = scene.simulator.start;
    let mut state = BodyState::initial(body);
    let mut held = false;
    for trajectory in active {
        for attachment in trajectory
            .attachments
            .iter()
            .filter(|a| a.body == body.name)
        {
            held = true;
            match attachment.variable {
                ConstrainedVar::Position => state.position = trajectory.position(start),
                ConstrainedVar::Rotation => {
                    state.rotation = UnitQuaternion::from_scaled_axis(trajectory.position(start))
                }
                ConstrainedVar::Velocity | ConstrainedVar::AngularVelocity => {}
            }
        }
    }
    (state, held || body.fixed)
}

/// Whether bodies `a` and `b` are directly linked parts of one articulated body (the rule of
/// [`linked_parts`], for one pair).
fn linked_pair(scene: &Scene, a: usize, b: usize) -> bool {
    let (body_a, body_b) = (&scene.bodies[a], &scene.bodies[b]);
    if body_a.artbody.is_none() || body_a.artbody != body_b.artbody {
        return false;
    }
    scene.links.iter().any(|link| match &link.target {
        LinkTarget::Body { body2, .. } => {
            (link.body1 == body_a.name && *body2 == body_b.name)
                || (link.body1 == body_b.name && *body2 == body_a.name)
        }
        _ => false,
    })
}

/// Pairs `(i, j)`, `i < j`, of directly linked parts of one articulated body, which do not
/// collide (the collider's rule, 5.3.1).
fn linked_parts(scene: &Scene) -> HashSet<(usize, usize)> {
    let index = |name: &str| scene.bodies.iter().position(|b| b.name == name);
    let mut pairs = HashSet::new();
    for link in &scene.links {
        let LinkTarget::Body { body2, .. } = &link.target else {
            continue;
        };
        let (Some(a), Some(b)) = (index(&link.body1), index(body2)) else {
            continue;
        };
        let (art_a, art_b) = (&scene.bodies[a].artbody, &scene.bodies[b].artbody);
        if a != b && art_a.is_some() && art_a == art_b {
            pairs.insert((a.min(b), a.max(b)));
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::evaluate;

    const BALLS: &str = "shape_set ball desc {sub pos {0 0 0} sphere 0.5}\n";

    fn overlap(text: &str) -> Option<(String, String, f64)> {
        let scene = evaluate(text).unwrap();
        starting_overlap(&scene).map(|o| {
            (
                scene.bodies[o.first].name.clone(),
                scene.bodies[o.second].name.clone(),
                o.depth,
            )
        })
    }

    #[test]
    fn sunk_balls_are_found_touching_ones_are_not() {
        let (first, second, depth) = overlap(&format!(
            "{BALLS}body a shape ball init_pos {{0 0 0}}\nbody b shape ball init_pos {{0.75 0 0}}\n"
        ))
        .unwrap();
        assert_eq!((first.as_str(), second.as_str()), ("a", "b"));
        assert!((depth - 0.25).abs() < 1e-9, "{depth}");
        // Exactly touching, and apart.
        for x in ["1", "1.0000000001", "3"] {
            let text = format!(
                "{BALLS}body a shape ball init_pos {{0 0 0}}\nbody b shape ball init_pos {{{x} 0 0}}\n"
            );
            assert_eq!(overlap(&text), None, "{x}");
        }
    }

    #[test]
    fn the_later_body_is_blamed_and_the_message_says_what_to_do() {
        let text = format!(
            "{BALLS}body a shape ball init_pos {{0 0 0}}\nbody b shape ball init_pos {{5 0 0}}\n\
             body c shape ball init_pos {{0 0.5 0}}\n"
        );
        let scene = evaluate(&text).unwrap();
        let o = starting_overlap(&scene).unwrap();
        assert_eq!(scene.bodies[o.second].name, "c");
        let span = o.span(&scene);
        assert!(text[span.start..].starts_with("body c"), "{span:?}");
        let message = o.message(&scene);
        assert!(message.starts_with("body c overlaps body a by 5.000e-1 at the start (t = 0)"));
        assert!(message.contains("simulator collisions 0"), "{message}");
    }

    #[test]
    fn pairs_the_collider_ignores_are_not_refused() {
        let sunk = "body a shape ball init_pos {0 0 0}\nbody b shape ball init_pos {0.5 0 0}";
        // Collisions off.
        let off = format!("{BALLS}simulator collisions 0\n{sunk}\n");
        assert_eq!(overlap(&off), None);
        // Both fixed.
        let fixed = format!(
            "{BALLS}body a shape ball init_pos {{0 0 0}} fixed 1\nbody b shape ball init_pos {{0.5 0 0}} fixed 1\n"
        );
        assert_eq!(overlap(&fixed), None);
        // One fixed, one free: refused.
        let one = format!(
            "{BALLS}body a shape ball init_pos {{0 0 0}} fixed 1\nbody b shape ball init_pos {{0.5 0 0}}\n"
        );
        assert!(overlap(&one).is_some());
        // Directly linked parts of one articulated body (a joint).
        let joint = format!(
            "{BALLS}body a shape ball init_pos {{0 0 0}} artbody arm\n\
             body b shape ball init_pos {{0.5 0 0}} artbody arm\n\
             link body1 a offset1 {{0.25 0 0}} body2 b offset2 {{-0.25 0 0}} tightness 100\n"
        );
        assert_eq!(overlap(&joint), None);
        // Linked but of different articulated bodies: they collide, so they are refused.
        let apart = joint.replace("artbody arm\nlink", "artbody leg\nlink");
        assert!(overlap(&apart).is_some());
    }

    #[test]
    fn a_trajectory_in_effect_at_the_start_places_the_body() {
        // b's init_pos overlaps a, but its trajectory holds it far away at the start; and it
        // counts as immovable, so against a fixed body it is not refused.
        let text = format!(
            "{BALLS}body a shape ball init_pos {{0 0 0}}\nbody b shape ball init_pos {{0.5 0 0}}\n\
             trajectory T points {{{{0 5 0 0}} {{1 6 0 0}}}} body b var pos\n"
        );
        assert_eq!(overlap(&text), None);
        let into = text.replace("{0 5 0 0}", "{0 0.25 0 0}");
        assert!(overlap(&into).is_some());
        let fixed = into.replace("init_pos {0 0 0}", "init_pos {0 0 0} fixed 1");
        assert_eq!(overlap(&fixed), None);
    }

    /// After an edit of a scene that started apart, checking the edited bodies alone finds
    /// what checking the whole scene finds.
    #[test]
    fn an_edit_is_checked_as_the_whole_scene_is() {
        let before = format!(
            "{BALLS}shape_set slab desc {{box {{20 0.2 20}}}}\n\
             body floor shape slab init_pos {{0 -1 0}} fixed 1\n\
             body a shape ball init_pos {{0 0 0}} artbody arm\n\
             body b shape ball init_pos {{1.2 0 0}} artbody arm\n\
             body c shape ball init_pos {{3 0 0}}\n\
             body d shape ball init_pos {{6 0 0}}\n\
             link body1 a offset1 {{0.5 0 0}} body2 b offset2 {{-0.5 0 0}} tightness 100\n"
        );
        let old = evaluate(&before).unwrap();
        assert_eq!(starting_overlap(&old), None);
        // Each edit, and whether the edited scene starts overlapping.
        let edits = [
            // Into a neighbour, one later and one earlier in the text.
            (
                "c shape ball init_pos {3 0 0}",
                "c shape ball init_pos {1.5 0 0}",
                true,
            ),
            (
                "init_pos {0 0 0} artbody arm",
                "init_pos {2.6 0 0} artbody leg",
                true,
            ),
            // Into the floor, and into a linked part of its own articulated body (allowed).
            ("init_pos {6 0 0}", "init_pos {6 -0.6 0}", true),
            ("init_pos {1.2 0 0}", "init_pos {0.6 0 0}", false),
            // A shape grown into its neighbours, and a body added on top of another.
            ("sphere 0.5", "sphere 1.6", true),
            (
                "body d shape",
                "body e shape ball init_pos {6.4 0 0}\nbody d shape",
                true,
            ),
            // Moved but still apart.
            ("init_pos {6 0 0}", "init_pos {7 0 0}", false),
        ];
        for (from, to, overlapping) in edits {
            assert!(before.contains(from), "{from}");
            let new = evaluate(&before.replace(from, to)).unwrap();
            let changes = super::super::diff(&old, &new);
            let whole = starting_overlap(&new);
            assert_eq!(whole.is_some(), overlapping, "{to}");
            assert_eq!(starting_overlap_after_edit(&new, &changes), whole, "{to}");
        }
    }

    #[test]
    fn polyhedra_overlap_by_their_faces() {
        let text = "shape_set box desc {box {2 2 2}}\n\
                    body floor shape box init_pos {0 0 0} fixed 1\n\
                    body brick shape box init_pos {0 2 0}\n";
        assert_eq!(overlap(text), None, "resting face to face");
        let sunk = text.replace("{0 2 0}", "{0 1.9 0}");
        let (_, second, depth) = overlap(&sunk).unwrap();
        assert_eq!(second, "brick");
        assert!((depth - 0.1).abs() < 1e-9, "{depth}");
    }
}
