//! The numerical core of the motion simulator, exercised with hand-written equations.

use asgard::sim::{
    BackUp, ClosureEquations, ComponentId, Equation, ErrorKind, Options, Partition, Prescription,
    RunControl, RunOutcome, SimError, Simulation, StepContext, StepControl, StepObserver,
    StepReport, Strategy, System, Tolerance, VarId,
};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

/// Adds `x' = v, v' = -omega² x + drive` (drive: sum of the given variables).
fn oscillator(
    system: &mut System,
    equations: &mut ClosureEquations,
    name: &str,
    x0: f64,
    v0: f64,
    omega: f64,
    drive: &[VarId],
) -> (VarId, VarId) {
    let x = system.add_variable(format!("{name}.x"), x0);
    let v = system.add_variable(format!("{name}.v"), v0);
    let w2 = omega * omega;
    equations.define(
        system,
        x,
        Equation::new(move |_, s| s.get(v)).reads(v, |_, _| 1.0),
    );
    let inputs = drive.to_vec();
    let mut eq =
        Equation::new(move |_, s| -w2 * s.get(x) + inputs.iter().map(|&d| s.get(d)).sum::<f64>())
            .reads(x, move |_, _| -w2);
    for &d in drive {
        eq = eq.reads(d, |_, _| 1.0);
    }
    equations.define(system, v, eq);
    (x, v)
}

fn options(strategy: Strategy) -> Options {
    Options {
        strategy,
        ..Options::default()
    }
}

fn simulate(system: &System, equations: &ClosureEquations, options: Options) -> Simulation {
    let mut sim = Simulation::new(system.clone(), equations, options).unwrap();
    sim.run_to_end().unwrap();
    sim
}

/// Every computed point of `var`: (time, value).
fn points(sim: &Simulation, var: VarId) -> Vec<(f64, f64)> {
    let (track, local) = sim.motion().track_of(var).unwrap();
    track
        .times()
        .iter()
        .copied()
        .zip(track.column(local))
        .collect()
}

fn max_error(sim: &Simulation, var: VarId, exact: impl Fn(f64) -> f64) -> f64 {
    points(sim, var)
        .into_iter()
        .map(|(t, x)| (x - exact(t)).abs())
        .fold(0.0, f64::max)
}

#[test]
fn exponential_decay_matches_the_closed_form() {
    let mut system = System::new(0.0, 4.0);
    let mut eqs = ClosureEquations::new();
    let x = system.add_variable("x", 3.0);
    eqs.define(
        &mut system,
        x,
        Equation::new(move |_, s| -1.5 * s.get(x)).reads(x, |_, _| -1.5),
    );
    let sim = simulate(&system, &eqs, Options::default());
    let steps = sim.statistics().total().steps as f64;
    let error = max_error(&sim, x, |t| 3.0 * (-1.5 * t).exp());
    // Each step's local error is bounded by 1e-6 (1 + |x|); the global error is at most their
    // sum.
    assert!(error <= steps * 4e-6, "error {error} after {steps} steps");
    assert!(error < 1e-4, "error {error}");
    // Playback by linear interpolation stays within the interpolation tolerance.
    let mut sampler = sim.motion().sampler();
    for k in 0..=4000 {
        let t = k as f64 * 1e-3;
        let played = sampler.value(x, t).unwrap();
        assert!(
            (played - 3.0 * (-1.5 * t).exp()).abs() < 2e-3 * 4.0,
            "t {t}"
        );
    }
}

#[test]
fn harmonic_oscillator_matches_the_closed_form() {
    let mut system = System::new(0.0, 2.0);
    let mut eqs = ClosureEquations::new();
    let omega = std::f64::consts::TAU;
    let (x, v) = oscillator(&mut system, &mut eqs, "o", 1.0, 0.0, omega, &[]);
    let mut opts = Options::default();
    opts.step.tolerance = Tolerance::new(1e-8, 1e-8);
    let sim = simulate(&system, &eqs, opts);
    let steps = sim.statistics().total().steps as f64;
    let ex = max_error(&sim, x, |t| (omega * t).cos());
    let ev = max_error(&sim, v, |t| -omega * (omega * t).sin());
    assert!(
        ex <= steps * 2e-8 && ev <= steps * 2e-8 * omega,
        "errors {ex} {ev} after {steps} steps"
    );
    assert!(ex < 1e-4 && ev < 1e-3, "errors {ex} {ev}");
}

