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
//! scene text and whether the word was a literal. It may call back into the interpreter (read
//! variables, evaluate scripts, register more commands). Errors it raises without a span are
//! located at the innermost command running whose text is known.
//!
//! # Limits
//!
//! Every top-level [`Interp::eval_source`] gets a fresh budget of [`Limits`]: commands run,
//! nesting depth, bytes of string and list data created, and wall time. Exceeding one is an
//! error located at the command running, which `catch` cannot stop. Deep recursion in the
//! evaluator and parser runs on a stack grown on demand (`stacker`), so the depth limit, not
//! the thread's stack size, decides how deep scripts may nest.

mod exception;
mod expr;
mod vars;

pub use exception::{wrong_args, ErrorState, Exception, ReturnState};
pub use exception::{CODE_BREAK, CODE_CONTINUE, CODE_ERROR, CODE_OK, CODE_RETURN};
pub(super) use vars::split_name;

use super::ast::{self, Part};
use super::code::{
    compile_expr, compile_parts, compile_script, CPart, Code, Compiled, ExprCode, Subst, VarRef,
};
use super::error::Error;
use super::fxhash::FxHashMap;
use super::parse::{
    parse_commands, parse_expr_with_depth, parse_script_with_depth, parse_subst, SubstFlags,
};
use super::span::Span;
use super::value::Value;
use std::io::Write;
use std::rc::Rc;
use std::time::{Duration, Instant};
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

/// A procedure defined with `proc`.
pub(super) struct Proc {
    pub name: Rc<str>,
    pub params: Vec<Param>,
    /// The last parameter is `args`, collecting the remaining arguments.
    pub variadic: bool,
    pub body: Value,
}

