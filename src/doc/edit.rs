//! Edits a host makes to a document: each rewrites one run of bytes and leaves every other byte
//! as it was, so hand formatting, comments and unknown markup survive any number of edits.

use super::document::{Document, PresentationSize};
use super::error::EditError;
use super::escape::{escape_scene, escape_text, raw_offset_of_char};
use super::tree::NodeId;
use crate::lang::span::Span;

/// Where a new animation subdocument goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InsertAt {
    /// In a new paragraph of its own, after paragraph `n` (numbered from 0).
    AfterParagraph(usize),
    /// Inside paragraph `paragraph`, at character `offset` of the paragraph's text (its text
    /// elements read in order). An offset inside a text element splits it in two.
    InParagraph { paragraph: usize, offset: usize },
}

impl Document {
    /// Replaces the scene text of subdocument `index`; only the stored scene bytes change, and
    /// none when the scene is the one stored (its bytes may escape more or less than
    /// [`escape_scene`] would, as figure 6.2's form does, and stay as they were).
    pub fn replace_scene(&mut self, index: usize, scene: &str) -> Result<(), EditError> {
        let sub = self.subdocument(index)?;
        if sub.scene == scene {
            return Ok(());
        }
        let span = sub.scene_span;
        let asgard_content = self.tree().element(sub.asgard).expect("an element").content;
        let mut stored = escape_scene(scene);
        // A scene that starts with a line break needs the opening break in front of it, or
        // reading would take its own first line break for the opening one.
        if span.start == asgard_content.start && starts_with_line_break(&stored) {
            stored.insert_str(0, self.newline());
        }
        self.splice(span, &stored)
    }

    /// Replaces the character data of a text-only element (a `TEXT`, a heading, a memo field).
    pub fn replace_text(&mut self, element: NodeId, text: &str) -> Result<(), EditError> {
        let tree = self.tree();
        let e = tree.element(element).ok_or(EditError::NotATextElement)?;
        if !tree.is_text_element(element) || e.name == "ASGARD" {
            return Err(EditError::NotATextElement);
        }
        self.splice(e.content, &escape_text(text))
    }

    /// Inserts a new animation subdocument holding `scene` (empty for a new, empty animation),
    /// optionally asking for a presentation size. Returns the new subdocument's index.
    pub fn insert_animation(
        &mut self,
        at: InsertAt,
        scene: &str,
        size: Option<PresentationSize>,
    ) -> Result<usize, EditError> {
        let nl = self.newline();
        let animation = self.animation_markup(scene, size);
        let (position, markup) = match at {
            InsertAt::AfterParagraph(n) => {
                let paragraph = self.paragraph(n)?;
                let end = self.tree().node(paragraph).span.end;
                (
                    end,
                    format!("{nl}<PARAGRAPH>{nl}{animation}{nl}</PARAGRAPH>"),
                )
            }
            InsertAt::InParagraph { paragraph, offset } => {
                self.position_in_paragraph(self.paragraph(paragraph)?, offset, &animation)?
            }
        };
        let index = self
            .subdocuments()
            .iter()
            .filter(|s| self.tree().node(s.animation).span.start < position)
            .count();
        self.splice(Span::new(position, position), &markup)?;
        Ok(index)
    }

    /// Deletes subdocument `index`: its `<DOCUMENT ANIMATION>` wrapper when it has one, else the
    /// `ANIMATION` element, with the line it stood on when it stood alone on it.
    pub fn delete_animation(&mut self, index: usize) -> Result<(), EditError> {
        let animation = self.subdocument(index)?.animation;
        let tree = self.tree();
        let target = match tree.node(animation).parent {
            Some(parent)
                if tree.element(parent).is_some_and(|e| e.name == "DOCUMENT")
                    && tree.child_elements(parent).count() == 1 =>
            {
                parent
            }
            _ => animation,
        };
        let span = self.whole_lines(tree.node(target).span);
        self.splice(span, "")
    }

