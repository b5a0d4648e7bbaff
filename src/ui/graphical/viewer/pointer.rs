//! The viewer's mouse and keys: GTK's events go to the view layer's gesture machine
//! ([`Gestures`](crate::view::gesture::Gestures)), and its effects are applied here to the
//! view, the session (handle drags, new and deleted trajectory points, Create clicks,
//! selection) and the live run.

use super::{point_ref, Viewer};
use crate::render::pick::{self, body_under, nearest_handle, pointer_ray};
use crate::scene::handles::{Edit, Handle, HandleKind};
use crate::scene::state::{BodyStates, InitialStates};
use crate::scene::{EditValue, ElementKind, Target};
use crate::ui::camera_fields::moved;
use crate::ui::create::{without_residue, BodyClick, Click as CreateClick};
use crate::ui::scene_text::{delete_control_point, insert_control_point};
use crate::view::camera::PICK_RADIUS;
use crate::view::gesture::{Click, Effect, Situation};
use crate::view::keys::KeyAction;
use crate::view::live::{PullPlane, ScreenDirection};
use crate::view::transport::next_speed;
use gtk::prelude::*;
use gtk4 as gtk;
use nalgebra::{Point2, Point3, Vector3};

impl Viewer {
    /// The pointer moved over the picture without a button down.
    /// The body under the pointer is highlighted, unless a gesture is under way.
    pub fn pointer_moved(&self, at: Point2<f64>) {
        self.gestures.borrow_mut().hover(at);
        let hovered = if self.gestures.borrow().is_idle() {
            self.body_at(at).map(|click| click.body)
        } else {
            None
        };
        self.set_hovered(hovered);
    }

    /// The pointer left the picture: no body is under it.
    pub fn pointer_left(&self) {
        self.gestures.borrow_mut().leave();
        self.set_hovered(None);
    }

    fn set_hovered(&self, body: Option<usize>) {
        let changed = {
            let mut options = self.options.borrow_mut();
            let changed = options.hovered_body != body;
            options.hovered_body = body;
            changed
        };
        if changed {
            self.redraw();
        }
    }

    /// A button went down at `at` (picture pixels).
    pub fn press(&self, button: u32, shift: bool, at: Point2<f64>) {
        let Some((camera, viewport)) = self.camera_and_viewport() else {
            self.gestures.borrow_mut().hover(at);
            return;
        };
        let live = self.is_live();
        let handles: Vec<Handle> = if live {
            Vec::new()
        } else {
            self.visible_handles().into_iter().map(|(_, h)| h).collect()
        };
        let body_at = |at: Point2<f64>| {
            self.body_at(at)
                .map(|hit| (hit.body, Point3::from(hit.world)))
        };
        let situation = Situation {
            prompting: self.editor.prompt_instruction().is_some(),
            selects: true,
            edits_points: true,
            ..Situation::new(&camera, &viewport, &handles, &body_at, live)
        };
        let effect = self
            .gestures
            .borrow_mut()
            .press(button, shift, at, &situation);
        self.apply(effect);
    }

    /// The pointer moved to `at` with a button down.
    pub fn drag_to(&self, at: Point2<f64>) {
        let effect = {
            let Some(scene) = self.editor.session.scene() else {
                return;
            };
            let prepared = self.prepared.borrow();
            let (Some(prepared), Some(camera)) = (prepared.as_ref(), self.view.get().current())
            else {
                return;
            };
            let viewport = self.gl().viewport();
            let shapes = prepared.frames.shapes();
            self.gestures
                .borrow_mut()
                .motion(at, &camera, &viewport, &scene, shapes)
        };
        self.apply(effect);
    }

    /// The button `button` came up at `at`.
    pub fn release(&self, button: u32, at: Point2<f64>) {
        let effect = self.gestures.borrow_mut().release(button, at);
        self.apply(effect);
    }

    /// The wheel turned `steps` steps (positive: towards the user).
    pub fn scroll(&self, steps: f64) {
        let Some(camera) = self.view.get().current() else {
            return;
        };
        let effect = self.gestures.borrow_mut().scroll(steps, &camera);
        self.apply(effect);
    }

