//! Validation of the physics layer against closed-form motion: scene texts simulated end to end,
//! each compared with what mechanics says, within a stated tolerance.

use asgard::scene::evaluate;
use asgard::scene::model::ConstrainedVar;
use asgard::sim::physics::{BodyState, Model, PhysicsError, SceneMotion, SimulationFailure};
use asgard::sim::{ErrorKind, Options, Simulation};
use nalgebra::{UnitQuaternion, Vector3};
use std::f64::consts::PI;

struct Run {
    model: Model,
    simulation: Simulation,
    motion: SceneMotion,
}

fn compile(text: &str) -> Model {
    let scene = evaluate(text).unwrap_or_else(|e| panic!("{}", e.diagnostic("scene")));
    Model::compile(&scene).unwrap_or_else(|e| panic!("{}", e.diagnostic("scene", text)))
}

fn run_with(text: &str, adjust: impl FnOnce(&mut Options)) -> Run {
    let model = compile(text);
    let mut options = model.options();
    adjust(&mut options);
    let mut simulation = model.simulation(options).unwrap();
    if let Err(e) = simulation.run_to_end() {
        panic!("{}", model.describe(e, Some(simulation.partition())));
    }
    let motion = model.motion(simulation.motion());
    Run {
        model,
        simulation,
        motion,
    }
}

fn run(text: &str) -> Run {
    run_with(text, |_| {})
}

impl Run {
    fn body(&self, name: &str) -> usize {
        self.model.body_index(name).unwrap()
    }

    fn state(&self, name: &str, t: f64) -> BodyState {
        self.motion.state(self.body(name), t).unwrap()
    }

    /// The body's state at every computed time.
    fn computed(&self, name: &str) -> Vec<(f64, BodyState)> {
        let track = self.motion.track(self.body(name), 0.0);
        track.times.into_iter().zip(track.states).collect()
    }

    /// The points computed for variable `offset` (see `BodyVars`) of a body: its value is
    /// exact there, and interpolated in between.
    fn points(&self, name: &str, offset: usize) -> Vec<(f64, f64)> {
        let vars = self.model.bodies()[self.body(name)].vars.unwrap();
        let (track, local) = self.simulation.motion().track_of(vars.at(offset)).unwrap();
        track
            .times()
            .iter()
            .copied()
            .zip(track.column(local))
            .collect()
    }

    /// Times in `[0, end]` where `f` of the state crosses zero upwards, by linear interpolation
    /// between samples `dt` apart.
    fn upward_crossings(
        &self,
        name: &str,
        end: f64,
        dt: f64,
        f: impl Fn(&BodyState) -> f64,
    ) -> Vec<f64> {
        let mut crossings = Vec::new();
        let mut previous: Option<(f64, f64)> = None;
        let steps = (end / dt).round() as usize;
        for k in 0..=steps {
            let t = k as f64 * dt;
            let value = f(&self.state(name, t));
            if let Some((t0, v0)) = previous {
                if v0 < 0.0 && value >= 0.0 {
                    crossings.push(t0 + (t - t0) * v0 / (v0 - value));
                }
            }
            previous = Some((t, value));
        }
        crossings
    }
}

fn relative(got: f64, want: f64) -> f64 {
    (got - want).abs() / want.abs().max(1e-300)
}

const BALL: &str = "shape_set ball desc {sub pos {0 0 0} sphere 0.1}\n";

#[test]
fn free_fall_is_exact() {
    let r = run(&format!(
        "simulator finish 3 step 0.1\n{BALL}\
         body b shape ball init_pos {{0 100 0}} mass 2\n\
         force body b gravity {{0 -9.81 0}}"
    ));
    // A quadratic is integrated exactly at every order above one: the steps grow to the end.
    let points = r.points("b", 1);
    assert!(points.len() >= 2);
    for (t, y) in points {
        let want = 100.0 - 0.5 * 9.81 * t * t;
        assert!(relative(y, want) <= 1e-9, "t {t}: y {y} vs {want}");
    }
    // Read between the points through the track's cubics, the quadratic position and the
    // linear velocity are exact too.
    for k in 0..=30 {
        let t = k as f64 * 0.1;
        let s = r.state("b", t);
        let want = 100.0 - 0.5 * 9.81 * t * t;
        assert!(
            relative(s.position.y, want) <= 1e-9,
            "t {t}: y {}",
            s.position.y
        );
        assert!((s.velocity.y + 9.81 * t).abs() <= 1e-9 * (1.0 + 9.81 * t));
        assert_eq!(s.position.x, 0.0);
    }
}

