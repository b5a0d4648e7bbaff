//! The session: one scene's text, its evaluated scene, its motion, and the views watching them.
//!
//! This is the "scene representation module" of the dissertation (figure 3.2). Every view —
//! graphical viewers, language viewers, the embedded renditions of a host document, the D-Bus
//! service — talks to the session and never to another view. The text is the single source of
//! truth: a graphical edit becomes a text patch ([`Session::edit`]), a language viewer's Update
//! replaces the text ([`Session::set_text`]), and undo is text history. After every change the
//! text is evaluated; an error keeps the text as it is and the last good scene for display.
//!
//! Motion is computed on a worker thread ([`simulation`]); the session hands out the growing
//! [`SceneMotion`] as soon as a run starts so views can play back while it computes ahead.
//!
//! Views learn about changes through [`Event`]s delivered to their observer callbacks on the
//! thread that owns the session (the GTK main thread in the editor and the slave). Events raised
//! while an observer runs are queued and delivered after it, in order, so an observer may call
//! back into the session.

mod history;
pub mod simulation;

use crate::lang::span::{LineCol, LineIndex, Span};
use crate::save::{self, ReadOnly};
use crate::scene::{self, EditValue, InitVar, PatchError, Replacement, Scene, SceneError, Target};
use crate::scene::{model::Simulator as SimulatorSettings, TextEdit};
use crate::sim::physics::SceneMotion;
use crate::sim::Progress;
use history::History;
use simulation::{Report, Simulator};
pub use simulation::{SimStatus, Waker};
use std::cell::{Cell, Ref, RefCell};
use std::collections::VecDeque;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// Identifies the view that made a change, so it can skip re-applying its own edit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ViewId(u64);

/// Identifies an observer registration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ObserverId(u64);

/// Something that happened to the session.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// The text changed: `edit`'s replacements are in the coordinates of the previous text.
    /// `by` is the view that made the change, if any.
    TextChanged {
        edit: TextEdit,
        by: Option<ViewId>,
    },
    /// The text evaluated; [`Session::scene`] is the new scene.
    SceneChanged,
    /// The text does not evaluate. It is kept as it is; [`Session::scene`] stays the last good
    /// scene.
    SceneError(SceneError),
    /// A simulation run started; [`Session::motion`] is its (growing) motion.
    SimulationStarted,
    SimulationProgress(Progress),
    SimulationFinished,
    /// The run stopped with an error (or did not start); the motion computed up to then
    /// stays readable.
    SimulationFailed(Failure),
    /// The file name or the modified flag changed.
    FileChanged,
}

/// Why a simulation failed, and where in the text when an element is to blame (a body that
/// starts inside another, the `simulator` command of a scene too long to simulate).
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    pub message: String,
    /// Where the element starts in the text the failed scene was evaluated from.
    pub at: Option<LineCol>,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

type Observer = Rc<dyn Fn(&Session, &Event)>;

/// One scene and everything derived from it. Create with [`Session::new`] or
/// [`Session::open`]; share as `Rc<Session>` among the views of one thread.
pub struct Session {
    state: RefCell<State>,
    observers: RefCell<Vec<(ObserverId, Observer)>>,
    next_id: Cell<u64>,
    pending: RefCell<VecDeque<Event>>,
    delivering: Cell<bool>,
}

struct State {
    text: String,
    /// The last text that evaluated, and its scene.
    scene: Option<Scene>,
    error: Option<SceneError>,
    history: History,
    path: Option<PathBuf>,
    /// The text as last loaded or saved, for the modified flag.
    saved: String,
    simulator: Simulator,
    motion: Option<SceneMotion>,
    status: SimStatus,
    auto_simulate: bool,
    dragging: bool,
    /// A change arrived during a drag; simulate when it ends.
    simulate_after_drag: bool,
}

impl Session {
    /// A session on `text` (not yet saved anywhere). `waker` is called from the simulator
    /// thread when there is news; the shell must then call [`Session::poll`] on its thread.
    pub fn new(text: impl Into<String>, waker: Waker) -> Rc<Session> {
        let text = text.into();
        let session = Rc::new(Session {
            state: RefCell::new(State {
                saved: text.clone(),
                text,
                scene: None,
                error: None,
                history: History::default(),
                path: None,
                simulator: Simulator::new(waker),
                motion: None,
                status: SimStatus::Idle,
                auto_simulate: true,
                dragging: false,
                simulate_after_drag: false,
            }),
            observers: RefCell::new(Vec::new()),
            next_id: Cell::new(1),
            pending: RefCell::new(VecDeque::new()),
            delivering: Cell::new(false),
        });
        session.evaluate();
        session.flush();
        session
    }

