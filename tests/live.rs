//! The real-time driver under a manual clock: sub-step counts, slow frames, determinism,
//! pausing one module, starting callbacks, initialisation failure and stopping from another
//! thread.

use asgard::live::{
    Driver, LiveError, ManualClock, Module, ModuleError, ModuleHandle, Schedule, StopHandle,
    DEFAULT_DT,
};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::sync::mpsc;
use std::time::Duration;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// Shared record of what happened, in order.
type Log = Rc<RefCell<Vec<String>>>;

/// The timestep and the state (x, v) after one scene update.
type Step = (f64, f64, f64);

/// Every scene update so far, shared between the scene and the modules watching it.
type Steps = Rc<RefCell<Vec<Step>>>;

/// A scene module: a unit mass on a spring, integrated with symplectic Euler, recording the
/// timestep and the state after every update.
struct Oscillator {
    x: f64,
    v: f64,
    steps: Steps,
}

impl Oscillator {
    fn new() -> (Oscillator, Steps) {
        let steps = Rc::new(RefCell::new(Vec::new()));
        let oscillator = Oscillator {
            x: 1.0,
            v: 0.0,
            steps: steps.clone(),
        };
        (oscillator, steps)
    }
}

impl Module for Oscillator {
    fn name(&self) -> &str {
        "oscillator"
    }

    fn update(&mut self, dt: f64) {
        self.v -= 40.0 * self.x * dt;
        self.x += self.v * dt;
        self.steps.borrow_mut().push((dt, self.x, self.v));
    }
}

/// A viewer standing in for rendering: each iteration it "takes" the next frame time of its
/// script by advancing the clock, notes how many scene steps ran since the previous frame,
/// and stops the driver when the script runs out.
struct ScriptedFrames {
    clock: ManualClock,
    frame_times: VecDeque<Duration>,
    scene_steps: Steps,
    seen: usize,
    per_iteration: Rc<RefCell<Vec<usize>>>,
    stop: StopHandle,
}

impl Module for ScriptedFrames {
    fn name(&self) -> &str {
        "frames"
    }

    fn update(&mut self, _dt: f64) {
        let total = self.scene_steps.borrow().len();
        self.per_iteration.borrow_mut().push(total - self.seen);
        self.seen = total;
        match self.frame_times.pop_front() {
            Some(t) => self.clock.advance(t),
            None => self.stop.request_stop(),
        }
    }
}

/// Runs an oscillator and scripted frames; returns the scene steps taken in each iteration
/// and every step's (dt, x, v).
fn run_script(
    frame_times: &[Duration],
    dt: Duration,
    remainder_division: bool,
) -> (Vec<usize>, Vec<Step>) {
    let clock = ManualClock::new();
    let mut driver = Driver::with_clock(clock.clone());
    driver.set_desired_dt(dt).unwrap();
    driver.set_remainder_division(remainder_division);
    let (oscillator, steps) = Oscillator::new();
    let per_iteration = Rc::new(RefCell::new(Vec::new()));
    driver.add_module(oscillator, Schedule::FixedStep);
    driver.add_module(
        ScriptedFrames {
            clock,
            frame_times: frame_times.iter().copied().collect(),
            scene_steps: steps.clone(),
            seen: 0,
            per_iteration: per_iteration.clone(),
            stop: driver.stop_handle(),
        },
        Schedule::EveryIteration,
    );
    driver.run().unwrap();
    let per_iteration = per_iteration.borrow().clone();
    let steps = steps.borrow().clone();
    (per_iteration, steps)
}

#[test]
fn the_defaults_are_a_hundredth_of_a_second_and_remainder_division() {
    let driver = Driver::new();
    assert_eq!(driver.desired_dt(), Duration::from_secs_f64(0.01));
    assert_eq!(DEFAULT_DT, ms(10));
    assert!(driver.remainder_division());
}

#[test]
fn sub_step_counts_follow_the_time_bank() {
    let frames = [ms(35), ms(2), ms(13), ms(0), ms(100), ms(9), ms(1)];
    let (per_iteration, steps) = run_script(&frames, ms(10), false);
    // The first iteration has no elapsed time; each later one pays for the frame before it.
    // Bank: 35 → 3 steps, 5 left; +2 = 7 → 0; +13 = 20 → 2; +0 → 0; +100 → 10; +9 → 0;
    // +1 = 10 → 1.
    assert_eq!(per_iteration, [0, 3, 0, 2, 0, 10, 0, 1]);
    assert!(steps.iter().all(|&(dt, _, _)| dt == 0.01));
}

#[test]
fn remainder_division_spreads_the_bank_over_the_steps() {
    let frames = [ms(35), ms(2), ms(13)];
    let (per_iteration, steps) = run_script(&frames, ms(10), true);
    // 35 ms → 3 steps of 35/3 ms, nothing left; 2 ms → nothing yet; 2 + 13 ms → 1 step of
    // 15 ms.
    assert_eq!(per_iteration, [0, 3, 0, 1]);
    let dts: Vec<f64> = steps.iter().map(|s| s.0).collect();
    assert_eq!(dts, [0.035 / 3.0, 0.035 / 3.0, 0.035 / 3.0, 0.015]);
}