#[test]
fn projectile_is_exact() {
    let r = run(&format!(
        "simulator finish 2 step 0.1\n{BALL}\
         body b shape ball init_pos {{1 2 3}} init_dpos {{3 14 -1}} mass 0.5\n\
         force body b gravity {{0 -9.81 0}}"
    ));
    let exact = |t: f64| Vector3::new(1.0 + 3.0 * t, 2.0 + 14.0 * t - 0.5 * 9.81 * t * t, 3.0 - t);
    for axis in 0..3 {
        for (t, value) in r.points("b", axis) {
            let want = exact(t)[axis];
            assert!(
                (value - want).abs() <= 1e-9 * want.abs().max(1.0),
                "t {t} axis {axis}: {value} vs {want}"
            );
        }
    }
    // Between computed points playback interpolates, still close.
    let mid = r.state("b", 1.234);
    assert!((mid.position.x - (1.0 + 3.0 * 1.234)).abs() < 1e-12);
}

/// A force switched off by a condition on time (the spinning top's tap) is a breakpoint: the
/// solver lands on the switch and restarts there, so even a tight tolerance takes few steps
/// and the velocity is the exact broken line. Crossed by error control alone, the switch
/// shrank the step below the minimum at tolerance 1e-8.
#[test]
fn a_force_switched_by_time_is_a_breakpoint_even_at_a_tight_tolerance() {
    let r = run(&format!(
        "simulator finish 1 step 0.1 tolerance 1e-10\n{BALL}\
         body b shape ball mass 0.5\n\
         force body b x {{$t < 0.1 ? 2.0 : 0.0}}"
    ));
    // x'' = 4 until t = 0.1, then uniform motion at 0.4.
    let velocity = |t: f64| 4.0 * t.min(0.1);
    let position = |t: f64| 2.0 * t.min(0.1).powi(2) + 0.4 * (t - 0.1).max(0.0);
    let points = r.points("b", 7);
    assert!(
        points.iter().any(|&(t, _)| t == 0.1),
        "no point at the switch"
    );
    for (t, v) in points {
        assert!((v - velocity(t)).abs() <= 1e-13, "t {t}: velocity {v}");
    }
    for t in [0.05, 0.1, 0.25, 0.61, 1.0] {
        let state = r.state("b", t);
        assert!((state.velocity.x - velocity(t)).abs() <= 1e-13, "t {t}");
        assert!((state.position.x - position(t)).abs() <= 1e-10, "t {t}");
    }
    let steps = r.simulation.statistics().total().steps;
    assert!(steps < 500, "{steps} steps");
}

#[test]
fn pendulum_made_with_a_link_has_the_small_angle_period() {
    // A ball hanging by a link attached one metre above its centre: a physical pendulum about
    // the link point, T = 2π sqrt((I + m d²) / (m g d)).
    let theta: f64 = 0.05;
    let (d, m, radius, g) = (1.0, 1.0, 0.1, 9.81);
    let r = run(&format!(
        "simulator finish 12 step 0.01\n\
         shape_set ball desc {{sub pos {{0 0 0}} sphere {radius}}}\n\
         body b shape ball init_pos {{{} {} 0}} init_rot {{0 0 {theta}}} mass {m}\n\
         force body b gravity {{0 -{g} 0}}\n\
         link body1 b offset1 {{0 {d} 0}} x 0 y 0 z 0 tightness 100000",
        d * theta.sin(),
        -d * theta.cos()
    ));
    let inertia = 0.4 * m * radius * radius;
    let expected = 2.0 * PI * ((inertia + m * d * d) / (m * g * d)).sqrt();
    let crossings = r.upward_crossings("b", 12.0, 0.001, |s| s.position.x);
    assert!(crossings.len() >= 5, "{crossings:?}");
    let period = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
    assert!(
        relative(period, expected) < 0.005,
        "period {period} vs {expected}"
    );
}

