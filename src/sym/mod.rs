//! Symbolic expressions: simplification, differentiation and compilation to an evaluation tape.
