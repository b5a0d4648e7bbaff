//! `lsort` with `-ascii -integer -real -dictionary -increasing -decreasing -unique -nocase
//! -index -stride`. The sort is stable, as Tcl's merge sort is.

use super::{arity, index_of, int_of, list_of};
use crate::lang::budget::Ticker;
use crate::lang::interp::{Arg, Exception, Interp};
use crate::lang::value::Value;
use std::cmp::Ordering;

/// Bytes one sort entry takes besides its key's text: the key, the group slice, the element
/// in the sorted list and the smallest block the key's text takes.
const KEY_COST: usize = std::mem::size_of::<(Key, &[Value])>() + std::mem::size_of::<Value>() + 32;

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Ascii,
    Integer,
    Real,
    Dictionary,
}

/// A sort key, converted once before sorting.
enum Key {
    Text(String),
    Int(i64),
    Real(f64),
}

pub fn lsort_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    arity(args, 1, None, "?-option value ...? list")?;
    let mut kind = Kind::Ascii;
    let mut decreasing = false;
    let mut unique = false;
    let mut nocase = false;
    let mut index: Option<Value> = None;
    let mut stride = 1usize;
    let mut i = 1;
    while i < args.len() - 1 {
        match args[i].value.as_str() {
            "-ascii" => kind = Kind::Ascii,
            "-integer" => kind = Kind::Integer,
            "-real" => kind = Kind::Real,
            "-dictionary" => kind = Kind::Dictionary,
            "-increasing" => decreasing = false,
            "-decreasing" => decreasing = true,
            "-unique" => unique = true,
            "-nocase" => nocase = true,
            "-index" | "-stride" => {
                let option = args[i].value.as_str();
                i += 1;
                if i >= args.len() - 1 {
                    let what = if option == "-stride" {
                        "stride length"
                    } else {
                        "list index"
                    };
                    return Err(Exception::error(format!(
                        "\"{option}\" option must be followed by {what}"
                    )));
                }
                if option == "-index" {
                    index = Some(args[i].value.clone());
                } else {
                    let n = int_of(&args[i].value)?;
                    if n < 1 {
                        return Err(Exception::error("stride length must be at least 1"));
                    }
                    stride = n as usize;
                }
            }
            other => {
                return Err(Exception::error(format!(
                    "bad option \"{other}\": must be -ascii, -command, -decreasing, \
                     -dictionary, -increasing, -index, -indices, -integer, -nocase, -real, \
                     -stride, or -unique"
                )))
            }
        }
        i += 1;
    }
    let items = list_of(&args[args.len() - 1].value)?;
    if items.len() % stride != 0 {
        return Err(Exception::error(
            "list size must be a multiple of the stride length",
        ));
    }
    // The keys copy the elements' text: refuse before making them if they would not fit.
    let mut ticker = Ticker::default();
    let mut key_bytes = 0usize;
    for item in items {
        interp.tick(&mut ticker)?;
        key_bytes = key_bytes.saturating_add(item.as_str().len() + KEY_COST);
    }
    interp.check_memory(key_bytes)?;
    let groups: Vec<&[Value]> = items.chunks(stride).collect();
    let mut keyed = Vec::with_capacity(groups.len());
    for group in groups {
        interp.tick(&mut ticker)?;
        let element = match &index {
            Some(ix) => key_element(group, ix, stride)?,
            None => group[0].clone(),
        };
        keyed.push((key(&element, kind, nocase)?, group));
    }
    let compare = |a: &Key, b: &Key| {
        let ord = match (a, b) {
            (Key::Int(x), Key::Int(y)) => x.cmp(y),
            (Key::Real(x), Key::Real(y)) => x.partial_cmp(y).unwrap_or(Ordering::Equal),
            (Key::Text(x), Key::Text(y)) if kind == Kind::Dictionary => dictionary_cmp(x, y),
            (Key::Text(x), Key::Text(y)) => x.cmp(y),
            _ => Ordering::Equal,
        };
        if decreasing {
            ord.reverse()
        } else {
            ord
        }
    };
    // The sort cannot be left part way: once the budget runs out, every comparison says
    // "equal", which ends it quickly, and the limit is reported after it.
    let mut stopped = None;
    keyed.sort_by(|a, b| {
        if stopped.is_none() {
            stopped = ticker.tick().err();
        }
        match stopped {
            Some(_) => Ordering::Equal,
            None => compare(&a.0, &b.0),
        }
    });
    if let Some(which) = stopped {
        interp.exhausted(which)?;
    }
    if unique {
        // Of a run of equal keys, the last one stays.
        let mut kept: Vec<(Key, &[Value])> = Vec::with_capacity(keyed.len());
        for entry in keyed {
            match kept.last() {
                Some(last) if compare(&last.0, &entry.0) == Ordering::Equal => {
                    *kept.last_mut().expect("non-empty") = entry;
                }
                _ => kept.push(entry),
            }
        }
        keyed = kept;
    }
    let out: Vec<Value> = keyed
        .into_iter()
        .flat_map(|(_, group)| group.iter().cloned())
        .collect();
    Ok(Value::from_list(out))
}

