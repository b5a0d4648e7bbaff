//! Document type definitions: the subset of SGML DTDs that `schemas/asgard-document.dtd` uses,
//! and validation of documents against one.
//!
//! Supported declarations: comments `<!-- … -->`; `<!ELEMENT names - - model>` where `names` is
//! one name or a group `(A | B)`, the tag-omission flags are `- -` (both tags required; they
//! may be left out) and the model is a group built with `,` `|` `?` `*` `+` and `#PCDATA`;
//! `<!ATTLIST names (NAME type default)+>` with type `CDATA`, `NAME`, `NUMBER` or an
//! enumeration `(a | b)`, and default `#REQUIRED`, `#IMPLIED` or a value. Comments
//! `-- … --` inside declarations are skipped. Anything else is a located error.
//!
//! Enumerated values are what make minimised attributes readable: `<DOCUMENT CMEMO>` sets the
//! attribute of `DOCUMENT` whose enumeration holds `CMEMO`. SGML requires that value to belong
//! to one attribute only, and so does [`Dtd::parse`].

mod model;
mod validate;

pub use model::{ContentModel, Matcher, Occurrence, Particle};
pub use validate::validate;

use super::error::{DocError, ErrorKind};
use super::escape::is_name_byte;
use crate::lang::span::{LineIndex, Span};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The text of `schemas/asgard-document.dtd`, built into the program.
pub const ASGARD_DTD: &str = include_str!("../../../schemas/asgard-document.dtd");

/// A parsed DTD: the declared elements by upper-case name.
#[derive(Clone, Debug, PartialEq)]
pub struct Dtd {
    pub elements: BTreeMap<String, ElementDecl>,
}

/// One element type.
#[derive(Clone, Debug, PartialEq)]
pub struct ElementDecl {
    pub name: String,
    pub model: ContentModel,
    pub attributes: Vec<AttributeDecl>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttributeDecl {
    pub name: String,
    pub value_type: ValueType,
    pub default: DefaultValue,
}

/// What values an attribute takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValueType {
    /// Any text.
    Cdata,
    /// A name: a letter, then letters, digits, `.`, `-`, `_`.
    Name,
    /// Digits.
    Number,
    /// One of these tokens (compared without regard to case), upper-cased.
    Enumerated(Vec<String>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DefaultValue {
    Required,
    Implied,
    Value(String),
}

impl ValueType {
    /// Whether `value` is of this type.
    pub fn admits(&self, value: &str) -> bool {
        match self {
            ValueType::Cdata => true,
            ValueType::Name => {
                value
                    .bytes()
                    .next()
                    .is_some_and(|b| b.is_ascii_alphabetic())
                    && value.bytes().all(is_name_byte)
            }
            ValueType::Number => !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()),
            ValueType::Enumerated(values) => values.iter().any(|v| v.eq_ignore_ascii_case(value)),
        }
    }

    /// What `admits` accepts, for messages.
    pub fn describe(&self) -> String {
        match self {
            ValueType::Cdata => "any text".to_string(),
            ValueType::Name => "a name".to_string(),
            ValueType::Number => "a number (digits only)".to_string(),
            ValueType::Enumerated(values) => format!("one of {}", values.join(", ")),
        }
    }
}

impl Dtd {
    /// The DTD of Asgard compound documents (`schemas/asgard-document.dtd`).
    pub fn asgard() -> &'static Dtd {
        static DTD: OnceLock<Dtd> = OnceLock::new();
        DTD.get_or_init(|| {
            Dtd::parse(ASGARD_DTD)
                .unwrap_or_else(|e| panic!("schemas/asgard-document.dtd:{e} (a build defect)"))
        })
    }

