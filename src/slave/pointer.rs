//! A rendition's own mouse interaction (dissertation 6.2.3), from the events the host
//! forwards: dragging with button 1 turns the view on the virtual sphere, button 2 translates
//! it, button 3 scales and rolls it, the wheel zooms; with Shift held, a button-1 drag that
//! starts on a visible handle moves the handle, and each new position becomes an edit of the
//! scene text. In live mode a button-1 press on a body pulls it instead (with or without
//! Shift): the subdocument grabs the body and starts the pull here ([`Pointer::pull`]); motion
//! moves the pull's target under the pointer and the release lets go. This module only decides;
//! the rendition applies the [`Effect`] to the session or the live run, so no scene state is
//! borrowed while the session tells its observers about the edit.

use crate::ipc::{button, Modifiers};
use crate::render::camera::{Camera, Viewport};
use crate::render::pick;
use crate::scene::handles::{Drag, Edit, Handle};
use crate::scene::shapes::SceneShapes;
use crate::ui::graphical::live::PullPlane;
use nalgebra::{Point2, Point3};

/// How near (in pixels) a Shift-press must be to a handle to grab it.
const GRAB_PIXELS: f64 = 12.0;

/// Magnification per wheel step towards the screen.
const ZOOM_PER_STEP: f64 = 1.1;

/// What a pointer event did.
#[derive(Debug, PartialEq)]
pub enum Effect {
    Nothing,
    /// The view moved: draw again, and keep this view from now on.
    ViewMoved,
    /// A handle drag started on handle `index` of the picture's handles.
    DragStarted {
        index: usize,
    },
    /// The dragged handle's parameter takes a new value.
    Edit(Edit),
    DragEnded,
    /// The pulled body's target moves here (world).
    PullTarget(Point3<f64>),
    /// The pulled body is let go.
    PullEnded,
}

/// The gesture in progress.
#[derive(Debug, Default)]
enum Gesture {
    #[default]
    Idle,
    View {
        button: u32,
        last: Point2<f64>,
    },
    Handle {
        handle: Box<Handle>,
    },
    /// Pulling a body live: its target moves in this plane.
    Pull(PullPlane),
}

/// The pointer state of one rendition.
#[derive(Debug, Default)]
pub struct Pointer {
    gesture: Gesture,
}

impl Pointer {
    /// A button went down at `at`. `handles` are the picture's handles with their indices,
    /// those of the visible kinds only.
    pub fn press<'a>(
        &mut self,
        pressed: u32,
        at: Point2<f64>,
        modifiers: Modifiers,
        camera: &Camera,
        viewport: &Viewport,
        handles: impl Iterator<Item = (usize, &'a Handle)>,
    ) -> Effect {
        if !matches!(self.gesture, Gesture::Idle) {
            return Effect::Nothing;
        }
        if pressed == button::LEFT && modifiers.contains(Modifiers::SHIFT) {
            let editable: Vec<(usize, &Handle)> = handles.filter(|(_, h)| h.editable).collect();
            let found = pick::nearest_on_screen(
                editable.iter().map(|(_, h)| h.position.into()),
                camera,
                viewport,
                at,
                GRAB_PIXELS,
            );
            if let Some((i, _)) = found {
                let (index, handle) = editable[i];
                self.gesture = Gesture::Handle {
                    handle: Box::new(handle.clone()),
                };
                return Effect::DragStarted { index };
            }
        }
        if matches!(pressed, button::LEFT | button::MIDDLE | button::RIGHT) {
            self.gesture = Gesture::View {
                button: pressed,
                last: at,
            };
        }
        Effect::Nothing
    }

    /// A button-1 press grabbed a body in live mode: the pull's target follows the pointer in
    /// `plane` until button 1 is released.
    pub fn pull(&mut self, plane: PullPlane) {
        self.gesture = Gesture::Pull(plane);
    }

