//! Collision detection, response and back-up (dissertation 5.2.2-5.2.3, 5.3), validated
//! against mechanics: conservation laws, exchanged velocities, no tunnelling, resting contact,
//! agreement between the simulation strategies, and untouched bodies keeping their tracks.

use asgard::geom::distance::{closest_between_shapes, ShapePairCache};
use asgard::geom::Shape;
use asgard::scene::model::LinkTarget;
use asgard::scene::{evaluate, Scene};
use asgard::sim::collide::Collision;
use asgard::sim::physics::{BodyState, SceneMotion};
use asgard::sim::{Solver, Strategy};
use nalgebra::{Isometry3, Translation3, Vector3};

mod motion_compare;
use motion_compare::largest_difference;

fn scene(text: &str) -> Scene {
    evaluate(text).unwrap_or_else(|e| panic!("{}", e.diagnostic("scene")))
}

fn solve_with(text: &str, strategy: Strategy) -> Solver {
    let mut solver = Solver::new(scene(text), strategy)
        .unwrap_or_else(|e| panic!("{}", e.diagnostic("scene", text)));
    if let Err(e) = solver.run_to_end() {
        panic!("{}", e.diagnostic("scene", text));
    }
    solver
}

fn solve(text: &str) -> Solver {
    solve_with(text, Strategy::EventDriven)
}

fn state(solver: &Solver, name: &str, t: f64) -> BodyState {
    let body = solver.model().body_index(name).unwrap();
    solver.motion().state(body, t).unwrap()
}

fn names(solver: &Solver, c: &Collision) -> (String, String) {
    let bodies = solver.model().bodies();
    (
        bodies[c.bodies.0].name.clone(),
        bodies[c.bodies.1].name.clone(),
    )
}

/// Total linear momentum, angular momentum about the origin and kinetic energy of the moving
/// bodies at `t` (after any jump there).
fn totals(motion: &SceneMotion, t: f64) -> (Vector3<f64>, Vector3<f64>, f64) {
    let mut p = Vector3::zeros();
    let mut l = Vector3::zeros();
    let mut e = 0.0;
    for (b, body) in motion.bodies().iter().enumerate() {
        if body.is_fixed() {
            continue;
        }
        let s = motion.state(b, t).unwrap();
        let momentum = body.world_inertia(&s.rotation) * s.angular_velocity;
        p += body.mass * s.velocity;
        l += s.position.cross(&(body.mass * s.velocity)) + momentum;
        e += 0.5 * body.mass * s.velocity.norm_squared() + 0.5 * s.angular_velocity.dot(&momentum);
    }
    (p, l, e)
}

fn relative(a: f64, b: f64, scale: f64) -> f64 {
    (a - b).abs() / scale
}

const HEAD_ON: &str = "simulator finish 3 step 0.1
shape_set ball desc {sphere 0.5}
body a shape ball mass 1 init_pos {-2 0 0} init_dpos {1 0 0}
body b shape ball mass 1 init_pos {2 0 0} init_dpos {-1 0 0}
body far shape ball mass 1 init_pos {0 50 0} init_dpos {0 0.5 0}";

#[test]
fn a_head_on_elastic_collision_of_equal_masses_exchanges_velocities() {
    let solver = solve(HEAD_ON);
    let collisions = solver.collisions();
    assert_eq!(collisions.len(), 1, "{collisions:?}");
    let c = collisions[0];
    assert_eq!(names(&solver, &c), ("a".into(), "b".into()));
    assert!((c.time - 1.5).abs() < 1e-6, "contact at {}", c.time);
    assert!(c.point.norm() < 1e-5, "point {:?}", c.point);
    assert!(
        (c.normal - Vector3::x()).norm() < 1e-9,
        "normal {:?}",
        c.normal
    );
    let (a, b) = (state(&solver, "a", 3.0), state(&solver, "b", 3.0));
    assert!((a.velocity - Vector3::new(-1.0, 0.0, 0.0)).norm() < 1e-9);
    assert!((b.velocity - Vector3::new(1.0, 0.0, 0.0)).norm() < 1e-9);
    assert!(
        (a.position.x - (-2.0)).abs() < 1e-5,
        "a ends at {}",
        a.position.x
    );
}