    /// A session on the scene file at `path`.
    pub fn open(path: &Path, waker: Waker) -> io::Result<Rc<Session>> {
        let text = read_scene_text(path)?;
        let session = Session::new(text, waker);
        session.state.borrow_mut().path = Some(path.to_path_buf());
        Ok(session)
    }

    // --- observers -------------------------------------------------------------------------

    /// Calls `observer` for every event from now on.
    pub fn subscribe(&self, observer: impl Fn(&Session, &Event) + 'static) -> ObserverId {
        let id = ObserverId(self.fresh_id());
        self.observers.borrow_mut().push((id, Rc::new(observer)));
        id
    }

    pub fn unsubscribe(&self, id: ObserverId) {
        self.observers.borrow_mut().retain(|(i, _)| *i != id);
    }

    /// A new identity for a view, to pass with the changes it makes.
    pub fn new_view_id(&self) -> ViewId {
        ViewId(self.fresh_id())
    }

    fn fresh_id(&self) -> u64 {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        id
    }

    fn emit(&self, event: Event) {
        self.pending.borrow_mut().push_back(event);
    }

    /// Delivers queued events to every observer, unless a delivery is already under way
    /// further up the stack (then that one delivers them, in order).
    fn flush(&self) {
        if self.delivering.replace(true) {
            return;
        }
        loop {
            let Some(event) = self.pending.borrow_mut().pop_front() else {
                break;
            };
            let observers: Vec<Observer> = self
                .observers
                .borrow()
                .iter()
                .map(|(_, o)| o.clone())
                .collect();
            for observer in observers {
                observer(self, &event);
            }
        }
        self.delivering.set(false);
    }

    // --- the text ---------------------------------------------------------------------------

