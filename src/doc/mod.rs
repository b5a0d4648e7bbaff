//! Compound documents in Ensemble's SGML-like storage form: reading, locating animation
//! subdocuments and rewriting their scene text without touching any other byte.