#[test]
fn free_fall_is_exact() {
    let mut system = System::new(0.0, 3.0);
    let mut eqs = ClosureEquations::new();
    let y = system.add_variable("b1.y", 50.0);
    let dy = system.add_variable("b1.dy", 4.0);
    eqs.define(
        &mut system,
        y,
        Equation::new(move |_, s| s.get(dy)).reads(dy, |_, _| 1.0),
    );
    eqs.define(&mut system, dy, Equation::new(|_, _| -9.81));
    let sim = simulate(&system, &eqs, Options::default());
    for (t, value) in points(&sim, y) {
        let exact = 50.0 + 4.0 * t - 0.5 * 9.81 * t * t;
        assert!(
            (value - exact).abs() <= 1e-9 * exact.abs(),
            "t {t}: {value} vs {exact}"
        );
    }
    for (t, value) in points(&sim, dy) {
        assert!((value - (4.0 - 9.81 * t)).abs() <= 1e-9 * (4.0f64).max((9.81 * t - 4.0).abs()));
    }
}

#[test]
fn a_fast_and_a_slow_oscillator_take_far_fewer_steps_apart() {
    let mut system = System::new(0.0, 2.0);
    let mut eqs = ClosureEquations::new();
    let (fast, _) = oscillator(&mut system, &mut eqs, "fast", 1.0, 0.0, 300.0, &[]);
    let (slow, _) = oscillator(&mut system, &mut eqs, "slow", 1.0, 0.0, 1.0, &[]);
    let apart = simulate(&system, &eqs, Options::default());
    let together = simulate(&system, &eqs, options(Strategy::Combined));
    assert_eq!(apart.partition().len(), 2);
    assert_eq!(together.partition().len(), 1);
    let stats = apart.statistics();
    let slow_steps = stats.components[apart.partition().component_of(slow).index()].steps;
    let fast_steps = stats.components[apart.partition().component_of(fast).index()].steps;
    let combined_steps = together.statistics().total().steps;
    assert!(
        slow_steps * 20 < combined_steps,
        "slow {slow_steps} vs combined {combined_steps}"
    );
    assert!(fast_steps <= combined_steps * 11 / 10);
    // Variable-steps (the work that grows with the step count): far less apart.
    assert!(2 * (slow_steps + fast_steps) * 10 < 4 * combined_steps * 6);
    // Both are accurate.
    assert!(max_error(&together, slow, f64::cos) < 1e-3);
    assert!(max_error(&apart, slow, f64::cos) < 1e-3);
}

/// A step and the last computed times, at that moment, of the components it reads.
type LoggedStep = (StepReport, Vec<f64>);

/// Records every step and every truncation.
#[derive(Clone, Default)]
struct Log {
    steps: Arc<Mutex<Vec<LoggedStep>>>,
    truncated: Arc<Mutex<Vec<(ComponentId, f64)>>>,
}

struct Recorder {
    log: Log,
    /// On the first step of this component past `at`, request this back-up.
    trigger: Option<(ComponentId, f64, BackUp)>,
    /// When this component is truncated, also back up that one to this time.
    tie: Option<(ComponentId, ComponentId, f64)>,
}

impl StepObserver for Recorder {
    fn stepped(&mut self, step: &StepReport, context: &mut StepContext<'_>) {
        let inputs = context
            .partition()
            .depends_on(step.component)
            .iter()
            .map(|&d| context.reached(d))
            .collect();
        self.log.steps.lock().unwrap().push((*step, inputs));
        if let Some((c, at, _)) = &self.trigger {
            if step.component == *c && step.to >= *at {
                let (_, _, request) = self.trigger.take().unwrap();
                context.request_back_up(request);
            }
        }
    }

