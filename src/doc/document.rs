//! A compound document: its text, its tree and its animation subdocuments.

use super::error::{DocError, EditError, ErrorKind};
use super::escape::{stored_offset_of_scene_byte, unescape_scene};
use super::reader::read;
use super::tree::{NodeId, NodeKind, Tree};
use crate::lang::span::{LineCol, LineIndex, Span};
use crate::save::{self, ReadOnly};
use std::fmt;
use std::io;
use std::path::Path;

/// A document read from its text. The text is kept exactly, so saving an unchanged document
/// writes the bytes it was read from, and edits change only the bytes they are about.
#[derive(Clone, Debug)]
pub struct Document {
    text: String,
    lines: LineIndex,
    tree: Tree,
    subdocuments: Vec<Subdocument>,
}

/// An Asgard subdocument: an `ANIMATION` element and the scene text stored in its `ASGARD`
/// element. Subdocuments are numbered from 0 in document order.
#[derive(Clone, Debug, PartialEq)]
pub struct Subdocument {
    /// The `ANIMATION` element.
    pub animation: NodeId,
    /// The `ASGARD` element inside it.
    pub asgard: NodeId,
    /// The stored (escaped) scene text: the `ASGARD` content after its opening line break.
    pub scene_span: Span,
    /// The scene text, unescaped.
    pub scene: String,
    /// The window size the presentation asks for (dissertation 6.2.3), from `WIDTH` and
    /// `HEIGHT` attributes of `ANIMATION`.
    pub size: Option<PresentationSize>,
}

/// A presentation's preferred window size in pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PresentationSize {
    pub width: u32,
    pub height: u32,
}

impl PresentationSize {
    /// The size of a presentation whose document names none: the one a slave asks its host
    /// for (`PreferredSize`), and a web page's player's.
    pub const DEFAULT: PresentationSize = PresentationSize {
        width: 400,
        height: 300,
    };
}

/// The largest document [`Document::load`] reads: 16 MiB, far above any real compound
/// document (the examples are a few kilobytes), and small enough that the tree of the most
/// markup-dense document of that size stays under a gigabyte.
pub const DEFAULT_MAX_SIZE: u64 = 16 << 20;

/// Reads the bytes of the document file at `path`. Anything but a regular file (a FIFO that
/// would block, a device such as `/dev/zero` that never ends, a directory) is refused before
/// it is opened for reading, and again, by the opened handle, in case the path changed in
/// between (the open itself does not block on a FIFO). A file larger than `max_size` is
/// refused before reading, and reading stops after `max_size` bytes in case it grows.
/// Refusals are `io::Error`s of kind `InvalidInput` (not a regular file) and `FileTooLarge`
/// whose messages say what was expected.
pub fn read_document_file(path: &Path, max_size: u64) -> io::Result<Vec<u8>> {
    use std::io::Read;
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let refuse = |metadata: &std::fs::Metadata| -> io::Result<()> {
        let kind = metadata.file_type();
        let what = if kind.is_file() {
            return too_large(metadata.len(), max_size);
        } else if kind.is_dir() {
            "a directory"
        } else if kind.is_fifo() {
            "a FIFO"
        } else if kind.is_char_device() {
            "a character device"
        } else if kind.is_block_device() {
            "a block device"
        } else if kind.is_socket() {
            "a socket"
        } else {
            "not a file"
        };
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{what}, not a regular file; expected a document file"),
        ))
    };
    refuse(&std::fs::metadata(path)?)?;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(path)?;
    refuse(&file.metadata()?)?;
    let mut bytes = Vec::new();
    file.take(max_size.saturating_add(1))
        .read_to_end(&mut bytes)?;
    too_large(bytes.len() as u64, max_size)?;
    Ok(bytes)
}

fn too_large(size: u64, max_size: u64) -> io::Result<()> {
    if size <= max_size {
        return Ok(());
    }
    Err(io::Error::new(
        io::ErrorKind::FileTooLarge,
        format!("the document is larger than the document size limit of {max_size} bytes"),
    ))
}

