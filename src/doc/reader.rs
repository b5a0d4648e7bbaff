//! Reading a document text into a [`Tree`], keeping every node's bytes.
//!
//! The syntax is the subset of SGML that Ensemble documents use: elements with explicit start
//! and end tags (names in any case), attributes written `NAME=VALUE` (quoted or a name token)
//! or minimised to the value alone, comments `<!-- … -->`, one `<!DOCTYPE …>` before the first
//! element, and character data with references. No tag omission, no marked sections, no
//! processing instructions: each of those is reported, located, rather than misread.

use super::error::{DocError, ErrorKind};
use super::escape::{decode_text, is_name_byte};
use super::tree::{Attribute, Element, Node, NodeId, NodeKind, Tree};
use crate::lang::span::{LineIndex, Span};

/// How deeply elements may nest. Real documents nest a handful of levels; the bound keeps
/// every walk over a tree (the validator's, the host's view) far from any stack limit, and a
/// hostile document from costing more than its size says.
pub const MAX_NESTING: usize = 1000;

/// A UTF-8 byte-order mark, which editors on some systems put at the start of a text file.
const BYTE_ORDER_MARK: &str = "\u{feff}";

/// Reads `text` (whose line index is `lines`) into a tree. A byte-order mark at the start is
/// kept in the text (saving writes it back) but is not content. A NUL character anywhere is
/// an error at its line and column.
pub(crate) fn read(text: &str, lines: &LineIndex) -> Result<Tree, DocError> {
    if let Some(nul) = text.find('\0') {
        let span = Span::new(nul, nul + 1);
        return Err(DocError::new(ErrorKind::NulByte, span, text, lines));
    }
    let start = if text.starts_with(BYTE_ORDER_MARK) {
        BYTE_ORDER_MARK.len()
    } else {
        0
    };
    let mut reader = Reader {
        text,
        bytes: text.as_bytes(),
        pos: start,
        tree: Tree::default(),
        open: Vec::new(),
        lines,
        seen_element: false,
    };
    while reader.pos < reader.bytes.len() {
        if reader.bytes[reader.pos] == b'<' {
            reader.markup()?;
        } else {
            reader.character_data()?;
        }
    }
    if let Some(&innermost) = reader.open.last() {
        let e = reader.element(innermost);
        let (name, span) = (e.name.clone(), e.start_tag);
        return Err(reader.error(ErrorKind::UnclosedElement { name }, span));
    }
    Ok(reader.tree)
}

struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    tree: Tree,
    /// The elements whose end tag has not been read yet, innermost last.
    open: Vec<NodeId>,
    lines: &'a LineIndex,
    seen_element: bool,
}

