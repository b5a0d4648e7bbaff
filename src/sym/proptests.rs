//! Property tests over randomly generated expressions.
//!
//! A [`Tree`] is an expression as written, evaluated naively in `f64` as the reference. The
//! properties: building it in a pool (with all simplifications) keeps its value; derivatives
//! agree with finite differences of the reference; the tape agrees with the DAG evaluator bit for
//! bit; symbol sets are exactly the symbols reachable in the DAG; the displayed text reads back
//! to the same value. Every run uses the same seed, so the tests are deterministic.

use super::ops::{Binary, Unary};
use super::pool::{Node, Pool, Symbol};
use super::tape::Tape;
use super::test_expr::parse;
use super::{from_ast, Error};
use crate::lang::ast::Part;
use crate::lang::span::Span;
use proptest::prelude::*;
use proptest::strategy::Union;
use proptest::test_runner::{Config, RngSeed};

/// A fixed-seed configuration, so every run checks the same cases.
pub(crate) fn deterministic(cases: u32) -> Config {
    Config {
        cases,
        rng_seed: RngSeed::Fixed(0x5eed),
        failure_persistence: None,
        ..Config::default()
    }
}

const VARIABLES: u32 = 3;

#[derive(Clone, Debug)]
enum Tree {
    Const(f64),
    Var(u32),
    Add(Box<Tree>, Box<Tree>),
    Sub(Box<Tree>, Box<Tree>),
    Mul(Box<Tree>, Box<Tree>),
    Div(Box<Tree>, Box<Tree>),
    Neg(Box<Tree>),
    PowI(Box<Tree>, i32),
    Pow(Box<Tree>, Box<Tree>),
    Unary(Unary, Box<Tree>),
    Binary(Binary, Box<Tree>, Box<Tree>),
    Select(Box<Tree>, Box<Tree>, Box<Tree>),
}

use Tree::*;

fn bx(t: Tree) -> Box<Tree> {
    Box::new(t)
}

/// `1 + t²`, at least 1: keeps logs, roots, divisions and real powers in their smooth domain.
fn one_plus_square(t: Tree) -> Tree {
    Add(bx(Const(1.0)), bx(Mul(bx(t.clone()), bx(t))))
}

fn sine(t: Tree) -> Tree {
    Unary(Unary::Sin, bx(t))
}

impl Tree {
    /// The reference value: each operation in plain `f64`, no simplification.
    fn value(&self, x: &[f64]) -> f64 {
        match self {
            Const(c) => *c,
            Var(i) => x[*i as usize],
            Add(a, b) => a.value(x) + b.value(x),
            Sub(a, b) => a.value(x) - b.value(x),
            Mul(a, b) => a.value(x) * b.value(x),
            Div(a, b) => a.value(x) / b.value(x),
            Neg(a) => -a.value(x),
            PowI(a, n) => a.value(x).powi(*n),
            Pow(a, b) => a.value(x).powf(b.value(x)),
            Unary(f, a) => f.apply(a.value(x)),
            Binary(op, a, b) => op.apply(a.value(x), b.value(x)),
            Select(c, a, b) => {
                if c.value(x) != 0.0 {
                    a.value(x)
                } else {
                    b.value(x)
                }
            }
        }
    }

    /// The largest magnitude of any intermediate value, which bounds rounding differences.
    fn scale(&self, x: &[f64]) -> f64 {
        let own = self.value(x).abs();
        let children = match self {
            Const(_) | Var(_) => 0.0,
            Neg(a) | PowI(a, _) | Unary(_, a) => a.scale(x),
            Add(a, b) | Sub(a, b) | Mul(a, b) | Div(a, b) | Pow(a, b) | Binary(_, a, b) => {
                a.scale(x).max(b.scale(x))
            }
            Select(c, a, b) => c.scale(x).max(a.scale(x)).max(b.scale(x)),
        };
        own.max(children)
    }