/// A document that could not be loaded.
#[derive(Debug)]
pub enum LoadError {
    Io(io::Error),
    Doc(DocError),
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Io(e) => write!(f, "{e}"),
            LoadError::Doc(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for LoadError {}

impl Document {
    /// Reads a document from its text.
    pub fn parse(text: String) -> Result<Document, DocError> {
        let lines = LineIndex::new(&text);
        let tree = read(&text, &lines)?;
        let mut document = Document {
            text,
            lines,
            tree,
            subdocuments: Vec::new(),
        };
        document.subdocuments = document.locate_subdocuments()?;
        Ok(document)
    }

    /// Reads a document from bytes, which must be UTF-8.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Document, DocError> {
        match String::from_utf8(bytes) {
            Ok(text) => Document::parse(text),
            Err(e) => {
                let valid = e.utf8_error().valid_up_to();
                let prefix = std::str::from_utf8(&e.as_bytes()[..valid])
                    .expect("the bytes before valid_up_to are UTF-8");
                let lines = LineIndex::new(prefix);
                Err(DocError::new(
                    ErrorKind::InvalidUtf8,
                    Span::new(valid, valid + 1),
                    prefix,
                    &lines,
                ))
            }
        }
    }

    /// Reads the document stored at `path`, refusing one larger than [`DEFAULT_MAX_SIZE`].
    pub fn load(path: &Path) -> Result<Document, LoadError> {
        Document::load_limited(path, DEFAULT_MAX_SIZE)
    }

    /// Reads the document stored at `path` if it is a regular file of at most `max_size`
    /// bytes (see [`read_document_file`]).
    pub fn load_limited(path: &Path, max_size: u64) -> Result<Document, LoadError> {
        let bytes = read_document_file(path, max_size).map_err(LoadError::Io)?;
        Document::from_bytes(bytes).map_err(LoadError::Doc)
    }

    /// Stores the document at `path` atomically, keeping the previous version as `path~`; a
    /// read-only file there is replaced only with [`ReadOnly::Replace`] (see [`crate::save`]).
    pub fn save(&self, path: &Path, read_only: ReadOnly) -> io::Result<()> {
        save::write(
            path,
            self.text.as_bytes(),
            save::Options::DOCUMENT.with_read_only(read_only),
        )
    }

    /// The document's text, exactly as it will be saved.
    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    /// The line and column of a byte offset of the text.
    pub fn line_col(&self, offset: usize) -> LineCol {
        self.lines.line_col(&self.text, offset)
    }

    /// Where byte `offset` of a subdocument's (unescaped) scene text is in the document: the
    /// line and column of the stored character it was read from, so that an error in a
    /// scene is reported where a person editing the document finds it. An offset inside a
    /// character or past the scene's end is placed at the end of the scene.
    pub fn scene_line_col(&self, sub: &Subdocument, offset: usize) -> LineCol {
        let stored = self.slice(sub.scene_span);
        let within = stored_offset_of_scene_byte(stored, offset).unwrap_or(stored.len());
        self.line_col(sub.scene_span.start + within)
    }

    pub(crate) fn lines(&self) -> &LineIndex {
        &self.lines
    }

    /// The bytes of `span`.
    pub fn slice(&self, span: Span) -> &str {
        &self.text[span.start..span.end]
    }

    /// The animation subdocuments in document order.
    pub fn subdocuments(&self) -> &[Subdocument] {
        &self.subdocuments
    }

    pub fn subdocument(&self, index: usize) -> Result<&Subdocument, EditError> {
        self.subdocuments
            .get(index)
            .ok_or(EditError::NoSuchSubdocument {
                index,
                count: self.subdocuments.len(),
            })
    }

    /// The `PARAGRAPH` elements in document order; edits that place new animations number
    /// paragraphs this way.
    pub fn paragraphs(&self) -> Vec<NodeId> {
        self.tree.elements_named("PARAGRAPH").collect()
    }

    /// The line break the document uses (`\r\n` when its first line ends so, else `\n`).
    pub(crate) fn newline(&self) -> &'static str {
        match self.text.find('\n') {
            Some(i) if i > 0 && self.text.as_bytes()[i - 1] == b'\r' => "\r\n",
            _ => "\n",
        }
    }

    fn error(&self, kind: ErrorKind, span: Span) -> DocError {
        DocError::new(kind, span, &self.text, &self.lines)
    }

    fn locate_subdocuments(&self) -> Result<Vec<Subdocument>, DocError> {
        self.tree
            .elements_named("ANIMATION")
            .map(|animation| self.subdocument_at(animation))
            .collect()
    }

    fn subdocument_at(&self, animation: NodeId) -> Result<Subdocument, DocError> {
        let element = self
            .tree
            .element(animation)
            .expect("elements_named yields elements");
        let mut asgards = self
            .tree
            .child_elements(animation)
            .filter(|&c| self.tree.element(c).is_some_and(|e| e.name == "ASGARD"));
        let (Some(asgard), None) = (asgards.next(), asgards.next()) else {
            return Err(self.error(ErrorKind::MissingAsgard, element.start_tag));
        };
        if let Some(&markup) = self
            .tree
            .children(asgard)
            .iter()
            .find(|&&c| !matches!(self.tree.node(c).kind, NodeKind::Text(_)))
        {
            let span = self.tree.node(markup).span;
            let found = self.slice(span).chars().take(20).collect();
            return Err(self.error(ErrorKind::MarkupInScene { found }, span));
        }
        let content = self.tree.element(asgard).expect("filtered").content;
        let stored = self.slice(content);
        let opening_break = if stored.starts_with("\r\n") {
            2
        } else {
            usize::from(stored.starts_with('\n'))
        };
        let scene_span = Span::new(content.start + opening_break, content.end);
        let scene = unescape_scene(self.slice(scene_span))
            .map_err(|e| self.error(e.kind, e.span.shifted(scene_span.start)))?;
        Ok(Subdocument {
            animation,
            asgard,
            scene_span,
            scene,
            size: self.presentation_size(animation)?,
        })
    }

