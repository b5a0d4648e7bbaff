//! How long it takes to turn a rigid body's physics into a compiled tape, and how fast the tape
//! evaluates, against walking the expression DAG in the same run.
//!
//! The system (tests/body_system): one body held by six critically damped springs to fixed
//! points, with quaternion-rotated offsets, torques, gravity, quaternion kinematics and the
//! world inertia tensor; 13 state variables. Timed from an empty pool: building the equations,
//! differentiating the whole 13×13 Jacobian, and compiling derivatives and Jacobian into one
//! tape.
//!
//! Run with `cargo bench --bench sym_compile`.

#[path = "../tests/body_system/mod.rs"]
mod body_system;

use asgard::sym::{Node, Pool, Symbol, Tape};
use body_system::{body_equations, sample_state, STATE};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Equations, their full Jacobian and the tape computing both, from an empty pool.
struct Compiled {
    pool: Pool,
    outputs: Vec<Node>,
    jacobian_entries: usize,
    tape: Tape,
}

fn compile_from_scratch() -> (Compiled, [Duration; 3]) {
    let start = Instant::now();
    let mut pool = Pool::new();
    let equations = body_equations(&mut pool);
    let built = start.elapsed();
    let wrt: Vec<Symbol> = (0..STATE as u32).map(Symbol).collect();
    let jacobian = pool.jacobian(&equations, &wrt);
    let differentiated = start.elapsed();
    let mut outputs = equations;
    outputs.extend(jacobian.iter().map(|e| e.value));
    let tape = Tape::compile(&pool, &outputs, |s| Some(s.0 as usize)).expect("all symbols bound");
    let compiled = start.elapsed();
    (
        Compiled {
            pool,
            outputs,
            jacobian_entries: jacobian.len(),
            tape,
        },
        [built, differentiated - built, compiled - differentiated],
    )
}

/// The median of `runs` timings of `f`.
fn median(runs: usize, mut f: impl FnMut() -> Duration) -> Duration {
    let mut times: Vec<Duration> = (0..runs).map(|_| f()).collect();
    times.sort();
    times[runs / 2]
}

fn per_second(count: usize, elapsed: Duration) -> f64 {
    count as f64 / elapsed.as_secs_f64()
}

fn main() {
    let state = sample_state();

    // Warm up, then time the whole text-free path: build, differentiate, compile.
    let (compiled, _) = compile_from_scratch();
    let mut stages = Vec::new();
    let total = median(31, || {
        let (c, parts) = compile_from_scratch();
        black_box(&c.tape);
        stages.push(parts);
        parts.iter().sum()
    });
    let stage = |i: usize| {
        let mut v: Vec<Duration> = stages.iter().map(|p| p[i]).collect();
        v.sort();
        v[v.len() / 2]
    };

    let Compiled {
        pool,
        outputs,
        jacobian_entries,
        tape,
    } = compiled;
    let mut values = vec![0.0; outputs.len()];
    let mut workspace = tape.workspace();

    // Baseline: walk the DAG (each shared node once per evaluation).
    let dag_runs = 200;
    let dag = median(5, || {
        let start = Instant::now();
        for _ in 0..dag_runs {
            black_box(pool.eval_many(&outputs, |s| state[s.0 as usize]));
        }
        start.elapsed()
    });
    let tape_runs = 20_000;
    let taped = median(5, || {
        let start = Instant::now();
        for _ in 0..tape_runs {
            tape.eval(black_box(&state), &mut values, &mut workspace)
                .expect("inputs and outputs fit the tape");
        }
        start.elapsed()
    });
    let reference = pool.eval_many(&outputs, |s| state[s.0 as usize]);
    let agree = reference
        .iter()
        .zip(&values)
        .all(|(a, b)| a.to_bits() == b.to_bits());

    let dag_rate = per_second(dag_runs, dag);
    let tape_rate = per_second(tape_runs, taped);
    println!("sym_compile: one body, six spring links, 13 state variables");
    println!(
        "  pool nodes {}, outputs {} (13 derivatives + {} Jacobian entries), tape {} instructions over {} registers",
        pool.len(),
        outputs.len(),
        jacobian_entries,
        tape.len(),
        tape.registers()
    );
    println!(
        "  build + differentiate + compile: {:.3} ms median of 31 (build {:.3}, Jacobian {:.3}, tape {:.3}); budget 10 ms, {:.1}% used",
        total.as_secs_f64() * 1e3,
        stage(0).as_secs_f64() * 1e3,
        stage(1).as_secs_f64() * 1e3,
        stage(2).as_secs_f64() * 1e3,
        total.as_secs_f64() / 0.010 * 100.0
    );
    println!(
        "  evaluations of derivatives + Jacobian: tape {:.0}/s ({:.2} µs each), DAG walk {:.0}/s ({:.2} µs each): tape {:.1}x faster",
        tape_rate,
        1e6 / tape_rate,
        dag_rate,
        1e6 / dag_rate,
        tape_rate / dag_rate
    );
    println!("  tape and DAG results identical: {agree}");
}
