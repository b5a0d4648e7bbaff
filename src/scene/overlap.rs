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

use super::model::{ConstrainedVar, LinkTarget, Scene};
use super::shapes::SceneShapes;
use super::state::BodyState;
use crate::geom::broad::SweepAndPrune;
use crate::geom::distance::{closest_between_shapes, ShapePairCache};
use crate::geom::{Aabb, Shape};
use crate::lang::span::Span;
use nalgebra::UnitQuaternion;
use std::collections::HashSet;

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
    let start = scene.simulator.start;
    let placed = (0..scene.bodies.len())
        .map(|b| {
            let (state, held) = state_at_start(scene, b, start);
            (state, held || scene.bodies[b].fixed)
        })
        .collect::<Vec<_>>();
    overlaps(scene, &placed)?
        .into_iter()
        .min_by_key(|o| (o.second, o.first))
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
        if -contact.distance > OVERLAP_TOLERANCE * smaller {
            found.push(Overlap {
                first: a,
                second: b,
                depth: -contact.distance,
                size: smaller,
            });
        }
    }
    Some(found)
}

/// Where body `b` is at `start` and whether a trajectory holds any of its variables then
/// (which makes it immovable in collisions): its initial values, with the position and rotation
/// of trajectories in effect at the start.
fn state_at_start(scene: &Scene, b: usize, start: f64) -> (BodyState, bool) {
    let body = &scene.bodies[b];
    let mut state = BodyState::initial(body);
    let mut held = false;
    for trajectory in &scene.trajectories {
        if trajectory.piece_at(start).is_none() {
            continue;
        }
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
    (state, held)
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