    /// A key went down (`pressed`) or up: what it means over a view (`crate::view::keys`).
    /// Returns whether the viewer took it.
    pub fn key(&self, action: KeyAction, pressed: bool) -> bool {
        match action {
            // Playing the computed motion, Left and Right step a frame (when the view has
            // the focus, so that other widgets keep their arrows).
            KeyAction::Push(direction) if !self.is_live() => {
                let frames = match direction {
                    ScreenDirection::Left => -1,
                    ScreenDirection::Right => 1,
                    _ => return false,
                };
                if !self.gl().area.has_focus() {
                    return false;
                }
                if pressed {
                    self.step(frames);
                }
            }
            KeyAction::Push(direction) => return self.arrow_key(direction, pressed),
            KeyAction::Free => self.gestures.borrow_mut().set_free(pressed),
            _ if !pressed => return false,
            KeyAction::CentreAtPointer => self.centre_at_pointer(),
            KeyAction::PushHandle { into } => self.push_handle(into),
            KeyAction::ResetView => self.reset_view(),
            KeyAction::PlayPause if self.is_live() => return false,
            KeyAction::PlayPause if self.transport.borrow().is_playing() => self.stop(),
            KeyAction::PlayPause => self.play(),
            KeyAction::GoTo(_) | KeyAction::Reverse | KeyAction::Speed { .. } if self.is_live() => {
                return false
            }
            KeyAction::GoTo(end) => self.go_to(end),
            KeyAction::Reverse => self.set_rate(-self.rate()),
            KeyAction::Speed { faster } => self.set_rate(next_speed(self.rate(), faster)),
        }
        true
    }

    /// The `z` and `x` keys: pushes the dragged handle into the screen or out of it.
    fn push_handle(&self, into: bool) {
        let effect = {
            let prepared = self.prepared.borrow();
            let (Some(prepared), Some((camera, viewport))) =
                (prepared.as_ref(), self.camera_and_viewport())
            else {
                return;
            };
            let shapes = prepared.frames.shapes();
            self.gestures
                .borrow_mut()
                .push_handle(into, &camera, &viewport, shapes)
        };
        self.apply(effect);
    }

    /// The `c` key: the centre of rotation and scaling moves to the vertex or handle under the
    /// pointer, or to the point under it midway in depth (4.1.7).
    fn centre_at_pointer(&self) {
        let Some(pointer) = self.gestures.borrow().pointer() else {
            return;
        };
        let viewport = self.gl().viewport();
        let centre = {
            let frame = self.last_frame.borrow();
            let prepared = self.prepared.borrow();
            let (Some(frame), Some(prepared)) = (frame.as_ref(), prepared.as_ref()) else {
                return;
            };
            let meshes = prepared.frames.meshes();
            pick::rotation_centre(frame, meshes, &viewport, pointer, pick::CENTRE_SNAP_PIXELS)
        };
        if let Some(mut camera) = self.view.get().current() {
            camera.set_centre(centre);
            self.apply(Effect::ViewMoved(camera));
        }
    }

