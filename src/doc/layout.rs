//! What a reader is shown of a document, in reading order, without any toolkit: a memo's
//! header fields, a lesson's title and authors, headings, and paragraphs of text runs and
//! animations. The host's window (`host::document_view`) and the web page (`web::page`) both
//! draw these blocks, so a document reads the same in both.
//!
//! The walk follows the document's elements: TO, FROM, CC, DATE and SUBJECT are header
//! fields; TITLE, AUTHOR and HEADING are lines of their own; a PARAGRAPH holds its text
//! elements (TEXT, EMPH, any element of character data only) as runs and the ANIMATION
//! elements inside its other children (a `<DOCUMENT ANIMATION>` wrapper) as animations; an
//! ANIMATION outside a paragraph is a block of its own; the scene text (ASGARD) is never
//! shown; any other element is looked into.

use super::document::Document;
use super::tree::{NodeId, NodeKind, Tree};

/// One block of the reading order.
#[derive(Clone, Debug, PartialEq)]
pub enum Block {
    /// A memo header field: its label (`To:`) and the element holding its text.
    Field {
        label: &'static str,
        element: NodeId,
    },
    Title(NodeId),
    Author(NodeId),
    /// A section heading of level 1 (outermost) to 3.
    Heading {
        level: u8,
        element: NodeId,
    },
    /// A paragraph: the `PARAGRAPH` element and its runs and animations in order.
    Paragraph {
        element: NodeId,
        items: Vec<Inline>,
    },
    /// An `ANIMATION` element outside any paragraph.
    Animation(NodeId),
}

/// One item of a paragraph.
#[derive(Clone, Debug, PartialEq)]
pub enum Inline {
    /// A text element's characters, in italics when `emphasised` (EMPH).
    Text { element: NodeId, emphasised: bool },
    /// An `ANIMATION` element.
    Animation(NodeId),
}

/// The label a memo header field is shown with, or `None` for other elements.
pub fn field_label(name: &str) -> Option<&'static str> {
    Some(match name {
        "TO" => "To:",
        "FROM" => "From:",
        "CC" => "Cc:",
        "DATE" => "Date:",
        "SUBJECT" => "Subject:",
        _ => return None,
    })
}

/// True for the elements a reader sees as text: those holding character data only, except
/// the scene text (ASGARD) and an empty ANIMATION.
pub fn is_text(tree: &Tree, id: NodeId) -> bool {
    tree.element(id)
        .is_some_and(|e| e.name != "ASGARD" && e.name != "ANIMATION")
        && tree.is_text_element(id)
}

/// The document's blocks in reading order.
pub fn blocks(document: &Document) -> Vec<Block> {
    let mut blocks = Vec::new();
    for &root in document.tree().roots() {
        walk(document.tree(), root, &mut blocks);
    }
    blocks
}

/// Appends the blocks of element `id` (nothing for other nodes). Nesting is bounded by
/// `doc::MAX_NESTING`, so the recursion stays shallow.
fn walk(tree: &Tree, id: NodeId, blocks: &mut Vec<Block>) {
    let Some(element) = tree.element(id) else {
        return;
    };
    let name = element.name.as_str();
    if let Some(label) = field_label(name) {
        blocks.push(Block::Field { label, element: id });
    } else if name == "TITLE" {
        blocks.push(Block::Title(id));
    } else if name == "AUTHOR" {
        blocks.push(Block::Author(id));
    } else if name == "HEADING" {
        // LEVEL=2, or minimised to the value alone: <HEADING 2>.
        let level = element
            .attribute("LEVEL")
            .or_else(|| element.attributes.iter().find(|a| a.name.is_none()))
            .map_or("1", |a| a.value.as_str());
        let level = match level {
            "2" => 2,
            "3" => 3,
            _ => 1,
        };
        blocks.push(Block::Heading { level, element: id });
    } else if name == "PARAGRAPH" {
        blocks.push(Block::Paragraph {
            element: id,
            items: paragraph(tree, id),
        });
    } else if name == "ANIMATION" {
        blocks.push(Block::Animation(id));
    } else if name != "ASGARD" {
        for &child in tree.children(id) {
            walk(tree, child, blocks);
        }
    }
}

fn paragraph(tree: &Tree, id: NodeId) -> Vec<Inline> {
    let mut items = Vec::new();
    for &child in tree.children(id) {
        let NodeKind::Element(element) = &tree.node(child).kind else {
            continue;
        };
        if is_text(tree, child) {
            items.push(Inline::Text {
                element: child,
                emphasised: element.name == "EMPH",
            });
        } else {
            animations_in(tree, child, &mut items);
        }
    }
    items
}

/// The `ANIMATION` elements at or inside `id`, appended in document order.
fn animations_in(tree: &Tree, id: NodeId, items: &mut Vec<Inline>) {
    match tree.element(id) {
        Some(e) if e.name == "ANIMATION" => items.push(Inline::Animation(id)),
        Some(_) => {
            for child in tree.child_elements(id) {
                animations_in(tree, child, items);
            }
        }
        None => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(document: &Document, blocks: &[Block]) -> Vec<String> {
        let tree = document.tree();
        let text = |id| tree.text_of(id);
        blocks
            .iter()
            .map(|block| match block {
                Block::Field { label, element } => format!("{label} {}", text(*element)),
                Block::Title(id) => format!("title {}", text(*id)),
                Block::Author(id) => format!("author {}", text(*id)),
                Block::Heading { level, element } => format!("h{level} {}", text(*element)),
                Block::Animation(_) => "animation".into(),
                Block::Paragraph { items, .. } => {
                    let items: Vec<String> = items
                        .iter()
                        .map(|item| match item {
                            Inline::Text {
                                element,
                                emphasised: true,
                            } => format!("*{}*", text(*element)),
                            Inline::Text { element, .. } => text(*element),
                            Inline::Animation(_) => "[animation]".into(),
                        })
                        .collect();
                    format!("p {}", items.join("|"))
                }
            })
            .collect()
    }

    #[test]
    fn the_memo_reads_as_header_and_paragraphs() {
        let memo = include_str!("../../examples/memo.sgml");
        let document = Document::parse(memo.into()).unwrap();
        assert_eq!(
            names(&document, &blocks(&document)),
            [
                "To: Whom it may concern",
                "From: Wayne",
                "Subject: Asgard within Ensemble",
                "p [animation]",
                "p Thanks to Vance for putting this example together.",
            ]
        );
    }

    #[test]
    fn headings_emphasis_and_loose_animations() {
        let text = "<!DOCTYPE DOCUMENT SYSTEM \"asgard-document.dtd\">\n<DOCUMENT LESSON><LESSON>\
            <TITLE>T</TITLE><AUTHOR>A</AUTHOR><BODY><HEADING LEVEL=2>H</HEADING>\
            <HEADING 3>I</HEADING><HEADING>J</HEADING>\
            <PARAGRAPH><TEXT>a </TEXT><EMPH>b</EMPH><DOCUMENT ANIMATION><ANIMATION><ASGARD>\
            </ASGARD></ANIMATION></DOCUMENT><TEXT>c</TEXT></PARAGRAPH></BODY></LESSON>\
            </DOCUMENT><ANIMATION><ASGARD>x</ASGARD></ANIMATION>";
        let document = Document::parse(text.into()).unwrap();
        assert_eq!(
            names(&document, &blocks(&document)),
            [
                "title T",
                "author A",
                "h2 H",
                "h3 I",
                "h1 J",
                "p a |*b*|[animation]|c",
                "animation"
            ]
        );
    }
}