    /// The scene text. Do not hold the reference across calls that change the session.
    pub fn text(&self) -> Ref<'_, str> {
        Ref::map(self.state.borrow(), |s| s.text.as_str())
    }

    /// The last scene that evaluated (the current text's, unless [`Session::error`] is set).
    pub fn scene(&self) -> Option<Ref<'_, Scene>> {
        Ref::filter_map(self.state.borrow(), |s| s.scene.as_ref()).ok()
    }

    /// Why the current text does not evaluate, if it does not.
    pub fn error(&self) -> Option<SceneError> {
        self.state.borrow().error.clone()
    }

    /// The scene's `simulator` settings (the defaults before any scene evaluated).
    pub fn simulator_settings(&self) -> SimulatorSettings {
        self.scene()
            .map(|s| s.simulator.clone())
            .unwrap_or_default()
    }

    /// Replaces the whole text (a language viewer's Update, a host's SetSceneText) and
    /// evaluates it. The text is kept even when it does not evaluate.
    pub fn set_text(&self, text: impl Into<String>, by: Option<ViewId>) {
        let text = text.into();
        let edit = {
            let mut state = self.state.borrow_mut();
            if state.text == text {
                drop(state);
                // Nothing changed, but the caller asked for an evaluation (Update).
                self.evaluate();
                self.flush();
                return;
            }
            let edit = minimal_edit(&state.text, &text);
            let previous = std::mem::replace(&mut state.text, text);
            state.history.record(&previous);
            edit
        };
        self.text_changed(edit, by);
    }

    /// Writes a graphical edit into the text: `target` of the current scene takes `value`.
    /// Only that literal's bytes change (4.2.2).
    pub fn edit(
        &self,
        target: Target,
        value: EditValue,
        by: Option<ViewId>,
    ) -> Result<(), PatchError> {
        let edit = {
            let mut state = self.state.borrow_mut();
            let Some(scene) = state.scene.as_ref() else {
                return Err(PatchError {
                    reason: "the text has no evaluated scene to edit".into(),
                });
            };
            if state.error.is_some() {
                return Err(PatchError {
                    reason: "the text has an error; fix it before editing graphically".into(),
                });
            }
            let edit = scene::patch(&state.text, scene, target, value)?;
            if edit.is_empty() {
                return Ok(());
            }
            let new_text = edit.apply(&state.text);
            let previous = std::mem::replace(&mut state.text, new_text);
            state.history.record(&previous);
            edit
        };
        self.text_changed(edit, by);
        Ok(())
    }

    /// Starts a drag: the edits until [`Session::end_drag`] undo as one step, and the
    /// simulation waits for the drag to end.
    pub fn begin_drag(&self) {
        let mut state = self.state.borrow_mut();
        state.dragging = true;
        state.history.open_group();
    }

    pub fn end_drag(&self) {
        let simulate = {
            let mut state = self.state.borrow_mut();
            state.dragging = false;
            state.history.close_group();
            std::mem::take(&mut state.simulate_after_drag)
        };
        if simulate {
            self.simulate();
        }
    }

    pub fn undo(&self) -> bool {
        self.step_history(true)
    }

    pub fn redo(&self) -> bool {
        self.step_history(false)
    }

    fn step_history(&self, back: bool) -> bool {
        let edit = {
            let mut state = self.state.borrow_mut();
            let state = &mut *state;
            let other = if back {
                state.history.undo(&state.text)
            } else {
                state.history.redo(&state.text)
            };
            let Some(other) = other else {
                return false;
            };
            let edit = minimal_edit(&state.text, &other);
            state.text = other;
            edit
        };
        self.text_changed(edit, None);
        true
    }

    fn text_changed(&self, edit: TextEdit, by: Option<ViewId>) {
        self.emit(Event::TextChanged { edit, by });
        self.emit(Event::FileChanged);
        self.evaluate();
        self.flush();
    }

    /// Evaluates the text; on success simulates the new scene when it differs from the last.
    fn evaluate(&self) {
        let result = scene::evaluate(&self.state.borrow().text);
        match result {
            Ok(new_scene) => {
                let changed = {
                    let mut state = self.state.borrow_mut();
                    state.error = None;
                    let changed = state
                        .scene
                        .as_ref()
                        .is_none_or(|old| !scene::diff(old, &new_scene).is_empty());
                    state.scene = Some(new_scene);
                    changed
                };
                self.emit(Event::SceneChanged);
                let auto = self.state.borrow().auto_simulate;
                if changed && auto {
                    let mut state = self.state.borrow_mut();
                    if state.dragging {
                        state.simulate_after_drag = true;
                    } else {
                        drop(state);
                        self.simulate();
                    }
                }
            }
            Err(error) => {
                self.state.borrow_mut().error = Some(error.clone());
                self.emit(Event::SceneError(error));
            }
        }
    }

    // --- simulation -------------------------------------------------------------------------

    /// Whether every change to the scene starts a simulation by itself (on by default). The
    /// Simulate command ([`Session::simulate`]) works either way.
    pub fn set_auto_simulate(&self, on: bool) {
        self.state.borrow_mut().auto_simulate = on;
    }

    /// Recomputes the motion of the current scene on the worker thread.
    pub fn simulate(&self) {
        let mut state = self.state.borrow_mut();
        let Some(scene) = state.scene.clone() else {
            return;
        };
        state.simulator.simulate(scene);
        state.status = SimStatus::Running(Progress {
            time: state.scene.as_ref().map_or(0.0, |s| s.simulator.start),
            end: state.scene.as_ref().map_or(0.0, |s| s.simulator.finish),
            steps: 0,
        });
    }

    /// Stops the simulation in progress; what it computed stays readable.
    pub fn cancel_simulation(&self) {
        let mut state = self.state.borrow_mut();
        state.simulator.cancel();
        if matches!(state.status, SimStatus::Running(_)) {
            state.status = SimStatus::Failed("cancelled".into());
        }
    }

    /// Takes in what the simulator thread reported since the last call and tells the
    /// observers. Call it on the session's thread whenever the waker fires.
    pub fn poll(&self) {
        let reports = self.state.borrow_mut().simulator.poll();
        for report in reports {
            let event = {
                let mut state = self.state.borrow_mut();
                match report {
                    Report::Started(motion) => {
                        state.motion = Some(motion);
                        Event::SimulationStarted
                    }
                    Report::Progress(p) => {
                        state.status = SimStatus::Running(p);
                        Event::SimulationProgress(p)
                    }
                    Report::Finished => {
                        state.status = SimStatus::Finished;
                        Event::SimulationFinished
                    }
                    Report::Failed(message, span) => {
                        state.status = SimStatus::Failed(message.clone());
                        let text = &state.text;
                        let at = span
                            .filter(|s| s.start <= text.len())
                            .map(|s| LineIndex::new(text).line_col(text, s.start));
                        Event::SimulationFailed(Failure { message, at })
                    }
                }
            };
            self.emit(event);
        }
        self.flush();
    }

    /// The motion of the latest run (growing while it runs), if any run started.
    pub fn motion(&self) -> Option<SceneMotion> {
        self.state.borrow().motion.clone()
    }

    pub fn status(&self) -> SimStatus {
        self.state.borrow().status.clone()
    }

    /// Writes the state of `bodies` at time `t` of the current motion into their `init_pos`,
    /// `init_rot`, `init_dpos` and `init_drot` literals, as one undoable change, so a new run
    /// starts from that moment of the last one. Returns how many bodies changed.
    pub fn set_initial_state_from(&self, t: f64, bodies: &[usize]) -> Result<usize, PatchError> {
        let Some(motion) = self.motion() else {
            return Err(PatchError {
                reason: "there is no computed motion to take a state from".into(),
            });
        };
        let mut changes = Vec::new();
        for &body in bodies {
            if motion.bodies().get(body).is_some_and(|b| b.is_fixed()) {
                continue;
            }
            let Some(state) = motion.state(body, t) else {
                return Err(PatchError {
                    reason: format!("the motion is not computed up to t = {t}"),
                });
            };
            changes.push((body, InitVar::Pos, state.position));
            changes.push((body, InitVar::Rot, state.rotation.scaled_axis()));
            changes.push((body, InitVar::Dpos, state.velocity));
            changes.push((body, InitVar::Drot, state.angular_velocity));
        }
        self.begin_drag();
        let mut result = Ok(());
        for (body, var, value) in changes {
            result = self.edit(
                Target::BodyInit { body, var },
                EditValue::Vector(value),
                None,
            );
            if result.is_err() {
                break;
            }
        }
        self.end_drag();
        result.map(|()| bodies.len())
    }

    // --- the file ---------------------------------------------------------------------------

    pub fn path(&self) -> Option<PathBuf> {
        self.state.borrow().path.clone()
    }

    /// Whether the text differs from the file as last loaded or saved.
    pub fn is_modified(&self) -> bool {
        let state = self.state.borrow();
        state.text != state.saved
    }

    /// Saves to the session's file (atomically, keeping the previous version as `NAME~`); a
    /// read-only file is replaced only with [`ReadOnly::Replace`] (see [`crate::save`]).
    pub fn save(&self, read_only: ReadOnly) -> io::Result<()> {
        let Some(path) = self.path() else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "the scene has no file name yet; use Save As",
            ));
        };
        self.save_as(&path, read_only)
    }

    /// Saves to `path`, which becomes the session's file, as [`Session::save`] does.
    pub fn save_as(&self, path: &Path, read_only: ReadOnly) -> io::Result<()> {
        {
            let mut state = self.state.borrow_mut();
            let options = save::Options::DOCUMENT.with_read_only(read_only);
            save::write(path, state.text.as_bytes(), options)?;
            state.saved = state.text.clone();
            state.path = Some(path.to_path_buf());
        }
        self.emit(Event::FileChanged);
        self.flush();
        Ok(())
    }

    /// Replaces the text with the file's contents (an undoable change).
    pub fn revert(&self) -> io::Result<()> {
        let Some(path) = self.path() else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "the scene has no file to revert to",
            ));
        };
        let text = read_scene_text(&path)?;
        self.state.borrow_mut().saved = text.clone();
        self.set_text(text, None);
        Ok(())
    }
}