pub(super) struct Param {
    pub name: Rc<str>,
    pub default: Option<Value>,
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
    memory: usize,
    started: Instant,
    /// The first limit hit in this evaluation; every later command fails with it too.
    limit_hit: Option<String>,
    /// The innermost command running whose position in the scene text is known.
    anchor: Span,
    output: Output,
    log: String,
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
            memory: 0,
            started: Instant::now(),
            limit_hit: None,
            anchor: Span::default(),
            output: Output::Log,
            log: String::new(),
        };
        super::cmds::register_builtins(&mut interp);
        interp
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    pub fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
    }

    /// Evaluates a whole scene text; every span in errors and arguments refers to `text`.
    /// Commands are parsed and run one at a time, as tclsh runs a file, so a syntax error
    /// stops the evaluation where it is. Starts a fresh budget of limits unless called from
    /// inside a running evaluation.
    pub fn eval_source(&mut self, text: &str) -> Result<Value, Error> {
        if self.depth == 0 {
            self.commands_run = 0;
            self.memory = 0;
            self.started = Instant::now();
            self.limit_hit = None;
            self.anchor = Span::default();
        }
        let source: Rc<str> = Rc::from(text);
        let max_depth = self.limits.max_depth;
        let mut commands = parse_commands(text, 0, max_depth);
        let result = (|| {
            let mut last = Value::empty();
            loop {
                let parsed = stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || commands.next());
                let Some(parsed) = parsed else { break };
                let command = parsed.map_err(|e| located_error(e, true))?;
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

    /// Binds `name` to an already shared native command.
    pub fn register_native(&mut self, name: &str, f: NativeFn) {
        self.commands.insert(Rc::from(name), Command::Native(f));
    }

    pub fn has_command(&self, name: &str) -> bool {
        self.commands.contains_key(name)
    }

    /// Removes a command; true if it existed.
    pub fn remove_command(&mut self, name: &str) -> bool {
        self.commands.remove(name).is_some()
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
            .map_err(|e| located_error(e, located))?;
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
        match command {
            Command::Native(f) => f(self, args),
            Command::Proc(p) => self.call_proc(&p, args),
        }
    }

    /// Runs a command given as plain values; the arguments are located at the running command.
    pub fn eval_words(&mut self, words: &[Value]) -> Result<Value, Exception> {
        let args: Vec<Arg> = words
            .iter()
            .map(|w| Arg::new(w.clone(), self.anchor, false))
            .collect();
        self.invoke(&args)
    }

    // ----- limits -----

    /// Counts one command against the limits (also used for loop iterations, so that an empty
    /// loop body still uses up the budget).
    pub(super) fn count_command(&mut self) -> Result<(), Exception> {
        if let Some(message) = &self.limit_hit {
            return Err(Exception::limit(message.clone()));
        }
        self.commands_run += 1;
        if self.commands_run > self.limits.max_commands {
            return self.hit_limit(format!(
                "command limit exceeded ({} commands)",
                self.limits.max_commands
            ));
        }
        if self.commands_run % WALL_CHECK_INTERVAL == 0
            && self.started.elapsed() > self.limits.max_wall
        {
            return self.hit_limit(format!(
                "time limit exceeded ({:.3} s)",
                self.limits.max_wall.as_secs_f64()
            ));
        }
        Ok(())
    }

    fn hit_limit(&mut self, message: String) -> Result<(), Exception> {
        self.limit_hit = Some(message.clone());
        Err(Exception::limit(message))
    }

    /// Accounts for `bytes` of newly created string or list data.
    pub fn charge(&mut self, bytes: usize) -> Result<(), Exception> {
        self.memory = self.memory.saturating_add(bytes);
        if self.memory > self.limits.max_memory {
            return self.hit_limit(format!(
                "memory limit exceeded ({} bytes of string and list data)",
                self.limits.max_memory
            ));
        }
        Ok(())
    }

    /// Checks that `bytes` more could be created, before creating them.
    pub fn check_memory(&mut self, bytes: usize) -> Result<(), Exception> {
        if self.memory.saturating_add(bytes) > self.limits.max_memory {
            return self.charge(bytes);
        }
        Ok(())
    }

    fn enter(&mut self) -> Result<(), Exception> {
        if self.depth >= self.limits.max_depth {
            return Err(Exception::limit(format!(
                "too many nested evaluations (limit {})",
                self.limits.max_depth
            )));
        }
        self.depth += 1;
        Ok(())
    }

    // ----- evaluation -----

    /// The compiled script of a value, parsing and caching it on first use.
    pub(super) fn script_code(&mut self, v: &Value) -> Result<Rc<Code>, Exception> {
        if let Some(Compiled::Script(code)) = v.compiled().get() {
            return Ok(code.clone());
        }
        let text = v.as_str();
        let (base, located) = v.origin().map_or((0, false), |o| (o.start, true));
        let max_depth = self.limits.max_depth;
        let parsed = stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || {
            parse_script_with_depth(text, base, max_depth)
        });
        let ast = parsed.map_err(|e| located_error(e, located))?;
        let code = Rc::new(compile_script(ast, Rc::from(text), base, located));
        let _ = v.compiled().set(Compiled::Script(code.clone()));
        Ok(code)
    }

    /// The compiled expression of a value, parsing and caching it on first use.
    pub(super) fn expr_code(&mut self, v: &Value) -> Result<Rc<ExprCode>, Exception> {
        if let Some(Compiled::Expr(e)) = v.compiled().get() {
            return Ok(e.clone());
        }
        let text = v.as_str();
        let (base, located) = v.origin().map_or((0, false), |o| (o.start, true));
        let max_depth = self.limits.max_depth;
        let parsed = stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || {
            parse_expr_with_depth(text, base, max_depth)
        });
        let ast = parsed.map_err(|e| located_error(e, located))?;
        let e = Rc::new(compile_expr(ast, Rc::from(text), base, located));
        let _ = v.compiled().set(Compiled::Expr(e.clone()));
        Ok(e)
    }

    /// Runs a compiled script, one level deeper.
    pub(super) fn eval_code(&mut self, code: &Code) -> Result<Value, Exception> {
        self.enter()?;
        let result = stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || {
            let mut last = Value::empty();
            for command in &code.commands {
                last = self.run_command(code, command)?;
            }
            Ok(last)
        });
        self.depth -= 1;
        result
    }

    /// Evaluates an expression one level deeper (expressions nest through `[expr ...]`).
    pub(super) fn eval_cexpr_depth(&mut self, e: &ExprCode) -> Result<Value, Exception> {
        self.enter()?;
        let result = stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || self.eval_cexpr(e));
        self.depth -= 1;
        result
    }

    fn run_command(
        &mut self,
        code: &Code,
        command: &super::code::CCommand,
    ) -> Result<Value, Exception> {
        let span = if code.located {
            command.span
        } else {
            self.anchor
        };
        let saved = self.anchor;
        self.anchor = span;
        let result = self
            .words(code, command)
            .and_then(|args| self.invoke(&args));
        self.anchor = saved;
        result.map_err(|e| annotate(e, code, command.span, span))
    }

    /// The arguments of a command: its words substituted and `{*}` words expanded.
    fn words(
        &mut self,
        code: &Code,
        command: &super::code::CCommand,
    ) -> Result<Vec<Arg>, Exception> {
        let mut args = Vec::with_capacity(command.words.len());
        for word in &command.words {
            let span = if code.located { word.span } else { self.anchor };
            let value = self.subst(&word.subst, code)?;
            if word.expand {
                let items = value
                    .as_list()
                    .map_err(|m| Exception::error_at(m.to_string(), span))?;
                args.extend(items.iter().map(|v| Arg::new(v.clone(), span, false)));
            } else {
                args.push(Arg::new(value, span, word.literal));
            }
        }
        Ok(args)
    }

    pub(super) fn subst(&mut self, s: &Subst, code: &Code) -> Result<Value, Exception> {
        match s {
            Subst::Const(v) => Ok(v.clone()),
            Subst::One(part) => self.part_value(part, code),
            Subst::Concat(parts) => {
                let mut out = String::new();
                for part in parts {
                    match part {
                        CPart::Text(t) => out.push_str(t),
                        other => {
                            let v = self.part_value(other, code)?;
                            out.push_str(v.as_str());
                        }
                    }
                }
                self.charge(out.len())?;
                Ok(Value::from(out))
            }
        }
    }

    fn part_value(&mut self, part: &CPart, code: &Code) -> Result<Value, Exception> {
        match part {
            CPart::Text(t) => Ok(Value::from(&**t)),
            CPart::Var(v) => self.var_ref(v, code),
            CPart::Script(script) => self.eval_code(script),
        }
    }

    fn var_ref(&mut self, v: &VarRef, code: &Code) -> Result<Value, Exception> {
        let index = match &v.index {
            Some(s) => Some(self.subst(s, code)?),
            None => None,
        };
        self.read_var(&v.name, index.as_ref().map(Value::as_str))
            .map_err(|e| match e {
                Exception::Error(mut state) if code.located => {
                    state.span = Some(v.span);
                    Exception::Error(state)
                }
                other => other,
            })
    }

    fn call_proc(&mut self, p: &Proc, args: &[Arg]) -> Result<Value, Exception> {
        let given = &args[1..];
        let required =
            p.params.iter().filter(|q| q.default.is_none()).count() - usize::from(p.variadic);
        let fixed = p.params.len() - usize::from(p.variadic);
        if given.len() < required || (!p.variadic && given.len() > fixed) {
            return Err(Exception::error(format!(
                "wrong # args: should be \"{}\"",
                proc_usage(p)
            )));
        }
        let call = Value::from_list(args.iter().map(|a| a.value.clone()).collect());
        let level = self.frames[self.current].level + 1;
        let mut frame = Frame::new(level, self.current, call);
        for (i, param) in p.params.iter().enumerate() {
            let value = if p.variadic && i == p.params.len() - 1 {
                let rest = given.get(i..).unwrap_or(&[]);
                Value::from_list(rest.iter().map(|a| a.value.clone()).collect())
            } else {
                match given.get(i) {
                    Some(a) => a.value.clone(),
                    None => param.default.clone().expect("arity checked"),
                }
            };
            frame
                .vars
                .insert(param.name.clone(), vars::Var::Scalar(value));
        }
        let code = self.script_code(&p.body)?;
        self.frames.push(frame);
        let saved = std::mem::replace(&mut self.current, self.frames.len() - 1);
        let result = self.eval_code(&code);
        self.current = saved;
        self.frames.pop();
        match result {
            Ok(v) => Ok(v),
            Err(Exception::Return(r)) => return_from_proc(*r),
            Err(e @ (Exception::Break | Exception::Continue)) => Err(outside_loop(&e, self.anchor)),
            Err(Exception::Error(mut state)) => {
                state.trail.push_str(&format!(
                    "\n    (procedure \"{}\" line {})",
                    p.name, state.line
                ));
                Err(Exception::Error(state))
            }
        }
    }

    /// Runs `f` with the current frame set to `frame` (for `uplevel`).
    pub(super) fn in_frame<T>(&mut self, frame: usize, f: impl FnOnce(&mut Interp) -> T) -> T {
        let saved = std::mem::replace(&mut self.current, frame);
        let result = f(self);
        self.current = saved;
        result
    }

    /// The frame `level` designates from the current one: `N` levels up, or `#N` absolute.
    pub(super) fn frame_at(&self, level: &str) -> Option<usize> {
        let current_level = self.frames[self.current].level;
        let target = match level.strip_prefix('#') {
            Some(abs) => abs.parse::<usize>().ok()?,
            None => current_level.checked_sub(level.parse::<usize>().ok()?)?,
        };
        if target > current_level {
            return None;
        }
        let mut frame = self.current;
        while self.frames[frame].level > target {
            frame = self.frames[frame].parent;
        }
        Some(frame)
    }

    /// Defines (or redefines) a proc from `proc`'s arguments.
    pub(super) fn define_proc(
        &mut self,
        name: &Value,
        params: &Value,
        body: Value,
    ) -> Result<(), Exception> {
        let specs = params
            .as_list()
            .map_err(|m| Exception::error(m.to_string()))?;
        let mut list = Vec::with_capacity(specs.len());
        for spec in specs {
            let fields = spec
                .as_list()
                .map_err(|m| Exception::error(m.to_string()))?;
            match fields {
                [] => return Err(Exception::error("argument with no name")),
                [name] => list.push(Param {
                    name: Rc::from(name.as_str()),
                    default: None,
                }),
                [name, default] => list.push(Param {
                    name: Rc::from(name.as_str()),
                    default: Some(default.clone()),
                }),
                _ => {
                    return Err(Exception::error(format!(
                        "too many fields in argument specifier \"{spec}\""
                    )))
                }
            }
        }
        let variadic = list.last().is_some_and(|p| &*p.name == "args");
        let name = name.as_str();
        let name = name.strip_prefix("::").unwrap_or(name);
        let proc = Proc {
            name: Rc::from(name),
            params: list,
            variadic,
            body,
        };
        self.define(name, Command::Proc(Rc::new(proc)));
        Ok(())
    }

    pub(super) fn frame_level(&self, frame: usize) -> usize {
        self.frames[frame].level
    }

    pub(super) fn frame_call(&self, frame: usize) -> Value {
        self.frames[frame].call.clone()
    }
}

