//! A language viewer's text buffer kept in step with the session (4.2).
//!
//! The buffer holds the session's text (the *base*) plus what the user typed since the last
//! Update ([`LocalEdits`]), plus one embedded icon (a child anchor) in front of each elided
//! literal. Positions of the text are bytes; positions of the buffer are iterators. The
//! conversions here skip the anchors, so the text the buffer holds is exactly the session's
//! text with the user's typing.
//!
//! When the session's text changes elsewhere, the replacements are applied to the buffer in
//! place — the cursor and the scroll position stay — and the literal tags of a rewritten
//! literal are kept on its new text, so a drag in a graphical viewer does not re-colour the
//! whole buffer at every step.
//!
//! Which literals are folded is the state of the window action `win.fold` (see
//! [`TextState::fold_action`]), so scripts and tests read it over D-Bus as GTK publishes every
//! window's actions (`org.gtk.Actions` at `/org/asgard/Editor/window/ID`).

use super::literals::{elidable, ElisionKey, LiteralKind};
use super::local_edits::{difference, LocalEdits, Merge};
use crate::lang::span::{LineIndex, Span};
use crate::scene::{Highlight, Replacement, Scene, SceneError, TextEdit};
use crate::session::ViewId;
use crate::ui::editor::Editor;
use gtk::gio;
use gtk::glib;
use gtk4 as gtk;
use sourceview5::prelude::*;
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};
use std::rc::{Rc, Weak};

/// The bytes an embedded anchor takes in a buffer line (U+FFFC in UTF-8).
const ANCHOR_BYTES: usize = 3;

/// An elided literal: its icon, and a mark at its end.
struct Elided {
    key: ElisionKey,
    anchor: gtk::TextChildAnchor,
    end: gtk::TextMark,
}

/// What the viewer tells the user about.
pub trait Messages {
    /// Shows `text` in the message area (`None` hides it); `error` draws it as an error.
    fn show(&self, text: Option<&str>, error: bool);
}

/// The buffer, the user's typing, and the marks on the text.
pub struct TextState {
    me: Weak<TextState>,
    pub editor: Rc<Editor>,
    pub view_id: ViewId,
    pub buffer: sourceview5::Buffer,
    pub view: sourceview5::View,
    base: RefCell<String>,
    edits: RefCell<LocalEdits>,
    /// Set while the viewer itself changes the buffer.
    applying: Cell<bool>,
    /// The highlights of the last scene, for telling a literal's rewrite from other changes.
    highlights: RefCell<Vec<Highlight>>,
    /// The text changed in more than literals since the marks were placed.
    stale_marks: Cell<bool>,
    elided: RefCell<Vec<Elided>>,
    expanded: RefCell<BTreeSet<ElisionKey>>,
    /// The text of each elidable literal when the marks were last placed (`None` before the
    /// first time): a literal that is new or rewritten since is shown in full, so a shape set
    /// the shape editor wrote or a trajectory just created is seen, not hidden behind an icon.
    elidable_texts: RefCell<Option<BTreeMap<ElisionKey, String>>>,
    /// Set by Update until the session has answered, so its error moves the cursor.
    updating: Cell<bool>,
    messages: Rc<dyn Messages>,
    fold: gio::SimpleAction,
}

