//! How long it takes to turn a rigid body's physics into a compiled tape, and how fast the tape
//! evaluates, against walking the expression DAG in the same run.
//!
//! The system: one body held by six critically damped springs to fixed points (each offset
//! rotated by the body's quaternion, F = -k x - 2 sqrt(k m) v at the attachment point, torque
//! d×F), gravity, quaternion kinematics, and angular momentum mapped to angular velocity through
//! the world inertia tensor R I⁻¹ Rᵀ. Thirteen state variables (position, quaternion, velocity,
//! angular momentum); the whole 13×13 Jacobian is differentiated and compiled with the
//! derivatives into one tape.
//!
//! Run with `cargo bench --bench sym_compile`.

use asgard::sym::{Mat3, Node, Pool, Quat, Symbol, Tape, Vec3};
use nalgebra::Matrix3;
use std::hint::black_box;
use std::time::{Duration, Instant};

const STATE: usize = 13;
const MASS: f64 = 2.0;
const STIFFNESS: f64 = 40.0;

/// The first-order equations of the body, in state order.
fn body_equations(pool: &mut Pool) -> Vec<Node> {
    let symbols: Vec<Symbol> = (0..STATE as u32).map(Symbol).collect();
    let position = Vec3::symbols(pool, [symbols[0], symbols[1], symbols[2]]);
    let rotation = Quat::symbols(pool, [symbols[3], symbols[4], symbols[5], symbols[6]]);
    let velocity = Vec3::symbols(pool, [symbols[7], symbols[8], symbols[9]]);
    let momentum = Vec3::symbols(pool, [symbols[10], symbols[11], symbols[12]]);

    // ω = R I⁻¹ Rᵀ L with a full (non-diagonal) body inertia tensor.
    let inertia = Matrix3::new(0.9, 0.1, 0.0, 0.1, 0.7, 0.05, 0.0, 0.05, 0.5);
    let inverse = inertia
        .try_inverse()
        .expect("the inertia tensor is invertible");
    let inverse = Mat3::constant(pool, [0, 1, 2].map(|i| [0, 1, 2].map(|j| inverse[(i, j)])));
    let r = rotation.to_matrix(pool);
    let body_momentum = r.transpose().mul_vec(pool, momentum);
    let body_omega = inverse.mul_vec(pool, body_momentum);
    let omega = r.mul_vec(pool, body_omega);

    let damping = 2.0 * (STIFFNESS * MASS).sqrt();
    let mut force = Vec3::constant(pool, [0.0, -9.81 * MASS, 0.0]);
    let mut torque = Vec3::zero();
    let offsets = [
        [0.5, 0.0, 0.0],
        [-0.5, 0.0, 0.0],
        [0.0, 0.4, 0.0],
        [0.0, -0.4, 0.0],
        [0.0, 0.0, 0.3],
        [0.0, 0.0, -0.3],
    ];
    for offset in offsets {
        let anchor = Vec3::constant(pool, offset.map(|c| 2.0 * c + 0.1));
        let offset = Vec3::constant(pool, offset);
        let arm = rotation.rotate(pool, offset);
        let point = position.add(pool, arm);
        let stretch = point.sub(pool, anchor);
        let spin = omega.cross(pool, arm);
        let point_velocity = velocity.add(pool, spin);
        let spring = stretch.scale_by(pool, -STIFFNESS);
        let damper = point_velocity.scale_by(pool, -damping);
        let link = spring.add(pool, damper);
        force = force.add(pool, link);
        let moment = arm.cross(pool, link);
        torque = torque.add(pool, moment);
    }

    let acceleration = force.scale_by(pool, 1.0 / MASS);
    let spin_rate = rotation.derivative(pool, omega);
    let mut equations = Vec::with_capacity(STATE);
    equations.extend(velocity.to_array());
    equations.extend(spin_rate.to_array());
    equations.extend(acceleration.to_array());
    equations.extend(torque.to_array());
    equations
}

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
    // A plausible state: displaced, turned, moving, spinning.
    let norm = (0.9f64 * 0.9 + 0.1 * 0.1 + 0.3 * 0.3 + 0.2 * 0.2).sqrt();
    let state = [
        0.1,
        -0.2,
        0.05,
        0.9 / norm,
        0.1 / norm,
        0.3 / norm,
        0.2 / norm,
        0.3,
        0.0,
        -0.1,
        0.02,
        0.1,
        -0.05,
    ];

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
