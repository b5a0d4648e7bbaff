//! `asgard simulate FILE`: simulates a scene and writes the bodies' motion, sampled at a fixed
//! step, and the collisions, as JSON or CSV.
//!
//! `asgard simulate OLD --then NEW` simulates OLD, then brings the motion up to date for the
//! edited scene NEW incrementally (only what the edit affects is recomputed) and writes NEW's
//! motion, with what the update cost against simulating from scratch in `stats.incremental`
//! (see [`Incremental`]): the wall and processor seconds of building the solver for OLD
//! (`build_*`), of its first run (`first_*`) and of both together (`scratch_*`: what the
//! update saves, as simulating NEW from scratch would build a solver and run it), of
//! `Solver::update` alone (`solver_update_*`) and of the update with the run after it
//! (`update_*`, NEW's scene already copied and the profile of `--stats` set up outside it), the
//! ratio `speedup_cpu` = `scratch_cpu_s / update_cpu_s`, and how many components the update
//! reset. Processor times are the solver's thread's, which other work on the machine
//! disturbs less than wall-clock time.
//!
//! Errors in the scene are reported as `FILE:LINE:COL: error: …`; a simulation that fails
//! names the bodies, the component and the time, still writes the motion computed up to then,
//! and exits with status 1.
//!
//! `-o PATH` is written atomically: a failure at any point leaves the file that was there. A
//! read-only PATH is refused before the simulation starts, unless `--force` is given.
//!
//! Limits (docs/ARCHITECTURE.md): the samples per body (`--max-samples`) are counted before
//! anything is simulated, and the output is written as it is sampled, so memory does not grow
//! with it; the scene's output steps and the run's memory are `sim::RunLimits`
//! (`--max-output-steps`, `--max-memory`). Progress goes to standard error: a bar on a
//! terminal, otherwise a line every ten seconds of a long run, and with `--progress` also a
//! line at every twentieth of the time range.

use super::cost::{self, CostByInterval};
use super::limits::RunLimitArgs;
use super::read::{read_scene, ReadScene};
use asgard::live::thread_processor_time;
use asgard::save::{self, AtomicFile, ReadOnly};
use asgard::scene::Scene;
use asgard::sim::collide::Collision;
use asgard::sim::energy::LedgerJson;
use asgard::sim::limits::steps_in;
use asgard::sim::physics::{BodySampler, BodyState, Model, PhysicsError};
use asgard::sim::{Progress, RunControl, Simulation, Solver, Strategy};
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use std::cell::RefCell;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// `--max-samples` unless given: samples per body.
const DEFAULT_MAX_SAMPLES: u64 = 1_000_000;

#[derive(Args)]
pub struct SimulateArgs {
    /// The scene text.
    file: PathBuf,
    /// Simulate until this time instead of the scene's `simulator finish`.
    #[arg(long, value_name = "T")]
    until: Option<f64>,
    /// Sample the motion every DT seconds (default: the scene's `simulator step`).
    #[arg(long, value_name = "DT")]
    sample: Option<f64>,
    #[arg(long, value_enum, default_value_t = Format::Json)]
    format: Format,
    /// Write to PATH instead of standard output (atomically: a failure leaves the old file).
    #[arg(short = 'o', long = "output", value_name = "PATH")]
    output: Option<PathBuf>,
    /// Replace PATH even when it is read-only.
    #[arg(long, requires = "output")]
    force: bool,
    /// Integrate all equations as one component (figure 5.7's "combined").
    #[arg(long, conflicts_with = "no_event")]
    combined: bool,
    /// Run each component to the end in turn instead of event-driven scheduling.
    #[arg(long)]
    no_event: bool,
    /// Print the partition, the step counts and the processor time by simulated interval to
    /// standard error, and add the energy ledger (`stats.energy`: the kinetic energy's change
    /// by cause) and that processor time (`stats.cost`) to the JSON.
    #[arg(long)]
    stats: bool,
    /// After simulating FILE, update the motion incrementally for this edited scene and write
    /// its motion instead; `stats.incremental` gives the update's wall and processor seconds
    /// against building the solver and the first run, and their ratio `speedup_cpu`.
    #[arg(long, value_name = "NEW")]
    then: Option<PathBuf>,
    /// Refuse to write more than N samples per body (checked before simulating).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_SAMPLES)]
    max_samples: u64,
    /// Print a progress line to standard error at every twentieth of the time range (and
    /// every ten seconds), also when it is not a terminal.
    #[arg(long)]
    progress: bool,
    #[command(flatten)]
    limits: RunLimitArgs,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Json,
    Csv,
}

