//! Compilation of expressions to a flat instruction tape, and its evaluation.

use super::hash::FastMap;
use super::ops::{self, powi, Binary, Unary};
use super::pool::{Node, Pool, Symbol, Term};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// A compiled list of expressions: computes a fixed list of output nodes from a vector of
/// inputs.
///
/// It is a straight line of instructions over a register file: only nodes reachable from the
/// outputs appear, each once; constants are preloaded registers; registers of values no longer
/// needed are reused, so even large tapes stay compact in cache. Evaluation allocates nothing:
/// the registers live in a [`Workspace`] the caller keeps. One tape can hold a component's
/// derivatives and its Jacobian entries together, so one pass yields both and shares their
/// subexpressions. The tape performs exactly the operations of [`Pool::eval`] in the same order,
/// so both give bit-identical results.
#[derive(Clone, Debug)]
pub struct Tape {
    /// Identifies the register layout, so a workspace knows whether it is prepared for us.
    id: u64,
    code: Vec<Instr>,
    /// The (coefficient, register) terms of the `Sum` instructions.
    sum_terms: Vec<(f64, u32)>,
    /// Register layout: temporaries, then constants, then inputs.
    first_constant: u32,
    constants: Vec<f64>,
    /// (input slot, register) for every symbol the outputs use.
    inputs: Vec<(usize, u32)>,
    /// One more than the largest input slot read.
    inputs_needed: usize,
    outputs: Vec<u32>,
    /// Per output, how much of `code` computes it and every output before it.
    output_ends: Vec<u32>,
    registers: usize,
}

/// The registers of one evaluation, reused across evaluations. A workspace may be passed to any
/// tape; it is (re)prepared only when it last served a different tape.
#[derive(Clone, Debug, Default)]
pub struct Workspace {
    tape: u64,
    registers: Vec<f64>,
}

impl Workspace {
    pub fn new() -> Workspace {
        Workspace::default()
    }
}

/// A tape's register file during one evaluation, read and written without bounds checks.
///
/// Evaluation is half of a simulation's time, and a check per operand was a tenth of its
/// instructions (free spinning bodies, `docs/BENCHMARKS.md`, issue 28's fifth round).
/// Sound because a [`Tape`] exists only as [`Tape::compile`] made it, which checks that
/// every register it names is below its register count ([`Tape::registers_in_range`]), and
/// evaluation first (re)prepares a workspace of any other length to exactly that count.
struct Registers<'a>(&'a mut [f64]);

impl Registers<'_> {
    #[inline(always)]
    fn get(&self, register: u32) -> f64 {
        debug_assert!((register as usize) < self.0.len());
        // SAFETY: every register of the tape is below the slice's length (see the type).
        unsafe { *self.0.get_unchecked(register as usize) }
    }

    #[inline(always)]
    fn set(&mut self, register: u32, value: f64) {
        debug_assert!((register as usize) < self.0.len());
        // SAFETY: as in `get`.
        unsafe { *self.0.get_unchecked_mut(register as usize) = value }
    }
}

/// Why a tape could not be compiled or evaluated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TapeError {
    /// An output depends on a symbol that `slot_of` gave no input slot.
    UnboundSymbol(Symbol),
    /// The tape reads input slot `needed - 1`, but only `given` inputs were passed.
    TooFewInputs { needed: usize, given: usize },
    /// The output slice must have one element per compiled output.
    WrongOutputCount { expected: usize, given: usize },
    /// More than 2³⁰ registers of one kind.
    TooLarge,
}

impl fmt::Display for TapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TapeError::UnboundSymbol(s) => {
                write!(f, "symbol {} has no input slot in this tape", s.0)
            }
            TapeError::TooFewInputs { needed, given } => {
                write!(f, "the tape reads {needed} inputs but {given} were given")
            }
            TapeError::WrongOutputCount { expected, given } => write!(
                f,
                "the tape computes {expected} outputs but the output slice holds {given}"
            ),
            TapeError::TooLarge => f.write_str("expression too large to compile"),
        }
    }
}

impl std::error::Error for TapeError {}