#[test]
fn spring_mass_energy_drifts_less_than_one_percent_over_a_hundred_periods() {
    let k: f64 = 4.0;
    let m = 1.0;
    let periods = 100.0;
    let finish = periods * 2.0 * PI * (m / k).sqrt();
    let r = run(&format!(
        "simulator finish {finish} step 0.05\n{BALL}\
         body b shape ball init_pos {{1 0 0}} mass {m}\n\
         force body b x {{-{k} * [b x]}} y 0 z 0"
    ));
    let energy =
        |s: &BodyState| 0.5 * m * s.velocity.norm_squared() + 0.5 * k * s.position.x.powi(2);
    let initial = 0.5 * k;
    let points = r.computed("b");
    assert!(points.last().unwrap().0 >= finish);
    let worst = points
        .iter()
        .map(|(_, s)| relative(energy(s), initial))
        .fold(0.0, f64::max);
    assert!(worst < 0.01, "energy drift {worst}");
}

#[test]
fn torque_free_asymmetric_body_keeps_its_angular_momentum_and_flips() {
    // A 1 x 2 x 3 box: y is the intermediate axis. Spun about it with a small disturbance, it
    // turns over periodically (the Dzhanibekov effect).
    let r = run("simulator finish 22 step 0.05 tolerance 1e-6\n\
         shape_set brick desc {sub pos {0 0 0} box {1 2 3}}\n\
         body b shape brick init_drot {0.01 2 0.01}");
    let b = r.body("b");
    let body = &r.model.bodies()[b];
    let momentum = |s: &BodyState| body.world_inertia(&s.rotation) * s.angular_velocity;
    let energy = |s: &BodyState| 0.5 * s.angular_velocity.dot(&momentum(s));
    let points = r.computed("b");
    let (l0, e0) = (momentum(&points[0].1), energy(&points[0].1));
    let drift = points
        .iter()
        .map(|(_, s)| (momentum(s) - l0).norm() / l0.norm())
        .fold(0.0, f64::max);
    assert!(drift < 1e-6, "angular momentum drift {drift}");
    let energy_drift = points
        .iter()
        .map(|(_, s)| relative(energy(s), e0))
        .fold(0.0, f64::max);
    assert!(energy_drift < 1e-3, "energy drift {energy_drift}");
    // Read every 0.01 s between the solver's points (as playback and export read it), the
    // energy stays put.
    let samples: Vec<(f64, BodyState)> = (0..=2200)
        .map(|k| k as f64 * 0.01)
        .map(|t| (t, r.state("b", t)))
        .collect();
    let sampled_drift = samples
        .iter()
        .map(|(_, s)| relative(energy(s), e0))
        .fold(0.0, f64::max);
    assert!(
        sampled_drift < 1e-6,
        "energy drift between points {sampled_drift}"
    );
    // The spin about the body's own y axis reverses, and comes back, when an RK4 integration
    // of Euler's equations at dt 1e-4 says: at 5.9642 s and 20.1831 s.
    let spin_y = |s: &BodyState| (s.rotation.inverse() * s.angular_velocity).y;
    let reversals: Vec<f64> = samples
        .windows(2)
        .filter_map(|w| {
            let (a, b) = (spin_y(&w[0].1), spin_y(&w[1].1));
            ((a > 0.0) != (b > 0.0)).then(|| w[0].0 + (w[1].0 - w[0].0) * a / (a - b))
        })
        .collect();
    assert_eq!(reversals.len(), 2, "reversals at {reversals:?}");
    for (got, want) in reversals.iter().zip([5.9642, 20.1831]) {
        assert!(
            relative(*got, want) < 0.005,
            "reversal at {got}, not {want}"
        );
    }
    assert!(spin_y(&points[0].1) > 1.9);
    let lowest = points
        .iter()
        .map(|(_, s)| spin_y(s))
        .fold(f64::INFINITY, f64::min);
    assert!(lowest < -1.9, "the spin only reached {lowest}");
}

