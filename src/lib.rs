//! Asgard: a physically based 3D animation editor and embeddable media component.
//!
//! The scene text is the document. `lang` evaluates it into a `scene::model::Scene`; `sim`
//! computes motion from that scene; `render` draws it; `session` ties text, scene and motion
//! together for any number of views; `view` is what a view does with its input and time;
//! `ui`, `slave` and `host` are the shells people use, and `web` writes documents and scenes
//! as web pages that play in any browser.
//! Imports run one way: the shells depend on the core, never the reverse (see
//! docs/ARCHITECTURE.md).

pub mod doc;
pub mod geom;
pub mod host;
pub mod ipc;
pub mod lang;
pub mod live;
pub mod render;
pub mod save;
pub mod scene;
pub mod session;
pub mod sim;
pub mod slave;
pub mod sym;
pub mod ui;
pub mod view;
pub mod web;
pub mod window_picture;
