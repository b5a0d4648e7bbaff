//! Variables and output: `set unset incr append global upvar array subst puts`.

use super::{arity, glob_match, int_of, list_of, sub_arity};
use crate::lang::fxhash::FxHashMap;
use crate::lang::interp::{split_name, Arg, Exception, Interp};
use crate::lang::value::{Value, VALUE_COST};

pub fn set_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    arity(args, 1, Some(2), "varName ?newValue?")?;
    let name = args[1].value.as_str();
    match args.get(2) {
        Some(v) => interp.set_var(name, v.value.clone()),
        None => interp.get_var(name),
    }
}

pub fn unset_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    let mut i = 1;
    let mut complain = true;
    while let Some(a) = args.get(i) {
        match a.value.as_str() {
            "-nocomplain" => complain = false,
            "--" => {
                i += 1;
                break;
            }
            _ => break,
        }
        i += 1;
    }
    for a in &args[i..] {
        let (name, index) = split_name(a.value.as_str());
        match interp.unset_var(name, index) {
            Err(e) if complain => return Err(e),
            _ => {}
        }
    }
    Ok(Value::empty())
}

pub fn incr_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    arity(args, 1, Some(2), "varName ?increment?")?;
    let by = match args.get(2) {
        Some(a) => int_of(&a.value)?,
        None => 1,
    };
    let name = args[1].value.as_str();
    let (base, index) = split_name(name);
    let current = if interp.var_exists(base, index) {
        let v = interp.get_var(name)?;
        int_of(&v)?
    } else {
        0
    };
    let sum = current
        .checked_add(by)
        .ok_or_else(|| Exception::error("integer overflow: Asgard integers are 64-bit"))?;
    interp.set_var(name, Value::from_int(sum))
}

pub fn append_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    arity(args, 1, None, "varName ?value ...?")?;
    let name = args[1].value.as_str();
    if args.len() == 2 {
        return interp.get_var(name);
    }
    let added: usize = args[2..].iter().map(|a| a.value.as_str().len()).sum();
    let (base, index) = split_name(name);
    let copied = {
        let slot = interp.var_slot(base, index)?;
        if slot.is_shared() {
            slot.as_str().len()
        } else {
            0
        }
    };
    interp.check_memory(copied + added)?;
    let slot = interp.var_slot(base, index)?;
    let text = slot.string_mut();
    for a in &args[2..] {
        text.push_str(a.value.as_str());
    }
    Ok(slot.clone())
}

pub fn global_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    arity(args, 0, None, "?varName ...?")?;
    if !interp.in_proc() {
        return Ok(Value::empty());
    }
    for a in &args[1..] {
        let name = a.value.as_str();
        let local = name.rsplit("::").next().unwrap_or(name);
        interp.link_var(0, name.trim_start_matches("::"), local)?;
    }
    Ok(Value::empty())
}

pub fn upvar_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    arity(
        args,
        2,
        None,
        "?level? otherVar localVar ?otherVar localVar ...?",
    )?;
    let first = args[1].value.as_str();
    let explicit = first.starts_with('#') || first.parse::<u64>().is_ok();
    let (level, pairs) = if explicit && args.len() % 2 == 0 {
        (first, &args[2..])
    } else {
        ("1", &args[1..])
    };
    if pairs.len() % 2 != 0 || pairs.is_empty() {
        return Err(crate::lang::interp::wrong_args(
            "upvar ?level? otherVar localVar ?otherVar localVar ...?",
        ));
    }
    let frame = interp
        .frame_at(level)
        .ok_or_else(|| Exception::error(format!("bad level \"{level}\"")))?;
    for pair in pairs.chunks(2) {
        interp.link_var(frame, pair[0].value.as_str(), pair[1].value.as_str())?;
    }
    Ok(Value::empty())
}

/// Bytes `array names` or `array get` may make from an array: a new value for each key and
/// two list elements per entry.
fn listing_cost(map: Option<&FxHashMap<String, Value>>) -> usize {
    map.map_or(0, |map| {
        map.keys()
            .map(|k| k.len() + VALUE_COST + 2 * std::mem::size_of::<Value>())
            .sum()
    })
}

