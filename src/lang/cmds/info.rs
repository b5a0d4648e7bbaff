//! `info`: what the interpreter knows about variables, commands, procs and call levels.

use super::{glob_match, int_of, sub_arity};
use crate::lang::interp::{split_name, Arg, Command, Exception, Interp};
use crate::lang::value::Value;

pub fn info_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    super::arity(args, 1, None, "subcommand ?arg ...?")?;
    let sub = args[1].value.as_str();
    let pattern = || args.get(2).map(|a| a.value.as_str().to_string());
    match sub {
        "exists" => {
            sub_arity(args, 2, 1, Some(1), "varName")?;
            let (name, index) = split_name(args[2].value.as_str());
            Ok(Value::from_bool(interp.var_exists(name, index)))
        }
        "commands" | "procs" => {
            sub_arity(args, 2, 0, Some(1), "?pattern?")?;
            let pattern = pattern();
            let names: Vec<Value> = interp
                .command_names()
                .filter(|(_, c)| sub == "commands" || matches!(c, Command::Proc(_)))
                .filter(|(n, _)| pattern.as_deref().is_none_or(|p| glob_match(p, n, false)))
                .map(|(n, _)| Value::from(n))
                .collect();
            Ok(Value::from_list(names))
        }
        "vars" | "locals" | "globals" => {
            sub_arity(args, 2, 0, Some(1), "?pattern?")?;
            let pattern = pattern();
            let names = match sub {
                "globals" => interp.in_frame(0, |i| i.var_names()),
                "locals" if !interp.in_proc() => Vec::new(),
                _ => interp.var_names(),
            };
            Ok(Value::from_list(
                names
                    .into_iter()
                    .filter(|n| pattern.as_deref().is_none_or(|p| glob_match(p, n, false)))
                    .map(Value::from)
                    .collect(),
            ))
        }
        "level" => {
            sub_arity(args, 2, 0, Some(1), "?number?")?;
            let Some(n) = args.get(2) else {
                return Ok(Value::from_int(interp.level() as i64));
            };
            let level = int_of(&n.value)?;
            let bad = || Exception::error(format!("bad level \"{}\"", n.value));
            let spec = if level > 0 {
                format!("#{level}")
            } else {
                (-level).to_string()
            };
            let frame = interp.frame_at(&spec).ok_or_else(bad)?;
            if interp.frame_level(frame) == 0 {
                return Err(bad());
            }
            Ok(interp.frame_call(frame))
        }
        "body" | "args" | "default" => {
            let usage = match sub {
                "default" => "procname arg varname",
                _ => "procname",
            };
            let want = if sub == "default" { 3 } else { 1 };
            sub_arity(args, 2, want, Some(want), usage)?;
            let name = args[2].value.as_str();
            let Some(Command::Proc(p)) = interp.command(name).cloned() else {
                return Err(Exception::error(format!("\"{name}\" isn't a procedure")));
            };
            match sub {
                "body" => Ok(p.body.clone()),
                "args" => Ok(Value::from_list(
                    p.params.iter().map(|q| Value::from(&*q.name)).collect(),
                )),
                _ => {
                    let arg = args[3].value.as_str();
                    let Some(param) = p.params.iter().find(|q| &*q.name == arg) else {
                        return Err(Exception::error(format!(
                            "procedure \"{name}\" doesn't have an argument \"{arg}\""
                        )));
                    };
                    let var = args[4].value.as_str();
                    match &param.default {
                        Some(d) => {
                            interp.set_var(var, d.clone())?;
                            Ok(Value::from_int(1))
                        }
                        None => {
                            interp.set_var(var, Value::empty())?;
                            Ok(Value::from_int(0))
                        }
                    }
                }
            }
        }
        _ => Err(Exception::error(format!(
            "unknown or ambiguous subcommand \"{sub}\": must be args, body, commands, default, \
             exists, globals, level, locals, procs, or vars"
        ))),
    }
}
