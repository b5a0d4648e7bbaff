//! Real-time driving of modules (scene advance, viewer, input device) with a fixed timestep
//! taken from a time bank, after the simulation manager described in seeds/003 and the
//! real-time playback of dissertation 4.1.9.
//!
//! A [`Driver`] owns [`Module`]s and runs them in one loop. The scene module advances in fixed
//! steps of the desired dt (0.01 s unless set) drawn from a [`TimeBank`] that real time is paid
//! into, so the simulation keeps pace with the clock on fast and slow machines alike while its
//! step never changes; viewers and input devices are updated once per iteration. Remainder
//! division trades exact repeatability for smoothness and can be switched off. Single modules
//! pause and resume through their [`ModuleHandle`]; any thread stops the driver through a
//! [`StopHandle`]; time comes from a [`Clock`], the system's or a [`ManualClock`].
//!
//! A [`Pacer`] bounds the steps one frame takes by processor time, so that a scene whose steps
//! cost more than the real time they cover slows down (and says by how much, [`Rate`])
//! instead of freezing whoever drives it: the editor's viewers, the slave's renditions and
//! `asgard live` all pace live scenes with it.
//!
//! The driver is generic: what a module does in `update` (drawing, reading a device) is the
//! module's business. [`scene`] holds the live-physics module, [`scene::SceneAdvance`].
//! Playing computed motion back against the clock is a viewer's transport
//! (`crate::view::transport`).

mod bank;
mod clock;
mod driver;
mod error;
mod module;
mod pace;
pub mod scene;

pub use bank::{TimeBank, Withdrawal};
pub use clock::{Clock, ManualClock, SystemClock};
pub use driver::{Driver, StopHandle, DEFAULT_DT};
pub use error::{LiveError, ModuleError};
pub use module::{Module, ModuleHandle, Schedule};
pub use pace::{thread_processor_time, Frame, Pacer, Pacing, Rate, FRAME_BUDGET, MAX_LAG};