impl TextState {
    pub fn new(editor: Rc<Editor>, messages: Rc<dyn Messages>) -> Rc<TextState> {
        let buffer = sourceview5::Buffer::new(None);
        match super::lang_file::scene_language() {
            Ok(language) => buffer.set_language(Some(&language)),
            Err(why) => editor.status(why),
        }
        buffer.set_highlight_syntax(true);
        buffer.set_highlight_matching_brackets(true);
        let tags = buffer.tag_table();
        for kind in LiteralKind::ALL {
            tags.add(
                &gtk::TextTag::builder()
                    .name(kind.tag_name())
                    .background(kind.background())
                    .build(),
            );
        }
        tags.add(
            &gtk::TextTag::builder()
                .name("elided")
                .invisible(true)
                .editable(false)
                .build(),
        );
        // Under the literal colours: an expanded list shows its own background between them.
        let expanded = gtk::TextTag::builder()
            .name("expanded")
            .background("#eeeedd")
            .build();
        tags.add(&expanded);
        expanded.set_priority(0);
        tags.add(
            &gtk::TextTag::builder()
                .name("anchor")
                .editable(false)
                .build(),
        );
        tags.add(
            &gtk::TextTag::builder()
                .name("error")
                .background("#ffd0d0")
                .underline(gtk::pango::Underline::Error)
                .underline_rgba(&gtk::gdk::RGBA::new(0.85, 0.0, 0.0, 1.0))
                .build(),
        );
        let view = sourceview5::View::with_buffer(&buffer);
        compact_icons(&view);
        view.set_monospace(true);
        view.set_show_line_numbers(true);
        view.set_hexpand(true);
        view.set_vexpand(true);
        let view_id = editor.session.new_view_id();
        let text = editor.session.text().to_owned();
        let state = Rc::new_cyclic(|me| TextState {
            me: me.clone(),
            editor,
            view_id,
            buffer,
            view,
            base: RefCell::new(String::new()),
            edits: RefCell::new(LocalEdits::default()),
            applying: Cell::new(false),
            highlights: RefCell::new(Vec::new()),
            stale_marks: Cell::new(true),
            elided: RefCell::new(Vec::new()),
            expanded: RefCell::new(BTreeSet::new()),
            elidable_texts: RefCell::new(None),
            updating: Cell::new(false),
            messages,
            fold: gio::SimpleAction::new_stateful(
                "fold",
                Some(glib::VariantTy::STRING),
                &BTreeMap::<String, bool>::new().to_variant(),
            ),
        });
        let me = Rc::downgrade(&state);
        state.fold.connect_activate(move |_, name| {
            let (Some(state), Some(name)) = (me.upgrade(), name.and_then(|n| n.str())) else {
                return;
            };
            let key = state
                .elided
                .borrow()
                .iter()
                .find(|e| e.key.name() == name)
                .map(|e| e.key.clone());
            match key {
                Some(key) => state.toggle_elision(&key),
                None => state
                    .editor
                    .status(format!("No folded text is named {name}.")),
            }
        });
        state.quietly(|| state.buffer.set_text(&text));
        *state.base.borrow_mut() = text;
        state.track_typing();
        state.scene_changed();
        state.buffer.place_cursor(&state.buffer.start_iter());
        state
    }

    /// Makes buffer changes that are not the user's typing and that the view's own undo must
    /// not take back.
    fn quietly(&self, change: impl FnOnce()) {
        let was = self.applying.replace(true);
        self.buffer.begin_irreversible_action();
        change();
        self.buffer.end_irreversible_action();
        self.applying.set(was);
    }

    /// Records the user's typing as local edits.
    fn track_typing(&self) {
        let me = self.me.clone();
        self.buffer.connect_insert_text(move |buffer, at, text| {
            let Some(state) = me.upgrade() else { return };
            if state.applying.get() {
                return;
            }
            let offset = byte_offset(buffer, at);
            let base = state.base.borrow();
            state
                .edits
                .borrow_mut()
                .replace(&base, Span::new(offset, offset), text);
        });
        let me = self.me.clone();
        self.buffer.connect_delete_range(move |buffer, from, to| {
            let Some(state) = me.upgrade() else { return };
            if state.applying.get() {
                return;
            }
            let (a, b) = (byte_offset(buffer, from), byte_offset(buffer, to));
            let base = state.base.borrow();
            state
                .edits
                .borrow_mut()
                .replace(&base, Span::new(a.min(b), a.max(b)), "");
        });
    }

    /// Whether the user typed something not yet applied.
    pub fn has_local_edits(&self) -> bool {
        !self.edits.borrow().is_empty()
    }

    /// The text as the user sees it (the anchors aside).
    pub fn local_text(&self) -> String {
        let (start, end) = self.buffer.bounds();
        self.buffer.text(&start, &end, true).to_string()
    }

    // --- positions -------------------------------------------------------------------------

