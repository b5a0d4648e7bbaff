//! The parser: scene text to [`ast::Script`], following Tcl's twelve syntax rules exactly.
//!
//! A script is parsed one level at a time: braced words (`foreach` and `proc` bodies…) stay
//! text, and are parsed when they are evaluated, with the offset of their braces so that their
//! words are located in the whole text too. `[...]` substitutions are parsed into the tree
//! because they run whenever their word is substituted.
//!
//! `$name(index)`, `[script]` and expression parentheses are the only recursive constructs;
//! their nesting is bounded by a depth limit so that pathological input fails with a located
//! error instead of overflowing the stack. Brace nesting is just a counter.

mod backslash;
mod expr;

pub use backslash::decode as decode_backslash;
pub use expr::{parse_expr, parse_expr_with_depth};

use super::ast::{Command, Part, Script, Word, WordKind};
use super::budget::{Exhausted, Ticker};
use super::error::Error;
use super::span::Span;

/// Stack left below which the recursive parse functions grow the stack before going deeper,
/// and the size of each added segment: nesting is bounded by the depth limit, not by the
/// stack size of the thread that happens to parse.
pub(super) const RED_ZONE: usize = 64 * 1024;
pub(super) const STACK_SEGMENT: usize = 1024 * 1024;

/// Nesting depth the free parse functions allow, matching the interpreter's default limit.
pub const DEFAULT_MAX_DEPTH: usize = 1000;

/// Parses `text`, a fragment that starts at byte `base` of the scene text; every span in the
/// result is in the coordinates of the whole text.
pub fn parse_script(text: &str, base: usize) -> Result<Script, Error> {
    parse_script_with_depth(text, base, DEFAULT_MAX_DEPTH)
}

/// [`parse_script`] with an explicit limit on `[...]` and `$a(...)` nesting.
pub fn parse_script_with_depth(text: &str, base: usize, max_depth: usize) -> Result<Script, Error> {
    let mut p = Parser::new(text, base, max_depth);
    let script = p.script(false)?;
    Ok(script)
}

/// Parses the commands of a script one at a time, so that each can run before the next is
/// parsed, as tclsh runs a file: a syntax error late in the text does not stop the commands
/// before it. After an error the stream ends.
pub struct CommandStream<'a> {
    parser: Parser<'a>,
    done: bool,
}

/// The commands of `text` (at byte `base` of the scene text) as a [`CommandStream`].
pub fn parse_commands(text: &str, base: usize, max_depth: usize) -> CommandStream<'_> {
    CommandStream {
        parser: Parser::new(text, base, max_depth),
        done: false,
    }
}

impl Iterator for CommandStream<'_> {
    type Item = Result<Command, Error>;

    fn next(&mut self) -> Option<Result<Command, Error>> {
        if self.done {
            return None;
        }
        loop {
            self.parser.skip_command_separators();
            match self.parser.peek() {
                None => {
                    self.done = true;
                    return None;
                }
                Some(b'#') => self.parser.skip_comment(),
                Some(_) => {
                    let command = self.parser.command();
                    self.done = command.is_err();
                    return Some(command);
                }
            }
        }
    }
}

/// The characters that separate words.
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\x0b' | b'\x0c')
}

/// Bytes at which a run of word text must stop to look closer.
fn may_be_special(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t'
            | b'\r'
            | b'\x0b'
            | b'\x0c'
            | b'\n'
            | b';'
            | b']'
            | b'"'
            | b')'
            | b'\\'
            | b'$'
            | b'['
    )
}

fn is_var_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Which substitutions `subst` performs (all by default).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SubstFlags {
    pub backslashes: bool,
    pub commands: bool,
    pub variables: bool,
}

impl Default for SubstFlags {
    fn default() -> SubstFlags {
        SubstFlags {
            backslashes: true,
            commands: true,
            variables: true,
        }
    }
}

/// Where a run of parts ends: a bare word at whitespace or the end of its command, a quoted
/// word at its closing quote, an array index at its closing parenthesis.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Until {
    Bare,
    Quote,
    Paren,
}

/// A cursor over one fragment. `base` is the fragment's offset in the whole text.
pub(super) struct Parser<'a> {
    text: &'a str,
    src: &'a [u8],
    base: usize,
    pos: usize,
    /// Whether the script being parsed is inside `[...]` (so `]` ends it).
    nested: bool,
    depth: usize,
    max_depth: usize,
    flags: SubstFlags,
    /// Polls the evaluation's memory and time budget while a long text is parsed.
    ticker: Ticker,
}