#[test]
fn a_slow_frame_is_made_up_by_more_steps_in_the_next_iteration() {
    for division in [false, true] {
        // Rendering takes 1 s with dt 0.1 s: ten updates on the next iteration.
        let (per_iteration, steps) = run_script(&[Duration::from_secs(1)], ms(100), division);
        assert_eq!(per_iteration, [0, 10]);
        assert!(steps.iter().all(|&(dt, _, _)| dt == 0.1));
    }
}

fn bits(steps: &[Step]) -> Vec<(u64, u64, u64)> {
    steps
        .iter()
        .map(|&(dt, x, v)| (dt.to_bits(), x.to_bits(), v.to_bits()))
        .collect()
}

#[test]
fn without_remainder_division_runs_are_bit_for_bit_repeatable() {
    // Irregular frame times, as a real renderer would give.
    let jittery: Vec<Duration> = (0..200)
        .map(|i| Duration::from_micros(16_000 + (i * 7919 % 5000)))
        .collect();
    let (_, first) = run_script(&jittery, ms(10), false);
    let (_, second) = run_script(&jittery, ms(10), false);
    assert_eq!(bits(&first), bits(&second));

    // A faster machine renders more frames in the same time: the scene takes the same steps
    // with the same results, however they fall into iterations.
    let fast: Vec<Duration> = jittery
        .iter()
        .flat_map(|&t| [t * 3 / 4, t - t * 3 / 4])
        .collect();
    let (_, on_fast_machine) = run_script(&fast, ms(10), false);
    assert_eq!(bits(&first), bits(&on_fast_machine));
    assert!(first.len() > 300);

    // With division the step lengths, and so the results, depend on the frame times.
    let (_, divided) = run_script(&jittery, ms(10), true);
    let (_, divided_fast) = run_script(&fast, ms(10), true);
    assert!(bits(&divided) != bits(&divided_fast));
}

/// Counts its updates and, at given iterations of its own, pauses or resumes another module.
struct Director {
    clock: ManualClock,
    iteration: usize,
    scene: ModuleHandle,
    scene_steps: Steps,
    seen: usize,
    per_iteration: Rc<RefCell<Vec<usize>>>,
    stop: StopHandle,
}

impl Module for Director {
    fn name(&self) -> &str {
        "director"
    }

    fn update(&mut self, _dt: f64) {
        let total = self.scene_steps.borrow().len();
        self.per_iteration.borrow_mut().push(total - self.seen);
        self.seen = total;
        self.iteration += 1;
        match self.iteration {
            3 => self.scene.pause(),
            6 => self.scene.resume(),
            9 => self.stop.request_stop(),
            _ => {}
        }
        self.clock.advance(ms(20));
    }
}

#[test]
fn pausing_one_module_skips_it_while_the_rest_runs_on() {
    let clock = ManualClock::new();
    let mut driver = Driver::with_clock(clock.clone());
    driver.set_remainder_division(false);
    let (oscillator, steps) = Oscillator::new();
    let scene = driver.add_module(oscillator, Schedule::FixedStep);
    let per_iteration = Rc::new(RefCell::new(Vec::new()));
    driver.add_module(
        Director {
            clock,
            iteration: 0,
            scene: scene.clone(),
            scene_steps: steps.clone(),
            seen: 0,
            per_iteration: per_iteration.clone(),
            stop: driver.stop_handle(),
        },
        Schedule::EveryIteration,
    );
    driver.run().unwrap();
    // 20 ms per frame at dt 10 ms is two steps per iteration. Paused during iterations 4-6
    // (after the director's third update), the scene takes none, and on resume it does not
    // make up for the time it missed.
    assert_eq!(*per_iteration.borrow(), [0, 2, 2, 0, 0, 0, 2, 2, 2]);
    assert!(!scene.is_paused());
}

/// Records init, update and uninit calls; fails to initialise when told to.
struct Recorder {
    name: &'static str,
    log: Log,
    fail_init: bool,
}

impl Module for Recorder {
    fn name(&self) -> &str {
        self.name
    }

    fn init(&mut self) -> Result<(), ModuleError> {
        self.log.borrow_mut().push(format!("init {}", self.name));
        if self.fail_init {
            return Err("no device attached".into());
        }
        Ok(())
    }

    fn update(&mut self, _dt: f64) {
        self.log.borrow_mut().push(format!("update {}", self.name));
    }

    fn uninit(&mut self) {
        self.log.borrow_mut().push(format!("uninit {}", self.name));
    }
}

fn recorder(name: &'static str, log: &Log, fail_init: bool) -> Recorder {
    Recorder {
        name,
        log: log.clone(),
        fail_init,
    }
}