    /// The buffer position of byte `offset` of `text` (the buffer's text), after any anchor
    /// that stands right there.
    fn iter_at(&self, text: &str, lines: &LineIndex, offset: usize) -> gtk::TextIter {
        let at = lines.line_col(text, offset);
        let line = at.line - 1;
        let line_start = lines.offset(
            text,
            crate::lang::span::LineCol {
                line: at.line,
                column: 1,
            },
        );
        let column = offset - line_start;
        let anchors = self
            .elided
            .borrow()
            .iter()
            .filter(|e| !e.anchor.is_deleted())
            .map(|e| self.buffer.iter_at_child_anchor(&e.anchor))
            .filter(|i| i.line() as usize == line)
            .map(|i| i.line_index() as usize)
            .collect::<Vec<_>>();
        // Each anchor before the offset moves it along by the anchor's bytes.
        let mut sorted = anchors;
        sorted.sort_unstable();
        let mut index = column;
        for (k, anchor_index) in sorted.iter().enumerate() {
            let text_column = anchor_index - k * ANCHOR_BYTES;
            if text_column <= column {
                index += ANCHOR_BYTES;
            }
        }
        self.buffer
            .iter_at_line_index(line as i32, index as i32)
            .unwrap_or_else(|| self.buffer.end_iter())
    }

    // --- incoming changes ------------------------------------------------------------------

    /// Takes in a change of the session's text. A change made elsewhere is merged into the
    /// buffer unless it touches the user's typing; then the buffer stays and the user is told.
    pub fn text_changed(&self, edit: &TextEdit, by: Option<ViewId>) {
        let new_base = self.editor.session.text().to_owned();
        if by == Some(self.view_id) {
            // Our own Update, or a graphical edit of ours: the buffer says it already.
            *self.base.borrow_mut() = new_base;
            return;
        }
        let old_base = self.base.replace(new_base.clone());
        let was_clean = self.edits.borrow().is_empty();
        let merge = self.edits.borrow_mut().merge(&old_base, &new_base, edit);
        match merge {
            Merge::Applied(replacements) => {
                if !(was_clean && self.within_literals(&replacements)) {
                    self.stale_marks.set(true);
                }
                let local = if was_clean {
                    old_base
                } else {
                    self.local_text()
                };
                self.apply(&local, &replacements);
            }
            Merge::Conflict => self.messages.show(
                Some(
                    "The scene was changed elsewhere where you have typed here: your text is kept. \
                     Update applies it (undoing that change); Revert takes the file's text.",
                ),
                true,
            ),
        }
    }

    /// Whether every replacement rewrites text inside one highlighted literal.
    fn within_literals(&self, replacements: &[Replacement]) -> bool {
        let highlights = self.highlights.borrow();
        replacements.iter().all(|r| {
            let i = highlights.partition_point(|h| h.span.start <= r.span.start);
            i > 0
                && highlights[..i]
                    .iter()
                    .rev()
                    .take(4)
                    .any(|h| h.span.contains(r.span))
        })
    }

    /// Applies `replacements` (of `text`, the buffer's text, in text order), keeping the
    /// literal tags on rewritten literals.
    fn apply(&self, text: &str, replacements: &[Replacement]) {
        let lines = LineIndex::new(text);
        let tags: Vec<gtk::TextTag> = {
            let table = self.buffer.tag_table();
            LiteralKind::ALL
                .iter()
                .filter_map(|k| table.lookup(&k.tag_name()))
                .collect()
        };
        self.quietly(|| {
            for r in replacements.iter().rev() {
                let mut start = self.iter_at(text, &lines, r.span.start);
                let mut end = self.iter_at(text, &lines, r.span.end);
                let kept: Vec<&gtk::TextTag> = tags.iter().filter(|t| start.has_tag(*t)).collect();
                self.buffer.delete(&mut start, &mut end);
                let offset = start.offset();
                self.buffer.insert(&mut start, &r.text);
                let from = self.buffer.iter_at_offset(offset);
                for tag in kept {
                    self.buffer.apply_tag(tag, &from, &start);
                }
            }
        });
    }

    // --- marks on the text -----------------------------------------------------------------

    /// Takes in a newly evaluated scene: literal colours and elisions follow it, unless the
    /// user's typing makes its spans meaningless here (then they follow after Update).
    pub fn scene_changed(&self) {
        let Some(scene) = self.editor.session.scene() else {
            return;
        };
        let highlights = scene.highlights();
        if self.stale_marks.get() && self.edits.borrow().is_empty() {
            let text = self.base.borrow().clone();
            self.mark(&text, &scene, &highlights);
            self.stale_marks.set(false);
        }
        *self.highlights.borrow_mut() = highlights;
        drop(scene);
        self.clear_error();
        self.updating.set(false);
        if self.edits.borrow().is_empty() {
            self.messages.show(None, false);
        }
    }

