//! The slave process (dissertation 6.2.2-6.2.3): serves the embedding contract of
//! [`crate::ipc`] for one scene and draws its renditions.

pub mod playback;
