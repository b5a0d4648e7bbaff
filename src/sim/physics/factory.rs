//! Compiling a component's equations: one tape per component computing its derivatives and
//! their Jacobian in one pass.
//!
//! The tape reads, in this order: time, the component's own variables, the other components'
//! variables it reads (the scheduler interpolates them), the trajectory values it reads
//! (computed from the curves at the evaluation time) and the external inputs it reads (their
//! current values). Small components declare a dense
//! Jacobian; larger ones the list of structurally non-zero entries, which the simulator
//! factors with a sparse LU.

use super::bodies::Bodies;
use super::interaction::InteractionInputs;
use super::symbols::{state, Channel, Meaning, SymbolTable};
use super::trajectory::Curves;
use super::work::Evaluation;
use crate::sim::{
    ComponentEquations, ComponentSpec, EquationFactory, JacobianPattern, JacobianSink, VarId,
};
use crate::sym::{Node, Pool, Symbol, Tape, Workspace};

/// Components up to this many variables get a dense Jacobian.
const DENSE_LIMIT: usize = 16;

/// The [`EquationFactory`] of a compiled scene: every variable's right-hand side as a node of
/// one pool, compiled per component on demand.
///
/// A component's equations are copied into a pool of their own to be differentiated and
/// compiled, which is then dropped: the scene's pool keeps only the equations, not the
/// derivatives of every component (for ten thousand bodies that halves the memory), and
/// building needs no lock.
pub(crate) struct TapeFactory {
    pub pool: Pool,
    /// Per state variable, its right-hand side in `pool`.
    pub rhs: Vec<Node>,
    /// First integrals: the variables (sorted) whose equations keep each, and the quantity.
    pub first_integrals: Vec<(Vec<VarId>, Node)>,
    pub symbols: SymbolTable,
    pub curves: Curves,
    pub inputs: InteractionInputs,
}

impl TapeFactory {
    pub fn new(
        pool: Pool,
        rhs: Vec<Node>,
        first_integrals: Vec<(Vec<VarId>, Node)>,
        symbols: SymbolTable,
        curves: Curves,
        inputs: InteractionInputs,
    ) -> TapeFactory {
        TapeFactory {
            pool,
            rhs,
            first_integrals,
            symbols,
            curves,
            inputs,
        }
    }

    /// The first integral of exactly the variables `own`, if there is one, compiled with its
    /// gradient (its value, then one derivative per own variable) over the tape slots of the
    /// component's equations.
    fn first_integral(
        &self,
        pool: &mut Pool,
        own: &[VarId],
        slot_of: impl Fn(Symbol) -> Option<usize>,
    ) -> Result<Option<Tape>, String> {
        let mut sorted = own.to_vec();
        sorted.sort_unstable();
        let Some(&(_, node)) = self.first_integrals.iter().find(|(v, _)| *v == sorted) else {
            return Ok(None);
        };
        let value = pool.import(&self.pool, &[node])[0];
        let own_symbols: Vec<Symbol> = own.iter().map(|&v| state(v)).collect();
        let mut outputs = vec![Pool::ZERO; 1 + own.len()];
        outputs[0] = value;
        for entry in pool.jacobian(&[value], &own_symbols) {
            outputs[1 + entry.column] = entry.value;
        }
        Tape::compile(pool, &outputs, slot_of)
            .map(Some)
            .map_err(|e| e.to_string())
    }
}

impl TapeFactory {
    /// What the energy ledger needs to evaluate the scene's loads, for `bodies` and `slots`
    /// (by slot, the moving body holding it): each variable's body is read from the slots.
    pub fn evaluation<'a>(
        &'a self,
        bodies: &'a Bodies,
        slots: &'a [Option<usize>],
    ) -> Evaluation<'a> {
        Evaluation {
            pool: &self.pool,
            symbols: &self.symbols,
            curves: &self.curves,
            inputs: &self.inputs,
            bodies,
            slots,
        }
    }
}

