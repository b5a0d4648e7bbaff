//! Live mode (issue 8 §3-4): a scene advanced by the driver under a manual clock — determinism
//! without remainder division, slow frames, scripted drags, key pushes, recording to a
//! trajectory that the scene language reads back, and collisions handled as in a precomputed
//! run.

use asgard::live::scene::{ControlError, LiveControls, LiveOptions, SceneAdvance};
use asgard::live::{Driver, ManualClock, Module, Schedule, StopHandle};
use asgard::scene::evaluate;
use asgard::sim::collide::Collision;
use asgard::sim::physics::{Model, Pullable};
use asgard::sim::{Solver, Strategy};
use nalgebra::Vector3;
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

/// A 2 kg ball at rest in empty space, a fixed post, and a falling ball (three metres behind
/// the others, so that dragging the first ball around never makes them collide).
const SCENE: &str = "simulator finish 10
shape_set ball desc {sub pos {0 0 0} sphere 0.5}
body b shape ball init_pos {0 0 0} mass 2
body post shape ball init_pos {5 0 0} fixed 1
body falling shape ball init_pos {0 10 3} init_dpos {1 0 0} mass 1
force body falling x 0 y {-9.81 * [falling mass]} z 0
";

fn live(text: &str, options: &LiveOptions) -> (SceneAdvance, LiveControls) {
    SceneAdvance::new(&evaluate(text).unwrap(), options).unwrap()
}

/// What a script does at one iteration of the driver.
type Action = Box<dyn Fn(&LiveControls)>;

/// A stand-in for viewer and input device: at each iteration it performs the actions due,
/// then lets the next frame's real time pass on the manual clock; it stops the driver when the
/// frames run out.
struct Script {
    clock: ManualClock,
    frames: Vec<Duration>,
    actions: Vec<(usize, Action)>,
    controls: LiveControls,
    iteration: usize,
    stop: StopHandle,
    /// Scene updates seen at each iteration.
    updates: Rc<RefCell<Vec<u64>>>,
}

impl Module for Script {
    fn name(&self) -> &str {
        "script"
    }

    fn update(&mut self, _dt: f64) {
        self.updates.borrow_mut().push(self.controls.updates());
        for (at, action) in &self.actions {
            if *at == self.iteration {
                action(&self.controls);
            }
        }
        match self.frames.get(self.iteration) {
            Some(&frame) => self.clock.advance(frame),
            None => self.stop.request_stop(),
        }
        self.iteration += 1;
    }
}

