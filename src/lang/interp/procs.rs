//! Procs: definition from `proc`'s arguments, calls with their own frame, and what `return`
//! in a body makes of the call.

use super::vars::{Frame, Var};
use super::{Command, Exception, Interp, ReturnState};
use super::{CODE_BREAK, CODE_CONTINUE, CODE_ERROR, CODE_OK};
use crate::lang::interp::eval::outside_loop;
use crate::lang::interp::Arg;
use crate::lang::value::Value;
use std::rc::Rc;

/// A procedure defined with `proc`.
pub(in crate::lang) struct Proc {
    pub name: Rc<str>,
    pub params: Vec<Param>,
    /// The last parameter is `args`, collecting the remaining arguments.
    pub variadic: bool,
    pub body: Value,
}

pub(in crate::lang) struct Param {
    pub name: Rc<str>,
    pub default: Option<Value>,
}

impl Interp {
    /// Defines (or redefines) a proc from `proc`'s arguments.
    pub(in crate::lang) fn define_proc(
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

    pub(in crate::lang) fn call_proc(
        &mut self,
        p: &Proc,
        args: &[Arg],
    ) -> Result<Value, Exception> {
        let given = &args[1..];
        let wrong_args =
            || Exception::error(format!("wrong # args: should be \"{}\"", proc_usage(p)));
        let fixed = p.params.len() - usize::from(p.variadic);
        if !p.variadic && given.len() > fixed {
            return Err(wrong_args());
        }
        let call = Value::from_list(args.iter().map(|a| a.value.clone()).collect());
        let level = self.frames[self.current].level + 1;
        let mut frame = Frame::new(level, self.current, call);
        // Arguments bind positionally; a missing one takes its default or is an error.
        for (i, param) in p.params.iter().enumerate() {
            let value = if i == fixed {
                let rest = given.get(i..).unwrap_or(&[]);
                Value::from_list(rest.iter().map(|a| a.value.clone()).collect())
            } else {
                match (given.get(i), &param.default) {
                    (Some(a), _) => a.value.clone(),
                    (None, Some(default)) => default.clone(),
                    (None, None) => return Err(wrong_args()),
                }
            };
            frame.vars.insert(param.name.clone(), Var::Scalar(value));
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

/// `f a ?b? ?arg ...?`, as tclsh shows a proc's usage.
fn proc_usage(p: &Proc) -> String {
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