impl<'a> Parser<'a> {
    pub(super) fn new(text: &'a str, base: usize, max_depth: usize) -> Parser<'a> {
        Parser {
            text,
            src: text.as_bytes(),
            base,
            pos: 0,
            nested: false,
            depth: 0,
            max_depth,
            flags: SubstFlags::default(),
            ticker: Ticker::default(),
        }
    }

    /// Counts one step of parsing against the budget of the evaluation it is for (see
    /// [`crate::lang::budget`]): a generated script of millions of commands stops when its
    /// parse tree has used up the memory, not when the machine has. The interpreter reports
    /// the limit; the message here is for parses outside an evaluation, which never stop.
    pub(super) fn poll(&mut self) -> Result<(), Error> {
        self.ticker.tick().map_err(|which| {
            let what = match which {
                Exhausted::Memory => "memory",
                Exhausted::Time => "time",
            };
            let at = self.pos.min(self.src.len());
            self.error(&format!("parsing stopped: {what} limit exceeded"), at, at)
        })
    }

    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.base + start, self.base + end)
    }

    fn error(&self, message: &str, start: usize, end: usize) -> Error {
        Error::new(message, self.span(start, end))
    }

    fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    fn at(&self, i: usize) -> Option<u8> {
        self.src.get(i).copied()
    }

    /// Enters one level of recursive syntax starting at `start`.
    fn descend(&mut self, start: usize) -> Result<(), Error> {
        self.depth += 1;
        if self.depth > self.max_depth {
            return Err(self.error(
                &format!(
                    "too many nested brackets, parentheses or array indices (the nesting limit \
                     is {})",
                    self.max_depth
                ),
                start,
                start + 1,
            ));
        }
        Ok(())
    }

    /// A sequence of commands up to the end of the text, or up to the `]` that closes it when
    /// `nested` (the `]` is consumed).
    fn script(&mut self, nested: bool) -> Result<Script, Error> {
        let outer = std::mem::replace(&mut self.nested, nested);
        let start = self.pos;
        let mut commands = Vec::new();
        loop {
            self.skip_command_separators();
            match self.peek() {
                None => {
                    if nested {
                        // Reported by the caller at the opening bracket.
                        self.nested = outer;
                        return Err(self.error("missing close-bracket", start, start));
                    }
                    break;
                }
                Some(b']') if nested => break,
                Some(b'#') => self.skip_comment(),
                Some(_) => {
                    self.poll()?;
                    commands.push(self.command()?);
                }
            }
        }
        let end = self.pos;
        if nested {
            self.pos += 1; // the `]`
        }
        self.nested = outer;
        Ok(Script {
            span: self.span(start, end),
            commands,
        })
    }

    fn skip_command_separators(&mut self) {
        while let Some(b) = self.peek() {
            if is_space(b) || b == b'\n' || b == b';' {
                self.pos += 1;
            } else if b == b'\\' && self.at(self.pos + 1) == Some(b'\n') {
                self.pos += decode_backslash(self.text, self.pos).1;
            } else {
                break;
            }
        }
    }

    /// Skips whitespace between words (including backslash-newline); true if any was skipped.
    fn skip_word_separators(&mut self) -> bool {
        let start = self.pos;
        while let Some(b) = self.peek() {
            if is_space(b) {
                self.pos += 1;
            } else if b == b'\\' && self.at(self.pos + 1) == Some(b'\n') {
                self.pos += decode_backslash(self.text, self.pos).1;
            } else {
                break;
            }
        }
        self.pos > start
    }

    /// A comment runs to the end of the line; a backslash-newline continues it.
    fn skip_comment(&mut self) {
        while let Some(b) = self.peek() {
            match b {
                b'\n' => return,
                b'\\' => self.pos = (self.pos + 2).min(self.src.len()),
                _ => self.pos += 1,
            }
        }
    }

    /// Is the cursor where a command ends?
    fn at_command_end(&self) -> bool {
        match self.peek() {
            None | Some(b'\n' | b';') => true,
            Some(b']') => self.nested,
            _ => false,
        }
    }

    fn command(&mut self) -> Result<Command, Error> {
        let start = self.pos;
        let mut words = Vec::new();
        loop {
            self.poll()?;
            words.push(self.word()?);
            let separated = self.skip_word_separators();
            if self.at_command_end() {
                break;
            }
            debug_assert!(separated, "a word ends at a separator or the command's end");
        }
        let end = words.last().map_or(start, |w| w.span.end);
        Ok(Command {
            span: Span::new(self.base + start, end),
            words,
        })
    }

    fn word(&mut self) -> Result<Word, Error> {
        let start = self.pos;
        let mut expand = false;
        if self.src[self.pos..].starts_with(b"{*}") {
            let after = self.at(self.pos + 3);
            let ends = match after {
                None | Some(b'\n' | b';') => true,
                Some(b']') => self.nested,
                Some(b) => is_space(b),
            };
            if !ends {
                expand = true;
                self.pos += 3;
            }
        }
        let kind = match self.peek() {
            Some(b'{') => self.braced()?,
            Some(b'"') => self.quoted()?,
            _ => WordKind::Bare(self.parts(Until::Bare)?),
        };
        Ok(Word {
            span: self.span(start, self.pos),
            expand,
            kind,
        })
    }

    /// After a closing brace or quote, the word must end.
    fn check_word_end(&self, what: &str) -> Result<(), Error> {
        match self.peek() {
            None | Some(b'\n' | b';') => Ok(()),
            Some(b']') if self.nested => Ok(()),
            Some(b) if is_space(b) => Ok(()),
            Some(b'\\') if self.at(self.pos + 1) == Some(b'\n') => Ok(()),
            Some(_) => Err(self.error(
                &format!("extra characters after close-{what}"),
                self.pos,
                self.pos + 1,
            )),
        }
    }

    fn braced(&mut self) -> Result<WordKind, Error> {
        let open = self.pos;
        let (text, content_end) = self.braced_text()?;
        self.check_word_end("brace")?;
        Ok(WordKind::Braced {
            text,
            content: self.span(open + 1, content_end),
        })
    }

    /// The text of a braced word starting at the cursor (on `{`); leaves the cursor after the
    /// matching `}` and returns the folded text and the end of the content.
    fn braced_text(&mut self) -> Result<(String, usize), Error> {
        let open = self.pos;
        let mut depth = 1usize;
        let mut i = open + 1;
        let mut text = String::new();
        let mut copied = i;
        loop {
            match self.at(i) {
                None => return Err(self.error("missing close-brace", open, open + 1)),
                Some(b'{') => depth += 1,
                Some(b'}') => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                Some(b'\\') => match self.at(i + 1) {
                    Some(b'\n') => {
                        text.push_str(&self.text[copied..i]);
                        let (_, len) = decode_backslash(self.text, i);
                        text.push(' ');
                        i += len;
                        copied = i;
                        continue;
                    }
                    Some(_) => i += 1,
                    None => {}
                },
                Some(_) => {}
            }
            i += 1;
        }
        text.push_str(&self.text[copied..i]);
        self.pos = i + 1;
        Ok((text, i))
    }

    fn quoted(&mut self) -> Result<WordKind, Error> {
        let open = self.pos;
        self.pos += 1;
        let parts = self.parts(Until::Quote)?;
        if self.peek() != Some(b'"') {
            return Err(self.error("missing \"", open, open + 1));
        }
        self.pos += 1;
        self.check_word_end("quote")?;
        Ok(WordKind::Quoted(parts))
    }

    /// A run of text, variable and command parts up to the end given by `until` (not consumed).
    pub(super) fn parts(&mut self, until: Until) -> Result<Vec<Part>, Error> {
        let mut parts = Vec::new();
        let mut text = String::new();
        let mut text_start = self.pos;
        while let Some(b) = self.peek() {
            let ends = match until {
                Until::Bare => is_space(b) || b == b'\n' || b == b';' || (b == b']' && self.nested),
                Until::Quote => b == b'"',
                Until::Paren => b == b')',
            };
            if ends {
                break;
            }
            self.poll()?;
            match b {
                b'\\' if self.flags.backslashes => {
                    if until == Until::Bare && self.at(self.pos + 1) == Some(b'\n') {
                        break; // a word separator
                    }
                    let (c, len) = decode_backslash(self.text, self.pos);
                    text.push(c);
                    self.pos += len;
                }
                b'$' if self.flags.variables => match self.variable()? {
                    Some(part) => {
                        self.flush_text(&mut parts, &mut text, text_start, part.span().start);
                        parts.push(part);
                        text_start = self.pos;
                    }
                    None => {
                        text.push('$');
                        self.pos += 1;
                    }
                },
                b'[' if self.flags.commands => {
                    let open = self.pos;
                    self.flush_text(&mut parts, &mut text, text_start, self.base + open);
                    parts.push(self.bracket()?);
                    text_start = self.pos;
                }
                _ => {
                    // A run of ordinary text up to the next byte that may end the word or
                    // start a substitution (all ASCII, so the run ends on a char boundary).
                    let mut end = self.pos + 1;
                    while end < self.src.len() && !may_be_special(self.src[end]) {
                        end += 1;
                    }
                    text.push_str(&self.text[self.pos..end]);
                    self.pos = end;
                }
            }
        }
        self.flush_text(&mut parts, &mut text, text_start, self.base + self.pos);
        Ok(parts)
    }

    fn flush_text(&self, parts: &mut Vec<Part>, text: &mut String, start: usize, end: usize) {
        if !text.is_empty() {
            parts.push(Part::Text {
                text: std::mem::take(text),
                span: Span::new(self.base + start, end),
            });
        }
    }

    /// `[script]` at the cursor.
    pub(super) fn bracket(&mut self) -> Result<Part, Error> {
        stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, || self.bracket_inner())
    }

    fn bracket_inner(&mut self) -> Result<Part, Error> {
        let open = self.pos;
        self.descend(open)?;
        self.pos += 1;
        let script = self
            .script(true)
            .map_err(|e| self.relocate_missing(e, "missing close-bracket", open))?;
        self.depth -= 1;
        Ok(Part::Command {
            script,
            span: self.span(open, self.pos),
        })
    }

    /// An error about a missing closer found at the end of the text is reported at the opener.
    fn relocate_missing(&self, e: Error, message: &str, open: usize) -> Error {
        if e.message == message && e.span.is_empty() {
            self.error(message, open, open + 1)
        } else {
            e
        }
    }

    /// `$name`, `${name}` or `$name(index)` at the cursor (on `$`); `None` if the `$` is not
    /// followed by a variable name and so stands for itself.
    pub(super) fn variable(&mut self) -> Result<Option<Part>, Error> {
        let dollar = self.pos;
        let mut i = dollar + 1;
        if self.at(i) == Some(b'{') {
            let Some(close) = self.src[i..].iter().position(|&b| b == b'}') else {
                return Err(self.error(
                    "missing close-brace for variable name",
                    dollar,
                    dollar + 1,
                ));
            };
            let name = self.text[i + 1..i + close].to_string();
            self.pos = i + close + 1;
            return Ok(Some(Part::Variable {
                name,
                index: None,
                span: self.span(dollar, self.pos),
            }));
        }
        loop {
            match self.at(i) {
                Some(b) if is_var_char(b) => i += 1,
                Some(b':') if self.at(i + 1) == Some(b':') => {
                    i += 2;
                    while self.at(i) == Some(b':') {
                        i += 1;
                    }
                }
                _ => break,
            }
        }
        if i == dollar + 1 {
            return Ok(None);
        }
        let name = self.text[dollar + 1..i].to_string();
        self.pos = i;
        let mut index = None;
        if self.peek() == Some(b'(') {
            let open = self.pos;
            self.descend(open)?;
            self.pos += 1;
            let parts = self.parts(Until::Paren)?;
            if self.peek() != Some(b')') {
                return Err(self.error("missing )", open, open + 1));
            }
            self.pos += 1;
            self.depth -= 1;
            index = Some(parts);
        }
        Ok(Some(Part::Variable {
            name,
            index,
            span: self.span(dollar, self.pos),
        }))
    }
}

/// Parses the parts of a text as if it were the inside of a quoted word, performing only the
/// substitutions `flags` asks for (used by `subst`).
pub fn parse_subst(
    text: &str,
    base: usize,
    max_depth: usize,
    flags: SubstFlags,
) -> Result<Vec<Part>, Error> {
    let mut p = Parser::new(text, base, max_depth);
    p.flags = flags;
    let mut parts = Vec::new();
    while p.pos < p.src.len() {
        // A stray quote is ordinary text here.
        let mut more = p.parts(Until::Quote)?;
        parts.append(&mut more);
        if p.peek() == Some(b'"') {
            let start = p.pos;
            p.pos += 1;
            parts.push(Part::Text {
                text: "\"".into(),
                span: p.span(start, p.pos),
            });
        }
    }
    Ok(parts)
}

#[cfg(test)]
mod tests;
