//! The typing a language viewer holds and the session does not have yet (4.2).
//!
//! A language viewer is not synchronised keystroke by keystroke: what the user types stays in
//! the viewer until Update. Meanwhile the text can change underneath — a handle dragged in a
//! graphical viewer, an Update in another language viewer, an undo. Nothing typed may be lost:
//! [`LocalEdits`] keeps the typing as replacements of regions of the session's text (the
//! *base*), so an incoming change can be merged when it touches none of those regions, and is
//! refused (the viewer keeps its text and says so) when it does.
//!
//! Offsets are bytes: base offsets index the session's text, local offsets the viewer's text.

use crate::lang::span::Span;
use crate::scene::{Replacement, TextEdit};

/// One region of the base the user changed, and what it now says.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Region {
    base: Span,
    text: String,
}

/// The user's changes to the base, as regions that neither overlap nor touch, in text order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LocalEdits {
    regions: Vec<Region>,
}

/// What became of an incoming change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Merge {
    /// It touched none of the user's regions: these replacements, in the local text's
    /// coordinates and in text order, bring the local text up to date.
    Applied(Vec<Replacement>),
    /// It touched text the user changed; the local text stays as it is.
    Conflict,
}

impl LocalEdits {
    /// The user changed nothing.
    pub fn is_empty(&self) -> bool {
        self.regions.is_empty()
    }

    /// The local text: `base` with the user's changes.
    pub fn apply(&self, base: &str) -> String {
        let mut out = String::with_capacity(base.len());
        let mut at = 0;
        for r in &self.regions {
            out.push_str(&base[at..r.base.start]);
            out.push_str(&r.text);
            at = r.base.end;
        }
        out.push_str(&base[at..]);
        out
    }

    /// The changes that turn `base` into `local`, as one region from the first to the last byte
    /// that differs (used when the exact history of the typing is not known).
    pub fn between(base: &str, local: &str) -> LocalEdits {
        LocalEdits {
            regions: difference(base, local)
                .map(|r| Region {
                    base: r.span,
                    text: r.text,
                })
                .into_iter()
                .collect(),
        }
    }

    /// Records that the user replaced `local` (a span of the local text) with `text`. `base`
    /// is the session's text these edits apply to.
    pub fn replace(&mut self, base: &str, local: Span, text: &str) {
        // Local extents of the regions, and the first and last region the change touches.
        let mut delta = 0isize;
        let mut extents = Vec::with_capacity(self.regions.len());
        for r in &self.regions {
            let start = shift(r.base.start, delta);
            delta += r.text.len() as isize - r.base.len() as isize;
            extents.push(Span::new(start, start + r.text.len()));
        }
        let touched: Vec<usize> = (0..self.regions.len())
            .filter(|&i| extents[i].end >= local.start && extents[i].start <= local.end)
            .collect();
        let to_base = |offset: usize| -> usize {
            // Offsets outside every region: undo the shift of the regions before them.
            let before: isize = self
                .regions
                .iter()
                .zip(&extents)
                .take_while(|(_, e)| e.end <= offset)
                .map(|(r, _)| r.text.len() as isize - r.base.len() as isize)
                .sum();
            shift(offset, -before)
        };
        let (first, last) = match (touched.first(), touched.last()) {
            (Some(&f), Some(&l)) => (f, l),
            _ => {
                let start = to_base(local.start);
                let region = Region {
                    base: Span::new(start, start + local.len()),
                    text: text.to_owned(),
                };
                let at = self.regions.partition_point(|r| r.base.start < start);
                self.regions.insert(at, region);
                self.normalise_at(base, at);
                return;
            }
        };
        let (base_start, local_start) = if local.start < extents[first].start {
            (to_base(local.start), local.start)
        } else {
            (self.regions[first].base.start, extents[first].start)
        };
        let (base_end, local_end) = if local.end > extents[last].end {
            (
                self.regions[last].base.end + (local.end - extents[last].end),
                local.end,
            )
        } else {
            (self.regions[last].base.end, extents[last].end)
        };
        // What the merged stretch says locally now: base gaps and region texts.
        let mut content = String::new();
        let mut at = base_start;
        for r in &self.regions[first..=last] {
            content.push_str(&base[at..r.base.start.max(at)]);
            content.push_str(&r.text);
            at = r.base.end;
        }
        content.push_str(&base[at.min(base_end)..base_end]);
        debug_assert_eq!(content.len(), local_end - local_start);
        content.replace_range(local.start - local_start..local.end - local_start, text);
        self.regions.splice(
            first..=last,
            [Region {
                base: Span::new(base_start, base_end),
                text: content,
            }],
        );
        self.normalise_at(base, first);
    }

