//! Incremental re-simulation after edits (dissertation 5.2.5) through [`Solver::update`]: what
//! an edit reuses from the motion and model before it. Each edit's result must equal
//! simulating the edited scene from scratch, and bodies the edit cannot reach keep their
//! tracks point for point.

use asgard::scene::{evaluate, Scene};
use asgard::sim::{Solver, Strategy};

mod motion_compare;
use motion_compare::largest_difference;

fn scene(text: &str) -> Scene {
    evaluate(text).unwrap_or_else(|e| panic!("{}", e.diagnostic("scene")))
}

fn solve(text: &str) -> Solver {
    let mut solver = Solver::new(scene(text), Strategy::EventDriven).unwrap();
    solver.run_to_end().unwrap();
    solver
}

/// Simulates `old`, moves to `new` incrementally and runs; also returns `new` from scratch.
fn edit(old: &str, new: &str) -> (Solver, Solver, Solver) {
    let before = solve(old);
    let mut solver = solve(old);
    let summary = solver.update(scene(new)).unwrap();
    assert!(!summary.from_scratch);
    solver.run_to_end().unwrap();
    (before, solver, solve(new))
}

/// Five balls falling side by side, far enough apart never to touch.
fn falling(gravity_of_b2: f64) -> String {
    format!(
        "simulator finish 1 step 0.1
shape_set ball desc {{sphere 0.3}}
for {{set i 0}} {{$i < 5}} {{incr i}} {{
    body b$i shape ball init_pos [list [expr {{3 * $i}}] 0 0] init_dpos {{0.5 1 0}}
    if {{$i == 2}} {{
        force body b$i gravity {{0 {gravity_of_b2} 0}}
    }} else {{
        force body b$i gravity {{0 -9.81 0}}
    }}
}}"
    )
}

#[test]
fn changing_one_bodys_gravity_changes_its_motion_and_only_its_motion() {
    let (before, after, scratch) = edit(&falling(-9.81), &falling(-1.0));
    let d = largest_difference(&after, &scratch, 0.05);
    assert!(
        d < 1e-9,
        "incremental and from-scratch motion differ by {d}"
    );
    let (old, new) = (before.motion(), after.motion());
    for b in 0..5 {
        if b == 2 {
            let (x, y) = (old.state(b, 1.0).unwrap(), new.state(b, 1.0).unwrap());
            // -9.81 / 2 against -1 / 2 metres of fall in one second.
            assert!((y.position.y - x.position.y - 4.405).abs() < 1e-6);
        } else {
            assert_eq!(old.track(b, 0.0), new.track(b, 0.0), "body b{b} changed");
        }
    }
}

/// A ball falling onto a fixed plate whose top is at `y = top`, and a ball far away.
fn plate(top: f64) -> String {
    format!(
        "simulator finish 1 step 0.05
shape_set ball desc {{sphere 0.25}}
shape_set slab desc {{box {{4 0.2 4}}}}
body ball shape ball init_pos {{0 1 0}}
force body ball gravity {{0 -9.81 0}}
body plate shape slab init_pos {{-2 {} -2}} fixed 1
body far shape ball init_pos {{20 0 0}} init_dpos {{0 1 0}}",
        top - 0.2
    )
}

#[test]
fn moving_a_fixed_body_moves_what_hits_it() {
    let (before, after, scratch) = edit(&plate(0.0), &plate(0.3));
    let d = largest_difference(&after, &scratch, 0.01);
    assert!(
        d < 1e-6,
        "incremental and from-scratch motion differ by {d}"
    );
    let times = |s: &Solver| -> Vec<f64> { s.collisions().iter().map(|c| c.time).collect() };
    assert!(!times(&scratch).is_empty());
    assert_eq!(times(&after).len(), times(&scratch).len());
    for (x, y) in times(&after).iter().zip(times(&scratch)) {
        assert!((x - y).abs() < 1e-6, "{x} against {y}");
    }
    assert!(times(&before)[0] > times(&after)[0]);
    let far = after.model().body_index("far").unwrap();
    assert_eq!(
        before.motion().track(far, 0.0),
        after.motion().track(far, 0.0)
    );
}

/// A hundred balls drifting on a 5 x 5 x 4 grid, some colliding, after `prefix`.
fn crowd(prefix: &str) -> String {
    format!(
        "simulator finish 1.5 step 0.1
shape_set ball desc {{sphere 0.3}}
{prefix}
for {{set i 0}} {{$i < 100}} {{incr i}} {{
    body b$i shape ball init_pos [list [expr {{$i % 5}}] [expr {{($i / 5) % 5}}] [expr {{$i / 25}}]] \\
        init_dpos [list [expr {{0.5 * sin($i)}}] [expr {{0.5 * cos(1.7 * $i)}}] [expr {{0.5 * sin(2.3 * $i)}}]]
}}"
    )
}

