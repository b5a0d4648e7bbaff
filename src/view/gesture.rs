//! The gesture machine: what a press, the motion after it, its release, the wheel and the
//! handle keys do to a view (dissertation 4.1.3-4.1.7, 6.2.3). The editor's graphical viewer
//! and the slave's renditions both translate their events (GTK's, or those a host forwards
//! over D-Bus) into calls here, so the same input does the same thing in both.
//!
//! - Unshifted buttons position the view ([`ViewDrag`]); the wheel zooms.
//! - Shift and the left button drag the handle under the pointer (a handle that cannot be
//!   edited is refused with a reason); away from handles they select the body under the
//!   pointer where the view selects, else they position the view like the unshifted button.
//! - Where trajectory points may be added and deleted, Shift and the middle button drag a new
//!   point out of the one under the pointer (before or after it, whichever way the pointer
//!   goes along the curve), Shift and the right button delete one.
//! - While a Create command waits for clicks, the left button answers it.
//! - Live, the left button on a body grabs it ([`Effect::Grab`], then [`Gestures::pull`]):
//!   its target follows the pointer in a [`PullPlane`] until the release. Handles are off
//!   while live, so Shift changes nothing.
//! - While a handle is dragged, `z` and `x` push it into or out of the screen
//!   ([`Gestures::push_handle`]) and `a` held keeps link ends off the surfaces
//!   ([`Gestures::set_free`]).
//!
//! The machine only decides: it returns an [`Effect`] for the shell to apply to its session or
//! live run, so no scene state is borrowed while the session tells its observers of an edit.

use super::camera::{button, zoom, ViewDrag, CLICK_SLOP, PICK_RADIUS};
use super::live::PullPlane;
use crate::render::camera::{Camera, Viewport};
use crate::render::pick::{nearest_on_screen, pointer_ray};
use crate::scene::handles::{Drag, Edit, Handle, HandleKind};
use crate::scene::shapes::SceneShapes;
use crate::scene::{Scene, Target};
use nalgebra::{Point2, Point3, Vector2, Vector3};

/// What a press happened on and what the view offers, as the shell sees it.
pub struct Situation<'a> {
    /// The camera of the picture the pointer is over.
    pub camera: &'a Camera,
    pub viewport: &'a Viewport,
    /// The handles shown (none while live).
    pub handles: &'a [Handle],
    /// The body under a point of the picture and the world point hit, in the states shown.
    pub body_at: &'a dyn Fn(Point2<f64>) -> Option<(usize, Point3<f64>)>,
    /// The view runs the scene live.
    pub live: bool,
    /// A Create command waits for clicks.
    pub prompting: bool,
    /// Shift-clicks select bodies.
    pub selects: bool,
    /// Trajectory points may be added and deleted.
    pub edits_points: bool,
}

impl<'a> Situation<'a> {
    /// A view that positions itself, drags handles and pulls bodies live, but prompts for no
    /// clicks, selects no bodies and edits no trajectory points (a rendition's abilities; the
    /// editor's viewer adds its own).
    pub fn new(
        camera: &'a Camera,
        viewport: &'a Viewport,
        handles: &'a [Handle],
        body_at: &'a dyn Fn(Point2<f64>) -> Option<(usize, Point3<f64>)>,
        live: bool,
    ) -> Situation<'a> {
        Situation {
            camera,
            viewport,
            handles,
            body_at,
            live,
            prompting: false,
            selects: false,
            edits_points: false,
        }
    }
}

/// A click's meaning, acted on at the release when the pointer stayed put.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Click {
    /// Answer the Create command waiting for clicks.
    Prompt,
    /// Select or deselect the body under the pointer.
    Select,
    /// Delete the trajectory point this handle target names.
    DeletePoint(Target),
}

