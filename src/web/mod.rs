//! Documents and scenes as self-contained web pages, readable in any browser with the
//! animations playing (`asgard export … --format html`).
//!
//! A page is one HTML file holding everything: the document's text laid out as the host
//! shows it ([`crate::doc::layout`]), its style sheet, and each animation as a WebGL player of
//! the *computed* motion — the glTF asset of the exporter plus the view, lights and links
//! sampled at the same times ([`Animation`]) — driven by our own script (`player.js`). The
//! browser simulates nothing and fetches nothing.
//!
//! This is its own module rather than one of `render::export`'s writers because a page is
//! a document export: it reads `doc`'s structure, which `render` does not know, and lays out
//! text around what the exporters produce.

mod animation;
mod page;

pub use animation::{Animation, MAX_NUMBERS};
pub use page::{document_page, scene_page};
