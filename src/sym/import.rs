//! Copying expressions from one pool into another.
//!
//! A long-lived pool holding a whole scene's equations would otherwise grow with every
//! derivative taken from it; a caller can instead copy the few equations it needs into a
//! short-lived pool, differentiate and compile there, and drop it.

use super::hash::FastMap;
use super::pool::{Node, Pool, Term};

impl Pool {
    /// Copies `roots`, and everything they are built from, out of `from` into this pool, and
    /// returns the copies in the same order. Each node is rebuilt with this pool's
    /// constructors, so the copies are canonical here and shared with equal nodes already
    /// present. The copies compute the same values (up to the order in which a sum's terms are
    /// added, which follows node order).
    pub fn import(&mut self, from: &Pool, roots: &[Node]) -> Vec<Node> {
        let mut copied: FastMap<Node, Node> = FastMap::default();
        // Children before parents, without recursion (expressions can be deep).
        let mut stack: Vec<(Node, bool)> = roots.iter().rev().map(|&r| (r, false)).collect();
        while let Some((node, children_done)) = stack.pop() {
            if copied.contains_key(&node) {
                continue;
            }
            if children_done {
                let copy = self.rebuild(from.term(node), &copied);
                copied.insert(node, copy);
            } else {
                stack.push((node, true));
                from.for_each_child(node, |child| {
                    if !copied.contains_key(&child) {
                        stack.push((child, false));
                    }
                });
            }
        }
        roots.iter().map(|r| copied[r]).collect()
    }

    /// `term` of another pool, its children already copied into this one.
    fn rebuild(&mut self, term: Term<'_>, copied: &FastMap<Node, Node>) -> Node {
        let at = |n: Node| copied[&n];
        match term {
            Term::Const(v) => self.constant(v),
            Term::Symbol(s) => self.symbol(s),
            Term::Sum { constant, terms } => {
                let terms: Vec<(f64, Node)> = terms.iter().map(|&(c, n)| (c, at(n))).collect();
                self.linear(constant, &terms)
            }
            Term::Product(factors) => {
                let powers: Vec<Node> = factors
                    .iter()
                    .map(|&(base, exponent)| self.powi(at(base), exponent))
                    .collect();
                self.product(&powers)
            }
            Term::Unary(f, a) => self.unary(f, at(a)),
            Term::Binary(op, a, b) => self.binary(op, at(a), at(b)),
            Term::Select(c, a, b) => self.select(at(c), at(a), at(b)),
        }
    }
}
