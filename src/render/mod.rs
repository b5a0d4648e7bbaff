//! One GL renderer for on-screen viewers, off-screen renditions and batch export.
//!
//! Callers describe each picture as a [`frame::Frame`] (plain data: posed objects by mesh key,
//! links, vectors, handles, trajectories, lights, camera) and keep the shapes' meshes in a
//! [`mesh::MeshLibrary`]. [`renderer::Renderer`] draws a frame with `glow` into whatever
//! framebuffer is bound, so a GTK `GLArea` (functions loaded by [`epoxy`]) and the EGL
//! [`offscreen::OffscreenTarget`] share it. [`image`] and [`movie`] write pictures and movies;
//! [`export`] writes line drawings and scene files from the same frame data without GL.
//! This module knows GL but neither GTK nor the scene language.

pub mod camera;
pub mod epoxy;
pub mod export;
pub mod frame;
pub mod image;
pub mod mesh;
pub mod movie;
pub mod offscreen;
pub mod renderer;
pub mod shader;
