//! Resting contact and friction against the closed forms of mechanics (issue 24): a box that
//! slides to a stop, a box that slides down a steep ramp and stays on a shallow one, a ball
//! that rolls down a ramp, a spinning ball dropped on the floor that leaves rolling, an
//! inelastic ball that bounces as its restitution says and then lies still, stacks of ten and
//! of forty boxes and a running-bond wall that stand and fall asleep; the same closed forms on
//! other boxes, ramps and balls.

use asgard::scene::evaluate;
use asgard::sim::physics::BodyState;
use asgard::sim::{Solver, Strategy};

const G: f64 = 9.81;

fn solve(text: &str) -> Solver {
    let scene = evaluate(text).unwrap_or_else(|e| panic!("{}", e.diagnostic("scene")));
    let mut solver = Solver::new(scene, Strategy::EventDriven)
        .unwrap_or_else(|e| panic!("{}", e.diagnostic("scene", text)));
    if let Err(e) = solver.run_to_end() {
        panic!("{}", e.diagnostic("scene", text));
    }
    solver
}

fn state(solver: &Solver, name: &str, t: f64) -> BodyState {
    let body = solver.model().body_index(name).unwrap();
    solver.motion().state(body, t).unwrap()
}

/// A 0.2 m cube on a fixed slab tilted by `degrees` about z (its top face through the origin),
/// face down on it at rest, both with friction coefficient `mu`.
fn box_on_ramp(degrees: f64, mu: f64, finish: f64) -> String {
    brick_on_ramp(degrees, mu, finish, [0.2, 0.2, 0.2])
}

/// A box of `size` (its height along y) on the ramp of [`box_on_ramp`].
fn brick_on_ramp(degrees: f64, mu: f64, finish: f64, size: [f64; 3]) -> String {
    let [x, y, z] = size;
    let half = y / 2.0;
    format!(
        "simulator finish {finish}
set th [expr {{{degrees} * acos(-1) / 180}}]
shape_set slab desc {{box {{20 0.2 4}}}}
shape_set cube desc {{box {{{x} {y} {z}}}}}
body ramp shape slab fixed 1 friction {mu} init_rot [list 0 0 $th] \\
    init_pos [list [expr {{0.1 * sin($th)}}] [expr {{-0.1 * cos($th)}}] 0]
body box shape cube friction {mu} restitution 0 init_rot [list 0 0 $th] \\
    init_pos [list [expr {{-{half} * sin($th)}}] [expr {{{half} * cos($th)}}] 0]
force body box gravity {{0 -9.81 0}}
"
    )
}

/// A box of `size` (its height along y) sent along a fixed floor at `speed`, both with friction
/// `mu`, for `finish` seconds: checks that it stops after v² / (2 µ g), within 2 %, and is still.
fn slides_to_a_stop(size: [f64; 3], mu: f64, speed: f64, restitution: f64, finish: f64) -> Solver {
    let [x, y, z] = size;
    let solver = solve(&format!(
        "simulator finish {finish}
shape_set slab desc {{box {{60 0.2 20}}}}
shape_set cube desc {{box {{{x} {y} {z}}}}}
body floor shape slab init_pos {{0 -0.1 0}} fixed 1 friction {mu}
body box shape cube init_pos {{0 {half} 0}} init_dpos {{{speed} 0 0}} friction {mu} \\
    restitution {restitution}
force body box gravity {{0 -9.81 0}}
",
        half = y / 2.0
    ));
    let expected = speed * speed / (2.0 * mu * G);
    let end = state(&solver, "box", finish);
    assert!(
        (end.position.x - expected).abs() < 0.02 * expected,
        "stopped at {} instead of {expected}",
        end.position.x
    );
    assert!(end.velocity.norm() < 1e-6, "{:?}", end.velocity);
    assert!(end.angular_velocity.norm() < 1e-6);
    solver
}

#[test]
fn a_box_pushed_along_the_floor_slides_to_a_stop_where_friction_says() {
    // v² / (2 µ g) = 9 / (2 · 0.3 · 9.81) = 1.5291 m, reached after v / (µ g) = 1.019 s.
    let solver = slides_to_a_stop([0.2, 0.2, 0.2], 0.3, 3.0, 0.0, 2.0);
    // Halfway through the slide it is as fast as a uniform deceleration µ g leaves it.
    let half = state(&solver, "box", 0.5);
    assert!((half.velocity.x - (3.0 - 0.3 * G * 0.5)).abs() < 0.02);
    assert!((half.position.y - 0.1).abs() < 1e-3, "{}", half.position.y);
}

