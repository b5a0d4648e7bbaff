//! Character data: references in text, and the escaping of scene text inside `ASGARD`.
//!
//! # Text
//!
//! Character data in any element may use the references `&lt;` `&gt;` `&amp;` `&quot;`
//! `&apos;` and character references `&#DIGITS;` / `&#xHEX;`. An `&` that is not followed by
//! a name character or `#` is an ordinary character (as SGML reads it), so `a && b` needs no
//! escaping. Written text escapes `&`, `<` and `>` only.
//!
//! # Scene text inside `<ASGARD>`
//!
//! The scene text is stored in two layers, so that any text without NUL round-trips exactly:
//!
//! 1. The Asgard layer (dissertation 6.2.1, figure 6.2): `{`, `}` and `\` are written with a
//!    backslash before them: `\{`, `\}`, `\\`.
//! 2. The markup layer, the same as for any text: `&`, `<`, `>` are written `&amp;`, `&lt;`,
//!    `&gt;`.
//!
//! Every other character, including line ends, tabs and non-ASCII characters, is written as
//! itself. The stored form therefore contains no `<` (no markup can start inside it, and
//! `</ASGARD>` is always the real end), no bare `&` and no `]]>`.
//!
//! Reading undoes both layers in one pass: `\{`, `\}`, `\\` stand for the character after the
//! backslash; references are decoded as in text; a backslash before any other character is an
//! ordinary backslash. So the figure 6.2 form, which escapes braces only, reads as intended:
//! `shape_set ss1 desc \{sub pos \{0 0 0\} sphere 0.5\}` is `shape_set ss1 desc {sub pos
//! {0 0 0} sphere 0.5}`.
//!
//! One line break directly after `<ASGARD>` belongs to the markup, not to the scene (SGML
//! ignores a record end right after a start tag); [`crate::doc::Document`] skips it when
//! reading and keeps it when writing.

use super::error::{DecodeError, ErrorKind};
use crate::lang::span::Span;

/// Writes text as character data: `&`, `<`, `>` become references.
pub fn escape_text(text: &str) -> String {
    escape(text, false)
}

/// Writes scene text as the content of an `ASGARD` element (both layers, see the module docs).
pub fn escape_scene(scene: &str) -> String {
    escape(scene, true)
}

/// Escapes `&`, `<`, `>`, and with `backslashes` also `{`, `}`, `\\`, copying the runs
/// between them whole.
fn escape(s: &str, backslashes: bool) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8);
    let mut run = 0;
    for (i, b) in s.bytes().enumerate() {
        let escaped = match b {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'{' if backslashes => "\\{",
            b'}' if backslashes => "\\}",
            b'\\' if backslashes => "\\\\",
            _ => continue,
        };
        out.push_str(&s[run..i]);
        out.push_str(escaped);
        run = i + 1;
    }
    out.push_str(&s[run..]);
    out
}

/// Reads the stored content of an `ASGARD` element back into scene text.
pub fn unescape_scene(stored: &str) -> Result<String, DecodeError> {
    decode(stored, true)
}

/// Decodes the references in character data.
pub(crate) fn decode_text(raw: &str) -> Result<String, DecodeError> {
    decode(raw, false)
}

/// Decodes `raw`, copying the runs between `&` and `\\` whole.
fn decode(raw: &str, backslashes: bool) -> Result<String, DecodeError> {
    let units = Units::new(raw, backslashes);
    let bytes = raw.as_bytes();
    let mut out = String::with_capacity(raw.len());
    let mut run = 0;
    let mut pos = 0;
    while let Some(i) = bytes[pos..]
        .iter()
        .position(|&b| b == b'&' || (backslashes && b == b'\\'))
    {
        let at = pos + i;
        match units.special(at)? {
            Some((end, c)) => {
                out.push_str(&raw[run..at]);
                out.push(c);
                run = end;
                pos = end;
            }
            None => pos = at + 1,
        }
    }
    out.push_str(&raw[run..]);
    Ok(out)
}

/// The byte offset in `raw` character data where decoded character number `index` starts
/// (`raw.len()` when `index` is the number of characters). `None` past the end.
pub(crate) fn raw_offset_of_char(raw: &str, index: usize) -> Option<usize> {
    let mut units = Units::new(raw, false);
    for _ in 0..index {
        units.next()?.ok()?;
    }
    Some(units.pos)
}

/// The byte offset in `stored` scene text (the escaped content of an `ASGARD` element) where
/// the character at byte `offset` of the unescaped scene starts (`stored.len()` at the scene's
/// end). An offset inside a character, past the end, or after an undecodable reference is
/// `None`. Errors in a stored scene are reported at their place in the document with it.
pub(crate) fn stored_offset_of_scene_byte(stored: &str, offset: usize) -> Option<usize> {
    let mut units = Units::new(stored, true);
    let mut decoded = 0;
    while decoded < offset {
        let (_, c) = units.next()?.ok()?;
        decoded += c.len_utf8();
    }
    (decoded == offset).then_some(units.pos)
}

