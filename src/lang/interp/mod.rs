//! The interpreter: evaluation of compiled scripts, call frames, limits, and the embedding API.
//!
//! # Embedding
//!
//! ```
//! use asgard::lang::{Interp, Limits, Value, Exception};
//!
//! let mut interp = Interp::new(Limits::default());
//! interp.register("double", |_interp, args| {
//!     let [_, x] = args else { return Err(Exception::error("wrong # args")) };
//!     match x.value.as_float() {
//!         Some(f) => Ok(Value::from(2.0 * f)),
//!         None => Err(Exception::error_at("expected a number", x.span)),
//!     }
//! });
//! assert_eq!(interp.eval_source("double 21").unwrap().as_str(), "42.0");
//! let err = interp.eval_source("set a 1\ndouble x").unwrap_err();
//! assert_eq!(err.diagnostic("s.asg", "set a 1\ndouble x"), "s.asg:2:8: error: expected a number");
//! ```
//!
//! A native command receives its words as [`Arg`]s: the value, the span of the word in the
//! scene text and whether the word was a literal. It may call back into the interpreter:
//! - [`Interp::get_var`] / [`Interp::set_var`]: variables of the frame the command runs in;
//! - [`Interp::substitute_parts`]: substitute parsed word parts in that frame;
//! - [`Interp::eval_value`], [`Interp::eval_expr`], [`Interp::invoke`]: run a script, an
//!   expression, or one command given as words;
//! - [`Interp::parse_expr_arg`]: an argument as an `expr` tree located in the scene text
//!   (for symbolic force expressions);
//! - [`Interp::register`]: define more commands, even while running (a body becomes a
//!   command named after it);
//! - [`Interp::level`], [`Interp::in_proc`], [`Interp::depth`], [`Interp::current_span`]:
//!   where the command is running.
//!
//! Errors it raises with [`Exception::error_at`] point at the given word; those raised with
//! [`Exception::error`] are located at the innermost command running whose text is known.
//! Results leave [`Interp::eval_source`] as [`Error`]s that format as GNU diagnostics.
//!
//! # Limits
//!
//! Every top-level [`Interp::eval_source`] gets a fresh budget of [`Limits`]: commands run,
//! nesting depth, bytes of string and list data created, and wall time. Exceeding one is an
//! error located at the command running, which `catch` cannot stop. Deep recursion in the
//! evaluator and parser runs on a stack grown on demand (`stacker`), so the depth limit, not
//! the thread's stack size, decides how deep scripts may nest.

mod eval;
mod exception;
mod expr;
mod limits;
mod procs;
mod vars;

use eval::outside_loop;
pub use exception::{wrong_args, ErrorState, Exception, ReturnState};
pub use exception::{CODE_BREAK, CODE_CONTINUE, CODE_ERROR, CODE_OK, CODE_RETURN};
pub(super) use procs::Proc;
pub(super) use vars::split_name;

use super::ast::{self, Part};
use super::budget;
use super::code::{compile_parts, compile_script, Code};
use super::error::Error;
use super::fxhash::FxHashMap;
use super::parse::{parse_commands, parse_expr_with_depth, parse_subst, SubstFlags};
use super::span::Span;
use super::value::Value;
use std::io::Write;
use std::rc::Rc;
use std::time::Duration;
use vars::Frame;

/// Resource limits for one top-level evaluation.
#[derive(Clone, Debug, PartialEq)]
pub struct Limits {
    /// Commands executed (every command, including those inside loops and procs).
    pub max_commands: u64,
    /// Nesting of script evaluations: proc calls, bodies, `eval`, `[...]`; also the nesting
    /// the parser accepts.
    pub max_depth: usize,
    /// Bytes of string and list data created by the script, in total.
    pub max_memory: usize,
    pub max_wall: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_commands: 10_000_000,
            max_depth: 1000,
            max_memory: 256 << 20,
            max_wall: Duration::from_secs(10),
        }
    }
}

/// One argument of a command: its value, the span of the word it came from, and whether that
/// word was a literal (braced, or plain text without substitutions). Words expanded with `{*}`
/// give arguments spanning the whole word, not literal. `args[0]` is the command name.
#[derive(Clone, Debug)]
pub struct Arg {
    pub value: Value,
    pub span: Span,
    pub literal: bool,
}

impl Arg {
    pub fn new(value: Value, span: Span, literal: bool) -> Arg {
        Arg {
            value,
            span,
            literal,
        }
    }
}

/// A command implemented in Rust.
pub type NativeFn = Rc<dyn Fn(&mut Interp, &[Arg]) -> Result<Value, Exception>>;

/// What a command name is bound to.
#[derive(Clone)]
pub(super) enum Command {
    Native(NativeFn),
    Proc(Rc<Proc>),
}

