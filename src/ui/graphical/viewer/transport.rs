//! The viewer's time: the time bar and the Motion menu's Play, Stop, Rewind, Step either way,
//! End, Reverse, speed and Loop, on the viewer's
//! [`Transport`](crate::view::transport::Transport), advanced from the window's frame clock
//! while it plays (4.1.9).

use super::Viewer;
use crate::live::Clock;
use crate::session::SimStatus;
use crate::view::transport::{Direction, State};
use gtk::glib;
use gtk::prelude::*;
use gtk4 as gtk;

impl Viewer {
    pub fn time(&self) -> f64 {
        self.time.get()
    }

    /// The simulator's start and finish.
    pub fn time_range(&self) -> (f64, f64) {
        let settings = self.editor.session.simulator_settings();
        (settings.start, settings.finish)
    }

    pub(super) fn time_changed(&self) {
        if let Some(w) = self.widgets() {
            (w.on_time)(self.time.get(), self.time_range());
        }
    }

    /// The scene changed, and with it perhaps the simulator's start and finish: the time shown
    /// stays within them.
    pub(super) fn span_changed(&self) {
        let (start, finish) = self.time_range();
        let now = self.clock.borrow_mut().now();
        let mut transport = self.transport.borrow_mut();
        transport.set_span(start, finish, now);
        if !transport.is_playing() {
            self.time.set(transport.time_at(now));
        }
        drop(transport);
        self.time_changed();
    }

    /// Shows what the transport shows at the clock's `now`, after it moved.
    fn show_transport(&self) {
        let now = self.clock.borrow_mut().now();
        let time = self.transport.borrow().time_at(now);
        if time != self.time.get() {
            self.time.set(time);
            self.time_changed();
            self.redraw();
        }
    }

    /// Shows the scene at `time` (clamped to the animation's range).
    pub fn set_time(&self, time: f64) {
        let now = self.clock.borrow_mut().now();
        if self.transport.borrow_mut().seek(time, now).is_ok() {
            self.show_transport();
        }
    }

    pub fn rewind(&self) {
        self.stop();
        self.go_to(Direction::Reverse);
    }

    /// `frames` output steps of the simulator forward (back when negative), stopped.
    pub fn step(&self, frames: i64) {
        self.stop();
        let step = self.editor.session.simulator_settings().step;
        let now = self.clock.borrow_mut().now();
        let stepped = self.transport.borrow_mut().step(frames, step, now);
        match stepped {
            Ok(()) => self.show_transport(),
            Err(e) => self.say(&format!("Cannot step: {e}")),
        }
    }

    /// Shows the start or the finish, playing on from there if playing.
    pub fn go_to(&self, end: Direction) {
        let now = self.clock.borrow_mut().now();
        self.transport.borrow_mut().go_to_end(end, now);
        self.show_transport();
    }

    /// Simulated seconds per real second (negative: backwards), from 1/8 to 8 either way.
    pub fn set_rate(&self, rate: f64) {
        let now = self.clock.borrow_mut().now();
        let set = self.transport.borrow_mut().set_rate(rate, now);
        match set {
            Ok(()) => {
                if let Some(w) = self.widgets() {
                    (w.on_rate)(rate);
                }
            }
            Err(e) => self.say(&format!("Cannot change the rate: {e}")),
        }
    }

    pub fn rate(&self) -> f64 {
        self.transport.borrow().rate()
    }

    /// Whether playback starts again from the other end when it reaches one.
    pub fn set_looping(&self, looping: bool) {
        self.transport.borrow_mut().set_looping(looping);
    }

    /// Plays the motion from the current time (from the start when at the end).
    pub fn play(&self) {
        if self.motion().is_none() && !self.simulation_starting() {
            self.say(&self.nothing_to_play());
            return;
        }
        let (start, finish) = self.time_range();
        let now = self.clock.borrow_mut().now();
        {
            let mut transport = self.transport.borrow_mut();
            transport.set_span(start, finish, now);
            if let Err(why) = transport.seek(self.time.get(), now) {
                drop(transport);
                self.say(&format!("Cannot play: {why}"));
                return;
            }
            transport.play(now);
        }
        self.say("");
        if self.ticking.borrow().is_none() {
            let me = self.me.clone();
            let id = self
                .gl()
                .area
                .add_tick_callback(move |_, _| match me.upgrade() {
                    Some(viewer) if viewer.tick() => glib::ControlFlow::Continue,
                    Some(viewer) => {
                        // Returning Break removes the callback.
                        viewer.ticking.borrow_mut().take();
                        glib::ControlFlow::Break
                    }
                    None => glib::ControlFlow::Break,
                });
            *self.ticking.borrow_mut() = Some(id);
        }
    }

    pub fn stop(&self) {
        let now = self.clock.borrow_mut().now();
        let was_playing = {
            let mut transport = self.transport.borrow_mut();
            let playing = transport.is_playing();
            transport.pause(now);
            // The time shown stays: playback may have been held at the horizon.
            let _ = transport.seek(self.time.get(), now);
            playing
        };
        if was_playing {
            self.say("");
        }
        if let Some(id) = self.ticking.borrow_mut().take() {
            id.remove();
        }
    }

    /// Why there is no motion of the current text to play.
    fn nothing_to_play(&self) -> String {
        match self.editor.session.status() {
            SimStatus::Failed(why) => format!("Nothing to play: the simulation failed: {why}"),
            _ => "Nothing to play: the motion of this text is not computed (Simulate).".into(),
        }
    }

    /// Whether a run was asked for and has not yet started computing the current text's motion
    /// (its first report is still on the way to the main loop).
    fn simulation_starting(&self) -> bool {
        self.motion().is_none() && matches!(self.editor.session.status(), SimStatus::Running(_))
    }

    /// Advances playback to the clock; called before each frame while playing. Returns
    /// whether playback goes on.
    pub fn tick(&self) -> bool {
        let status = self.editor.session.status();
        let now = self.clock.borrow_mut().now();
        let horizon = match (self.motion(), &status) {
            (Some(_), SimStatus::Finished) => f64::INFINITY,
            (Some(motion), _) => motion.complete_until(),
            // Simulate was pressed and the run has not reported yet: nothing is computed.
            (None, _) if self.simulation_starting() => f64::NEG_INFINITY,
            (None, _) => {
                let mut transport = self.transport.borrow_mut();
                if transport.is_playing() {
                    transport.pause(now);
                    drop(transport);
                    self.say(&self.nothing_to_play());
                }
                return false;
            }
        };
        let tick = self.transport.borrow_mut().tick(now, horizon);
        let message = match (tick.state, status) {
            (State::Playing, _) => String::new(),
            (State::Waiting, SimStatus::Failed(why)) => {
                self.transport.borrow_mut().pause(now);
                format!("The simulation stopped at t = {:.3}: {why}", tick.time)
            }
            (State::Waiting, _) => format!(
                "Waiting for the simulation: computed to t = {:.3}",
                tick.time
            ),
            (State::Ended | State::Paused, _) => String::new(),
        };
        self.time.set(tick.time);
        self.time_changed();
        self.say(&message);
        self.redraw();
        self.transport.borrow().is_playing()
    }
}
