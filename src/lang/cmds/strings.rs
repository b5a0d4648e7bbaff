//! `string` and its subcommands. Indices count characters, not bytes.

use super::{glob_match, index_of, int_of, list_of, sub_arity, MATCH_COST};
use crate::lang::budget::{Exhausted, Ticker};
use crate::lang::interp::{Arg, Exception, Interp};
use crate::lang::number::parse_boolean;
use crate::lang::number::Number;
use crate::lang::value::Value;
use std::cmp::Ordering;

const SUBCOMMANDS: &str = "cat, compare, equal, first, index, is, last, length, map, match, \
                           range, repeat, reverse, tolower, toupper, trim, trimleft, or trimright";

pub fn string_cmd(interp: &mut Interp, args: &[Arg]) -> Result<Value, Exception> {
    super::arity(args, 1, None, "subcommand ?arg ...?")?;
    let sub = args[1].value.as_str();
    let arg = |i: usize| args[i].value.as_str();
    match sub {
        "length" => {
            sub_arity(args, 2, 1, Some(1), "string")?;
            Ok(Value::from_int(char_len(arg(2)) as i64))
        }
        "index" => {
            sub_arity(args, 2, 2, Some(2), "string charIndex")?;
            let s = arg(2);
            let i = index_of(&args[3].value, char_len(s))?;
            Ok(usize::try_from(i)
                .ok()
                .and_then(|i| s.chars().nth(i))
                .map_or_else(Value::empty, |c| Value::from(c.to_string())))
        }
        "range" => {
            sub_arity(args, 2, 3, Some(3), "string first last")?;
            let s = arg(2);
            let len = char_len(s);
            let first = index_of(&args[3].value, len)?.max(0);
            let last = index_of(&args[4].value, len)?.min(len as i64 - 1);
            if last < first {
                return Ok(Value::empty());
            }
            interp.check_memory(s.len())?;
            Ok(Value::from(char_slice(
                s,
                first as usize,
                last as usize + 1,
            )))
        }
        "first" | "last" => {
            sub_arity(
                args,
                2,
                2,
                Some(3),
                "needleString haystackString ?startIndex?",
            )?;
            interp.check_memory((arg(2).len() + arg(3).len()) * std::mem::size_of::<char>())?;
            let needle: Vec<char> = arg(2).chars().collect();
            let hay: Vec<char> = arg(3).chars().collect();
            let limit = match args.get(4) {
                Some(a) => Some(index_of(&a.value, hay.len())?),
                None => None,
            };
            let found = find(&needle, &hay, sub == "first", limit);
            let found = found.or_else(|which| interp.exhausted(which).map(|_| -1))?;
            Ok(Value::from_int(found))
        }
        "map" => {
            sub_arity(args, 2, 2, Some(3), "?-nocase? charMap string")?;
            let nocase = args.len() == 5;
            if nocase && arg(2) != "-nocase" {
                return Err(Exception::error(format!(
                    "bad option \"{}\": must be -nocase",
                    arg(2)
                )));
            }
            let map = list_of(&args[args.len() - 2].value)?;
            if map.len() % 2 != 0 {
                return Err(Exception::error("char map list unbalanced"));
            }
            let budget = interp.memory_left();
            match string_map(map, args[args.len() - 1].value.as_str(), nocase, budget) {
                Ok(out) => Ok(Value::from(out)),
                Err(which) => interp.exhausted(which).map(|_| Value::empty()),
            }
        }
        "tolower" | "toupper" => {
            sub_arity(args, 2, 1, Some(3), "string ?first? ?last?")?;
            let s = arg(2);
            // A character's other case takes at most three times its bytes.
            interp.check_memory(s.len().saturating_mul(3))?;
            let out = if sub == "tolower" {
                s.to_lowercase()
            } else {
                s.to_uppercase()
            };
            Ok(Value::from(out))
        }
        "trim" | "trimleft" | "trimright" => {
            sub_arity(args, 2, 1, Some(2), "string ?chars?")?;
            let s = arg(2);
            let set: Vec<char> = match args.get(3) {
                Some(a) => a.value.as_str().chars().collect(),
                None => vec![' ', '\t', '\n', '\r', '\x0b', '\x0c', '\0', '\u{a0}'],
            };
            let strip = |c: char| set.contains(&c);
            let out = match sub {
                "trim" => s.trim_matches(strip),
                "trimleft" => s.trim_start_matches(strip),
                _ => s.trim_end_matches(strip),
            };
            interp.check_memory(out.len())?;
            Ok(Value::from(out))
        }
        "repeat" => {
            sub_arity(args, 2, 2, Some(2), "string count")?;
            let count = int_of(&args[3].value)?.max(0) as usize;
            let s = arg(2);
            interp.check_memory(s.len().saturating_mul(count))?;
            Ok(Value::from(s.repeat(count)))
        }
        "reverse" => {
            sub_arity(args, 2, 1, Some(1), "string")?;
            interp.check_memory(arg(2).len())?;
            Ok(Value::from(arg(2).chars().rev().collect::<String>()))
        }
        "cat" => {
            let size: usize = args[2..].iter().map(|a| a.value.as_str().len()).sum();
            interp.check_memory(size)?;
            let out: String = args[2..].iter().map(|a| a.value.as_str()).collect();
            Ok(Value::from(out))
        }
        "equal" | "compare" => {
            sub_arity(args, 2, 2, None, "?-nocase? ?-length int? string1 string2")?;
            let mut nocase = false;
            let mut length: Option<i64> = None;
            let mut i = 2;
            while i < args.len() - 2 {
                match arg(i) {
                    "-nocase" => nocase = true,
                    "-length" if i + 1 < args.len() - 2 => {
                        i += 1;
                        length = Some(int_of(&args[i].value)?);
                    }
                    other => {
                        return Err(Exception::error(format!(
                            "bad option \"{other}\": must be -nocase or -length"
                        )))
                    }
                }
                i += 1;
            }
            let ord = compare(arg(args.len() - 2), arg(args.len() - 1), nocase, length);
            Ok(Value::from_int(if sub == "equal" {
                i64::from(ord == Ordering::Equal)
            } else {
                match ord {
                    Ordering::Less => -1,
                    Ordering::Equal => 0,
                    Ordering::Greater => 1,
                }
            }))
        }
        "match" => {
            sub_arity(args, 2, 2, Some(3), "?-nocase? pattern string")?;
            let nocase = args.len() == 5;
            if nocase && arg(2) != "-nocase" {
                return Err(Exception::error(format!(
                    "bad option \"{}\": must be -nocase",
                    arg(2)
                )));
            }
            let size = arg(args.len() - 2).len() + arg(args.len() - 1).len();
            interp.check_memory(size.saturating_mul(MATCH_COST))?;
            Ok(Value::from_bool(glob_match(
                arg(args.len() - 2),
                arg(args.len() - 1),
                nocase,
            )))
        }
        "is" => string_is(args),
        _ => Err(Exception::error(format!(
            "unknown or ambiguous subcommand \"{sub}\": must be {SUBCOMMANDS}"
        ))),
    }
}