    /// Places every literal tag and elision afresh on `text` (the buffer's whole text).
    fn mark(&self, text: &str, scene: &Scene, highlights: &[Highlight]) {
        self.quietly(|| {
            let (start, end) = self.buffer.bounds();
            for kind in LiteralKind::ALL {
                self.buffer
                    .remove_tag_by_name(&kind.tag_name(), &start, &end);
            }
            for name in ["elided", "expanded", "anchor"] {
                self.buffer.remove_tag_by_name(name, &start, &end);
            }
            for e in self.elided.borrow_mut().drain(..) {
                if !e.anchor.is_deleted() {
                    let mut at = self.buffer.iter_at_child_anchor(&e.anchor);
                    let mut after = at;
                    after.forward_char();
                    self.buffer.delete(&mut at, &mut after);
                }
                self.buffer.delete_mark(&e.end);
            }
            let lines = LineIndex::new(text);
            for h in highlights {
                let name = LiteralKind::of(h.target, scene).tag_name();
                let from = self.iter_at(text, &lines, h.span.start);
                let to = self.iter_at(text, &lines, h.span.end);
                self.buffer.apply_tag_by_name(&name, &from, &to);
            }
            let mut elisions = elidable(scene);
            let texts: BTreeMap<ElisionKey, String> = elisions
                .iter()
                .map(|(key, span)| (key.clone(), text[span.start..span.end].to_owned()))
                .collect();
            if let Some(before) = self.elidable_texts.borrow().as_ref() {
                let mut expanded = self.expanded.borrow_mut();
                for (key, literal) in &texts {
                    if before.get(key) != Some(literal) {
                        expanded.insert(key.clone());
                    }
                }
            }
            *self.elidable_texts.borrow_mut() = Some(texts);
            // From the end backwards, so each anchor goes in before those after it exist.
            elisions.reverse();
            for (key, span) in elisions {
                // The end is marked before the anchor goes in, which moves the mark along.
                let end = self.iter_at(text, &lines, span.end);
                let end = self.buffer.create_mark(None, &end, true);
                let mut at = self.iter_at(text, &lines, span.start);
                let anchor = self.buffer.create_child_anchor(&mut at);
                self.elided.borrow_mut().push(Elided {
                    key: key.clone(),
                    anchor: anchor.clone(),
                    end,
                });
                self.add_icon(&anchor, key);
            }
            let keys: Vec<ElisionKey> =
                self.elided.borrow().iter().map(|e| e.key.clone()).collect();
            for key in keys {
                self.show_elided(&key);
            }
        });
        self.publish_folds();
    }

    /// The clickable icon in front of an elided literal: as small as a character, so the
    /// line keeps its height.
    fn add_icon(&self, anchor: &gtk::TextChildAnchor, key: ElisionKey) {
        let icon = gtk::Button::with_label("⋯");
        icon.add_css_class("elision");
        icon.set_tooltip_text(Some("Show or hide the full text"));
        let me = self.me.clone();
        icon.connect_clicked(move |_| {
            if let Some(state) = me.upgrade() {
                state.toggle_elision(&key);
            }
        });
        self.view.add_child_at_anchor(&icon, anchor);
    }

    /// Shows a literal in full, or hides it behind its icon again.
    fn toggle_elision(&self, key: &ElisionKey) {
        {
            let mut expanded = self.expanded.borrow_mut();
            if !expanded.remove(key) {
                expanded.insert(key.clone());
            }
        }
        self.quietly(|| self.show_elided(key));
        self.publish_folds();
    }

    /// The action `fold`: its parameter names a literal that can be folded (as
    /// [`ElisionKey::name`] does), and activating it folds or unfolds it, as a click on its
    /// icon does. Its state, `a{sb}`, maps each such literal of the text to whether it is
    /// folded now.
    pub fn fold_action(&self) -> &gio::SimpleAction {
        &self.fold
    }

    /// Sets the `fold` action's state from the literals elided now.
    fn publish_folds(&self) {
        let expanded = self.expanded.borrow();
        let folds: BTreeMap<String, bool> = self
            .elided
            .borrow()
            .iter()
            .filter(|e| !e.anchor.is_deleted())
            .map(|e| (e.key.name(), !expanded.contains(&e.key)))
            .collect();
        self.fold.set_state(&folds.to_variant());
    }