    fn truncated(
        &mut self,
        _: &Partition,
        component: ComponentId,
        time: f64,
        also: &mut Vec<(ComponentId, f64)>,
        _: &mut Vec<(ComponentId, f64)>,
    ) {
        self.log.truncated.lock().unwrap().push((component, time));
        if let Some((c, other, t)) = self.tie {
            if c == component && t > time {
                also.push((other, t));
            }
        }
    }
}

/// Three oscillators: `a` drives `b`, `c` stands alone; `d` reads `b` and `c`.
fn diamond() -> (System, ClosureEquations, [VarId; 8]) {
    let mut system = System::new(0.0, 3.0);
    let mut eqs = ClosureEquations::new();
    let (ax, av) = oscillator(&mut system, &mut eqs, "a", 1.0, 0.0, 20.0, &[]);
    let (bx, bv) = oscillator(&mut system, &mut eqs, "b", 0.0, 1.0, 2.0, &[ax]);
    let (cx, cv) = oscillator(&mut system, &mut eqs, "c", 0.5, 0.0, 5.0, &[]);
    let (dx, dv) = oscillator(&mut system, &mut eqs, "d", 0.0, 0.0, 1.0, &[bx, cx]);
    (system, eqs, [ax, av, bx, bv, cx, cv, dx, dv])
}

fn assert_readiness_held(log: &Log) {
    let steps = log.steps.lock().unwrap();
    assert!(!steps.is_empty());
    for (step, inputs) in steps.iter() {
        for &reached in inputs {
            assert!(
                reached >= step.to,
                "{step:?} stepped past an input computed to {reached}"
            );
        }
    }
}

#[test]
fn the_readiness_rule_holds_and_strategies_agree() {
    let (system, eqs, vars) = diamond();
    let mut results = Vec::new();
    for strategy in [Strategy::EventDriven, Strategy::Sequential] {
        let log = Log::default();
        let mut sim = Simulation::new(system.clone(), &eqs, options(strategy)).unwrap();
        assert_eq!(sim.partition().len(), 4);
        sim.set_observer(Box::new(Recorder {
            log: log.clone(),
            trigger: None,
            tie: None,
        }));
        sim.run_to_end().unwrap();
        assert_readiness_held(&log);
        if strategy == Strategy::EventDriven {
            // Event-driven interleaves: `d` starts long before `a` is finished.
            let steps = log.steps.lock().unwrap();
            let d = sim.partition().component_of(vars[6]);
            let first_d = steps.iter().position(|(s, _)| s.component == d).unwrap();
            let a = sim.partition().component_of(vars[0]);
            let last_a = steps.iter().rposition(|(s, _)| s.component == a).unwrap();
            assert!(first_d < last_a);
        }
        results.push(vars.map(|v| points(&sim, v)));
    }
    assert_eq!(
        results[0], results[1],
        "the order of steps must not change the results"
    );
}