    fn paragraph(&self, n: usize) -> Result<NodeId, EditError> {
        let paragraphs = self.paragraphs();
        paragraphs
            .get(n)
            .copied()
            .ok_or(EditError::NoSuchParagraph {
                index: n,
                count: paragraphs.len(),
            })
    }

    /// `<DOCUMENT ANIMATION>` … `</DOCUMENT>` holding `scene`, as figure 6.2 lays it out.
    fn animation_markup(&self, scene: &str, size: Option<PresentationSize>) -> String {
        let nl = self.newline();
        let size = size.map_or(String::new(), |s| {
            format!(" WIDTH={} HEIGHT={}", s.width, s.height)
        });
        format!(
            "<DOCUMENT ANIMATION>{nl}<ANIMATION{size}>{nl}<ASGARD>{nl}{}</ASGARD>{nl}</ANIMATION>{nl}</DOCUMENT>",
            escape_scene(scene)
        )
    }

    /// Where and what to insert to put `animation` at character `offset` of a paragraph's
    /// text: between its text elements, or splitting the one the offset falls inside.
    fn position_in_paragraph(
        &self,
        paragraph: NodeId,
        offset: usize,
        animation: &str,
    ) -> Result<(usize, String), EditError> {
        let nl = self.newline();
        let tree = self.tree();
        let runs: Vec<NodeId> = tree
            .child_elements(paragraph)
            .filter(|&c| tree.is_text_element(c))
            .collect();
        let mut remaining = offset;
        for &run in &runs {
            let element = tree.element(run).expect("an element");
            let length = tree.text_of(run).chars().count();
            if remaining >= length {
                remaining -= length;
                continue;
            }
            if remaining == 0 {
                return Ok((tree.node(run).span.start, format!("{animation}{nl}")));
            }
            let raw = self.slice(element.content);
            let split = raw_offset_of_char(raw, remaining)
                .expect("remaining is less than the run's length");
            let end_tag = self.slice(element.end_tag);
            let start_tag = self.slice(element.start_tag);
            return Ok((
                element.content.start + split,
                format!("{end_tag}{nl}{animation}{nl}{start_tag}"),
            ));
        }
        if remaining > 0 {
            let length = runs.iter().map(|&r| tree.text_of(r).chars().count()).sum();
            return Err(EditError::OffsetOutOfRange { offset, length });
        }
        let position = match runs.last() {
            Some(&last) => tree.node(last).span.end,
            None => tree.element(paragraph).expect("an element").start_tag.end,
        };
        Ok((position, format!("{nl}{animation}")))
    }

