//! The `sym` layer on a realistic system: a rigid body held by six springs
//! (see `body_system`), checked against an independent numeric implementation, finite
//! differences and the physics it must respect.

mod body_system;

use asgard::sym::{JacobianEntry, Node, Pool, Symbol, Tape};
use body_system::{body_equations, sample_state, MASS, OFFSETS, STATE, STIFFNESS};
use nalgebra::{Matrix3, Quaternion, UnitQuaternion, Vector3};

struct System {
    pool: Pool,
    equations: Vec<Node>,
    jacobian: Vec<JacobianEntry>,
}

fn system() -> System {
    let mut pool = Pool::new();
    let equations = body_equations(&mut pool);
    let wrt: Vec<Symbol> = (0..STATE as u32).map(Symbol).collect();
    let jacobian = pool.jacobian(&equations, &wrt);
    System {
        pool,
        equations,
        jacobian,
    }
}

fn slot(s: Symbol) -> Option<usize> {
    Some(s.0 as usize)
}

/// The same equations computed directly with nalgebra.
fn numeric_equations(y: &[f64; STATE]) -> [f64; STATE] {
    let position = Vector3::new(y[0], y[1], y[2]);
    let q = UnitQuaternion::new_unchecked(Quaternion::new(y[3], y[4], y[5], y[6]));
    let velocity = Vector3::new(y[7], y[8], y[9]);
    let momentum = Vector3::new(y[10], y[11], y[12]);
    let inertia = Matrix3::new(0.9, 0.1, 0.0, 0.1, 0.7, 0.05, 0.0, 0.05, 0.5);
    let r = q.to_rotation_matrix().into_inner();
    let omega = r * inertia.try_inverse().unwrap() * r.transpose() * momentum;
    let damping = 2.0 * (STIFFNESS * MASS).sqrt();
    let mut force = Vector3::new(0.0, -9.81 * MASS, 0.0);
    let mut torque = Vector3::zeros();
    for offset in OFFSETS {
        let anchor = Vector3::from(offset.map(|c| 2.0 * c + 0.1));
        let arm = q * Vector3::from(offset);
        let link =
            -STIFFNESS * (position + arm - anchor) - damping * (velocity + omega.cross(&arm));
        force += link;
        torque += arm.cross(&link);
    }
    let spin = Quaternion::from_imag(omega) * q.into_inner() * 0.5;
    let a = force / MASS;
    [
        velocity.x, velocity.y, velocity.z, spin.w, spin.i, spin.j, spin.k, a.x, a.y, a.z,
        torque.x, torque.y, torque.z,
    ]
}

fn evaluate(tape: &Tape, y: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; tape.outputs()];
    tape.eval(y, &mut out, &mut tape.workspace()).unwrap();
    out
}

#[test]
fn equations_match_a_direct_numeric_implementation() {
    let s = system();
    let tape = Tape::compile(&s.pool, &s.equations, slot).unwrap();
    let y = sample_state();
    let got = evaluate(&tape, &y);
    let want = numeric_equations(&y);
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= 1e-12 * (1.0 + w.abs()),
            "equation {i}: {g} vs {w}"
        );
    }
}

#[test]
fn jacobian_matches_finite_differences() {
    let s = system();
    let tape = Tape::compile(&s.pool, &s.equations, slot).unwrap();
    let values: Vec<Node> = s.jacobian.iter().map(|e| e.value).collect();
    let jacobian_tape = Tape::compile(&s.pool, &values, slot).unwrap();
    let y = sample_state();
    let exact = evaluate(&jacobian_tape, &y);
    let mut dense = [[0.0; STATE]; STATE];
    for (entry, value) in s.jacobian.iter().zip(exact) {
        dense[entry.row][entry.column] = value;
    }
    for column in 0..STATE {
        let h = 1e-6;
        let (mut up, mut down) = (y, y);
        up[column] += h;
        down[column] -= h;
        let (f_up, f_down) = (evaluate(&tape, &up), evaluate(&tape, &down));
        for row in 0..STATE {
            let estimate = (f_up[row] - f_down[row]) / (2.0 * h);
            let exact = dense[row][column];
            assert!(
                (estimate - exact).abs() <= 1e-6 * (1.0 + exact.abs()),
                "∂f{row}/∂y{column}: exact {exact}, finite difference {estimate}"
            );
        }
    }
}

#[test]
fn jacobian_structure_follows_the_physics() {
    let s = system();
    let has = |row: usize, column: usize| {
        s.jacobian
            .iter()
            .any(|e| (e.row, e.column) == (row, column))
    };
    // dp/dt = v: exactly the identity on the velocity columns.
    for row in 0..3 {
        for column in 0..STATE {
            assert_eq!(has(row, column), column == 7 + row, "∂p'{row}/∂y{column}");
        }
    }
    // The offsets sum to zero, so translating or moving the body makes no torque: the
    // symbolic sums cancel and those entries are structurally absent.
    for row in 10..13 {
        for column in (0..3).chain(7..10) {
            assert!(!has(row, column), "∂L'{row}/∂y{column} should cancel");
        }
    }
    // The springs pull each axis on its own: the force depends on position diagonally.
    for row in 7..10 {
        for column in 0..3 {
            assert_eq!(has(row, column), column == row - 7, "∂v'{row}/∂p{column}");
        }
    }
}

#[test]
fn unit_quaternion_derivative_is_tangent() {
    // d|q|²/dt = 2 q·q' = 0 for q' = ½ ω ⊗ q: the orientation stays unit.
    let s = system();
    let tape = Tape::compile(&s.pool, &s.equations, slot).unwrap();
    let y = sample_state();
    let f = evaluate(&tape, &y);
    let dot: f64 = (3..7).map(|i| y[i] * f[i]).sum();
    assert!(dot.abs() < 1e-14, "q·q' = {dot}");
}

#[test]
fn one_tape_for_derivatives_and_jacobian_agrees_with_the_dag() {
    let s = system();
    let mut outputs = s.equations.clone();
    outputs.extend(s.jacobian.iter().map(|e| e.value));
    let tape = Tape::compile(&s.pool, &outputs, slot).unwrap();
    let y = sample_state();
    let got = evaluate(&tape, &y);
    let want = s.pool.eval_many(&outputs, |sym| y[sym.0 as usize]);
    assert_eq!(
        got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        want.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );
    assert!(
        tape.registers() < outputs.len() * 10,
        "{} registers",
        tape.registers()
    );
}