    /// Forgets a pull in progress (the live run it pulled in has ended).
    pub fn end_pull(&mut self) {
        if matches!(self.gesture, Gesture::Pull(_)) {
            self.gesture = Gesture::Idle;
        }
    }

    /// The pointer moved to `at`; `shapes` are the current scene's (link ends stay on them).
    pub fn motion(
        &mut self,
        at: Point2<f64>,
        camera: &mut Camera,
        viewport: &Viewport,
        shapes: &SceneShapes,
    ) -> Effect {
        match &mut self.gesture {
            Gesture::Idle => Effect::Nothing,
            Gesture::View { button: b, last } => {
                match *b {
                    button::LEFT => camera.rotate_virtual_sphere(*last, at, viewport),
                    button::MIDDLE => camera.translate_in_screen_plane(*last, at, viewport),
                    _ => camera.scale_and_roll(*last, at, viewport),
                }
                *last = at;
                Effect::ViewMoved
            }
            Gesture::Handle { handle } => {
                let drag = Drag {
                    ray: pick::pointer_ray(camera, viewport, at),
                    screen_normal: camera.view_direction().into_inner(),
                    free: false,
                };
                // A pointer off the handle's plane (parallel to it) leaves the value as it is.
                handle
                    .drag(&drag, shapes)
                    .map_or(Effect::Nothing, Effect::Edit)
            }
            // A pointer ray parallel to the plane leaves the target where it is.
            Gesture::Pull(plane) => plane
                .target(camera, viewport, at)
                .map_or(Effect::Nothing, Effect::PullTarget),
        }
    }

    /// A button went up: the gesture it started ends.
    pub fn release(&mut self, released: u32) -> Effect {
        match self.gesture {
            Gesture::Handle { .. } if released == button::LEFT => {
                self.gesture = Gesture::Idle;
                Effect::DragEnded
            }
            Gesture::Pull(_) if released == button::LEFT => {
                self.gesture = Gesture::Idle;
                Effect::PullEnded
            }
            Gesture::View { button, .. } if button == released => {
                self.gesture = Gesture::Idle;
                Effect::Nothing
            }
            _ => Effect::Nothing,
        }
    }

    /// Whether no gesture is in progress.
    pub fn is_idle(&self) -> bool {
        matches!(self.gesture, Gesture::Idle)
    }

    /// Whether a handle is being dragged (the view must then stay as it is).
    pub fn dragging_handle(&self) -> bool {
        matches!(self.gesture, Gesture::Handle { .. })
    }
}