pub fn array_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    arity(args, 2, None, "subcommand ?arg ...?")?;
    let sub = args[1].value.as_str();
    let name = args[2].value.as_str();
    match sub {
        "exists" => {
            sub_arity(args, 2, 1, Some(1), "arrayName")?;
            Ok(Value::from_bool(interp.array(name).is_some()))
        }
        "size" => {
            sub_arity(args, 2, 1, Some(1), "arrayName")?;
            Ok(Value::from_int(
                interp.array(name).map_or(0, |a| a.len()) as i64
            ))
        }
        "names" => {
            sub_arity(args, 2, 1, Some(2), "arrayName ?mode? ?pattern?")?;
            let pattern = args.get(3).map(|a| a.value.as_str());
            interp.check_memory(listing_cost(interp.array(name)))?;
            let names: Vec<Value> = match interp.array(name) {
                Some(map) => map
                    .keys()
                    .filter(|k| pattern.is_none_or(|p| glob_match(p, k, false)))
                    .map(|k| Value::from(k.as_str()))
                    .collect(),
                None => Vec::new(),
            };
            Ok(Value::from_list(names))
        }
        "get" => {
            sub_arity(args, 2, 1, Some(2), "arrayName ?pattern?")?;
            let pattern = args.get(3).map(|a| a.value.as_str());
            interp.check_memory(listing_cost(interp.array(name)))?;
            let mut items = Vec::new();
            if let Some(map) = interp.array(name) {
                for (k, v) in map {
                    if pattern.is_none_or(|p| glob_match(p, k, false)) {
                        items.push(Value::from(k.as_str()));
                        items.push(v.clone());
                    }
                }
            }
            Ok(Value::from_list(items))
        }
        "set" => {
            sub_arity(args, 2, 2, Some(2), "arrayName list")?;
            let items = list_of(&args[3].value)?.to_vec();
            if items.len() % 2 != 0 {
                return Err(Exception::error(
                    "list must have an even number of elements",
                ));
            }
            let map = interp.array_mut(name)?;
            for pair in items.chunks(2) {
                map.insert(pair[0].as_str().to_string(), pair[1].clone());
            }
            Ok(Value::empty())
        }
        "unset" => {
            sub_arity(args, 2, 1, Some(2), "arrayName ?pattern?")?;
            match args.get(3) {
                None => {
                    if interp.array(name).is_some() {
                        interp.unset_var(name, None)?;
                    }
                }
                Some(p) => {
                    if interp.array(name).is_some() {
                        let map = interp.array_mut(name)?;
                        map.retain(|k, _| !glob_match(p.value.as_str(), k, false));
                    }
                }
            }
            Ok(Value::empty())
        }
        _ => Err(Exception::error(format!(
            "unknown or ambiguous subcommand \"{sub}\": must be exists, get, names, set, size, \
             or unset"
        ))),
    }
}

pub fn subst_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    arity(
        args,
        1,
        None,
        "?-nobackslashes? ?-nocommands? ?-novariables? string",
    )?;
    let mut flags = crate::lang::parse::SubstFlags::default();
    for a in &args[1..args.len() - 1] {
        match a.value.as_str() {
            "-nobackslashes" => flags.backslashes = false,
            "-nocommands" => flags.commands = false,
            "-novariables" => flags.variables = false,
            other => {
                return Err(Exception::error(format!(
                    "bad option \"{other}\": must be -nobackslashes, -nocommands, or \
                     -novariables"
                )))
            }
        }
    }
    interp.subst_text(&args[args.len() - 1].value, flags)
}

pub fn puts_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    let usage = || crate::lang::interp::wrong_args("puts ?-nonewline? ?channelId? string");
    let (newline, rest) = match args.get(1).map(|a| a.value.as_str()) {
        Some("-nonewline") => (false, &args[2..]),
        _ => (true, &args[1..]),
    };
    let text = match rest {
        [text] => text,
        [channel, text] => match channel.value.as_str() {
            "stdout" | "stderr" => text,
            other => {
                return Err(Exception::error_at(
                    format!("can not find channel named \"{other}\""),
                    channel.span,
                ))
            }
        },
        _ => return Err(usage()),
    };
    let mut out = text.value.as_str().to_string();
    if newline {
        out.push('\n');
    }
    interp.write_output(&out);
    Ok(Value::empty())
}