    /// Does what the gesture machine decided. Nothing of the viewer's is borrowed here: the
    /// session tells every view (this one too) of an edit at once.
    fn apply(&self, effect: Effect) {
        match effect {
            Effect::Nothing => {}
            Effect::ViewMoved(camera) => {
                let mut view = self.view.get();
                view.moved(camera);
                self.view.set(view);
                self.redraw();
            }
            Effect::DragStarted(handle) => {
                if handle.kind == HandleKind::TrajectoryPoint {
                    let name = self.editor.session.scene().and_then(|s| {
                        point_ref(handle.target)
                            .and_then(|p| s.trajectories.get(p.trajectory).map(|t| t.name.clone()))
                    });
                    self.set_editing_trajectory(name);
                }
                self.editor.session.begin_drag();
                self.show_value(Some(handle.label.clone()));
                self.highlight(Some(handle.target));
            }
            Effect::Edit(edit) => {
                let edited = if edit.target.element().kind == ElementKind::Camera {
                    self.move_camera(&edit)
                } else {
                    self.editor
                        .session
                        .edit(edit.target, edit.value, Some(self.view_id))
                        .map_err(|e| e.reason)
                };
                match edited {
                    Ok(()) => {
                        let label = self
                            .handles()
                            .into_iter()
                            .find(|h| h.target == edit.target)
                            .map(|h| h.label);
                        self.show_value(label);
                        self.highlight(Some(edit.target));
                    }
                    Err(reason) => self.say(&reason),
                }
            }
            Effect::DragEnded => {
                self.editor.session.end_drag();
                self.show_value(None);
                self.highlight(None);
                self.redraw();
            }
            Effect::Refused(why) => self.say(&why),
            Effect::NewPoint {
                handle,
                after,
                position,
            } => self.new_point(handle.target, after, position),
            Effect::Click(click, at) => self.click(click, at),
            Effect::Grab { body, at } => {
                let Some((camera, _)) = self.camera_and_viewport() else {
                    return;
                };
                let grabbed = match self.live.borrow_mut().as_mut() {
                    Some(run) => run.grab(body, &at.coords),
                    None => return,
                };
                match grabbed {
                    Ok(()) => self.gestures.borrow_mut().pull(PullPlane::new(at, &camera)),
                    Err(e) => self.say(&format!("Cannot pull: {e}")),
                }
            }
            Effect::PullTarget(target) => {
                let moved = self
                    .live
                    .borrow()
                    .as_ref()
                    .map(|run| run.move_target(&target));
                if let Some(Err(e)) = moved {
                    self.say(&format!("Cannot pull: {e}"));
                }
            }
            Effect::PullEnded => {
                if let Some(run) = self.live.borrow().as_ref() {
                    run.release();
                }
            }
        }
    }

    /// A drag of the camera's position or of the point it looks at: the whole `camera`
    /// command is written again (`camera_fields::moved`), so the camera keeps looking at its
    /// point; each step joins the drag's one undo step.
    fn move_camera(&self, edit: &Edit) -> Result<(), String> {
        let EditValue::Vector(to) = edit.value else {
            return Err("the camera's handles take points".into());
        };
        let written = {
            let Some(scene) = self.editor.session.scene() else {
                return Err("the text has no evaluated scene to edit".into());
            };
            let text = self.editor.session.text();
            moved(&text, &scene, edit.target, to)
                .map(|written| (written != *text).then_some(written))
        };
        match written {
            Ok(Some(text)) => self.editor.session.set_text(text, Some(self.view_id)),
            Ok(None) => {}
            Err(reason) => return Err(format!("Cannot move the camera: {reason}.")),
        }
        Ok(())
    }

    fn highlight(&self, target: Option<Target>) {
        let index = target.and_then(|t| self.handles().iter().position(|h| h.target == t));
        self.options.borrow_mut().highlighted_handle = index;
    }

    fn show_value(&self, value: Option<String>) {
        if let Some(w) = self.widgets() {
            w.value.set_text(value.as_deref().unwrap_or(""));
            w.value.set_visible(value.is_some());
        }
    }

    /// A middle drag from a trajectory point: makes a new point before or after it at
    /// `position` and drags it (4.1.4).
    fn new_point(&self, from: Target, after: bool, position: Vector3<f64>) {
        let Some(at) = point_ref(from) else {
            return;
        };
        let result = {
            let Some(scene) = self.editor.session.scene() else {
                return;
            };
            let text = self.editor.session.text().to_owned();
            insert_control_point(&text, &scene, at, after, position)
        };
        match result {
            Ok((new_text, index)) => {
                self.editor.session.begin_drag();
                self.editor.session.set_text(new_text, Some(self.view_id));
                let target = Target::ControlPoint {
                    trajectory: at.trajectory,
                    piece: at.piece,
                    point: index,
                };
                match self.handles().into_iter().find(|h| h.target == target) {
                    Some(handle) => {
                        self.show_value(Some(handle.label.clone()));
                        self.highlight(Some(target));
                        self.gestures.borrow_mut().drag(handle);
                    }
                    None => {
                        self.editor.session.end_drag();
                        self.gestures.borrow_mut().cancel();
                    }
                }
            }
            Err(e) => {
                self.say(&e.reason);
                self.gestures.borrow_mut().cancel();
            }
        }
    }

