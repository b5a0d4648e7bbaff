//! How accurate the computed motion is, at the solver's own points and between them (issue 28).
//!
//! For each scene: the solver's steps (accepted, over all components), the processor time of
//! the run, and errors read two ways — at every point the solver computed for the component
//! that matters (the body's orientation for the torque-free tee, its position otherwise) and
//! at samples between them (every output step of the scene, and the midpoint of every pair of
//! consecutive points), which is what playback, sampling and export read.
//!
//! - `dzhanibekov` (examples/dzhanibekov.asg, a torque-free tee): the relative change of the
//!   kinetic energy and of |L| from the start, and the times its spin about its intermediate
//!   axis reverses (read from samples every 0.01 s, as `asgard simulate --sample 0.01` gives
//!   them) against an RK4 reference at dt 1e-4 computed here.
//! - `top` (examples/spinning_top.asg): its energy (kinetic, gravity and the link's spring) and
//!   the vertical angular momentum about the tip, from 0.2 s (after the tap) to the end; the
//!   link's damping may dissipate a little of the energy.
//! - `orbit` (examples/orbit.asg): the planet's position relative to the star against
//!   Kepler's solution of the two-body problem, as a fraction of the orbit's radius.
//! - `spring`: a mass on an undamped spring force `-k x`, against `cos(ω t)`.
//! - `pendulum`: a ball hanging by a stiff link (the pendulum of tests/physics.rs): its
//!   horizontal position against the same scene at tolerance 1e-11 (a link stretches, so the
//!   rigid pendulum's closed form is not its exact answer).
//!
//! Each scene runs at its own (default) tolerance and the tighter ones given; `-- sweep` runs
//! orbit, spring and pendulum over tolerances 1e-2 … 1e-9 instead, for errors at equal step
//! counts. Run with `cargo bench --bench accuracy [-- SCENE|sweep]`.

use asgard::scene::evaluate;
use asgard::sim::physics::{BodyState, Model, SceneMotion};
use asgard::sim::Tolerance;
use nalgebra::{Matrix3, UnitQuaternion, Vector3};
use std::f64::consts::PI;

fn main() {
    let only = std::env::args().nth(1).filter(|a| !a.starts_with('-'));
    let wanted = |name: &str| only.as_deref().is_none_or(|o| o == name);
    let tighter = [None, Some(1e-5), Some(1e-6), Some(1e-8)];
    if only.as_deref() == Some("sweep") {
        let tolerances = [1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9];
        header("sweep");
        for tolerance in tolerances {
            orbit(Some(tolerance));
            spring(Some(tolerance));
            pendulum(Some(tolerance));
        }
        return;
    }
    if wanted("dzhanibekov") {
        header("dzhanibekov");
        for t in tighter {
            dzhanibekov(t);
        }
    }
    if wanted("top") {
        header("top");
        for t in tighter {
            top(t);
        }
    }
    for (name, case) in [
        ("orbit", orbit as fn(Option<f64>)),
        ("spring", spring),
        ("pendulum", pendulum),
    ] {
        if wanted(name) {
            header(name);
            for t in tighter {
                case(t);
            }
        }
    }
}

fn header(what: &str) {
    println!();
    match what {
        "dzhanibekov" | "top" => println!(
            "{:<12} {:>9} {:>8} {:>9} {:>10} {:>10} {:>10} {:>10} {:>11}",
            "scene",
            "tolerance",
            "steps",
            "cpu ms",
            "E points",
            "E between",
            "L points",
            "L between",
            "flip error"
        ),
        _ => println!(
            "{:<12} {:>9} {:>8} {:>9} {:>10} {:>10} {:>10} {:>10}",
            "scene",
            "tolerance",
            "steps",
            "cpu ms",
            "x points",
            "x between",
            "E points",
            "E between"
        ),
    }
}

/// A scene simulated to its finish.
struct Run {
    model: Model,
    motion: SceneMotion,
    steps: u64,
    cpu: f64,
    step: f64,
    finish: f64,
}

