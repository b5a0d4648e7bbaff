//! List commands: `list lindex llength lappend lrange lsearch lreverse linsert lreplace lset
//! lassign lrepeat concat join split`.

use super::{arity, concat_values, glob_match, index_of, int_of, list_of, values};
use crate::lang::interp::{split_name, Arg, Exception, Interp};
use crate::lang::value::Value;

/// Bytes charged per list element created (the element handle).
const ELEMENT_COST: usize = std::mem::size_of::<Value>();

fn charge_elements(interp: &mut Interp, n: usize) -> Result<(), Exception> {
    interp.charge(n.saturating_mul(ELEMENT_COST))
}

/// Charges a list about to be built from `copies` repetitions of `items`: the handles, and
/// the text the list's string form will hold, for elements whose text is already known.
fn charge_repeated(interp: &mut Interp, items: &[Value], copies: usize) -> Result<(), Exception> {
    let text: usize = items
        .iter()
        .map(|v| {
            if v.has_text() {
                v.as_str().len() + 1
            } else {
                0
            }
        })
        .sum();
    let each = text.saturating_add(items.len().saturating_mul(ELEMENT_COST));
    interp.charge(each.saturating_mul(copies))
}

pub fn list_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    let items = values(&args[1..]);
    charge_repeated(interp, &items, 1)?;
    Ok(Value::from_list(items))
}

pub fn llength_cmd(_: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    arity(args, 1, Some(1), "list")?;
    Ok(Value::from_int(list_of(&args[1].value)?.len() as i64))
}

/// `lindex`'s walk: each index picks an element of the previous result.
fn index_into(list: &Value, indices: &[Value]) -> Result<Value, Exception> {
    let mut current = list.clone();
    for index in indices {
        let items = list_of(&current)?;
        let i = index_of(index, items.len())?;
        current = match usize::try_from(i).ok().and_then(|i| items.get(i)) {
            Some(v) => v.clone(),
            None => return Ok(Value::empty()),
        };
    }
    Ok(current)
}

/// The indices of `lindex`/`lset`: several arguments, or one argument that is itself a list.
fn index_path(args: &[Arg]) -> Result<Vec<Value>, Exception> {
    match args {
        [single] => {
            // A single index argument may be a list of indices, unless it is one index.
            let v = &single.value;
            if v.as_int().is_some() || v.as_str().trim().starts_with("end") {
                Ok(vec![v.clone()])
            } else {
                Ok(list_of(v)?.to_vec())
            }
        }
        _ => Ok(values(args)),
    }
}

pub fn lindex_cmd(_: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    arity(args, 1, None, "list ?index ...?")?;
    let path = index_path(&args[2..])?;
    if args.len() == 2 {
        return Ok(args[1].value.clone());
    }
    index_into(&args[1].value, &path)
}

pub fn lappend_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    arity(args, 1, None, "varName ?value ...?")?;
    let (name, index) = split_name(args[1].value.as_str());
    let copied = {
        let slot = interp.var_slot(name, index)?;
        match slot.as_list() {
            Ok(items) if slot.is_shared() => items.len(),
            _ => 0,
        }
    };
    charge_elements(interp, copied + args.len() - 2)?;
    let slot = interp.var_slot(name, index)?;
    let items = slot.list_mut().map_err(Exception::error)?;
    items.extend(args[2..].iter().map(|a| a.value.clone()));
    Ok(slot.clone())
}

/// A `first`/`last` pair clamped to a list of `len`: the half-open range, possibly empty.
fn range(first: &Value, last: &Value, len: usize) -> Result<(usize, usize), Exception> {
    let first = index_of(first, len)?.max(0);
    let last = index_of(last, len)?.min(len as i64 - 1);
    if last < first {
        return Ok((0, 0));
    }
    Ok((first as usize, last as usize + 1))
}

pub fn lrange_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    arity(args, 3, Some(3), "list first last")?;
    let items = list_of(&args[1].value)?;
    let (a, b) = range(&args[2].value, &args[3].value, items.len())?;
    let slice = items[a..b].to_vec();
    charge_elements(interp, slice.len())?;
    Ok(Value::from_list(slice))
}