#[test]
fn a_box_slides_down_a_steep_ramp_at_g_sin_minus_mu_cos() {
    let solver = solve(&box_on_ramp(30.0, 0.3, 1.0));
    let th = 30f64.to_radians();
    let a = G * (th.sin() - 0.3 * th.cos());
    let (start, end) = (state(&solver, "box", 0.0), state(&solver, "box", 1.0));
    let moved = (end.position - start.position).norm();
    assert!(
        (moved - a / 2.0).abs() < 0.01 * a / 2.0,
        "{moved} m instead of {}",
        a / 2.0
    );
    assert!((end.velocity.norm() - a).abs() < 0.01 * a);
    assert!(end.angular_velocity.norm() < 1e-3, "it tumbled");
}

#[test]
fn a_box_stays_on_a_ramp_shallower_than_its_friction_angle() {
    // tan 10° = 0.18 < 0.3.
    let solver = solve(&box_on_ramp(10.0, 0.3, 2.0));
    let (start, end) = (state(&solver, "box", 0.0), state(&solver, "box", 2.0));
    let moved = (end.position - start.position).norm();
    assert!(moved < 1e-4, "it crept {moved} m");
    assert!(end.velocity.norm() < 1e-6);
}

/// A ball of radius `r` released on a fixed ramp tilted by `degrees`, both with friction `mu`:
/// checks that after a second it rolls at (5/7) g sin θ, within 1 %, without sliding (the
/// contact point at rest, ω r = v).
fn rolls_down(degrees: f64, mu: f64, r: f64) {
    let solver = solve(&format!(
        "simulator finish 1
set th [expr {{{degrees} * acos(-1) / 180}}]
shape_set slab desc {{box {{40 0.2 4}}}}
shape_set ball desc {{sphere {r}}}
body ramp shape slab init_pos {{0 -0.1 0}} init_rot [list 0 0 $th] fixed 1 friction {mu}
body ball shape ball friction {mu} restitution 0 \\
    init_pos [list [expr {{-{d} * sin($th)}}] [expr {{-0.1 + {d} * cos($th)}}] 0]
force body ball gravity {{0 -9.81 0}}
",
        d = r + 0.1
    ));
    let a = 5.0 / 7.0 * G * degrees.to_radians().sin();
    let end = state(&solver, "ball", 1.0);
    let speed = end.velocity.norm();
    assert!(
        (speed - a).abs() < 0.01 * a,
        "{degrees}°: {speed} m/s instead of {a}"
    );
    assert!((end.angular_velocity.norm() * r - speed).abs() < 0.01 * speed);
}

#[test]
fn a_ball_rolls_down_a_ramp_at_five_sevenths_g_sin() {
    rolls_down(30.0, 0.5, 0.1);
}

/// The closed forms above on other boxes, ramps and balls than the tests' own, as an
/// independent measurer would take them: a slab with restitution sliding to a stop, a steeper
/// ramp, a slab on a ramp just shallower than its friction angle, and balls of other sizes on
/// other slopes.
#[test]
fn the_closed_forms_hold_for_other_boxes_ramps_and_balls() {
    slides_to_a_stop([0.5, 0.1, 0.3], 0.5, 5.0, 0.2, 2.2);

    // 40° with µ 0.5 slides; 25° with µ 0.5 (tan 25° = 0.466) holds a flat slab.
    let solver = solve(&box_on_ramp(40.0, 0.5, 1.0));
    let th = 40f64.to_radians();
    let a = G * (th.sin() - 0.5 * th.cos());
    let end = state(&solver, "box", 1.0);
    assert!(
        (end.velocity.norm() - a).abs() < 0.02 * a,
        "{:?}",
        end.velocity
    );
    let solver = solve(&brick_on_ramp(25.0, 0.5, 3.0, [0.4, 0.1, 0.2]));
    let moved = (state(&solver, "box", 3.0).position - state(&solver, "box", 0.0).position).norm();
    assert!(moved < 1e-4, "it crept {moved} m");

    rolls_down(45.0, 0.5, 0.1);
    rolls_down(20.0, 0.3, 0.3);
}

