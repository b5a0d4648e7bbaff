//! Control flow: conditionals, loops, procs, `return`, `eval`, `uplevel`, `catch`, `error`,
//! `expr`.

use super::{arity, concat_values, list_of, values};
use crate::lang::interp::{
    Arg, Exception, Interp, ReturnState, CODE_BREAK, CODE_CONTINUE, CODE_ERROR, CODE_OK,
    CODE_RETURN,
};
use crate::lang::value::Value;

/// What a loop does after its body ran.
enum Flow {
    Next,
    Stop,
}

/// Runs a loop body; `break` stops the loop, `continue` goes on, anything else propagates.
fn run_body(interp: &mut Interp, body: &Value) -> Result<Flow, Exception> {
    interp.count_command()?;
    match interp.eval_value(body) {
        Ok(_) | Err(Exception::Continue) => Ok(Flow::Next),
        Err(Exception::Break) => Ok(Flow::Stop),
        Err(e) => Err(e),
    }
}

fn condition(interp: &mut Interp, test: &Value) -> Result<bool, Exception> {
    let v = interp.eval_expr(test)?;
    v.as_bool()
        .ok_or_else(|| Exception::error(format!("expected boolean value but got \"{v}\"")))
}

pub fn if_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    let mut i = 1;
    loop {
        let Some(test) = args.get(i) else {
            let after = args[i - 1].value.as_str();
            return Err(Exception::error(format!(
                "wrong # args: no expression after \"{after}\" argument"
            )));
        };
        i += 1;
        if args.get(i).is_some_and(|a| a.value.as_str() == "then") {
            i += 1;
        }
        let Some(body) = args.get(i) else {
            let after = args[i - 1].value.as_str();
            return Err(Exception::error(format!(
                "wrong # args: no script following \"{after}\" argument"
            )));
        };
        i += 1;
        if condition(interp, &test.value)? {
            return interp.eval_value(&body.value);
        }
        match args.get(i).map(|a| a.value.as_str()) {
            None => return Ok(Value::empty()),
            Some("elseif") => i += 1,
            Some("else") => {
                i += 1;
                let Some(body) = args.get(i) else {
                    return Err(Exception::error(
                        "wrong # args: no script following \"else\" argument",
                    ));
                };
                if i + 1 < args.len() {
                    return Err(Exception::error(
                        "wrong # args: extra words after \"else\" clause in \"if\" command",
                    ));
                }
                return interp.eval_value(&body.value);
            }
            Some(_) => {
                if i + 1 < args.len() {
                    return Err(Exception::error(
                        "wrong # args: extra words after \"else\" clause in \"if\" command",
                    ));
                }
                return interp.eval_value(&args[i].value);
            }
        }
    }
}

pub fn while_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    arity(args, 2, Some(2), "test command")?;
    while condition(interp, &args[1].value)? {
        if let Flow::Stop = run_body(interp, &args[2].value)? {
            break;
        }
    }
    Ok(Value::empty())
}

pub fn for_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    arity(args, 4, Some(4), "start test next command")?;
    interp.eval_value(&args[1].value)?;
    while condition(interp, &args[2].value)? {
        if let Flow::Stop = run_body(interp, &args[4].value)? {
            break;
        }
        match interp.eval_value(&args[3].value) {
            Ok(_) => {}
            Err(Exception::Break) => break,
            Err(e) => return Err(e),
        }
    }
    Ok(Value::empty())
}

pub fn foreach_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    if args.len() < 4 || args.len() % 2 != 0 {
        return Err(crate::lang::interp::wrong_args(
            "foreach varList list ?varList list ...? command",
        ));
    }
    let body = &args[args.len() - 1].value;
    let mut groups = Vec::new();
    let mut rounds = 0;
    for pair in args[1..args.len() - 1].chunks(2) {
        let names = list_of(&pair[0].value)?.to_vec();
        if names.is_empty() {
            return Err(Exception::error("foreach varlist is empty"));
        }
        let items = pair[1].value.clone();
        let count = list_of(&items)?.len();
        rounds = rounds.max(count.div_ceil(names.len()));
        groups.push((names, items));
    }
    for round in 0..rounds {
        for (names, items) in &groups {
            let items = list_of(items)?;
            for (k, name) in names.iter().enumerate() {
                let value = items
                    .get(round * names.len() + k)
                    .cloned()
                    .unwrap_or_else(Value::empty);
                interp
                    .set_var(name.as_str(), value)
                    .map_err(|e| relabel(e, "couldn't set loop variable: "))?;
            }
        }
        if let Flow::Stop = run_body(interp, body)? {
            break;
        }
    }
    Ok(Value::empty())
}

/// Prefixes an error message (tclsh wraps some errors of nested operations).
fn relabel(e: Exception, prefix: &str) -> Exception {
    match e {
        Exception::Error(_) => Exception::error(format!("{prefix}{}", e.value())),
        other => other,
    }
}

pub fn break_cmd(_: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    arity(args, 0, Some(0), "")?;
    Err(Exception::Break)
}

pub fn continue_cmd(_: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    arity(args, 0, Some(0), "")?;
    Err(Exception::Continue)
}

pub fn proc_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    arity(args, 3, Some(3), "name args body")?;
    interp.define_proc(&args[1].value, &args[2].value, args[3].value.clone())?;
    Ok(Value::empty())
}