/// The element of a group that `-index` designates (within the group when striding).
fn key_element(group: &[Value], index: &Value, stride: usize) -> Result<Value, Exception> {
    if stride > 1 {
        let i = index_of(index, stride)?;
        return usize::try_from(i)
            .ok()
            .and_then(|i| group.get(i))
            .cloned()
            .ok_or_else(|| Exception::error("index out of range"));
    }
    let sub = list_of(&group[0])?;
    let i = index_of(index, sub.len())?;
    usize::try_from(i)
        .ok()
        .and_then(|i| sub.get(i))
        .cloned()
        .ok_or_else(|| {
            Exception::error(format!(
                "element {i} missing from sublist \"{}\"",
                group[0].as_str()
            ))
        })
}

fn key(v: &Value, kind: Kind, nocase: bool) -> Result<Key, Exception> {
    Ok(match kind {
        Kind::Integer => Key::Int(int_of(v)?),
        Kind::Real => Key::Real(v.as_float().ok_or_else(|| {
            Exception::error(format!("expected floating-point number but got \"{v}\""))
        })?),
        Kind::Ascii if nocase => Key::Text(v.as_str().to_lowercase()),
        _ => Key::Text(v.as_str().to_string()),
    })
}

/// Tcl's dictionary order: case-insensitive, with runs of digits compared as numbers; ties
/// broken by case (upper first) and then by leading zeros.
pub fn dictionary_cmp(a: &str, b: &str) -> Ordering {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let (mut i, mut j) = (0, 0);
    let mut secondary = Ordering::Equal;
    while i < a.len() && j < b.len() {
        if a[i].is_ascii_digit() && b[j].is_ascii_digit() {
            let zeros_a = a[i..].iter().take_while(|c| **c == '0').count();
            let zeros_b = b[j..].iter().take_while(|c| **c == '0').count();
            i += zeros_a;
            j += zeros_b;
            let run_a = a[i..].iter().take_while(|c| c.is_ascii_digit()).count();
            let run_b = b[j..].iter().take_while(|c| c.is_ascii_digit()).count();
            let ord = run_a
                .cmp(&run_b)
                .then_with(|| a[i..i + run_a].cmp(&b[j..j + run_b]));
            if ord != Ordering::Equal {
                return ord;
            }
            if secondary == Ordering::Equal {
                secondary = zeros_a.cmp(&zeros_b);
            }
            i += run_a;
            j += run_b;
            continue;
        }
        let (ca, cb) = (a[i], b[j]);
        if ca != cb {
            let la = ca.to_lowercase().next().unwrap_or(ca);
            let lb = cb.to_lowercase().next().unwrap_or(cb);
            if la != lb {
                return la.cmp(&lb);
            }
            if secondary == Ordering::Equal {
                secondary = if ca.is_uppercase() {
                    Ordering::Less
                } else {
                    Ordering::Greater
                };
            }
        }
        i += 1;
        j += 1;
    }
    (a.len() - i).cmp(&(b.len() - j)).then(secondary)
}

#[cfg(test)]
mod tests {
    use super::dictionary_cmp;

    #[test]
    fn dictionary_order_matches_tclsh() {
        let mut v = vec!["a10", "a2", "A1", "b", "B", "a1"];
        v.sort_by(|a, b| dictionary_cmp(a, b));
        assert_eq!(v, ["A1", "a1", "a2", "a10", "B", "b"]);
        let mut v = vec!["x10y", "x9y", "x10a", "X10y"];
        v.sort_by(|a, b| dictionary_cmp(a, b));
        assert_eq!(v, ["x9y", "x10a", "X10y", "x10y"]);
    }
}