#[test]
fn a_far_away_body_keeps_its_track_point_for_point() {
    let with = solve(HEAD_ON);
    let mut quiet = scene(HEAD_ON);
    quiet.simulator.collisions = false;
    let mut without = Solver::new(quiet, Strategy::EventDriven).unwrap();
    without.run_to_end().unwrap();
    let far = with.model().body_index("far").unwrap();
    let (x, y) = (
        with.motion().track(far, 0.0),
        without.motion().track(far, 0.0),
    );
    assert!(x.times.len() > 1);
    assert_eq!(x, y);
    // And the colliding bodies did change.
    let a = with.model().body_index("a").unwrap();
    assert_ne!(with.motion().track(a, 0.0), without.motion().track(a, 0.0));
}

#[test]
fn a_small_fast_ball_does_not_pass_through_a_thin_plate() {
    let text = "simulator finish 0.004 step 0.001
shape_set pellet desc {sphere 0.005}
shape_set plate desc {face {{0 -1 -1} {0 1 -1} {0 1 1} {0 -1 1}} face {{0.001 -1 -1} {0.001 1 -1} {0.001 1 1} {0.001 -1 1}}}
body shot shape pellet mass 0.001 init_pos {-1 0 0} init_dpos {1000 0 0}
body wall shape plate fixed 1";
    let solver = solve(text);
    let collisions = solver.collisions();
    assert_eq!(collisions.len(), 1, "{collisions:?}");
    // The plate spans x = -0.0005 .. 0.0005 about its centre of mass at the origin.
    let t = collisions[0].time;
    // Contact counts within a micrometre (1e-6 of the reaches), a nanosecond at 1000 m/s.
    assert!((t - (1.0 - 0.0055) / 1000.0).abs() < 2e-9, "contact at {t}");
    let end = state(&solver, "shot", 0.004);
    assert!(
        end.position.x < -0.005,
        "the pellet ends at x = {}",
        end.position.x
    );
    assert!((end.velocity.x + 1000.0).abs() < 1e-6);
}

#[test]
fn an_off_centre_hit_sets_a_box_spinning_and_conserves_momentum_and_energy() {
    let text = "simulator finish 3 step 0.1
shape_set cube desc {face {{-0.5 -0.5 -0.5} {0.5 -0.5 -0.5} {0.5 0.5 -0.5} {-0.5 0.5 -0.5}} face {{-0.5 -0.5 0.5} {0.5 -0.5 0.5} {0.5 0.5 0.5} {-0.5 0.5 0.5}}}
shape_set ball desc {sphere 0.25}
body box shape cube mass 2 friction 0 init_pos {0 0 0} init_drot {0 0.3 0}
body ball shape ball mass 1 friction 0 init_pos {-3 0.3 0.1} init_dpos {2 0 0}";
    let solver = solve(text);
    assert_eq!(solver.collisions().len(), 1, "{:?}", solver.collisions());
    let motion = solver.motion();
    let (p0, l0, e0) = totals(&motion, 0.0);
    let (p1, l1, e1) = totals(&motion, 3.0);
    let scale_p = p0.norm();
    assert!(
        (p1 - p0).norm() / scale_p < 1e-6,
        "momentum {p0:?} -> {p1:?}"
    );
    let scale_l = l0.norm().max(scale_p);
    assert!(
        (l1 - l0).norm() / scale_l < 1e-6,
        "angular momentum {l0:?} -> {l1:?}"
    );
    assert!(relative(e1, e0, e0) < 1e-6, "energy {e0} -> {e1}");
    let spin = state(&solver, "box", 3.0).angular_velocity;
    assert!(spin.z.abs() > 0.1, "the box spins about z: {spin:?}");
}

#[test]
fn a_billiard_break_conserves_momentum_and_energy() {
    let text = std::fs::read_to_string("examples/billiards.asg").unwrap();
    let solver = solve(&text);
    let collisions = solver.collisions();
    assert!(collisions.len() >= 15, "{} collisions", collisions.len());
    let motion = solver.motion();
    let (p0, l0, e0) = totals(&motion, 0.0);
    let (p1, l1, e1) = totals(&motion, 3.0);
    assert!(
        (p1 - p0).norm() / p0.norm() < 1e-6,
        "momentum {p0:?} -> {p1:?}"
    );
    assert!(
        (l1 - l0).norm() / l0.norm().max(1e-3) < 1e-6,
        "{l0:?} -> {l1:?}"
    );
    assert!(relative(e1, e0, e0) < 1e-6, "energy {e0} -> {e1}");
    // The rack breaks up: nearly every ball moves (a ball struck head-on by an equal one
    // may be left still).
    let moving = (0..15)
        .filter(|b| state(&solver, &format!("ball{b}"), 3.0).velocity.norm() > 1e-3)
        .count();
    assert!(moving >= 12, "{moving} of 15 balls move");
}

