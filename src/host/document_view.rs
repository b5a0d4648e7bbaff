//! The document as widgets: a memo's TO/FROM/SUBJECT fields as a header, a lesson's title,
//! headings, and paragraphs whose text is editable and whose animation subdocuments stand in
//! the paragraph, at their size, between its runs of text.
//!
//! A paragraph is a column of *segments* and animations. A segment is one `TextView` holding
//! consecutive text elements (TEXT, EMPH) as runs of its buffer between marks; typing changes
//! the run it lands in, reported as a [`TextEdit`] for the window to write back with `doc`
//! edits. (Animations are not child widgets of the text view: GTK 4.8's text view grows by
//! the child's height every time an anchored child is resized, and a rendition's picture is
//! resized with every frame.) Fields and headings are one-line entries. What is shown, in
//! which order, comes from [`crate::doc::layout`], which the web page export reads too.
//!
//! Text elements are named by their ordinal among the document's text elements
//! ([`text_elements`]): editing text changes no structure, so ordinals stay valid across
//! edits, while node ids do not.

use super::animation::Animation;
use crate::doc::layout::{self, Block, Inline};
use crate::doc::{Document, InsertAt, NodeId};
use gtk::pango;
use gtk::prelude::*;
use gtk4 as gtk;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

/// The reader changed the text of text element `element` (an ordinal of [`text_elements`]).
#[derive(Clone, Debug, PartialEq)]
pub struct TextEdit {
    pub element: usize,
    pub text: String,
}

/// Receives the reader's text edits.
pub type EditSink = Rc<dyn Fn(TextEdit)>;

/// The document's editable text elements in document order: those a reader sees as text
/// ([`layout::is_text`]).
pub fn text_elements(document: &Document) -> Vec<NodeId> {
    let tree = document.tree();
    tree.all().filter(|&id| layout::is_text(tree, id)).collect()
}

/// One run of a segment: a text element's characters between two marks of the buffer.
struct Run {
    element: usize,
    start: gtk::TextMark,
    end: gtk::TextMark,
    /// The text last reported, to report only runs that changed.
    text: RefCell<String>,
}

impl Run {
    fn bounds(&self, buffer: &gtk::TextBuffer) -> (i32, i32) {
        (
            buffer.iter_at_mark(&self.start).offset(),
            buffer.iter_at_mark(&self.end).offset(),
        )
    }
}

/// Consecutive text elements of a paragraph in one text view.
struct Segment {
    /// The paragraph's number among the document's paragraphs.
    paragraph: usize,
    view: gtk::TextView,
    runs: Vec<Run>,
}

impl Segment {
    fn new(paragraph: usize) -> Segment {
        let buffer = gtk::TextBuffer::new(None::<&gtk::TextTagTable>);
        let emphasis = gtk::TextTag::builder()
            .name("emphasis")
            .style(pango::Style::Italic)
            .build();
        buffer.tag_table().add(&emphasis);
        let view = gtk::TextView::with_buffer(&buffer);
        view.set_wrap_mode(gtk::WrapMode::WordChar);
        view.add_css_class("asgard-paragraph");
        Segment {
            paragraph,
            view,
            runs: Vec::new(),
        }
    }

    /// Appends text element `element` holding `text`, in italics when `emphasised`.
    fn push_run(&mut self, element: usize, text: String, emphasised: bool) {
        let buffer = self.view.buffer();
        // At the boundary with the run before, typed text goes to that run, so this run's
        // start moves right with insertions; the first run's start stays put.
        let start = buffer.create_mark(None, &buffer.end_iter(), self.runs.is_empty());
        let mut end_iter = buffer.end_iter();
        match buffer.tag_table().lookup("emphasis") {
            Some(tag) if emphasised => buffer.insert_with_tags(&mut end_iter, &text, &[&tag]),
            _ => buffer.insert(&mut end_iter, &text),
        }
        let end = buffer.create_mark(None, &buffer.end_iter(), false);
        self.runs.push(Run {
            element,
            start,
            end,
            text: RefCell::new(text),
        });
    }

    /// Characters of the segment's runs, as last reported.
    fn chars(&self) -> usize {
        self.runs
            .iter()
            .map(|r| r.text.borrow().chars().count())
            .sum()
    }

    /// Characters of the runs before the cursor.
    fn chars_before_cursor(&self) -> usize {
        let buffer = self.view.buffer();
        let cursor = buffer.iter_at_mark(&buffer.get_insert()).offset();
        self.runs
            .iter()
            .map(|run| {
                let (start, end) = run.bounds(&buffer);
                (cursor.clamp(start, end) - start).max(0) as usize
            })
            .sum()
    }
}

