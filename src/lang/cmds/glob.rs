//! Tcl's glob-style pattern matching (`string match`, `lsearch -glob`, `info commands` …):
//! `*` any run, `?` one character, `[a-z]` a set or range, `\x` the character x.

use crate::lang::budget::Ticker;

/// Bytes [`glob_match`] takes per byte of its pattern and text (at most one character each).
pub const MATCH_COST: usize = std::mem::size_of::<char>();

/// Whether `text` matches `pattern`, optionally ignoring case. Takes four bytes per character
/// of both, which callers check against the memory limit ([`MATCH_COST`]).
pub fn glob_match(pattern: &str, text: &str, nocase: bool) -> bool {
    let fold = |c: char| {
        if nocase {
            c.to_lowercase().next().unwrap_or(c)
        } else {
            c
        }
    };
    let p: Vec<char> = pattern.chars().map(fold).collect();
    let t: Vec<char> = text.chars().map(fold).collect();
    matches(&p, &t)
}

/// Iterative matcher: on a mismatch after a `*`, retry with the star absorbing one more
/// character. Linear in practice, with no recursion on hostile patterns; a hostile one can
/// still take the product of the lengths, so the matcher polls the evaluation's budget and
/// answers "no match" once time has run out (the interpreter reports the limit at its next
/// command).
fn matches(p: &[char], t: &[char]) -> bool {
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    let mut ticker = Ticker::default();
    while ti < t.len() {
        if ticker.tick().is_err() {
            return false;
        }
        if pi < p.len() {
            match p[pi] {
                '*' => {
                    star = Some((pi, ti));
                    pi += 1;
                    continue;
                }
                '?' => {
                    pi += 1;
                    ti += 1;
                    continue;
                }
                '[' => {
                    if let Some((ok, next)) = class(p, pi, t[ti]) {
                        if ok {
                            pi = next;
                            ti += 1;
                            continue;
                        }
                    }
                }
                '\\' if pi + 1 < p.len() => {
                    if p[pi + 1] == t[ti] {
                        pi += 2;
                        ti += 1;
                        continue;
                    }
                }
                c => {
                    if c == t[ti] {
                        pi += 1;
                        ti += 1;
                        continue;
                    }
                }
            }
        }
        match star {
            Some((sp, st)) => {
                pi = sp + 1;
                ti = st + 1;
                star = Some((sp, st + 1));
            }
            None => return false,
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

/// Matches `c` against the bracket class starting at `p[at]` (`[`); returns whether it
/// matched and the index after the class, or `None` if the class is unterminated.
fn class(p: &[char], at: usize, c: char) -> Option<(bool, usize)> {
    let mut i = at + 1;
    let mut matched = false;
    while i < p.len() && p[i] != ']' {
        let mut lo = p[i];
        if lo == '\\' && i + 1 < p.len() {
            i += 1;
            lo = p[i];
        }
        if i + 2 < p.len() && p[i + 1] == '-' && p[i + 2] != ']' {
            let hi = p[i + 2];
            let (a, b) = if lo <= hi { (lo, hi) } else { (hi, lo) };
            matched |= a <= c && c <= b;
            i += 3;
        } else {
            matched |= lo == c;
            i += 1;
        }
    }
    (i < p.len()).then_some((matched, i + 1))
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn globs_match_like_tcl() {
        assert!(glob_match("a*c", "abbbc", false));
        assert!(glob_match("a?c", "abc", false));
        assert!(!glob_match("a?c", "ac", false));
        assert!(glob_match("[a-c]x", "bx", false));
        assert!(!glob_match("[a-c]x", "dx", false));
        assert!(glob_match("*\\*", "ab*", false));
        assert!(glob_match("A*", "abc", true));
        assert!(glob_match("*", "", false));
        assert!(!glob_match("a", "", false));
        assert!(glob_match("*a*b*", "xxaxxbxx", false));
    }
}
