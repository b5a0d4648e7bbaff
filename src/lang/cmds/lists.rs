//! List commands: `list lindex llength lappend lrange lsearch lreverse linsert lreplace lset
//! lassign lrepeat concat join split`.

use super::{arity, concat_values, glob_match, index_of, int_of, list_of, values, MATCH_COST};
use crate::lang::budget::Ticker;
use crate::lang::interp::{split_name, Arg, Exception, Interp};
use crate::lang::value::{Value, VALUE_COST};

/// The smallest heap block a short string takes.
const STRING_COST: usize = 32;

/// Bytes a list element takes in its list (the handle).
const ELEMENT_COST: usize = std::mem::size_of::<Value>();

/// Refuses a list of `n` elements about to be made if it would not fit in the memory limit.
fn check_elements(interp: &mut Interp, n: usize) -> Result<(), Exception> {
    interp.check_memory(n.saturating_mul(ELEMENT_COST))
}

/// Refuses a list about to be built from `copies` repetitions of `items` if it would not fit:
/// the handles, and the text the list's string form will hold, for elements whose text is
/// already known (asking for the text of a million copies of a long string must fail here,
/// not when the text is made).
fn check_repeated(interp: &mut Interp, items: &[Value], copies: usize) -> Result<(), Exception> {
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
    interp.check_memory(each.saturating_mul(copies))
}

pub fn list_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    let items = values(&args[1..]);
    check_repeated(interp, &items, 1)?;
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
    check_elements(interp, copied + args.len() - 2)?;
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
    check_elements(interp, b - a)?;
    Ok(Value::from_list(items[a..b].to_vec()))
}

pub fn lreverse_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    arity(args, 1, Some(1), "list")?;
    let items = list_of(&args[1].value)?;
    check_elements(interp, items.len())?;
    Ok(Value::from_list(items.iter().rev().cloned().collect()))
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
    let mut ticker = Ticker::default();
    for (k, item) in items.iter().enumerate().skip(start) {
        interp.tick(&mut ticker)?;
        let hit = if !exact {
            let size = pattern.as_str().len() + item.as_str().len();
            interp.check_memory(size.saturating_mul(MATCH_COST))?;
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
    let list = list_of(&args[1].value)?;
    check_elements(interp, list.len() + args.len() - 3)?;
    let mut items = list.to_vec();
    let at = insertion_point(&args[2].value, items.len())?;
    items.splice(at..at, values(&args[3..]));
    Ok(Value::from_list(items))
}

pub fn lreplace_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    arity(args, 3, None, "list first last ?element ...?")?;
    let list = list_of(&args[1].value)?;
    check_elements(interp, list.len() + args.len().saturating_sub(4))?;
    let mut items = list.to_vec();
    let len = items.len();
    let first = index_of(&args[2].value, len)?.clamp(0, len as i64) as usize;
    let last = index_of(&args[3].value, len)?;
    let end = if last < first as i64 {
        first
    } else {
        (last + 1).min(len as i64) as usize
    };
    items.splice(first..end, values(&args[4..]));
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
    let list = list_of(&args[1].value)?;
    check_elements(interp, list.len())?;
    let items = list.to_vec();
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
    check_repeated(interp, &one, count as usize)?;
    let total = (count as usize).saturating_mul(one.len());
    let mut items = Vec::with_capacity(total);
    for _ in 0..count {
        items.extend(one.iter().cloned());
    }
    Ok(Value::from_list(items))
}

pub fn concat_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    let size: usize = args[1..].iter().map(|a| a.value.as_str().len() + 1).sum();
    interp.check_memory(size)?;
    Ok(Value::from(concat_values(&values(&args[1..]))))
}

pub fn join_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    arity(args, 1, Some(2), "list ?joinString?")?;
    let sep = args.get(2).map_or(" ", |a| a.value.as_str());
    let items = list_of(&args[1].value)?;
    let mut ticker = Ticker::default();
    let mut size = 0usize;
    for item in items {
        interp.tick(&mut ticker)?;
        size = size.saturating_add(item.as_str().len() + sep.len());
    }
    interp.check_memory(size)?;
    let mut out = String::with_capacity(size);
    for (k, item) in items.iter().enumerate() {
        interp.tick(&mut ticker)?;
        if k > 0 {
            out.push_str(sep);
        }
        out.push_str(item.as_str());
    }
    Ok(Value::from(out))
}

pub fn split_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    arity(args, 1, Some(2), "string ?splitChars?")?;
    let text = args[1].value.as_str();
    let seps: Vec<char> = match args.get(2) {
        Some(a) => a.value.as_str().chars().collect(),
        None => vec![' ', '\t', '\n', '\r'],
    };
    if text.is_empty() {
        return Ok(Value::from_list(Vec::new()));
    }
    // Count the elements first: each is a new value, and a long string split into characters
    // would take a hundred times its own size.
    let mut ticker = Ticker::default();
    let mut count = 1usize;
    for c in text.chars() {
        interp.tick(&mut ticker)?;
        if seps.is_empty() || seps.contains(&c) {
            count += 1;
        }
    }
    let each = ELEMENT_COST + VALUE_COST + STRING_COST;
    interp.check_memory(count.saturating_mul(each).saturating_add(text.len()))?;
    let mut items = Vec::with_capacity(count);
    if seps.is_empty() {
        for c in text.chars() {
            interp.tick(&mut ticker)?;
            items.push(Value::from(c.to_string()));
        }
    } else {
        for piece in text.split(|c| seps.contains(&c)) {
            interp.tick(&mut ticker)?;
            items.push(Value::from(piece));
        }
    }
    Ok(Value::from_list(items))
}
