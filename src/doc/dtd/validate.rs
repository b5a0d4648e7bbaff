//! Checking a document against a DTD: the document element, every element's content and
//! attributes, with minimised attributes resolved through their enumerated values.

use super::{DefaultValue, Dtd, ElementDecl, ValueType};
use crate::doc::document::Document;
use crate::doc::error::{DocError, ErrorKind};
use crate::doc::tree::{Element, NodeId, NodeKind, Tree};
use crate::lang::span::Span;

/// The document element when the document has no `<!DOCTYPE …>` line.
const DEFAULT_ROOT: &str = "DOCUMENT";

/// Checks `document` against the Asgard DTD; returns every problem found, in text order.
pub fn validate(document: &Document) -> Vec<DocError> {
    let root = document.tree().doctype().unwrap_or(DEFAULT_ROOT);
    Dtd::asgard().validate(document, root)
}

impl Dtd {
    /// Checks `document`, whose document element must be `root`, against this DTD; returns
    /// every problem found, in text order.
    pub fn validate(&self, document: &Document, root: &str) -> Vec<DocError> {
        let mut check = Check {
            dtd: self,
            document,
            errors: Vec::new(),
        };
        check.top_level(root);
        check.errors.sort_by_key(|e| e.span.start);
        check.errors
    }
}

struct Check<'a> {
    dtd: &'a Dtd,
    document: &'a Document,
    errors: Vec<DocError>,
}

/// Quotes element names for a message.
fn quoted(names: &[String]) -> Vec<String> {
    names.iter().map(|n| format!("`{n}`")).collect()
}

impl<'a> Check<'a> {
    fn report(&mut self, kind: ErrorKind, span: Span) {
        let document = self.document;
        self.errors
            .push(DocError::new(kind, span, document.text(), document.lines()));
    }

    /// The span of the first non-blank character of a text node, if it has one.
    fn non_blank(&self, id: NodeId) -> Option<Span> {
        let span = self.document.tree().node(id).span;
        let raw = self.document.slice(span);
        let offset = raw.find(|c: char| !c.is_whitespace())?;
        let start = span.start + offset;
        let len = raw[offset..].chars().next().map_or(0, char::len_utf8);
        Some(Span::new(start, start + len))
    }

    fn top_level(&mut self, root: &str) {
        let tree = self.document.tree();
        let mut seen_root = false;
        for &id in tree.roots() {
            match &tree.node(id).kind {
                NodeKind::Element(element) if !seen_root => {
                    seen_root = true;
                    if element.name != root.to_ascii_uppercase() {
                        self.report(
                            ErrorKind::WrongRoot {
                                expected: root.to_string(),
                                found: format!("`{}`", element.name),
                            },
                            element.start_tag,
                        );
                    }
                    self.elements(element);
                }
                NodeKind::Element(element) => self.report(
                    ErrorKind::ElementNotAllowed {
                        parent: "the document".to_string(),
                        found: element.name.clone(),
                        expected: vec!["the end of the document".to_string()],
                    },
                    element.start_tag,
                ),
                NodeKind::Text(_) => {
                    if let Some(span) = self.non_blank(id) {
                        self.report(
                            ErrorKind::TextNotAllowed {
                                parent: "the document".to_string(),
                            },
                            span,
                        );
                    }
                }
                NodeKind::Comment | NodeKind::Doctype { .. } => {}
            }
        }
        if !seen_root {
            let end = self.document.text().len();
            self.report(
                ErrorKind::WrongRoot {
                    expected: root.to_string(),
                    found: "no element".to_string(),
                },
                Span::new(end, end),
            );
        }
    }

    /// Checks `top` and every element inside it (each element's content is checked against its
    /// model in [`Check::content`], which does not descend). The walk keeps its own stack of elements
    /// still to check, so a document nested a million deep costs memory, not the thread's
    /// stack.
    fn elements(&mut self, top: &'a Element) {
        let tree: &'a Tree = self.document.tree();
        let mut pending = vec![top];
        while let Some(element) = pending.pop() {
            match self.dtd.elements.get(&element.name) {
                Some(decl) => {
                    self.attributes(element, decl);
                    self.content(element, decl);
                }
                None => self.report(
                    ErrorKind::UndeclaredElement {
                        name: element.name.clone(),
                    },
                    element.start_tag,
                ),
            }
            pending.extend(element.children.iter().filter_map(|&c| tree.element(c)));
        }
    }