pub fn lreverse_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    arity(args, 1, Some(1), "list")?;
    let mut items = list_of(&args[1].value)?.to_vec();
    items.reverse();
    charge_elements(interp, items.len())?;
    Ok(Value::from_list(items))
}

pub fn lsearch_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    arity(args, 2, None, "?-option value ...? list pattern")?;
    let mut exact = false;
    let mut integer = false;
    let mut all = false;
    let mut inline = false;
    let mut negate = false;
    let mut nocase = false;
    let mut start = 0usize;
    let mut i = 1;
    while i < args.len() - 2 {
        match args[i].value.as_str() {
            "-exact" => exact = true,
            "-glob" => exact = false,
            "-integer" => integer = true,
            "-all" => all = true,
            "-inline" => inline = true,
            "-not" => negate = true,
            "-nocase" => nocase = true,
            "-start" => {
                i += 1;
                let list_len = list_of(&args[args.len() - 2].value)?.len();
                start = index_of(&args[i].value, list_len)?.max(0) as usize;
            }
            other => {
                return Err(Exception::error(format!(
                    "bad option \"{other}\": must be -all, -exact, -glob, -inline, -integer, \
                     -nocase, -not, or -start"
                )))
            }
        }
        i += 1;
    }
    let list = &args[args.len() - 2].value;
    let pattern = &args[args.len() - 1].value;
    let items = list_of(list)?;
    // -integer changes only how -exact compares, as in tclsh.
    let wanted = match exact && integer {
        true => Some(int_of(pattern)?),
        false => None,
    };
    let mut found = Vec::new();
    for (k, item) in items.iter().enumerate().skip(start) {
        let hit = if !exact {
            glob_match(pattern.as_str(), item.as_str(), nocase)
        } else if wanted.is_some() {
            item.as_int() == wanted
        } else if nocase {
            item.as_str().to_lowercase() == pattern.as_str().to_lowercase()
        } else {
            item.as_str() == pattern.as_str()
        };
        if hit != negate {
            found.push(if inline {
                item.clone()
            } else {
                Value::from_int(k as i64)
            });
            if !all {
                break;
            }
        }
    }
    if all {
        charge_elements(interp, found.len())?;
        return Ok(Value::from_list(found));
    }
    Ok(found.pop().unwrap_or_else(|| {
        if inline {
            Value::empty()
        } else {
            Value::from_int(-1)
        }
    }))
}

/// Where `linsert` puts elements: `end` is after the last element.
fn insertion_point(index: &Value, len: usize) -> Result<usize, Exception> {
    let mut i = index_of(index, len)?;
    if index.as_str().trim().starts_with("end") {
        i += 1;
    }
    Ok(i.clamp(0, len as i64) as usize)
}

pub fn linsert_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    arity(args, 2, None, "list index ?element ...?")?;
    let mut items = list_of(&args[1].value)?.to_vec();
    let at = insertion_point(&args[2].value, items.len())?;
    items.splice(at..at, values(&args[3..]));
    charge_elements(interp, items.len())?;
    Ok(Value::from_list(items))
}

pub fn lreplace_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    arity(args, 3, None, "list first last ?element ...?")?;
    let mut items = list_of(&args[1].value)?.to_vec();
    let len = items.len();
    let first = index_of(&args[2].value, len)?.clamp(0, len as i64) as usize;
    let last = index_of(&args[3].value, len)?;
    let end = if last < first as i64 {
        first
    } else {
        (last + 1).min(len as i64) as usize
    };
    items.splice(first..end, values(&args[4..]));
    charge_elements(interp, items.len())?;
    Ok(Value::from_list(items))
}

pub fn lset_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    arity(args, 2, None, "listVar ?index? ?index ...? value")?;
    let (name, index) = split_name(args[1].value.as_str());
    let new = args[args.len() - 1].value.clone();
    let path = index_path(&args[2..args.len() - 1])?;
    if args.len() == 3 || path.is_empty() {
        return interp.write_var(name, index, new);
    }
    let current = interp.read_var(name, index)?;
    interp.write_var(name, index, Value::empty())?;
    let updated = set_path(current, &path, new);
    let value = match updated {
        Ok(v) => v,
        Err((e, original)) => {
            interp.write_var(name, index, original)?;
            return Err(e);
        }
    };
    interp.write_var(name, index, value)
}

