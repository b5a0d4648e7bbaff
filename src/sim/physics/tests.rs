//! The compiled equations checked numerically: Jacobians against finite differences through the
//! dense and the sparse layout, and links against Newton's third law.

use super::Model;
use crate::scene::evaluate;
use crate::sim::system::JacobianLayout;
use crate::sim::{ComponentEquations, ComponentSpec, JacobianSink, VarId};
use nalgebra::{UnitQuaternion, Vector3};
use proptest::prelude::*;

fn model(text: &str) -> Model {
    let scene = evaluate(text).unwrap_or_else(|e| panic!("{}", e.diagnostic("test")));
    Model::compile(&scene).unwrap_or_else(|e| panic!("{}", e.diagnostic("test", text)))
}

/// All of the model's equations as one component.
struct Whole {
    equations: Box<dyn ComponentEquations>,
    layout: JacobianLayout,
    n: usize,
}

impl Whole {
    fn new(model: &Model) -> Whole {
        let n = model.system().len();
        let own: Vec<VarId> = (0..n as u32).map(VarId).collect();
        let spec = ComponentSpec {
            system: model.system(),
            own: &own,
            inputs: &[],
        };
        let equations = model.factory().build(&spec).unwrap();
        let layout = JacobianLayout::new(n, &equations.jacobian_pattern()).unwrap();
        Whole {
            equations,
            layout,
            n,
        }
    }

    fn f(&mut self, t: f64, x: &[f64]) -> Vec<f64> {
        let mut f = vec![0.0; self.n];
        let mut sink = JacobianSink::new(None, &self.layout);
        self.equations.eval(t, x, &[], &mut f, &mut sink);
        f
    }

    /// The Jacobian as a dense row-major matrix.
    fn jacobian(&mut self, t: f64, x: &[f64]) -> Vec<f64> {
        let mut f = vec![0.0; self.n];
        let mut values = vec![0.0; self.layout.len()];
        let mut sink = JacobianSink::new(Some(&mut values), &self.layout);
        self.equations.eval(t, x, &[], &mut f, &mut sink);
        assert_eq!(sink.stray_entry(), None);
        let mut dense = vec![0.0; self.n * self.n];
        for ((row, col), v) in self.layout.entries().into_iter().zip(values) {
            dense[row * self.n + col] = v;
        }
        dense
    }
}

/// A state near the initial one: every variable moved a little, quaternions kept unit.
fn perturbed(model: &Model, seed: f64) -> Vec<f64> {
    let mut x: Vec<f64> = model
        .system()
        .variables()
        .enumerate()
        .map(|(i, v)| v.initial() + 0.1 * (seed + i as f64 * 1.7).sin())
        .collect();
    for body in model.bodies() {
        if let Some(vars) = body.vars {
            let q = vars.rotation().map(|v| x[v.index()]);
            let norm = q.iter().map(|c| c * c).sum::<f64>().sqrt();
            for (v, c) in vars.rotation().iter().zip(q) {
                x[v.index()] = c / norm;
            }
        }
    }
    x
}

fn check_jacobian(text: &str, t: f64) {
    check_model_jacobian(&model(text), t);
}

fn check_model_jacobian(model: &Model, t: f64) {
    let mut whole = Whole::new(model);
    let x = perturbed(model, 0.3);
    let exact = whole.jacobian(t, &x);
    let n = whole.n;
    for col in 0..n {
        let h = 1e-6 * (1.0 + x[col].abs());
        let (mut up, mut down) = (x.clone(), x.clone());
        up[col] += h;
        down[col] -= h;
        let (f_up, f_down) = (whole.f(t, &up), whole.f(t, &down));
        for row in 0..n {
            let estimate = (f_up[row] - f_down[row]) / (2.0 * h);
            let value = exact[row * n + col];
            assert!(
                (estimate - value).abs() <= 1e-5 * (1.0 + value.abs()),
                "d f[{}] / d {}: exact {value}, finite difference {estimate}",
                model.system().name(VarId(row as u32)),
                model.system().name(VarId(col as u32)),
            );
        }
    }
}

