//! Live in a graphical viewer: the Live toggle runs the session's scene in real time as a
//! [`LiveRun`] advanced from the window's frame clock (the same run a live rendition has),
//! and Keep as trajectory writes the last run's paths into the text.

use super::{LiveStatus, Viewer};
use crate::sim::physics::SceneMotion;
use crate::view::live::{LiveRun, ScreenDirection};
use gtk::glib;
use gtk::prelude::*;
use gtk4 as gtk;

impl Viewer {
    pub fn is_live(&self) -> bool {
        self.live.borrow().is_some()
    }

    /// Turns Live on: the session's current scene runs from its start time in real time, one
    /// batch of fixed steps per frame, until [`Viewer::stop_live`] or a failed step.
    pub fn start_live(&self) {
        if self.is_live() {
            return;
        }
        let started = match self.editor.session.scene() {
            Some(scene) => LiveRun::start(&scene),
            None => Err("the text has an error: fix it, then press Live".into()),
        };
        let run = match started {
            Ok(run) => run,
            Err(e) => {
                self.say(&format!("Cannot go live: {e}"));
                // The toggle button was pressed: it shows Live off again.
                self.live_changed();
                return;
            }
        };
        self.stop();
        *self.live.borrow_mut() = Some(run);
        self.say(
            "Live: the left button on a body pulls it; the arrow keys push the body pulled last.",
        );
        let me = self.me.clone();
        let id = self
            .gl()
            .area
            .add_tick_callback(move |_, clock| match me.upgrade() {
                Some(viewer) if viewer.live_tick(clock.frame_time()) => glib::ControlFlow::Continue,
                Some(viewer) => {
                    // Returning Break removes the callback.
                    viewer.live_ticking.borrow_mut().take();
                    glib::ControlFlow::Break
                }
                None => glib::ControlFlow::Break,
            });
        *self.live_ticking.borrow_mut() = Some(id);
        self.live_changed();
        self.redraw();
    }

    /// Turns Live off; the run's recording stays for Keep as trajectory.
    pub fn stop_live(&self) {
        if let Some(id) = self.live_ticking.borrow_mut().take() {
            id.remove();
        }
        self.end_live();
    }

    /// Ends the live run, if any, keeping its recording; the frame callback is the caller's.
    fn end_live(&self) {
        let Some(run) = self.live.borrow_mut().take() else {
            return;
        };
        self.gestures.borrow_mut().end_pull();
        *self.last_run.borrow_mut() = Some(run.finish());
        self.live_slowdown.borrow_mut().take();
        self.live_changed();
        self.time_changed();
        self.redraw();
    }

    fn live_changed(&self) {
        let live = self.is_live();
        if let Some(w) = self.widgets() {
            (w.on_live)(LiveStatus {
                live,
                keepable: live || self.last_run.borrow().is_some(),
            });
        }
    }

    /// Advances the live scene to the frame clock's `frame_time` (microseconds); called before
    /// each frame while live. Returns whether Live stays on.
    fn live_tick(&self, frame_time: i64) -> bool {
        let advanced = match self.live.borrow_mut().as_mut() {
            Some(run) => run
                .advance_to(frame_time)
                .map(|()| (run.states().1, run.slowdown())),
            None => return false,
        };
        match advanced {
            Ok((time, slowdown)) => {
                if let Some(w) = self.widgets() {
                    (w.on_time)(time, self.time_range());
                }
                self.show_slowdown(slowdown);
                self.redraw();
                true
            }
            Err(e) => {
                self.end_live();
                self.say(&format!("The live scene stopped, so Live is off: {e}"));
                false
            }
        }
    }

    /// Says in the status line that the live run is slower than real time, and by how much,
    /// while it is; and when it keeps pace again.
    fn show_slowdown(&self, slowdown: Option<String>) {
        let before = self.live_slowdown.replace(slowdown.clone());
        match (slowdown, before) {
            (now, before) if now == before => {}
            (Some(message), _) => self.say(&message),
            (None, _) => self.say("Live: running in real time again."),
        }
    }

    /// The motion drawn now and its time: the live scene's while Live is on, else the computed
    /// motion of the current text (if any) at the viewer's time.
    pub(super) fn states_now(&self) -> (Option<SceneMotion>, f64) {
        match self.live.borrow().as_ref() {
            Some(run) => {
                let (motion, time) = run.states();
                (Some(motion), time)
            }
            None => (self.motion(), self.time.get()),
        }
    }

    /// An arrow key went down (`held`) or up with Live on: pushes the body pulled last.
    /// Returns whether the key was taken.
    pub fn arrow_key(&self, direction: ScreenDirection, held: bool) -> bool {
        let Some((camera, _)) = self.camera_and_viewport() else {
            return false;
        };
        let pushed = match self.live.borrow_mut().as_mut() {
            Some(run) => run.arrow_key(direction, held, &camera),
            None => return false,
        };
        pushed.unwrap_or_else(|e| {
            self.say(&format!("Cannot push: {e}"));
            true
        })
    }

    /// Keep as trajectory: turns Live off and appends, as one edit of the text, a trajectory
    /// of every body grabbed in the last live run along its recorded path.
    pub fn keep_trajectory(&self) {
        self.stop_live();
        let Some(run) = self.last_run.borrow().clone() else {
            self.say("There is no live run to keep: press Live first.");
            return;
        };
        let kept = {
            let Some(scene) = self.editor.session.scene() else {
                self.say("The text has an error: fix it, then keep the live run.");
                return;
            };
            let text = self.editor.session.text().to_owned();
            run.keep(&text, &scene)
        };
        match kept {
            Ok(text) => {
                self.last_run.borrow_mut().take();
                self.editor.session.set_text(text, Some(self.view_id));
                self.live_changed();
                self.say("The live run is kept: its trajectories are at the end of the text.");
            }
            Err(e) => self.say(&e),
        }
    }
}