    fn attributes(&mut self, element: &Element, decl: &ElementDecl) {
        let mut given: Vec<&str> = Vec::new();
        for attribute in &element.attributes {
            let resolved = match &attribute.name {
                Some(name) => decl.attributes.iter().find(|a| &a.name == name),
                None => decl.attributes.iter().find(|a| {
                    matches!(&a.value_type, ValueType::Enumerated(_))
                        && a.value_type.admits(&attribute.value)
                }),
            };
            let Some(declared) = resolved else {
                let kind = match &attribute.name {
                    Some(name) => ErrorKind::UndeclaredAttribute {
                        element: element.name.clone(),
                        name: name.clone(),
                    },
                    None => ErrorKind::UnmatchedMinimisedValue {
                        element: element.name.clone(),
                        value: attribute.value.clone(),
                        expected: decl
                            .attributes
                            .iter()
                            .filter_map(|a| match &a.value_type {
                                ValueType::Enumerated(values) => Some(values.clone()),
                                _ => None,
                            })
                            .flatten()
                            .collect(),
                    },
                };
                self.report(kind, attribute.span);
                continue;
            };
            if given.contains(&declared.name.as_str()) {
                self.report(
                    ErrorKind::DuplicateAttribute {
                        name: declared.name.clone(),
                    },
                    attribute.span,
                );
                continue;
            }
            given.push(&declared.name);
            if !declared.value_type.admits(&attribute.value) {
                self.report(
                    ErrorKind::BadAttributeValue {
                        name: declared.name.clone(),
                        value: attribute.value.clone(),
                        expected: declared.value_type.describe(),
                    },
                    attribute.span,
                );
            }
        }
        for declared in &decl.attributes {
            if declared.default == DefaultValue::Required
                && !given.contains(&declared.name.as_str())
            {
                self.report(
                    ErrorKind::MissingAttribute {
                        element: element.name.clone(),
                        name: declared.name.clone(),
                    },
                    element.start_tag,
                );
            }
        }
    }

