//! Tcl lists as text: splitting a string into elements, and quoting elements into a string
//! that splits back into the same elements (with tclsh's choice of braces or backslashes).

use super::budget::{self, Exhausted, Ticker};
use super::parse::decode_backslash;
use super::span::Span;
use super::value::Value;

fn is_list_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c')
}

/// Splits `text` into list elements. When the text is a literal at `origin`, elements that are
/// written without backslash sequences remember their own origin inside it. Splitting stops
/// with an error when the running evaluation's budget runs out (a string of a hundred million
/// elements is refused, not split into gigabytes of values).
pub fn parse(text: &str, origin: Option<Span>) -> Result<Vec<Value>, String> {
    let b = text.as_bytes();
    let mut items = Vec::new();
    let mut i = 0;
    let mut ticker = Ticker::default();
    loop {
        ticker.tick().map_err(exhausted_message)?;
        while i < b.len() && is_list_space(b[i]) {
            i += 1;
        }
        if i >= b.len() {
            return Ok(items);
        }
        let (element, content, next) = match b[i] {
            b'{' => braced_element(text, i)?,
            b'"' => quoted_element(text, i)?,
            _ => bare_element(text, i),
        };
        let value = match (origin, element) {
            (Some(o), Element::Verbatim) => Value::literal(
                &text[content.0..content.1],
                Span::new(o.start + content.0, o.start + content.1),
            ),
            (None, Element::Verbatim) => Value::from(&text[content.0..content.1]),
            (_, Element::Decoded(s)) => Value::from(s),
        };
        items.push(value);
        i = next;
    }
}

/// An element's text: the source bytes as they are, or decoded from backslash sequences.
enum Element {
    Verbatim,
    Decoded(String),
}

/// `{...}` at `open`: the content taken literally. Returns the element, its content range and
/// where scanning goes on.
fn braced_element(text: &str, open: usize) -> Result<(Element, (usize, usize), usize), String> {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut i = open;
    while i < b.len() {
        match b[i] {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    check_separated(text, i + 1, "braces")?;
                    return Ok((Element::Verbatim, (open + 1, i), i + 1));
                }
            }
            b'\\' => i += 1,
            _ => {}
        }
        i += 1;
    }
    Err("unmatched open brace in list".into())
}

fn quoted_element(text: &str, open: usize) -> Result<(Element, (usize, usize), usize), String> {
    let b = text.as_bytes();
    let mut i = open + 1;
    let mut decoded = String::new();
    let mut verbatim = true;
    let mut copied = i;
    while i < b.len() {
        match b[i] {
            b'"' => {
                check_separated(text, i + 1, "quotes")?;
                let element = if verbatim {
                    Element::Verbatim
                } else {
                    decoded.push_str(&text[copied..i]);
                    Element::Decoded(decoded)
                };
                return Ok((element, (open + 1, i), i + 1));
            }
            b'\\' => {
                verbatim = false;
                decoded.push_str(&text[copied..i]);
                let (c, len) = decode_backslash(text, i);
                decoded.push(c);
                i += len;
                copied = i;
            }
            _ => i += 1,
        }
    }
    Err("unmatched open quote in list".into())
}

fn bare_element(text: &str, start: usize) -> (Element, (usize, usize), usize) {
    let b = text.as_bytes();
    let mut i = start;
    let mut decoded = String::new();
    let mut verbatim = true;
    let mut copied = i;
    while i < b.len() && !is_list_space(b[i]) {
        if b[i] == b'\\' {
            verbatim = false;
            decoded.push_str(&text[copied..i]);
            let (c, len) = decode_backslash(text, i);
            decoded.push(c);
            i += len;
            copied = i;
        } else {
            i += 1;
        }
    }
    let element = if verbatim {
        Element::Verbatim
    } else {
        decoded.push_str(&text[copied..i]);
        Element::Decoded(decoded)
    };
    (element, (start, i), i)
}

fn check_separated(text: &str, at: usize, what: &str) -> Result<(), String> {
    match text[at..].chars().next() {
        None => Ok(()),
        Some(c) if c.is_ascii() && is_list_space(c as u8) => Ok(()),
        Some(c) => Err(format!(
            "list element in {what} followed by \"{}\" instead of space",
            following(&text[at..], c)
        )),
    }
}

/// The characters tclsh quotes after a misplaced close brace or quote (up to the next space).
fn following(rest: &str, _first: char) -> &str {
    let end = rest
        .char_indices()
        .find(|(_, c)| c.is_ascii() && is_list_space(*c as u8))
        .map_or(rest.len(), |(i, _)| i);
    &rest[..end]
}

/// The string form of a list of values. Elements that are themselves lists not yet turned
/// into text are formatted recursively, on a stack grown as deep nesting needs.
pub fn format(items: &[Value]) -> String {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, || format_flat(items))
}

/// The message of a list conversion stopped by the budget; the interpreter reports the limit
/// itself at its next check.
fn exhausted_message(which: Exhausted) -> String {
    match which {
        Exhausted::Memory => "list conversion stopped: memory limit exceeded".to_string(),
        Exhausted::Time => "list conversion stopped: time limit exceeded".to_string(),
    }
}