/// What an event did, for the shell to apply.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    Nothing,
    /// The view moved to this camera: draw again, and keep this view from now on.
    ViewMoved(Camera),
    /// A handle drag started on this handle (a copy; see [`Gestures::handle`]).
    DragStarted(Box<Handle>),
    /// The dragged handle's parameter takes a new value.
    Edit(Edit),
    /// The handle drag ended.
    DragEnded,
    /// Why a handle cannot be dragged, or a drag step was not taken.
    Refused(String),
    /// Make a new trajectory point next to the one `handle` edits, `after` it or before, at
    /// `position`; then [`Gestures::drag`] the new point's handle.
    NewPoint {
        handle: Box<Handle>,
        after: bool,
        position: Vector3<f64>,
    },
    /// A click at this point of the picture.
    Click(Click, Point2<f64>),
    /// Live: grab `body` by its point `at` (world); then [`Gestures::pull`].
    Grab {
        body: usize,
        at: Point3<f64>,
    },
    /// The pulled body's target moves here (world).
    PullTarget(Point3<f64>),
    /// The pulled body is let go.
    PullEnded,
}

/// The gesture in progress, and the button that started it.
#[derive(Clone, Debug, Default)]
enum Gesture {
    #[default]
    Idle,
    View {
        how: ViewDrag,
        last: Point2<f64>,
    },
    /// Dragging a copy of a handle taken at the start (its rules refer to the initial state
    /// at that time), its position kept up to date.
    Handle(Box<Handle>),
    /// A press on a trajectory point: the new point is made once the pointer shows which
    /// way it goes.
    NewPoint(Box<Handle>),
    /// A press that acts on release if the pointer stayed put.
    Click(Click),
    /// Pulling a body live: its target moves in this plane.
    Pull(PullPlane),
}

/// The pointer state of one view.
#[derive(Clone, Debug, Default)]
pub struct Gestures {
    gesture: Gesture,
    /// The button that started the gesture.
    button: u32,
    /// Where it started.
    press: Point2<f64>,
    /// Where the pointer was last seen over the picture.
    pointer: Option<Point2<f64>>,
    /// The `a` key is down: link ends move in the screen plane instead of on the surface.
    free: bool,
}

impl Gestures {
    /// A button went down at `at` (picture pixels), with or without Shift.
    pub fn press(&mut self, pressed: u32, shift: bool, at: Point2<f64>, s: &Situation) -> Effect {
        self.pointer = Some(at);
        if !matches!(self.gesture, Gesture::Idle) {
            return Effect::Nothing;
        }
        self.button = pressed;
        self.press = at;
        let handle_at = |kind: Option<HandleKind>| {
            let candidates: Vec<&Handle> = s
                .handles
                .iter()
                .filter(|h| kind.is_none_or(|k| h.kind == k))
                .collect();
            let positions = candidates.iter().map(|h| Point3::from(h.position));
            nearest_on_screen(positions, s.camera, s.viewport, at, PICK_RADIUS)
                .map(|(i, _)| candidates[i].clone())
        };
        let shift = shift && !s.live;
        let (gesture, effect) = match (pressed, shift) {
            (button::LEFT, _) if s.live => match (s.body_at)(at) {
                Some((body, point)) => (Gesture::Idle, Effect::Grab { body, at: point }),
                None => (self.view(pressed, at), Effect::Nothing),
            },
            (button::LEFT, false) if s.prompting => {
                (Gesture::Click(Click::Prompt), Effect::Nothing)
            }
            (button::LEFT, true) => match handle_at(None) {
                Some(handle) if handle.editable => (
                    Gesture::Handle(Box::new(handle.clone())),
                    Effect::DragStarted(Box::new(handle)),
                ),
                Some(handle) => (Gesture::Idle, Effect::Refused(handle.refusal())),
                None if s.selects => (Gesture::Click(Click::Select), Effect::Nothing),
                None => (self.view(pressed, at), Effect::Nothing),
            },
            (button::MIDDLE, true) if s.edits_points => {
                match handle_at(Some(HandleKind::TrajectoryPoint)) {
                    Some(handle) => (Gesture::NewPoint(Box::new(handle)), Effect::Nothing),
                    None => (Gesture::Idle, Effect::Nothing),
                }
            }
            (button::RIGHT, true) if s.edits_points => {
                match handle_at(Some(HandleKind::TrajectoryPoint)) {
                    Some(handle) => (
                        Gesture::Click(Click::DeletePoint(handle.target)),
                        Effect::Nothing,
                    ),
                    None => (Gesture::Idle, Effect::Nothing),
                }
            }
            _ => (self.view(pressed, at), Effect::Nothing),
        };
        self.gesture = gesture;
        effect
    }