    fn content(&mut self, element: &Element, decl: &ElementDecl) {
        let tree = self.document.tree();
        let mut matcher = decl.model.matcher();
        for &child in &element.children {
            match &tree.node(child).kind {
                NodeKind::Element(e) => {
                    // An undeclared child is reported as such, not also as misplaced.
                    let declared = self.dtd.elements.contains_key(&e.name);
                    if declared && !matcher.step(&e.name) {
                        let mut expected = quoted(&matcher.expected());
                        if matcher.accepts_end() {
                            expected.push(format!("`</{}>`", element.name));
                        }
                        self.report(
                            ErrorKind::ElementNotAllowed {
                                parent: element.name.clone(),
                                found: e.name.clone(),
                                expected,
                            },
                            e.start_tag,
                        );
                        matcher.recover(&e.name);
                    }
                }
                NodeKind::Text(_) if !decl.model.mixed => {
                    if let Some(span) = self.non_blank(child) {
                        self.report(
                            ErrorKind::TextNotAllowed {
                                parent: element.name.clone(),
                            },
                            span,
                        );
                    }
                }
                NodeKind::Text(_) | NodeKind::Comment | NodeKind::Doctype { .. } => {}
            }
        }
        if !matcher.accepts_end() {
            self.report(
                ErrorKind::IncompleteContent {
                    element: element.name.clone(),
                    expected: quoted(&matcher.expected()),
                },
                element.end_tag,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const MEMO: &str = include_str!("../../../examples/memo.sgml");

    /// The problems `validate` finds in `text`, as `LINE:COL: message`.
    fn problems(text: &str) -> Vec<String> {
        let document = Document::parse(text.to_string()).unwrap();
        validate(&document).iter().map(|e| e.to_string()).collect()
    }

    #[test]
    fn the_memo_is_valid() {
        assert_eq!(problems(MEMO), Vec::<String>::new());
    }

    #[test]
    fn content_model_violations_say_what_was_expected() {
        let text = MEMO.replace("<SUBJECT>Asgard within Ensemble</SUBJECT>\n", "");
        assert_eq!(
            problems(&text),
            ["5:1: element `BODY` is not allowed here in `CMEMO`; expected `CC`, `DATE` or `SUBJECT`"]
        );

        let text = MEMO.replace("<BODY>\n", "<BODY>\nstray words\n");
        assert_eq!(
            problems(&text),
            ["7:1: character data is not allowed in `BODY`; expected elements only"]
        );

        let text = MEMO.replace("<TEXT>Thanks", "<TEXT><EMPH>Thanks</EMPH>");
        assert_eq!(
            problems(&text),
            ["20:7: element `EMPH` is not allowed here in `TEXT`; expected `</TEXT>`"]
        );

        let text = MEMO.replace(
            "<BODY>\n<PARAGRAPH>\n<DOCUMENT ANIMATION>",
            "<BODY>\n<PARAGRAPH>\n<FIGURE></FIGURE>\n<DOCUMENT ANIMATION>",
        );
        assert_eq!(
            problems(&text),
            ["8:1: element `FIGURE` is not declared in the DTD"]
        );
    }

    #[test]
    fn attributes_resolve_minimised_values_and_check_types() {
        let text = MEMO.replace("<DOCUMENT CMEMO>", "<DOCUMENT MEMO>");
        assert_eq!(
            problems(&text),
            ["1:1: element `DOCUMENT` requires attribute `TYPE`",
             "1:11: `MEMO` is not a value of any enumerated attribute of `DOCUMENT`; expected CMEMO, LESSON or ANIMATION"]
        );

        let text = MEMO.replace("<DOCUMENT CMEMO>", "<document type=cmemo>");
        assert_eq!(problems(&text), Vec::<String>::new());

        let text = MEMO.replace("<DOCUMENT CMEMO>", "<DOCUMENT CMEMO TYPE=LESSON>");
        assert_eq!(problems(&text), ["1:17: attribute `TYPE` is given twice"]);

        let text = MEMO.replace("<ANIMATION>", "<ANIMATION WIDTH=400 HEIGHT=300 SPEED=2>");
        assert_eq!(
            problems(&text),
            ["9:33: element `ANIMATION` has no attribute `SPEED`"]
        );

        let text = MEMO.replace("<TO>", "<TO CMEMO>");
        assert_eq!(
            problems(&text),
            ["3:5: `CMEMO` is not a value of any enumerated attribute of `TO`; expected nothing"]
        );
    }

    #[test]
    fn attribute_value_types() {
        let dtd = Dtd::parse(
            "<!ELEMENT A - - (#PCDATA)>\n<!ATTLIST A n NUMBER #IMPLIED m NAME #IMPLIED e (x|y) #IMPLIED>",
        )
        .unwrap();
        let check = |text: &str| -> Vec<String> {
            let document = Document::parse(text.to_string()).unwrap();
            dtd.validate(&document, "A")
                .iter()
                .map(|e| e.to_string())
                .collect()
        };
        assert!(check("<A n=12 m=a.b-c e=Y></A>").is_empty());
        assert_eq!(
            check("<A n=1.5 m=\"2x\" e=z></A>"),
            [
                "1:4: attribute `N` has value `1.5`; expected a number (digits only)",
                "1:10: attribute `M` has value `2x`; expected a name",
                "1:17: attribute `E` has value `z`; expected one of X, Y"
            ]
        );
    }

    #[test]
    fn the_document_element() {
        assert_eq!(
            problems("<CMEMO></CMEMO>"),
            [
                "1:1: expected the document element `DOCUMENT`, found `CMEMO`",
                "1:8: element `CMEMO` ends too early; expected `TO`"
            ]
        );
        assert_eq!(
            problems("<!DOCTYPE TO>\n<TO>x</TO>\n<!-- fine -->\n"),
            Vec::<String>::new()
        );
        assert_eq!(
            problems(&format!("{MEMO}\n<TO>x</TO>\nafter")),
            ["26:1: element `TO` is not allowed here in `the document`; expected the end of the document",
             "27:1: character data is not allowed in `the document`; expected elements only"]
        );
        assert_eq!(
            problems("<!-- nothing -->\n"),
            ["2:1: expected the document element `DOCUMENT`, found no element"]
        );
    }

    proptest! {
        /// Documents built from the DTD's own elements nested in any order validate without
        /// panicking, with every problem located inside the text.
        #[test]
        fn any_arrangement_of_elements_validates_cleanly(
            names in proptest::collection::vec(
                proptest::sample::select(vec![
                    "DOCUMENT CMEMO", "DOCUMENT", "CMEMO", "TO", "FROM", "SUBJECT", "BODY",
                    "PARAGRAPH", "TEXT", "HEADING 2", "EMPH", "ANIMATION WIDTH=1", "UNKNOWN",
                ]),
                0..12,
            ),
            text in "[a-z \n]{0,4}",
        ) {
            // Nest the elements in the order drawn: <A><B>text</B></A>.
            let mut document = String::new();
            for name in &names {
                document.push_str(&format!("<{name}>"));
            }
            document.push_str(&text);
            for name in names.iter().rev() {
                document.push_str(&format!("</{}>", name.split(' ').next().unwrap()));
            }
            if let Ok(parsed) = Document::parse(document.clone()) {
                for e in validate(&parsed) {
                    prop_assert!(e.span.end <= document.len());
                }
            }
        }
    }
}