/// The widgets of one document.
pub struct DocumentView {
    root: gtk::Box,
    /// Every segment, in document order.
    segments: Vec<Rc<Segment>>,
    /// The segment that had the keyboard focus last (index into `segments`).
    focused: Rc<Cell<Option<usize>>>,
    /// Animation widgets and the box they were put in, to take them out again.
    placed: Vec<(gtk::Widget, gtk::Box)>,
}

impl DocumentView {
    /// Builds the widgets of `document`; `animations` are its subdocuments' animations, in
    /// order.
    pub fn build(
        document: &Document,
        animations: &[Rc<Animation>],
        on_edit: EditSink,
    ) -> DocumentView {
        let root = gtk::Box::new(gtk::Orientation::Vertical, 12);
        root.set_valign(gtk::Align::Start);
        root.add_css_class("asgard-document");
        let ordinals: HashMap<NodeId, usize> = text_elements(document)
            .into_iter()
            .enumerate()
            .map(|(i, id)| (id, i))
            .collect();
        let mut builder = Builder {
            document,
            animations,
            on_edit,
            ordinals,
            root: root.clone(),
            header: None,
            segments: Vec::new(),
            placed: Vec::new(),
            focused: Rc::new(Cell::new(None)),
        };
        for block in layout::blocks(document) {
            builder.block(block);
        }
        DocumentView {
            root,
            segments: builder.segments,
            focused: builder.focused,
            placed: builder.placed,
        }
    }

    pub fn widget(&self) -> gtk::Widget {
        self.root.clone().upcast()
    }

    /// Where a new animation goes: at the cursor of the text edited last, counted in its
    /// paragraph's text characters; `None` when no paragraph text has had the focus.
    pub fn insertion_point(&self) -> Option<InsertAt> {
        let focused = self.focused.get()?;
        let segment = &self.segments[focused];
        let before: usize = self.segments[..focused]
            .iter()
            .filter(|s| s.paragraph == segment.paragraph)
            .map(|s| s.chars())
            .sum();
        Some(InsertAt::InParagraph {
            paragraph: segment.paragraph,
            offset: before + segment.chars_before_cursor(),
        })
    }

    /// Takes the animation widgets out of this view, so that the next view can place them.
    pub fn release(&self) {
        for (widget, column) in &self.placed {
            column.remove(widget);
        }
    }
}

/// The state of one build.
struct Builder<'a> {
    document: &'a Document,
    animations: &'a [Rc<Animation>],
    on_edit: EditSink,
    ordinals: HashMap<NodeId, usize>,
    root: gtk::Box,
    header: Option<gtk::Grid>,
    segments: Vec<Rc<Segment>>,
    placed: Vec<(gtk::Widget, gtk::Box)>,
    focused: Rc<Cell<Option<usize>>>,
}