impl Run {
    /// Runs `text`, or prints the row of `scene` at `tolerance` as failed (a tolerance too
    /// tight for the scene stops its simulation with an error) and returns `None`.
    fn attempt(scene: &str, text: &str, tolerance: Option<f64>) -> Option<Run> {
        let run = Run::new(text, tolerance);
        if let Err(error) = &run {
            println!("{scene:<12} {:>9} fails: {error}", Run::label(tolerance));
        }
        run.ok()
    }

    fn new(text: &str, tolerance: Option<f64>) -> Result<Run, String> {
        let scene = evaluate(text).expect("the scene evaluates");
        let model = Model::compile(&scene).expect("the scene compiles");
        let mut options = model.options();
        if let Some(t) = tolerance {
            options.step.tolerance = Tolerance::new(t, t);
        }
        let mut simulation = model.simulation(options).expect("the simulation builds");
        let started = cpu_seconds();
        simulation.run_to_end().map_err(|e| e.to_string())?;
        let cpu = cpu_seconds() - started;
        let motion = model.motion(simulation.motion());
        Ok(Run {
            steps: simulation.statistics().total().steps,
            cpu,
            step: scene.simulator.step,
            finish: scene.simulator.finish,
            model,
            motion,
        })
    }

    fn body(&self, name: &str) -> usize {
        self.model.body_index(name).expect("the body exists")
    }

    /// The times of the points the solver computed for variable `offset` of the body (see
    /// `BodyVars`): those of the component holding it.
    fn point_times(&self, body: usize, offset: usize) -> Vec<f64> {
        let vars = self.model.bodies()[body].vars.expect("a moving body");
        let (track, _) = self
            .motion
            .motion()
            .track_of(vars.at(offset))
            .expect("the variable exists");
        track.times().to_vec()
    }

    /// The body's states at the points of variable `offset` (after any jump).
    fn points(&self, body: usize, offset: usize) -> Vec<(f64, BodyState)> {
        self.states(body, &self.point_times(body, offset))
    }

    /// The times between the points of variable `offset`: every output step and every
    /// midpoint.
    fn between(&self, body: usize, offset: usize) -> Vec<f64> {
        let times = self.point_times(body, offset);
        let steps = (self.finish / self.step).round() as usize;
        let mut between: Vec<f64> = (0..=steps).map(|k| k as f64 * self.step).collect();
        between.extend(times.windows(2).map(|w| 0.5 * (w[0] + w[1])));
        between
    }

    /// The body's states at `times`.
    fn states(&self, body: usize, times: &[f64]) -> Vec<(f64, BodyState)> {
        let mut sampler = self.motion.sampler();
        let mut sorted = times.to_vec();
        sorted.sort_by(f64::total_cmp);
        sorted
            .into_iter()
            .filter_map(|t| sampler.state(body, t).map(|s| (t, s)))
            .collect()
    }

    fn label(tolerance: Option<f64>) -> String {
        tolerance.map_or("default".into(), |t| format!("{t:.0e}"))
    }
}

/// Processor time of this thread, seconds.
fn cpu_seconds() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// The largest relative change of `f` over `states` from `reference`.
fn drift(states: &[(f64, BodyState)], reference: f64, f: impl Fn(f64, &BodyState) -> f64) -> f64 {
    states
        .iter()
        .map(|(t, s)| (f(*t, s) - reference).abs() / reference.abs())
        .fold(0.0, f64::max)
}