    /// The view drag of an unshifted `pressed` button, if it has one.
    fn view(&self, pressed: u32, at: Point2<f64>) -> Gesture {
        ViewDrag::for_button(pressed).map_or(Gesture::Idle, |how| Gesture::View { how, last: at })
    }

    /// Live: the body of an [`Effect::Grab`] was grabbed; its target follows the pointer in
    /// `plane` until the button is released.
    pub fn pull(&mut self, plane: PullPlane) {
        self.gesture = Gesture::Pull(plane);
    }

    /// Forgets a pull in progress (the live run it pulled in has ended).
    pub fn end_pull(&mut self) {
        if matches!(self.gesture, Gesture::Pull(_)) {
            self.gesture = Gesture::Idle;
        }
    }

    /// Drags `handle` from here on: the new point of an [`Effect::NewPoint`].
    pub fn drag(&mut self, handle: Handle) {
        self.gesture = Gesture::Handle(Box::new(handle));
    }

    /// Forgets the gesture in progress (a new point could not be made).
    pub fn cancel(&mut self) {
        self.gesture = Gesture::Idle;
    }

    /// The pointer moved to `at` with no button down (it is where the `c` and handle keys
    /// act).
    pub fn hover(&mut self, at: Point2<f64>) {
        self.pointer = Some(at);
    }

    /// The pointer left the picture: it is nowhere over it.
    pub fn leave(&mut self) {
        self.pointer = None;
    }

    /// The pointer moved to `at` (with or without a button down). `camera` is the view's
    /// current camera; `scene` and `shapes` the scene the handles belong to.
    pub fn motion(
        &mut self,
        at: Point2<f64>,
        camera: &Camera,
        viewport: &Viewport,
        scene: &Scene,
        shapes: &SceneShapes,
    ) -> Effect {
        self.pointer = Some(at);
        match &mut self.gesture {
            Gesture::Idle | Gesture::Click(_) => Effect::Nothing,
            Gesture::View { how, last } => {
                let mut moved = *camera;
                how.apply(&mut moved, *last, at, viewport);
                *last = at;
                Effect::ViewMoved(moved)
            }
            Gesture::Handle(handle) => drag_handle(handle, at, camera, viewport, shapes, self.free),
            Gesture::NewPoint(handle) => {
                if (at - self.press).norm() <= CLICK_SLOP {
                    return Effect::Nothing;
                }
                let handle = handle.clone();
                let effect = new_point(handle, self.press, at, camera, viewport, scene, shapes);
                self.gesture = Gesture::Idle;
                effect
            }
            // A pointer ray parallel to the plane leaves the target where it is.
            Gesture::Pull(plane) => plane
                .target(camera, viewport, at)
                .map_or(Effect::Nothing, Effect::PullTarget),
        }
    }

    /// A button went up at `at`: the gesture it started ends.
    pub fn release(&mut self, released: u32, at: Point2<f64>) -> Effect {
        self.pointer = Some(at);
        if released != self.button {
            return Effect::Nothing;
        }
        let still = (at - self.press).norm() <= CLICK_SLOP;
        match std::mem::take(&mut self.gesture) {
            Gesture::Handle(_) => Effect::DragEnded,
            Gesture::Pull(_) => Effect::PullEnded,
            Gesture::Click(click) if still => Effect::Click(click, at),
            _ => Effect::Nothing,
        }
    }