#[test]
fn back_up_truncates_exactly_the_dependents_and_keeps_the_rest() {
    let (system, eqs, [ax, av, bx, _, cx, cv, dx, _]) = diamond();
    let reference = simulate(&system, &eqs, Options::default());

    let log = Log::default();
    let mut sim = Simulation::new(system.clone(), &eqs, Options::default()).unwrap();
    let p = sim.partition().clone();
    let (a, b, c, d) = (
        p.component_of(ax),
        p.component_of(bx),
        p.component_of(cx),
        p.component_of(dx),
    );
    let request = BackUp {
        time: 0.5,
        components: vec![a],
        jumps: vec![(av, 7.0)],
        ..BackUp::default()
    };
    sim.set_observer(Box::new(Recorder {
        log: log.clone(),
        trigger: Some((a, 1.0, request)),
        tie: None,
    }));
    sim.run_to_end().unwrap();
    assert_readiness_held(&log);

    let mut truncated: Vec<ComponentId> = log
        .truncated
        .lock()
        .unwrap()
        .iter()
        .map(|&(c, _)| c)
        .collect();
    truncated.sort();
    truncated.dedup();
    assert!(!truncated.contains(&c));
    let mut expected = vec![a, b, d];
    expected.sort();
    assert_eq!(truncated, expected, "c does not depend on a");
    // The unrelated component is unchanged point for point.
    assert_eq!(points(&sim, cx), points(&reference, cx));
    assert_eq!(points(&sim, cv), points(&reference, cv));
    // The others keep their points before 0.5 and jump there.
    for var in [ax, bx, dx] {
        let before = |s: &Simulation| -> Vec<(f64, f64)> {
            points(s, var).into_iter().filter(|p| p.0 < 0.5).collect()
        };
        assert_eq!(before(&sim), before(&reference));
    }
    let a_points = points(&sim, av);
    let at = a_points.iter().position(|p| p.0 == 0.5).unwrap();
    assert_eq!(a_points[at + 1], (0.5, 7.0));
    assert_ne!(points(&sim, ax), points(&reference, ax));
    assert_eq!(sim.motion().value(av, 0.5), Some(7.0));
    assert!(sim.is_complete());
}

#[test]
fn the_observer_extends_a_back_up_to_collision_partners() {
    let (system, eqs, [ax, _, _, _, cx, _, _, _]) = diamond();
    let reference = simulate(&system, &eqs, Options::default());
    let log = Log::default();
    let mut sim = Simulation::new(system.clone(), &eqs, Options::default()).unwrap();
    let (a, c) = (
        sim.partition().component_of(ax),
        sim.partition().component_of(cx),
    );
    let request = BackUp {
        time: 0.5,
        components: vec![a],
        jumps: vec![],
        ..BackUp::default()
    };
    // Pretend a's body collided with c's at 0.8: backing a up to 0.5 voids that collision.
    sim.set_observer(Box::new(Recorder {
        log: log.clone(),
        trigger: Some((c, 2.0, request)),
        tie: Some((a, c, 0.8)),
    }));
    sim.run_to_end().unwrap();
    assert!(log.truncated.lock().unwrap().contains(&(c, 0.8)));
    let before = |s: &Simulation| -> Vec<(f64, f64)> {
        points(s, cx).into_iter().filter(|p| p.0 < 0.8).collect()
    };
    assert_eq!(before(&sim), before(&reference));
    // c was recomputed from 0.8 with a fresh conservative step, so its later points differ in
    // time but agree in value within tolerance.
    assert_ne!(points(&sim, cx), points(&reference, cx));
    for t in [1.0, 2.0, 3.0] {
        let (x, y) = (
            sim.motion().value(cx, t).unwrap(),
            reference.motion().value(cx, t).unwrap(),
        );
        assert!((x - y).abs() < 1e-3, "t {t}: {x} vs {y}");
    }
}

#[test]
fn back_up_requests_are_checked() {
    let (system, eqs, [ax, av, ..]) = diamond();
    let mut sim = Simulation::new(system, &eqs, Options::default()).unwrap();
    let a = sim.partition().component_of(ax);
    let err = sim
        .back_up(&BackUp {
            time: 1.0,
            components: vec![],
            jumps: vec![(av, 1.0)],
            ..BackUp::default()
        })
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::InvalidRequest);
    assert!(
        err.message.contains("`a.v`") && err.message.contains("only computed up to 0"),
        "{err}"
    );
    let err = sim
        .back_up(&BackUp {
            time: 9.0,
            components: vec![a],
            jumps: vec![],
            ..BackUp::default()
        })
        .unwrap_err();
    assert!(err.message.contains("outside the simulated span"), "{err}");
    let err = sim
        .back_up(&BackUp {
            time: 0.0,
            components: vec![ComponentId(99)],
            jumps: vec![],
            ..BackUp::default()
        })
        .unwrap_err();
    assert!(err.message.contains("component 99"), "{err}");
}

