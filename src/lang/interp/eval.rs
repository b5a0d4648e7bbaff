//! Running compiled code: scripts command by command, word substitution, and the location
//! and errorInfo trail errors pick up on their way out.

use super::{Arg, Exception, Interp, STACK_RED_ZONE, STACK_SEGMENT};
use crate::lang::code::{
    compile_expr, compile_script, CCommand, CPart, Code, Compiled, ExprCode, Subst, VarRef,
};
use crate::lang::error::Error;
use crate::lang::parse::{parse_expr_with_depth, parse_script_with_depth};
use crate::lang::span::Span;
use crate::lang::value::Value;
use std::rc::Rc;

impl Interp {
    /// The compiled script of a value, parsing and caching it on first use.
    pub(in crate::lang) fn script_code(&mut self, v: &Value) -> Result<Rc<Code>, Exception> {
        if let Some(Compiled::Script(code)) = v.compiled().get() {
            return Ok(code.clone());
        }
        let text = v.as_str();
        let (base, located) = v.origin().map_or((0, false), |o| (o.start, true));
        let max_depth = self.limits.max_depth;
        let parsed = stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || {
            parse_script_with_depth(text, base, max_depth)
        });
        let ast = parsed.map_err(|e| self.parse_failed(e, located))?;
        let code = Rc::new(compile_script(ast, Rc::from(text), base, located));
        let _ = v.compiled().set(Compiled::Script(code.clone()));
        Ok(code)
    }

    /// The compiled expression of a value, parsing and caching it on first use.
    pub(in crate::lang) fn expr_code(&mut self, v: &Value) -> Result<Rc<ExprCode>, Exception> {
        if let Some(Compiled::Expr(e)) = v.compiled().get() {
            return Ok(e.clone());
        }
        let text = v.as_str();
        let (base, located) = v.origin().map_or((0, false), |o| (o.start, true));
        let max_depth = self.limits.max_depth;
        let parsed = stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || {
            parse_expr_with_depth(text, base, max_depth)
        });
        let ast = parsed.map_err(|e| self.parse_failed(e, located))?;
        let e = Rc::new(compile_expr(ast, Rc::from(text), base, located));
        let _ = v.compiled().set(Compiled::Expr(e.clone()));
        Ok(e)
    }

    /// Runs a compiled script, one level deeper.
    pub(in crate::lang) fn eval_code(&mut self, code: &Code) -> Result<Value, Exception> {
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
    pub(in crate::lang) fn eval_cexpr_depth(&mut self, e: &ExprCode) -> Result<Value, Exception> {
        self.enter()?;
        let result = stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || self.eval_cexpr(e));
        self.depth -= 1;
        result
    }

    pub(super) fn run_command(
        &mut self,
        code: &Code,
        command: &CCommand,
    ) -> Result<Value, Exception> {
        let span = if code.located {
            command.span
        } else {
            self.anchor
        };
        let saved = self.anchor;
        self.anchor = span;
        let mut args = self.arg_buffers.pop().unwrap_or_default();
        let result = match self.words(code, command, &mut args) {
            Ok(()) => self.invoke(&args),
            Err(e) => Err(e),
        };
        args.clear();
        self.arg_buffers.push(args);
        self.anchor = saved;
        result.map_err(|e| annotate(e, code, command.span, span))
    }

    /// The arguments of a command (its words substituted and `{*}` words expanded), into
    /// `args`.
    fn words(
        &mut self,
        code: &Code,
        command: &CCommand,
        args: &mut Vec<Arg>,
    ) -> Result<(), Exception> {
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
        Ok(())
    }

    pub(in crate::lang) fn subst(&mut self, s: &Subst, code: &Code) -> Result<Value, Exception> {
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
                            self.check_memory(out.len() + v.as_str().len())?;
                            out.push_str(v.as_str());
                        }
                    }
                }
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
}

impl Interp {
    /// A parse error in a script or expression being evaluated: at its own span when the
    /// text is located, else at the running command. A parse stopped because memory or time
    /// ran out is that limit's error instead.
    pub(super) fn parse_failed(&mut self, e: Error, located: bool) -> Exception {
        if let Some(limit) = self.exhausted_error() {
            return limit;
        }
        if located {
            Exception::error_at(e.message, e.span)
        } else {
            Exception::error(e.message)
        }
    }
}

pub(super) fn outside_loop(e: &Exception, span: Span) -> Exception {
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
    if std::mem::take(&mut state.given_trail) {
        return Exception::Error(state);
    }
    let text = code.text_of_command(command);
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