pub fn run(args: SimulateArgs) -> ExitCode {
    let Some(first) = load(&args.file, args.until) else {
        return ExitCode::FAILURE;
    };
    // The output is opened first, so that one that cannot be written is refused before the work.
    let output = match &args.output {
        Some(path) => match open_output(path, args.force) {
            Ok(file) => Some(file),
            Err(message) => {
                eprintln!("{message}");
                return ExitCode::FAILURE;
            }
        },
        None => None,
    };
    let sample = args.sample.unwrap_or(first.scene.simulator.step);
    if !(sample.is_finite() && sample > 0.0) {
        eprintln!(
            "{}: error: --sample must be a positive number of seconds, got {sample}",
            first.name
        );
        return ExitCode::FAILURE;
    }
    // The scene's own limit first: a range too long to simulate is the scene's problem,
    // whatever is sampled.
    if let Err(e) = args.limits.limits().check_scene(&first.scene) {
        eprintln!("{}", located(&first, e));
        return ExitCode::FAILURE;
    }
    if let Err(message) = check_samples(&first.scene, sample, args.max_samples) {
        eprintln!("{}: error: {message}", first.name);
        return ExitCode::FAILURE;
    }
    let strategy = if args.combined {
        Strategy::Combined
    } else if args.no_event {
        Strategy::Sequential
    } else {
        Strategy::EventDriven
    };
    let scene = first.scene.clone();
    let clock = Clock::start();
    let mut solver = match Solver::with_limits(scene, strategy, args.limits.limits()) {
        Ok(solver) => solver,
        Err(e) => {
            eprintln!("{}", located(&first, e));
            return ExitCode::FAILURE;
        }
    };
    let build = clock.read();
    let mut cost = args.stats.then(|| profile(&solver));
    let clock = Clock::start();
    let failure = integrate(&mut solver, &first.name, args.progress, cost.as_mut());
    let first_run = clock.read();
    let mut shown = first;
    let mut incremental = None;
    if let (None, Some(path)) = (&failure, &args.then) {
        let Some(next) = load(path, args.until) else {
            return ExitCode::FAILURE;
        };
        let sample = args.sample.unwrap_or(next.scene.simulator.step);
        if let Err(e) = args.limits.limits().check_scene(&next.scene) {
            eprintln!("{}", located(&next, e));
            return ExitCode::FAILURE;
        }
        if let Err(message) = check_samples(&next.scene, sample, args.max_samples) {
            eprintln!("{}: error: {message}", next.name);
            return ExitCode::FAILURE;
        }
        // Copied before the clock starts: the copy is not the update's (the profile of
        // `--stats`, made in it, is a vector of 20 numbers and a clock read).
        let scene = next.scene.clone();
        let clock = Clock::start();
        let summary = match solver.update(scene) {
            Ok(summary) => summary,
            Err(e) => {
                eprintln!("{}", located(&next, e));
                return ExitCode::FAILURE;
            }
        };
        let solver_update = clock.read();
        cost = args.stats.then(|| profile(&solver));
        let failure = integrate(&mut solver, &next.name, args.progress, cost.as_mut());
        let update = clock.read();
        incremental = Some((
            Incremental::new(
                build,
                first_run,
                solver_update,
                update,
                (summary.components_reset, summary.components_total),
            ),
            failure,
        ));
        shown = next;
    }
    let (incremental, failure) = match incremental {
        Some((stats, failure)) => (Some(stats), failure),
        None => (None, failure),
    };
    let mut status = ExitCode::SUCCESS;
    if let Some(e) = failure {
        eprintln!("{}", located(&shown, e));
        status = ExitCode::FAILURE;
    }
    for warning in solver.warnings() {
        eprintln!("{}: warning: {warning}", shown.name);
    }
    if args.stats {
        eprint!("{}", statistics(solver.simulation()));
        if let Some(cost) = &cost {
            eprint!("{}", cost.line());
        }
    }
    let sample = args.sample.unwrap_or(shown.scene.simulator.step);
    let motion = Sampled::new(&shown.scene, solver.model(), solver.simulation(), sample);
    let energy = args.stats.then(|| {
        let text = &shown.text;
        solver
            .energy(shown.scene.simulator.finish)
            .to_json(|offset| 1 + text[..offset.min(text.len())].matches('\n').count())
    });
    let stats = Stats {
        energy,
        steps: solver.simulation().statistics().total().steps,
        components: solver.simulation().partition().len(),
        wall_s: incremental
            .as_ref()
            .map_or(first_run.wall, |i| i.update_wall_s),
        incremental,
        cost,
    };
    let collisions = solver.collisions();
    let written = write(
        &args,
        output,
        Written {
            model: solver.model(),
            motion: &motion,
            collisions: &collisions,
            stats: &stats,
        },
    );
    if let Err(e) = written {
        let target = args
            .output
            .as_deref()
            .map_or("standard output".to_string(), |p| p.display().to_string());
        eprintln!("{}: error: cannot write {target}: {e}", shown.name);
        return ExitCode::FAILURE;
    }
    status
}

