//! Compound documents in Ensemble's SGML-like storage form (dissertation 6.2.1, figure 6.2):
//! reading them, finding their animation subdocuments, rewriting scene text and paragraph text
//! without touching any other byte, validating them against `schemas/asgard-document.dtd`, and
//! saving them atomically (through [`crate::save`]).
//!
//! A document looks like this (examples/memo.sgml):
//!
//! ```text
//! <DOCUMENT CMEMO>
//! <CMEMO>
//! <TO>Whom it may concern</TO> …
//! <BODY>
//! <PARAGRAPH>
//! <DOCUMENT ANIMATION>
//! <ANIMATION WIDTH=400 HEIGHT=300>
//! <ASGARD>
//! shape_set ss1 desc \{sub pos \{0 0 0\} sphere 0.5\}
//! </ASGARD>
//! </ANIMATION>
//! </DOCUMENT>
//! </PARAGRAPH> …
//! ```
//!
//! Each `ANIMATION` element is one subdocument; its `ASGARD` element stores the scene text,
//! escaped by the rule in [`escape`]: `{` `}` `\` get a backslash, `&` `<` `>` become `&amp;`
//! `&lt;` `&gt;`, and one line break right after `<ASGARD>` belongs to the markup. The rule is
//! reversible for any text without NUL and reads the figure 6.2 form, which escapes braces only.
//!
//! A [`Document`] keeps its text exactly; its [`Tree`] gives every node's bytes. Edits
//! ([`Document::replace_scene`], [`Document::replace_text`], [`Document::insert_animation`],
//! [`Document::delete_animation`]) rewrite one run of bytes and read the text again.
//! [`validate`] checks a document against the DTD, including SGML's minimised attributes
//! (`<DOCUMENT CMEMO>` sets the enumerated attribute whose values include `CMEMO`).

mod document;
pub mod dtd;
mod edit;
mod error;
pub mod escape;
pub mod layout;
mod reader;
mod tree;

pub use document::{
    read_document_file, Document, LoadError, PresentationSize, Subdocument, DEFAULT_MAX_SIZE,
};
pub use dtd::{validate, Dtd};
pub use edit::InsertAt;
pub use error::{DecodeError, DocError, EditError, ErrorKind};
pub use reader::MAX_NESTING;
pub use tree::{Attribute, Element, Node, NodeId, NodeKind, Tree};
