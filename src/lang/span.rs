//! Byte spans into a scene text and their translation to lines and columns.
//!
//! Every word and command the interpreter runs remembers where it came from, so that errors,
//! the language viewer's highlighting and graphical edits (which rewrite one literal in place)
//! can all point at exact bytes of the one text that is the document.

use std::fmt;

/// A half-open byte range `start..end` in the scene text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub const fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    pub const fn len(&self) -> usize {
        self.end - self.start
    }

    pub const fn is_empty(&self) -> bool {
        self.end == self.start
    }

    /// The smallest span covering both.
    pub fn join(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }

    pub fn contains(&self, other: Span) -> bool {
        self.start <= other.start && other.end <= self.end
    }

    /// This span moved by `delta` bytes (used when a parsed fragment is placed into its text).
    pub fn shifted(self, delta: usize) -> Span {
        Span::new(self.start + delta, self.end + delta)
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

/// A 1-based line and column; columns count characters, not bytes, as editors show them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LineCol {
    pub line: usize,
    pub column: usize,
}

impl fmt::Display for LineCol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// Start offsets of the lines of a text, for turning byte offsets into lines and columns.
#[derive(Clone, Debug)]
pub struct LineIndex {
    line_starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { line_starts }
    }

    /// Line and column of byte `offset` of `text` (the text this index was built from).
    /// Offsets past the end map to the end; offsets inside a UTF-8 sequence count as the
    /// character they belong to.
    pub fn line_col(&self, text: &str, offset: usize) -> LineCol {
        let offset = offset.min(text.len());
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = self.line_starts[line];
        let column = text.as_bytes()[start..offset]
            .iter()
            .filter(|&&b| (b & 0xC0) != 0x80)
            .count();
        LineCol {
            line: line + 1,
            column: column + 1,
        }
    }

    /// Byte offset of a 1-based line and column (the inverse of [`LineIndex::line_col`]).
    pub fn offset(&self, text: &str, at: LineCol) -> usize {
        let Some(&start) = self.line_starts.get(at.line.saturating_sub(1)) else {
            return text.len();
        };
        let mut chars = text[start..].char_indices();
        for _ in 1..at.column {
            match chars.next() {
                Some((_, '\n')) | None => break,
                Some(_) => {}
            }
        }
        start + chars.next().map_or(text.len() - start, |(i, _)| i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_are_one_based_and_count_characters() {
        let text = "ab\nçd\n\nx";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_col(text, 0), LineCol { line: 1, column: 1 });
        assert_eq!(idx.line_col(text, 3), LineCol { line: 2, column: 1 });
        // 'ç' is two bytes; 'd' is the second character of line 2.
        assert_eq!(idx.line_col(text, 5), LineCol { line: 2, column: 2 });
        assert_eq!(idx.line_col(text, 7), LineCol { line: 3, column: 1 });
        assert_eq!(idx.line_col(text, 8), LineCol { line: 4, column: 1 });
        assert_eq!(idx.line_col(text, 100), LineCol { line: 4, column: 2 });
    }

    #[test]
    fn offset_inverts_line_col() {
        let text = "ab\nçd\n\nx";
        let idx = LineIndex::new(text);
        for (i, _) in text.char_indices() {
            assert_eq!(idx.offset(text, idx.line_col(text, i)), i);
        }
    }
}