#[test]
fn starting_runs_after_initialisation_and_before_the_first_update() {
    let log: Log = Rc::default();
    let clock = ManualClock::new();
    let mut driver = Driver::with_clock(clock.clone());
    driver.add_module(recorder("scene", &log, false), Schedule::FixedStep);
    driver.add_module(recorder("viewer", &log, false), Schedule::EveryIteration);
    let starting_log = log.clone();
    let stop = driver.stop_handle();
    driver.on_starting(move || starting_log.borrow_mut().push("starting".to_string()));
    // The first frame takes 10 ms; the second sees the stop request.
    let viewer_log = log.clone();
    driver.add_module(
        FnModule(move || {
            clock.advance(ms(10));
            if viewer_log
                .borrow()
                .iter()
                .filter(|l| *l == "update viewer")
                .count()
                == 2
            {
                stop.request_stop();
            }
        }),
        Schedule::EveryIteration,
    );
    driver.run().unwrap();
    assert_eq!(
        *log.borrow(),
        [
            "init scene",
            "init viewer",
            "starting",
            "update viewer",
            "update scene",
            "update viewer",
            "uninit viewer",
            "uninit scene",
        ]
    );
}

/// A module that is just a closure run every update.
struct FnModule<F: FnMut()>(F);

impl<F: FnMut()> Module for FnModule<F> {
    fn name(&self) -> &str {
        "closure"
    }

    fn update(&mut self, _dt: f64) {
        (self.0)();
    }
}

#[test]
fn a_failed_initialisation_shuts_down_the_modules_already_started() {
    let log: Log = Rc::default();
    let mut driver = Driver::with_clock(ManualClock::new());
    driver.add_module(recorder("scene", &log, false), Schedule::FixedStep);
    driver.add_module(recorder("haptics", &log, true), Schedule::EveryIteration);
    driver.add_module(recorder("viewer", &log, false), Schedule::EveryIteration);
    let starting_log = log.clone();
    driver.on_starting(move || starting_log.borrow_mut().push("starting".to_string()));
    let error = driver.run().unwrap_err();
    assert_eq!(
        error.to_string(),
        "module `haptics` could not start: no device attached"
    );
    assert!(matches!(error, LiveError::Init { ref module, .. } if module == "haptics"));
    assert_eq!(
        *log.borrow(),
        ["init scene", "init haptics", "uninit scene"]
    );
}

#[test]
fn a_zero_timestep_is_refused() {
    let mut driver = Driver::new();
    assert!(matches!(
        driver.set_desired_dt(Duration::ZERO),
        Err(LiveError::ZeroTimestep)
    ));
    assert_eq!(driver.desired_dt(), DEFAULT_DT);
}

#[test]
fn with_nothing_to_do_the_driver_sleeps_until_the_next_step_is_due() {
    // Only a fixed-step module and nobody advancing the clock: time passes only by the
    // driver's sleeping, one step's worth at a time, so simulated time equals clock time.
    let clock = ManualClock::new();
    let mut driver = Driver::with_clock(clock.clone());
    driver.set_desired_dt(ms(5)).unwrap();
    let stop = driver.stop_handle();
    let mut updates = 0;
    driver.add_module(
        FnModule(move || {
            updates += 1;
            if updates == 40 {
                stop.request_stop();
            }
        }),
        Schedule::FixedStep,
    );
    driver.run().unwrap();
    assert_eq!(clock.read(), ms(200));
}

#[test]
fn another_thread_stops_the_driver() {
    let clock = ManualClock::new();
    let mut driver = Driver::with_clock(clock.clone());
    let stop = driver.stop_handle();
    let (started_tx, started_rx) = mpsc::channel();
    driver.on_starting(move || started_tx.send(()).unwrap());
    let log: Log = Rc::default();
    driver.add_module(recorder("scene", &log, false), Schedule::FixedStep);
    // If the stop request were lost the loop would run on forever; fail instead once the
    // simulated time is absurd (an hour of 10 ms steps).
    driver.add_module(
        FnModule(move || assert!(clock.read() < Duration::from_secs(3600), "never stopped")),
        Schedule::FixedStep,
    );
    let stopper = std::thread::spawn(move || {
        started_rx.recv().unwrap();
        stop.request_stop();
    });
    driver.run().unwrap();
    stopper.join().unwrap();
    let log = log.borrow();
    assert_eq!(log.first().map(String::as_str), Some("init scene"));
    assert_eq!(log.last().map(String::as_str), Some("uninit scene"));

    // The request was used up by that run; the driver can run again.
    assert!(!driver.stop_handle().is_stop_requested());
}

#[test]
fn a_stop_requested_before_running_ends_the_run_before_any_update() {
    let log: Log = Rc::default();
    let mut driver = Driver::with_clock(ManualClock::new());
    driver.add_module(recorder("viewer", &log, false), Schedule::EveryIteration);
    driver.stop_handle().request_stop();
    driver.run().unwrap();
    assert_eq!(*log.borrow(), ["init viewer", "uninit viewer"]);
}