/// One instruction: destination register first, then operand registers.
#[derive(Clone, Copy, Debug)]
enum Instr {
    Add(u32, u32, u32),
    Sub(u32, u32, u32),
    Mul(u32, u32, u32),
    Div(u32, u32, u32),
    /// `d = acc + coefficient * x` (two roundings, as the DAG evaluator).
    MulAdd(u32, u32, u32, u32),
    /// `d = Σ c·x` over `len` (coefficient, register) pairs of the tape's sum table from
    /// `start`, accumulated in order.
    Sum(u32, u32, u32),
    Neg(u32, u32),
    Square(u32, u32),
    Recip(u32, u32),
    /// `d = a^n` for a positive `n` (the third field), via [`ops::powi`].
    PowI(u32, u32, u32),
    Unary(Unary, u32, u32),
    Binary(Binary, u32, u32, u32),
    Select(u32, u32, u32, u32),
}

impl Instr {
    /// The same instruction with every register renamed by `f`.
    fn rename(self, f: impl Fn(u32) -> u32) -> Instr {
        match self {
            Instr::Add(d, a, b) => Instr::Add(f(d), f(a), f(b)),
            Instr::Sub(d, a, b) => Instr::Sub(f(d), f(a), f(b)),
            Instr::Mul(d, a, b) => Instr::Mul(f(d), f(a), f(b)),
            Instr::Div(d, a, b) => Instr::Div(f(d), f(a), f(b)),
            Instr::MulAdd(d, acc, c, x) => Instr::MulAdd(f(d), f(acc), f(c), f(x)),
            Instr::Sum(d, start, len) => Instr::Sum(f(d), start, len),
            Instr::Neg(d, a) => Instr::Neg(f(d), f(a)),
            Instr::Square(d, a) => Instr::Square(f(d), f(a)),
            Instr::Recip(d, a) => Instr::Recip(f(d), f(a)),
            Instr::PowI(d, a, n) => Instr::PowI(f(d), f(a), n),
            Instr::Unary(op, d, a) => Instr::Unary(op, f(d), f(a)),
            Instr::Binary(op, d, a, b) => Instr::Binary(op, f(d), f(a), f(b)),
            Instr::Select(d, c, a, b) => Instr::Select(f(d), f(c), f(a), f(b)),
        }
    }
}

static NEXT_TAPE_ID: AtomicU64 = AtomicU64::new(1);

impl Tape {
    /// Compiles `outputs`, reading each symbol from input slot `slot_of(symbol)`.
    pub fn compile(
        pool: &Pool,
        outputs: &[Node],
        slot_of: impl Fn(Symbol) -> Option<usize>,
    ) -> Result<Tape, TapeError> {
        Compiler::new(pool).compile(outputs, slot_of)
    }

    /// Evaluates every output. `inputs` is indexed by the slots given at compilation (extra
    /// elements are ignored); `outputs` receives one value per compiled output, in order.
    pub fn eval(
        &self,
        inputs: &[f64],
        outputs: &mut [f64],
        workspace: &mut Workspace,
    ) -> Result<(), TapeError> {
        if outputs.len() != self.outputs.len() {
            return Err(TapeError::WrongOutputCount {
                expected: self.outputs.len(),
                given: outputs.len(),
            });
        }
        self.eval_leading(inputs, outputs, workspace)
    }