/// Runs `text` live under a manual clock with `dt`, the given frame times and actions;
/// returns the controls and the scene updates counted at each iteration.
fn run(
    text: &str,
    options: &LiveOptions,
    dt: Duration,
    divide: bool,
    frames: Vec<Duration>,
    actions: Vec<(usize, Action)>,
) -> (LiveControls, Vec<u64>) {
    let (advance, controls) = live(text, options);
    let clock = ManualClock::new();
    let mut driver = Driver::with_clock(clock.clone());
    driver.set_desired_dt(dt).unwrap();
    driver.set_remainder_division(divide);
    driver.add_module(advance, Schedule::FixedStep);
    let updates = Rc::new(RefCell::new(Vec::new()));
    driver.add_module(
        Script {
            clock,
            frames,
            actions,
            controls: controls.clone(),
            iteration: 0,
            stop: driver.stop_handle(),
            updates: updates.clone(),
        },
        Schedule::EveryIteration,
    );
    driver.run().unwrap();
    assert_eq!(controls.error(), None);
    let updates = updates.borrow().clone();
    (controls, updates)
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn drag_to(target: Vector3<f64>) -> Vec<(usize, Action)> {
    vec![
        (
            0,
            Box::new(|c: &LiveControls| c.grab(0, Vector3::new(0.0, 0.5, 0.0)).unwrap()),
        ),
        (
            1,
            Box::new(move |c: &LiveControls| c.move_target(target).unwrap()),
        ),
    ]
}

/// The bits of every recorded time, position, rotation and velocity of `bodies`, for
/// comparing runs exactly.
fn recorded_bits(controls: &LiveControls, bodies: &[usize]) -> Vec<u64> {
    let recording = controls.recording();
    let mut bits = Vec::new();
    for &body in bodies {
        let track = recording.track(body).unwrap();
        for (t, s) in track.times.iter().zip(&track.states) {
            bits.push(t.to_bits());
            bits.extend(s.position.iter().map(|v| v.to_bits()));
            bits.extend(s.rotation.coords.iter().map(|v| v.to_bits()));
            bits.extend(s.velocity.iter().map(|v| v.to_bits()));
        }
    }
    bits
}

#[test]
fn without_remainder_division_live_runs_are_bit_for_bit_repeatable() {
    // Uneven frames (7, 16, 23 ms …) with a drag and a push: the steps are the same and so
    // are the recorded states, bit for bit.
    let frames: Vec<Duration> = (0..60).map(|i| ms(7 + (i * 9) % 20)).collect();
    let options = LiveOptions {
        record: vec![0, 2],
        ..LiveOptions::default()
    };
    let bits = |controls: &LiveControls| recorded_bits(controls, &[0, 2]);
    let script = || {
        let mut actions = drag_to(Vector3::new(1.0, 1.0, 0.0));
        actions.push((
            20,
            Box::new(|c: &LiveControls| c.push(2, Vector3::new(0.0, 30.0, 0.0)).unwrap()),
        ));
        actions.push((40, Box::new(|c: &LiveControls| c.stop_push(2).unwrap())));
        actions
    };
    let (first, _) = run(SCENE, &options, ms(10), false, frames.clone(), script());
    let (second, _) = run(SCENE, &options, ms(10), false, frames, script());
    let first = bits(&first);
    assert!(
        first.len() > 2 * 50 * 11,
        "{} numbers recorded",
        first.len()
    );
    assert_eq!(first, bits(&second));
}

#[test]
fn a_slow_frame_makes_the_scene_take_ten_steps_in_the_next_iteration() {
    // dt 0.1 s; the second frame takes a whole second to "render".
    let frames = vec![ms(100), Duration::from_secs(1), ms(100)];
    let (controls, updates) = run(
        SCENE,
        &LiveOptions::default(),
        ms(100),
        false,
        frames,
        Vec::new(),
    );
    // The script sees the updates made before it in each iteration.
    let per_iteration: Vec<u64> = updates.windows(2).map(|w| w[1] - w[0]).collect();
    assert_eq!(per_iteration, vec![1, 10, 1]);
    assert!((controls.time() - 1.2).abs() < 1e-12);
}

#[test]
fn a_scripted_drag_moves_the_grabbed_body_to_the_target() {
    let target = Vector3::new(2.0, 1.0, 0.0);
    let frames = vec![ms(10); 150];
    let (controls, _) = run(
        SCENE,
        &LiveOptions::default(),
        ms(10),
        false,
        frames,
        drag_to(target),
    );
    // The point was grabbed half a metre off centre, so the ball also started to spin about
    // it; the spinning keeps the spring slightly stretched (centripetal force m ω² r / k,
    // about 5 cm here), but the grabbed point went from 2.2 m away to the target.
    let line = controls.spring_line().unwrap();
    assert_eq!(line.body, 0);
    assert_eq!(line.to, target);
    assert!((line.from - target).norm() < 0.1, "{:?}", line.from);
    let state = controls.state(0).unwrap();
    assert!(
        (state.position - target).norm() < 0.6,
        "{:?}",
        state.position
    );
    // The others did not notice: the post is fixed, the ball falls freely.
    assert_eq!(
        controls.state(1).unwrap().position,
        Vector3::new(5.0, 0.0, 0.0)
    );
    let t = controls.time();
    let falling = controls.state(2).unwrap().position;
    assert!((falling - Vector3::new(t, 10.0 - 4.905 * t * t, 3.0)).norm() < 1e-6);
}

#[test]
fn releasing_lets_the_body_go_on_at_its_velocity() {
    let (mut advance, controls) = live(SCENE, &LiveOptions::default());
    controls.grab(0, Vector3::zeros()).unwrap();
    controls.move_target(Vector3::new(1.0, 0.0, 0.0)).unwrap();
    for _ in 0..10 {
        advance.update(0.01);
    }
    controls.release();
    advance.update(0.01);
    assert_eq!(controls.spring_line(), None);
    let v = controls.state(0).unwrap().velocity;
    assert!(v.x > 0.5, "{v:?}");
    let x = controls.state(0).unwrap().position.x;
    for _ in 0..10 {
        advance.update(0.01);
    }
    let later = controls.state(0).unwrap();
    assert!((later.velocity - v).norm() < 1e-9);
    assert!((later.position.x - (x + 0.1 * v.x)).abs() < 1e-9);
}

#[test]
fn a_key_push_changes_momentum_by_force_times_time() {
    let (mut advance, controls) = live(SCENE, &LiveOptions::default());
    let force = Vector3::new(3.0, -1.0, 0.5);
    controls.push(0, force).unwrap();
    for _ in 0..50 {
        advance.update(0.01);
    }
    controls.stop_push(0).unwrap();
    for _ in 0..20 {
        advance.update(0.01);
    }
    let mass = 2.0;
    let momentum = controls.state(0).unwrap().velocity * mass;
    assert!((momentum - force * 0.5).norm() < 1e-9, "{momentum:?}");
    assert!((controls.time() - 0.7).abs() < 1e-12);
}

#[test]
fn bad_requests_are_refused_with_the_reason() {
    let options = LiveOptions {
        pullable: Pullable::Only(vec![2]),
        ..LiveOptions::default()
    };
    let (_, controls) = live(SCENE, &options);
    assert_eq!(controls.body_index("falling"), Some(2));
    assert_eq!(
        controls.grab(0, Vector3::zeros()),
        Err(ControlError::NotPullable("b".into()))
    );
    assert_eq!(
        controls.push(1, Vector3::x()),
        Err(ControlError::NotPushable("post".into()))
    );
    assert_eq!(
        controls.grab(9, Vector3::zeros()),
        Err(ControlError::UnknownBody(9))
    );
    let error = controls
        .move_target(Vector3::new(f64::NAN, 0.0, 0.0))
        .unwrap_err();
    assert_eq!(error.to_string(), "the target must be finite numbers");
    assert!(controls.grab(2, Vector3::zeros()).is_ok());
    assert!(controls.push(0, Vector3::x()).is_ok());
    let scene = evaluate(SCENE).unwrap();
    let options = LiveOptions {
        record: vec![7],
        ..LiveOptions::default()
    };
    let error = SceneAdvance::new(&scene, &options).err().unwrap();
    assert!(error.to_string().contains("cannot record body number 7"));
}

#[test]
fn a_recorded_run_becomes_a_trajectory_the_scene_follows() {
    let options = LiveOptions {
        record: vec![0],
        ..LiveOptions::default()
    };
    let (mut advance, controls) = live(SCENE, &options);
    controls.grab(0, Vector3::zeros()).unwrap();
    for k in 0..150 {
        let t = f64::from(k) * 0.01;
        let target = Vector3::new(t.sin(), (2.0 * t).cos() - 1.0, 0.3 * t);
        controls.move_target(target).unwrap();
        advance.update(0.01);
    }
    let recording = controls.recording();
    let tolerance = 1e-3;
    let text = recording.to_trajectory_with(0, "path", tolerance).unwrap();
    let track = recording.track(0).unwrap();
    assert_eq!(track.times.len(), 151);
    let points = text.matches("} {").count() + 1;
    assert!(points < 100, "{points} control points: {text}");

    let scene_text = asgard::live::scene::fit::append_command(SCENE, &text);
    let scene = evaluate(&scene_text).unwrap();
    let trajectory = scene
        .trajectories
        .iter()
        .find(|t| t.name == "path")
        .unwrap();
    for (t, state) in track.times.iter().zip(&track.states) {
        let error = (trajectory.position(*t) - state.position).norm();
        assert!(error <= tolerance, "{error} at {t}");
    }
    // A simulation of the scene moves the body along it, within the bound plus what linear
    // playback of the computed track may add (per coordinate, its interpolation tolerance
    // 1e-3 absolute and relative).
    let model = Model::compile(&scene).unwrap();
    let mut simulation = model.simulation(model.options()).unwrap();
    simulation.run_to_end().unwrap();
    let motion = model.motion(simulation.motion());
    for (t, state) in track.times.iter().zip(&track.states) {
        let played = motion.state(0, *t).unwrap().position;
        for (p, r) in played.iter().zip(state.position.iter()) {
            let bound = tolerance + 1e-3 * (1.0 + r.abs()) + 1e-9;
            assert!((p - r).abs() <= bound, "{p} against {r} at {t}");
        }
    }
}

#[test]
fn an_unrecorded_or_too_short_recording_is_no_trajectory() {
    let options = LiveOptions {
        record: vec![0],
        ..LiveOptions::default()
    };
    let (_, controls) = live(SCENE, &options);
    let recording = controls.recording();
    let error = recording.to_trajectory(0).unwrap_err();
    assert_eq!(
        error.to_string(),
        "body b has 1 recorded state(s); a trajectory needs at least 2"
    );
    assert!(recording.to_trajectory(2).is_err());
    assert!(recording.to_trajectory_with(0, "p", -1.0).is_err());
}

/// A ball dropped on a fixed floor whose top is at y = 0.25: resting, its centre is at 0.75.
const FLOOR: &str = "simulator finish 6 step 0.1
shape_set ball desc {sphere 0.5}
shape_set slab desc {face {{-5 -0.5 -5} {5 -0.5 -5} {5 -0.5 5} {-5 -0.5 5}} face {{-5 0 -5} {5 0 -5} {5 0 5} {-5 0 5}}}
body floor shape slab fixed 1
body ball shape ball mass 1 restitution 0.6 init_pos {0 2.5 0}
force body ball gravity {0 -9.81 0}
";

/// Two balls flying at each other between two fixed walls (faces at x = ±2.9), off centre so
/// that they leave each other at an angle: straight flights, so that a precomputed run's
/// tracks (linear between steps) are as exact as the live run's.
const COLLIDING: &str = "simulator finish 3 step 0.1
shape_set ball desc {sphere 0.5}
shape_set slab desc {box {0.2 10 10}}
body west shape slab init_pos {-3 0 0} fixed 1
body east shape slab init_pos {3 0 0} fixed 1
body left shape ball mass 1 init_pos {-1.5 0 0} init_dpos {3 0 0}
body right shape ball mass 2 restitution 0.8 init_pos {1 0.3 0.1} init_dpos {-1 0 0}
";

#[test]
fn a_ball_dropped_on_a_fixed_floor_bounces_and_comes_to_rest() {
    let (mut advance, controls) = live(FLOOR, &LiveOptions::default());
    let ball = controls.body_index("ball").unwrap();
    let mut lowest = f64::INFINITY;
    let mut reversals = 0;
    let mut falling = true;
    let mut seen = Vec::new();
    for _ in 0..600 {
        advance.update(0.01);
        let last = seen
            .last()
            .map_or(f64::NEG_INFINITY, |c: &Collision| c.time);
        seen.extend(controls.collisions().into_iter().filter(|c| c.time > last));
        let s = controls.state(ball).unwrap();
        lowest = lowest.min(s.position.y);
        if falling && s.velocity.y > 0.5 {
            reversals += 1;
        }
        falling = s.velocity.y < 0.0;
    }
    assert_eq!(controls.error(), None);
    // Every update ends with its collisions handled: the ball is never shown in the floor.
    assert!(lowest > 0.75 - 1e-3, "the ball went down to {lowest}");
    assert!(reversals >= 3, "{reversals} bounces seen");
    // (At rest on the floor the ball is held by a contact force, with no collisions left in
    // the recent history: every collision is among those seen along the way.)
    assert!(!seen.is_empty());
    assert!(seen
        .iter()
        .all(|c| c.bodies == (0, 1) || c.bodies == (1, 0)));
    assert!(controls.collision_count() >= reversals);
    assert_eq!(controls.collision_count(), seen.len() as u64);
    // The bounces come when the closed form says: the first after falling 1.75 m, each next
    // after a flight of 2 e v / g.
    let g: f64 = 9.81;
    let mut t = (2.0 * 1.75 / g).sqrt();
    let mut v = g * t;
    for c in seen.iter().take(4) {
        assert!(!c.resting);
        assert!(
            (c.time - t).abs() < 1e-3,
            "a bounce at {} instead of {t}",
            c.time
        );
        v *= 0.6;
        t += 2.0 * v / g;
    }
    // Restitution 0.6: after six seconds it rests on the floor.
    let s = controls.state(ball).unwrap();
    assert!((s.position.y - 0.75).abs() < 2e-3, "{}", s.position.y);
    assert!(s.velocity.norm() < 0.2, "{:?}", s.velocity);
}

#[test]
fn a_ball_pulled_into_a_fixed_wall_stays_on_its_side() {
    // The wall's face is at x = 1.9, so the ball's centre stays at or left of 1.4 while the
    // pull's target is at x = 4, beyond the wall. The ball is elastic: pressed against the
    // wall, its ever smaller bounces end in resting hops.
    let text = "simulator finish 10 step 0.1
shape_set ball desc {sub pos {0 0 0} sphere 0.5}
shape_set slab desc {box {0.2 4 4}}
body b shape ball init_pos {0 0 0} mass 2
body wall shape slab init_pos {2 0 0} fixed 1
";
    let options = LiveOptions {
        record: vec![0],
        ..LiveOptions::default()
    };
    let frames = vec![ms(10); 300];
    let target = Vector3::new(4.0, 0.5, 0.0);
    let (controls, _) = run(text, &options, ms(10), false, frames, drag_to(target));
    let recording = controls.recording();
    let track = recording.track(0).unwrap();
    assert!(track.times.len() > 250);
    let furthest = track
        .states
        .iter()
        .map(|s| s.position.x)
        .fold(f64::NEG_INFINITY, f64::max);
    assert!(
        furthest < 1.4 + 1e-3,
        "the ball's centre reached x = {furthest}"
    );
    // It did reach the wall and stays pressed against it.
    let last = track.states.last().unwrap().position.x;
    assert!(last > 1.3, "the ball stopped at x = {last}");
    assert!(controls.collision_count() > 0);
    assert_eq!(controls.spring_line().unwrap().to, target);
}

#[test]
fn a_live_run_with_collisions_follows_the_precomputed_motion() {
    let scene = evaluate(COLLIDING).unwrap();
    let mut solver = Solver::new(scene, Strategy::EventDriven).unwrap();
    solver.run_to_end().unwrap();
    let precomputed = solver.motion();
    let (mut advance, controls) = live(COLLIDING, &LiveOptions::default());
    let mut worst = (0.0, 0.0, 0);
    let mut seen = Vec::new();
    for k in 1..=300 {
        advance.update(0.01);
        let t = controls.time();
        assert!((t - f64::from(k) * 0.01).abs() < 1e-12);
        for body in 2..4 {
            let live = controls.state(body).unwrap();
            let expected = precomputed.state(body, t).unwrap();
            let error = (live.position - expected.position).norm();
            if error > worst.0 {
                worst = (error, t, body);
            }
        }
        let last = seen
            .last()
            .map_or(f64::NEG_INFINITY, |c: &Collision| c.time);
        seen.extend(controls.collisions().into_iter().filter(|c| c.time > last));
    }
    // Contacts are found to within a millionth of the radii (1e-6 m, under a microsecond at
    // these speeds); that is all the two runs differ by.
    assert!(
        worst.0 < 1e-5,
        "the live positions differ by up to {worst:?}"
    );
    // The same collisions at the same times.
    let pairs = |list: &[Collision]| -> Vec<((usize, usize), f64)> {
        list.iter().map(|c| (c.bodies, c.time)).collect()
    };
    let live = pairs(&seen);
    let expected = pairs(&solver.collisions());
    assert!(expected.len() >= 3, "{expected:?}");
    assert_eq!(live.len(), expected.len(), "{live:?} vs {expected:?}");
    for (a, b) in live.iter().zip(&expected) {
        assert_eq!(a.0, b.0);
        assert!((a.1 - b.1).abs() < 1e-6, "{live:?} vs {expected:?}");
    }
}

#[test]
fn without_remainder_division_live_runs_with_collisions_are_bit_for_bit_repeatable() {
    let frames: Vec<Duration> = (0..200).map(|i| ms(7 + (i * 9) % 20)).collect();
    let options = LiveOptions {
        record: vec![2, 3],
        ..LiveOptions::default()
    };
    let bits = |controls: &LiveControls| {
        let mut bits = recorded_bits(controls, &[2, 3]);
        for c in controls.collisions() {
            bits.push(c.time.to_bits());
            bits.extend(c.point.iter().map(|v| v.to_bits()));
            bits.push(c.impulse.to_bits());
        }
        bits
    };
    let (first, _) = run(
        COLLIDING,
        &options,
        ms(10),
        false,
        frames.clone(),
        Vec::new(),
    );
    let (second, _) = run(COLLIDING, &options, ms(10), false, frames, Vec::new());
    // The balls met each other and the walls.
    assert!(first.collision_count() >= 3, "{}", first.collision_count());
    assert_eq!(first.collision_count(), second.collision_count());
    assert_eq!(bits(&first), bits(&second));
}

#[test]
fn a_long_live_run_with_collisions_keeps_memory_bounded() {
    let (mut advance, controls) = live(FLOOR, &LiveOptions::default());
    for _ in 0..2000 {
        advance.update(0.01);
    }
    assert_eq!(controls.error(), None);
    // Twenty seconds ran, most of them resting on the floor with a hop now and then; the
    // tracks and the collisions kept are of about the last second.
    let ball = advance.model().bodies()[1].vars.unwrap();
    let (track, _) = controls.motion().motion().track_of(ball.at(1)).unwrap();
    assert!(track.start_time() > 18.0, "{}", track.start_time());
    assert!(track.len() < 1000, "{} points", track.len());
    let kept = controls.collisions();
    assert!(kept.iter().all(|c| c.time > 18.0));
    assert!(controls.collision_count() > kept.len() as u64);
}

/// The wrecking ball knocking down `examples/wall.asg` live, in updates of uneven length (as a
/// loaded machine gives them): every update returns, none with an error, and no brick is ever
/// shown sunk into the ground. Updates ending between the contact ticks once left a gate
/// waiting for a tick that never came, and a brick sunk past the guard depth was stopped again
/// and again five nanoseconds apart without climbing out.
#[test]
fn a_wall_struck_live_in_uneven_updates_runs_on_and_stays_out_of_the_ground() {
    let text = include_str!("../examples/wall.asg");
    let (mut advance, controls) = live(text, &LiveOptions::default());
    let ground = controls.body_index("ground").unwrap();
    let bricks: Vec<usize> = (0..5)
        .flat_map(|course| (0..6).map(move |column| format!("brick_{course}_{column}")))
        .map(|name| controls.body_index(&name).unwrap())
        .collect();
    // A fixed, uneven sequence of update lengths between 3 and 13 ms.
    let mut seed: u64 = 12345;
    let mut time = 0.0;
    while time < 1.2 {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let dt = 0.003 + 0.010 * ((seed >> 33) as f64 / (1u64 << 31) as f64);
        advance.update(dt);
        time += dt;
        assert_eq!(controls.error(), None, "at t = {time}");
        // The ground (10 m by 4 m) has its top face 0.1 m above its centre; a brick's centre is
        // at least half its smallest side, 0.1 m, above that however it lies, unless it is
        // going over the edge.
        let top = controls.state(ground).unwrap().position.y + 0.1;
        for &b in &bricks {
            let s = controls.state(b).unwrap();
            if s.position.x.abs() > 4.7 || s.position.z.abs() > 1.7 {
                continue;
            }
            assert!(
                s.position.y > top + 0.1 - 1e-3,
                "brick {b} at t = {time}: {s:?}"
            );
        }
    }
}
