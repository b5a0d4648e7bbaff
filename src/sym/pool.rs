//! The expression pool: an arena of hash-consed nodes.
//!
//! A [`Node`] is a small copyable id into a [`Pool`]. The pool stores every distinct
//! subexpression once: building a term that already exists returns the existing node, so equal
//! subexpressions are one node (common-subexpression elimination comes for free) and equality of
//! canonical expressions is `==` on ids. The canonical forms are built by the constructors in
//! `build.rs`; this file holds the storage and read access.

use super::hash::{FastHasher, FastMap};
use super::ops::{Binary, Unary};
use super::symbols::{SetId, SymbolSets};
use std::hash::Hasher;

/// An expression in a [`Pool`]. Only meaningful with the pool that made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Node(u32);

impl Node {
    /// Position of the node in its pool (nodes are numbered in creation order).
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A variable chosen by the caller: a state variable, time, an input from another component, a
/// trajectory value. The pool attaches no meaning to the number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Symbol(pub u32);

/// What a node is, in canonical form. Read it with [`Pool::term`].
///
/// The constructors maintain these invariants, which make equal expressions equal nodes:
/// - a `Sum` has at least one term, terms sorted by node, no two with the same node, no zero
///   coefficient, and no term that is a constant; it is never just `1·x`. A term is a sum only
///   in a multiple of a sum, `c·(…)`: a single term and no constant;
/// - a `Product` has factors sorted by base, distinct bases, no zero exponent, no base that is a
///   constant, a product, or a sum with a single term and no constant (its coefficient moves
///   out); it is never just `x¹`. Numeric coefficients live in the enclosing `Sum`;
/// - commutative binary operations have their arguments in node order, `Gt`/`Ge` are written
///   as `Lt`/`Le` with the arguments swapped, and nothing has only constant arguments.
#[derive(Clone, Copy, Debug)]
pub enum Term<'a> {
    Const(f64),
    Symbol(Symbol),
    /// `constant + Σ coefficient·node`
    Sum {
        constant: f64,
        terms: &'a [(f64, Node)],
    },
    /// `Π base^exponent` with integer exponents.
    Product(&'a [(Node, i32)]),
    Unary(Unary, Node),
    Binary(Binary, Node, Node),
    /// `condition != 0 ? then : otherwise`
    Select(Node, Node, Node),
}

impl Term<'_> {
    /// Structural identity, comparing numbers by their bits (so NaN equals itself and -0 differs
    /// from 0, as hash-consing needs).
    fn same(&self, other: &Term<'_>) -> bool {
        match (*self, *other) {
            (Term::Const(a), Term::Const(b)) => a.to_bits() == b.to_bits(),
            (Term::Symbol(a), Term::Symbol(b)) => a == b,
            (
                Term::Sum {
                    constant: c,
                    terms: t,
                },
                Term::Sum {
                    constant: d,
                    terms: u,
                },
            ) => {
                c.to_bits() == d.to_bits()
                    && t.len() == u.len()
                    && t.iter()
                        .zip(u)
                        .all(|(x, y)| x.0.to_bits() == y.0.to_bits() && x.1 == y.1)
            }
            (Term::Product(f), Term::Product(g)) => f == g,
            (Term::Unary(f, a), Term::Unary(g, b)) => f == g && a == b,
            (Term::Binary(f, a, b), Term::Binary(g, c, d)) => f == g && a == c && b == d,
            (Term::Select(a, b, c), Term::Select(d, e, f)) => a == d && b == e && c == f,
            _ => false,
        }
    }