#[test]
fn newtons_cradle_passes_the_momentum_through() {
    let text = std::fs::read_to_string("examples/newtons_cradle.asg").unwrap();
    let solver = solve(&text);
    let collisions = solver.collisions();
    let first = collisions[0];
    assert_eq!(names(&solver, &first), ("ball0".into(), "ball1".into()));
    let before = state(&solver, "ball0", first.time - 1e-6).velocity.norm();
    let last = collisions
        .iter()
        .find(|c| names(&solver, c).1 == "ball4")
        .expect("the momentum reaches the last ball");
    // The wave crosses five balls in a few milliseconds: the first ball is left almost at
    // rest and the last one leaves with almost its speed.
    assert!(last.time - first.time < 0.01);
    let t = last.time + 1e-4;
    let (first_after, last_after) = (
        state(&solver, "ball0", t).velocity.norm(),
        state(&solver, "ball4", t).velocity.norm(),
    );
    assert!(first_after < 0.02 * before, "{first_after} of {before}");
    assert!(
        (last_after - before).abs() < 0.02 * before,
        "{last_after} of {before}"
    );
}

#[test]
fn a_ball_bouncing_on_a_fixed_floor_comes_to_rest() {
    let text = "simulator finish 6 step 0.1
shape_set ball desc {sphere 0.5}
shape_set slab desc {face {{-5 -0.5 -5} {5 -0.5 -5} {5 -0.5 5} {-5 -0.5 5}} face {{-5 0 -5} {5 0 -5} {5 0 5} {-5 0 5}}}
body floor shape slab fixed 1
body ball shape ball mass 1 restitution 0.6 init_pos {0 2.5 0}
force body ball gravity {0 -9.81 0}";
    let solver = solve(text);
    let collisions = solver.collisions();
    let bounces = collisions.iter().filter(|c| !c.resting).count();
    assert!(bounces >= 5, "{bounces} bounces");
    // Resting hops: one per resting interval (a quarter of the output step) at most.
    assert!(
        collisions.len() < 20 + 6 * 4 * 10,
        "{} collisions",
        collisions.len()
    );
    // The floor's top is at y = 0.25 (its centre of mass is at the origin).
    for t in [5.0, 5.5, 6.0] {
        let s = state(&solver, "ball", t);
        assert!(
            (s.position.y - 0.75).abs() < 2e-3,
            "at {t} the ball is at {}",
            s.position.y
        );
        assert!(
            s.velocity.norm() < 0.2,
            "at {t} the ball moves at {:?}",
            s.velocity
        );
    }
}

#[test]
fn a_second_hit_an_instant_after_the_first_throws_nothing() {
    // P strikes A, which touches B; all three are plastic, so they move on together at a third
    // of P's speed. Five nanoseconds later Q strikes B head-on, driving it back into A (both
    // are fast, so that each is found only a hair from contact, outside the other's instant).
    // The velocity A gained from the first hit must not read as an acceleration of millions of
    // g pressing it onto B: the resting rule would then take their meeting for a resting
    // contact and throw them apart at kilometres per second. No hit here can add energy.
    let text = "simulator finish 1.5 step 0.01
shape_set ball desc {sphere 0.5}
body p shape ball init_pos {-1001 0 0} init_dpos {1000 0 0} restitution 0
body a shape ball init_pos {0 0 0} restitution 0
body b shape ball init_pos {1 0 0} restitution 0
body q shape ball init_pos {1002.0000066667 0 0} init_dpos {-1000 0 0} restitution 0
";
    let solver = solve(text);
    let collisions = solver.collisions();
    let first = collisions[0].time;
    assert!(
        collisions
            .iter()
            .any(|c| c.time > first + 1e-9 && c.time < first + 1e-8),
        "{collisions:?}"
    );
    let (_, _, e0) = totals(&solver.motion(), 0.0);
    let (_, _, e1) = totals(&solver.motion(), 1.5);
    assert!(
        e1 <= e0 * (1.0 + 1e-9),
        "energy {e0} -> {e1}: {collisions:?}"
    );
}