#[test]
fn an_edit_resets_only_dependents_and_matches_a_fresh_run() {
    let (system, eqs, vars) = diamond();
    let [ax, _, bx, _, cx, _, dx, _] = vars;
    let mut sim = simulate(&system, &eqs, Options::default());
    let p = sim.partition().clone();
    let (a, b, c, d) = (
        p.component_of(ax),
        p.component_of(bx),
        p.component_of(cx),
        p.component_of(dx),
    );
    let before = sim.statistics();
    let c_points = points(&sim, cx);

    // Changing c's initial position resets c and d (which reads c) but not a or b.
    let report = sim.change_initial_values(&[(cx, 0.25)]).unwrap();
    let mut reset = report.reset.clone();
    reset.sort();
    assert_eq!(reset, vec![c, d]);
    assert_eq!(report.kept, vec![a, b]);
    assert!(report.rebuilt.is_empty());
    sim.run_to_end().unwrap();
    let after = sim.statistics();
    assert_eq!(after.components[a.index()], before.components[a.index()]);
    assert_eq!(after.components[b.index()], before.components[b.index()]);
    assert!(after.components[c.index()].steps > before.components[c.index()].steps);
    assert_ne!(points(&sim, cx), c_points);

    let mut edited = system.clone();
    edited.set_initial(cx, 0.25);
    let fresh = simulate(&edited, &eqs, Options::default());
    for v in vars {
        let (x, y) = (points(&sim, v), points(&fresh, v));
        assert_eq!(x.len(), y.len());
        for (p, q) in x.iter().zip(&y) {
            assert_eq!(p.0, q.0);
            assert!((p.1 - q.1).abs() <= 1e-12 * (1.0 + q.1.abs()));
        }
    }
}

#[test]
fn an_edit_that_adds_equations_builds_only_new_components() {
    let (system, eqs, [ax, _, bx, _, cx, _, dx, _]) = diamond();
    let mut sim = simulate(&system, &eqs, Options::default());
    let old_a = points(&sim, ax);
    let mut edited = system.clone();
    let mut edited_eqs = eqs.clone();
    let (ex, _) = oscillator(&mut edited, &mut edited_eqs, "e", 1.0, 0.0, 3.0, &[dx]);
    edited.set_end(4.0);
    let report = sim
        .update(edited, &edited_eqs, &Default::default())
        .unwrap();
    assert_eq!(report.rebuilt.len(), 1);
    assert_eq!(report.reset, report.rebuilt);
    assert_eq!(report.kept.len(), 4);
    assert_eq!(sim.partition().component_of(ex), report.rebuilt[0]);
    sim.run_to_end().unwrap();
    assert!(sim.is_complete());
    // Kept components continue to the new end from where they were.
    let new_a = points(&sim, ax);
    assert_eq!(&new_a[..old_a.len()], &old_a[..]);
    assert_eq!(sim.motion().computed_until(ex), Some(4.0));
    assert!(sim.motion().value(bx, 3.5).is_some() && sim.motion().value(cx, 4.0).is_some());

    // Changing an equation rebuilds its component and resets what depends on it.
    let report = sim
        .update(
            sim.system().clone(),
            &edited_eqs,
            &asgard::sim::Changes {
                equations: vec![dx],
                initial_values: vec![],
            },
        )
        .unwrap();
    assert_eq!(report.rebuilt, vec![sim.partition().component_of(dx)]);
    assert_eq!(report.reset.len(), 2);
}