    fn presentation_size(&self, animation: NodeId) -> Result<Option<PresentationSize>, DocError> {
        let element = self.tree.element(animation).expect("an element");
        let dimension = |name: &str| -> Result<Option<u32>, DocError> {
            let Some(attribute) = element.attribute(name) else {
                return Ok(None);
            };
            match attribute.value.parse::<u32>() {
                Ok(pixels) if pixels > 0 => Ok(Some(pixels)),
                _ => Err(self.error(
                    ErrorKind::BadPresentationSize {
                        message: format!(
                            "{name}={} is not a positive whole number of pixels",
                            attribute.value
                        ),
                    },
                    attribute.span,
                )),
            }
        };
        match (dimension("WIDTH")?, dimension("HEIGHT")?) {
            (Some(width), Some(height)) => Ok(Some(PresentationSize { width, height })),
            (None, None) => Ok(None),
            _ => Err(self.error(
                ErrorKind::BadPresentationSize {
                    message: "expected both WIDTH and HEIGHT, or neither".to_string(),
                },
                element.start_tag,
            )),
        }
    }

    /// Replaces the bytes of `span` with `replacement` and reads the result; on failure the
    /// document is left as it was.
    pub(crate) fn splice(&mut self, span: Span, replacement: &str) -> Result<(), EditError> {
        let mut text = String::with_capacity(self.text.len() - span.len() + replacement.len());
        text.push_str(&self.text[..span.start]);
        text.push_str(replacement);
        text.push_str(&self.text[span.end..]);
        *self = Document::parse(text).map_err(EditError::Reparse)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MEMO: &str = include_str!("../../examples/memo.sgml");

    #[test]
    fn memo_has_one_subdocument_with_plain_braces() {
        let doc = Document::parse(MEMO.to_string()).unwrap();
        let subs = doc.subdocuments();
        assert_eq!(subs.len(), 1);
        assert_eq!(
            subs[0].scene,
            "shape_set ss1 desc {sub pos {0 0 0} sphere 0.5}\n\
             body b2 artbody 1 shape ss1 init_pos {-1 0 0} init_dpos {1 0 0}\n\
             body b3 artbody 1 shape ss1 init_pos {1 0 0} init_dpos {0 1 0}\n\
             simulator finish 3\n"
        );
        assert_eq!(subs[0].size, None);
        assert_eq!(doc.paragraphs().len(), 2);
        assert_eq!(doc.newline(), "\n");
    }

    #[test]
    fn invalid_utf8_is_located() {
        let mut bytes = b"<A>\nok \xff</A>".to_vec();
        let e = Document::from_bytes(bytes.clone()).unwrap_err();
        assert_eq!(
            (e.kind, e.at.to_string()),
            (ErrorKind::InvalidUtf8, "2:4".into())
        );
        bytes.truncate(3);
        assert!(Document::from_bytes(bytes).is_err());
    }

    #[test]
    fn animation_structure_errors_are_located() {
        let e = Document::parse("<P>\n<ANIMATION></ANIMATION></P>".into()).unwrap_err();
        assert_eq!(
            (e.kind, e.at.to_string()),
            (ErrorKind::MissingAsgard, "2:1".into())
        );

        let e = Document::parse("<ANIMATION><ASGARD>a<B>x</B></ASGARD></ANIMATION>".into())
            .unwrap_err();
        assert_eq!(e.at.to_string(), "1:21");
        assert!(matches!(e.kind, ErrorKind::MarkupInScene { .. }));

        let e = Document::parse("<ANIMATION WIDTH=400><ASGARD></ASGARD></ANIMATION>".into())
            .unwrap_err();
        assert!(matches!(e.kind, ErrorKind::BadPresentationSize { .. }));

        let e = Document::parse("<ANIMATION WIDTH=0 HEIGHT=3><ASGARD></ASGARD></ANIMATION>".into())
            .unwrap_err();
        assert_eq!(e.at.to_string(), "1:12");
    }

    #[test]
    fn scene_offsets_are_located_in_the_document() {
        let doc = Document::parse(
            "<P>\n<ANIMATION><ASGARD>\nset a \\{1\\}\n  &lt;x\n</ASGARD></ANIMATION></P>".into(),
        )
        .unwrap();
        let sub = &doc.subdocuments()[0];
        assert_eq!(sub.scene, "set a {1}\n  <x\n");
        let at = |offset| doc.scene_line_col(sub, offset).to_string();
        assert_eq!(at(0), "3:1");
        assert_eq!(at(7), "3:9");
        assert_eq!(at(12), "4:3");
        assert_eq!(at(13), "4:7");
        assert_eq!(at(1000), "5:1");
    }

    #[test]
    fn presentation_size_and_opening_line_breaks() {
        let doc = Document::parse(
            "<ANIMATION width=400 HEIGHT=\"300\"><ASGARD>\r\n\nx\\}</ASGARD></ANIMATION>\r\n"
                .into(),
        )
        .unwrap();
        let sub = &doc.subdocuments()[0];
        assert_eq!(
            sub.size,
            Some(PresentationSize {
                width: 400,
                height: 300
            })
        );
        assert_eq!(sub.scene, "\nx}");
        assert_eq!(doc.newline(), "\r\n");
    }
}