impl Reader<'_> {
    fn error(&self, kind: ErrorKind, span: Span) -> DocError {
        DocError::new(kind, span, self.text, self.lines)
    }

    fn element(&self, id: NodeId) -> &Element {
        match &self.tree.nodes[id.0].kind {
            NodeKind::Element(e) => e,
            _ => unreachable!("only elements are pushed on the open stack"),
        }
    }

    fn element_mut(&mut self, id: NodeId) -> &mut Element {
        match &mut self.tree.nodes[id.0].kind {
            NodeKind::Element(e) => e,
            _ => unreachable!("only elements are pushed on the open stack"),
        }
    }

    fn push(&mut self, span: Span, kind: NodeKind) -> NodeId {
        let id = NodeId(self.tree.nodes.len());
        let parent = self.open.last().copied();
        self.tree.nodes.push(Node { span, parent, kind });
        match parent {
            Some(p) => self.element_mut(p).children.push(id),
            None => self.tree.roots.push(id),
        }
        id
    }

    fn rest_starts_with(&self, prefix: &str) -> bool {
        self.bytes[self.pos..].starts_with(prefix.as_bytes())
    }

    fn skip_space(&mut self) {
        while self
            .bytes
            .get(self.pos)
            .is_some_and(|b| b.is_ascii_whitespace())
        {
            self.pos += 1;
        }
    }

    /// A name (letter, then letters, digits, `.`, `-`, `_`) at the cursor, or `None`.
    fn name(&mut self) -> Option<&str> {
        let start = self.pos;
        if !self.bytes.get(start).is_some_and(u8::is_ascii_alphabetic) {
            return None;
        }
        self.pos = start + self.token_len(start);
        Some(&self.text[start..self.pos])
    }

    fn token_len(&self, from: usize) -> usize {
        self.bytes[from..]
            .iter()
            .take_while(|&&b| is_name_byte(b))
            .count()
    }

    /// How to name the character at `pos` in a message.
    fn found(&self, pos: usize) -> String {
        match self.text[pos..].chars().next() {
            None => "the end of the text".to_string(),
            Some('\n') => "a line break".to_string(),
            Some(c) => format!("`{c}`"),
        }
    }

    fn character_data(&mut self) -> Result<(), DocError> {
        let start = self.pos;
        let end = self.text[start..]
            .find('<')
            .map_or(self.text.len(), |i| start + i);
        let decoded = decode_text(&self.text[start..end])
            .map_err(|e| self.error(e.kind, e.span.shifted(start)))?;
        self.pos = end;
        self.push(Span::new(start, end), NodeKind::Text(decoded));
        Ok(())
    }

    fn markup(&mut self) -> Result<(), DocError> {
        let start = self.pos;
        if self.rest_starts_with("<!--") {
            self.comment()
        } else if self.rest_starts_with("</") {
            self.end_tag()
        } else if self.rest_starts_with("<!") {
            self.declaration()
        } else if self
            .bytes
            .get(start + 1)
            .is_some_and(u8::is_ascii_alphabetic)
        {
            self.start_tag()
        } else if self.rest_starts_with("<?") {
            Err(self.error(
                ErrorKind::UnsupportedMarkup {
                    markup: "<?".to_string(),
                },
                Span::new(start, start + 2),
            ))
        } else {
            Err(self.error(ErrorKind::ExpectedMarkup, Span::new(start, start + 1)))
        }
    }

    fn comment(&mut self) -> Result<(), DocError> {
        let start = self.pos;
        let Some(close) = self.text[start + 4..].find("-->") else {
            return Err(self.error(ErrorKind::UnterminatedComment, Span::new(start, start + 4)));
        };
        self.pos = start + 4 + close + 3;
        self.push(Span::new(start, self.pos), NodeKind::Comment);
        Ok(())
    }

    /// `<!KEYWORD …>`: only `DOCTYPE` is accepted.
    fn declaration(&mut self) -> Result<(), DocError> {
        let start = self.pos;
        self.pos += 2;
        let keyword = self.name().unwrap_or("").to_string();
        if !keyword.eq_ignore_ascii_case("DOCTYPE") {
            let end = self.pos
                + self.text[self.pos..]
                    .chars()
                    .next()
                    .map_or(0, char::len_utf8);
            let markup = self.text[start..end].to_string();
            return Err(self.error(
                ErrorKind::UnsupportedMarkup { markup },
                Span::new(start, end),
            ));
        }
        if self.seen_element || self.tree.doctype().is_some() {
            return Err(self.error(ErrorKind::MisplacedDoctype, Span::new(start, self.pos)));
        }
        self.skip_space();
        let root = self.name().unwrap_or("").to_ascii_uppercase();
        if root.is_empty() {
            return Err(self.error(
                ErrorKind::DtdSyntax {
                    expected: "the document element's name after `<!DOCTYPE`".to_string(),
                    found: self.found(self.pos),
                },
                Span::new(self.pos, self.pos),
            ));
        }
        // The rest (external identifier, internal subset) is kept as bytes, not interpreted:
        // find the `>` that is outside quotes and brackets.
        let mut quote = None;
        let mut depth = 0usize;
        while let Some(&b) = self.bytes.get(self.pos) {
            self.pos += 1;
            match (quote, b) {
                (Some(q), b) if b == q => quote = None,
                (Some(_), _) => {}
                (None, b'"' | b'\'') => quote = Some(b),
                (None, b'[') => depth += 1,
                (None, b']') => depth = depth.saturating_sub(1),
                (None, b'>') if depth == 0 => {
                    self.push(Span::new(start, self.pos), NodeKind::Doctype { root });
                    return Ok(());
                }
                _ => {}
            }
        }
        Err(self.error(
            ErrorKind::UnterminatedDeclaration { keyword },
            Span::new(start, start + 9),
        ))
    }

    fn start_tag(&mut self) -> Result<(), DocError> {
        let start = self.pos;
        self.pos += 1;
        let name = self.name().unwrap_or_default().to_ascii_uppercase();
        let mut attributes: Vec<Attribute> = Vec::new();
        loop {
            self.skip_space();
            match self.bytes.get(self.pos) {
                Some(b'>') => {
                    self.pos += 1;
                    break;
                }
                None | Some(b'<') => {
                    return Err(self.error(
                        ErrorKind::UnterminatedTag { name },
                        Span::new(start, self.pos),
                    ))
                }
                Some(&b) if is_name_byte(b) => {
                    let attribute = self.attribute()?;
                    if let Some(n) = &attribute.name {
                        if attributes.iter().any(|a| a.name.as_ref() == Some(n)) {
                            return Err(self.error(
                                ErrorKind::DuplicateAttribute { name: n.clone() },
                                attribute.span,
                            ));
                        }
                    }
                    attributes.push(attribute);
                }
                Some(_) => {
                    let len = self.text[self.pos..]
                        .chars()
                        .next()
                        .map_or(0, char::len_utf8);
                    return Err(self.error(
                        ErrorKind::ExpectedAttribute {
                            name,
                            found: self.found(self.pos),
                        },
                        Span::new(self.pos, self.pos + len),
                    ));
                }
            }
        }
        if self.open.len() >= MAX_NESTING {
            return Err(self.error(
                ErrorKind::TooDeep {
                    name,
                    limit: MAX_NESTING,
                },
                Span::new(start, self.pos),
            ));
        }
        self.seen_element = true;
        let id = self.push(
            Span::new(start, self.pos),
            NodeKind::Element(Element {
                name,
                attributes,
                start_tag: Span::new(start, self.pos),
                content: Span::new(self.pos, self.pos),
                end_tag: Span::new(self.pos, self.pos),
                children: Vec::new(),
            }),
        );
        self.open.push(id);
        Ok(())
    }

    /// `NAME=VALUE` or a minimised `VALUE`, at a name character.
    fn attribute(&mut self) -> Result<Attribute, DocError> {
        let start = self.pos;
        self.pos += self.token_len(start);
        let token = &self.text[start..self.pos];
        let after_token = self.pos;
        self.skip_space();
        if self.bytes.get(self.pos) != Some(&b'=') {
            self.pos = after_token;
            return Ok(Attribute {
                name: None,
                value: token.to_string(),
                span: Span::new(start, after_token),
            });
        }
        let name = token.to_ascii_uppercase();
        self.pos += 1;
        self.skip_space();
        let value = match self.bytes.get(self.pos) {
            Some(&q @ (b'"' | b'\'')) => {
                let open = self.pos;
                let Some(len) = self.text[open + 1..].find(q as char) else {
                    return Err(self.error(
                        ErrorKind::UnterminatedAttributeValue { attribute: name },
                        Span::new(open, open + 1),
                    ));
                };
                let raw = &self.text[open + 1..open + 1 + len];
                self.pos = open + len + 2;
                decode_text(raw).map_err(|e| self.error(e.kind, e.span.shifted(open + 1)))?
            }
            Some(&b) if is_name_byte(b) => {
                let value_start = self.pos;
                self.pos += self.token_len(value_start);
                self.text[value_start..self.pos].to_string()
            }
            _ => {
                return Err(self.error(
                    ErrorKind::ExpectedAttributeValue { attribute: name },
                    Span::new(self.pos, self.pos),
                ));
            }
        };
        Ok(Attribute {
            name: Some(name),
            value,
            span: Span::new(start, self.pos),
        })
    }

    fn end_tag(&mut self) -> Result<(), DocError> {
        let start = self.pos;
        self.pos += 2;
        let Some(name) = self.name().map(str::to_ascii_uppercase) else {
            return Err(self.error(ErrorKind::ExpectedMarkup, Span::new(start, start + 2)));
        };
        self.skip_space();
        if self.bytes.get(self.pos) != Some(&b'>') {
            return Err(self.error(
                ErrorKind::MalformedEndTag { name },
                Span::new(start, self.pos),
            ));
        }
        self.pos += 1;
        let span = Span::new(start, self.pos);
        let Some(&innermost) = self.open.last() else {
            return Err(self.error(ErrorKind::UnexpectedEndTag { found: name }, span));
        };
        let open = self.element(innermost);
        if open.name != name {
            let kind = ErrorKind::MismatchedEndTag {
                expected: open.name.clone(),
                found: name,
                opened: self.lines.line_col(self.text, open.start_tag.start),
            };
            return Err(self.error(kind, span));
        }
        self.open.pop();
        let element = self.element_mut(innermost);
        element.content.end = start;
        element.end_tag = span;
        let whole = Span::new(element.start_tag.start, span.end);
        self.tree.nodes[innermost.0].span = whole;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn read_str(text: &str) -> Result<Tree, DocError> {
        read(text, &LineIndex::new(text))
    }

    fn only_element(tree: &Tree) -> &Element {
        let roots: Vec<_> = tree
            .roots()
            .iter()
            .filter_map(|&r| tree.element(r))
            .collect();
        assert_eq!(roots.len(), 1);
        roots[0]
    }

    #[test]
    fn elements_keep_their_tag_and_content_spans() {
        let text = "<doc A=1>x<B>y</b></DOC>";
        let tree = read_str(text).unwrap();
        let doc = only_element(&tree);
        assert_eq!(doc.name, "DOC");
        assert_eq!(&text[doc.start_tag.start..doc.start_tag.end], "<doc A=1>");
        assert_eq!(&text[doc.content.start..doc.content.end], "x<B>y</b>");
        assert_eq!(&text[doc.end_tag.start..doc.end_tag.end], "</DOC>");
        let b = tree.element(doc.children[1]).unwrap();
        assert_eq!(
            (b.name.as_str(), &text[b.content.start..b.content.end]),
            ("B", "y")
        );
        assert_eq!(tree.text_of(tree.roots()[0]), "xy");
    }

    #[test]
    fn attributes_named_quoted_and_minimised() {
        let text = "<DOCUMENT cmemo w = \"a &amp; b\" h='3' n=4.5>\n</document>";
        let tree = read_str(text).unwrap();
        let e = only_element(&tree);
        let got: Vec<_> = e
            .attributes
            .iter()
            .map(|a| {
                (
                    a.name.as_deref(),
                    a.value.as_str(),
                    &text[a.span.start..a.span.end],
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (None, "cmemo", "cmemo"),
                (Some("W"), "a & b", "w = \"a &amp; b\""),
                (Some("H"), "3", "h='3'"),
                (Some("N"), "4.5", "n=4.5"),
            ]
        );
        assert_eq!(e.attribute("w").unwrap().value, "a & b");
    }

    #[test]
    fn comments_doctype_and_references() {
        let text =
            "<!DOCTYPE Document SYSTEM \"a.dtd\" [ <!-- > --> ]>\n<!-- c -->\n<D>&lt;&#65;</D>";
        let tree = read_str(text).unwrap();
        assert_eq!(tree.doctype(), Some("DOCUMENT"));
        let kinds: Vec<_> = tree
            .roots()
            .iter()
            .map(|&r| match &tree.node(r).kind {
                NodeKind::Element(e) => e.name.clone(),
                NodeKind::Text(t) => format!("text {t:?}"),
                NodeKind::Comment => "comment".into(),
                NodeKind::Doctype { root } => format!("doctype {root}"),
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "doctype DOCUMENT",
                "text \"\\n\"",
                "comment",
                "text \"\\n\"",
                "D"
            ]
        );
        assert_eq!(tree.text_of(*tree.roots().last().unwrap()), "<A");
    }

    fn error(text: &str) -> (String, ErrorKind) {
        let e = read_str(text).unwrap_err();
        (e.at.to_string(), e.kind)
    }

    #[test]
    fn malformed_documents_give_located_errors() {
        let (at, kind) = error("<A>\n  <B>\n</A>");
        assert_eq!(at, "3:1");
        assert_eq!(
            kind.to_string(),
            "expected `</B>` to close the element opened at 2:3, found `</A>`"
        );

        let (at, kind) = error("<A>\n<B>x</B>\n");
        assert_eq!(
            (at.as_str(), kind),
            ("1:1", ErrorKind::UnclosedElement { name: "A".into() })
        );

        let (at, kind) = error("<A>\n<B x=1\n");
        assert_eq!(
            (at.as_str(), kind),
            ("2:1", ErrorKind::UnterminatedTag { name: "B".into() })
        );

        let (at, kind) = error("<A>x</A>\n</B>");
        assert_eq!(
            (at.as_str(), kind),
            ("2:1", ErrorKind::UnexpectedEndTag { found: "B".into() })
        );

        let (at, kind) = error("<A>a < b</A>");
        assert_eq!((at.as_str(), kind), ("1:6", ErrorKind::ExpectedMarkup));

        let (at, kind) = error("<A>\n <!-- never closed\n</A>");
        assert_eq!((at.as_str(), kind), ("2:2", ErrorKind::UnterminatedComment));

        let (at, kind) = error("<A x=\"oops>\n</A>");
        assert_eq!(at, "1:6");
        assert!(matches!(kind, ErrorKind::UnterminatedAttributeValue { .. }));

        let (at, kind) = error("<A x=1 X=2></A>");
        assert_eq!(
            (at.as_str(), kind),
            ("1:8", ErrorKind::DuplicateAttribute { name: "X".into() })
        );

        let (at, kind) = error("<A x=></A>");
        assert_eq!(at, "1:6");
        assert!(matches!(kind, ErrorKind::ExpectedAttributeValue { .. }));

        let (at, kind) = error("<A/>");
        assert_eq!(at, "1:3");
        assert!(matches!(kind, ErrorKind::ExpectedAttribute { .. }));

        let (at, kind) = error("<A>é &bogus; </A>");
        assert_eq!(
            (at.as_str(), kind),
            (
                "1:6",
                ErrorKind::UnknownEntity {
                    name: "bogus".into()
                }
            )
        );

        let (at, kind) = error("<A></A x>");
        assert_eq!(
            (at.as_str(), kind),
            ("1:4", ErrorKind::MalformedEndTag { name: "A".into() })
        );

        let (at, kind) = error("<A></A><!DOCTYPE A>");
        assert_eq!((at.as_str(), kind), ("1:8", ErrorKind::MisplacedDoctype));

        let (at, kind) = error("<A><![CDATA[x]]></A>");
        assert_eq!(at, "1:4");
        assert!(matches!(kind, ErrorKind::UnsupportedMarkup { .. }));

        let (at, kind) = error("<?xml version='1.0'?><A></A>");
        assert_eq!(at, "1:1");
        assert!(matches!(kind, ErrorKind::UnsupportedMarkup { .. }));

        let (at, kind) = error("<!DOCTYPE A [ <!ELEMENT A - - (#PCDATA)>\n");
        assert_eq!(at, "1:1");
        assert!(matches!(kind, ErrorKind::UnterminatedDeclaration { .. }));
    }

    /// Texts made of markup fragments and arbitrary characters.
    fn markup_soup() -> impl Strategy<Value = String> {
        let fragment = prop_oneof![
            proptest::sample::select(vec![
                "<A>",
                "</A>",
                "<b x=1 Y>",
                "</B>",
                "<!--",
                "-->",
                "<!DOCTYPE A [",
                "]>",
                "<!é",
                "<é",
                "&amp;",
                "&#x",
                "&",
                "<",
                ">",
                "'",
                "\"",
                "=",
                "\n",
                "<ASGARD>",
                "</ASGARD>",
                "<A \u{e9}>",
            ])
            .prop_map(str::to_string),
            "[^\u{0}]{0,3}",
        ];
        proptest::collection::vec(fragment, 0..30).prop_map(|parts| parts.concat())
    }

    proptest! {
        /// Any text either reads into a tree whose spans are well nested character ranges of
        /// the text, or gives an error located inside it; it never panics.
        #[test]
        fn any_text_reads_or_fails_cleanly(text in markup_soup()) {
            match read_str(&text) {
                Ok(tree) => {
                    for id in tree.all() {
                        let node = tree.node(id);
                        prop_assert!(node.span.end <= text.len());
                        prop_assert!(text.is_char_boundary(node.span.start));
                        prop_assert!(text.is_char_boundary(node.span.end));
                        if let Some(parent) = node.parent {
                            let inner = tree.element(parent).unwrap().content;
                            prop_assert!(inner.contains(node.span));
                        }
                    }
                }
                Err(e) => {
                    prop_assert!(e.span.start <= text.len());
                    prop_assert!(text.is_char_boundary(e.span.start));
                    prop_assert!(text.is_char_boundary(e.span.end.min(text.len())));
                    prop_assert!(!e.kind.to_string().is_empty());
                }
            }
        }
    }
}