/// Reads and evaluates `path` (finishing at `until` if given), printing its warnings; prints
/// the error and returns `None` on failure.
fn load(path: &std::path::Path, until: Option<f64>) -> Option<ReadScene> {
    match read_scene(path) {
        Ok(mut read) => {
            if let Some(until) = until {
                read.scene.simulator.finish = until;
            }
            Some(read)
        }
        Err(message) => {
            eprintln!("{message}");
            None
        }
    }
}

/// A failure to simulate the scene of `read`, located in its text.
fn located(read: &ReadScene, e: PhysicsError) -> String {
    e.diagnostic(&read.name, &read.text)
}

/// Refuses `--sample DT` when it would write more than `max` samples per body between the
/// scene's start and finish (before anything is simulated).
fn check_samples(scene: &Scene, dt: f64, max: u64) -> Result<(), String> {
    let (start, finish) = (scene.simulator.start, scene.simulator.finish);
    let count = sample_count(start, finish, dt) as f64 + 1.0;
    if count <= max as f64 {
        return Ok(());
    }
    Err(format!(
        "--sample {dt} from {start} to {finish} makes {count:.0} samples per body, more than the \
         limit of {max} samples; a larger --sample or an earlier --until keeps within it, and \
         --max-samples N raises the limit"
    ))
}

/// The index of the last multiple of `dt` from `start` that is not after `end` (a multiple
/// within rounding of `end` counts).
fn sample_count(start: f64, end: f64, dt: f64) -> u64 {
    steps_in(end - start, dt).floor().max(0.0) as u64
}

/// A progress line without a terminal at least this often on a long run.
const PROGRESS_PERIOD: Duration = Duration::from_secs(10);

/// With `--progress`, a line each time the run passes another this fraction of its range.
const PROGRESS_FRACTION: f64 = 0.05;

/// With `--progress`, reports come this many steps apart (instead of the solver's default),
/// so that a run of a few thousand steps still shows its twentieths.
const PROGRESS_EVERY: u64 = 100;

/// An empty processor-time profile of the solver's simulated range.
fn profile(solver: &Solver) -> CostByInterval {
    let system = solver.simulation().system();
    CostByInterval::new(system.start(), system.end())
}

