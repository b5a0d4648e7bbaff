//! What can be wrong with a document, its DTD or an edit, and where.
//!
//! Reading and validation errors are located (a byte span and its line and column) and say what
//! was expected, so `asgard doc check` can print `FILE:LINE:COL: error: …` the way compilers do.
//! Edit errors are about the request (an index out of range), not about a place in the text.

use crate::lang::span::{LineCol, LineIndex, Span};
use std::fmt;

/// A located problem in a document or DTD text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocError {
    pub kind: ErrorKind,
    /// The offending bytes (empty at the end of the text or at a missing token).
    pub span: Span,
    /// Line and column of `span.start`.
    pub at: LineCol,
}

impl DocError {
    /// Locates `kind` at `span` of `text`.
    pub(crate) fn new(kind: ErrorKind, span: Span, text: &str, lines: &LineIndex) -> DocError {
        DocError {
            kind,
            span,
            at: lines.line_col(text, span.start),
        }
    }
}

impl fmt::Display for DocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.at, self.kind)
    }
}

impl std::error::Error for DocError {}

/// A problem in character data found while decoding it, at `offset` bytes into that data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    pub kind: ErrorKind,
    /// The offending bytes, relative to the start of the decoded data.
    pub span: Span,
}

/// What is wrong, with what was expected instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The bytes are not UTF-8.
    InvalidUtf8,
    /// A NUL character: never part of a document's text, and a sign of a binary file.
    NulByte,
    /// A `<` that starts no tag, comment or declaration.
    ExpectedMarkup,
    /// A tag whose `>` never comes (end of text, or another `<` first).
    UnterminatedTag {
        name: String,
    },
    /// Something other than an attribute, `>` or white space inside a start tag.
    ExpectedAttribute {
        name: String,
        found: String,
    },
    /// `NAME=` with no value after it.
    ExpectedAttributeValue {
        attribute: String,
    },
    UnterminatedAttributeValue {
        attribute: String,
    },
    DuplicateAttribute {
        name: String,
    },
    /// An end tag with extra content after its name.
    MalformedEndTag {
        name: String,
    },
    /// A start tag nested deeper than the reader allows.
    TooDeep {
        name: String,
        limit: usize,
    },
    /// An element still open at the end of the text.
    UnclosedElement {
        name: String,
    },
    /// `</B>` while `A`, opened at `opened`, is the innermost open element.
    MismatchedEndTag {
        expected: String,
        found: String,
        opened: LineCol,
    },
    /// An end tag with no element open.
    UnexpectedEndTag {
        found: String,
    },
    UnterminatedComment,
    UnterminatedDeclaration {
        keyword: String,
    },
    /// A `<!…>` declaration other than a comment or `DOCTYPE`, or a `<?…>` instruction.
    UnsupportedMarkup {
        markup: String,
    },
    /// `<!DOCTYPE` after an element or a second time.
    MisplacedDoctype,
    UnknownEntity {
        name: String,
    },
    /// `&#…;` that names no Unicode scalar value, or is malformed.
    BadCharacterReference {
        reference: String,
    },
    /// `&name` or `&#…` not closed by `;`.
    UnterminatedReference,
    /// An `ANIMATION` element with no `ASGARD` element, or with more than one.
    MissingAsgard,
    /// Markup inside an `ASGARD` element (its content is scene text only).
    MarkupInScene {
        found: String,
    },
    /// A presentation size attribute that is not a positive whole number of pixels, or only
    /// one of the pair.
    BadPresentationSize {
        message: String,
    },

    /// A DTD declaration that does not parse.
    DtdSyntax {
        expected: String,
        found: String,
    },
    /// A DTD that parses but contradicts itself.
    DtdInconsistent {
        message: String,
    },

    /// No declaration for an element used in the document.
    UndeclaredElement {
        name: String,
    },
    /// The document's top level is not a single element of the expected type.
    WrongRoot {
        expected: String,
        found: String,
    },
    /// A child element the parent's content model does not allow at this point.
    ElementNotAllowed {
        parent: String,
        found: String,
        expected: Vec<String>,
    },
    /// An element that ended before its content model was complete.
    IncompleteContent {
        element: String,
        expected: Vec<String>,
    },
    /// Character data where only elements are allowed.
    TextNotAllowed {
        parent: String,
    },
    UndeclaredAttribute {
        element: String,
        name: String,
    },
    /// A minimised attribute value that belongs to no enumerated attribute of the element.
    UnmatchedMinimisedValue {
        element: String,
        value: String,
        expected: Vec<String>,
    },
    BadAttributeValue {
        name: String,
        value: String,
        expected: String,
    },
    MissingAttribute {
        element: String,
        name: String,
    },
}