    fn hash(&self) -> u64 {
        let mut h = FastHasher::default();
        match *self {
            Term::Const(v) => {
                h.write_u8(0);
                h.write_u64(v.to_bits());
            }
            Term::Symbol(s) => {
                h.write_u8(1);
                h.write_u32(s.0);
            }
            Term::Sum { constant, terms } => {
                h.write_u8(2);
                h.write_u64(constant.to_bits());
                for &(c, n) in terms {
                    h.write_u64(c.to_bits());
                    h.write_u32(n.0);
                }
            }
            Term::Product(factors) => {
                h.write_u8(3);
                for &(n, e) in factors {
                    h.write_u64(u64::from(n.0) << 32 | u64::from(e as u32));
                }
            }
            Term::Unary(f, a) => {
                h.write_u8(4);
                h.write_u8(f as u8);
                h.write_u32(a.0);
            }
            Term::Binary(f, a, b) => {
                h.write_u8(5);
                h.write_u8(f as u8);
                h.write_u32(a.0);
                h.write_u32(b.0);
            }
            Term::Select(a, b, c) => {
                h.write_u8(6);
                h.write_u32(a.0);
                h.write_u32(b.0);
                h.write_u32(c.0);
            }
        }
        h.finish()
    }
}

/// How a node is stored: a [`Term`] with its slices as ranges into the pool's arenas.
#[derive(Clone, Copy)]
enum Stored {
    Const(f64),
    Symbol(Symbol),
    Sum { constant: f64, start: u32, len: u32 },
    Product { start: u32, len: u32 },
    Unary(Unary, Node),
    Binary(Binary, Node, Node),
    Select(Node, Node, Node),
}

/// No further node in a hash chain.
const END: u32 = u32::MAX;

/// An arena of hash-consed expression nodes; see the [module documentation](super).
pub struct Pool {
    stored: Vec<Stored>,
    /// Per node: the set of symbols it depends on.
    depends: Vec<SetId>,
    /// Per node: the next older node with the same hash, or `END`.
    next_same_hash: Vec<u32>,
    /// Hash of a term → the newest node with that hash.
    by_hash: FastMap<u64, u32>,
    sum_terms: Vec<(f64, Node)>,
    factors: Vec<(Node, i32)>,
    pub(super) sets: SymbolSets,
    /// Memoized derivatives, see `diff.rs`.
    pub(super) derivatives: FastMap<(Node, Symbol), Node>,
    /// Reusable buffers for the constructors, see `build.rs`.
    pub(super) scratch: super::build::Scratch,
}

impl Default for Pool {
    fn default() -> Self {
        Pool::new()
    }
}

impl Pool {
    pub const ZERO: Node = Node(0);
    pub const ONE: Node = Node(1);

    pub fn new() -> Pool {
        let mut pool = Pool {
            stored: Vec::new(),
            depends: Vec::new(),
            next_same_hash: Vec::new(),
            by_hash: FastMap::default(),
            sum_terms: Vec::new(),
            factors: Vec::new(),
            sets: SymbolSets::new(),
            derivatives: FastMap::default(),
            scratch: Default::default(),
        };
        let zero = pool.intern(Term::Const(0.0));
        let one = pool.intern(Term::Const(1.0));
        debug_assert_eq!((zero, one), (Pool::ZERO, Pool::ONE));
        pool
    }

    /// Number of distinct nodes created so far.
    pub fn len(&self) -> usize {
        self.stored.len()
    }

    /// Always false: a pool starts with the constants 0 and 1.
    pub fn is_empty(&self) -> bool {
        self.stored.is_empty()
    }