/// Each body's shape as geometry (`None` without a shape).
fn shapes(solver: &Solver) -> Vec<Option<Shape>> {
    let scene = solver.scene();
    scene
        .bodies
        .iter()
        .map(|body| {
            let set = scene.shapes.iter().find(|s| s.name == body.shape)?;
            set.geometry().ok()
        })
        .collect()
}

fn pose(solver: &Solver, body: usize, s: &BodyState) -> Isometry3<f64> {
    let center = solver.model().bodies()[body].center;
    Translation3::from(s.position) * s.rotation * Translation3::from(-center)
}

/// Pairs of directly linked parts of one articulated body (they may overlap).
fn linked(solver: &Solver) -> Vec<(usize, usize)> {
    let scene = solver.scene();
    let index = |name: &str| solver.model().body_index(name);
    scene
        .links
        .iter()
        .filter_map(|link| {
            let LinkTarget::Body { body2, .. } = &link.target else {
                return None;
            };
            let (a, b) = (index(&link.body1)?, index(body2)?);
            let same = scene.bodies[a].artbody.is_some()
                && scene.bodies[a].artbody == scene.bodies[b].artbody;
            same.then_some((a.min(b), a.max(b)))
        })
        .collect()
}

/// The deepest interpenetration of any two bodies that may collide, over samples every `dt`:
/// (depth as a fraction of the pair's size, time, bodies).
fn deepest_overlap(solver: &Solver, dt: f64) -> (f64, f64, (usize, usize)) {
    let shapes = shapes(solver);
    let linked = linked(solver);
    let motion = solver.motion();
    let bodies = solver.model().bodies();
    let simulator = &solver.scene().simulator;
    let reach: Vec<f64> = shapes
        .iter()
        .map(|s| {
            s.as_ref()
                .map_or(0.0, |s| s.bounding_sphere(&Isometry3::identity()).radius)
        })
        .collect();
    let mut worst = (0.0, simulator.start, (0, 0));
    let steps = ((simulator.finish - simulator.start) / dt).round() as usize;
    for k in 0..=steps {
        let t = (simulator.start + k as f64 * dt).min(simulator.finish);
        let states: Vec<BodyState> = (0..bodies.len())
            .map(|b| motion.state(b, t).unwrap())
            .collect();
        for a in 0..bodies.len() {
            for b in a + 1..bodies.len() {
                let (Some(sa), Some(sb)) = (&shapes[a], &shapes[b]) else {
                    continue;
                };
                if linked.contains(&(a, b)) || (bodies[a].is_fixed() && bodies[b].is_fixed()) {
                    continue;
                }
                let gap = (states[a].position - states[b].position).norm();
                if gap > 3.0 * (reach[a] + reach[b]) {
                    continue;
                }
                let contact = closest_between_shapes(
                    sa,
                    &pose(solver, a, &states[a]),
                    sb,
                    &pose(solver, b, &states[b]),
                    &mut ShapePairCache::default(),
                );
                let depth = -contact.contact.distance / (reach[a] + reach[b]);
                if depth > worst.0 {
                    worst = (depth, t, (a, b));
                }
            }
        }
    }
    worst
}

#[test]
fn the_pendulum_strikes_the_ball_and_no_rod_passes_through_it() {
    let text = std::fs::read_to_string("examples/pendulum.asg").unwrap();
    let solver = solve(&text);
    let hits: Vec<Collision> = solver
        .collisions()
        .into_iter()
        .filter(|c| {
            let (a, b) = names(&solver, c);
            (a == "b1" || a == "b2") && b == "b3"
        })
        .collect();
    assert!(!hits.is_empty(), "{:?}", solver.collisions());
    let before = state(&solver, "b3", hits[0].time - 1e-6).velocity;
    let after = state(&solver, "b3", hits[0].time).velocity;
    assert!((after - before).norm() > 0.5, "{before:?} -> {after:?}");
    let (depth, t, pair) = deepest_overlap(&solver, 0.005);
    assert!(depth < 1e-4, "bodies {pair:?} overlap by {depth} at {t}");
}