/// The single replacement that turns `old` into `new`: everything between their common
/// prefix and common suffix (on character boundaries).
fn minimal_edit(old: &str, new: &str) -> TextEdit {
    let prefix = old
        .char_indices()
        .zip(new.chars())
        .find(|((_, a), b)| a != b)
        .map_or(old.len().min(new.len()), |((i, _), _)| i);
    let prefix = floor_boundary(new, prefix);
    let max_suffix = (old.len() - prefix).min(new.len() - prefix);
    let mut suffix = old
        .bytes()
        .rev()
        .zip(new.bytes().rev())
        .take(max_suffix)
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(old.len() - suffix) || !new.is_char_boundary(new.len() - suffix) {
        suffix -= 1;
    }
    if prefix == old.len() && prefix == new.len() {
        return TextEdit::default();
    }
    TextEdit {
        replacements: vec![Replacement {
            span: Span::new(prefix, old.len() - suffix),
            text: new[prefix..new.len() - suffix].to_owned(),
        }],
    }
}

fn floor_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Where a scene file stops being UTF-8 text: the first byte that is not, and its line and
/// column (columns count characters, from 1). A scene file is UTF-8 text; this is the error
/// inside the `io::Error` [`Session::open`] gives for one that is not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NotUtf8 {
    pub at: LineCol,
    pub byte: u8,
}

impl fmt::Display for NotUtf8 {
    /// What is wrong, without the place (`at`), which a message puts first as `FILE:LINE:COL`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "byte 0x{:02X} is not UTF-8: a scene file is UTF-8 text",
            self.byte
        )
    }
}

impl std::error::Error for NotUtf8 {}

/// The text of the scene file at `path`; bytes that are not UTF-8 are an `InvalidData` error
/// holding a [`NotUtf8`] with their place.
fn read_scene_text(path: &Path) -> io::Result<String> {
    String::from_utf8(std::fs::read(path)?).map_err(|e| {
        let bytes = e.as_bytes();
        let good = e.utf8_error().valid_up_to();
        let before = std::str::from_utf8(&bytes[..good]).expect("valid up to here");
        let at = LineIndex::new(before).line_col(before, good);
        io::Error::new(
            io::ErrorKind::InvalidData,
            NotUtf8 {
                at,
                byte: bytes[good],
            },
        )
    })
}

#[cfg(test)]
mod tests;