/// A `-code` value: a name or an integer.
fn completion_code(v: &Value) -> Result<i64, Exception> {
    match v.as_str() {
        "ok" => Ok(CODE_OK),
        "error" => Ok(CODE_ERROR),
        "return" => Ok(CODE_RETURN),
        "break" => Ok(CODE_BREAK),
        "continue" => Ok(CODE_CONTINUE),
        _ => v.as_int().ok_or_else(|| {
            Exception::error(format!(
                "bad completion code \"{v}\": must be ok, error, return, break, continue, or an \
                 integer"
            ))
        }),
    }
}

pub fn return_cmd(_: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    let mut state = ReturnState {
        value: Value::empty(),
        code: CODE_OK,
        level: 1,
        error_info: None,
        error_code: None,
    };
    let mut i = 1;
    while i + 1 < args.len() {
        let option = args[i].value.as_str();
        let value = &args[i + 1].value;
        match option {
            "-code" => state.code = completion_code(value)?,
            "-level" => {
                state.level = value.as_int().filter(|l| *l >= 0).ok_or_else(|| {
                    Exception::error(format!(
                        "bad -level value: expected non-negative integer but got \"{value}\""
                    ))
                })?
            }
            "-errorinfo" => state.error_info = Some(value.clone()),
            "-errorcode" => state.error_code = Some(value.clone()),
            _ if option.starts_with('-') => {}
            _ => break,
        }
        i += 2;
    }
    match args.len() - i {
        0 => {}
        1 => state.value = args[i].value.clone(),
        _ => {
            return Err(crate::lang::interp::wrong_args(
                "return ?-option value ...? ?result?",
            ))
        }
    }
    if state.level == 0 {
        return match state.code {
            CODE_OK => Ok(state.value),
            CODE_ERROR => Err(Exception::error(state.value.as_str().to_string())),
            CODE_BREAK => Err(Exception::Break),
            CODE_CONTINUE => Err(Exception::Continue),
            _ => Err(Exception::Return(Box::new(state))),
        };
    }
    Err(Exception::Return(Box::new(state)))
}

/// The script of `eval`/`uplevel`: a single argument as it is (keeping its origin in the
/// text), several concatenated.
fn script_of(args: &[Arg]) -> Value {
    if let [only] = args {
        only.value.clone()
    } else {
        Value::from(concat_values(&values(args)))
    }
}

pub fn eval_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    arity(args, 1, None, "arg ?arg ...?")?;
    let script = script_of(&args[1..]);
    interp.eval_value(&script)
}

pub fn uplevel_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    arity(args, 1, None, "?level? command ?arg ...?")?;
    let first = args[1].value.as_str();
    let explicit = first.starts_with('#') || first.parse::<u64>().is_ok();
    let (level, rest) = if explicit && args.len() > 2 {
        (first, &args[2..])
    } else {
        ("1", &args[1..])
    };
    let frame = interp
        .frame_at(level)
        .ok_or_else(|| Exception::error(format!("bad level \"{level}\"")))?;
    let script = script_of(rest);
    interp.in_frame(frame, |interp| interp.eval_value(&script))
}

pub fn catch_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    arity(args, 1, Some(3), "script ?resultVarName? ?optionVarName?")?;
    let (code, value, options) = match interp.eval_value(&args[1].value) {
        Ok(v) => (
            CODE_OK,
            v,
            vec![
                ("-code", Value::from_int(0)),
                ("-level", Value::from_int(0)),
            ],
        ),
        Err(Exception::Error(state)) if state.limit => return Err(Exception::Error(state)),
        Err(Exception::Error(state)) => {
            interp.set_var("::errorInfo", Value::from(state.trail.clone()))?;
            interp.set_var("::errorCode", state.code.clone())?;
            let options = vec![
                ("-code", Value::from_int(CODE_ERROR)),
                ("-level", Value::from_int(0)),
                ("-errorcode", state.code.clone()),
                ("-errorinfo", Value::from(state.trail.clone())),
            ];
            (CODE_ERROR, state.message.clone(), options)
        }
        Err(Exception::Return(r)) => {
            let options = vec![
                ("-code", Value::from_int(r.code)),
                ("-level", Value::from_int(r.level)),
            ];
            // Level 0 is a completion with a code of its own; otherwise a `return` in flight.
            let code = if r.level == 0 { r.code } else { CODE_RETURN };
            (code, r.value.clone(), options)
        }
        Err(e) => (
            e.code(),
            Value::empty(),
            vec![
                ("-code", Value::from_int(e.code())),
                ("-level", Value::from_int(0)),
            ],
        ),
    };
    if let Some(var) = args.get(2) {
        interp.set_var(var.value.as_str(), value)?;
    }
    if let Some(var) = args.get(3) {
        let mut items = Vec::new();
        for (k, v) in options {
            items.push(Value::from(k));
            items.push(v);
        }
        interp.set_var(var.value.as_str(), Value::from_list(items))?;
    }
    Ok(Value::from_int(code))
}

pub fn error_cmd(_: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    arity(args, 1, Some(3), "message ?errorInfo? ?errorCode?")?;
    let mut e = Exception::error(args[1].value.as_str());
    if let Exception::Error(state) = &mut e {
        if let Some(info) = args.get(2).filter(|a| !a.value.as_str().is_empty()) {
            state.set_own_trail(info.value.as_str());
        }
        if let Some(code) = args.get(3) {
            state.code = code.value.clone();
        }
    }
    Err(e)
}

pub fn expr_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    arity(args, 1, None, "arg ?arg ...?")?;
    if let [_, only] = args {
        return interp.eval_expr(&only.value);
    }
    let text = concat_values(&values(&args[1..]));
    interp.eval_expr(&Value::from(text))
}