    fn click(&self, click: Click, at: Point2<f64>) {
        match click {
            Click::Prompt => {
                if let Some(click) = self.click_at(at) {
                    self.editor.prompt_click(&click);
                }
            }
            Click::Select => {
                if let Some(hit) = self.body_at(at) {
                    let name = self
                        .editor
                        .session
                        .scene()
                        .and_then(|s| s.bodies.get(hit.body).map(|b| b.name.clone()));
                    if let Some(name) = name {
                        self.editor.toggle_selected(&name);
                    }
                }
            }
            Click::DeletePoint(target) => {
                let Some(point) = point_ref(target) else {
                    return;
                };
                let result = {
                    let Some(scene) = self.editor.session.scene() else {
                        return;
                    };
                    let text = self.editor.session.text().to_owned();
                    delete_control_point(&text, &scene, point)
                };
                match result {
                    Ok(text) => self.editor.session.set_text(text, Some(self.view_id)),
                    Err(e) => self.say(&e.reason),
                }
            }
        }
    }

    /// The body under `at` as drawn now.
    fn body_at(&self, at: Point2<f64>) -> Option<BodyClick> {
        self.surface_at(at).map(|(body, _)| body)
    }

    /// The body under `at` as drawn now, and the outward normal of its surface there.
    fn surface_at(&self, at: Point2<f64>) -> Option<(BodyClick, Vector3<f64>)> {
        let (camera, viewport) = self.camera_and_viewport()?;
        let scene = self.editor.session.scene()?;
        let prepared = self.prepared.borrow();
        let prepared = prepared.as_ref()?;
        let ray = pointer_ray(&camera, &viewport, at);
        let (motion, time) = self.states_now();
        let initial = InitialStates { scene: &scene };
        let states: &dyn BodyStates = match &motion {
            Some(m) => m,
            None => &initial,
        };
        let hit = body_under(prepared.frames.shapes(), states, time, &ray)?;
        let state = states
            .body_state(hit.body, time)
            .or_else(|| initial.body_state(hit.body, 0.0))?;
        let body = BodyClick {
            body: hit.body,
            local: state.to_body(&hit.hit.point),
            world: hit.hit.point,
        };
        Some((body, hit.hit.normal))
    }

    /// Where the pointer at `at` meets the ground the last picture showed under the bodies,
    /// when it does within the ground's reach, and the ground's normal.
    fn ground_at(&self, at: Point2<f64>) -> Option<(Vector3<f64>, Vector3<f64>)> {
        let (camera, viewport) = self.camera_and_viewport()?;
        let ground = self.last_frame.borrow().as_ref()?.ground.clone()?;
        let ray = pointer_ray(&camera, &viewport, at);
        let normal = ground.normal.into_inner();
        let towards = ray.direction().dot(&normal);
        if towards > -1e-9 {
            return None;
        }
        let t = (ground.origin.coords - ray.origin()).dot(&normal) / towards;
        let point = ray.at(t);
        (t > 0.0 && (point - ground.origin.coords).norm() <= ground.extent)
            .then_some((point, normal))
    }

    /// What a Create command needs to know about a click at `at`: the surface of a body
    /// under it, else the ground's, else the point at the depth of the view's centre.
    fn click_at(&self, at: Point2<f64>) -> Option<CreateClick> {
        let (camera, viewport) = self.camera_and_viewport()?;
        let hit = self.surface_at(at);
        let body = hit.map(|(body, _)| body);
        let (point, surface) = match hit {
            Some((body, normal)) => (body.world, Some(normal)),
            None => match self.ground_at(at) {
                Some((point, normal)) => (point, Some(normal)),
                None => {
                    let depth = -camera.to_eye(&camera.centre).z;
                    let point = camera.unproject_at_depth(at, depth, &viewport).coords;
                    (point, None)
                }
            },
        };
        let point = without_residue(point, (camera.eye().coords - point).norm());
        let trajectory = {
            let all: Vec<Handle> = self
                .handles()
                .into_iter()
                .filter(|h| h.kind == HandleKind::TrajectoryPoint)
                .collect();
            nearest_handle(&all, &camera, &viewport, at, PICK_RADIUS)
                .and_then(|i| point_ref(all[i].target))
                .map(|p| p.trajectory)
        };
        Some(CreateClick {
            point,
            surface,
            body,
            trajectory,
            time: self.time.get(),
        })
    }
}
