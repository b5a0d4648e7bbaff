//! `scene::diff`: elements added, removed and changed, which aspect changed, stable matching
//! of unnamed forces and links, and the bodies whose equations or initial values changed.

use asgard::scene::{diff, evaluate, Aspects, ChangeKind, ElementKind, Scene, SceneDiff};

fn scene(text: &str) -> Scene {
    evaluate(text).unwrap_or_else(|e| panic!("{}", e.diagnostic("test.asg")))
}

fn between(old: &str, new: &str) -> SceneDiff {
    diff(&scene(old), &scene(new))
}

/// (kind, old index, new index, change) of every change.
fn summary(d: &SceneDiff) -> Vec<(ElementKind, Option<usize>, Option<usize>, ChangeKind)> {
    d.changes
        .iter()
        .map(|c| (c.kind, c.old, c.new, c.change))
        .collect()
}

fn names(set: &std::collections::BTreeSet<String>) -> Vec<&str> {
    set.iter().map(String::as_str).collect()
}

const BASE: &str = "\
shape_set ball desc {sphere 0.5}
shape_set brick desc {box {1 1 1} color red}
body a shape ball init_pos {0 0 0}
body b shape brick init_pos {2 0 0}
body c shape ball init_pos {4 0 0}
force body a y -9.8
force body a x {sin($t)}
force body b gravity {0 -9.8 0}
link body1 a body2 b tightness 100
trajectory T points {{0 0 0 0} {1 1 0 0}} body c var pos
";

#[test]
fn the_same_scene_differs_in_nothing() {
    let d = between(BASE, &format!("# a comment moves everything\n\n{BASE}"));
    assert!(d.is_empty(), "{d:?}");
    assert!(d.equations_changed.is_empty() && d.initial_changed.is_empty());
}

#[test]
fn inserting_a_force_before_another_on_the_same_body_adds_only_it() {
    let new = BASE.replace(
        "force body a y -9.8\n",
        "force body a z 1\nforce body a y -9.8\n",
    );
    let d = between(BASE, &new);
    assert_eq!(
        summary(&d),
        [(ElementKind::Force, None, Some(0), ChangeKind::Added)]
    );
    assert_eq!(names(&d.equations_changed), ["a"]);
    assert!(d.initial_changed.is_empty());
}

#[test]
fn a_changed_force_is_paired_with_its_old_self() {
    let new = BASE.replace("force body a y -9.8", "force body a y -9.81");
    let d = between(BASE, &new);
    assert_eq!(
        summary(&d),
        [(
            ElementKind::Force,
            Some(0),
            Some(0),
            ChangeKind::Changed(Aspects::EQUATIONS)
        )]
    );
}

#[test]
fn removing_a_force() {
    let new = BASE.replace("force body a x {sin($t)}\n", "");
    let d = between(BASE, &new);
    assert_eq!(
        summary(&d),
        [(ElementKind::Force, Some(1), None, ChangeKind::Removed)]
    );
    assert_eq!(names(&d.equations_changed), ["a"]);
}

#[test]
fn body_aspects() {
    let initial = between(BASE, &BASE.replace("init_pos {2 0 0}", "init_pos {2 1 0}"));
    assert_eq!(
        summary(&initial),
        [(
            ElementKind::Body,
            Some(1),
            Some(1),
            ChangeKind::Changed(Aspects::INITIAL)
        )]
    );
    assert_eq!(names(&initial.initial_changed), ["b"]);
    assert!(initial.equations_changed.is_empty());

    let mass = between(
        BASE,
        &BASE.replace("body c shape ball", "body c shape ball mass 3"),
    );
    assert_eq!(
        summary(&mass),
        [(
            ElementKind::Body,
            Some(2),
            Some(2),
            ChangeKind::Changed(Aspects::EQUATIONS)
        )]
    );
    assert_eq!(names(&mass.equations_changed), ["c"]);

    let colour = between(
        BASE,
        &BASE.replace("body c shape ball", "body c shape ball color blue"),
    );
    assert_eq!(
        summary(&colour),
        [(
            ElementKind::Body,
            Some(2),
            Some(2),
            ChangeKind::Changed(Aspects::APPEARANCE)
        )]
    );
    assert!(colour.equations_changed.is_empty() && colour.initial_changed.is_empty());
}