    /// Reads a DTD text.
    pub fn parse(text: &str) -> Result<Dtd, DocError> {
        let lines = LineIndex::new(text);
        let mut parser = Parser {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            lines: &lines,
        };
        let mut elements: BTreeMap<String, ElementDecl> = BTreeMap::new();
        let mut attlists: Vec<(Vec<String>, Vec<AttributeDecl>, Span)> = Vec::new();
        loop {
            parser.skip_space();
            if parser.pos == parser.bytes.len() {
                break;
            }
            let start = parser.pos;
            if parser.eat("<!--") {
                parser.skip_past("-->", start)?;
                continue;
            }
            if !parser.eat("<!") {
                return Err(parser.expected("`<!ELEMENT`, `<!ATTLIST` or a comment"));
            }
            let keyword = parser.word().to_string();
            match keyword.to_ascii_uppercase().as_str() {
                "ELEMENT" => {
                    let names = parser.names()?;
                    parser.omission_flags()?;
                    let model = ContentModel::compile(&parser.model()?);
                    parser.close()?;
                    for name in names {
                        if elements.contains_key(&name) {
                            return Err(parser.inconsistent(
                                format!("element `{name}` is declared twice"),
                                Span::new(start, parser.pos),
                            ));
                        }
                        let decl = ElementDecl {
                            name: name.clone(),
                            model: model.clone(),
                            attributes: Vec::new(),
                        };
                        elements.insert(name, decl);
                    }
                }
                "ATTLIST" => {
                    let names = parser.names()?;
                    let mut attributes = Vec::new();
                    loop {
                        parser.skip_space();
                        if parser.eat(">") {
                            break;
                        }
                        attributes.push(parser.attribute_definition()?);
                    }
                    if attributes.is_empty() {
                        return Err(parser.expected("an attribute definition"));
                    }
                    attlists.push((names, attributes, Span::new(start, parser.pos)));
                }
                _ => {
                    return Err(parser.error(
                        ErrorKind::DtdSyntax {
                            expected: "`ELEMENT` or `ATTLIST` after `<!`".to_string(),
                            found: format!("`{keyword}`"),
                        },
                        Span::new(start, parser.pos),
                    ))
                }
            }
        }
        for (names, attributes, span) in attlists {
            for name in names {
                let Some(element) = elements.get_mut(&name) else {
                    return Err(parser.inconsistent(
                        format!("attributes declared for undeclared element `{name}`"),
                        span,
                    ));
                };
                for attribute in &attributes {
                    if let Some(clash) = clashing_attribute(&element.attributes, attribute) {
                        return Err(parser.inconsistent(
                            format!("attribute `{}` of `{name}` {clash}", attribute.name),
                            span,
                        ));
                    }
                    element.attributes.push(attribute.clone());
                }
            }
        }
        Ok(Dtd { elements })
    }
}

/// Why `new` cannot join `existing` attributes of one element, if it cannot.
fn clashing_attribute(existing: &[AttributeDecl], new: &AttributeDecl) -> Option<String> {
    if existing.iter().any(|a| a.name == new.name) {
        return Some("is declared twice".to_string());
    }
    let ValueType::Enumerated(values) = &new.value_type else {
        return None;
    };
    existing.iter().find_map(|a| match &a.value_type {
        ValueType::Enumerated(others) => values.iter().find(|v| others.contains(v)).map(|v| {
            format!(
                "shares the value `{v}` with `{}`, so `{v}` alone would be ambiguous",
                a.name
            )
        }),
        _ => None,
    })
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    lines: &'a LineIndex,
}