/// Where `puts` writes.
pub enum Output {
    /// Collected in the interpreter's log ([`Interp::log`]), e.g. the scene's message log.
    Log,
    /// The process's standard output (`asgard eval`).
    Stdout,
    /// Handed to a function, one `puts` at a time (text including any newline).
    Callback(Box<dyn FnMut(&str)>),
}

/// Beyond this many bytes of stack left, the evaluator grows the stack before recursing.
const STACK_RED_ZONE: usize = 128 * 1024;
/// The size of each stack segment added when it is grown.
const STACK_SEGMENT: usize = 2 * 1024 * 1024;
/// Wall time is checked every this many commands.
const WALL_CHECK_INTERVAL: u64 = 1024;

/// A sandboxed interpreter of the scene language.
pub struct Interp {
    limits: Limits,
    commands: FxHashMap<Rc<str>, Command>,
    frames: Vec<Frame>,
    /// The frame commands run in now (not always the top one: `uplevel`).
    current: usize,
    depth: usize,
    commands_run: u64,
    /// The first limit hit in this evaluation; every later command fails with it too.
    limit_hit: Option<String>,
    /// The innermost command running whose position in the scene text is known.
    anchor: Span,
    output: Output,
    log: String,
    /// Emptied argument vectors kept for reuse, one per nesting level in use, so running a
    /// command does not allocate one.
    arg_buffers: Vec<Vec<Arg>>,
}

impl Interp {
    /// An interpreter with the built-in commands and an empty global frame; `puts` writes to
    /// the log.
    pub fn new(limits: Limits) -> Interp {
        let mut interp = Interp {
            limits,
            commands: FxHashMap::default(),
            frames: vec![Frame::new(0, 0, Value::empty())],
            current: 0,
            depth: 0,
            commands_run: 0,
            limit_hit: None,
            anchor: Span::default(),
            output: Output::Log,
            log: String::new(),
            arg_buffers: Vec::new(),
        };
        super::cmds::register_builtins(&mut interp);
        interp
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Evaluates a whole scene text; every span in errors and arguments refers to `text`.
    /// Commands are parsed and run one at a time, as tclsh runs a file, so a syntax error
    /// stops the evaluation where it is. Starts a fresh budget of limits unless called from
    /// inside a running evaluation.
    pub fn eval_source(&mut self, text: &str) -> Result<Value, Error> {
        let source: Rc<str> = Rc::from(text);
        if self.depth > 0 {
            return self.eval_commands(text, source);
        }
        self.commands_run = 0;
        self.limit_hit = None;
        self.anchor = Span::default();
        let outer = self.start_budget();
        let result = self.eval_commands(text, source);
        budget::install(outer);
        result
    }

    /// [`Interp::eval_source`]'s loop: parse one command, run it, until the text ends.
    fn eval_commands(&mut self, text: &str, source: Rc<str>) -> Result<Value, Error> {
        let max_depth = self.limits.max_depth;
        let mut commands = parse_commands(text, 0, max_depth);
        let result = (|| {
            let mut last = Value::empty();
            loop {
                let parsed = stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || commands.next());
                let Some(parsed) = parsed else { break };
                let command = parsed.map_err(|e| self.parse_failed(e, true))?;
                let span = command.span;
                let script = ast::Script {
                    span,
                    commands: vec![command],
                };
                let code = compile_script(script, source.clone(), 0, true);
                last = match self.run_command(&code, &code.commands[0]) {
                    Ok(v) => v,
                    Err(Exception::Return(r)) => return Ok(r.value),
                    Err(e @ (Exception::Break | Exception::Continue)) => {
                        return Err(outside_loop(&e, span))
                    }
                    Err(e) => return Err(e),
                };
            }
            Ok(last)
        })();
        result.map_err(|e| self.to_error(e))
    }

    /// The located form of an exception that escaped to the top.
    fn to_error(&self, e: Exception) -> Error {
        match e {
            Exception::Error(state) => Error {
                message: state.message.as_str().to_string(),
                span: state.span.unwrap_or(self.anchor),
                trail: state.trail,
            },
            other => Error::new(other.value().as_str(), self.anchor),
        }
    }

    /// Binds `name` to a native command, replacing any command of that name. May be called at
    /// any time, including from inside a running command.
    pub fn register<F>(&mut self, name: &str, f: F)
    where
        F: Fn(&mut Interp, &[Arg]) -> Result<Value, Exception> + 'static,
    {
        self.commands
            .insert(Rc::from(name), Command::Native(Rc::new(f)));
    }

    pub fn has_command(&self, name: &str) -> bool {
        self.commands.contains_key(name)
    }

    pub(super) fn command(&self, name: &str) -> Option<&Command> {
        self.commands.get(name)
    }

    pub(super) fn define(&mut self, name: &str, command: Command) {
        self.commands.insert(Rc::from(name), command);
    }

    pub(super) fn command_names(&self) -> impl Iterator<Item = (&str, &Command)> {
        self.commands.iter().map(|(k, v)| (&**k, v))
    }

    // ----- output -----