impl EquationFactory for TapeFactory {
    fn build(&self, spec: &ComponentSpec<'_>) -> Result<Box<dyn ComponentEquations>, String> {
        let n = spec.own.len();
        let equations: Vec<Node> = spec.own.iter().map(|v| self.rhs[v.index()]).collect();
        let mut pool = Pool::new();
        let mut outputs = pool.import(&self.pool, &equations);
        let own_symbols: Vec<Symbol> = spec.own.iter().map(|&v| state(v)).collect();
        let jacobian = pool.jacobian(&outputs, &own_symbols);
        outputs.extend(jacobian.iter().map(|e| e.value));

        // Tape slots: time, own variables, inputs, then the channels the equations read, then
        // the external inputs.
        let mut slots: Vec<(Symbol, usize)> = spec
            .own
            .iter()
            .chain(spec.inputs)
            .enumerate()
            .map(|(k, &v)| (state(v), 1 + k))
            .collect();
        let first_channel = 1 + n + spec.inputs.len();
        let mut channels: Vec<Channel> = Vec::new();
        let mut external: Vec<(Symbol, usize)> = Vec::new();
        for &node in &outputs[..n] {
            for &symbol in pool.symbols(node) {
                match self.symbols.meaning(symbol) {
                    Meaning::Channel(k) if !slots.iter().any(|&(s, _)| s == symbol) => {
                        slots.push((symbol, first_channel + channels.len()));
                        channels.push(self.symbols.channels()[k]);
                    }
                    Meaning::Input(k) if !external.iter().any(|&(s, _)| s == symbol) => {
                        external.push((symbol, k));
                    }
                    _ => {}
                }
            }
        }
        let first_external = first_channel + channels.len();
        for (j, &(symbol, _)) in external.iter().enumerate() {
            slots.push((symbol, first_external + j));
        }
        slots.sort_unstable();
        let slot_of = |symbol: Symbol| match self.symbols.meaning(symbol) {
            Meaning::Time => Some(0),
            _ => slots
                .binary_search_by_key(&symbol, |&(s, _)| s)
                .ok()
                .map(|i| slots[i].1),
        };
        let tape = Tape::compile(&pool, &outputs, slot_of).map_err(|e| e.to_string())?;
        let integral = self
            .first_integral(&mut pool, spec.own, slot_of)?
            .map(|tape| FirstIntegral {
                workspace: tape.workspace(),
                values: vec![0.0; tape.outputs()],
                tape,
            });

        let dense = n <= DENSE_LIMIT;
        let positions = jacobian
            .iter()
            .enumerate()
            .map(|(k, e)| if dense { e.row * n + e.column } else { k })
            .collect();
        let pattern = if dense {
            JacobianPattern::Dense
        } else {
            JacobianPattern::Sparse(
                jacobian
                    .iter()
                    .map(|e| (e.row as u32, e.column as u32))
                    .collect(),
            )
        };
        Ok(Box::new(CompiledComponent {
            workspace: tape.workspace(),
            values: vec![0.0; tape.outputs()],
            arguments: vec![0.0; first_external + external.len()],
            tape,
            own: n,
            positions,
            pattern,
            channels,
            curves: self.curves.clone(),
            external: external.into_iter().map(|(_, k)| k).collect(),
            inputs: self.inputs.clone(),
            integral,
        }))
    }
}

/// A component's first integral compiled with its gradient.
struct FirstIntegral {
    tape: Tape,
    workspace: Workspace,
    /// The value, then the gradient.
    values: Vec<f64>,
}

/// One component's compiled equations.
struct CompiledComponent {
    tape: Tape,
    workspace: Workspace,
    /// The tape's inputs: time, own, inputs, channels, external inputs.
    arguments: Vec<f64>,
    /// The tape's outputs: derivatives, then Jacobian entries.
    values: Vec<f64>,
    own: usize,
    /// Where each Jacobian entry goes in the declared layout.
    positions: Vec<usize>,
    pattern: JacobianPattern,
    channels: Vec<Channel>,
    curves: Curves,
    /// The external inputs read, by index into `inputs`.
    external: Vec<usize>,
    inputs: InteractionInputs,
    integral: Option<FirstIntegral>,
}

impl ComponentEquations for CompiledComponent {
    fn jacobian_pattern(&self) -> JacobianPattern {
        self.pattern.clone()
    }

    fn eval(
        &mut self,
        t: f64,
        own: &[f64],
        inputs: &[f64],
        f: &mut [f64],
        jacobian: &mut JacobianSink<'_>,
    ) {
        let n = self.own;
        self.arguments[0] = t;
        self.arguments[1..1 + n].copy_from_slice(own);
        let first_channel = 1 + n + inputs.len();
        self.arguments[1 + n..first_channel].copy_from_slice(inputs);
        let first_external = first_channel + self.channels.len();
        self.curves.channel_values(
            &self.channels,
            t,
            &mut self.arguments[first_channel..first_external],
        );
        for (argument, &k) in self.arguments[first_external..]
            .iter_mut()
            .zip(&self.external)
        {
            *argument = self.inputs.get(k);
        }
        // Without the Jacobian only the derivatives are computed: the tape holds them first.
        let wanted = if jacobian.is_wanted() {
            &mut self.values[..]
        } else {
            &mut self.values[..n]
        };
        if self
            .tape
            .eval_leading(&self.arguments, wanted, &mut self.workspace)
            .is_err()
        {
            // The sizes are fixed when the tape is built, so this cannot happen; if it did,
            // the integrator reports the non-finite derivatives.
            f.fill(f64::NAN);
            return;
        }
        f.copy_from_slice(&self.values[..n]);
        if let Some(storage) = jacobian.values() {
            for (&p, &v) in self.positions.iter().zip(&self.values[n..]) {
                storage[p] = v;
            }
        }
    }

    fn first_integral(
        &mut self,
        t: f64,
        own: &[f64],
        inputs: &[f64],
        gradient: &mut [f64],
    ) -> Option<f64> {
        let integral = self.integral.as_mut()?;
        let n = self.own;
        self.arguments[0] = t;
        self.arguments[1..1 + n].copy_from_slice(own);
        self.arguments[1 + n..1 + n + inputs.len()].copy_from_slice(inputs);
        let arguments = &self.arguments;
        let values = &mut integral.values;
        integral
            .tape
            .eval(arguments, values, &mut integral.workspace)
            .ok()?;
        gradient.copy_from_slice(&values[1..]);
        Some(values[0])
    }
}