#[test]
fn a_shape_change_changes_the_equations_of_its_bodies() {
    let d = between(BASE, &BASE.replace("sphere 0.5", "sphere 0.6"));
    assert_eq!(
        summary(&d),
        [(
            ElementKind::Shape,
            Some(0),
            Some(0),
            ChangeKind::Changed(Aspects::EQUATIONS)
        )]
    );
    assert_eq!(names(&d.equations_changed), ["a", "c"]);
    let colour = between(BASE, &BASE.replace("color red", "color green"));
    assert_eq!(
        summary(&colour),
        [(
            ElementKind::Shape,
            Some(1),
            Some(1),
            ChangeKind::Changed(Aspects::APPEARANCE)
        )]
    );
    assert!(colour.equations_changed.is_empty());
}

#[test]
fn a_trajectory_change_reaches_the_bodies_it_drives_or_that_use_it() {
    let text = format!("{BASE}force body b x {{[T x]}}\n");
    let d = between(&text, &text.replace("{1 1 0 0}", "{1 2 0 0}"));
    assert_eq!(
        summary(&d),
        [(
            ElementKind::Trajectory,
            Some(0),
            Some(0),
            ChangeKind::Changed(Aspects::EQUATIONS)
        )]
    );
    assert_eq!(names(&d.equations_changed), ["b", "c"]);
}

#[test]
fn links_change_both_ends() {
    let d = between(BASE, &BASE.replace("tightness 100", "tightness 200"));
    assert_eq!(
        summary(&d),
        [(
            ElementKind::Link,
            Some(0),
            Some(0),
            ChangeKind::Changed(Aspects::EQUATIONS)
        )]
    );
    assert_eq!(names(&d.equations_changed), ["a", "b"]);
}

#[test]
fn added_and_removed_bodies() {
    let new = BASE
        .replace(
            "body c shape ball init_pos {4 0 0}\n",
            "body d shape ball\n",
        )
        .replace("body c var pos", "body d var pos");
    let d = between(BASE, &new);
    assert_eq!(
        summary(&d),
        [
            (ElementKind::Body, None, Some(2), ChangeKind::Added),
            (ElementKind::Body, Some(2), None, ChangeKind::Removed),
            (
                ElementKind::Trajectory,
                Some(0),
                Some(0),
                ChangeKind::Changed(Aspects::EQUATIONS)
            ),
        ]
    );
    // The new body is new in every respect; the removed one is not in the new scene.
    assert_eq!(names(&d.equations_changed), ["d"]);
    assert_eq!(names(&d.initial_changed), ["d"]);
}

#[test]
fn appearance_only_and_simulator_settings() {
    let lit = format!("{BASE}lightsource l pos {{0 5 0}}\ncamera scale 2\n");
    let d = between(
        &lit,
        &lit.replace("pos {0 5 0}", "pos {0 6 0}")
            .replace("scale 2", "scale 3"),
    );
    assert_eq!(
        summary(&d),
        [
            (
                ElementKind::Light,
                Some(0),
                Some(0),
                ChangeKind::Changed(Aspects::APPEARANCE)
            ),
            (
                ElementKind::Camera,
                Some(0),
                Some(0),
                ChangeKind::Changed(Aspects::APPEARANCE)
            ),
        ]
    );
    assert!(d.equations_changed.is_empty() && d.initial_changed.is_empty());
    let d = between(BASE, &format!("{BASE}simulator finish 3\n"));
    assert_eq!(
        summary(&d),
        [(
            ElementKind::Simulator,
            None,
            Some(0),
            ChangeKind::Changed(Aspects::EQUATIONS)
        )]
    );
    assert!(d.simulator_changed());
}