#[test]
fn prescribed_variables_follow_their_function_and_continue_with_its_end_derivative() {
    let g = 9.81;
    let mut system = System::new(0.0, 3.0);
    let mut eqs = ClosureEquations::new();
    let x = system.add_variable("b1.x", 0.0);
    let v = system.add_variable("b1.dx", 0.0);
    let reader = system.add_variable("probe", 0.0);
    eqs.define(
        &mut system,
        x,
        Equation::new(move |_, s| s.get(v)).reads(v, |_, _| 1.0),
    );
    eqs.define(&mut system, v, Equation::new(move |_, _| -g));
    eqs.define(
        &mut system,
        reader,
        Equation::new(move |_, s| s.get(x)).reads(x, |_, _| 1.0),
    );
    let p = |t: f64| 2.0 + (3.0 * t).sin();
    let dp = |t: f64| 3.0 * (3.0 * t).cos();
    let ddp = |t: f64| -9.0 * (3.0 * t).sin();
    system.prescribe(x, Prescription::new(1.0, 2.0, move |t| (p(t), dp(t))));
    system.prescribe(v, Prescription::new(1.0, 2.0, move |t| (dp(t), ddp(t))));
    let sim = simulate(&system, &eqs, Options::default());
    let xs = points(&sim, x);
    assert!(
        xs.iter().any(|q| q.0 == 1.0) && xs.iter().any(|q| q.0 == 2.0),
        "breakpoints are landed on"
    );
    for (t, value) in xs {
        let exact = if t < 1.0 {
            -0.5 * g * t * t
        } else if t <= 2.0 {
            p(t)
        } else {
            p(2.0) + dp(2.0) * (t - 2.0) - 0.5 * g * (t - 2.0) * (t - 2.0)
        };
        if (1.0..=2.0).contains(&t) {
            // On the interval the value is the function's, exactly (after the jump at 1).
            if t > 1.0 || (value + 0.5 * g).abs() > 1e-12 {
                assert_eq!(value, exact, "t {t}");
            }
        } else {
            assert!(
                (value - exact).abs() <= 1e-9 * (1.0 + exact.abs()),
                "t {t}: {value} vs {exact}"
            );
        }
    }
    // The value jumps at the start of the interval: before it, after it.
    assert_eq!(sim.motion().value(x, 1.0), Some(p(1.0)));
    // A reader integrates the prescribed value: ∫ x over [1, 2] = ∫ p.
    let integral = |a: f64, b: f64| {
        sim.motion().value(reader, b).unwrap() - sim.motion().value(reader, a).unwrap()
    };
    let exact = 2.0 - ((3.0f64 * 2.0).cos() - (3.0f64).cos()) / 3.0;
    assert!(
        (integral(1.0, 2.0) - exact).abs() < 1e-4,
        "{} vs {exact}",
        integral(1.0, 2.0)
    );
}

#[test]
fn cancellation_stops_a_run_that_can_be_resumed() {
    let (system, eqs, vars) = diamond();
    let reference = simulate(&system, &eqs, Options::default());
    let opts = Options {
        progress_every: 10,
        ..Options::default()
    };
    let mut sim = Simulation::new(system, &eqs, opts).unwrap();
    let cancel = AtomicBool::new(false);
    let mut reports = Vec::new();
    let mut on_progress = |p: &asgard::sim::Progress| {
        reports.push(*p);
        cancel.store(true, std::sync::atomic::Ordering::Relaxed);
    };
    let outcome = sim
        .run(&mut RunControl {
            cancel: Some(&cancel),
            progress: Some(&mut on_progress),
        })
        .unwrap();
    assert_eq!(outcome, RunOutcome::Cancelled);
    assert_eq!(reports.len(), 2);
    assert_eq!(reports[0].steps, 10);
    assert!(sim.motion().complete_until().unwrap() < 3.0);
    assert!(!sim.is_complete());
    assert_eq!(
        sim.run(&mut RunControl::default()).unwrap(),
        RunOutcome::Finished
    );
    for v in vars {
        assert_eq!(points(&sim, v), points(&reference, v));
    }
}