    /// Evaluates the first `outputs.len()` outputs only, running just the instructions they
    /// need: the outputs' instructions come in output order, so a tape of derivatives followed
    /// by their Jacobian entries yields the derivatives alone for a fraction of the work.
    pub fn eval_leading(
        &self,
        inputs: &[f64],
        outputs: &mut [f64],
        workspace: &mut Workspace,
    ) -> Result<(), TapeError> {
        if inputs.len() < self.inputs_needed {
            return Err(TapeError::TooFewInputs {
                needed: self.inputs_needed,
                given: inputs.len(),
            });
        }
        if outputs.len() > self.outputs.len() {
            return Err(TapeError::WrongOutputCount {
                expected: self.outputs.len(),
                given: outputs.len(),
            });
        }
        if workspace.tape != self.id || workspace.registers.len() != self.registers {
            self.prepare(workspace);
        }
        let mut r = Registers(workspace.registers.as_mut_slice());
        for &(slot, register) in &self.inputs {
            r.set(register, inputs[slot]);
        }
        let end = match outputs.len() {
            0 => 0,
            count => self.output_ends[count - 1] as usize,
        };
        for instr in &self.code[..end] {
            match *instr {
                Instr::Add(d, a, b) => r.set(d, r.get(a) + r.get(b)),
                Instr::Sub(d, a, b) => r.set(d, r.get(a) - r.get(b)),
                Instr::Mul(d, a, b) => r.set(d, r.get(a) * r.get(b)),
                Instr::Div(d, a, b) => r.set(d, r.get(a) / r.get(b)),
                Instr::MulAdd(d, acc, c, x) => r.set(d, r.get(acc) + r.get(c) * r.get(x)),
                Instr::Sum(d, start, len) => {
                    let terms = &self.sum_terms[start as usize..(start + len) as usize];
                    let (c0, x0) = terms[0];
                    let mut acc = c0 * r.get(x0);
                    for &(c, x) in &terms[1..] {
                        acc += c * r.get(x);
                    }
                    r.set(d, acc);
                }
                Instr::Neg(d, a) => r.set(d, -r.get(a)),
                Instr::Square(d, a) => r.set(d, r.get(a) * r.get(a)),
                Instr::Recip(d, a) => r.set(d, 1.0 / r.get(a)),
                Instr::PowI(d, a, n) => r.set(d, powi(r.get(a), n)),
                Instr::Unary(op, d, a) => r.set(d, op.apply(r.get(a))),
                Instr::Binary(op, d, a, b) => r.set(d, op.apply(r.get(a), r.get(b))),
                Instr::Select(d, c, a, b) => r.set(d, ops::select(r.get(c), r.get(a), r.get(b))),
            }
        }
        for (out, &register) in outputs.iter_mut().zip(&self.outputs) {
            *out = r.get(register);
        }
        Ok(())
    }

    /// Whether every register the tape names is below its register count: what lets
    /// [`Registers`] skip the bounds checks. Checked once, when the tape is compiled.
    fn registers_in_range(&self) -> bool {
        let in_range = std::cell::Cell::new(true);
        let note = |register: u32| {
            in_range.set(in_range.get() && (register as usize) < self.registers);
            register
        };
        for instr in &self.code {
            instr.rename(note);
        }
        let named = self.sum_terms.iter().map(|&(_, r)| r);
        let mut named = named.chain(self.inputs.iter().map(|&(_, r)| r));
        in_range.get()
            && named.all(|r| (r as usize) < self.registers)
            && self.outputs.iter().all(|&r| (r as usize) < self.registers)
            && self.first_constant as usize + self.constants.len() <= self.registers
    }

    /// A workspace prepared for this tape.
    pub fn workspace(&self) -> Workspace {
        let mut workspace = Workspace::new();
        self.prepare(&mut workspace);
        workspace
    }

    /// Number of instructions.
    pub fn len(&self) -> usize {
        self.code.len()
    }

    pub fn is_empty(&self) -> bool {
        self.code.is_empty()
    }

    /// Number of registers a workspace holds (temporaries, constants and inputs).
    pub fn registers(&self) -> usize {
        self.registers
    }

    /// Number of outputs.
    pub fn outputs(&self) -> usize {
        self.outputs.len()
    }

    /// The smallest input slice length `eval` accepts.
    pub fn inputs_needed(&self) -> usize {
        self.inputs_needed
    }

    fn prepare(&self, workspace: &mut Workspace) {
        workspace.tape = self.id;
        workspace.registers.clear();
        workspace.registers.resize(self.registers, 0.0);
        let first = self.first_constant as usize;
        workspace.registers[first..first + self.constants.len()].copy_from_slice(&self.constants);
    }
}