fn dzhanibekov(tolerance: Option<f64>) {
    let Some(run) = Run::attempt(
        "dzhanibekov",
        include_str!("../examples/dzhanibekov.asg"),
        tolerance,
    ) else {
        return;
    };
    let b = run.body("nut");
    let model = &run.model.bodies()[b];
    let momentum = |s: &BodyState| model.world_inertia(&s.rotation) * s.angular_velocity;
    let energy = |_: f64, s: &BodyState| 0.5 * s.angular_velocity.dot(&momentum(s));
    let size = |_: f64, s: &BodyState| momentum(s).norm();
    // The orientation's points: the energy depends on it alone.
    let points = run.points(b, 3);
    let between = run.states(b, &run.between(b, 3));
    let (e0, l0) = (energy(0.0, &points[0].1), size(0.0, &points[0].1));
    let spin = |s: &BodyState| (s.rotation.inverse() * s.angular_velocity).y;
    let grid: Vec<f64> = (0..=2000).map(|k| k as f64 * 0.01).collect();
    let flips = reversals(&run.states(b, &grid), spin);
    let reference = rk4_reversals(
        &model.inertia,
        model.initial.rotation,
        momentum(&points[0].1),
        20.0,
    );
    let flip_error = if flips.len() == reference.len() {
        flips
            .iter()
            .zip(&reference)
            .map(|(a, b)| (a - b).abs() / b)
            .fold(0.0, f64::max)
    } else {
        f64::INFINITY
    };
    println!(
        "{:<12} {:>9} {:>8} {:>9.2} {:>10.1e} {:>10.1e} {:>10.1e} {:>10.1e} {:>11.1e}",
        "dzhanibekov",
        Run::label(tolerance),
        run.steps,
        run.cpu * 1e3,
        drift(&points, e0, energy),
        drift(&between, e0, energy),
        drift(&points, l0, size),
        drift(&between, l0, size),
        flip_error
    );
    if tolerance.is_none() {
        println!("  reversals {flips:.3?}\n  RK4 1e-4  {reference:.3?}");
    }
}

/// Times where `f` of the sampled states changes sign, by linear interpolation between samples.
fn reversals(states: &[(f64, BodyState)], f: impl Fn(&BodyState) -> f64) -> Vec<f64> {
    let values: Vec<(f64, f64)> = states.iter().map(|(t, s)| (*t, f(s))).collect();
    values
        .windows(2)
        .filter(|w| (w[0].1 > 0.0) != (w[1].1 > 0.0))
        .map(|w| w[0].0 + (w[1].0 - w[0].0) * w[0].1 / (w[0].1 - w[1].1))
        .collect()
}

/// The reversal times of the body-axis y spin of a torque-free body, by RK4 on the quaternion
/// with dt 1e-4 (world angular momentum `l` is constant), sampled every 0.01 s.
fn rk4_reversals(
    inertia: &Matrix3<f64>,
    start: UnitQuaternion<f64>,
    l: Vector3<f64>,
    finish: f64,
) -> Vec<f64> {
    let inverse = inertia.try_inverse().expect("inertia is invertible");
    let rate = |q: &nalgebra::Quaternion<f64>| {
        let r = UnitQuaternion::new_normalize(*q).to_rotation_matrix();
        let omega = r * (inverse * (r.inverse() * l));
        nalgebra::Quaternion::from_imag(omega) * q * 0.5
    };
    let spin = |q: &nalgebra::Quaternion<f64>| {
        let r = UnitQuaternion::new_normalize(*q);
        (inverse * (r.inverse() * l)).y
    };
    let (dt, per_sample) = (1e-4, 100);
    let mut q = start.into_inner();
    let mut samples = vec![(0.0, spin(&q))];
    let steps = (finish / dt).round() as usize;
    for k in 1..=steps {
        let k1 = rate(&q);
        let k2 = rate(&(q + k1 * (dt / 2.0)));
        let k3 = rate(&(q + k2 * (dt / 2.0)));
        let k4 = rate(&(q + k3 * dt));
        q += (k1 + k2 * 2.0 + k3 * 2.0 + k4) * (dt / 6.0);
        if k % per_sample == 0 {
            samples.push((k as f64 * dt, spin(&q)));
        }
    }
    samples
        .windows(2)
        .filter(|w| (w[0].1 > 0.0) != (w[1].1 > 0.0))
        .map(|w| w[0].0 + (w[1].0 - w[0].0) * w[0].1 / (w[0].1 - w[1].1))
        .collect()
}