fn list(items: &[String]) -> String {
    match items {
        [] => "nothing".to_string(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {}", init.join(", "), last),
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ErrorKind::*;
        match self {
            InvalidUtf8 => write!(f, "invalid UTF-8; expected a UTF-8 text"),
            NulByte => write!(f, "NUL character; expected text without NUL characters"),
            TooDeep { name, limit } => write!(
                f,
                "element `{name}` is nested more than {limit} elements deep (the nesting \
                 limit); expected an end tag"
            ),
            ExpectedMarkup => write!(
                f,
                "expected a tag, comment or declaration after `<` (write `&lt;` for a literal `<`)"
            ),
            UnterminatedTag { name } => write!(f, "tag `{name}` is not closed; expected `>`"),
            ExpectedAttribute { name, found } => write!(
                f,
                "expected an attribute or `>` in the start tag of `{name}`, found {found}"
            ),
            ExpectedAttributeValue { attribute } => {
                write!(f, "expected a value after `{attribute}=`")
            }
            UnterminatedAttributeValue { attribute } => write!(
                f,
                "the quoted value of attribute `{attribute}` is not closed; expected a closing quote"
            ),
            DuplicateAttribute { name } => write!(f, "attribute `{name}` is given twice"),
            MalformedEndTag { name } => {
                write!(f, "expected `>` after the name in end tag `</{name}`")
            }
            UnclosedElement { name } => {
                write!(f, "element `{name}` is never closed; expected `</{name}>`")
            }
            MismatchedEndTag {
                expected,
                found,
                opened,
            } => write!(
                f,
                "expected `</{expected}>` to close the element opened at {opened}, found `</{found}>`"
            ),
            UnexpectedEndTag { found } => {
                write!(f, "end tag `</{found}>` closes no open element")
            }
            UnterminatedComment => write!(f, "comment is not closed; expected `-->`"),
            UnterminatedDeclaration { keyword } => {
                write!(f, "`<!{keyword}` declaration is not closed; expected `>`")
            }
            UnsupportedMarkup { markup } => write!(
                f,
                "unsupported markup `{markup}`; expected an element, a comment or `<!DOCTYPE`"
            ),
            MisplacedDoctype => write!(
                f,
                "`<!DOCTYPE` must come once, before the first element"
            ),
            UnknownEntity { name } => write!(
                f,
                "unknown entity `&{name};`; expected one of &lt; &gt; &amp; &quot; &apos; or a character reference"
            ),
            BadCharacterReference { reference } => write!(
                f,
                "character reference `{reference}` names no character; expected `&#DIGITS;` or `&#xHEX;` of a Unicode scalar value"
            ),
            UnterminatedReference => write!(f, "reference is not closed; expected `;`"),
            MissingAsgard => write!(
                f,
                "an ANIMATION element must hold exactly one ASGARD element with the scene text"
            ),
            MarkupInScene { found } => write!(
                f,
                "found `{found}` inside ASGARD; expected scene text only (write `&lt;` for `<`)"
            ),
            BadPresentationSize { message } => write!(f, "presentation size: {message}"),
            DtdSyntax { expected, found } => write!(f, "expected {expected}, found {found}"),
            DtdInconsistent { message } => write!(f, "{message}"),
            UndeclaredElement { name } => write!(f, "element `{name}` is not declared in the DTD"),
            WrongRoot { expected, found } => {
                write!(f, "expected the document element `{expected}`, found {found}")
            }
            ElementNotAllowed {
                parent,
                found,
                expected,
            } => write!(
                f,
                "element `{found}` is not allowed here in `{parent}`; expected {}",
                list(expected)
            ),
            IncompleteContent { element, expected } => write!(
                f,
                "element `{element}` ends too early; expected {}",
                list(expected)
            ),
            TextNotAllowed { parent } => write!(
                f,
                "character data is not allowed in `{parent}`; expected elements only"
            ),
            UndeclaredAttribute { element, name } => {
                write!(f, "element `{element}` has no attribute `{name}`")
            }
            UnmatchedMinimisedValue {
                element,
                value,
                expected,
            } => write!(
                f,
                "`{value}` is not a value of any enumerated attribute of `{element}`; expected {}",
                list(expected)
            ),
            BadAttributeValue {
                name,
                value,
                expected,
            } => write!(f, "attribute `{name}` has value `{value}`; expected {expected}"),
            MissingAttribute { element, name } => {
                write!(f, "element `{element}` requires attribute `{name}`")
            }
        }
    }
}

/// A request to change a document that cannot be carried out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EditError {
    NoSuchSubdocument {
        index: usize,
        count: usize,
    },
    NoSuchParagraph {
        index: usize,
        count: usize,
    },
    /// A text offset past the end of a paragraph's text.
    OffsetOutOfRange {
        offset: usize,
        length: usize,
    },
    /// The node is not an element holding character data only.
    NotATextElement,
    /// The edited text no longer reads as a document; the edit was not applied. This means a
    /// bug in the edit, since edits write only well-formed markup.
    Reparse(DocError),
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EditError::NoSuchSubdocument { index, count } => write!(
                f,
                "no subdocument {index}; the document has {count} (numbered from 0)"
            ),
            EditError::NoSuchParagraph { index, count } => write!(
                f,
                "no paragraph {index}; the document has {count} (numbered from 0)"
            ),
            EditError::OffsetOutOfRange { offset, length } => write!(
                f,
                "text offset {offset} is past the end of the paragraph's {length} characters"
            ),
            EditError::NotATextElement => {
                write!(f, "the node is not an element holding text only")
            }
            EditError::Reparse(e) => write!(f, "the edited document does not read back: {e}"),
        }
    }
}

impl std::error::Error for EditError {}