#[test]
fn two_body_orbit_has_keplers_period() {
    // Unit masses a unit apart with G = 1, on a circular orbit about their centre of mass.
    let pull = |me: &str, other: &str| {
        let d = |axis: &str| format!("([{other} {axis}] - [{me} {axis}])");
        let r3 = format!(
            "pow({}*{} + {}*{} + {}*{}, 1.5)",
            d("x"),
            d("x"),
            d("y"),
            d("y"),
            d("z"),
            d("z")
        );
        format!(
            "force body {me} x {{{}/{r3}}} y {{{}/{r3}}} z {{{}/{r3}}}\n",
            d("x"),
            d("y"),
            d("z")
        )
    };
    let v = 0.5 * 2f64.sqrt();
    let text = format!(
        "simulator finish 10 step 0.05\n{BALL}\
         body a shape ball init_pos {{-0.5 0 0}} init_dpos {{0 -{v} 0}} mass 1\n\
         body b shape ball init_pos {{0.5 0 0}} init_dpos {{0 {v} 0}} mass 1\n{}{}",
        pull("a", "b"),
        pull("b", "a")
    );
    let r = run(&text);
    let expected = 2.0 * PI / 2f64.sqrt();
    // b's y crosses zero upwards once per revolution.
    let crossings = r.upward_crossings("b", 10.0, 0.001, |s| s.position.y);
    assert!(crossings.len() >= 2, "{crossings:?}");
    let period = crossings[1] - crossings[0];
    assert!(
        relative(period, expected) < 0.005,
        "period {period} vs {expected}"
    );
    // Momentum is conserved: the centre of mass stays put.
    let (a, b) = (r.state("a", 7.0), r.state("b", 7.0));
    assert!((a.position + b.position).norm() < 1e-6);
}

#[test]
fn body_on_a_trajectory_follows_it_then_continues_with_the_end_velocity() {
    let text = format!(
        "simulator finish 4 step 0.1\n{BALL}\
         body b shape ball init_pos {{5 5 5}} mass 1\n\
         force body b gravity {{0 -9.81 0}}\n\
         trajectory path points {{{{0 0 0 0}} {{1 1 2 0}} {{2 3 3 1}}}} body b var pos"
    );
    let scene = evaluate(&text).unwrap();
    let curve = scene.trajectory("path").unwrap().clone();
    let r = run(&text);
    let (end, end_velocity) = (curve.position(2.0), curve.velocity(2.0));
    let gravity = Vector3::new(0.0, -9.81, 0.0);
    for axis in 0..3 {
        let points = r.points("b", axis);
        assert!(points.iter().filter(|(t, _)| *t <= 2.0).count() > 5);
        for (t, x) in points {
            let want = if t <= 2.0 {
                // Forces are ignored while the curve holds the body.
                curve.position(t)[axis]
            } else {
                let dt = t - 2.0;
                end[axis] + end_velocity[axis] * dt + gravity[axis] * 0.5 * dt * dt
            };
            assert!((x - want).abs() <= 1e-9, "t {t} axis {axis}: {x} vs {want}");
        }
        for (t, v) in r.points("b", 7 + axis) {
            let want = if t <= 2.0 {
                curve.velocity(t)[axis]
            } else {
                end_velocity[axis] + gravity[axis] * (t - 2.0)
            };
            assert!(
                (v - want).abs() <= 1e-9,
                "t {t} axis {axis}: velocity {v} vs {want}"
            );
        }
    }
    let b = r.body("b");
    assert!(r.model.is_constrained(b, 1.0));
    assert!(!r.model.is_constrained(b, 2.5));
    assert_eq!(r.model.constrained_at(b, 1.0), [ConstrainedVar::Position]);
    assert!(r.model.constrained_at(b, 2.5).is_empty());
    assert_eq!(r.model.constraints(b).len(), 1);
}

#[test]
fn rotation_trajectory_turns_the_body_and_it_keeps_turning() {
    // Turning about z at 0.5 rad/s for two seconds, then free.
    let text = format!(
        "simulator finish 3 step 0.1\n{BALL}\
         body b shape ball mass 1\n\
         trajectory spin points {{{{0 0 0 0}} {{1 0 0 0.5}} {{2 0 0 1}}}} body b var rot"
    );
    let r = run(&text);
    for t in [0.5, 1.0, 2.0, 2.5, 3.0] {
        let s = r.state("b", t);
        let angle = s.rotation.scaled_axis();
        assert!(
            (angle - Vector3::new(0.0, 0.0, 0.5 * t)).norm() < 1e-3,
            "t {t}: {angle:?}"
        );
        assert!(
            (s.angular_velocity - Vector3::new(0.0, 0.0, 0.5)).norm() < 1e-9,
            "t {t}"
        );
    }
}

