pub mod local_edits;