#[test]
fn a_worker_reports_progress_shares_partial_motion_and_cancels() {
    let mut system = System::new(0.0, 1e9);
    let mut eqs = ClosureEquations::new();
    let (x, _) = oscillator(&mut system, &mut eqs, "o", 1.0, 0.0, 1.0, &[]);
    let opts = Options {
        progress_every: 100,
        step: StepControl {
            max_step: 1e-3,
            ..StepControl::default()
        },
        ..Options::default()
    };
    let worker = Simulation::new(system, &eqs, opts).unwrap().spawn();
    let first = worker.progress().recv().unwrap();
    assert!(first.time > 0.0 && first.steps >= 100);
    let seen = worker.motion().value(x, first.time).unwrap();
    assert!((seen - first.time.cos()).abs() < 1e-3);
    let second = worker.progress().recv().unwrap();
    assert!(second.time >= first.time && second.steps > first.steps);
    worker.cancel();
    let (sim, result) = worker.join().unwrap();
    assert_eq!(result.unwrap(), RunOutcome::Cancelled);
    assert!(sim.motion().complete_until().unwrap() >= second.time);
}

fn expect_error(system: System, eqs: &ClosureEquations) -> (Simulation, SimError) {
    let mut sim = Simulation::new(system, eqs, Options::default()).unwrap();
    let err = sim.run_to_end().unwrap_err();
    (sim, err)
}

#[test]
fn errors_name_the_component_variables_and_time() {
    // y' = 1/x with x = 0 at the start: non-finite at once.
    let mut system = System::new(0.0, 1.0);
    let mut eqs = ClosureEquations::new();
    let (ox, _) = oscillator(&mut system, &mut eqs, "ok", 1.0, 0.0, 1.0, &[]);
    let x = system.add_variable("b1.x", 0.0);
    let y = system.add_variable("b1.y", 0.0);
    eqs.define(&mut system, x, Equation::new(|_, _| 0.0));
    eqs.define(
        &mut system,
        y,
        Equation::new(move |_, s| 1.0 / s.get(x))
            .reads(x, move |_, s| -1.0 / (s.get(x) * s.get(x))),
    );
    let (sim, err) = expect_error(system, &eqs);
    assert_eq!(err.kind, ErrorKind::NonFinite);
    assert_eq!(err.variables, vec!["b1.y".to_string()]);
    assert_eq!(err.time, Some(0.0));
    assert_eq!(err.component, Some(sim.partition().component_of(y)));
    let text = err.to_string();
    assert!(
        text.contains("non-finite") && text.contains("b1.y") && text.contains("t = 0"),
        "{text}"
    );
    // Other components' motion up to the failure stays readable.
    assert!(sim.motion().value(ox, 0.0).is_some());

    // z' = z² from 1 blows up at t = 1: the step collapses just before.
    let mut system = System::new(0.0, 2.0);
    let mut eqs = ClosureEquations::new();
    let (ox, _) = oscillator(&mut system, &mut eqs, "ok", 1.0, 0.0, 1.0, &[]);
    let z = system.add_variable("b2.z", 1.0);
    eqs.define(
        &mut system,
        z,
        Equation::new(move |_, s| s.get(z) * s.get(z)).reads(z, move |_, s| 2.0 * s.get(z)),
    );
    let (sim, err) = expect_error(system, &eqs);
    assert!(
        matches!(
            err.kind,
            ErrorKind::StepCollapse | ErrorKind::NewtonFailed | ErrorKind::NonFinite
        ),
        "{err}"
    );
    assert_eq!(err.variables, vec!["b2.z".to_string()]);
    let t = err.time.unwrap();
    assert!(t > 0.99 && t < 1.0, "{err}");
    let computed = sim.motion().value(z, 0.9).unwrap();
    assert!((computed - 10.0).abs() < 1e-2, "z(0.9) = {computed}");
    // Event-driven: the other component advanced alongside, up to about the failure time.
    assert!(sim.motion().computed_until(ox).unwrap() > 0.99);
}