#[test]
fn angular_velocity_trajectory_turns_the_body_then_it_spins_freely() {
    // An asymmetric brick at rest is turned at ω = (0.3, 0, 1) (world axes, not a principal
    // axis) for one second, then left alone.
    let r = run("simulator finish 3 step 0.05 tolerance 1e-6\n\
         shape_set brick desc {sub pos {0 0 0} box {1 2 3}}\n\
         body b shape brick\n\
         trajectory spin points {{0 0.3 0 1} {1 0.3 0 1}} body b var drot");
    let b = r.body("b");
    let body = &r.model.bodies()[b];
    let omega = Vector3::new(0.3, 0.0, 1.0);
    for t in [0.25, 0.5, 1.0] {
        let s = r.state("b", t);
        let want = UnitQuaternion::from_scaled_axis(omega * t);
        assert!(
            s.rotation.angle_to(&want) < 1e-4,
            "t {t}: {:?}",
            s.rotation.scaled_axis()
        );
        // The momentum has caught up with the prescribed turning (it turns with the body, so
        // playing it back linearly between computed points costs up to the playback
        // tolerance).
        assert!(
            (s.angular_velocity - omega).norm() < 1e-3,
            "t {t}: {:?}",
            s.angular_velocity
        );
    }
    // Afterwards the body spins freely with the momentum it had at the end.
    let end = r.state("b", 1.0);
    let momentum = |s: &BodyState| body.world_inertia(&s.rotation) * s.angular_velocity;
    let l_end = momentum(&end);
    for t in [1.5, 2.0, 3.0] {
        let l = momentum(&r.state("b", t));
        assert!(
            (l - l_end).norm() < 1e-4 * l_end.norm(),
            "t {t}: {l:?} vs {l_end:?}"
        );
    }
    // Not about a principal axis, so the angular velocity itself wanders off.
    assert!((r.state("b", 3.0).angular_velocity - omega).norm() > 1e-2);
    assert!(r.model.is_constrained(b, 0.5));
    assert!(!r.model.is_constrained(b, 2.0));
}

#[test]
fn two_trajectories_turning_one_body_at_once_are_an_error() {
    let text = format!(
        "{BALL}body b shape ball\n\
         trajectory turn points {{{{0 0 0 0}} {{2 0 0 1}}}} body b var rot\n\
         trajectory spin points {{{{1 0 0 1}} {{3 0 0 1}}}} body b var drot"
    );
    let scene = evaluate(&text).unwrap();
    let Err(error) = Model::compile(&scene) else {
        panic!("overlapping turning constraints compiled");
    };
    let diagnostic = error.diagnostic("scene", &text);
    assert!(
        diagnostic.starts_with("scene:4:1: error: trajectories turn"),
        "{diagnostic}"
    );
}

#[test]
fn off_centre_force_turns_the_body_and_off_axis_torque_pushes_it() {
    let shape = "shape_set cube desc {sub pos {0 0 0} box {1 1 1}}\n";
    let r = run(&format!(
        "simulator finish 0.01 step 0.001\n{shape}\
         body f shape cube mass 1\n\
         force body f x 0 y 1 z 0 offset {{1 0 0}}\n\
         body t shape cube init_pos {{5 0 0}} mass 1\n\
         torque body t x 0 y 0 z 1 offset {{1 0 0}}"
    ));
    let t = 0.01;
    for name in ["f", "t"] {
        let s = r.state(name, t);
        let body = &r.model.bodies()[r.body(name)];
        let momentum = body.world_inertia(&s.rotation) * s.angular_velocity;
        // (R d) × F = (1, 0, 0) × (0, 1, 0) = (0, 0, 1), and the torque itself is (0, 0, 1);
        // the arm turns by only 3e-4 rad meanwhile.
        assert!(relative(momentum.z, t) < 1e-6, "{name}: L = {momentum:?}");
        assert!(momentum.x.abs() < 1e-12 && momentum.y.abs() < 1e-12);
    }
    // The off-centre force moves the centre of mass as if applied there, F t / m.
    assert!(relative(r.state("f", t).velocity.y, t) < 1e-12);
    // The torque about an axis through (1, 0, 0) induces d × T = (0, -1, 0), turning with
    // the arm.
    assert!(relative(r.state("t", t).velocity.y, -t) < 1e-6);
}

