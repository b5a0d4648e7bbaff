//! Motion simulation (chapter 5): equations of motion, partitioning into strongly connected
//! components, trapezoidal integration with Newton-Raphson, event-driven scheduling, collisions.

pub mod graph;
pub mod linalg;
pub mod system;
pub mod track;