/// Runs the solver to the end, reporting progress on standard error: a bar on a terminal
/// (unless `lines`), otherwise lines (see the module documentation), and to `cost` when
/// given. Returns the failure, if any (the motion computed up to then is kept).
fn integrate(
    solver: &mut Solver,
    shown: &str,
    lines: bool,
    mut cost: Option<&mut CostByInterval>,
) -> Option<PhysicsError> {
    let system = solver.simulation().system();
    let (start, end) = (system.start(), system.end());
    if lines || cost.is_some() {
        solver.set_progress_every(PROGRESS_EVERY.min(cost::REPORT_EVERY));
    }
    let mut cost_report = |p: &Progress| {
        if let Some(cost) = cost.as_deref_mut() {
            cost.report(p.time);
        }
    };
    let fraction = |p: &Progress| ((p.time - start) / (end - start)).clamp(0.0, 1.0);
    if !lines && io::stderr().is_terminal() {
        const TICKS: u64 = 1000;
        let bar = ProgressBar::new(TICKS);
        bar.set_style(
            ProgressStyle::with_template("{elapsed_precise} [{bar:40}] t = {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        let mut show = |p: &Progress| {
            cost_report(p);
            bar.set_position((fraction(p) * TICKS as f64) as u64);
            bar.set_message(format!("{:.3} of {end} ({} steps)", p.time, p.steps));
        };
        let result = solver.run(&mut RunControl {
            cancel: None,
            progress: Some(&mut show),
        });
        bar.finish_and_clear();
        return result.err();
    }
    let began = Instant::now();
    let mut last_line = began;
    // The twentieths already reported.
    let mut reported = 0;
    let mut show = |p: &Progress| {
        cost_report(p);
        let reached = (fraction(p) / PROGRESS_FRACTION + 1e-9).floor() as u32;
        let now = Instant::now();
        let due = (lines && reached > reported) || now - last_line >= PROGRESS_PERIOD;
        if !due {
            return;
        }
        reported = reported.max(reached);
        last_line = now;
        eprintln!(
            "{shown}: progress: t = {:.6} of {end} ({:.0}%), {} steps, {:.1} s",
            p.time,
            fraction(p) * 100.0,
            p.steps,
            (now - began).as_secs_f64()
        );
    };
    solver
        .run(&mut RunControl {
            cancel: None,
            progress: Some(&mut show),
        })
        .err()
}

/// The partition and work counters, for `--stats`.
fn statistics(simulation: &Simulation) -> String {
    let partition = simulation.partition();
    let mut sizes: Vec<usize> = partition
        .ids()
        .map(|c| partition.members(c).len())
        .collect();
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    let mut counts: Vec<(usize, usize)> = Vec::new();
    for size in sizes {
        match counts.last_mut() {
            Some((s, n)) if *s == size => *n += 1,
            _ => counts.push((size, 1)),
        }
    }
    let histogram: Vec<String> = counts
        .iter()
        .map(|(size, n)| format!("{n} x {size} variables"))
        .collect();
    format!(
        "partition: {} components: {}\n{}\n",
        partition.len(),
        histogram.join(", "),
        simulation.statistics()
    )
}

/// The bodies' states at the sample times, read from the motion as they are written: nothing
/// proportional to the number of samples is held.
struct Sampled<'a> {
    start: f64,
    finish: f64,
    dt: f64,
    /// The last time the motion is known at (the finish unless the run stopped early).
    known: f64,
    /// How many sample times there are.
    count: u64,
    model: &'a Model,
    sampler: RefCell<BodySampler>,
}

impl<'a> Sampled<'a> {
    /// Every multiple of `dt` from the start to the finish, or to where the motion is
    /// computed when the simulation stopped early.
    fn new(scene: &Scene, model: &'a Model, simulation: &Simulation, dt: f64) -> Sampled<'a> {
        let (start, finish) = (scene.simulator.start, scene.simulator.finish);
        let motion = model.motion(simulation.motion());
        let known = motion.complete_until().min(finish);
        let count = if known >= start {
            sample_count(start, known, dt) + 1
        } else {
            0
        };
        Sampled {
            start,
            finish,
            dt,
            known,
            count,
            model,
            sampler: RefCell::new(motion.sampler()),
        }
    }

    /// The sample times.
    fn times(&self) -> impl Iterator<Item = f64> + '_ {
        (0..self.count).map(|k| (self.start + k as f64 * self.dt).min(self.known))
    }

    /// Body `body`'s states at the sample times, as far as they are known.
    fn states(&self, body: usize) -> impl Iterator<Item = (f64, BodyState)> + '_ {
        self.times()
            .map_while(move |t| self.sampler.borrow_mut().state(body, t).map(|s| (t, s)))
    }
}

/// A JSON array of one value per sample of one body, written as it is sampled.
struct Column<'s, 'a, F> {
    motion: &'s Sampled<'a>,
    body: usize,
    value: F,
}

impl<F, V> Serialize for Column<'_, '_, F>
where
    F: Fn(f64, &BodyState) -> V,
    V: Serialize,
{
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(
            self.motion
                .states(self.body)
                .map(|(t, state)| (self.value)(t, &state)),
        )
    }
}

#[derive(Serialize)]
struct Stats {
    steps: u64,
    components: usize,
    /// Of the last run (the incremental one with `--then`).
    wall_s: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    incremental: Option<Incremental>,
    /// The energy ledger, with `--stats`.
    #[serde(skip_serializing_if = "Option::is_none")]
    energy: Option<LedgerJson>,
    /// Processor time by simulated interval, with `--stats`.
    #[serde(skip_serializing_if = "Option::is_none")]
    cost: Option<CostByInterval>,
}