#[test]
fn an_inelastic_ball_bounces_by_its_restitution_until_its_bounces_are_too_short_then_lies_still() {
    // Dropped from 1 m onto the floor with restitution 0.5: impacts at v0 = sqrt(2 g h),
    // v0/2, v0/4, v0/8, each bounce rising to h/4 of the one before. The next arrival, at
    // v0/16 = 0.28 m/s, would bounce for 2 (v0/32) / g = 28 ms: less than four 10 ms contact
    // ticks, so the ball is stopped there and held by the floor (see `resting_windows`).
    let solver = solve(
        "simulator finish 2
shape_set slab desc {box {20 0.2 20}}
shape_set ball desc {sphere 0.1}
body floor shape slab init_pos {0 -0.1 0} fixed 1 friction 0
body ball shape ball init_pos {0 1.1 0} friction 0 restitution 0.5
force body ball gravity {0 -9.81 0}
",
    );
    let v0 = (2.0 * G).sqrt();
    let mut t = v0 / G;
    let mut speed = v0;
    for bounce in 1..=4 {
        speed /= 2.0;
        t += speed / G;
        let apex = state(&solver, "ball", t).position.y - 0.1;
        let expected = speed * speed / (2.0 * G);
        // Within 20 µm: an impact is found within a small distance of touching.
        assert!(
            (apex - expected).abs() < 2e-5,
            "bounce {bounce}: apex {apex} m at {t} s, expected {expected} m"
        );
        t += speed / G;
    }
    let impacts: Vec<_> = solver
        .collisions()
        .into_iter()
        .filter(|c| !c.resting)
        .collect();
    assert_eq!(impacts.len(), 4, "{impacts:?}");
    let end = state(&solver, "ball", 2.0);
    assert!((end.position.y - 0.1).abs() < 1e-4, "{:?}", end.position);
    assert!(end.velocity.norm() < 1e-6, "{:?}", end.velocity);
}

#[test]
fn a_spinning_ball_dropped_on_the_floor_leaves_rolling() {
    // Friction at the impacts and then along the floor turns spin into rolling: with the
    // moment of inertia 2/5 m r², the rolling speed is 2/7 of ω₀ r whatever the friction.
    let solver = solve(
        "simulator finish 2
shape_set slab desc {box {20 0.2 20}}
shape_set ball desc {sphere 0.1}
body floor shape slab init_pos {0 -0.1 0} fixed 1 friction 0.5
body ball shape ball init_pos {0 0.5 0} init_drot {0 0 -20} friction 0.5 restitution 0.5
force body ball gravity {0 -9.81 0}
",
    );
    let end = state(&solver, "ball", 2.0);
    let rolling = 2.0 / 7.0 * 20.0 * 0.1;
    assert!(
        (end.velocity.x - rolling).abs() < 0.01 * rolling,
        "{:?}",
        end.velocity
    );
    assert!((end.angular_velocity.z * -0.1 - end.velocity.x).abs() < 0.01 * rolling);
    assert!(
        end.velocity.y.abs() < 1e-3,
        "still bouncing: {:?}",
        end.velocity
    );
}

#[test]
fn a_stack_of_ten_boxes_stands_and_falls_asleep() {
    // Issue 24: less than a millimetre at the end. While the stack settles the top box
    // leans by up to 1.03 mm and comes back to 0.90 mm, where it falls asleep
    // (docs/BENCHMARKS.md, contact).
    stack_stands(10, "0.2 0.2 0.2", "restitution 0", 1.5e-3);
}

/// A stack taller than an exact solve of its island once took (240 unknowns: twenty boxes with
/// friction): forty thin boxes rocked, rose on their overlap pushes and fell.
#[test]
fn a_stack_of_forty_thin_boxes_with_friction_stands_and_falls_asleep() {
    stack_stands(40, "0.3 0.1 0.3", "restitution 0.1 friction 0.5", 1e-3);
}

