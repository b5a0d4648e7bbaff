//! The document tree: elements, text, comments and the `DOCTYPE` line, each with its bytes.
//!
//! Nodes live in one arena and are named by [`NodeId`]. A tree is always read from a text and
//! never edited in place: edits rewrite bytes of the text and read it again, so every span in a
//! tree points into the text it came from. Node ids are therefore valid for one tree only.

use crate::lang::span::Span;

/// The index of a node in its tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub(crate) usize);

/// One node and the bytes it was read from (for an element: start tag through end tag).
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub span: Span,
    pub parent: Option<NodeId>,
    pub kind: NodeKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind {
    Element(Element),
    /// Character data between markup, with entity and character references decoded.
    Text(String),
    /// `<!-- … -->`; the text between the delimiters is the span minus four and three bytes.
    Comment,
    /// `<!DOCTYPE NAME …>`: the declared document element, upper-cased.
    Doctype {
        root: String,
    },
}

/// An element: `<NAME attributes>content</NAME>`.
#[derive(Clone, Debug, PartialEq)]
pub struct Element {
    /// The name in upper case; names are case-insensitive.
    pub name: String,
    pub attributes: Vec<Attribute>,
    /// `<NAME …>`.
    pub start_tag: Span,
    /// Everything between the tags.
    pub content: Span,
    /// `</NAME>`.
    pub end_tag: Span,
    pub children: Vec<NodeId>,
}

/// An attribute of a start tag: `NAME=VALUE`, or a minimised `VALUE` alone, as SGML allows when
/// the value belongs to an enumerated attribute (`<DOCUMENT CMEMO>`).
#[derive(Clone, Debug, PartialEq)]
pub struct Attribute {
    /// The name in upper case, or `None` for a minimised attribute.
    pub name: Option<String>,
    /// The value with references decoded (quoted values) or as written (name tokens).
    pub value: String,
    /// The whole attribute.
    pub span: Span,
}

impl Element {
    /// The value of the named attribute (case-insensitive), when given with its name.
    pub fn attribute(&self, name: &str) -> Option<&Attribute> {
        self.attributes.iter().find(|a| {
            a.name
                .as_deref()
                .is_some_and(|n| n.eq_ignore_ascii_case(name))
        })
    }
}

/// A read document's nodes. Top-level nodes are the roots, in text order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tree {
    pub(crate) nodes: Vec<Node>,
    pub(crate) roots: Vec<NodeId>,
}

impl Tree {
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.0]
    }

    /// The element at `id`, or `None` for other kinds of node.
    pub fn element(&self, id: NodeId) -> Option<&Element> {
        match &self.nodes[id.0].kind {
            NodeKind::Element(e) => Some(e),
            _ => None,
        }
    }

    pub fn roots(&self) -> &[NodeId] {
        &self.roots
    }

    /// The children of an element; other nodes have none.
    pub fn children(&self, id: NodeId) -> &[NodeId] {
        self.element(id).map_or(&[], |e| &e.children)
    }

    /// Every node in document order (the order their first bytes appear in the text).
    pub fn all(&self) -> impl Iterator<Item = NodeId> + '_ {
        (0..self.nodes.len()).map(NodeId)
    }

    /// Every element named `name` (case-insensitive), in document order.
    pub fn elements_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = NodeId> + 'a {
        self.all().filter(move |&id| {
            self.element(id)
                .is_some_and(|e| e.name.eq_ignore_ascii_case(name))
        })
    }

    /// The element children of `id`.
    pub fn child_elements(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        self.children(id)
            .iter()
            .copied()
            .filter(|&c| self.element(c).is_some())
    }

    /// True for an element whose content is character data only (no elements, no comments).
    pub fn is_text_element(&self, id: NodeId) -> bool {
        self.element(id).is_some_and(|e| {
            e.children
                .iter()
                .all(|&c| matches!(self.nodes[c.0].kind, NodeKind::Text(_)))
        })
    }

    /// The decoded character data of a node and everything inside it, in document order.
    /// Walks with its own stack, not the thread's, so nesting depth costs only memory.
    pub fn text_of(&self, id: NodeId) -> String {
        let mut out = String::new();
        let mut pending = vec![id];
        while let Some(id) = pending.pop() {
            match &self.nodes[id.0].kind {
                NodeKind::Text(t) => out.push_str(t),
                NodeKind::Element(e) => pending.extend(e.children.iter().rev()),
                NodeKind::Comment | NodeKind::Doctype { .. } => {}
            }
        }
        out
    }

    /// The `DOCTYPE` node, if the document has one.
    pub fn doctype(&self) -> Option<&str> {
        self.roots
            .iter()
            .find_map(|&r| match &self.nodes[r.0].kind {
                NodeKind::Doctype { root } => Some(root.as_str()),
                _ => None,
            })
    }
}