/// A parse error in a script or expression being evaluated: at its own span when the text is
/// located, else at the running command.
fn located_error(e: Error, located: bool) -> Exception {
    if located {
        Exception::error_at(e.message, e.span)
    } else {
        Exception::error(e.message)
    }
}

/// What a `return` in a proc body makes of the proc call.
fn return_from_proc(r: ReturnState) -> Result<Value, Exception> {
    if r.level == 0 {
        // A completion with a code of the caller's own (`return -code 7` one level down):
        // it passes through the proc unchanged.
        return Err(Exception::Return(Box::new(r)));
    }
    if r.level > 1 {
        return Err(Exception::Return(Box::new(ReturnState {
            level: r.level - 1,
            ..r
        })));
    }
    match r.code {
        CODE_OK => Ok(r.value),
        CODE_ERROR => {
            let mut e = Exception::error_value(r.value, None);
            if let Exception::Error(state) = &mut e {
                if let Some(info) = r.error_info {
                    state.set_trail(info.as_str());
                }
                if let Some(code) = r.error_code {
                    state.code = code;
                }
            }
            Err(e)
        }
        CODE_BREAK => Err(Exception::Break),
        CODE_CONTINUE => Err(Exception::Continue),
        _ => Err(Exception::Return(Box::new(ReturnState { level: 0, ..r }))),
    }
}