/// The characters that character data stands for, each with the bytes that wrote it.
struct Units<'a> {
    raw: &'a str,
    pos: usize,
    /// Whether `\{`, `\}`, `\\` are escapes (scene text) or plain characters (text).
    backslashes: bool,
}

impl<'a> Units<'a> {
    fn new(raw: &'a str, backslashes: bool) -> Units<'a> {
        Units {
            raw,
            pos: 0,
            backslashes,
        }
    }

    /// The escape or reference starting at byte `at`, if one does: its end and character.
    /// A `&` not followed by a name character or `#`, and a backslash not followed by a
    /// brace or backslash (or any backslash in plain text), are ordinary characters: `None`.
    fn special(&self, at: usize) -> Result<Option<(usize, char)>, DecodeError> {
        let bytes = self.raw.as_bytes();
        match (bytes[at], bytes.get(at + 1)) {
            (b'\\', Some(&e @ (b'{' | b'}' | b'\\'))) if self.backslashes => {
                Ok(Some((at + 2, char::from(e))))
            }
            (b'&', Some(&n)) if n == b'#' || n.is_ascii_alphabetic() => {
                self.reference(at).map(Some)
            }
            _ => Ok(None),
        }
    }

    /// Reads the reference starting with the `&` at `start`: its end and its character.
    fn reference(&self, start: usize) -> Result<(usize, char), DecodeError> {
        let bytes = self.raw.as_bytes();
        let numeric = bytes.get(start + 1) == Some(&b'#');
        let hex = numeric && matches!(bytes.get(start + 2), Some(b'x' | b'X'));
        let body_start = start + 1 + usize::from(numeric) + usize::from(hex);
        let in_body = |b: u8| match (numeric, hex) {
            (false, _) => is_name_byte(b),
            (true, false) => b.is_ascii_digit(),
            (true, true) => b.is_ascii_hexdigit(),
        };
        let body_end = body_start
            + bytes[body_start..]
                .iter()
                .take_while(|&&b| in_body(b))
                .count();
        let body = &self.raw[body_start..body_end];
        let bad = |end: usize| DecodeError {
            kind: ErrorKind::BadCharacterReference {
                reference: self.raw[start..end].to_string(),
            },
            span: Span::new(start, end),
        };
        if bytes.get(body_end) != Some(&b';') {
            let malformed_number = numeric
                && (body.is_empty() || bytes.get(body_end).is_some_and(|b| is_name_byte(*b)));
            if malformed_number {
                let end = body_end
                    + bytes[body_end..]
                        .iter()
                        .take_while(|&&b| is_name_byte(b))
                        .count();
                return Err(bad(end));
            }
            return Err(DecodeError {
                kind: ErrorKind::UnterminatedReference,
                span: Span::new(start, body_end),
            });
        }
        let end = body_end + 1;
        let c = if numeric {
            u32::from_str_radix(body, if hex { 16 } else { 10 })
                .ok()
                .and_then(char::from_u32)
                .filter(|&c| c != '\0')
                .ok_or_else(|| bad(end))?
        } else {
            match body.to_ascii_lowercase().as_str() {
                "lt" => '<',
                "gt" => '>',
                "amp" => '&',
                "quot" => '"',
                "apos" => '\'',
                _ => {
                    return Err(DecodeError {
                        kind: ErrorKind::UnknownEntity {
                            name: body.to_string(),
                        },
                        span: Span::new(start, end),
                    })
                }
            }
        };
        Ok((end, c))
    }
}

pub(crate) fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_')
}