/// Replaces the element at `path` inside `list`, in place when the list is not shared. On
/// failure the original list comes back with the error.
fn set_path(mut list: Value, path: &[Value], new: Value) -> Result<Value, (Exception, Value)> {
    let Some((first, rest)) = path.split_first() else {
        return Ok(new);
    };
    let len = match list.as_list() {
        Ok(items) => items.len(),
        Err(m) => return Err((Exception::error(m.to_string()), list)),
    };
    let i = match index_of(first, len) {
        Ok(i) => i,
        Err(e) => return Err((e, list)),
    };
    if i < 0 || i as usize > len || (i as usize == len && !rest.is_empty()) {
        return Err((Exception::error("list index out of range"), list));
    }
    let i = i as usize;
    let items = list.list_mut().expect("checked to be a list");
    if i == len {
        items.push(new);
        return Ok(list);
    }
    let element = std::mem::replace(&mut items[i], Value::empty());
    match set_path(element, rest, new) {
        Ok(v) => {
            items[i] = v;
            Ok(list)
        }
        Err((e, original)) => {
            items[i] = original;
            Err((e, list))
        }
    }
}

pub fn lassign_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    arity(args, 1, None, "list ?varName ...?")?;
    let items = list_of(&args[1].value)?.to_vec();
    let names = &args[2..];
    for (k, name) in names.iter().enumerate() {
        let v = items.get(k).cloned().unwrap_or_else(Value::empty);
        interp.set_var(name.value.as_str(), v)?;
    }
    let rest = items.get(names.len()..).unwrap_or(&[]).to_vec();
    Ok(Value::from_list(rest))
}

pub fn lrepeat_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    arity(args, 1, None, "count ?value ...?")?;
    let count = int_of(&args[1].value)?;
    if count < 0 {
        return Err(Exception::error(format!(
            "bad count \"{count}\": must be integer >= 0"
        )));
    }
    let one = values(&args[2..]);
    if one.is_empty() {
        return Ok(Value::from_list(Vec::new()));
    }
    charge_repeated(interp, &one, count as usize)?;
    let total = (count as usize).saturating_mul(one.len());
    let mut items = Vec::with_capacity(total);
    for _ in 0..count {
        items.extend(one.iter().cloned());
    }
    Ok(Value::from_list(items))
}

pub fn concat_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    let text = concat_values(&values(&args[1..]));
    interp.charge(text.len())?;
    Ok(Value::from(text))
}

pub fn join_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    arity(args, 1, Some(2), "list ?joinString?")?;
    let sep = args.get(2).map_or(" ", |a| a.value.as_str());
    let items = list_of(&args[1].value)?;
    let size: usize = items.iter().map(|v| v.as_str().len() + sep.len()).sum();
    interp.check_memory(size)?;
    let mut out = String::with_capacity(size);
    for (k, item) in items.iter().enumerate() {
        if k > 0 {
            out.push_str(sep);
        }
        out.push_str(item.as_str());
    }
    interp.charge(out.len())?;
    Ok(Value::from(out))
}

pub fn split_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    arity(args, 1, Some(2), "string ?splitChars?")?;
    let text = args[1].value.as_str();
    let seps: Vec<char> = match args.get(2) {
        Some(a) => a.value.as_str().chars().collect(),
        None => vec![' ', '\t', '\n', '\r'],
    };
    let items: Vec<Value> = if text.is_empty() {
        Vec::new()
    } else if seps.is_empty() {
        text.chars().map(|c| Value::from(c.to_string())).collect()
    } else {
        text.split(|c| seps.contains(&c)).map(Value::from).collect()
    };
    charge_elements(interp, items.len())?;
    interp.charge(text.len())?;
    Ok(Value::from_list(items))
}