fn outside_loop(e: &Exception, span: Span) -> Exception {
    let which = if matches!(e, Exception::Break) {
        "break"
    } else {
        "continue"
    };
    Exception::error_at(format!("invoked \"{which}\" outside of a loop"), span)
}

/// Adds the command an error passed through to its location and trail.
fn annotate(e: Exception, code: &Code, command: Span, located: Span) -> Exception {
    let Exception::Error(mut state) = e else {
        return e;
    };
    if state.span.is_none() {
        state.span = Some(located);
    }
    let text = code.text_of(command);
    let shown = match text.char_indices().nth(150) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.to_string(),
    };
    if state.trail_started {
        state
            .trail
            .push_str(&format!("\n    invoked from within\n\"{shown}\""));
    } else {
        state
            .trail
            .push_str(&format!("\n    while executing\n\"{shown}\""));
        state.trail_started = true;
        state.line = code.line_of(command.start);
    }
    Exception::Error(state)
}

/// `f a ?b? ?arg ...?`, as tclsh shows a proc's usage.
pub(super) fn proc_usage(p: &Proc) -> String {
    let mut usage = p.name.to_string();
    for (i, param) in p.params.iter().enumerate() {
        usage.push(' ');
        if p.variadic && i == p.params.len() - 1 {
            usage.push_str("?arg ...?");
        } else if param.default.is_some() {
            usage.push_str(&format!("?{}?", param.name));
        } else {
            usage.push_str(&param.name);
        }
    }
    usage
}

#[cfg(test)]
mod tests;
