//! One GL renderer for on-screen viewers, off-screen renditions and batch export.
//!
//! Callers describe each picture as a [`frame::Frame`] (plain data: posed objects by mesh key,
//! links, vectors, handles, trajectories, lights, camera) and keep the shapes' meshes in a
//! [`mesh::MeshLibrary`]. [`renderer::Renderer`] draws a frame with `glow` into whatever
//! framebuffer is bound, so a GTK `GLArea` (functions loaded by [`epoxy`]) and the EGL
//! [`offscreen::OffscreenTarget`] share it. [`image`] and [`movie`] write pictures and movies;
//! [`export`] writes line drawings and scene files from the same frame data without GL.
//! [`scene_frame`] builds frames and meshes from an evaluated scene and its motion, and
//! [`pick`] finds what is under a point of the picture. This module knows GL and the scene
//! model, but neither GTK nor the scene language's text.

pub mod camera;
pub mod epoxy;
pub mod export;
pub mod frame;
pub mod image;
pub mod mesh;
pub mod movie;
pub mod offscreen;
pub mod pick;
pub mod renderer;
pub mod scene_frame;
pub mod shader;