/// `n` boxes of `size` with `properties`, stacked on a floor for 10 s: every box ends less than
/// a millimetre from its start and never moves more than `farthest` from it, and from 5 s on
/// none moves faster than 1 mm/s.
fn stack_stands(n: usize, size: &str, properties: &str, farthest: f64) {
    let height: f64 = size.split(' ').nth(1).unwrap().parse().unwrap();
    let solver = solve(&format!(
        "simulator finish 10
shape_set slab desc {{box {{10 0.2 10}}}}
shape_set cube desc {{box {{{size}}}}}
body floor shape slab init_pos {{0 -0.1 0}} fixed 1
for {{set i 0}} {{$i < {n}}} {{incr i}} {{
    body b$i shape cube init_pos [list 0 [expr {{{height} / 2 + {height} * $i}}] 0] {properties}
    force body b$i gravity {{0 -9.81 0}}
}}
"
    ));
    for i in 0..n {
        let name = format!("b{i}");
        let start = state(&solver, &name, 0.0);
        let mut moved: f64 = 0.0;
        for k in 0..=100 {
            let t = 0.1 * k as f64;
            let s = state(&solver, &name, t);
            moved = moved.max((s.position - start.position).norm());
            if t >= 5.0 {
                assert!(s.velocity.norm() < 1e-3, "{name} at {t}: {:?}", s.velocity);
            }
        }
        let end = state(&solver, &name, 10.0);
        let drift = (end.position - start.position).norm();
        assert!(drift < 1e-3, "{name} ended {drift} m from its start");
        assert!(moved < farthest, "{name} moved {moved} m");
    }
}

/// A running-bond wall of fifty-five bricks, ten courses of six and five, each shifted by half
/// a brick and built a millimetre above the one below, left standing with no ball: its courses
/// settle onto each other and it falls asleep, no brick sliding sideways. A resting island's
/// sweeps that stop before they converge leave corners slipping at the edge of their cones,
/// and a rule that took that for a slide let such a wall creep on at 2 cm/s (docs/BENCHMARKS.md,
/// "Three architecture steps measured and not kept").
#[test]
fn a_wall_left_standing_settles_and_falls_asleep() {
    let solver = solve(
        "simulator finish 2.5
shape_set brick desc {box {0.3 0.15 0.15}}
shape_set floor desc {box {10 0.2 4}}
body ground shape floor init_pos {0 -0.1 0} fixed 1 restitution 0.3 friction 0.6
for {set c 0} {$c < 10} {incr c} {
    set shift [expr {($c % 2) * 0.15}]
    for {set i 0} {$i < 6 - $c % 2} {incr i} {
        body b${c}_$i shape brick mass 0.8 restitution 0.1 friction 0.6 \\
            init_pos [list [expr {-0.9 + $i * 0.301 + $shift}] [expr {0.0755 + $c * 0.151}] 0]
        force body b${c}_$i gravity {0 -9.81 0}
    }
}
",
    );
    for c in 0..10 {
        for i in 0..6 - c % 2 {
            let name = format!("b{c}_{i}");
            let start = state(&solver, &name, 0.0);
            for k in 0..=50 {
                let t = 0.05 * k as f64;
                let s = state(&solver, &name, t);
                let moved = s.position - start.position;
                let sideways = moved.x.hypot(moved.z);
                assert!(sideways < 5e-3, "{name} at {t} slid {sideways} m sideways");
                // The courses close their millimetre gaps: ten of them under the top one.
                assert!(
                    moved.y.abs() < 1.2e-2,
                    "{name} at {t} moved {} m vertically",
                    moved.y
                );
                if t >= 1.5 {
                    assert!(s.velocity.norm() < 1e-3, "{name} at {t}: {:?}", s.velocity);
                }
            }
        }
    }
}

#[test]
fn the_energy_ledger_of_a_closed_elastic_break_balances() {
    // examples/billiards.asg: elastic, frictionless balls on a table, no force doing work.
    // Every impact conserves kinetic energy, so the ledger's impacts, work and the
    // integrator's remainder are all within rounding of nothing.
    let text = include_str!("../examples/billiards.asg");
    let solver = solve(text);
    let ledger = solver.energy(f64::INFINITY);
    let scale = ledger.kinetic_start;
    assert!(scale > 1.0);
    assert!(ledger.change().abs() < 1e-9 * scale, "{}", ledger.change());
    assert!(ledger.total_instantaneous().abs() < 1e-9 * scale);
    assert!(ledger.drift().abs() < 1e-9 * scale, "{}", ledger.drift());
    assert!(!solver.collisions().is_empty());
}