#[test]
fn an_elastic_ball_pulled_into_a_wall_comes_to_rest_against_it() {
    // A damped link pulls the ball towards x = 4, beyond the wall whose face is at x = 1.9:
    // the ball's bounces shrink as the link takes their energy, then it rests against the
    // wall in hops instead of an endless series of ever smaller bounces, and never gets in.
    let text = "simulator finish 2 step 0.05
shape_set ball desc {sphere 0.5}
shape_set slab desc {box {0.2 4 4}}
body b shape ball init_pos {0 0 0}
body wall shape slab init_pos {2 0 0} fixed 1
link body1 b point {4 0 0} tightness 200";
    let solver = solve(text);
    for k in 0..=400 {
        let t = f64::from(k) * 0.005;
        let x = state(&solver, "b", t).position.x;
        assert!(x < 1.4 + 1e-4, "at {t} the ball's centre is at x = {x}");
    }
    let end = state(&solver, "b", 2.0);
    assert!((end.position.x - 1.4).abs() < 2e-3, "{}", end.position.x);
    assert!(end.velocity.norm() < 0.5, "{:?}", end.velocity);
    let collisions = solver.collisions();
    assert!(collisions.iter().any(|c| c.resting), "no resting hop");
    assert!(collisions.len() < 2_000, "{} collisions", collisions.len());
}

/// Three bricks in a running bond on a fixed floor, each dropped from half a millimetre.
const BOND: &str = "simulator finish 1 step 0.01
shape_set brick desc {box {0.4 0.2 0.2}}
shape_set floor desc {box {10 0.2 4}}
body ground shape floor init_pos {0 -0.1 0} fixed 1 restitution 0.3
body a shape brick mass 1 restitution 0.2 init_pos {-0.2005 0.1005 0}
body b shape brick mass 1 restitution 0.2 init_pos {0.2005 0.1005 0}
body c shape brick mass 1 restitution 0.2 init_pos {0 0.3015 0}
force body a gravity {0 -9.81 0}
force body b gravity {0 -9.81 0}
force body c gravity {0 -9.81 0}
";

#[test]
fn a_stack_of_bricks_settles_and_sleeps() {
    // Each brick rests on the floor or across the two below: after a few bounces its contacts
    // hold it, and once the three have been still for half a second they fall asleep where
    // they lie, instead of being integrated at rest for ever.
    let solver = solve(BOND);
    let collisions = solver.collisions();
    assert!(collisions.len() < 200, "{} collisions", collisions.len());
    assert!(collisions.iter().all(|c| c.time < 0.1), "{collisions:?}");
    for body in ["a", "b", "c"] {
        let (settled, end) = (state(&solver, body, 0.7), state(&solver, body, 1.0));
        assert_eq!(settled.position, end.position, "{body} moved while asleep");
        assert_eq!(end.velocity, Vector3::zeros(), "{body}");
    }
    // Resting where they fell, within the resting rise of their places.
    assert!((state(&solver, "a", 1.0).position.y - 0.1).abs() < 1e-3);
    assert!((state(&solver, "c", 1.0).position.y - 0.3).abs() < 2e-3);
    let (depth, t, pair) = deepest_overlap(&solver, 0.005);
    assert!(depth < 1e-4, "bodies {pair:?} overlap by {depth} at {t}");
}

#[test]
fn a_hit_wakes_a_sleeping_brick_and_what_rests_on_it() {
    // At t = 0.5, when all three bricks sleep, a heavy ball flying in from the left (no
    // gravity on it) knocks brick `a` away: `a` wakes and slides off, and `c`, which rests on
    // it, wakes with it (it is carried along or falls, but it must not hang asleep in the air).
    let text = format!(
        "{BOND}shape_set ball desc {{sphere 0.05}}
body ball shape ball mass 5 init_pos {{-2.4505 0.1 0}} init_dpos {{4 0 0}}
"
    );
    let solver = solve(&text);
    let hit = solver
        .collisions()
        .into_iter()
        .find(|c| names(&solver, c) == ("a".into(), "ball".into()))
        .expect("the ball hits brick a");
    assert!((hit.time - 0.5).abs() < 1e-3, "{hit:?}");
    let settled = |body: &str| state(&solver, body, 0.45).position;
    let moved = |body: &str| (state(&solver, body, 1.0).position - settled(body)).norm();
    assert!(moved("a") > 0.05, "a moved {}", moved("a"));
    assert!(
        moved("c") > 1e-3,
        "c stayed asleep in the air: moved {}",
        moved("c")
    );
    let (depth, t, pair) = deepest_overlap(&solver, 0.005);
    assert!(depth < 1e-3, "bodies {pair:?} overlap by {depth} at {t}");
}