#[test]
fn invalid_systems_and_options_are_reported() {
    let mut system = System::new(0.0, 1.0);
    let x = system.add_variable("x", f64::NAN);
    let eqs = ClosureEquations::new();
    let err = Simulation::new(system.clone(), &eqs, Options::default())
        .err()
        .unwrap();
    assert_eq!(err.kind, ErrorKind::InvalidSystem);
    assert!(
        err.message.contains("`x`") && err.message.contains("finite"),
        "{err}"
    );
    system.set_initial(x, 0.0);
    let err = Simulation::new(system.clone(), &eqs, Options::default())
        .err()
        .unwrap();
    assert_eq!(err.kind, ErrorKind::Build);
    assert!(err.message.contains("`x` has no equation"), "{err}");
    let opts = Options {
        step: StepControl {
            min_step: -1.0,
            ..StepControl::default()
        },
        ..Options::default()
    };
    let err = Simulation::new(system.clone(), &eqs, opts).err().unwrap();
    assert_eq!(err.kind, ErrorKind::InvalidOptions);
    system.prescribe(x, Prescription::new(0.5, 2.0, |t| (t, 1.0)));
    let err = Simulation::new(system, &eqs, Options::default())
        .err()
        .unwrap();
    assert!(err.message.contains("outside the simulated span"), "{err}");
}

/// A chain of masses between fixed walls, started in one normal mode: a single component of
/// 260 variables (sparse LU), with the closed-form solution x_i(t) = sin(i k π/(N+1)) cos(ω t).
#[test]
fn a_large_coupled_component_matches_its_normal_mode() {
    let n = 130;
    let mode = 3.0;
    let stiffness = 400.0;
    let mut system = System::new(0.0, 1.0);
    let mut eqs = ClosureEquations::new();
    let shape = |i: usize| (i as f64 * mode * std::f64::consts::PI / (n as f64 + 1.0)).sin();
    let xs: Vec<VarId> = (1..=n)
        .map(|i| system.add_variable(format!("m{i}.x"), shape(i)))
        .collect();
    let vs: Vec<VarId> = (1..=n)
        .map(|i| system.add_variable(format!("m{i}.v"), 0.0))
        .collect();
    for i in 0..n {
        let (x, v) = (xs[i], vs[i]);
        eqs.define(
            &mut system,
            x,
            Equation::new(move |_, s| s.get(v)).reads(v, |_, _| 1.0),
        );
        let left = (i > 0).then(|| xs[i - 1]);
        let right = (i + 1 < n).then(|| xs[i + 1]);
        let mut eq = Equation::new(move |_, s| {
            let l = left.map_or(0.0, |l| s.get(l));
            let r = right.map_or(0.0, |r| s.get(r));
            stiffness * (l + r - 2.0 * s.get(x))
        })
        .reads(x, move |_, _| -2.0 * stiffness);
        for neighbour in [left, right].into_iter().flatten() {
            eq = eq.reads(neighbour, move |_, _| stiffness);
        }
        eqs.define(&mut system, v, eq);
    }
    let mut opts = Options::default();
    opts.step.tolerance = Tolerance::new(1e-8, 1e-8);
    let sim = simulate(&system, &eqs, opts);
    assert_eq!(sim.partition().len(), 1);
    assert_eq!(sim.statistics().largest_component(), 2 * n);
    let omega =
        2.0 * stiffness.sqrt() * (mode * std::f64::consts::PI / (2.0 * (n as f64 + 1.0))).sin();
    for i in [1, 40, 77, 130] {
        let error = max_error(&sim, xs[i - 1], |t| shape(i) * (omega * t).cos());
        assert!(error < 1e-4, "mass {i}: error {error}");
    }
}

#[test]
fn statistics_count_components_and_work() {
    let (system, eqs, _) = diamond();
    let sim = simulate(&system, &eqs, Options::default());
    let stats = sim.statistics();
    assert_eq!(stats.components.len(), 4);
    assert!(stats
        .components
        .iter()
        .all(|c| c.size == 2 && c.steps > 0 && c.evaluations > c.steps));
    let total = stats.total();
    assert_eq!(total.size, 8);
    // The diamond is not stiff: every step is explicit, with no Newton iteration.
    assert_eq!(total.implicit_steps, 0);
    assert_eq!(total.newton_iterations, 0);
    let text = stats.to_string();
    assert!(
        text.starts_with("4 components, 8 variables, largest component 2"),
        "{text}"
    );
}