/// `--then`: what the incremental update cost against what simulating from scratch costs, in
/// wall-clock and processor seconds (the solver's thread's), and how much the update reset.
#[derive(Serialize)]
struct Incremental {
    /// Building the solver for the first scene (its model, equations and collider).
    build_wall_s: f64,
    build_cpu_s: f64,
    /// The first run's integration, without building the solver.
    first_wall_s: f64,
    first_cpu_s: f64,
    /// Building the solver and the first run: simulating from scratch, what the incremental
    /// update saves (the edited scene from scratch costs the same but for the edit).
    scratch_wall_s: f64,
    scratch_cpu_s: f64,
    /// `Solver::update` alone: the scene compared, the model, equations and collider updated.
    solver_update_wall_s: f64,
    solver_update_cpu_s: f64,
    /// The update and the run after it, up to the end of the edited scene's motion.
    update_wall_s: f64,
    update_cpu_s: f64,
    /// How many times faster the update and its run were than simulating from scratch, by
    /// processor time: `scratch_cpu_s / update_cpu_s` (null if the clock saw no time pass).
    speedup_cpu: Option<f64>,
    components_reset: usize,
    components_total: usize,
}

impl Incremental {
    /// From the times of building the solver, its first run, `Solver::update` alone and the
    /// update with its run, and the components (reset, total).
    fn new(
        build: Spent,
        first: Spent,
        solver_update: Spent,
        update: Spent,
        components: (usize, usize),
    ) -> Incremental {
        let scratch = Spent {
            wall: build.wall + first.wall,
            cpu: build.cpu + first.cpu,
        };
        Incremental {
            build_wall_s: build.wall,
            build_cpu_s: build.cpu,
            first_wall_s: first.wall,
            first_cpu_s: first.cpu,
            scratch_wall_s: scratch.wall,
            scratch_cpu_s: scratch.cpu,
            solver_update_wall_s: solver_update.wall,
            solver_update_cpu_s: solver_update.cpu,
            update_wall_s: update.wall,
            update_cpu_s: update.cpu,
            speedup_cpu: (update.cpu > 0.0).then(|| scratch.cpu / update.cpu),
            components_reset: components.0,
            components_total: components.1,
        }
    }
}

/// Wall-clock and processor seconds (this thread's) since a [`Clock`] started.
#[derive(Clone, Copy)]
struct Spent {
    wall: f64,
    cpu: f64,
}

/// A stopwatch of wall-clock and this thread's processor time.
struct Clock {
    wall: Instant,
    cpu: Duration,
}

impl Clock {
    fn start() -> Clock {
        Clock {
            wall: Instant::now(),
            cpu: thread_processor_time(),
        }
    }

    /// The time spent since the clock started.
    fn read(&self) -> Spent {
        Spent {
            wall: self.wall.elapsed().as_secs_f64(),
            cpu: (thread_processor_time().saturating_sub(self.cpu)).as_secs_f64(),
        }
    }
}

/// The new version of `-o PATH`, or a located refusal.
fn open_output(path: &Path, force: bool) -> Result<AtomicFile, String> {
    let options = save::Options::OUTPUT.with_read_only(ReadOnly::replace_if(force));
    AtomicFile::create(path, options).map_err(|e| super::write_error(path, &e))
}

/// What `simulate` writes.
struct Written<'a> {
    model: &'a Model,
    motion: &'a Sampled<'a>,
    collisions: &'a [Collision],
    stats: &'a Stats,
}

/// Writes the motion to `output` (put in place only when all of it is written), or to
/// standard output.
fn write(args: &SimulateArgs, output: Option<AtomicFile>, what: Written) -> io::Result<()> {
    match output {
        Some(file) => {
            let mut out = BufWriter::new(file);
            write_to(args.format, &mut out, what)?;
            out.into_inner().map_err(|e| e.into_error())?.commit()
        }
        None => write_to(args.format, &mut BufWriter::new(io::stdout().lock()), what),
    }
}

fn write_to(format: Format, out: &mut dyn Write, what: Written) -> io::Result<()> {
    let Written {
        model,
        motion,
        collisions,
        stats,
    } = what;
    match format {
        Format::Json => write_json(out, model, motion, collisions, stats)?,
        Format::Csv => write_csv(out, model, motion)?,
    }
    out.flush()
}