fn top(tolerance: Option<f64>) {
    let Some(run) = Run::attempt(
        "top",
        include_str!("../examples/spinning_top.asg"),
        tolerance,
    ) else {
        return;
    };
    let b = run.body("top");
    let model = &run.model.bodies()[b];
    let (mass, g, k, tip) = (model.mass, 9.81, 50000.0, Vector3::new(0.0, -0.75, 0.0));
    let energy = |_: f64, s: &BodyState| {
        let spin = 0.5
            * s.angular_velocity
                .dot(&(model.world_inertia(&s.rotation) * s.angular_velocity));
        let stretch = (s.position + s.rotation * tip).norm();
        0.5 * mass * s.velocity.norm_squared()
            + spin
            + mass * g * s.position.y
            + 0.5 * k * stretch * stretch
    };
    let vertical = |_: f64, s: &BodyState| {
        let spin = model.world_inertia(&s.rotation) * s.angular_velocity;
        (spin + s.position.cross(&(s.velocity * mass))).y
    };
    let after = |states: Vec<(f64, BodyState)>| -> Vec<(f64, BodyState)> {
        states.into_iter().filter(|(t, _)| *t >= 0.2).collect()
    };
    let points = after(run.points(b, 0));
    let between = after(run.states(b, &run.between(b, 0)));
    let first = &run.states(b, &[0.2])[0].1;
    let (e0, l0) = (energy(0.2, first), vertical(0.2, first));
    println!(
        "{:<12} {:>9} {:>8} {:>9.2} {:>10.1e} {:>10.1e} {:>10.1e} {:>10.1e} {:>11}",
        "top",
        Run::label(tolerance),
        run.steps,
        run.cpu * 1e3,
        drift(&points, e0, energy),
        drift(&between, e0, energy),
        drift(&points, l0, vertical),
        drift(&between, l0, vertical),
        "-"
    );
}

/// Prints one row for a scene with a known answer: the largest error of `error` over the
/// points and over the samples between them, and the largest relative change of `energy`.
fn row(
    name: &str,
    tolerance: Option<f64>,
    run: &Run,
    body: usize,
    error: impl Fn(f64, &BodyState) -> f64,
    energy: impl Fn(f64, &BodyState) -> f64,
) {
    let points = run.points(body, 0);
    let between = run.states(body, &run.between(body, 0));
    let worst =
        |states: &[(f64, BodyState)]| states.iter().map(|(t, s)| error(*t, s)).fold(0.0, f64::max);
    let e0 = energy(0.0, &points[0].1);
    println!(
        "{:<12} {:>9} {:>8} {:>9.2} {:>10.1e} {:>10.1e} {:>10.1e} {:>10.1e}",
        name,
        Run::label(tolerance),
        run.steps,
        run.cpu * 1e3,
        worst(&points),
        worst(&between),
        drift(&points, e0, &energy),
        drift(&between, e0, &energy)
    );
}

fn orbit(tolerance: Option<f64>) {
    let Some(run) = Run::attempt("orbit", include_str!("../examples/orbit.asg"), tolerance) else {
        return;
    };
    let (sun, earth) = (run.body("sun"), run.body("earth"));
    // The planet relative to the star moves on a Kepler orbit with μ = G (M + m).
    let mu = 101.0;
    let relative = |t: f64, s: &BodyState| {
        let star = run.motion.state(sun, t).expect("computed");
        (s.position - star.position, s.velocity - star.velocity)
    };
    let start = run.motion.state(earth, 0.0).expect("computed");
    let (r0, v0) = relative(0.0, &start);
    let kepler = Kepler::new(mu, r0, v0);
    let radius = r0.norm();
    let error = |t: f64, s: &BodyState| (relative(t, s).0 - kepler.position(t)).norm() / radius;
    // The reduced problem's energy, per unit of reduced mass.
    let energy = |t: f64, s: &BodyState| {
        let (r, v) = relative(t, s);
        0.5 * v.norm_squared() - mu / r.norm()
    };
    row("orbit", tolerance, &run, earth, error, energy);
}