impl Builder<'_> {
    fn block(&mut self, block: Block) {
        match block {
            Block::Field { label, element } => self.field(label, element),
            Block::Title(id) => self.line(id, "asgard-title"),
            Block::Author(id) => self.line(id, "asgard-author"),
            Block::Heading { level, element } => {
                let class = match level {
                    2 => "asgard-heading-2",
                    3 => "asgard-heading-3",
                    _ => "asgard-heading-1",
                };
                self.line(element, class);
            }
            Block::Paragraph { element, items } => self.paragraph(element, &items),
            Block::Animation(id) => {
                let root = self.root.clone();
                self.place_animation(id, &root);
            }
        }
    }

    fn animation(&self, animation: NodeId) -> Option<&Rc<Animation>> {
        let index = self
            .document
            .subdocuments()
            .iter()
            .position(|s| s.animation == animation)?;
        self.animations.get(index)
    }

    /// A one-line editable text element.
    fn entry(&self, id: NodeId) -> gtk::Entry {
        let entry = gtk::Entry::new();
        entry.set_text(&self.document.tree().text_of(id));
        entry.set_has_frame(false);
        if let Some(&element) = self.ordinals.get(&id) {
            let on_edit = self.on_edit.clone();
            entry.connect_changed(move |entry| {
                on_edit(TextEdit {
                    element,
                    text: entry.text().to_string(),
                })
            });
        } else {
            entry.set_editable(false);
        }
        entry
    }

    fn field(&mut self, label: &str, id: NodeId) {
        let grid = self
            .header
            .get_or_insert_with(|| {
                let grid = gtk::Grid::new();
                grid.set_column_spacing(12);
                grid.add_css_class("asgard-header");
                self.root.append(&grid);
                grid
            })
            .clone();
        let row = {
            let mut rows = 0;
            while grid.child_at(0, rows).is_some() {
                rows += 1;
            }
            rows
        };
        let name = gtk::Label::new(Some(label));
        name.set_xalign(0.0);
        name.add_css_class("asgard-field-name");
        grid.attach(&name, 0, row, 1, 1);
        let entry = self.entry(id);
        entry.set_hexpand(true);
        grid.attach(&entry, 1, row, 1, 1);
    }

    fn line(&mut self, id: NodeId, class: &str) {
        let entry = self.entry(id);
        entry.add_css_class(class);
        self.root.append(&entry);
    }

    fn place_animation(&mut self, id: NodeId, column: &gtk::Box) {
        if let Some(animation) = self.animation(id) {
            let widget = animation.widget();
            column.append(&widget);
            self.placed.push((widget, column.clone()));
        }
    }

    fn paragraph(&mut self, id: NodeId, items: &[Inline]) {
        let tree = self.document.tree();
        let index = self
            .document
            .paragraphs()
            .iter()
            .position(|&p| p == id)
            .unwrap_or(0);
        let column = gtk::Box::new(gtk::Orientation::Vertical, 6);
        let mut segment: Option<Segment> = None;
        for item in items {
            match *item {
                Inline::Text {
                    element,
                    emphasised,
                } => {
                    let ordinal = self.ordinals[&element];
                    segment.get_or_insert_with(|| Segment::new(index)).push_run(
                        ordinal,
                        tree.text_of(element),
                        emphasised,
                    );
                }
                Inline::Animation(animation) => {
                    if let Some(full) = segment.take() {
                        self.add_segment(full, &column);
                    }
                    self.place_animation(animation, &column);
                }
            }
        }
        if let Some(last) = segment {
            self.add_segment(last, &column);
        }
        self.root.append(&column);
    }

    fn add_segment(&mut self, segment: Segment, column: &gtk::Box) {
        let segment = Rc::new(segment);
        connect_segment(&segment, self.on_edit.clone());
        let slot = self.segments.len();
        let focused = self.focused.clone();
        let focus = gtk::EventControllerFocus::new();
        focus.connect_enter(move |_| focused.set(Some(slot)));
        segment.view.add_controller(focus);
        column.append(&segment.view);
        self.segments.push(segment);
    }
}

/// Keeps typing inside the runs (a run may be empty; text typed at a boundary goes to the run
/// before it) and reports the runs that changed.
fn connect_segment(segment: &Rc<Segment>, on_edit: EditSink) {
    let buffer = segment.view.buffer();
    let weak = Rc::downgrade(segment);
    buffer.connect_insert_text(move |buffer, at, _| {
        let Some(segment) = weak.upgrade() else {
            return;
        };
        let offset = at.offset();
        let inside = segment.runs.iter().any(|run| {
            let (start, end) = run.bounds(buffer);
            (start..=end).contains(&offset)
        });
        if !inside {
            buffer.stop_signal_emission_by_name("insert-text");
            segment.view.error_bell();
        }
    });
    let weak = Rc::downgrade(segment);
    buffer.connect_changed(move |buffer| {
        let Some(segment) = weak.upgrade() else {
            return;
        };
        for run in &segment.runs {
            let text = buffer
                .text(
                    &buffer.iter_at_mark(&run.start),
                    &buffer.iter_at_mark(&run.end),
                    false,
                )
                .to_string();
            if *run.text.borrow() != text {
                run.text.replace(text.clone());
                on_edit(TextEdit {
                    element: run.element,
                    text,
                });
            }
        }
    });
}

/// The style of the document and its animations.
const STYLE: &str = "
.asgard-document { padding: 24px; }
.asgard-header { padding-bottom: 12px; border-bottom: 1px solid alpha(currentColor, 0.3); }
.asgard-field-name { font-weight: bold; }
.asgard-title { font-size: 180%; font-weight: bold; }
.asgard-author { font-style: italic; }
.asgard-heading-1 { font-size: 150%; font-weight: bold; }
.asgard-heading-2 { font-size: 125%; font-weight: bold; }
.asgard-heading-3 { font-size: 110%; font-weight: bold; }
.asgard-paragraph { background: transparent; }
.asgard-animation { background: #202020; }
.asgard-animation:focus { outline: 2px solid #3584e4; }
.asgard-controls { background: rgba(0, 0, 0, 0.6); color: white; border-radius: 6px;
                   padding: 2px; }
.asgard-notice { background: rgba(0, 0, 0, 0.6); color: white; padding: 2px 6px; }
.asgard-failure { background: rgba(60, 0, 0, 0.9); color: white; padding: 12px;
                  border-radius: 6px; }
";

/// A CSS provider with [`STYLE`], for the display the host's windows are on.
pub fn style_provider() -> gtk::CssProvider {
    let provider = gtk::CssProvider::new();
    provider.load_from_data(STYLE);
    provider
}