/// Zooms `camera` by `steps` wheel steps (positive: towards the user, smaller).
pub fn zoom(camera: &mut Camera, steps: f64) {
    camera.scale *= ZOOM_PER_STEP.powf(-steps);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::scene_frame::SceneFrames;
    use crate::scene::evaluate;
    use crate::scene::handles::{handles, HandleKind, HandleScales};
    use crate::scene::{EditValue, InitVar, Target};

    fn camera() -> (Camera, Viewport) {
        (Camera::default(), Viewport::new(400.0, 300.0))
    }

    #[test]
    fn drags_move_the_view_by_button() {
        let (mut camera, viewport) = camera();
        let scene = evaluate("").unwrap();
        let frames = SceneFrames::new(&scene).unwrap();
        let mut pointer = Pointer::default();
        for b in [button::LEFT, button::MIDDLE, button::RIGHT] {
            let before = camera;
            let start = Point2::new(200.0, 150.0);
            let none = std::iter::empty();
            assert_eq!(
                pointer.press(b, start, Modifiers::default(), &camera, &viewport, none),
                Effect::Nothing
            );
            let effect = pointer.motion(
                Point2::new(230.0, 110.0),
                &mut camera,
                &viewport,
                frames.shapes(),
            );
            assert_eq!(effect, Effect::ViewMoved);
            assert_ne!(camera, before, "button {b}");
            assert_eq!(pointer.release(b), Effect::Nothing);
            assert_eq!(
                pointer.motion(start, &mut camera, &viewport, frames.shapes()),
                Effect::Nothing,
                "after the release the pointer moves freely"
            );
        }
    }

    #[test]
    fn a_shift_drag_on_a_handle_edits_its_parameter() {
        let scene =
            evaluate("shape_set ss desc {sphere 0.5}\nbody b shape ss init_pos {0 0 0}\n").unwrap();
        let frames = SceneFrames::new(&scene).unwrap();
        let all = handles(&scene, frames.shapes(), &HandleScales::default());
        let (index, position) = all
            .iter()
            .enumerate()
            .find(|(_, h)| h.kind == HandleKind::BodyPosition)
            .map(|(i, h)| (i, h.position))
            .unwrap();
        let (mut camera, viewport) = camera();
        let seen = camera.project(&position.into(), &viewport).unwrap();
        let at = Point2::new(seen.x, seen.y);
        let mut pointer = Pointer::default();
        let visible = all.iter().enumerate();
        let effect = pointer.press(
            button::LEFT,
            at,
            Modifiers::SHIFT,
            &camera,
            &viewport,
            visible,
        );
        assert_eq!(effect, Effect::DragStarted { index });
        assert!(pointer.dragging_handle());
        let effect = pointer.motion(
            Point2::new(at.x + 40.0, at.y),
            &mut camera,
            &viewport,
            frames.shapes(),
        );
        let Effect::Edit(edit) = effect else {
            panic!("{effect:?}");
        };
        assert_eq!(
            edit.target,
            Target::BodyInit {
                body: 0,
                var: InitVar::Pos
            }
        );
        let EditValue::Vector(v) = edit.value else {
            panic!("{:?}", edit.value);
        };
        assert!(v.x > 0.1 && v.y.abs() < 1e-9, "{v:?}");
        assert_eq!(pointer.release(button::LEFT), Effect::DragEnded);
        assert!(!pointer.dragging_handle());
    }

    #[test]
    fn a_shift_press_away_from_handles_moves_the_view() {
        let (camera, viewport) = camera();
        let mut pointer = Pointer::default();
        let effect = pointer.press(
            button::LEFT,
            Point2::new(5.0, 5.0),
            Modifiers::SHIFT,
            &camera,
            &viewport,
            std::iter::empty(),
        );
        assert_eq!(effect, Effect::Nothing);
        assert!(!pointer.dragging_handle());
    }

    #[test]
    fn a_pull_moves_its_target_with_the_pointer_until_released() {
        let (mut camera, viewport) = camera();
        let scene = evaluate("").unwrap();
        let frames = SceneFrames::new(&scene).unwrap();
        let grabbed = Point3::new(0.0, 0.0, 0.0);
        let seen = camera.project(&grabbed, &viewport).unwrap();
        let mut pointer = Pointer::default();
        pointer.pull(PullPlane::new(grabbed, &camera));
        let before = camera;
        let effect = pointer.motion(
            Point2::new(seen.x + 30.0, seen.y),
            &mut camera,
            &viewport,
            frames.shapes(),
        );
        let Effect::PullTarget(target) = effect else {
            panic!("{effect:?}");
        };
        assert!(target.x > 0.0 && target.y.abs() < 1e-9, "{target}");
        assert_eq!(camera, before, "a pull leaves the view as it is");
        assert_eq!(pointer.release(button::MIDDLE), Effect::Nothing);
        assert_eq!(pointer.release(button::LEFT), Effect::PullEnded);
        assert_eq!(
            pointer.motion(
                Point2::new(seen.x, seen.y),
                &mut camera,
                &viewport,
                frames.shapes()
            ),
            Effect::Nothing
        );
    }

    #[test]
    fn the_wheel_zooms_out_towards_the_user() {
        let (mut camera, _) = camera();
        zoom(&mut camera, 1.0);
        assert!(camera.scale < 1.0);
        zoom(&mut camera, -1.0);
        assert!((camera.scale - 1.0).abs() < 1e-12);
    }
}
