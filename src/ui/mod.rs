//! The stand-alone multiple-representation editor (GTK 4).
pub mod create;
pub mod graphical;
pub mod language;
pub mod scene_text;