impl Parser<'_> {
    fn error(&self, kind: ErrorKind, span: Span) -> DocError {
        DocError::new(kind, span, self.text, self.lines)
    }

    fn found(&self) -> String {
        match self.text[self.pos..].chars().next() {
            None => "the end of the DTD".to_string(),
            Some('\n') => "a line break".to_string(),
            Some(c) => format!("`{c}`"),
        }
    }

    fn expected(&self, what: &str) -> DocError {
        let end = self.text[self.pos..]
            .chars()
            .next()
            .map_or(self.pos, |c| self.pos + c.len_utf8());
        self.error(
            ErrorKind::DtdSyntax {
                expected: what.to_string(),
                found: self.found(),
            },
            Span::new(self.pos, end),
        )
    }

    fn inconsistent(&self, message: String, span: Span) -> DocError {
        self.error(ErrorKind::DtdInconsistent { message }, span)
    }

    /// Skips white space and `-- … --` comments inside a declaration.
    fn skip_space(&mut self) {
        loop {
            while self
                .bytes
                .get(self.pos)
                .is_some_and(|b| b.is_ascii_whitespace())
            {
                self.pos += 1;
            }
            if !self.text[self.pos..].starts_with("--") || self.text[self.pos..].starts_with("-->")
            {
                return;
            }
            match self.text[self.pos + 2..].find("--") {
                Some(i) => self.pos += 2 + i + 2,
                None => return,
            }
        }
    }

    fn eat(&mut self, s: &str) -> bool {
        if self.text[self.pos..].starts_with(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }

    fn skip_past(&mut self, end: &str, start: usize) -> Result<(), DocError> {
        match self.text[self.pos..].find(end) {
            Some(i) => {
                self.pos += i + end.len();
                Ok(())
            }
            None => Err(self.error(ErrorKind::UnterminatedComment, Span::new(start, start + 4))),
        }
    }

    /// A run of name characters (possibly empty).
    fn word(&mut self) -> &str {
        let start = self.pos;
        while self.bytes.get(self.pos).is_some_and(|&b| is_name_byte(b)) {
            self.pos += 1;
        }
        &self.text[start..self.pos]
    }

    /// An element or attribute name, upper-cased.
    fn name(&mut self, what: &str) -> Result<String, DocError> {
        self.skip_space();
        if !self
            .bytes
            .get(self.pos)
            .is_some_and(|b| b.is_ascii_alphabetic())
        {
            return Err(self.expected(what));
        }
        Ok(self.word().to_ascii_uppercase())
    }

    /// `NAME` or `(NAME | NAME …)`.
    fn names(&mut self) -> Result<Vec<String>, DocError> {
        self.skip_space();
        if !self.eat("(") {
            return Ok(vec![self.name("an element name or `(`")?]);
        }
        let mut names = vec![self.name("an element name")?];
        loop {
            self.skip_space();
            if self.eat(")") {
                return Ok(names);
            }
            if !self.eat("|") {
                return Err(self.expected("`|` or `)`"));
            }
            names.push(self.name("an element name")?);
        }
    }

    /// The tag-omission flags: `- -` (or none), since every tag must be written.
    fn omission_flags(&mut self) -> Result<(), DocError> {
        self.skip_space();
        let start = self.pos;
        let flag = |p: &mut Parser| {
            p.skip_space();
            match p.bytes.get(p.pos) {
                Some(b'-') => {
                    p.pos += 1;
                    Some(true)
                }
                Some(b'O' | b'o') if !p.bytes.get(p.pos + 1).is_some_and(|&b| is_name_byte(b)) => {
                    p.pos += 1;
                    Some(false)
                }
                _ => None,
            }
        };
        match (flag(self), flag(self)) {
            (None, _) => {
                self.pos = start;
                Ok(())
            }
            (Some(true), Some(true)) => Ok(()),
            (Some(_), Some(_)) => Err(self.inconsistent(
                "tag omission (`O`) is not supported; expected `- -`: every tag is written"
                    .to_string(),
                Span::new(start, self.pos),
            )),
            (Some(_), None) => Err(self.expected("a second tag-omission flag `-`")),
        }
    }

    /// A content model: a parenthesised group.
    fn model(&mut self) -> Result<Particle, DocError> {
        self.skip_space();
        if !self.eat("(") {
            return Err(self.expected("a content model in parentheses"));
        }
        self.group()
    }

    /// The rest of a group after its `(`, with its occurrence indicator.
    fn group(&mut self) -> Result<Particle, DocError> {
        let mut items = vec![self.item()?];
        let mut connector: Option<u8> = None;
        loop {
            self.skip_space();
            if self.eat(")") {
                break;
            }
            match self.bytes.get(self.pos) {
                Some(&c @ (b',' | b'|')) if connector.is_none_or(|k| k == c) => {
                    connector = Some(c);
                    self.pos += 1;
                    items.push(self.item()?);
                }
                Some(b',' | b'|') => {
                    return Err(self.expected("the same connector throughout a group"))
                }
                _ => return Err(self.expected("`,`, `|` or `)`")),
            }
        }
        let occurrence = self.occurrence();
        Ok(match connector {
            Some(b'|') => Particle::Choice(items, occurrence),
            _ => Particle::Seq(items, occurrence),
        })
    }

    fn item(&mut self) -> Result<Particle, DocError> {
        self.skip_space();
        if self.eat("(") {
            return self.group();
        }
        if self.eat("#") {
            let word = self.word();
            if word.eq_ignore_ascii_case("PCDATA") {
                return Ok(Particle::PcData);
            }
            self.pos -= word.len() + 1;
            return Err(self.expected("`#PCDATA`"));
        }
        let name = self.name("an element name, `#PCDATA` or `(`")?;
        Ok(Particle::Element(name, self.occurrence()))
    }

    fn occurrence(&mut self) -> Occurrence {
        let occurrence = match self.bytes.get(self.pos) {
            Some(b'?') => Occurrence::Optional,
            Some(b'*') => Occurrence::ZeroOrMore,
            Some(b'+') => Occurrence::OneOrMore,
            _ => return Occurrence::Once,
        };
        self.pos += 1;
        occurrence
    }

    fn close(&mut self) -> Result<(), DocError> {
        self.skip_space();
        if self.eat(">") {
            Ok(())
        } else {
            Err(self.expected("`>`"))
        }
    }

    /// `NAME type default` in an attribute list.
    fn attribute_definition(&mut self) -> Result<AttributeDecl, DocError> {
        let name = self.name("an attribute name or `>`")?;
        self.skip_space();
        let type_start = self.pos;
        let value_type = if self.eat("(") {
            let mut values = Vec::new();
            loop {
                self.skip_space();
                let value = self.word().to_ascii_uppercase();
                if value.is_empty() {
                    return Err(self.expected("an enumerated value"));
                }
                values.push(value);
                self.skip_space();
                if self.eat(")") {
                    break ValueType::Enumerated(values);
                }
                if !self.eat("|") {
                    return Err(self.expected("`|` or `)`"));
                }
            }
        } else {
            match self.word().to_ascii_uppercase().as_str() {
                "CDATA" => ValueType::Cdata,
                "NAME" => ValueType::Name,
                "NUMBER" => ValueType::Number,
                _ => {
                    self.pos = type_start;
                    return Err(self.expected("`CDATA`, `NAME`, `NUMBER` or `(`"));
                }
            }
        };
        self.skip_space();
        let default_start = self.pos;
        let default = if self.eat("#") {
            match self.word().to_ascii_uppercase().as_str() {
                "REQUIRED" => DefaultValue::Required,
                "IMPLIED" => DefaultValue::Implied,
                _ => {
                    self.pos = default_start;
                    return Err(self.expected("`#REQUIRED`, `#IMPLIED` or a default value"));
                }
            }
        } else if let Some(&q @ (b'"' | b'\'')) = self.bytes.get(self.pos) {
            let Some(len) = self.text[self.pos + 1..].find(q as char) else {
                return Err(self.expected("a closed quoted default value"));
            };
            let value = self.text[self.pos + 1..self.pos + 1 + len].to_string();
            self.pos += len + 2;
            DefaultValue::Value(value)
        } else {
            let value = self.word().to_string();
            if value.is_empty() {
                return Err(self.expected("`#REQUIRED`, `#IMPLIED` or a default value"));
            }
            DefaultValue::Value(value)
        };
        if let DefaultValue::Value(value) = &default {
            if !value_type.admits(value) {
                return Err(self.inconsistent(
                    format!(
                        "default `{value}` of attribute `{name}` is not {}",
                        value_type.describe()
                    ),
                    Span::new(default_start, self.pos),
                ));
            }
        }
        Ok(AttributeDecl {
            name,
            value_type,
            default,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_asgard_dtd_parses() {
        let dtd = Dtd::asgard();
        for name in [
            "DOCUMENT",
            "CMEMO",
            "BODY",
            "PARAGRAPH",
            "TEXT",
            "ANIMATION",
            "ASGARD",
        ] {
            assert!(dtd.elements.contains_key(name), "{name}");
        }
        let document = &dtd.elements["DOCUMENT"];
        assert!(matches!(
            &document.attributes[0].value_type,
            ValueType::Enumerated(v) if v.contains(&"CMEMO".to_string())
        ));
    }

    #[test]
    fn declarations_groups_and_defaults() {
        let dtd = Dtd::parse(
            "<!-- c --> <!ELEMENT (A|b) - - ((C, D?)+ | #PCDATA) -- note -- >\n\
             <!element C - - (#PCDATA)> <!ELEMENT D (#PCDATA)>\n\
             <!ATTLIST (A | B) k (x | Y) x n NUMBER #IMPLIED s CDATA \"any thing\" m NAME #REQUIRED>",
        )
        .unwrap();
        assert_eq!(
            dtd.elements.keys().collect::<Vec<_>>(),
            ["A", "B", "C", "D"]
        );
        let b = &dtd.elements["B"];
        assert!(b.model.mixed);
        assert_eq!(b.attributes.len(), 4);
        assert_eq!(
            b.attributes[0],
            AttributeDecl {
                name: "K".into(),
                value_type: ValueType::Enumerated(vec!["X".into(), "Y".into()]),
                default: DefaultValue::Value("x".into()),
            }
        );
        assert_eq!(b.attributes[3].default, DefaultValue::Required);
    }

    fn dtd_error(text: &str) -> (String, String) {
        let e = Dtd::parse(text).unwrap_err();
        (e.at.to_string(), e.kind.to_string())
    }

    #[test]
    fn dtd_errors_are_located() {
        assert_eq!(
            dtd_error("<!ELEMENT A - - (B, C | D)>"),
            (
                "1:23".into(),
                "expected the same connector throughout a group, found `|`".into()
            )
        );
        assert_eq!(dtd_error("<!ELEMENT A - O (B)>").0, "1:13");
        assert_eq!(
            dtd_error("<!ELEMENT A - - (B)\n<!ELEMENT B - - (#PCDATA)>"),
            ("2:1".into(), "expected `>`, found `<`".into())
        );
        assert_eq!(
            dtd_error("<!ENTITY x \"y\">").1,
            "expected `ELEMENT` or `ATTLIST` after `<!`, found `ENTITY`"
        );
        assert_eq!(
            dtd_error("<!ELEMENT A - - (#PCDATA)>\n<!ATTLIST A k (x|y) #IMPLIED j (y|z) #IMPLIED>")
                .1,
            "attribute `J` of `A` shares the value `Y` with `K`, so `Y` alone would be ambiguous"
        );
        assert_eq!(
            dtd_error("<!ELEMENT A - - (#PCDATA)>\n<!ATTLIST A n NUMBER x>").0,
            "2:22"
        );
        assert_eq!(
            dtd_error("<!ATTLIST A n NUMBER #IMPLIED>").1,
            "attributes declared for undeclared element `A`"
        );
        assert_eq!(
            dtd_error("<!ELEMENT A - - (#PCDATA)>\n<!ELEMENT a - - (#PCDATA)>").1,
            "element `A` is declared twice"
        );
        assert_eq!(dtd_error("<!-- open").0, "1:1");
    }

    proptest! {
        /// Any text either reads as a DTD or gives a located error; it never panics.
        #[test]
        fn any_dtd_text_reads_or_fails_cleanly(
            parts in proptest::collection::vec(
                prop_oneof![
                    proptest::sample::select(vec![
                        "<!ELEMENT ", "<!ATTLIST ", "<!--", "-->", "--", " - - ", " O ", "(", ")",
                        "|", ",", "?", "*", "+", "#PCDATA", "#REQUIRED", "#IMPLIED", "CDATA",
                        "NUMBER", "A", "b", "\"x\"", "'", ">", " ", "\n", "é", "#",
                    ])
                    .prop_map(str::to_string),
                    "[^\u{0}]{0,2}",
                ],
                0..30,
            )
        ) {
            let text = parts.concat();
            if let Err(e) = Dtd::parse(&text) {
                prop_assert!(e.span.start <= text.len());
            }
        }
    }
}