    /// The canonical term of a node.
    pub fn term(&self, node: Node) -> Term<'_> {
        match self.stored[node.index()] {
            Stored::Const(v) => Term::Const(v),
            Stored::Symbol(s) => Term::Symbol(s),
            Stored::Sum {
                constant,
                start,
                len,
            } => Term::Sum {
                constant,
                terms: &self.sum_terms[start as usize..(start + len) as usize],
            },
            Stored::Product { start, len } => {
                Term::Product(&self.factors[start as usize..(start + len) as usize])
            }
            Stored::Unary(f, a) => Term::Unary(f, a),
            Stored::Binary(f, a, b) => Term::Binary(f, a, b),
            Stored::Select(c, a, b) => Term::Select(c, a, b),
        }
    }

    /// The value of a constant node.
    pub fn as_constant(&self, node: Node) -> Option<f64> {
        match self.stored[node.index()] {
            Stored::Const(v) => Some(v),
            _ => None,
        }
    }

    /// The symbol of a symbol node.
    pub fn as_symbol(&self, node: Node) -> Option<Symbol> {
        match self.stored[node.index()] {
            Stored::Symbol(s) => Some(s),
            _ => None,
        }
    }

    /// The symbols `node` depends on, sorted ascending. Constant time: every node records its
    /// set when it is created.
    pub fn symbols(&self, node: Node) -> &[Symbol] {
        self.sets.get(self.depends[node.index()])
    }

    /// Whether `symbol` occurs in `node`.
    pub fn depends_on(&self, node: Node, symbol: Symbol) -> bool {
        self.symbols(node).binary_search(&symbol).is_ok()
    }

    /// Calls `f` once for each distinct direct child of `node`.
    pub fn for_each_child(&self, node: Node, mut f: impl FnMut(Node)) {
        match self.term(node) {
            Term::Const(_) | Term::Symbol(_) => {}
            Term::Sum { terms, .. } => terms.iter().for_each(|&(_, n)| f(n)),
            Term::Product(factors) => factors.iter().for_each(|&(n, _)| f(n)),
            Term::Unary(_, a) => f(a),
            Term::Binary(_, a, b) => {
                f(a);
                if b != a {
                    f(b);
                }
            }
            Term::Select(c, a, b) => {
                f(c);
                if a != c {
                    f(a);
                }
                if b != c && b != a {
                    f(b);
                }
            }
        }
    }

    /// The node for `term`, creating it if it does not exist yet. The caller guarantees the
    /// canonical-form invariants of [`Term`].
    pub(super) fn intern(&mut self, term: Term<'_>) -> Node {
        let hash = term.hash();
        let mut candidate = self.by_hash.get(&hash).copied().unwrap_or(END);
        while candidate != END {
            if self.term(Node(candidate)).same(&term) {
                return Node(candidate);
            }
            candidate = self.next_same_hash[candidate as usize];
        }
        let id = u32::try_from(self.stored.len())
            .ok()
            .filter(|&id| id != END)
            .expect("a pool holds fewer than 2^32 - 1 nodes");
        let node = Node(id);
        let mut depends = SetId::EMPTY;
        let stored = match term {
            Term::Const(v) => Stored::Const(v),
            Term::Symbol(s) => {
                depends = self.sets.singleton(s);
                Stored::Symbol(s)
            }
            Term::Sum { constant, terms } => {
                let start = arena_len(&self.sum_terms);
                self.sum_terms.extend_from_slice(terms);
                for &(_, n) in terms {
                    depends = self.sets.union(depends, self.depends[n.index()]);
                }
                Stored::Sum {
                    constant,
                    start,
                    len: arena_len(terms),
                }
            }
            Term::Product(factors) => {
                let start = arena_len(&self.factors);
                self.factors.extend_from_slice(factors);
                for &(n, _) in factors {
                    depends = self.sets.union(depends, self.depends[n.index()]);
                }
                Stored::Product {
                    start,
                    len: arena_len(factors),
                }
            }
            Term::Unary(f, a) => {
                depends = self.depends[a.index()];
                Stored::Unary(f, a)
            }
            Term::Binary(f, a, b) => {
                depends = self
                    .sets
                    .union(self.depends[a.index()], self.depends[b.index()]);
                Stored::Binary(f, a, b)
            }
            Term::Select(c, a, b) => {
                let ab = self
                    .sets
                    .union(self.depends[a.index()], self.depends[b.index()]);
                depends = self.sets.union(self.depends[c.index()], ab);
                Stored::Select(c, a, b)
            }
        };
        self.stored.push(stored);
        self.depends.push(depends);
        let previous = self.by_hash.insert(hash, id).unwrap_or(END);
        self.next_same_hash.push(previous);
        node
    }
}

fn arena_len<T>(items: &[T]) -> u32 {
    u32::try_from(items.len()).expect("an expression arena holds fewer than 2^32 entries")
}