const LINKED: &str = "simulator finish 2
shape_set brick desc {sub pos {0 0 0} box {1 0.6 0.4}}
shape_set ball desc {sub pos {0 0 0} sphere 0.3}
trajectory path points {{0 0 2 0} {1 1 2 0} {2 1 3 1}}
body a shape brick init_pos {0 0 0} init_rot {0.2 0.1 -0.3} init_drot {0.5 -0.2 0.1} init_dpos {0.1 0 0}
body b shape ball init_pos {1 0.5 0} init_dpos {0 0.3 0} mass 2
force body a gravity {0 -9.81 0}
force body b x {-[b x] * $t + [path x]} y {sin([a rx])} z {[a drz] * [b dy]} offset {0.1 0.2 0}
torque body a x {[b z]} y 0 z {cos($t)} offset {0 0 0.3}
link body1 a offset1 {0.5 0 0} body2 b offset2 {-0.3 0 0} tightness 50
link body1 a offset1 {-0.5 0 0} x {0.2 * $t} y {[b x]} z 0 tightness 30
link body1 b offset1 {0 0.3 0} trajectory path tightness 20
";

#[test]
fn jacobian_matches_finite_differences_dense() {
    // 26 variables would be sparse: keep one body for the dense path.
    check_jacobian(
        "simulator finish 2
shape_set brick desc {sub pos {0 0 0} box {1 0.6 0.4}}
trajectory path points {{0 0 2 0} {1 1 2 0} {2 1 3 1}}
body a shape brick init_rot {0.2 0.1 -0.3} init_drot {0.5 -0.2 0.1}
force body a x {[path x] - [a x]} y {sin([a rx]) + [a dry]} z 0 offset {0.2 0.1 0}
link body1 a offset1 {-0.5 0 0} x {0.2 * $t} y {[a z]} z 0 tightness 30",
        0.7,
    );
}

#[test]
fn jacobian_matches_finite_differences_while_steered() {
    // An angular velocity trajectory in effect: the quaternion turns at its value and the
    // momentum follows R I Rᵀ ω.
    check_jacobian(
        "simulator finish 2
shape_set brick desc {sub pos {0 0 0} box {1 0.6 0.4}}
body a shape brick init_rot {0.2 0.1 -0.3}
link body1 a offset1 {-0.5 0 0} x 0 y 0 z 0 tightness 30
trajectory spin points {{0 0 0 1} {1 0.5 0.2 1} {2 0.5 0 1.5}} body a var drot",
        0.7,
    );
}

#[test]
fn jacobian_matches_finite_differences_while_pulled_and_pushed() {
    use super::interaction::{CONTACT_INPUTS, INPUTS_PER_BODY};
    use super::{Pull, Pullable};
    let scene = evaluate(LINKED).unwrap();
    let model = Model::compile_interactive(&scene, &Pullable::All).unwrap();
    let inputs = model.inputs();
    // Room for more bodies than the two (see `InteractionInputs::new`).
    assert!(inputs.len() >= 2 * (INPUTS_PER_BODY + CONTACT_INPUTS));
    assert!(inputs.set_push(1, Vector3::new(1.0, -2.0, 0.5)));
    let pull = Pull::critically_damped(
        model.bodies()[0].mass,
        0.1,
        Vector3::new(0.3, 0.1, -0.2),
        Vector3::new(1.0, 2.0, 3.0),
    );
    assert!(inputs.set_pull(0, Some(&pull)));
    check_model_jacobian(&model, 0.7);
}