    /// Chooses where `puts` writes.
    pub fn set_output(&mut self, output: Output) {
        self.output = output;
    }

    /// What `puts` has written while the output is [`Output::Log`].
    pub fn log(&self) -> &str {
        &self.log
    }

    /// Takes the log, leaving it empty.
    pub fn take_log(&mut self) -> String {
        std::mem::take(&mut self.log)
    }

    pub(super) fn write_output(&mut self, text: &str) {
        match &mut self.output {
            Output::Log => self.log.push_str(text),
            Output::Stdout => {
                let mut out = std::io::stdout().lock();
                let _ = out.write_all(text.as_bytes());
                let _ = out.flush();
            }
            Output::Callback(f) => f(text),
        }
    }

    // ----- state a native command may ask about -----

    /// The number of proc calls between the global level and the current frame (`info level`).
    pub fn level(&self) -> usize {
        self.frames[self.current].level
    }

    /// Whether the running command was called from inside a proc.
    pub fn in_proc(&self) -> bool {
        self.level() > 0
    }

    /// How deeply script evaluations are nested now.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// The span of the innermost running command whose place in the text is known.
    pub fn current_span(&self) -> Span {
        self.anchor
    }

    /// Reads a variable of the current frame (`name` may be `a(i)` or `::name`).
    pub fn get_var(&self, name: &str) -> Result<Value, Exception> {
        let (name, index) = split_name(name);
        self.read_var(name, index)
    }

    /// Sets a variable of the current frame (`name` may be `a(i)` or `::name`).
    pub fn set_var(&mut self, name: &str, value: Value) -> Result<Value, Exception> {
        let (name, index) = split_name(name);
        self.write_var(name, index, value)
    }

    /// Substitutes parsed parts (variables, commands, backslash text) in the current frame,
    /// as if they formed one word. Their spans are taken to be positions in the scene text.
    pub fn substitute_parts(&mut self, parts: &[Part]) -> Result<Value, Exception> {
        self.substitute(parts.to_vec(), Rc::from(""), 0, true)
    }

    fn substitute(
        &mut self,
        parts: Vec<Part>,
        source: Rc<str>,
        base: usize,
        located: bool,
    ) -> Result<Value, Exception> {
        let subst = compile_parts(parts, source.clone(), base, located);
        let context = Code {
            source,
            base,
            located,
            commands: Vec::new(),
        };
        self.subst(&subst, &context)
    }

    /// `subst`: performs the substitutions `flags` allows on a value's text.
    pub(super) fn subst_text(&mut self, v: &Value, flags: SubstFlags) -> Result<Value, Exception> {
        let text = v.as_str();
        let (base, located) = v.origin().map_or((0, false), |o| (o.start, true));
        let parts = parse_subst(text, base, self.limits.max_depth, flags)
            .map_err(|e| self.parse_failed(e, located))?;
        self.substitute(parts, Rc::from(text), base, located)
    }

    /// Evaluates a value as a script in the current frame. A value that is a literal of the
    /// scene text is located there.
    pub fn eval_value(&mut self, script: &Value) -> Result<Value, Exception> {
        let code = self.script_code(script)?;
        self.eval_code(&code)
    }

    /// Evaluates a value as an `expr` expression in the current frame.
    pub fn eval_expr(&mut self, expression: &Value) -> Result<Value, Exception> {
        let e = self.expr_code(expression)?;
        self.eval_cexpr_depth(&e)
    }

    /// Parses an argument as an expression tree (for symbolic use). When the argument is an
    /// unmodified literal of the scene text its spans are positions in that text; otherwise
    /// they count from the start of the argument's own text.
    pub fn parse_expr_arg(&self, arg: &Arg) -> Result<ast::Expr, Exception> {
        let base = arg.value.origin().map_or(0, |o| o.start);
        parse_expr_with_depth(arg.value.as_str(), base, self.limits.max_depth).map_err(|e| {
            let span = if arg.value.origin().is_some() {
                e.span
            } else {
                arg.span
            };
            Exception::error_at(e.message, span)
        })
    }

    /// Runs a command given as words (`args[0]` names it).
    pub fn invoke(&mut self, args: &[Arg]) -> Result<Value, Exception> {
        self.count_command()?;
        let Some(first) = args.first() else {
            return Ok(Value::empty());
        };
        let command = match self.commands.get(first.value.as_str()) {
            Some(c) => c.clone(),
            None => {
                return Err(Exception::error(format!(
                    "invalid command name \"{}\"",
                    first.value
                )))
            }
        };
        let result = match command {
            Command::Native(f) => f(self, args),
            Command::Proc(p) => self.call_proc(&p, args),
        };
        // A built-in that stopped early because memory or time ran out (the glob matcher,
        // list conversion) returns a short answer; the limit is the command's real outcome.
        match self.exhausted_error() {
            Some(limit) => Err(limit),
            None => result,
        }
    }
}

#[cfg(test)]
mod tests;