    fn build(&self, p: &mut Pool) -> Node {
        match self {
            Const(c) => p.constant(*c),
            Var(i) => p.symbol(Symbol(*i)),
            Add(a, b) => {
                let (a, b) = (a.build(p), b.build(p));
                p.add(a, b)
            }
            Sub(a, b) => {
                let (a, b) = (a.build(p), b.build(p));
                p.sub(a, b)
            }
            Mul(a, b) => {
                let (a, b) = (a.build(p), b.build(p));
                p.mul(a, b)
            }
            Div(a, b) => {
                let (a, b) = (a.build(p), b.build(p));
                p.div(a, b)
            }
            Neg(a) => {
                let a = a.build(p);
                p.neg(a)
            }
            PowI(a, n) => {
                let a = a.build(p);
                p.powi(a, *n)
            }
            Pow(a, b) => {
                let (a, b) = (a.build(p), b.build(p));
                p.pow(a, b)
            }
            Unary(f, a) => {
                let a = a.build(p);
                p.unary(*f, a)
            }
            Binary(op, a, b) => {
                let (a, b) = (a.build(p), b.build(p));
                p.binary(*op, a, b)
            }
            Select(c, a, b) => {
                let (c, a, b) = (c.build(p), a.build(p), b.build(p));
                p.select(c, a, b)
            }
        }
    }
}

/// Which operations a generated tree may use.
#[derive(Clone, Copy, PartialEq)]
enum Family {
    /// Differentiable everywhere it is evaluated (guarded domains).
    Smooth,
    /// Also `abs`, `min`, `max`, `hypot`: continuous, so rounding differences stay small.
    Continuous,
    /// Every operation on raw arguments: NaN, infinities, jumps, comparisons, selects.
    Anything,
}

fn tree(family: Family) -> impl Strategy<Value = Tree> {
    let leaf = prop_oneof![
        (-3.0..3.0f64).prop_map(Const),
        prop::sample::select(vec![0.0, 1.0, -1.0, 2.0, 0.5]).prop_map(Const),
        (0..VARIABLES).prop_map(Var),
        (0..VARIABLES).prop_map(Var),
    ];
    leaf.prop_recursive(4, 40, 3, move |inner| {
        let pair = || (inner.clone(), inner.clone());
        let mut options: Vec<BoxedStrategy<Tree>> = vec![
            pair().prop_map(|(a, b)| Add(bx(a), bx(b))).boxed(),
            pair().prop_map(|(a, b)| Sub(bx(a), bx(b))).boxed(),
            pair().prop_map(|(a, b)| Mul(bx(a), bx(b))).boxed(),
            inner.clone().prop_map(|a| Neg(bx(a))).boxed(),
            pair()
                .prop_map(|(a, b)| Div(bx(a), bx(one_plus_square(b))))
                .boxed(),
            (inner.clone(), 0..=4i32)
                .prop_map(|(a, n)| PowI(bx(a), n))
                .boxed(),
            (inner.clone(), -3..=-1i32)
                .prop_map(|(a, n)| PowI(bx(one_plus_square(a)), n))
                .boxed(),
            (inner.clone(), -2.0..2.0f64)
                .prop_map(|(a, c)| Pow(bx(one_plus_square(a)), bx(Const(c))))
                .boxed(),
            pair()
                .prop_map(|(a, b)| Pow(bx(one_plus_square(a)), bx(sine(b))))
                .boxed(),
            (
                inner.clone(),
                prop::sample::select(vec![Unary::Sin, Unary::Cos, Unary::Atan, Unary::Tanh]),
            )
                .prop_map(|(a, f)| Unary(f, bx(a)))
                .boxed(),
            (
                inner.clone(),
                prop::sample::select(vec![Unary::Exp, Unary::Sinh, Unary::Cosh]),
            )
                .prop_map(|(a, f)| Unary(f, bx(sine(a))))
                .boxed(),
            (
                inner.clone(),
                prop::sample::select(vec![Unary::Log, Unary::Log10, Unary::Sqrt]),
            )
                .prop_map(|(a, f)| Unary(f, bx(one_plus_square(a))))
                .boxed(),
            (
                inner.clone(),
                prop::sample::select(vec![Unary::Tan, Unary::Asin, Unary::Acos]),
            )
                .prop_map(|(a, f)| Unary(f, bx(Mul(bx(Const(0.5)), bx(sine(a))))))
                .boxed(),
            pair()
                .prop_map(|(a, b)| {
                    let positive = Add(bx(Const(2.0)), bx(sine(b)));
                    Binary(Binary::Atan2, bx(a), bx(positive))
                })
                .boxed(),
            pair()
                .prop_map(|(a, b)| Binary(Binary::Hypot, bx(a), bx(one_plus_square(b))))
                .boxed(),
        ];
        if family != Family::Smooth {
            options.push(inner.clone().prop_map(|a| Unary(Unary::Abs, bx(a))).boxed());
            options.push(
                (
                    pair(),
                    prop::sample::select(vec![Binary::Min, Binary::Max, Binary::Hypot]),
                )
                    .prop_map(|((a, b), op)| Binary(op, bx(a), bx(b)))
                    .boxed(),
            );
        }
        if family == Family::Anything {
            let unary = prop::sample::select(vec![
                Unary::Sqrt,
                Unary::Exp,
                Unary::Log,
                Unary::Log10,
                Unary::Tan,
                Unary::Asin,
                Unary::Acos,
                Unary::Sinh,
                Unary::Cosh,
                Unary::Floor,
                Unary::Ceil,
                Unary::Round,
                Unary::Trunc,
            ]);
            let binary = prop::sample::select(vec![
                Binary::Atan2,
                Binary::Fmod,
                Binary::Lt,
                Binary::Le,
                Binary::Eq,
                Binary::Ne,
                Binary::And,
                Binary::Or,
            ]);
            options.extend([
                pair().prop_map(|(a, b)| Div(bx(a), bx(b))).boxed(),
                pair().prop_map(|(a, b)| Pow(bx(a), bx(b))).boxed(),
                (inner.clone(), -3..=-1i32)
                    .prop_map(|(a, n)| PowI(bx(a), n))
                    .boxed(),
                (inner.clone(), unary)
                    .prop_map(|(a, f)| Unary(f, bx(a)))
                    .boxed(),
                (pair(), binary)
                    .prop_map(|((a, b), op)| Binary(op, bx(a), bx(b)))
                    .boxed(),
                (inner.clone(), pair())
                    .prop_map(|(c, (a, b))| Select(bx(c), bx(a), bx(b)))
                    .boxed(),
            ]);
        }
        Union::new(options)
    })
}

