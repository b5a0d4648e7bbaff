//! One GL renderer for on-screen viewers, off-screen renditions and batch export.