/// Registers are numbered per kind while compiling (temporaries are only counted at the end);
/// the kind lives in the top two bits until the final renaming.
const KIND_SHIFT: u32 = 30;
const INDEX_MASK: u32 = (1 << KIND_SHIFT) - 1;
const TEMPORARY: u32 = 0;
const CONSTANT: u32 = 1 << KIND_SHIFT;
const INPUT: u32 = 2 << KIND_SHIFT;

struct Compiler<'p> {
    pool: &'p Pool,
    code: Vec<Instr>,
    sum_terms: Vec<(f64, u32)>,
    /// Register holding each compiled node's value.
    register: FastMap<Node, u32>,
    /// Per node: how many compiled parents have not been emitted yet (outputs never reach 0).
    pending_uses: FastMap<Node, u32>,
    constants: Vec<f64>,
    constant_register: FastMap<u64, u32>,
    inputs: Vec<(usize, u32)>,
    temporaries: u32,
    free: Vec<u32>,
}

impl<'p> Compiler<'p> {
    fn new(pool: &'p Pool) -> Compiler<'p> {
        Compiler {
            pool,
            code: Vec::new(),
            sum_terms: Vec::new(),
            register: FastMap::default(),
            pending_uses: FastMap::default(),
            constants: Vec::new(),
            constant_register: FastMap::default(),
            inputs: Vec::new(),
            temporaries: 0,
            free: Vec::new(),
        }
    }

    fn compile(
        mut self,
        outputs: &[Node],
        slot_of: impl Fn(Symbol) -> Option<usize>,
    ) -> Result<Tape, TapeError> {
        let (order, root_ends) = self.order(outputs);
        for &node in &order {
            self.pool.for_each_child(node, |child| {
                *self.pending_uses.entry(child).or_insert(0) += 1;
            });
        }
        for &output in outputs {
            *self.pending_uses.entry(output).or_insert(0) += 1;
        }
        let pool = self.pool;
        let mut output_ends = Vec::with_capacity(outputs.len());
        for (position, &node) in order.iter().enumerate() {
            let register = match pool.term(node) {
                Term::Const(v) => self.constant(v)?,
                Term::Symbol(s) => {
                    let slot = slot_of(s).ok_or(TapeError::UnboundSymbol(s))?;
                    let register = INPUT | index(self.inputs.len())?;
                    self.inputs.push((slot, register));
                    register
                }
                Term::Sum { constant, terms } => {
                    let d = self.allocate()?;
                    self.emit_sum(d, constant, terms)?;
                    d
                }
                Term::Product(factors) => {
                    let d = self.allocate()?;
                    self.emit_product(d, factors)?;
                    d
                }
                Term::Unary(op, a) => {
                    let a = self.register[&a];
                    let d = self.allocate()?;
                    self.code.push(Instr::Unary(op, d, a));
                    d
                }
                Term::Binary(op, a, b) => {
                    let (a, b) = (self.register[&a], self.register[&b]);
                    let d = self.allocate()?;
                    self.code.push(Instr::Binary(op, d, a, b));
                    d
                }
                Term::Select(c, a, b) => {
                    let (c, a, b) = (self.register[&c], self.register[&a], self.register[&b]);
                    let d = self.allocate()?;
                    self.code.push(Instr::Select(d, c, a, b));
                    d
                }
            };
            self.register.insert(node, register);
            self.release_children(node);
            while root_ends.get(output_ends.len()) == Some(&(position + 1)) {
                output_ends.push(index(self.code.len())?);
            }
        }
        // Outputs whose nodes all came before (constants, inputs, repeats) need no more code.
        while output_ends.len() < outputs.len() {
            output_ends.push(index(self.code.len())?);
        }
        let temporaries = self.temporaries;
        let constants = u32::try_from(self.constants.len()).map_err(|_| TapeError::TooLarge)?;
        let place = |register: u32| {
            let i = register & INDEX_MASK;
            match register & !INDEX_MASK {
                TEMPORARY => i,
                CONSTANT => temporaries + i,
                _ => temporaries + constants + i,
            }
        };
        let registers = temporaries as usize + self.constants.len() + self.inputs.len();
        u32::try_from(registers).map_err(|_| TapeError::TooLarge)?;
        let tape = Tape {
            id: NEXT_TAPE_ID.fetch_add(1, Ordering::Relaxed),
            code: self.code.iter().map(|i| i.rename(place)).collect(),
            sum_terms: self.sum_terms.iter().map(|&(c, r)| (c, place(r))).collect(),
            first_constant: temporaries,
            constants: self.constants,
            inputs_needed: self.inputs.iter().map(|&(s, _)| s + 1).max().unwrap_or(0),
            inputs: self.inputs.iter().map(|&(s, r)| (s, place(r))).collect(),
            outputs: outputs.iter().map(|n| place(self.register[n])).collect(),
            output_ends,
            registers,
        };
        // The compiler places every register below the count; evaluation relies on it.
        assert!(tape.registers_in_range(), "tape register out of range");
        Ok(tape)
    }

    /// The nodes reachable from `outputs`, children before parents, output by output; and
    /// for each output, how many of them come up to its own.
    fn order(&self, outputs: &[Node]) -> (Vec<Node>, Vec<usize>) {
        let mut order = Vec::new();
        let mut ends = Vec::with_capacity(outputs.len());
        let mut seen: FastMap<Node, ()> = FastMap::default();
        let mut stack: Vec<(Node, bool)> = Vec::new();
        for &root in outputs {
            stack.push((root, false));
            while let Some((node, children_done)) = stack.pop() {
                if children_done {
                    order.push(node);
                } else if seen.insert(node, ()).is_none() {
                    stack.push((node, true));
                    self.pool.for_each_child(node, |child| {
                        if !seen.contains_key(&child) {
                            stack.push((child, false));
                        }
                    });
                }
            }
            ends.push(order.len());
        }
        (order, ends)
    }

    /// `d = c₀·t₀ + c₁·t₁ + … + constant`, accumulated left to right like the DAG evaluator.
    /// Short sums are single instructions; longer ones one [`Instr::Sum`] looping over its
    /// terms, which saves an instruction dispatch per term.
    fn emit_sum(&mut self, d: u32, constant: f64, terms: &[(f64, Node)]) -> Result<(), TapeError> {
        let register = |c: &Self, n: Node| c.register[&n];
        let instr = match (terms, constant) {
            (&[(-1.0, t)], 0.0) => Instr::Neg(d, register(self, t)),
            (&[(c, t)], 0.0) => Instr::Mul(d, register(self, t), self.constant(c)?),
            (&[(1.0, t)], k) => Instr::Add(d, register(self, t), self.constant(k)?),
            (&[(1.0, t), (c, u)], 0.0) => {
                let (t, u) = (register(self, t), register(self, u));
                if c == 1.0 {
                    Instr::Add(d, t, u)
                } else if c == -1.0 {
                    Instr::Sub(d, t, u)
                } else {
                    Instr::MulAdd(d, t, self.constant(c)?, u)
                }
            }
            _ => {
                let start = index(self.sum_terms.len())?;
                for &(c, t) in terms {
                    self.sum_terms.push((c, register(self, t)));
                }
                if constant != 0.0 {
                    // acc + k·1 is exactly acc + k.
                    let one = self.constant(1.0)?;
                    self.sum_terms.push((constant, one));
                }
                let len = index(self.sum_terms.len())? - start;
                Instr::Sum(d, start, len)
            }
        };
        self.code.push(instr);
        Ok(())
    }

    /// `d = Π positive powers / each negative power`, in the DAG evaluator's order.
    fn emit_product(&mut self, d: u32, factors: &[(Node, i32)]) -> Result<(), TapeError> {
        let mut temporary = None;
        let mut acc: Option<u32> = None;
        for &(base, e) in factors.iter().filter(|&&(_, e)| e > 0) {
            let base = self.register[&base];
            let value = if e == 1 {
                base
            } else {
                let target = match acc {
                    None => d,
                    Some(_) => self.scratch_register(&mut temporary)?,
                };
                self.emit_power(target, base, e.unsigned_abs());
                target
            };
            acc = Some(match acc {
                None => value,
                Some(a) => {
                    self.code.push(Instr::Mul(d, a, value));
                    d
                }
            });
        }
        for &(base, e) in factors.iter().filter(|&&(_, e)| e < 0) {
            let base = self.register[&base];
            let value = if e == -1 {
                base
            } else {
                let target = self.scratch_register(&mut temporary)?;
                self.emit_power(target, base, e.unsigned_abs());
                target
            };
            self.code.push(match acc {
                None => Instr::Recip(d, value),
                Some(a) => Instr::Div(d, a, value),
            });
            acc = Some(d);
        }
        if let Some(t) = temporary {
            self.free.push(t);
        }
        Ok(())
    }

    /// The node's one extra register, allocated on first need.
    fn scratch_register(&mut self, slot: &mut Option<u32>) -> Result<u32, TapeError> {
        match *slot {
            Some(register) => Ok(register),
            None => {
                let register = self.allocate()?;
                *slot = Some(register);
                Ok(register)
            }
        }
    }

    fn emit_power(&mut self, d: u32, base: u32, n: u32) {
        self.code.push(if n == 2 {
            Instr::Square(d, base)
        } else {
            Instr::PowI(d, base, n)
        });
    }

    fn constant(&mut self, v: f64) -> Result<u32, TapeError> {
        if let Some(&register) = self.constant_register.get(&v.to_bits()) {
            return Ok(register);
        }
        let register = CONSTANT | index(self.constants.len())?;
        self.constants.push(v);
        self.constant_register.insert(v.to_bits(), register);
        Ok(register)
    }

    fn allocate(&mut self) -> Result<u32, TapeError> {
        if let Some(register) = self.free.pop() {
            return Ok(register);
        }
        let register = TEMPORARY | index(self.temporaries as usize)?;
        self.temporaries += 1;
        Ok(register)
    }

    /// After `node` is emitted, frees the temporaries of children no later node reads.
    fn release_children(&mut self, node: Node) {
        let (pending_uses, register, free) =
            (&mut self.pending_uses, &self.register, &mut self.free);
        self.pool.for_each_child(node, |child| {
            if let Some(uses) = pending_uses.get_mut(&child) {
                *uses -= 1;
                let r = register[&child];
                if *uses == 0 && r & !INDEX_MASK == TEMPORARY {
                    free.push(r);
                }
            }
        });
    }
}

/// A register index of one kind, if it fits below the kind bits.
fn index(i: usize) -> Result<u32, TapeError> {
    u32::try_from(i)
        .ok()
        .filter(|&i| i <= INDEX_MASK)
        .ok_or(TapeError::TooLarge)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// x, y, z as symbols 0, 1, 2 read from slots 0, 1, 2.
    fn xyz(p: &mut Pool) -> [Node; 3] {
        [0, 1, 2].map(|i| p.symbol(Symbol(i)))
    }

    fn slot(s: Symbol) -> Option<usize> {
        Some(s.0 as usize)
    }

    fn assert_tape_matches_dag(p: &Pool, outputs: &[Node], inputs: &[f64]) {
        let tape = Tape::compile(p, outputs, slot).unwrap();
        let mut got = vec![0.0; outputs.len()];
        let mut workspace = tape.workspace();
        tape.eval(inputs, &mut got, &mut workspace).unwrap();
        let want = p.eval_many(outputs, |s| inputs[s.0 as usize]);
        for ((g, w), n) in got.iter().zip(&want).zip(outputs) {
            assert_eq!(
                g.to_bits(),
                w.to_bits(),
                "{} = {w}, tape gave {g}",
                p.display(*n)
            );
        }
        // Every leading part of the outputs alone, from a fresh workspace.
        for count in 0..outputs.len() {
            let mut leading = vec![0.0; count];
            let mut fresh = tape.workspace();
            tape.eval_leading(inputs, &mut leading, &mut fresh).unwrap();
            let same = leading
                .iter()
                .zip(&want)
                .all(|(g, w)| g.to_bits() == w.to_bits());
            assert!(
                same,
                "the first {count} outputs alone: {leading:?} vs {want:?}"
            );
        }
    }

    #[test]
    fn sums_products_and_functions_match_the_dag_bit_for_bit() {
        let mut p = Pool::new();
        let [x, y, z] = xyz(&mut p);
        let x2 = p.powi(x, 2);
        let y3 = p.powi(y, -3);
        let xy = p.mul(x, y);
        let a = p.linear(0.7, &[(3.0, x2), (-1.0, y3), (1.0, z), (0.25, xy)]);
        let b = p.product_from([(x, 3), (y, -2), (z, -1)]);
        let c = p.product_from([(y, -2), (z, -1)]);
        let d = p.neg(xy);
        let sin = p.sin(a);
        let cond = p.lt(x, y);
        let sel = p.select(cond, sin, b);
        let at = p.atan2(x, z);
        let half = p.constant(0.5);
        let pw = p.pow(z, half);
        let outputs = [a, b, c, d, sel, at, pw, x, half];
        assert_tape_matches_dag(&p, &outputs, &[1.3, -0.4, 2.5]);
        assert_tape_matches_dag(&p, &outputs, &[-0.3, 0.9, 0.0]);
    }

    #[test]
    fn registers_of_dead_values_are_reused() {
        let mut p = Pool::new();
        let [x, _, _] = xyz(&mut p);
        // A chain sin(sin(...sin(x))) needs one live temporary at a time.
        let mut e = x;
        for _ in 0..100 {
            e = p.sin(e);
        }
        let tape = Tape::compile(&p, &[e], slot).unwrap();
        assert_eq!(tape.len(), 100);
        assert!(tape.registers() <= 3, "{} registers", tape.registers());
        assert_tape_matches_dag(&p, &[e], &[0.7]);
    }

    #[test]
    fn only_reachable_nodes_are_compiled_and_inputs_are_sparse() {
        let mut p = Pool::new();
        let [x, y, _] = xyz(&mut p);
        p.cos(y); // built, but not an output
        let used = p.exp(x);
        let tape = Tape::compile(&p, &[used], |s| Some(10 + s.0 as usize)).unwrap();
        assert_eq!(tape.len(), 1);
        assert_eq!(tape.inputs_needed(), 11);
        let mut inputs = vec![f64::NAN; 11];
        inputs[10] = 1.0;
        let mut out = [0.0];
        tape.eval(&inputs, &mut out, &mut Workspace::new()).unwrap();
        assert_eq!(out[0], 1f64.exp());
    }

    #[test]
    fn misuse_is_reported_not_panicked() {
        let mut p = Pool::new();
        let [x, y, _] = xyz(&mut p);
        let e = p.add(x, y);
        let only_x = |s: Symbol| (s == Symbol(0)).then_some(0);
        assert_eq!(
            Tape::compile(&p, &[e], only_x).unwrap_err(),
            TapeError::UnboundSymbol(Symbol(1))
        );
        let tape = Tape::compile(&p, &[e], slot).unwrap();
        let mut ws = Workspace::new();
        assert_eq!(
            tape.eval(&[1.0], &mut [0.0], &mut ws),
            Err(TapeError::TooFewInputs {
                needed: 2,
                given: 1
            })
        );
        assert_eq!(
            tape.eval(&[1.0, 2.0], &mut [0.0, 0.0], &mut ws),
            Err(TapeError::WrongOutputCount {
                expected: 1,
                given: 2
            })
        );
    }

    #[test]
    fn one_workspace_serves_several_tapes() {
        let mut p = Pool::new();
        let [x, y, _] = xyz(&mut p);
        let s = p.add(x, y);
        let two = p.constant(2.0);
        let m = p.mul(s, two);
        let first = Tape::compile(&p, &[s], slot).unwrap();
        let second = Tape::compile(&p, &[m, two], slot).unwrap();
        let mut ws = Workspace::new();
        let mut one = [0.0];
        let mut pair = [0.0; 2];
        first.eval(&[1.0, 2.0], &mut one, &mut ws).unwrap();
        second.eval(&[1.0, 2.0], &mut pair, &mut ws).unwrap();
        first.eval(&[3.0, 4.0], &mut one, &mut ws).unwrap();
        assert_eq!((one, pair), ([7.0], [6.0, 2.0]));
    }
}