    /// Tags the literal behind `key`'s icon as hidden or, when expanded, on a distinctive
    /// background.
    fn show_elided(&self, key: &ElisionKey) {
        let elided = self.elided.borrow();
        let Some(e) = elided
            .iter()
            .find(|e| &e.key == key && !e.anchor.is_deleted())
        else {
            return;
        };
        let anchor = self.buffer.iter_at_child_anchor(&e.anchor);
        let mut from = anchor;
        from.forward_char();
        let to = self.buffer.iter_at_mark(&e.end);
        self.buffer.apply_tag_by_name("anchor", &anchor, &from);
        if self.expanded.borrow().contains(key) {
            self.buffer.remove_tag_by_name("elided", &from, &to);
            self.buffer.apply_tag_by_name("expanded", &from, &to);
        } else {
            self.buffer.remove_tag_by_name("expanded", &from, &to);
            self.buffer.apply_tag_by_name("elided", &from, &to);
        }
    }

    // --- Update and errors -----------------------------------------------------------------

    /// Evaluates the viewer's text: it becomes the session's text (4.2). An error is marked
    /// where it is, and the cursor moved there.
    pub fn update(&self) {
        let text = self.local_text();
        self.updating.set(true);
        self.stale_marks.set(true);
        *self.edits.borrow_mut() = LocalEdits::default();
        self.editor.session.set_text(text, Some(self.view_id));
        *self.base.borrow_mut() = self.editor.session.text().to_owned();
    }

    /// Throws the typing away: the buffer shows the session's text again.
    pub fn discard_typing(&self) {
        if !self.has_local_edits() {
            return;
        }
        let local = self.local_text();
        let base = self.base.borrow().clone();
        *self.edits.borrow_mut() = LocalEdits::default();
        if let Some(r) = difference(&local, &base) {
            self.apply(&local, &[r]);
        }
        self.stale_marks.set(true);
        self.scene_changed();
        self.messages.show(None, false);
    }

    /// Marks `error` in the text, when the buffer shows the text it is about.
    pub fn scene_error(&self, error: &SceneError) {
        let moved_cursor = self.updating.replace(false);
        let message = format!(
            "Line {}, column {}: {}",
            error.at.line, error.at.column, error.message
        );
        self.messages.show(Some(&message), true);
        if self.has_local_edits() {
            return;
        }
        let text = self.base.borrow().clone();
        let lines = LineIndex::new(&text);
        let span = Span::new(
            error.span.start.min(text.len()),
            error.span.end.min(text.len()),
        );
        let from = self.iter_at(&text, &lines, span.start);
        let mut to = self.iter_at(&text, &lines, span.end);
        if from == to {
            to.forward_to_line_end();
        }
        self.quietly(|| {
            let (start, end) = self.buffer.bounds();
            self.buffer.remove_tag_by_name("error", &start, &end);
            self.buffer.apply_tag_by_name("error", &from, &to);
        });
        if moved_cursor {
            self.buffer.place_cursor(&from);
            let mark = self.buffer.get_insert();
            self.view.scroll_to_mark(&mark, 0.2, false, 0.0, 0.0);
            self.view.grab_focus();
        }
    }

    fn clear_error(&self) {
        let (start, end) = self.buffer.bounds();
        self.quietly(|| self.buffer.remove_tag_by_name("error", &start, &end));
    }
}

/// Elision icons as small as a character, so that their line keeps its height.
fn compact_icons(view: &sourceview5::View) {
    let css = gtk::CssProvider::new();
    css.load_from_data(
        "button.elision { min-height: 0; min-width: 0; padding: 0 3px; margin: 0; \
         border-radius: 3px; background: alpha(@accent_bg_color, 0.2); }",
    );
    gtk::style_context_add_provider_for_display(
        &gtk::prelude::WidgetExt::display(view),
        &css,
        gtk::STYLE_PROVIDER_PRIORITY_APPLICATION,
    );
}

/// The byte offset of `at` in the buffer's text, anchors not counted.
fn byte_offset(buffer: &sourceview5::Buffer, at: &gtk::TextIter) -> usize {
    buffer.text(&buffer.start_iter(), at, true).len()
}