    /// The wheel turned `steps` steps (positive: towards the user) over a view seen with
    /// `camera`: the view zooms.
    pub fn scroll(&mut self, steps: f64, camera: &Camera) -> Effect {
        let mut zoomed = *camera;
        zoom(&mut zoomed, steps);
        Effect::ViewMoved(zoomed)
    }

    /// The `z` (`into`) or `x` key: pushes the dragged handle into or out of the screen by a
    /// twentieth of its distance from the eye.
    pub fn push_handle(
        &mut self,
        into: bool,
        camera: &Camera,
        viewport: &Viewport,
        shapes: &SceneShapes,
    ) -> Effect {
        let (Gesture::Handle(handle), Some(pointer)) = (&mut self.gesture, self.pointer) else {
            return Effect::Nothing;
        };
        let step = 0.05 * (handle.position - camera.eye().coords).norm();
        let direction = camera.view_direction().into_inner();
        handle.position += direction * if into { step } else { -step };
        drag_handle(handle, pointer, camera, viewport, shapes, self.free)
    }

    /// The `a` key went down (`true`) or up.
    pub fn set_free(&mut self, free: bool) {
        self.free = free;
    }

    /// Where the pointer was last seen over the picture.
    pub fn pointer(&self) -> Option<Point2<f64>> {
        self.pointer
    }

    /// Whether no gesture is in progress (the editor highlights the body under the pointer
    /// only then).
    pub fn is_idle(&self) -> bool {
        matches!(self.gesture, Gesture::Idle)
    }

    /// The handle being dragged, if any (the view must then stay as it is).
    pub fn handle(&self) -> Option<&Handle> {
        match &self.gesture {
            Gesture::Handle(handle) => Some(handle),
            _ => None,
        }
    }
}

/// Moves `handle` under the pointer at `at` and says what its parameter becomes.
fn drag_handle(
    handle: &mut Handle,
    at: Point2<f64>,
    camera: &Camera,
    viewport: &Viewport,
    shapes: &SceneShapes,
    free: bool,
) -> Effect {
    let drag = Drag {
        ray: pointer_ray(camera, viewport, at),
        screen_normal: camera.view_direction().into_inner(),
        free,
    };
    match handle.drag(&drag, shapes) {
        Ok(edit) => {
            handle.position = edit.position;
            Effect::Edit(edit)
        }
        Err(e) => Effect::Refused(e.to_string()),
    }
}