#[test]
fn a_fixed_body_added_before_the_others_leaves_their_motion_and_checks_in_place() {
    // The new body comes first, so every other body's index moves by one (their variables do
    // not: a fixed body has none): what the collider knew about each body must follow it to
    // its new index.
    let old = crowd("");
    let new = crowd("body newcomer shape ball init_pos {50 0 0} fixed 1");
    let (before, after, scratch) = edit(&old, &new);
    assert!(!scratch.collisions().is_empty());
    let d = largest_difference(&after, &scratch, 0.05);
    assert!(
        d < 1e-6,
        "incremental and from-scratch motion differ by {d}"
    );
    assert_eq!(after.collisions().len(), scratch.collisions().len());
    for b in 0..100 {
        assert_eq!(
            before.motion().track(b, 0.0),
            after.motion().track(b + 1, 0.0),
            "body b{b} changed"
        );
    }
}

#[test]
fn moving_one_ball_of_a_crowd_twice_equals_simulating_each_scene_anew() {
    // Each update starts from what the one before left: records and collisions carried twice.
    let place = |x: f64| crowd(&format!("body extra shape ball init_pos {{{x} 2.5 2.5}}"));
    let mut solver = solve(&place(7.0));
    for x in [2.5, 7.0] {
        solver.update(scene(&place(x))).unwrap();
        solver.run_to_end().unwrap();
        let scratch = solve(&place(x));
        let d = largest_difference(&solver, &scratch, 0.05);
        assert!(d < 1e-6, "at x = {x} the motion differs by {d}");
        assert_eq!(solver.collisions().len(), scratch.collisions().len());
    }
}

#[path = "rig/mod.rs"]
mod rig;
use proptest::prelude::*;
use rig::{EditKind, Rig};

/// Simulates `rig` and updates it through `edits` (kind, body, amount), comparing each
/// update's motion with simulating the edited scene from scratch.
fn check_edits(mut rig: Rig, edits: &[(usize, usize, f64)]) {
    let mut solver = solve(&rig.text());
    for &(kind, at, amount) in edits {
        let kind = EditKind::ALL[kind % EditKind::ALL.len()];
        rig.edit(kind, at, amount);
        let text = rig.text();
        solver
            .update(scene(&text))
            .unwrap_or_else(|e| panic!("{kind:?}: {}", e.diagnostic("scene", &text)));
        solver.run_to_end().unwrap();
        let scratch = solve(&text);
        // The edited bodies' equations are built into a pool that holds the old ones too,
        // so their terms may be summed in another order than a fresh compile's: the motion
        // agrees to the step control's tolerance (playback within 1e-3 of a position's
        // magnitude, some metres here), not bit for bit.
        let d = largest_difference(&solver, &scratch, 0.05);
        assert!(
            d < 1e-2,
            "after {kind:?} of body {at} the motion differs from scratch by {d}:\n{text}"
        );
        assert_eq!(
            solver.collisions().len(),
            scratch.collisions().len(),
            "{kind:?}"
        );
    }
}

proptest! {
    // Each case simulates a few small scenes several times: kept few for the suite's budget.
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Random sequences of edits of every kind on generated scenes: the incremental motion
    /// equals simulating each edited scene from scratch.
    #[test]
    fn any_sequence_of_edits_equals_simulating_from_scratch(
        n in 1usize..4,
        edits in prop::collection::vec((0usize..17, 0usize..6, 0.0f64..1.0), 1..4),
    ) {
        check_edits(Rig::new(n, 1.0), &edits);
    }
}

#[test]
fn every_kind_of_edit_equals_simulating_from_scratch() {
    let edits: Vec<(usize, usize, f64)> = (0..EditKind::ALL.len())
        .map(|k| (k, k % 5, 0.3 + 0.04 * k as f64))
        .collect();
    check_edits(Rig::new(3, 1.0), &edits);
}

#[test]
fn a_body_inserted_at_the_top_of_the_text_resets_only_that_bodys_components() {
    let rig = Rig::new(4, 1.0);
    let mut edited = rig.clone();
    edited.edit(EditKind::AddBodyAtTop, 0, 0.5);
    let before = solve(&rig.text());
    let mut solver = solve(&rig.text());
    let summary = solver.update(scene(&edited.text())).unwrap();
    assert!(!summary.from_scratch);
    let newcomer = solver.model().bodies()[0].vars.expect("the new body moves");
    let mut own: Vec<_> = newcomer
        .all()
        .map(|v| solver.simulation().partition().component_of(v))
        .collect();
    own.sort_unstable();
    own.dedup();
    let mut reset = summary.report.reset.clone();
    reset.sort_unstable();
    assert_eq!(reset, own, "only the new body's components start over");
    assert!(summary.report.backed_up.is_empty());
    solver.run_to_end().unwrap();
    let (old, new) = (before.motion(), solver.motion());
    for b in 0..before.model().bodies().len() {
        assert_eq!(old.track(b, 0.0), new.track(b + 1, 0.0), "body {b} changed");
    }
    let d = largest_difference(&solver, &solve(&edited.text()), 0.05);
    assert!(d < 1e-6, "the motion differs from scratch by {d}");
}