    /// Drops region `at` when it says what the base says there.
    fn normalise_at(&mut self, base: &str, at: usize) {
        let r = &self.regions[at];
        if base[r.base.start..r.base.end] == r.text {
            self.regions.remove(at);
        }
    }

    /// Takes in `incoming`, a change of `base` (the session's previous text) into `new_base`.
    /// When it touches none of the user's regions, the regions follow it and the result says
    /// how to change the local text. Otherwise the local text stays and the regions are
    /// recomputed against `new_base`, so that an Update would write the local text as it is.
    pub fn merge(&mut self, base: &str, new_base: &str, incoming: &TextEdit) -> Merge {
        let conflict = incoming.replacements.iter().any(|rep| {
            self.regions
                .iter()
                .any(|r| rep.span.start <= r.base.end && rep.span.end >= r.base.start)
        });
        if conflict {
            let local = self.apply(base);
            *self = LocalEdits::between(new_base, &local);
            return Merge::Conflict;
        }
        // Local coordinates of each incoming replacement: shifted by the regions before it.
        let mut local = Vec::with_capacity(incoming.replacements.len());
        for rep in &incoming.replacements {
            let before: isize = self
                .regions
                .iter()
                .take_while(|r| r.base.end <= rep.span.start)
                .map(|r| r.text.len() as isize - r.base.len() as isize)
                .sum();
            local.push(Replacement {
                span: Span::new(shift(rep.span.start, before), shift(rep.span.end, before)),
                text: rep.text.clone(),
            });
        }
        // The regions move with the incoming replacements before them.
        for r in &mut self.regions {
            let before: isize = incoming
                .replacements
                .iter()
                .take_while(|rep| rep.span.end <= r.base.start)
                .map(|rep| rep.text.len() as isize - rep.span.len() as isize)
                .sum();
            r.base = Span::new(shift(r.base.start, before), shift(r.base.end, before));
        }
        Merge::Applied(local)
    }

    /// The base span of each region, for marking what the user changed.
    pub fn base_spans(&self) -> impl Iterator<Item = Span> + '_ {
        self.regions.iter().map(|r| r.base)
    }
}

/// The one replacement of `old` that gives `new`: from the first to the last byte that
/// differs, on character boundaries; `None` when they are the same.
pub fn difference(old: &str, new: &str) -> Option<Replacement> {
    let (prefix, suffix) = common_ends(old, new);
    if prefix == old.len() && prefix == new.len() {
        return None;
    }
    Some(Replacement {
        span: Span::new(prefix, old.len() - suffix),
        text: new[prefix..new.len() - suffix].to_owned(),
    })
}

fn shift(offset: usize, delta: isize) -> usize {
    offset
        .checked_add_signed(delta)
        .expect("offsets stay in the text")
}