impl Iterator for Units<'_> {
    /// The bytes a character was written with, and the character.
    type Item = Result<(Span, char), DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        let start = self.pos;
        let c = self.raw[start..].chars().next()?;
        let unit = match self.special(start) {
            Ok(Some(unit)) => unit,
            Ok(None) => (start + c.len_utf8(), c),
            Err(e) => {
                self.pos = self.raw.len();
                return Some(Err(e));
            }
        };
        self.pos = unit.0;
        Some(Ok((Span::new(start, unit.0), unit.1)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn figure_6_2_form_reads_with_plain_braces() {
        let stored = "shape_set ss1 desc \\{sub pos \\{0 0 0\\} sphere 0.5\\}\n";
        assert_eq!(
            unescape_scene(stored).unwrap(),
            "shape_set ss1 desc {sub pos {0 0 0} sphere 0.5}\n"
        );
    }

    #[test]
    fn markup_characters_never_appear_bare_in_stored_scenes() {
        let stored = escape_scene("if {$a < 1 && $b > 2} { puts \"]]>\\n\" }");
        assert!(!stored.contains('<') && !stored.contains('>'));
        assert!(!stored.contains("]]>"));
        assert_eq!(
            stored,
            "if \\{$a &lt; 1 &amp;&amp; $b &gt; 2\\} \\{ puts \"]]&gt;\\\\n\" \\}"
        );
    }

    #[test]
    fn backslash_before_other_characters_is_literal() {
        assert_eq!(unescape_scene("a\\nb \\").unwrap(), "a\\nb \\");
    }

    #[test]
    fn bare_ampersands_are_characters() {
        assert_eq!(decode_text("a && b & c").unwrap(), "a && b & c");
    }

    #[test]
    fn references_decode() {
        assert_eq!(
            decode_text("&lt;&GT;&amp;&quot;&apos;&#65;&#x42;&#X43;&#233;").unwrap(),
            "<>&\"'ABCé"
        );
    }

    #[test]
    fn bad_references_are_located() {
        let e = decode_text("ab &nbsp; c").unwrap_err();
        assert_eq!(e.span, Span::new(3, 9));
        assert!(matches!(e.kind, ErrorKind::UnknownEntity { ref name } if name == "nbsp"));

        let e = decode_text("x &amp y").unwrap_err();
        assert_eq!(
            (e.kind, e.span),
            (ErrorKind::UnterminatedReference, Span::new(2, 6))
        );

        let e = decode_text("x &lt").unwrap_err();
        assert_eq!(e.kind, ErrorKind::UnterminatedReference);

        for bad in [
            "&#0;",
            "&#xD800;",
            "&#x110000;",
            "&#99999999999;",
            "&#6z;",
            "&#x;",
        ] {
            let e = decode_text(bad).unwrap_err();
            assert!(
                matches!(e.kind, ErrorKind::BadCharacterReference { .. }),
                "{bad}: {e:?}"
            );
        }
        let e = decode_text("&#60 and more;").unwrap_err();
        assert_eq!(
            (e.kind, e.span),
            (ErrorKind::UnterminatedReference, Span::new(0, 4))
        );
    }

    #[test]
    fn raw_offsets_count_references_as_one_character() {
        let raw = "a&amp;b";
        assert_eq!(raw_offset_of_char(raw, 0), Some(0));
        assert_eq!(raw_offset_of_char(raw, 1), Some(1));
        assert_eq!(raw_offset_of_char(raw, 2), Some(6));
        assert_eq!(raw_offset_of_char(raw, 3), Some(7));
        assert_eq!(raw_offset_of_char(raw, 4), None);
    }

    #[test]
    fn scene_offsets_map_to_their_stored_bytes() {
        // The scene `a{b}&<\n` (a backslash and an n at its end) is stored as
        // `a\{b\}&amp;&lt;\\n`: its "b" (byte 2) is stored at byte 3, its "<" (byte 5) at the
        // "&lt;" (byte 11).
        let scene = "a{b}&<\\n";
        let stored = escape_scene(scene);
        assert_eq!(stored, "a\\{b\\}&amp;&lt;\\\\n");
        let expected = [0, 1, 3, 4, 6, 11, 15, 17, 18];
        for (offset, want) in expected.iter().enumerate() {
            assert_eq!(stored_offset_of_scene_byte(&stored, offset), Some(*want));
        }
        assert_eq!(stored_offset_of_scene_byte(&stored, scene.len() + 1), None);
        assert_eq!(stored_offset_of_scene_byte("é", 1), None);
    }

    proptest! {
        #[test]
        fn scene_escaping_round_trips(scene in "[^\u{0}]*") {
            prop_assert_eq!(unescape_scene(&escape_scene(&scene)).unwrap(), scene);
        }

        #[test]
        fn scene_escaping_round_trips_markup_heavy_text(
            scene in proptest::collection::vec(
                prop_oneof![
                    Just("{"), Just("}"), Just("\\"), Just("<"), Just(">"), Just("&"),
                    Just("]]>"), Just("&amp;"), Just("\\{"), Just("</ASGARD>"), Just("é"),
                    Just("\n"), Just("\r\n"), Just("#"), Just("x"),
                ],
                0..40,
            ).prop_map(|parts| parts.concat())
        ) {
            let stored = escape_scene(&scene);
            prop_assert!(!stored.contains('<'));
            prop_assert_eq!(unescape_scene(&stored).unwrap(), scene);
        }

        #[test]
        fn text_escaping_round_trips(text in "[^\u{0}]*") {
            prop_assert_eq!(decode_text(&escape_text(&text)).unwrap(), text);
        }
    }
}
