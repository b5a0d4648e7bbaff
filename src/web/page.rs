//! The HTML of a page: a document's blocks ([`crate::doc::layout`]) or one scene, each
//! animation a player, with the style sheet and the player's script inline.
//!
//! The page loads nothing: its Content-Security-Policy forbids every fetch, so a browser
//! refuses (and reports) any attempt rather than reaching the network.

use super::animation::Animation;
use crate::doc::layout::{self, Block, Inline};
use crate::doc::{Document, NodeId};
use std::fmt::Write;

const STYLE: &str = include_str!("page.css");
const SCRIPT: &str = include_str!("player.js");

/// The playback rates the player offers.
const RATES: [(&str, &str); 5] = [
    ("0.25", "¼×"),
    ("0.5", "½×"),
    ("1", "1×"),
    ("2", "2×"),
    ("4", "4×"),
];

/// The page of one scene, titled `title` (its file name).
pub fn scene_page(title: &str, animation: &Animation) -> String {
    let mut body = String::from("<main class=\"asgard-document\">\n");
    let _ = writeln!(body, "<h1 class=\"asgard-title\">{}</h1>", escape(title));
    player(&mut body, animation);
    body.push_str("</main>\n");
    page(title, &body)
}

/// The page of `document`, whose subdocument `i` is shown as `animations[i]`. Its title is
/// the memo's subject or the lesson's title, else `fallback` (the file name).
pub fn document_page(document: &Document, fallback: &str, animations: &[Animation]) -> String {
    let tree = document.tree();
    let blocks = layout::blocks(document);
    let title = blocks
        .iter()
        .find_map(|block| match block {
            Block::Title(id) => Some(*id),
            Block::Field { label, element } if *label == "Subject:" => Some(*element),
            _ => None,
        })
        .map_or_else(|| fallback.to_string(), |id| tree.text_of(id));
    let animation = |id: NodeId| {
        document
            .subdocuments()
            .iter()
            .position(|s| s.animation == id)
            .and_then(|index| animations.get(index))
    };
    let mut body = String::from("<main class=\"asgard-document\">\n");
    let mut header_open = false;
    for block in &blocks {
        let is_field = matches!(block, Block::Field { .. });
        if header_open && !is_field {
            body.push_str("</table>\n");
            header_open = false;
        }
        match block {
            Block::Field { label, element } => {
                if !header_open {
                    body.push_str("<table class=\"asgard-header\">\n");
                    header_open = true;
                }
                let _ = writeln!(
                    body,
                    "<tr><th scope=\"row\">{}</th><td>{}</td></tr>",
                    escape(label),
                    escape(&tree.text_of(*element))
                );
            }
            Block::Title(id) => {
                let _ = writeln!(
                    body,
                    "<h1 class=\"asgard-title\">{}</h1>",
                    escape(&tree.text_of(*id))
                );
            }
            Block::Author(id) => {
                let _ = writeln!(
                    body,
                    "<p class=\"asgard-author\">{}</p>",
                    escape(&tree.text_of(*id))
                );
            }
            Block::Heading { level, element } => {
                // The title is h1, so headings of level 1 to 3 are h2 to h4.
                let h = level + 1;
                let _ = writeln!(
                    body,
                    "<h{h} class=\"asgard-heading\">{}</h{h}>",
                    escape(&tree.text_of(*element))
                );
            }
            Block::Paragraph { items, .. } => {
                body.push_str("<div class=\"asgard-paragraph\">\n");
                let mut text_open = false;
                for item in items {
                    match item {
                        Inline::Text {
                            element,
                            emphasised,
                        } => {
                            if !text_open {
                                body.push_str("<p>");
                                text_open = true;
                            }
                            let text = escape(&tree.text_of(*element));
                            if *emphasised {
                                let _ = write!(body, "<em>{text}</em>");
                            } else {
                                body.push_str(&text);
                            }
                        }
                        Inline::Animation(id) => {
                            if text_open {
                                body.push_str("</p>\n");
                                text_open = false;
                            }
                            if let Some(animation) = animation(*id) {
                                player(&mut body, animation);
                            }
                        }
                    }
                }
                if text_open {
                    body.push_str("</p>\n");
                }
                body.push_str("</div>\n");
            }
            Block::Animation(id) => {
                if let Some(animation) = animation(*id) {
                    player(&mut body, animation);
                }
            }
        }
    }
    if header_open {
        body.push_str("</table>\n");
    }
    body.push_str("</main>\n");
    page(&title, &body)
}

/// The whole page around `body`.
fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         script-src 'unsafe-inline'; style-src 'unsafe-inline'\">\n\
         <meta name=\"generator\" content=\"Asgard {version}\">\n\
         <title>{title}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n{body}\
         <script>\n{SCRIPT}</script>\n</body>\n</html>\n",
        version = env!("CARGO_PKG_VERSION"),
        title = escape(title),
    )
}

/// One animation's player: the picture, a note shown when it cannot be drawn, the controls
/// and the data.
fn player(out: &mut String, animation: &Animation) {
    let (w, h) = (animation.width, animation.height);
    let _ = write!(
        out,
        "<figure class=\"asgard-player\" data-time=\"\" data-playing=\"false\" data-rate=\"1\" \
         data-loop=\"true\" style=\"width: {w}px\">\n\
         <canvas width=\"{w}\" height=\"{h}\" style=\"aspect-ratio: {w} / {h}\" \
         tabindex=\"0\" aria-label=\"Animation. Drag to turn the view, scroll to zoom, \
         double-click for the scene's own view, space to play or pause.\"></canvas>\n\
         <p class=\"asgard-note\" hidden></p>\n\
         <div class=\"asgard-controls\">\
         <button type=\"button\" class=\"asgard-play\" aria-pressed=\"false\">Play</button>\
         <input type=\"range\" class=\"asgard-scrub\" min=\"0\" max=\"1\" step=\"any\" value=\"0\" \
         aria-label=\"Time\">\
         <output class=\"asgard-clock\"></output>\
         <select class=\"asgard-rate\" aria-label=\"Rate\">"
    );
    for (value, label) in RATES {
        let _ = write!(out, "<option value=\"{value}\">{label}</option>");
    }
    let _ = write!(
        out,
        "</select><label><input type=\"checkbox\" class=\"asgard-loop\" checked>Loop</label>\
         </div>\n<script type=\"application/json\" class=\"asgard-data\">{}</script>\n\
         </figure>\n",
        animation.data
    );
}

/// `text` with the characters that mean something in HTML written as references.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped() {
        assert_eq!(
            escape("a<b & \"c\" 'd'>"),
            "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;"
        );
    }
}