#[test]
fn free_body_splits_into_small_components_and_linked_bodies_form_one() {
    let free = compile(&format!(
        "{BALL}body b shape ball init_drot {{0 1 0}}\nforce body b gravity {{0 -9.81 0}}"
    ));
    let sim = free.simulation(free.options()).unwrap();
    let sizes: Vec<usize> = sim
        .partition()
        .ids()
        .map(|c| sim.partition().members(c).len())
        .collect();
    // Three velocities, three positions, three momenta, and the quaternion.
    assert_eq!(sizes.len(), 10, "{sizes:?}");
    assert_eq!(sizes.iter().copied().max(), Some(4));

    let linked = compile(&format!(
        "{BALL}body a shape ball\nbody b shape ball init_pos {{1 0 0}}\n\
         link body1 a offset1 {{0.1 0 0}} body2 b offset2 {{-0.1 0 0}}\n\
         force body a gravity {{0 -9.81 0}}"
    ));
    let sim = linked.simulation(linked.options()).unwrap();
    assert_eq!(sim.partition().len(), 1);
    assert_eq!(
        sim.partition().members(asgard::sim::ComponentId(0)).len(),
        26
    );
}

/// The tee of examples/dzhanibekov.asg at its default tolerance, read every 0.01 s as
/// `asgard simulate` samples it: its angular momentum is state and exact, and its turning
/// energy, which the solver holds at its points, reads the same between them (the track's
/// cubic alone lost 1.5e-5 of it there).
#[test]
fn the_bundled_tee_keeps_energy_and_momentum_between_the_points() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/dzhanibekov.asg"
    ))
    .unwrap();
    let r = run(&text);
    let body = &r.model.bodies()[r.body("nut")];
    let momentum = |s: &BodyState| body.world_inertia(&s.rotation) * s.angular_velocity;
    let energy = |s: &BodyState| 0.5 * s.angular_velocity.dot(&momentum(s));
    let start = r.state("nut", 0.0);
    let (l0, e0) = (momentum(&start), energy(&start));
    let mut points = r.points("nut", 3).into_iter().map(|(t, _)| t).peekable();
    let mut between = 0;
    for k in 0..=2000 {
        let t = k as f64 * 0.01;
        let s = r.state("nut", t);
        assert!(
            relative(energy(&s), e0) < 1e-12,
            "t {t}: energy {}",
            energy(&s)
        );
        assert!((momentum(&s) - l0).norm() < 1e-12 * l0.norm(), "t {t}");
        while points.next_if(|&p| p < t).is_some() {}
        between += usize::from(points.peek() != Some(&t));
    }
    assert!(between > 1900, "only {between} samples fall between points");
}

#[test]
fn the_bundled_pendulum_swings_down() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/pendulum.asg"
    ))
    .unwrap();
    let r = run(&text);
    assert!(r.simulation.is_complete());
    let b1 = r.body("b1");
    let start = r.state("b1", 0.0);
    assert_eq!(start.position, Vector3::new(5.0, 0.0, 0.0));
    let lowest = (0..=50)
        .map(|k| r.state("b1", k as f64 * 0.1).position.y)
        .fold(f64::INFINITY, f64::min);
    assert!(lowest < -4.0, "b1's centre only fell to {lowest}");
    // The link holds b1's end at the pivot.
    let s = r.state("b1", 2.0);
    let end = s.position + s.rotation * Vector3::new(-5.0, 0.0, 0.0);
    // A link is a spring: it gives a little under the weight of both rods.
    assert!(end.norm() < 0.5, "the pivot end drifted to {end:?}");
    assert!(r.motion.computed_until(b1) >= 5.0);
    // Linked bodies share a component; the sampler reads them as the one-off lookup does.
    let mut sampler = r.motion.sampler();
    for k in 0..=50 {
        let t = k as f64 * 0.1;
        for b in 0..3 {
            assert_eq!(sampler.state(b, t), r.motion.state(b, t), "body {b} at {t}");
        }
    }
}

/// Runs `text` expecting a simulation failure; returns it with the motion computed before it.
fn failing(text: &str) -> (SimulationFailure, SceneMotion) {
    let model = compile(text);
    let mut simulation = model.simulation(model.options()).unwrap();
    let error = simulation
        .run_to_end()
        .expect_err("the simulation should fail");
    let PhysicsError::Simulation(failure) = model.describe(error, Some(simulation.partition()))
    else {
        panic!("not a simulation failure");
    };
    let described = failure.to_string();
    assert!(
        described.contains("for body b ")
            && described.contains("in component ")
            && described.contains("at t = "),
        "{described}"
    );
    assert_eq!(failure.bodies, ["b"]);
    assert!(failure.component.is_some() && failure.component_size > 0);
    (*failure, model.motion(simulation.motion()))
}