/// `{"start", "finish", "bodies": {NAME: {...}}, "collisions": [{"t", "bodies", "point",
/// "normal", "impulse", "resting"}], "stats": {...}}`.
fn write_json(
    out: &mut dyn Write,
    model: &Model,
    motion: &Sampled<'_>,
    collisions: &[Collision],
    stats: &Stats,
) -> io::Result<()> {
    #[derive(Serialize)]
    struct Output<'a> {
        start: f64,
        finish: f64,
        bodies: Bodies<'a, 'a>,
        collisions: Vec<Event<'a>>,
        stats: &'a Stats,
    }
    /// One collision: the time, the two bodies, the contact point, the normal from the
    /// first body towards the second, the normal impulse (N s) and whether it was a resting
    /// contact, stopped and held by contact forces from then on, rather than a bounce.
    #[derive(Serialize)]
    struct Event<'a> {
        t: f64,
        bodies: [&'a str; 2],
        point: [f64; 3],
        normal: [f64; 3],
        impulse: f64,
        resting: bool,
    }
    let bodies = model.bodies();
    let vector = |v: &nalgebra::Vector3<f64>| [v.x, v.y, v.z];
    let output = Output {
        start: motion.start,
        finish: motion.finish,
        bodies: Bodies { motion },
        collisions: collisions
            .iter()
            .map(|c| Event {
                t: c.time,
                bodies: [&bodies[c.bodies.0].name, &bodies[c.bodies.1].name],
                point: vector(&c.point),
                normal: vector(&c.normal),
                impulse: c.impulse,
                resting: c.resting,
            })
            .collect(),
        stats,
    };
    serde_json::to_writer(&mut *out, &output)?;
    writeln!(out)
}

/// The bodies as a JSON object in scene order.
struct Bodies<'s, 'a> {
    motion: &'s Sampled<'a>,
}

impl Serialize for Bodies<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        fn vector(v: &nalgebra::Vector3<f64>) -> [f64; 3] {
            [v.x, v.y, v.z]
        }
        let model = self.motion.model;
        let mut map = serializer.serialize_map(Some(model.bodies().len()))?;
        for (b, body) in model.bodies().iter().enumerate() {
            let column = |value| Column {
                motion: self.motion,
                body: b,
                value,
            };
            type Value = fn(f64, &BodyState) -> [f64; 3];
            let time: fn(f64, &BodyState) -> f64 = |t, _| t;
            let position: Value = |_, s| vector(&s.position);
            let velocity: Value = |_, s| vector(&s.velocity);
            let spin: Value = |_, s| vector(&s.angular_velocity);
            let rotation: fn(f64, &BodyState) -> [f64; 4] = |_, s| {
                let q = s.rotation.quaternion();
                [q.w, q.i, q.j, q.k]
            };
            map.serialize_entry(
                &body.name,
                &Body {
                    mass: body.mass,
                    inertia: [0, 1, 2].map(|i| [0, 1, 2].map(|j| body.inertia[(i, j)])),
                    t: Column {
                        motion: self.motion,
                        body: b,
                        value: time,
                    },
                    pos: column(position),
                    rot: Column {
                        motion: self.motion,
                        body: b,
                        value: rotation,
                    },
                    vel: column(velocity),
                    angvel: column(spin),
                },
            )?;
        }
        map.end()
    }
}

/// One body's entry: its mass properties and one column per quantity.
#[derive(Serialize)]
struct Body<T, P, R> {
    mass: f64,
    inertia: [[f64; 3]; 3],
    t: T,
    pos: P,
    rot: R,
    vel: P,
    angvel: P,
}

/// One row per body and sample: `body,t,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz`. Numbers are
/// written in their shortest exact form (exponents for very small or large ones).
fn write_csv(out: &mut dyn Write, model: &Model, motion: &Sampled<'_>) -> io::Result<()> {
    writeln!(out, "body,t,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz")?;
    for (b, body) in model.bodies().iter().enumerate() {
        let name = csv_field(&body.name);
        for (t, s) in motion.states(b) {
            let q = s.rotation.quaternion();
            let (p, v, w) = (s.position, s.velocity, s.angular_velocity);
            write!(out, "{name},{t:?}")?;
            for value in [
                p.x, p.y, p.z, q.w, q.i, q.j, q.k, v.x, v.y, v.z, w.x, w.y, w.z,
            ] {
                write!(out, ",{value:?}")?;
            }
            writeln!(out)?;
        }
    }
    Ok(())
}

/// A CSV field, quoted when it holds a comma, quote or line break.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}
