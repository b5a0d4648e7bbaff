//! Direct evaluation of expressions by walking the DAG.
//!
//! This is the reference meaning of a node, including the order of operations inside sums and
//! products (which the tape reproduces exactly, so both give bit-identical results). It visits
//! each shared node once per call. For repeated evaluation compile a [`Tape`](super::Tape).

use super::hash::FastMap;
use super::ops::{self, powi};
use super::pool::{Node, Pool, Symbol, Term};

impl Pool {
    /// The value of `node` with each symbol valued by `values`.
    pub fn eval(&self, node: Node, values: impl Fn(Symbol) -> f64) -> f64 {
        self.eval_many(&[node], values)[0]
    }

    /// The values of `nodes` in one walk, sharing the work of common subexpressions.
    pub fn eval_many(&self, nodes: &[Node], values: impl Fn(Symbol) -> f64) -> Vec<f64> {
        let mut known: FastMap<Node, f64> = FastMap::default();
        let mut stack: Vec<(Node, bool)> = Vec::new();
        for &root in nodes {
            stack.push((root, false));
            while let Some((node, children_done)) = stack.pop() {
                if known.contains_key(&node) {
                    continue;
                }
                if children_done {
                    let value = self.value(node, |child| known[&child], &values);
                    known.insert(node, value);
                } else {
                    stack.push((node, true));
                    self.for_each_child(node, |child| {
                        if !known.contains_key(&child) {
                            stack.push((child, false));
                        }
                    });
                }
            }
        }
        nodes.iter().map(|n| known[n]).collect()
    }

    /// The value of one node given the values of its children.
    fn value(
        &self,
        node: Node,
        child: impl Fn(Node) -> f64,
        values: &impl Fn(Symbol) -> f64,
    ) -> f64 {
        match self.term(node) {
            Term::Const(v) => v,
            Term::Symbol(s) => values(s),
            Term::Sum { constant, terms } => {
                let (c0, t0) = terms[0];
                let mut acc = c0 * child(t0);
                for &(c, t) in &terms[1..] {
                    acc += c * child(t);
                }
                if constant != 0.0 {
                    acc += constant;
                }
                acc
            }
            Term::Product(factors) => {
                product_value(factors.iter().map(|&(base, e)| (child(base), e)))
            }
            Term::Unary(f, a) => f.apply(child(a)),
            Term::Binary(op, a, b) => op.apply(child(a), child(b)),
            Term::Select(c, a, b) => ops::select(child(c), child(a), child(b)),
        }
    }
}

/// A product's value: the positive powers multiplied in order, then divided by each negative
/// power in order (so `x/y` is a true division, not `x * (1/y)`).
fn product_value(factors: impl Iterator<Item = (f64, i32)> + Clone) -> f64 {
    let mut acc: Option<f64> = None;
    for (v, e) in factors.clone().filter(|&(_, e)| e > 0) {
        let p = powi(v, e.unsigned_abs());
        acc = Some(acc.map_or(p, |a| a * p));
    }
    for (v, e) in factors.filter(|&(_, e)| e < 0) {
        let p = powi(v, e.unsigned_abs());
        acc = Some(acc.map_or(1.0 / p, |a| a / p));
    }
    acc.unwrap_or(1.0)
}