#[test]
fn sliding_boxes_stop_by_their_friction_and_a_pair_has_the_geometric_mean() {
    // Resting contact has friction: three boxes set sliding side by side on one fixed floor
    // (friction 0.5): one without friction (the pair: 0) slides on, one with the default (0.5)
    // and one with 2 (the pair: 1) stop and sleep.
    let text = "simulator finish 2 step 0.01
shape_set brick desc {box {0.4 0.2 0.2}}
shape_set floor desc {box {10 0.2 4}}
body ground shape floor init_pos {0 -0.1 0} fixed 1
body ice shape brick mass 1 friction 0 init_pos {0 0.1005 -1} init_dpos {1 0 0}
body wood shape brick mass 1 init_pos {0 0.1005 0} init_dpos {1 0 0}
body rubber shape brick mass 1 friction 2 init_pos {0 0.1005 1} init_dpos {1 0 0}
force body ice gravity {0 -9.81 0}
force body wood gravity {0 -9.81 0}
force body rubber gravity {0 -9.81 0}";
    let solver = solve(text);
    let ice = state(&solver, "ice", 2.0);
    assert!((ice.velocity.x - 1.0).abs() < 1e-2, "{:?}", ice.velocity);
    assert!((ice.position.x - 2.0).abs() < 2e-2, "{:?}", ice.position);
    // Friction μ stops 1 m/s within 1 / (2 μ g): 0.10 m for wood, 0.05 m for rubber.
    let (wood, rubber) = (state(&solver, "wood", 2.0), state(&solver, "rubber", 2.0));
    for end in [&wood, &rubber] {
        assert_eq!(end.velocity, Vector3::zeros());
    }
    assert!(
        wood.position.x > 0.05 && wood.position.x < 0.2,
        "{:?}",
        wood.position
    );
    assert!(
        rubber.position.x > 0.0 && rubber.position.x < 0.75 * wood.position.x,
        "rubber stopped at {}, wood at {}",
        rubber.position.x,
        wood.position.x
    );
}

#[test]
fn no_example_lets_anything_pass_through_anything() {
    let mut paths: Vec<_> = std::fs::read_dir("examples")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "asg"))
        .collect();
    paths.sort();
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        let started = std::time::Instant::now();
        let setting = scene(&text);
        if !setting.simulator.collisions {
            continue;
        }
        // Each to its end: the wall's 4 s (47,660 collisions, the resting pile's included)
        // are most of this test's 30 s in the test build.
        let mut solver = Solver::new(setting, Strategy::EventDriven).unwrap();
        solver.run_to_end().unwrap();
        let (depth, t, (a, b)) = deepest_overlap(&solver, solver.scene().simulator.step);
        let bodies = solver.model().bodies();
        println!(
            "{}: {} collisions, deepest overlap {depth:.2e} ({} and {} at {t}), {:.2} s",
            path.display(),
            solver.collisions().len(),
            bodies[a].name,
            bodies[b].name,
            started.elapsed().as_secs_f64()
        );
        // Contacts are found within a millionth of the pair's size; links pressing two
        // elastic bodies together between impulses may sink them a little deeper.
        assert!(
            depth < 0.02,
            "{}: {} and {} overlap by {depth} of their size at t = {t}",
            path.display(),
            bodies[a].name,
            bodies[b].name
        );
    }
}

#[test]
fn the_wrecking_ball_ploughs_through_the_wall() {
    // The 20 kg ball lands on the floor at t = 0.2, is set rolling by its friction, reaches
    // the wall of 1 kg bricks at about 6.3 m/s at t = 0.35 and drives the bricks it meets
    // before it. Some of them are wedged between the floor and the bricks above; stopping
    // every body still pushed in such a jam once stopped the ball dead in the wall.
    let mut setting = scene(&std::fs::read_to_string("examples/wall.asg").unwrap());
    setting.simulator.finish = 0.6;
    let mut solver = Solver::new(setting, Strategy::EventDriven).unwrap();
    solver.run_to_end().unwrap();
    let ball = state(&solver, "ball", 0.6);
    // The wall's face was at z = 0.1; the ball, 0.3 in radius, is through it.
    assert!(ball.position.z < -0.2, "{:?}", ball.position);
    assert!(ball.velocity.z < -3.0, "{:?}", ball.velocity);
    let (depth, t, (a, b)) = deepest_overlap(&solver, solver.scene().simulator.step);
    let bodies = solver.model().bodies();
    assert!(
        depth < 0.02,
        "{} and {} overlap by {depth} of their size at t = {t}",
        bodies[a].name,
        bodies[b].name
    );
}

