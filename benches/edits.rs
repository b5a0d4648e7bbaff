//! Incremental re-simulation for every kind of edit (issue 27): the cost of bringing a
//! simulated scene up to date after one edit, against simulating the edited scene from scratch
//! in the same run.
//!
//! 1. `solver` — a row of 1,000 pendulums (`tests/rig`), for each kind of edit of one
//!    pendulum: from scratch (`Solver::new` on the edited scene and a run to the end, what
//!    `asgard simulate B.asg` does) against the update (`Solver::update` and a run to the
//!    end, what `asgard simulate A.asg --then B.asg` times as `update_wall_s`). Both start from
//!    the evaluated edited scene. Reported with the ratio, `Solver::update`'s own share and
//!    the components reset.
//! 2. `model` — `Model::update` alone against `Model::compile` of the edited scene, for each
//!    kind of edit, at 1,000 and 10,000 pendulums (the median of three updates of one model
//!    edited back and forth).
//!
//! Times are processor time of this thread (`CLOCK_THREAD_CPUTIME_ID`), which other builds on
//! the machine disturb less than wall-clock time; wall-clock is printed beside it.
//! Run with `cargo bench --bench edits`, or `-- solver|model` for one part;
//! `ASGARD_BENCH_PENDULUMS` sets the solver part's size (default 1,000) and
//! `ASGARD_BENCH_EDIT` picks the kinds of edit whose names contain it;
//! `ASGARD_BENCH_UPDATES` sets how many updates the model part times (default 3: more for
//! `perf record`, which samples too seldom to see three); `ASGARD_BENCH_SOLVER_UPDATES` the
//! same for the solver part (default 1; more reports the median).

use asgard::scene::{diff, evaluate, Scene};
use asgard::sim::physics::Model;
use asgard::sim::{Solver, Strategy};
use std::time::Instant;

#[path = "../tests/rig/mod.rs"]
mod rig;
use rig::{EditKind, Rig};

/// The kinds of edit to measure: those `ASGARD_BENCH_EDIT` names, or all.
fn kinds() -> Vec<EditKind> {
    let wanted = std::env::var("ASGARD_BENCH_EDIT").unwrap_or_default();
    EditKind::ALL
        .into_iter()
        .filter(|k| k.name().contains(wanted.as_str()))
        .collect()
}

/// The pendulum edited: in the middle of the text.
fn edited_at(n: usize) -> usize {
    n / 2
}

fn main() {
    // As `asgard` itself runs: an update's first large allocations then reuse freed memory.
    asgard::sim::memory::keep_freed_memory();
    let only = std::env::args().nth(1).filter(|a| !a.starts_with('-'));
    let wanted = |name: &str| only.as_deref().is_none_or(|o| o == name);
    if wanted("solver") {
        let n = std::env::var("ASGARD_BENCH_PENDULUMS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(1000);
        solver(n);
    }
    if wanted("model") {
        for n in [1000, 10_000] {
            model(n);
        }
    }
}

/// Processor time of this thread, in seconds.
fn cpu() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec for the call to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// Runs `f`, returning its result, its processor time and its wall time.
fn timed<T>(f: impl FnOnce() -> T) -> (T, f64, f64) {
    let (c, w) = (cpu(), Instant::now());
    let out = f();
    (out, cpu() - c, w.elapsed().as_secs_f64())
}

fn scene(text: &str) -> Scene {
    evaluate(text).unwrap_or_else(|e| panic!("{}", e.diagnostic("bench")))
}

/// The scene before and after an edit of `kind`.
fn before_after(n: usize, kind: EditKind) -> (Scene, Scene) {
    let rig = Rig::new(n, 1.0);
    let mut edited = rig.clone();
    edited.edit(kind, edited_at(n), 0.7);
    (scene(&rig.text()), scene(&edited.text()))
}

fn solver(n: usize) {
    println!(
        "solver: {n} pendulums, one edit; from scratch (Solver::new + run) against \
         Solver::update + run; processor seconds (wall)"
    );
    let mut ratios = Vec::new();
    for kind in kinds() {
        let (old, new) = before_after(n, kind);
        let (_, scratch, scratch_wall) = timed(|| {
            let mut fresh = Solver::new(new.clone(), Strategy::EventDriven).unwrap();
            fresh.run_to_end().unwrap();
        });
        let mut solver = Solver::new(old.clone(), Strategy::EventDriven).unwrap();
        solver.run_to_end().unwrap();
        let mut times = Vec::new();
        let mut summaries = Vec::new();
        for k in 0..solver_updates() {
            if k > 0 {
                // The edit undone, untimed, as in an editor where edits follow each other.
                solver.update(old.clone()).unwrap();
                solver.run_to_end().unwrap();
            }
            let edited = new.clone();
            let ((summary, alone), update, update_wall) = timed(|| {
                let (summary, alone, _) = timed(|| solver.update(edited).unwrap());
                solver.run_to_end().unwrap();
                (summary, alone)
            });
            times.push((update, update_wall, alone));
            summaries.push(summary);
        }
        let summary = summaries.swap_remove(0);
        let update = median(times.iter().map(|t| t.0).collect());
        let update_wall = median(times.iter().map(|t| t.1).collect());
        let alone = median(times.iter().map(|t| t.2).collect());
        let ratio = scratch / update;
        ratios.push(ratio);
        println!(
            "  {:<24} scratch {scratch:>8.4} s ({scratch_wall:.4})  update {update:>8.5} s \
             ({update_wall:.5}; Solver::update alone {alone:.5} s)  x{ratio:>7.1}  \
             reset {} of {}{}",
            kind.name(),
            summary.components_reset,
            summary.components_total,
            if summary.from_scratch {
                " (from scratch)"
            } else {
                ""
            }
        );
    }
    let worst = ratios.iter().copied().fold(f64::INFINITY, f64::min);
    println!("  smallest ratio x{worst:.1}");
}

/// How many updates the solver part times per kind of edit (`ASGARD_BENCH_SOLVER_UPDATES`,
/// default 1: the first update after the first run, as the earlier rounds measured; more for
/// `perf record` and a median, the edit undone untimed between them).
fn solver_updates() -> usize {
    count("ASGARD_BENCH_SOLVER_UPDATES", 1)
}

/// How many updates the model part times per kind of edit.
fn updates() -> usize {
    count("ASGARD_BENCH_UPDATES", 3)
}

/// The positive count environment variable `var` gives, or `default`.
fn count(var: &str, default: usize) -> usize {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(default)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn model(n: usize) {
    println!(
        "model: {n} pendulums; Model::compile of the edited scene against Model::update \
         (median of {}, the edit undone between them), processor milliseconds",
        updates()
    );
    for kind in kinds() {
        let (old, new) = before_after(n, kind);
        let changes = diff(&old, &new);
        let (_, compile, _) = timed(|| Model::compile(&new).unwrap());
        // One model edited back and forth, as in an editor where edits follow each other;
        // the edit is timed, the undo is not. (Timed straight after compiling, an update's
        // first allocation pays for sorting the allocator's free lists of everything the
        // compile freed: about 1 ms at 10,000 bodies.)
        let undo = diff(&new, &old);
        let mut model = Model::compile(&old).unwrap();
        let updates = (0..updates())
            .map(|_| {
                let time = timed(|| model.update(&new, &changes).unwrap()).1;
                model.update(&old, &undo).unwrap();
                time
            })
            .collect();
        let update = median(updates);
        println!(
            "  {:<24} compile {:>8.3} ms  update {:>8.3} ms  x{:>7.1}",
            kind.name(),
            compile * 1e3,
            update * 1e3,
            compile / update
        );
    }
}