fn char_len(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.chars().count()
    }
}

/// Characters `from..to` of `s`.
fn char_slice(s: &str, from: usize, to: usize) -> &str {
    if s.is_ascii() {
        return &s[from.min(s.len())..to.min(s.len())];
    }
    let mut bounds = s
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(s.len()));
    let start = bounds.nth(from).unwrap_or(s.len());
    let end = if to > from {
        bounds.nth(to - from - 1).unwrap_or(s.len())
    } else {
        start
    };
    &s[start..end]
}

/// `string first`/`string last`: the character index of `needle` in `hay`, or -1. `limit` is
/// the start index for `first` and the last allowed start for `last`. Each start position
/// compares up to the needle's length, so a long needle in a long haystack polls the budget.
fn find(needle: &[char], hay: &[char], first: bool, limit: Option<i64>) -> Result<i64, Exhausted> {
    if needle.is_empty() || needle.len() > hay.len() {
        return Ok(-1);
    }
    let last_start = hay.len() - needle.len();
    let mut ticker = Ticker::default();
    let mut at = |i: usize| -> Result<bool, Exhausted> {
        ticker.tick()?;
        Ok(hay[i..i + needle.len()] == *needle)
    };
    let starts: Box<dyn Iterator<Item = usize>> = if first {
        let from = limit.unwrap_or(0).max(0) as usize;
        Box::new(from..=last_start)
    } else {
        let upto = match limit {
            Some(l) if l < 0 => return Ok(-1),
            Some(l) => (l as usize).min(last_start),
            None => last_start,
        };
        Box::new((0..=upto).rev())
    };
    for i in starts {
        if at(i)? {
            return Ok(i as i64);
        }
    }
    Ok(-1)
}