#[test]
fn the_five_strategies_give_the_same_motion() {
    let text = std::fs::read_to_string("examples/pendulum.asg").unwrap();
    let event = solve_with(&text, Strategy::EventDriven);
    for strategy in [Strategy::Combined, Strategy::Sequential] {
        let other = solve_with(&text, strategy);
        assert_eq!(
            other.collisions().len(),
            event.collisions().len(),
            "{strategy:?}"
        );
        let d = largest_difference(&event, &other, 0.05);
        assert!(d < 1e-2, "{strategy:?} differs by {d}");
    }
    let mut quiet = scene(&text);
    quiet.simulator.collisions = false;
    let mut single = Solver::new(quiet.clone(), Strategy::Combined).unwrap();
    let mut multiple = Solver::new(quiet, Strategy::EventDriven).unwrap();
    single.run_to_end().unwrap();
    multiple.run_to_end().unwrap();
    let d = largest_difference(&single, &multiple, 0.05);
    assert!(
        d < 1e-2,
        "without collisions, single and multiple components differ by {d}"
    );
    // The collisions matter: without them the ball keeps going.
    assert!(largest_difference(&event, &multiple, 0.05) > 0.5);
}

/// A thousand balls on a 10 x 10 x 10 grid drifting in all directions, some colliding; ball
/// b500 starts `shift` further along x.
fn crowd(shift: f64) -> String {
    format!(
        "simulator finish 2 step 0.1
shape_set ball desc {{sphere 0.3}}
set shift {shift}
for {{set i 0}} {{$i < 1000}} {{incr i}} {{
    set x [expr {{$i % 10}}]
    set y [expr {{($i / 10) % 10}}]
    set z [expr {{$i / 100}}]
    if {{$i == 500}} {{ set x [expr {{$x + $shift}}] }}
    body b$i shape ball mass 1 init_pos [list $x $y $z] \\
        init_dpos [list [expr {{0.4 * sin($i)}}] [expr {{0.4 * cos(1.7 * $i)}}] [expr {{0.4 * sin(2.3 * $i)}}]]
}}"
    )
}

#[test]
fn editing_one_body_of_a_thousand_recomputes_only_what_it_affects() {
    let mut solver = solve(&crowd(0.0));
    let before: Vec<_> = (0..1000).map(|b| solver.motion().track(b, 0.0)).collect();
    let old_collisions = solver.collisions();
    assert!(!old_collisions.is_empty());

    let summary = solver.update(scene(&crowd(0.15))).unwrap();
    solver.run_to_end().unwrap();
    assert!(!summary.from_scratch);
    assert!(
        summary.components_reset < summary.components_total / 10,
        "{summary:?}"
    );

    // (a) The same motion as simulating the edited scene from scratch.
    let scratch = solve(&crowd(0.15));
    let d = largest_difference(&solver, &scratch, 0.1);
    assert!(
        d < 1e-6,
        "incremental and from-scratch motion differ by {d}"
    );
    assert_eq!(solver.collisions().len(), scratch.collisions().len());

    // (b) Bodies the edit could not reach kept their tracks point for point: everything but
    // the edited ball and whatever is linked to it by collisions, before or after the edit.
    let mut reached = vec![false; 1000];
    reached[500] = true;
    let all: Vec<Collision> = old_collisions
        .into_iter()
        .chain(solver.collisions())
        .collect();
    loop {
        let mut grew = false;
        for c in &all {
            let (a, b) = c.bodies;
            if reached[a] != reached[b] {
                reached[a] = true;
                reached[b] = true;
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    let untouched: Vec<usize> = (0..1000).filter(|&b| !reached[b]).collect();
    assert!(untouched.len() > 900, "{} untouched", untouched.len());
    for b in untouched {
        assert_eq!(
            solver.motion().track(b, 0.0),
            before[b],
            "body b{b} changed"
        );
    }
}