/// The two-body problem in closed form: an ellipse, its position found from Kepler's equation.
struct Kepler {
    mu: f64,
    /// Semi-major axis and eccentricity.
    a: f64,
    e: f64,
    /// Unit vectors towards the pericentre and 90° ahead of it in the orbit's plane.
    p: Vector3<f64>,
    q: Vector3<f64>,
    /// The mean anomaly at time 0.
    m0: f64,
}

impl Kepler {
    fn new(mu: f64, r: Vector3<f64>, v: Vector3<f64>) -> Kepler {
        let h = r.cross(&v);
        let eccentricity = v.cross(&h) / mu - r / r.norm();
        let e = eccentricity.norm();
        let a = 1.0 / (2.0 / r.norm() - v.norm_squared() / mu);
        let p = eccentricity / e;
        let q = h.normalize().cross(&p);
        let true_anomaly = r.dot(&q).atan2(r.dot(&p));
        let eccentric =
            2.0 * ((1.0 - e).sqrt() * (true_anomaly / 2.0).tan()).atan2((1.0 + e).sqrt());
        let m0 = eccentric - e * eccentric.sin();
        Kepler { mu, a, e, p, q, m0 }
    }

    fn position(&self, t: f64) -> Vector3<f64> {
        let n = (self.mu / self.a.powi(3)).sqrt();
        let m = self.m0 + n * t;
        let mut eccentric = m;
        for _ in 0..50 {
            eccentric -=
                (eccentric - self.e * eccentric.sin() - m) / (1.0 - self.e * eccentric.cos());
        }
        let b = self.a * (1.0 - self.e * self.e).sqrt();
        self.p * (self.a * (eccentric.cos() - self.e)) + self.q * (b * eccentric.sin())
    }
}

const BALL: &str = "shape_set ball desc {sub pos {0 0 0} sphere 0.1}\n";

fn spring(tolerance: Option<f64>) {
    // k = 4, m = 1: x = cos 2t over 50 periods.
    let omega: f64 = 2.0;
    let finish = 50.0 * 2.0 * PI / omega;
    let Some(run) = Run::attempt(
        "spring",
        &format!(
            "simulator finish {finish} step 0.05\n{BALL}\
             body b shape ball init_pos {{1 0 0}} mass 1\n\
             force body b x {{-4 * [b x]}} y 0 z 0"
        ),
        tolerance,
    ) else {
        return;
    };
    let b = run.body("b");
    let error = |t: f64, s: &BodyState| (s.position.x - (omega * t).cos()).abs();
    let energy = |_: f64, s: &BodyState| 0.5 * s.velocity.x.powi(2) + 2.0 * s.position.x.powi(2);
    row("spring", tolerance, &run, b, error, energy);
}

fn pendulum_text() -> String {
    let theta: f64 = 0.05;
    format!(
        "simulator finish 12 step 0.01\n\
         shape_set ball desc {{sub pos {{0 0 0}} sphere 0.1}}\n\
         body b shape ball init_pos {{{} {} 0}} init_rot {{0 0 {theta}}} mass 1\n\
         force body b gravity {{0 -9.81 0}}\n\
         link body1 b offset1 {{0 1 0}} x 0 y 0 z 0 tightness 100000",
        theta.sin(),
        -theta.cos()
    )
}

fn pendulum(tolerance: Option<f64>) {
    thread_local! {
        static REFERENCE: Run = Run::new(&pendulum_text(), Some(1e-11)).expect("the reference runs");
    }
    let Some(run) = Run::attempt("pendulum", &pendulum_text(), tolerance) else {
        return;
    };
    let b = run.body("b");
    REFERENCE.with(|reference| {
        let error = |t: f64, s: &BodyState| {
            let exact = reference.motion.state(b, t).expect("computed");
            (s.position.x - exact.position.x).abs()
        };
        let model = &run.model.bodies()[b];
        let energy = |_: f64, s: &BodyState| {
            let spin = s
                .angular_velocity
                .dot(&(model.world_inertia(&s.rotation) * s.angular_velocity));
            0.5 * s.velocity.norm_squared() + 0.5 * spin + 9.81 * s.position.y
        };
        row("pendulum", tolerance, &run, b, error, energy);
    });
}