/// `string map`; refused if the result would grow beyond `budget` bytes or the evaluation's
/// time runs out.
fn string_map(map: &[Value], s: &str, nocase: bool, budget: usize) -> Result<String, Exhausted> {
    let fold = |t: &str| {
        if nocase {
            t.to_lowercase()
        } else {
            t.to_string()
        }
    };
    let pairs: Vec<(String, &str)> = map
        .chunks(2)
        .filter(|p| !p[0].as_str().is_empty())
        .map(|p| (fold(p[0].as_str()), p[1].as_str()))
        .collect();
    if s.len() > budget {
        return Err(Exhausted::Memory);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    let mut ticker = Ticker::default();
    'outer: while let Some(c) = rest.chars().next() {
        ticker.tick()?;
        for (key, replacement) in &pairs {
            let head = rest.get(..key.len());
            let hit = match head {
                Some(h) if nocase => h.to_lowercase() == *key,
                Some(h) => h == key,
                None => false,
            };
            if hit {
                if out.len() + replacement.len() > budget {
                    return Err(Exhausted::Memory);
                }
                out.push_str(replacement);
                rest = &rest[key.len()..];
                continue 'outer;
            }
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    Ok(out)
}

fn compare(a: &str, b: &str, nocase: bool, length: Option<i64>) -> Ordering {
    let cut = |s: &str| match length {
        Some(n) if n >= 0 => s.chars().take(n as usize).collect::<String>(),
        _ => s.to_string(),
    };
    let (mut a, mut b) = (cut(a), cut(b));
    if nocase {
        a = a.to_lowercase();
        b = b.to_lowercase();
    }
    a.cmp(&b)
}

fn string_is(args: &[Arg]) -> Result<Value, Exception> {
    sub_arity(args, 2, 2, Some(3), "class ?-strict? ?-failindex var? str")?;
    let class = args[2].value.as_str();
    let strict = match args.len() {
        5 if args[3].value.as_str() == "-strict" => true,
        5 => {
            return Err(Exception::error(format!(
                "bad option \"{}\": must be -strict or -failindex",
                args[3].value
            )))
        }
        _ => false,
    };
    let v = &args[args.len() - 1].value;
    let s = v.as_str();
    if s.is_empty() && class != "list" {
        return Ok(Value::from_bool(!strict));
    }
    let all = |f: fn(char) -> bool| s.chars().all(f);
    let result = match class {
        "integer" => matches!(v.as_number(), Some(Number::Int(i)) if i32::try_from(i).is_ok()),
        "wideinteger" => matches!(v.as_number(), Some(Number::Int(_))),
        "double" => v.as_number().is_some(),
        "boolean" => {
            v.as_number()
                .is_some_and(|n| matches!(n, Number::Int(0 | 1)))
                || parse_boolean(s).is_some()
        }
        "true" => v.as_bool() == Some(true),
        "false" => v.as_bool() == Some(false),
        "list" => v.as_list().is_ok(),
        "alpha" => all(char::is_alphabetic),
        "alnum" => all(char::is_alphanumeric),
        "digit" => all(|c| c.is_ascii_digit()),
        "space" => all(char::is_whitespace),
        "upper" => all(char::is_uppercase),
        "lower" => all(char::is_lowercase),
        "xdigit" => all(|c| c.is_ascii_hexdigit()),
        _ => {
            return Err(Exception::error(format!(
                "bad class \"{class}\": must be alnum, alpha, boolean, digit, double, false, \
                 integer, list, lower, space, true, upper, wideinteger, or xdigit"
            )))
        }
    };
    Ok(Value::from_bool(result))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_and_searches_count_characters() {
        assert_eq!(char_slice("héllo", 1, 3), "él");
        assert_eq!(char_slice("abc", 1, 10), "bc");
        let c = |s: &str| s.chars().collect::<Vec<_>>();
        assert_eq!(find(&c("l"), &c("héllo"), true, None), Ok(2));
        assert_eq!(find(&c("l"), &c("héllo"), false, None), Ok(3));
        assert_eq!(find(&c("l"), &c("héllo"), false, Some(2)), Ok(2));
        assert_eq!(find(&c("x"), &c("héllo"), true, None), Ok(-1));
    }

    #[test]
    fn map_tries_keys_in_order_at_each_position() {
        let map: Vec<Value> = ["ab", "1", "a", "2", "", "x"]
            .iter()
            .map(|s| Value::from(*s))
            .collect();
        assert_eq!(string_map(&map, "aabab", false, 100).unwrap(), "211");
        assert_eq!(string_map(&map, "AB", true, 100).unwrap(), "1");
        assert_eq!(string_map(&map, "aabab", false, 2), Err(Exhausted::Memory));
    }
}