#[test]
fn loops_rebuilt_with_the_same_values_are_unchanged() {
    let text = "shape_set s desc {sphere 1}\nforeach i {1 2 3} { body b$i shape s init_pos [list $i 0 0]; force body b$i y {-9.8 * [b$i mass]} }\n";
    let d = between(
        text,
        &text.replace("foreach i {1 2 3}", "foreach i { 1 2 3 }"),
    );
    assert!(d.is_empty(), "{d:?}");
    let d = between(
        text,
        &text.replace("foreach i {1 2 3}", "foreach i {1 2 3 4}"),
    );
    assert_eq!(
        summary(&d),
        [
            (ElementKind::Body, None, Some(3), ChangeKind::Added),
            (ElementKind::Force, None, Some(3), ChangeKind::Added),
        ]
    );
}

#[test]
fn a_body_added_at_the_top_pairs_the_others_by_their_common_run_at_the_end() {
    let top = BASE
        .replace(
            "body a shape",
            "body z shape ball init_pos {9 0 0}\nbody a shape",
        )
        .replace(
            "body b shape brick init_pos {2 0 0}",
            "body b shape brick init_pos {3 0 0}",
        );
    let d = between(BASE, &top);
    assert_eq!(
        summary(&d),
        [
            (ElementKind::Body, None, Some(0), ChangeKind::Added),
            (
                ElementKind::Body,
                Some(1),
                Some(2),
                ChangeKind::Changed(Aspects::INITIAL)
            ),
        ]
    );
    assert_eq!(names(&d.initial_changed), ["b", "z"]);
    assert!(!d.bodies_in_place && d.bodies_in_order);
}

#[test]
fn bodies_in_order_says_whether_the_kept_bodies_pair_up_in_turn() {
    let in_order = |new: &str| {
        let d = between(BASE, new);
        (d.bodies_in_place, d.bodies_in_order)
    };
    assert_eq!(in_order(BASE), (true, true));
    // Added before every body, added between, deleted: the others keep their order.
    let top = BASE.replace(
        "body a shape",
        "body z shape ball init_pos {9 0 0}\nbody a shape",
    );
    assert_eq!(in_order(&top), (false, true));
    let between_them = BASE.replace(
        "body c shape",
        "body z shape ball init_pos {9 0 0}\nbody c shape",
    );
    assert_eq!(in_order(&between_them), (false, true));
    let deleted = between(&top, BASE);
    assert_eq!(
        (deleted.bodies_in_place, deleted.bodies_in_order),
        (false, true)
    );
    // Two bodies swap places, or a body is deleted and one added under its name elsewhere.
    let swapped = BASE
        .replace("body a shape ball init_pos {0 0 0}\n", "")
        .replace(
            "body c shape",
            "body a shape ball init_pos {0 0 0}\nbody c shape",
        );
    assert_eq!(in_order(&swapped), (false, false));
    // A name used twice in the new scene (which evaluating refuses, so made by hand): between
    // the common runs of names at the start and the end, two bodies pair up with one; within
    // either run, the second is added (a model update checks added names against the kept
    // ones).
    let mut twice = scene(BASE);
    let [a, b] = [twice.bodies[0].clone(), twice.bodies[1].clone()];
    twice.bodies.splice(0..2, [b.clone(), b, a]);
    assert!(!diff(&scene(BASE), &twice).bodies_in_order);
    let mut twice = scene(&top);
    twice.bodies.insert(3, twice.bodies[2].clone());
    let d = diff(&scene(BASE), &twice);
    assert!(d.bodies_in_order);
    assert_eq!(
        summary(&d),
        [
            (ElementKind::Body, None, Some(0), ChangeKind::Added),
            (ElementKind::Body, None, Some(2), ChangeKind::Added),
        ]
    );
    let mut twice = scene(BASE);
    twice.bodies.insert(2, twice.bodies[1].clone());
    let d = diff(&scene(BASE), &twice);
    assert!(d.bodies_in_order);
    assert_eq!(
        summary(&d),
        [(ElementKind::Body, None, Some(2), ChangeKind::Added)]
    );
}
