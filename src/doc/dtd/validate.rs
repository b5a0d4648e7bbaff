//! Checking a document against a DTD: the document element, every element's content and
//! attributes, with minimised attributes resolved through their enumerated values.

use super::{DefaultValue, Dtd, ElementDecl, ValueType};
use crate::doc::document::Document;
use crate::doc::error::{DocError, ErrorKind};
use crate::doc::tree::{Element, NodeId, NodeKind};
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

impl Check<'_> {
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
                    self.element(element);
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

    fn element(&mut self, element: &Element) {
        match self.dtd.elements.get(&element.name) {
            Some(decl) => {
                self.attributes(element, decl);
                self.content(element, decl);
            }
            None => {
                self.report(
                    ErrorKind::UndeclaredElement {
                        name: element.name.clone(),
                    },
                    element.start_tag,
                );
                for &child in &element.children {
                    if let Some(e) = self.document.tree().element(child) {
                        self.element(e);
                    }
                }
            }
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
                    if !matcher.step(&e.name) {
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
                    }
                    self.element(e);
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
