//! The scene model: elements evaluated from the scene text, with the spans that tie them to it.

pub mod model;