/// A body falling from rest with one extra force component along x.
fn with_force(x: &str) -> String {
    format!(
        "simulator finish 3 step 0.1\n{BALL}\
         body b shape ball init_pos {{0 10 0}} mass 1\n\
         force body b gravity {{0 -9.81 0}}\n\
         force body b x {{{x}}} y 0 z 0"
    )
}

#[test]
fn division_by_zero_stops_the_simulation_where_it_happens() {
    let (failure, _) = failing(&with_force("1.0 / 0"));
    assert_eq!(failure.kind, ErrorKind::NonFinite);
    assert_eq!(failure.time, Some(0.0));
    // Dividing by zero at t = 1: the force grows without bound on the way there.
    let (failure, motion) = failing(&with_force("1 / (1 - $t)"));
    let t = failure.time.unwrap();
    assert!(t > 0.9 && t <= 1.0, "failed at {t}");
    // What was computed before stays readable (played back within the interpolation
    // tolerance, 1e-3 (1 + |y|)).
    let before = motion.state(0, 0.5).unwrap();
    assert!((before.position.y - (10.0 - 9.81 / 8.0)).abs() < 1e-2);
    assert!(motion.computed_until(0) > 0.5);
}

#[test]
fn non_finite_values_stop_the_simulation() {
    // sqrt of a negative number from t = 2 on.
    let (failure, motion) = failing(&with_force("sqrt(2 - $t)"));
    assert_eq!(failure.kind, ErrorKind::NonFinite, "{failure}");
    let t = failure.time.unwrap();
    assert!(t > 1.9 && t <= 2.0, "failed at {t}");
    assert!(motion.state(0, 1.5).is_some());
}

#[test]
fn a_step_that_collapses_stops_the_simulation() {
    // v' = exp(10 v) from v = 0: v = -ln(1 - 10 t) / 10 blows up at t = 0.1.
    let (failure, motion) = failing(&with_force("exp(10 * [b dx])"));
    assert!(
        matches!(
            failure.kind,
            ErrorKind::StepCollapse | ErrorKind::NonFinite | ErrorKind::NewtonFailed
        ),
        "{failure}"
    );
    let t = failure.time.unwrap();
    // Rounding may carry the last steps a hair past the singularity.
    assert!(t > 0.09 && t <= 0.1 + 1e-6, "failed at {t}");
    assert!(failure.variables.iter().any(|v| v == "b.dx"), "{failure}");
    let s = motion.state(0, 0.05).unwrap();
    assert!((s.velocity.x + (1.0f64 - 0.5).ln() / 10.0).abs() < 1e-3);
}

#[test]
fn a_link_of_tightness_1e12_stops_the_simulation_at_its_link() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/pendulum.asg"
    ))
    .unwrap()
    .replace("x 0 y 0 z 0 tightness 5000", "x 0 y 0 z 0 tightness 1e12");
    let model = compile(&text);
    let error = model.simulation(model.options()).err().expect("too stiff");
    let PhysicsError::Simulation(failure) = &error else {
        panic!("{error}");
    };
    assert_eq!(failure.bodies, ["b1"]);
    assert_eq!(failure.time, Some(0.0));
    assert!(failure.component.is_some());
    let diagnostic = error.diagnostic("pendulum.asg", &text);
    let line = text
        .lines()
        .position(|l| l.contains("tightness 1e12"))
        .unwrap()
        + 1;
    assert!(
        diagnostic.starts_with(&format!(
            "pendulum.asg:{line}:1: error: simulation failed at t = 0 for body b1 in component"
        )),
        "{diagnostic}"
    );
    assert!(diagnostic.contains("use a tightness below"), "{diagnostic}");
}