/// The lengths of the longest common prefix and suffix of `a` and `b` that do not overlap,
/// on character boundaries.
fn common_ends(a: &str, b: &str) -> (usize, usize) {
    let mut prefix = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !a.is_char_boundary(prefix) || !b.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let room = (a.len() - prefix).min(b.len() - prefix);
    let mut suffix = a
        .bytes()
        .rev()
        .zip(b.bytes().rev())
        .take(room)
        .take_while(|(x, y)| x == y)
        .count();
    while !a.is_char_boundary(a.len() - suffix) || !b.is_char_boundary(b.len() - suffix) {
        suffix -= 1;
    }
    (prefix, suffix)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn edit(span: (usize, usize), text: &str) -> TextEdit {
        TextEdit {
            replacements: vec![Replacement {
                span: Span::new(span.0, span.1),
                text: text.into(),
            }],
        }
    }

    fn applied(text: &str, replacements: &[Replacement]) -> String {
        TextEdit {
            replacements: replacements.to_vec(),
        }
        .apply(text)
    }

    const BASE: &str = "body b1 shape ball init_pos {0 0 0}\nbody b2 shape ball init_pos {5 0 0}\n";

    #[test]
    fn a_drag_elsewhere_merges_into_the_typing() {
        let mut edits = LocalEdits::default();
        // The user types a comment at the start.
        edits.replace(BASE, Span::new(0, 0), "# two balls\n");
        let local = edits.apply(BASE);
        // b2's init_pos changes underneath.
        let at = BASE.find("5 0 0").unwrap();
        let incoming = edit((at, at + 1), "7.5");
        let new_base = incoming.apply(BASE);
        let Merge::Applied(reps) = edits.merge(BASE, &new_base, &incoming) else {
            panic!("conflict");
        };
        let merged = applied(&local, &reps);
        assert_eq!(merged, format!("# two balls\n{new_base}"));
        assert_eq!(edits.apply(&new_base), merged);
    }

    #[test]
    fn a_change_inside_the_typing_is_refused_and_the_typing_kept() {
        let mut edits = LocalEdits::default();
        let at = BASE.find("5 0 0").unwrap();
        edits.replace(BASE, Span::new(at, at + 1), "6");
        let local = edits.apply(BASE);
        let incoming = edit((at, at + 1), "7.5");
        let new_base = incoming.apply(BASE);
        assert_eq!(edits.merge(BASE, &new_base, &incoming), Merge::Conflict);
        // An Update would now write what the user sees.
        assert_eq!(edits.apply(&new_base), local);
        // Touching counts as touching: typing right after a literal that changes.
        let mut edits = LocalEdits::default();
        let end = BASE.find('}').unwrap();
        edits.replace(BASE, Span::new(end, end), " ");
        let incoming = edit((end - 5, end), "1 1 1");
        assert_eq!(
            edits.merge(BASE, &incoming.apply(BASE), &incoming),
            Merge::Conflict
        );
    }

    #[test]
    fn typing_back_what_was_there_leaves_no_edit() {
        let mut edits = LocalEdits::default();
        edits.replace(BASE, Span::new(5, 7), "");
        edits.replace(BASE, Span::new(5, 5), "b");
        edits.replace(BASE, Span::new(6, 6), "1");
        assert!(edits.is_empty(), "{edits:?}");
    }

    #[test]
    fn between_finds_the_changed_stretch_on_character_boundaries() {
        let edits = LocalEdits::between("a→b", "a←b");
        assert_eq!(edits.apply("a→b"), "a←b");
        assert_eq!(edits.base_spans().collect::<Vec<_>>(), [Span::new(1, 4)]);
        assert!(LocalEdits::between("same", "same").is_empty());
    }

    /// A text and a valid span of it with some replacement, from random numbers.
    fn pick(text: &str, a: usize, b: usize, with: &str) -> (Span, String) {
        let boundaries: Vec<usize> = (0..=text.len())
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        let x = boundaries[a % boundaries.len()];
        let y = boundaries[b % boundaries.len()];
        (Span::new(x.min(y), x.max(y)), with.to_owned())
    }

    proptest! {
        #[test]
        fn the_regions_always_rebuild_the_local_text(
            base in "[a-c é\n]{0,30}",
            typing in prop::collection::vec((0usize..100, 0usize..100, "[xyé]{0,3}"), 0..8),
        ) {
            let mut edits = LocalEdits::default();
            let mut local = base.clone();
            for (a, b, with) in typing {
                let (span, with) = pick(&local, a, b, &with);
                edits.replace(&base, span, &with);
                local.replace_range(span.start..span.end, &with);
                prop_assert_eq!(edits.apply(&base), local.clone());
            }
            // Regions stay sorted, apart and inside the base.
            for pair in edits.regions.windows(2) {
                prop_assert!(pair[0].base.end < pair[1].base.start);
            }
            prop_assert!(edits.regions.iter().all(|r| r.base.end <= base.len()));
        }

        #[test]
        fn a_merge_gives_the_local_text_the_incoming_change(
            base in "[a-c é\n]{1,30}",
            typing in prop::collection::vec((0usize..100, 0usize..100, "[xy]{0,3}"), 0..4),
            incoming in (0usize..100, 0usize..100, "[z]{0,3}"),
        ) {
            let mut edits = LocalEdits::default();
            let mut local = base.clone();
            for (a, b, with) in typing {
                let (span, with) = pick(&local, a, b, &with);
                edits.replace(&base, span, &with);
                local.replace_range(span.start..span.end, &with);
            }
            let (span, with) = pick(&base, incoming.0, incoming.1, &incoming.2);
            let change = edit((span.start, span.end), &with);
            let new_base = change.apply(&base);
            match edits.merge(&base, &new_base, &change) {
                Merge::Applied(reps) => {
                    let merged = applied(&local, &reps);
                    prop_assert_eq!(edits.apply(&new_base), merged.clone());
                    // The incoming text is in the merged text, and so is every region's typing.
                    prop_assert!(merged.contains(&with));
                }
                Merge::Conflict => prop_assert_eq!(edits.apply(&new_base), local),
            }
        }
    }
}