/// The new trajectory point of a middle drag from `handle`'s point: after it when the pointer
/// went from `press` to `at` along the curve's direction there (towards the next point, or
/// away from the one before), else before it; placed under the pointer in the screen plane.
fn new_point(
    handle: Box<Handle>,
    press: Point2<f64>,
    at: Point2<f64>,
    camera: &Camera,
    viewport: &Viewport,
    scene: &Scene,
    shapes: &SceneShapes,
) -> Effect {
    let Target::ControlPoint {
        trajectory,
        piece,
        point,
    } = handle.target
    else {
        return Effect::Nothing;
    };
    let Some(points) = scene
        .trajectories
        .get(trajectory)
        .and_then(|t| t.pieces.get(piece))
        .map(|p| &p.points)
    else {
        return Effect::Nothing;
    };
    let seen = |p: Vector3<f64>| {
        camera
            .project(&Point3::from(p), viewport)
            .map(|s| Vector2::new(s.x, s.y))
    };
    let here = points[point].pos;
    let along = match (points.get(point + 1), point.checked_sub(1)) {
        (Some(next), _) => seen(next.pos).zip(seen(here)).map(|(a, b)| a - b),
        (None, Some(before)) => seen(here).zip(seen(points[before].pos)).map(|(a, b)| a - b),
        (None, None) => None,
    };
    let after = along.is_none_or(|t| t.dot(&(at - press)) >= 0.0);
    let drag = Drag {
        ray: pointer_ray(camera, viewport, at),
        screen_normal: camera.view_direction().into_inner(),
        free: true,
    };
    let position = handle.drag(&drag, shapes).map_or(here, |e| e.position);
    Effect::NewPoint {
        handle,
        after,
        position,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::scene_frame::SceneFrames;
    use crate::scene::evaluate;
    use crate::scene::handles::{handles, HandleScales};
    use crate::scene::{EditValue, InitVar};

    const BALL: &str = "shape_set ss desc {sphere 0.5}\nbody b shape ss init_pos {0 0 0}\n";

    fn viewport() -> Viewport {
        Viewport::new(400.0, 300.0)
    }

    fn situation<'a>(
        camera: &'a Camera,
        viewport: &'a Viewport,
        handles: &'a [Handle],
        body_at: &'a dyn Fn(Point2<f64>) -> Option<(usize, Point3<f64>)>,
    ) -> Situation<'a> {
        Situation::new(camera, viewport, handles, body_at, false)
    }

    /// Whether a drag from `at` to 30 pixels right of it, after a press there, turns the view.
    fn turns_the_view(gestures: &mut Gestures, at: Point2<f64>, camera: &Camera) -> bool {
        let scene = evaluate("").unwrap();
        let frames = SceneFrames::new(&scene).unwrap();
        let to = Point2::new(at.x + 30.0, at.y);
        let moved = gestures.motion(to, camera, &viewport(), &scene, frames.shapes());
        matches!(moved, Effect::ViewMoved(_))
    }

    fn on_screen(camera: &Camera, viewport: &Viewport, p: Vector3<f64>) -> Point2<f64> {
        let seen = camera.project(&Point3::from(p), viewport).unwrap();
        Point2::new(seen.x, seen.y)
    }

    /// The shared machine through a rotate, a zoom, a handle drag and a pull, with no display:
    /// what the editor's viewer and a rendition both do with these events.
    #[test]
    fn a_rotate_a_zoom_a_handle_drag_and_a_pull() {
        let scene = evaluate(BALL).unwrap();
        let frames = SceneFrames::new(&scene).unwrap();
        let shapes = frames.shapes();
        let all = handles(&scene, shapes, &HandleScales::default());
        let viewport = viewport();
        let mut camera = Camera::default();
        let nothing = |_: Point2<f64>| None;
        let mut gestures = Gestures::default();

        // Rotate: the left button turns the view on the virtual sphere.
        let s = situation(&camera, &viewport, &all, &nothing);
        let start = Point2::new(200.0, 150.0);
        assert_eq!(
            gestures.press(button::LEFT, false, start, &s),
            Effect::Nothing
        );
        let Effect::ViewMoved(turned) = gestures.motion(
            Point2::new(240.0, 120.0),
            &camera,
            &viewport,
            &scene,
            shapes,
        ) else {
            panic!("the view turns");
        };
        assert_ne!(turned.rotation, camera.rotation);
        assert_eq!(
            gestures.release(button::LEFT, Point2::new(240.0, 120.0)),
            Effect::Nothing
        );
        let after = gestures.motion(
            Point2::new(260.0, 100.0),
            &turned,
            &viewport,
            &scene,
            shapes,
        );
        assert_eq!(after, Effect::Nothing, "the release ends the turn");
        camera = turned;

        // Zoom: the wheel scales the view.
        let Effect::ViewMoved(zoomed) = gestures.scroll(2.0, &camera) else {
            panic!("the view zooms");
        };
        assert!(zoomed.scale < camera.scale);
        camera = zoomed;

        // A handle drag: Shift and the left button on the ball's position handle.
        let handle = all
            .iter()
            .find(|h| h.kind == HandleKind::BodyPosition)
            .unwrap();
        let at = on_screen(&camera, &viewport, handle.position);
        let s = situation(&camera, &viewport, &all, &nothing);
        let Effect::DragStarted(started) = gestures.press(button::LEFT, true, at, &s) else {
            panic!("the drag starts");
        };
        assert_eq!(started.target, handle.target);
        let right = Point2::new(at.x + 40.0, at.y);
        let Effect::Edit(edit) = gestures.motion(right, &camera, &viewport, &scene, shapes) else {
            panic!("the handle moves");
        };
        assert_eq!(
            edit.target,
            Target::BodyInit {
                body: 0,
                var: InitVar::Pos
            }
        );
        let EditValue::Vector(moved) = edit.value else {
            panic!("{:?}", edit.value);
        };
        let screen_right = camera.rotation.inverse() * Vector3::x();
        assert!(moved.dot(&screen_right) > 0.1, "{moved}");
        // `z` pushes it into the screen.
        let Effect::Edit(pushed) = gestures.push_handle(true, &camera, &viewport, shapes) else {
            panic!("the handle is pushed");
        };
        let EditValue::Vector(deeper) = pushed.value else {
            panic!()
        };
        assert!((deeper - moved).dot(&camera.view_direction()) > 0.0);
        assert_eq!(gestures.release(button::LEFT, right), Effect::DragEnded);

        // A pull: live, the left button on the ball grabs it, the pointer moves its target.
        let ball = |p: Point2<f64>| ((p - at).norm() < 20.0).then(|| (0, Point3::origin()));
        let live = Situation {
            live: true,
            handles: &[],
            ..situation(&camera, &viewport, &all, &ball)
        };
        let effect = gestures.press(button::LEFT, false, at, &live);
        assert_eq!(
            effect,
            Effect::Grab {
                body: 0,
                at: Point3::origin()
            }
        );
        gestures.pull(PullPlane::new(Point3::origin(), &camera));
        let Effect::PullTarget(target) = gestures.motion(right, &camera, &viewport, &scene, shapes)
        else {
            panic!("the target follows the pointer");
        };
        assert!(target.coords.dot(&screen_right) > 0.0, "{target}");
        assert!(target.coords.dot(&camera.view_direction()).abs() < 1e-9);
        assert_eq!(gestures.release(button::MIDDLE, right), Effect::Nothing);
        assert_eq!(gestures.release(button::LEFT, right), Effect::PullEnded);
        assert_eq!(
            gestures.motion(at, &camera, &viewport, &scene, shapes),
            Effect::Nothing
        );
    }

    #[test]
    fn every_button_positions_the_view_and_the_release_ends_it() {
        let scene = evaluate("").unwrap();
        let frames = SceneFrames::new(&scene).unwrap();
        let (camera, viewport) = (Camera::default(), viewport());
        let nothing = |_: Point2<f64>| None;
        let s = situation(&camera, &viewport, &[], &nothing);
        let mut gestures = Gestures::default();
        for b in [button::LEFT, button::MIDDLE, button::RIGHT] {
            let start = Point2::new(200.0, 150.0);
            gestures.press(b, false, start, &s);
            let moved = gestures.motion(
                Point2::new(230.0, 110.0),
                &camera,
                &viewport,
                &scene,
                frames.shapes(),
            );
            assert!(
                matches!(moved, Effect::ViewMoved(c) if c != camera),
                "button {b}"
            );
            gestures.release(b, start);
            let after = gestures.motion(start, &camera, &viewport, &scene, frames.shapes());
            assert_eq!(after, Effect::Nothing, "button {b} released");
        }
    }

    #[test]
    fn shift_away_from_handles_selects_where_the_view_selects_else_turns_the_view() {
        let (camera, viewport) = (Camera::default(), viewport());
        let nothing = |_: Point2<f64>| None;
        let at = Point2::new(5.0, 5.0);
        let mut gestures = Gestures::default();
        let rendition = situation(&camera, &viewport, &[], &nothing);
        assert_eq!(
            gestures.press(button::LEFT, true, at, &rendition),
            Effect::Nothing
        );
        assert!(gestures.handle().is_none());
        assert!(turns_the_view(&mut gestures, at, &camera));
        gestures.release(button::LEFT, at);
        let viewer = Situation {
            selects: true,
            ..situation(&camera, &viewport, &[], &nothing)
        };
        gestures.press(button::LEFT, true, at, &viewer);
        assert_eq!(
            gestures.release(button::LEFT, at),
            Effect::Click(Click::Select, at)
        );
        // A click that became a drag does nothing.
        gestures.press(button::LEFT, true, at, &viewer);
        assert_eq!(
            gestures.release(button::LEFT, Point2::new(50.0, 5.0)),
            Effect::Nothing
        );
    }

    #[test]
    fn a_handle_that_cannot_be_edited_is_refused_with_its_reason() {
        let text =
            "shape_set ss desc {sphere 0.5}\nforeach n {a b} {body $n shape ss init_pos {0 0 0}}\n";
        let scene = evaluate(text).unwrap();
        let frames = SceneFrames::new(&scene).unwrap();
        let all = handles(&scene, frames.shapes(), &HandleScales::default());
        let handle = all
            .iter()
            .find(|h| h.kind == HandleKind::BodyPosition)
            .unwrap();
        assert!(!handle.editable);
        let (camera, viewport) = (Camera::default(), viewport());
        let nothing = |_: Point2<f64>| None;
        let s = situation(&camera, &viewport, &all, &nothing);
        let at = on_screen(&camera, &viewport, handle.position);
        let mut gestures = Gestures::default();
        let Effect::Refused(why) = gestures.press(button::LEFT, true, at, &s) else {
            panic!("refused");
        };
        assert!(why.contains("cannot be edited graphically"), "{why}");
        let after = gestures.motion(
            Point2::new(at.x + 30.0, at.y),
            &camera,
            &viewport,
            &scene,
            frames.shapes(),
        );
        assert_eq!(after, Effect::Nothing, "nothing is dragged");
    }

    #[test]
    fn a_middle_drag_from_a_trajectory_point_makes_a_new_point_on_its_side() {
        let text = "trajectory p points {{0 0 0 0} {1 1 0 0}}\n";
        let scene = evaluate(text).unwrap();
        let frames = SceneFrames::new(&scene).unwrap();
        let all = handles(&scene, frames.shapes(), &HandleScales::default());
        let first = all
            .iter()
            .find(|h| {
                h.target
                    == Target::ControlPoint {
                        trajectory: 0,
                        piece: 0,
                        point: 0,
                    }
            })
            .unwrap();
        let (camera, viewport) = (Camera::default(), viewport());
        let nothing = |_: Point2<f64>| None;
        let s = Situation {
            edits_points: true,
            ..situation(&camera, &viewport, &all, &nothing)
        };
        let at = on_screen(&camera, &viewport, first.position);
        for (dx, after) in [(30.0, true), (-30.0, false)] {
            let mut gestures = Gestures::default();
            assert_eq!(
                gestures.press(button::MIDDLE, true, at, &s),
                Effect::Nothing
            );
            let to = Point2::new(at.x + dx, at.y);
            let effect = gestures.motion(to, &camera, &viewport, &scene, frames.shapes());
            let Effect::NewPoint {
                after: made_after, ..
            } = effect
            else {
                panic!("{effect:?}");
            };
            assert_eq!(made_after, after);
        }
    }

    #[test]
    fn live_beside_the_bodies_the_left_button_turns_the_view() {
        let (camera, viewport) = (Camera::default(), viewport());
        let nothing = |_: Point2<f64>| None;
        let s = Situation {
            live: true,
            ..situation(&camera, &viewport, &[], &nothing)
        };
        let mut gestures = Gestures::default();
        let at = Point2::new(9.0, 9.0);
        assert_eq!(gestures.press(button::LEFT, true, at, &s), Effect::Nothing);
        assert!(turns_the_view(&mut gestures, at, &camera));
    }
}
