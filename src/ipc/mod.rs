//! The embedding contract in code (dissertation chapter 6): what a host and an Asgard slave
//! share, and nothing else. No GTK, no scene, no simulation here, so that the slave (which
//! serves these interfaces) and any host (which calls them) depend on this module alone.
//!
//! - [`names`]: interface names, object paths, the session-bus name, size limits, and the
//!   introspection XML of `schemas/` the whole contract is written in;
//! - [`enums`]: the enumerations that travel as strings (status, editor, handle and pointer
//!   kinds, playback modes), [`RenditionSize`] and the input [`Modifiers`];
//! - [`Error`]: the named errors `org.asgard.Asgard1.Error.*`;
//! - [`request`]: method calls decoded from their messages and their arguments checked;
//! - [`proxy`]: async and blocking zbus proxies for hosts;
//! - [`frames`]: the sealed shared memory that carries rendered frames from slave to host;
//! - [`transport`]: starting a slave on a private peer-to-peer connection;
//! - [`wire`]: the slave's check of every message a host sends, before zbus reads it.

pub mod enums;
mod error;
pub mod frames;
mod input;
pub mod names;
pub mod proxy;
pub mod request;
mod size;
pub mod transport;
pub mod wire;

pub use enums::{EditorKind, HandleKind, PlaybackMode, PointerKind, Status, UnknownValue};
pub use error::Error;
pub use frames::{FrameInfo, FrameLayout, FrameReader, FrameWriter};
pub use input::{button, Modifiers};
pub use proxy::{
    RenditionProxy, RenditionProxyBlocking, SubdocumentProxy, SubdocumentProxyBlocking,
};
pub use size::{InvalidSize, RenditionSize};
pub use transport::SlaveProcess;
