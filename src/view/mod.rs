//! What a view of a scene does, without GTK or D-Bus: the layer the editor's graphical viewers
//! (`crate::ui::graphical`) and the slave's renditions (`crate::slave`) are both thin shells
//! over, so the same input does the same thing in both.
//!
//! - [`camera`]: where a view looks from ([`camera::ViewCamera`]: the scene's camera, a fitted
//!   default, or the user's) and how the buttons and the wheel move it.
//! - [`gesture`]: the gesture machine — press, motion, release, wheel and the handle keys
//!   become view changes, handle drags (edits of the text), new or deleted trajectory points,
//!   clicks, and pulls on bodies running live.
//! - [`keys`]: what each key means over a view.
//! - [`transport`]: which simulated time a view shows, playing, paused, reversed, stepped,
//!   looped, at a rate from 1/8× to 8×.
//! - [`live`]: a scene running live in a view, paced by its frames, pulled and pushed, and its
//!   recording kept as trajectories.
//!
//! The shells own the windows or the D-Bus objects, the session and the drawing; they call
//! these types with what happened and apply the effects they return.

pub mod camera;
pub mod gesture;
pub mod keys;
pub mod live;
pub mod transport;