#[test]
fn motion_is_readable_while_the_worker_computes_it() {
    let mut text = format!("simulator finish 20 step 0.1\n{BALL}");
    text += "shape_set brick desc {sub pos {0 0 0} box {1 2 3}}\n";
    for b in 0..50 {
        text += &format!(
            "body b{b} shape brick init_pos {{{b} 0 0}} init_dpos {{0 5 0}} init_drot {{0.1 {} 0.1}}\n\
             force body b{b} gravity {{0 -9.81 0}}\n",
            1.0 + b as f64 * 0.05
        );
    }
    let model = compile(&text);
    let worker = model.simulation(model.options()).unwrap().spawn();
    let motion = model.motion(worker.motion().clone());
    let mut seen = 0.0;
    while !worker.is_finished() {
        let until = motion.complete_until();
        assert!(
            until >= seen,
            "complete_until went back from {seen} to {until}"
        );
        seen = until;
        for b in 0..model.bodies().len() {
            assert!(motion.computed_until(b) >= until);
            assert!(motion.state(b, until).is_some());
        }
    }
    let (_, result) = worker.join().unwrap();
    result.unwrap();
    assert_eq!(motion.complete_until(), 20.0);
    // Playback through a sampler agrees with one-off lookups.
    let mut sampler = motion.sampler();
    for k in 0..=200 {
        let t = k as f64 * 0.1;
        for b in [0, 17, 49] {
            assert_eq!(sampler.state(b, t), motion.state(b, t));
        }
    }
    assert!(motion.state(0, 20.5).is_none());
}

#[test]
fn every_bundled_example_simulates() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/examples");
    let mut count = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "asg") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let mut scene = evaluate(&text).unwrap_or_else(|e| panic!("{}", e.diagnostic(&name)));
        // The first two seconds (or the whole scene) keep the test quick.
        scene.simulator.finish = scene.simulator.finish.min(scene.simulator.start + 2.0);
        let model =
            Model::compile(&scene).unwrap_or_else(|e| panic!("{}", e.diagnostic(&name, &text)));
        let mut simulation = model
            .simulation(model.options())
            .unwrap_or_else(|e| panic!("{}", e.diagnostic(&name, &text)));
        if let Err(e) = simulation.run_to_end() {
            panic!(
                "{}",
                model
                    .describe(e, Some(simulation.partition()))
                    .diagnostic(&name, &text)
            );
        }
        let motion = model.motion(simulation.motion());
        for b in 0..model.bodies().len() {
            let s = motion.state(b, scene.simulator.finish).unwrap();
            assert!(s.position.iter().all(|c| c.is_finite()), "{name}: body {b}");
        }
        count += 1;
    }
    assert!(count >= 13, "only {count} examples");
}

#[test]
fn trajectory_values_in_expressions_extrapolate_linearly_outside_their_pieces() {
    // The curve runs from 0 at t = 1 to 1 at t = 2 with slope 1 at both ends, so inside and
    // (extrapolated) outside its piece it reads t - 1: the force is t - 1 throughout, and the
    // velocity t²/2 - t.
    let r = run(&format!(
        "simulator finish 3 step 0.1\n{BALL}\
         body b shape ball mass 1\n\
         trajectory ramp points {{{{1 0 0 0}} {{2 1 0 0}}}}\n\
         force body b x {{[ramp x]}} y 0 z 0"
    ));
    let points = r.points("b", 7);
    for &t in &[1.0, 2.0, 3.0] {
        assert!(
            points.iter().any(|&(time, _)| time == t),
            "no point at the breakpoint {t}"
        );
    }
    for (t, v) in points {
        assert!((v - (t * t / 2.0 - t)).abs() < 1e-9, "t {t}: {v}");
    }
}

#[test]
fn links_to_moving_points_damp_relative_to_the_points_motion() {
    // Each ball starts on its moving anchor with the anchor's velocity, so the link (damping
    // included) exerts no force and the ball keeps pace exactly: the anchors' rates of change
    // enter the damping term.
    let r = run(&format!(
        "simulator finish 4 step 0.1\n{BALL}\
         trajectory rail points {{{{0 0 0 0}} {{10 10 5 0}}}}\n\
         body a shape ball init_dpos {{1 0.5 0}} mass 1\n\
         link body1 a trajectory rail tightness 100\n\
         body b shape ball init_pos {{0 1 0}} init_dpos {{1 0 0}} mass 1\n\
         link body1 b x {{$t}} y {{1 + 0 * [a x]}} z 0 tightness 100\n\
         body c shape ball init_pos {{0 2 0}} init_dpos {{1 0 0}} mass 1\n\
         link body1 c x {{[a x]}} y 2 z 0 tightness 100"
    ));
    for name in ["a", "b", "c"] {
        // Within what the tolerance (the scene's 1e-4 per second) allows: the explicit
        // method's steps grow up to its stability bound, where rounding grows too. Without
        // the anchors' rates in the damping the balls would lag by about 0.2 m.
        for (t, x) in r.points(name, 0) {
            assert!((x - t).abs() <= 1e-4 * t * (1.0 + t), "{name} at {t}: {x}");
        }
    }
}