    /// `span` widened to the whole lines it covers when nothing but blanks shares those lines
    /// with it, so deleting it leaves no empty line behind.
    fn whole_lines(&self, span: Span) -> Span {
        let text = self.text();
        let line_start = text[..span.start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = text[span.end..]
            .find('\n')
            .map_or(text.len(), |i| span.end + i + 1);
        let blank = |s: &str| s.trim().is_empty();
        if blank(&text[line_start..span.start]) && blank(&text[span.end..line_end]) {
            Span::new(line_start, line_end)
        } else {
            span
        }
    }
}

fn starts_with_line_break(s: &str) -> bool {
    s.starts_with('\n') || s.starts_with("\r\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    const MEMO: &str = include_str!("../../examples/memo.sgml");

    fn memo() -> Document {
        Document::parse(MEMO.to_string()).unwrap()
    }

    /// Asserts that `after` is `before` with `before[span]` replaced by something.
    fn only_span_changed(before: &str, after: &str, span: Span) {
        assert_eq!(&after[..span.start], &before[..span.start]);
        assert_eq!(
            &after[after.len() - (before.len() - span.end)..],
            &before[span.end..]
        );
    }

    #[test]
    fn replacing_a_scene_changes_only_its_bytes() {
        let mut doc = memo();
        let span = doc.subdocuments()[0].scene_span;
        doc.replace_scene(0, "body b1 shape {odd} init_pos {0 0 0}\n")
            .unwrap();
        only_span_changed(MEMO, doc.text(), span);
        assert_eq!(
            doc.subdocuments()[0].scene,
            "body b1 shape {odd} init_pos {0 0 0}\n"
        );
        assert!(doc
            .text()
            .contains("<ASGARD>\nbody b1 shape \\{odd\\} init_pos \\{0 0 0\\}\n</ASGARD>"));
    }

    #[test]
    fn the_scene_stored_again_leaves_its_bytes_however_they_escape_it() {
        // Found by the doc fuzz target: a brace and a doubled backslash stored as figure 6.2
        // writes them (braces escaped only where its writer did) read as the same scene that
        // escape_scene would store differently; storing that scene again rewrote the bytes.
        let text = "<ANIMATION><ASGARD>\nbody b init_pos \\{1 0 }0\\\\x\n</ASGARD></ANIMATION>";
        let mut doc = Document::parse(text.into()).unwrap();
        let scene = doc.subdocuments()[0].scene.clone();
        assert_eq!(scene, "body b init_pos {1 0 }0\\x\n");
        doc.replace_scene(0, &scene).unwrap();
        assert_eq!(doc.text(), text);
        // A changed scene is stored in the canonical form.
        doc.replace_scene(0, "body b init_pos {1 0 0}\n").unwrap();
        assert!(
            doc.text().contains("init_pos \\{1 0 0\\}"),
            "{}",
            doc.text()
        );
    }

    #[test]
    fn a_scene_starting_with_a_line_break_survives_a_missing_opening_break() {
        let text = "<ANIMATION><ASGARD>x</ASGARD></ANIMATION>";
        let mut doc = Document::parse(text.into()).unwrap();
        for scene in ["\nfirst line empty\n", "\r\nx", "", "y"] {
            doc.replace_scene(0, scene).unwrap();
            assert_eq!(doc.subdocuments()[0].scene, scene);
        }
    }

    #[test]
    fn replacing_text_escapes_markup() {
        let mut doc = memo();
        let text_element = doc.tree().elements_named("TEXT").next().unwrap();
        let span = doc.tree().element(text_element).unwrap().content;
        doc.replace_text(text_element, "a < b & c").unwrap();
        only_span_changed(MEMO, doc.text(), span);
        let text_element = doc.tree().elements_named("TEXT").next().unwrap();
        assert_eq!(doc.tree().text_of(text_element), "a < b & c");
        assert!(doc.text().contains("<TEXT>a &lt; b &amp; c</TEXT>"));

        let paragraph = doc.paragraphs()[0];
        assert_eq!(
            doc.replace_text(paragraph, "x"),
            Err(EditError::NotATextElement)
        );
        let asgard = doc.subdocuments()[0].asgard;
        assert_eq!(
            doc.replace_text(asgard, "x"),
            Err(EditError::NotATextElement)
        );
    }

    #[test]
    fn insert_after_a_paragraph() {
        let mut doc = memo();
        let size = PresentationSize {
            width: 400,
            height: 300,
        };
        let index = doc
            .insert_animation(
                InsertAt::AfterParagraph(0),
                "simulator finish {2}\n",
                Some(size),
            )
            .unwrap();
        assert_eq!(index, 1);
        let sub = &doc.subdocuments()[1];
        assert_eq!(sub.scene, "simulator finish {2}\n");
        assert_eq!(sub.size, Some(size));
        assert_eq!(doc.paragraphs().len(), 3);
        let inserted = "</PARAGRAPH>\n<PARAGRAPH>\n<DOCUMENT ANIMATION>\n<ANIMATION WIDTH=400 HEIGHT=300>\n\
             <ASGARD>\nsimulator finish \\{2\\}\n</ASGARD>\n</ANIMATION>\n</DOCUMENT>\n</PARAGRAPH>\n<PARAGRAPH>";
        assert!(doc.text().contains(inserted), "{}", doc.text());
        // Everything else is as before: removing the insertion gives the original back.
        let position = MEMO.find("</PARAGRAPH>").unwrap() + "</PARAGRAPH>".len();
        let added = doc.text().len() - MEMO.len();
        assert_eq!(
            format!(
                "{}{}",
                &doc.text()[..position],
                &doc.text()[position + added..]
            ),
            MEMO
        );
    }

    #[test]
    fn insert_inside_a_paragraph_splits_its_text() {
        let mut doc = memo();
        // "Thanks to Vance…": offset 6 falls after "Thanks".
        let index = doc
            .insert_animation(
                InsertAt::InParagraph {
                    paragraph: 1,
                    offset: 6,
                },
                "",
                None,
            )
            .unwrap();
        assert_eq!(index, 1);
        assert!(doc.text().contains(
            "<TEXT>Thanks</TEXT>\n<DOCUMENT ANIMATION>\n<ANIMATION>\n<ASGARD>\n</ASGARD>\n\
             </ANIMATION>\n</DOCUMENT>\n<TEXT> to Vance"
        ));
        assert_eq!(doc.subdocuments()[1].scene, "");
        let texts: Vec<String> = doc
            .tree()
            .elements_named("TEXT")
            .map(|t| doc.tree().text_of(t))
            .collect();
        assert_eq!(
            texts,
            ["Thanks", " to Vance for putting this example together."]
        );
    }

    #[test]
    fn insert_inside_a_paragraph_at_its_edges_and_beyond() {
        let text = "<BODY>\n<PARAGRAPH>\n<TEXT>a&amp;b</TEXT>\n<EMPH>cd</EMPH>\n</PARAGRAPH>\n\
                    <PARAGRAPH>\n</PARAGRAPH>\n</BODY>\n";
        let at = |paragraph, offset| InsertAt::InParagraph { paragraph, offset };
        let mut doc = Document::parse(text.into()).unwrap();
        assert_eq!(doc.insert_animation(at(0, 5), "end", None), Ok(0));
        assert_eq!(doc.insert_animation(at(0, 0), "start", None), Ok(0));
        // Offset 2 is inside `a&amp;b`, after the reference.
        assert_eq!(doc.insert_animation(at(0, 2), "mid", None), Ok(1));
        // Offset 3 is the boundary between TEXT and EMPH.
        assert_eq!(doc.insert_animation(at(0, 3), "edge", None), Ok(2));
        assert_eq!(
            doc.insert_animation(at(1, 0), "empty paragraph", None),
            Ok(4)
        );
        let scenes: Vec<&str> = doc
            .subdocuments()
            .iter()
            .map(|s| s.scene.as_str())
            .collect();
        assert_eq!(scenes, ["start", "mid", "edge", "end", "empty paragraph"]);
        assert!(doc.text().contains("<TEXT>a&amp;</TEXT>"));
        assert_eq!(
            doc.insert_animation(at(0, 6), "", None),
            Err(EditError::OffsetOutOfRange {
                offset: 6,
                length: 5
            })
        );
        assert_eq!(
            doc.insert_animation(InsertAt::AfterParagraph(2), "", None),
            Err(EditError::NoSuchParagraph { index: 2, count: 2 })
        );
    }

    #[test]
    fn delete_removes_the_wrapper_and_its_lines() {
        let mut doc = memo();
        doc.delete_animation(0).unwrap();
        assert!(doc.subdocuments().is_empty());
        assert!(doc
            .text()
            .contains("<BODY>\n<PARAGRAPH>\n</PARAGRAPH>\n<PARAGRAPH>\n<TEXT>Thanks"));
        assert_eq!(
            doc.delete_animation(0),
            Err(EditError::NoSuchSubdocument { index: 0, count: 0 })
        );
    }

    #[test]
    fn insert_then_delete_restores_the_original() {
        let mut doc = memo();
        let index = doc
            .insert_animation(
                InsertAt::InParagraph {
                    paragraph: 1,
                    offset: 0,
                },
                "x",
                None,
            )
            .unwrap();
        doc.delete_animation(index).unwrap();
        assert_eq!(doc.text(), MEMO);
    }
}
