//! The built-in commands, with tclsh 8.6 semantics and error wording.
//!
//! Only commands that stay inside the interpreter exist: there is no `exec`, `open`, `source`,
//! `file`, `socket`, `load`, `cd`, `exit`, `clock`, `after`, `interp` or `namespace`. Those
//! names are simply unknown commands, so the sandbox holds by construction.

mod control;
mod format;
mod glob;
mod info;
mod lists;
mod sort;
mod strings;
mod variables;

pub use glob::{glob_match, MATCH_COST};

use super::interp::{Arg, Exception, Interp};
use super::number::parse_int;
use super::value::Value;

type Builtin = fn(&mut Interp, &[Arg]) -> Result<Value, Exception>;

/// Every built-in command, by name.
const BUILTINS: &[(&str, Builtin)] = &[
    // control
    ("if", control::if_cmd),
    ("for", control::for_cmd),
    ("foreach", control::foreach_cmd),
    ("while", control::while_cmd),
    ("break", control::break_cmd),
    ("continue", control::continue_cmd),
    ("proc", control::proc_cmd),
    ("return", control::return_cmd),
    ("eval", control::eval_cmd),
    ("uplevel", control::uplevel_cmd),
    ("catch", control::catch_cmd),
    ("error", control::error_cmd),
    ("expr", control::expr_cmd),
    // variables
    ("set", variables::set_cmd),
    ("unset", variables::unset_cmd),
    ("incr", variables::incr_cmd),
    ("append", variables::append_cmd),
    ("global", variables::global_cmd),
    ("upvar", variables::upvar_cmd),
    ("array", variables::array_cmd),
    ("subst", variables::subst_cmd),
    ("puts", variables::puts_cmd),
    ("info", info::info_cmd),
    // lists
    ("list", lists::list_cmd),
    ("lindex", lists::lindex_cmd),
    ("llength", lists::llength_cmd),
    ("lappend", lists::lappend_cmd),
    ("lrange", lists::lrange_cmd),
    ("lsearch", lists::lsearch_cmd),
    ("lsort", sort::lsort_cmd),
    ("lreverse", lists::lreverse_cmd),
    ("linsert", lists::linsert_cmd),
    ("lreplace", lists::lreplace_cmd),
    ("lset", lists::lset_cmd),
    ("lassign", lists::lassign_cmd),
    ("lrepeat", lists::lrepeat_cmd),
    ("concat", lists::concat_cmd),
    ("join", lists::join_cmd),
    ("split", lists::split_cmd),
    // strings
    ("string", strings::string_cmd),
    ("format", format::format_cmd),
];

pub(super) fn register_builtins(interp: &mut Interp) {
    for (name, f) in BUILTINS {
        interp.register(name, *f);
    }
}

/// The names of the built-in commands (the syntax colouring is checked against them).
pub fn builtin_names() -> impl Iterator<Item = &'static str> {
    BUILTINS.iter().map(|(name, _)| *name)
}

/// Checks the argument count (`min..=max` words after the command name) against a usage line
/// such as `"varName ?newValue?"`.
fn arity(args: &[Arg], min: usize, max: Option<usize>, usage: &str) -> Result<(), Exception> {
    let n = args.len() - 1;
    if n < min || max.is_some_and(|m| n > m) {
        let name = args[0].value.as_str();
        let usage = if usage.is_empty() {
            name.to_string()
        } else {
            format!("{name} {usage}")
        };
        return Err(super::interp::wrong_args(&usage));
    }
    Ok(())
}

/// A "wrong # args" error for a subcommand (`string length string`).
fn sub_arity(
    args: &[Arg],
    words: usize,
    min: usize,
    max: Option<usize>,
    usage: &str,
) -> Result<(), Exception> {
    let n = args.len() - words;
    if n < min || max.is_some_and(|m| n > m) {
        let head: Vec<&str> = args[..words].iter().map(|a| a.value.as_str()).collect();
        return Err(super::interp::wrong_args(&format!(
            "{} {usage}",
            head.join(" ")
        )));
    }
    Ok(())
}

fn int_of(v: &Value) -> Result<i64, Exception> {
    v.as_int()
        .ok_or_else(|| Exception::error(format!("expected integer but got \"{v}\"")))
}

fn list_of(v: &Value) -> Result<&[Value], Exception> {
    v.as_list().map_err(|m| Exception::error(m.to_string()))
}

/// Resolves a list index (`3`, `end`, `end-1`, `2+1`, `end+0`) against a list of `len`
/// elements. The result may be out of range (negative or past the end); callers decide.
fn index_of(v: &Value, len: usize) -> Result<i64, Exception> {
    let s = v.as_str().trim();
    let bad = || {
        Exception::error(format!(
            "bad index \"{v}\": must be integer?[+-]integer? or end?[+-]integer?"
        ))
    };
    let len = len as i64;
    if let Some(i) = v.as_int() {
        return Ok(i);
    }
    let (base, rest) = match s.strip_prefix("end") {
        Some(rest) => (len - 1, rest),
        None => {
            let split = s
                .char_indices()
                .skip(1)
                .find(|(_, c)| *c == '+' || *c == '-')
                .map(|(i, _)| i)
                .ok_or_else(bad)?;
            let first = parse_int(&s[..split]).filter(|_| !s[..split].contains(' '));
            (first.ok_or_else(bad)?, &s[split..])
        }
    };
    if rest.is_empty() {
        return Ok(base);
    }
    let (sign, num) = rest.split_at(1);
    if num.contains(char::is_whitespace) {
        return Err(bad());
    }
    let offset = parse_int(num).ok_or_else(bad)?;
    let r = if sign == "+" {
        base.checked_add(offset)
    } else {
        base.checked_sub(offset)
    };
    r.ok_or_else(bad)
}

/// Joins the string forms of values with single spaces, trimming each as `concat` does.
fn concat_values(values: &[Value]) -> String {
    let mut out = String::new();
    for v in values {
        let t = v.as_str().trim_matches(|c: char| c.is_ascii_whitespace());
        if t.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(t);
    }
    out
}

fn values(args: &[Arg]) -> Vec<Value> {
    args.iter().map(|a| a.value.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_follow_tcl() {
        let ix = |s: &str| index_of(&Value::from(s), 5);
        assert_eq!(ix("2").unwrap(), 2);
        assert_eq!(ix("end").unwrap(), 4);
        assert_eq!(ix("end-1").unwrap(), 3);
        assert_eq!(ix("end+1").unwrap(), 5);
        assert_eq!(ix("1+2").unwrap(), 3);
        assert_eq!(ix("4-6").unwrap(), -2);
        assert!(ix("x").is_err());
        assert!(ix("end-").is_err());
        assert!(ix("1+").is_err());
        assert_eq!(ix("end--1").unwrap(), 5);
    }
}