/// The formatting loop. When the evaluation's budget runs out part way, the text stops there:
/// the evaluation is failing with the limit error, which `catch` cannot stop, so no command
/// of it reads the short text; what an aborted evaluation leaves in variables is not to be
/// trusted.
///
/// Each element is charged before it is appended, whatever the list's length: a list nested in
/// itself a few dozen times (`lappend top [list $x $top]` in a loop) is small as values, which
/// share their elements, but its text doubles at every level, and a count of elements alone
/// would never poll on lists of a few elements each.
fn format_flat(items: &[Value]) -> String {
    let mut out = String::new();
    let mut ticker = Ticker::default();
    for (i, item) in items.iter().enumerate() {
        if ticker.tick().is_err() || budget::poll_with_clock(false).is_err() {
            break;
        }
        let text = item.as_str();
        // Quoting at most doubles an element and adds two braces and a space.
        let grows = text.len().saturating_mul(2).saturating_add(3);
        if budget::current().is_some_and(|b| !b.check_bytes(grows)) {
            budget::exhaust(Exhausted::Memory);
            break;
        }
        if i > 0 {
            out.push(' ');
        }
        quote_element(text, i == 0, &mut out);
    }
    out
}

/// How an element must be written to survive being split again.
#[derive(PartialEq)]
enum Quoting {
    Bare,
    Braces,
    Backslashes,
}

fn quoting(s: &str, first: bool) -> Quoting {
    let b = s.as_bytes();
    if b.is_empty() {
        return Quoting::Braces;
    }
    let mut prefer_braces = false;
    let mut forbid_bare = false;
    let mut require_escape = false;
    if b[0] == b'{' || b[0] == b'"' || (first && b[0] == b'#') {
        prefer_braces = true;
        forbid_bare = true;
    }
    let mut depth: isize = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth < 0 {
                    require_escape = true;
                }
            }
            b'[' | b'$' | b';' | b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c' => {
                prefer_braces = true
            }
            b']' | b'"' => forbid_bare = true,
            b'\\' => {
                forbid_bare = true;
                prefer_braces = true;
                match b.get(i + 1) {
                    None => require_escape = true,
                    Some(b'\n') => {
                        require_escape = true;
                        i += 1;
                    }
                    Some(b'{' | b'}' | b'\\') => i += 1,
                    Some(_) => {}
                }
            }
            _ => {}
        }
        i += 1;
    }
    if depth != 0 {
        require_escape = true;
    }
    if prefer_braces && !require_escape {
        Quoting::Braces
    } else if forbid_bare || prefer_braces || require_escape {
        Quoting::Backslashes
    } else {
        Quoting::Bare
    }
}

/// Appends `s` as a list element.
pub fn quote_element(s: &str, first: bool, out: &mut String) {
    match quoting(s, first) {
        Quoting::Bare => out.push_str(s),
        Quoting::Braces => {
            out.push('{');
            out.push_str(s);
            out.push('}');
        }
        Quoting::Backslashes => {
            for (i, c) in s.char_indices() {
                match c {
                    '{' | '}' | '[' | ']' | '$' | ';' | '"' | '\\' | ' ' => {
                        out.push('\\');
                        out.push(c);
                    }
                    '#' if first && i == 0 => out.push_str("\\#"),
                    '\n' => out.push_str("\\n"),
                    '\t' => out.push_str("\\t"),
                    '\r' => out.push_str("\\r"),
                    '\x0b' => out.push_str("\\v"),
                    '\x0c' => out.push_str("\\f"),
                    _ => out.push(c),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn listed(items: &[&str]) -> String {
        format(&items.iter().map(|s| Value::from(*s)).collect::<Vec<_>>())
    }

    #[test]
    fn quoting_matches_tclsh() {
        assert_eq!(listed(&["a]"]), "a\\]");
        assert_eq!(listed(&["a["]), "{a[}");
        assert_eq!(listed(&["a{b}c"]), "a{b}c");
        assert_eq!(listed(&["{ab}"]), "{{ab}}");
        assert_eq!(listed(&["a{b"]), "a\\{b");
        assert_eq!(listed(&["\"ab"]), "{\"ab}");
        assert_eq!(listed(&["a\"b"]), "a\\\"b");
        assert_eq!(listed(&["a b\\"]), "a\\ b\\\\");
        assert_eq!(listed(&["a\\nb"]), "{a\\nb}");
        assert_eq!(listed(&["a\\\nb"]), "a\\\\\\nb");
        assert_eq!(listed(&["#a", "#a"]), "{#a} #a");
        assert_eq!(listed(&["", "$", "a;b"]), "{} {$} {a;b}");
        assert_eq!(listed(&["a b}"]), "a\\ b\\}");
    }

    #[test]
    fn splitting_reports_tclsh_errors() {
        assert_eq!(
            parse("a {b", None).unwrap_err(),
            "unmatched open brace in list"
        );
        assert_eq!(
            parse("\"a", None).unwrap_err(),
            "unmatched open quote in list"
        );
        assert_eq!(
            parse("{a}b c", None).unwrap_err(),
            "list element in braces followed by \"b\" instead of space"
        );
        let items = parse(" a\\ b \"c d\" {e {f}} ", None).unwrap();
        let texts: Vec<&str> = items.iter().map(Value::as_str).collect();
        assert_eq!(texts, ["a b", "c d", "e {f}"]);
    }

    proptest! {
        #[test]
        fn formatted_lists_split_back(items in proptest::collection::vec(".{0,8}", 0..6)) {
            let values: Vec<Value> = items.iter().map(|s| Value::from(s.as_str())).collect();
            let text = format(&values);
            let back = parse(&text, None).unwrap();
            let back: Vec<&str> = back.iter().map(Value::as_str).collect();
            prop_assert_eq!(back, items.iter().map(String::as_str).collect::<Vec<_>>());
        }
    }
}