#[test]
fn jacobian_matches_finite_differences_sparse() {
    check_jacobian(LINKED, 0.7);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A link between two bodies pushes them equally and oppositely, and turns the pair only by
    /// the moment of that force across the separation: the total force is zero and the total
    /// torque about the origin is `(p1 - p2) × F`.
    #[test]
    fn links_obey_newtons_third_law(
        offsets in proptest::array::uniform6(-1.0f64..1.0),
        turn in proptest::array::uniform6(-2.0f64..2.0),
        motion in proptest::array::uniform12(-1.0f64..1.0),
        tightness in 1.0f64..1000.0,
    ) {
        let text = format!(
            "shape_set brick desc {{sub pos {{0 0 0}} box {{1 0.6 0.4}}}}
body a shape brick mass 3 init_pos {{0 0 0}} init_rot {{{} {} {}}} init_dpos {{{} {} {}}} init_drot {{{} {} {}}}
body b shape brick mass 1 init_pos {{1 2 0}} init_rot {{{} {} {}}} init_dpos {{{} {} {}}} init_drot {{{} {} {}}}
link body1 a offset1 {{{} {} {}}} body2 b offset2 {{{} {} {}}} tightness {tightness}",
            turn[0], turn[1], turn[2], motion[0], motion[1], motion[2], motion[3], motion[4], motion[5],
            turn[3], turn[4], turn[5], motion[6], motion[7], motion[8], motion[9], motion[10], motion[11],
            offsets[0], offsets[1], offsets[2], offsets[3], offsets[4], offsets[5],
        );
        let model = model(&text);
        let mut whole = Whole::new(&model);
        let x: Vec<f64> = model.system().variables().map(|v| v.initial()).collect();
        let f = whole.f(0.0, &x);
        let [a, b] = [0, 1].map(|i| model.bodies()[i].vars.unwrap());
        let vector = |values: &[f64], vars: [VarId; 3]| Vector3::from(vars.map(|v| values[v.index()]));
        let force_a = vector(&f, a.velocity()) * 3.0;
        let force_b = vector(&f, b.velocity());
        prop_assert!((force_a + force_b).norm() <= 1e-9 * (1.0 + force_a.norm()));
        let point = |vars: super::BodyVars, offset: [f64; 3]| {
            let q = vars.rotation().map(|v| x[v.index()]);
            let rotation = UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(q[0], q[1], q[2], q[3]));
            vector(&x, vars.position()) + rotation * Vector3::from(offset)
        };
        let (p1, p2) = (
            point(a, [offsets[0], offsets[1], offsets[2]]),
            point(b, [offsets[3], offsets[4], offsets[5]]),
        );
        let torque = vector(&x, a.position()).cross(&force_a)
            + vector(&f, a.momentum())
            + vector(&x, b.position()).cross(&force_b)
            + vector(&f, b.momentum());
        let want = (p1 - p2).cross(&force_a);
        prop_assert!((torque - want).norm() <= 1e-9 * (1.0 + want.norm()), "{torque:?} vs {want:?}");
    }
}

#[test]
fn mass_properties_come_from_the_shape_unless_given() {
    let model = model(
        "shape_set pair desc {sub pos {0 0 0} sphere 0.5 sub pos {2 0 0} sphere 0.5}
body computed shape pair
body heavy shape pair mass 10
body given shape pair mass 2 inertia {{1 0 0} {0 2 0} {0 0 3}}",
    );
    let [computed, heavy, given] = [0, 1, 2].map(|i| &model.bodies()[i]);
    let ball = 4.0 / 3.0 * std::f64::consts::PI * 0.125;
    assert!((computed.mass - 2.0 * ball).abs() < 1e-12);
    // The shape is placed with its centre of mass, between the balls, at the body's position.
    assert!((computed.center - Vector3::new(1.0, 0.0, 0.0)).norm() < 1e-12);
    // Parallel axes: 2/5 m r² per ball, plus m d² for the two off the x axis.
    let across = 2.0 * (0.4 * ball * 0.25 + ball * 1.0);
    assert!((computed.inertia[(1, 1)] - across).abs() < 1e-12);
    // A given mass scales the computed inertia; a given inertia replaces it.
    assert!((heavy.inertia[(1, 1)] - across * 10.0 / (2.0 * ball)).abs() < 1e-9);
    assert_eq!(given.mass, 2.0);
    assert_eq!(given.inertia[(2, 2)], 3.0);
}

#[test]
fn bad_bodies_are_located_errors() {
    let text = "shape_set ball desc {sub pos {0 0 0} sphere 1}
body b shape ball inertia {{1 2 0} {2 1 0} {0 0 1}}";
    let scene = evaluate(text).unwrap();
    let error = Model::compile(&scene).err().unwrap();
    assert!(
        error.diagnostic("t", text).starts_with(
            "t:2:28: error: body b: the inertia tensor must be symmetric positive definite"
        ),
        "{}",
        error.diagnostic("t", text)
    );
}