fn point() -> impl Strategy<Value = [f64; 3]> {
    prop::array::uniform3(-2.0..2.0f64)
}

fn values(x: &[f64]) -> impl Fn(Symbol) -> f64 + '_ {
    move |s| x[s.0 as usize]
}

/// Both NaN, or the same bits.
fn identical(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

/// Estimates of the derivative by Richardson-extrapolated central differences of the reference
/// tree, for step sizes from coarse to fine. Rapidly oscillating functions need fine steps and
/// flat ones coarse steps (rounding), so an exact derivative must match one of them.
fn finite_differences(t: &Tree, x: [f64; 3], k: usize) -> [f64; 5] {
    let central = |h: f64| {
        let (mut up, mut down) = (x, x);
        up[k] += h;
        down[k] -= h;
        (t.value(&up) - t.value(&down)) / (2.0 * h)
    };
    [1e-3, 1e-4, 1e-5, 1e-6, 1e-7].map(|step| {
        let h = step * (1.0 + x[k].abs());
        (4.0 * central(h / 2.0) - central(h)) / 3.0
    })
}

/// The symbols reachable from `node`, by walking the DAG.
fn reachable_symbols(p: &Pool, node: Node) -> Vec<Symbol> {
    let mut found = Vec::new();
    let mut stack = vec![node];
    let mut seen = std::collections::HashSet::new();
    while let Some(n) = stack.pop() {
        if !seen.insert(n) {
            continue;
        }
        if let Some(s) = p.as_symbol(n) {
            found.push(s);
        }
        p.for_each_child(n, |c| stack.push(c));
    }
    found.sort();
    found.dedup();
    found
}

/// Reads `$s<N>` as symbol N, as written by [`Pool::display`].
fn resolve_display_names(p: &mut Pool, parts: &[Part], span: Span) -> Result<Node, Error> {
    match parts {
        [Part::Variable { name, .. }] => name
            .strip_prefix('s')
            .and_then(|n| n.parse().ok())
            .map(|n| p.symbol(Symbol(n)))
            .ok_or_else(|| Error::new(format!("unexpected variable {name}"), span)),
        _ => Err(Error::new("unexpected operand", span)),
    }
}

proptest! {
    #![proptest_config(deterministic(1000))]

    #[test]
    fn simplification_keeps_the_value(t in tree(Family::Continuous), x in point()) {
        let mut p = Pool::new();
        let node = t.build(&mut p);
        let (want, got) = (t.value(&x), p.eval(node, values(&x)));
        let tolerance = 1e-11 * (1.0 + t.scale(&x));
        prop_assert!(identical(want, got) || (want - got).abs() <= tolerance,
            "{t:?}\n= {}\nreference {want}, pool {got}", p.display(node));
    }

    #[test]
    fn derivatives_match_finite_differences(t in tree(Family::Smooth), x in point()) {
        let mut p = Pool::new();
        let node = t.build(&mut p);
        for k in 0..VARIABLES {
            let d = p.diff(node, Symbol(k));
            let exact = p.eval(d, values(&x));
            let estimates = finite_differences(&t, x, k as usize);
            let tolerance = 1e-5 * (1.0 + exact.abs()) + 1e-9 * t.scale(&x);
            prop_assert!(estimates.iter().any(|e| (exact - e).abs() <= tolerance),
                "d/dx{k} of {}\n= {}\nexact {exact}, finite differences {estimates:?}",
                p.display(node), p.display(d));
        }
    }

    #[test]
    fn tape_matches_the_dag_bit_for_bit(t in tree(Family::Anything), x in point()) {
        let mut p = Pool::new();
        let node = t.build(&mut p);
        let mut outputs = vec![node];
        outputs.extend((0..VARIABLES).map(|k| p.diff(node, Symbol(k))));
        let tape = Tape::compile(&p, &outputs, |s| Some(s.0 as usize)).unwrap();
        let mut got = vec![0.0; outputs.len()];
        tape.eval(&x, &mut got, &mut tape.workspace()).unwrap();
        let want = p.eval_many(&outputs, values(&x));
        for (g, w) in got.iter().zip(&want) {
            prop_assert!(identical(*g, *w), "{}: tape {g}, DAG {w}", p.display(node));
        }
    }

    #[test]
    fn imported_expressions_keep_their_value_and_symbols(t in tree(Family::Continuous), x in point()) {
        let mut p = Pool::new();
        let node = t.build(&mut p);
        let d = p.diff(node, Symbol(0));
        // Another pool, where node ids (and so the order of sum terms) differ.
        let mut q = Pool::new();
        q.symbol(Symbol(2));
        q.constant(7.5);
        let copies = q.import(&p, &[node, d]);
        let (want, got) = (p.eval(node, values(&x)), q.eval(copies[0], values(&x)));
        let tolerance = 1e-11 * (1.0 + t.scale(&x));
        prop_assert!(identical(want, got) || (want - got).abs() <= tolerance,
            "{}: original {want}, imported {got}", p.display(node));
        prop_assert_eq!(p.symbols(node), q.symbols(copies[0]));
        prop_assert_eq!(p.symbols(d), q.symbols(copies[1]));
        prop_assert_eq!(q.import(&p, &[node, d]), copies);
    }

    #[test]
    fn symbol_sets_are_the_reachable_symbols(t in tree(Family::Anything)) {
        let mut p = Pool::new();
        let node = t.build(&mut p);
        let d = p.diff(node, Symbol(0));
        for n in [node, d] {
            let reachable = reachable_symbols(&p, n);
            prop_assert_eq!(p.symbols(n), reachable.as_slice());
        }
    }

    #[test]
    fn jacobian_lists_exactly_the_non_zero_derivatives(
        trees in prop::collection::vec(tree(Family::Smooth), 1..4),
    ) {
        let mut p = Pool::new();
        let equations: Vec<Node> = trees.iter().map(|t| t.build(&mut p)).collect();
        let wrt = [Symbol(2), Symbol(0), Symbol(1)];
        let entries = p.jacobian(&equations, &wrt);
        let mut expected = Vec::new();
        for (row, &e) in equations.iter().enumerate() {
            for (column, &s) in wrt.iter().enumerate() {
                let value = p.diff(e, s);
                if value != Pool::ZERO {
                    expected.push((row, column, value));
                }
            }
        }
        let got: Vec<_> = entries.iter().map(|e| (e.row, e.column, e.value)).collect();
        prop_assert_eq!(got, expected);
    }

    #[test]
    fn displayed_text_reads_back_to_the_same_node(t in tree(Family::Anything)) {
        let mut p = Pool::new();
        let node = t.build(&mut p);
        let d = p.diff(node, Symbol(1));
        // A NaN alone is no expression for Tcl (a domain error), nor for the compiler.
        let shown: Vec<Node> = [node, d]
            .into_iter()
            .filter(|&n| !p.as_constant(n).is_some_and(f64::is_nan))
            .collect();
        for n in shown {
            let text = p.display(n).to_string();
            let back = from_ast(&mut p, &parse(&text), resolve_display_names)
                .map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
            prop_assert!(back == n, "{text} read back as {}", p.display(back));
        }
    }
}
