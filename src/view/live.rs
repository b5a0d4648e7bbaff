//! Live mode in a view (issue 8 §3): the session's scene advancing in real time, paced by
//! the view's frames (a window's frame clock, a rendition's frame tick), pulled by the mouse
//! and pushed by the arrow keys; and the recording of a run kept in the text as trajectories.
//! The editor's graphical viewers and the slave's live renditions each run one.
//!
//! A [`LiveRun`] owns the [`SceneAdvance`] and pays it the real time between frames through a
//! [`TimeBank`], so the simulation takes whole fixed steps of the scene's `live_dt` and its
//! recorded times are multiples of it. A [`Pacer`] bounds each frame's steps by processor
//! time ([`Pacing::LIVE`]): a scene whose steps cost more than the real time they cover slows
//! down, and [`LiveRun::slowdown`] says by how much, while the frame clock, the pointer and the
//! keys keep being served. Nothing here touches the session: the view draws the run and its
//! shell decides when a [`FinishedRun`] becomes text.

use crate::live::scene::{
    fit, rotation_name, LiveControls, LiveOptions, Recording, SceneAdvance, SpringLine,
};
use crate::live::{Module, Pacer, Pacing, Rate, TimeBank};
use crate::render::camera::{Camera, Viewport};
use crate::scene::Scene;
use crate::sim::physics::{Pullable, SceneMotion};
use nalgebra::{Point2, Point3, Vector3};
use std::time::Duration;

/// The force of an arrow key per kilogram of the pushed body, N/kg.
pub const PUSH_PER_KG: f64 = 10.0;

/// A screen direction of an arrow key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScreenDirection {
    Up,
    Down,
    Left,
    Right,
}

impl ScreenDirection {
    /// The direction of an arrow key named as X11 keysyms are (`Up`, `KP_Left`, …).
    pub fn of_key(name: &str) -> Option<ScreenDirection> {
        match name {
            "Up" | "KP_Up" => Some(ScreenDirection::Up),
            "Down" | "KP_Down" => Some(ScreenDirection::Down),
            "Left" | "KP_Left" => Some(ScreenDirection::Left),
            "Right" | "KP_Right" => Some(ScreenDirection::Right),
            _ => None,
        }
    }

    /// The world direction that appears as this one on the screen of `camera`.
    pub fn world(self, camera: &Camera) -> Vector3<f64> {
        let eye = match self {
            ScreenDirection::Up => Vector3::y(),
            ScreenDirection::Down => -Vector3::y(),
            ScreenDirection::Left => -Vector3::x(),
            ScreenDirection::Right => Vector3::x(),
        };
        camera.rotation.inverse() * eye
    }
}

/// Where a pulled body's target goes under the pointer: the plane through the grabbed point
/// facing the view direction of the moment it was grabbed, so the target stays at the grabbed
/// point's depth however the pointer moves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PullPlane {
    point: Point3<f64>,
    normal: Vector3<f64>,
}

impl PullPlane {
    /// The plane through `grabbed` (world) facing `camera`'s view direction.
    pub fn new(grabbed: Point3<f64>, camera: &Camera) -> PullPlane {
        PullPlane {
            point: grabbed,
            normal: camera.view_direction().into_inner(),
        }
    }

    /// The point of the plane under the pointer at `at` (pixels) on `camera`'s screen; `None`
    /// when the pointer's ray runs parallel to the plane.
    pub fn target(
        &self,
        camera: &Camera,
        viewport: &Viewport,
        at: Point2<f64>,
    ) -> Option<Point3<f64>> {
        let ray = camera.unproject(at, viewport);
        let facing = ray.direction.dot(&self.normal);
        if facing.abs() < 1e-9 {
            return None;
        }
        Some(ray.at((self.point - ray.origin).dot(&self.normal) / facing))
    }
}

/// The arrow keys held down.
#[derive(Clone, Debug, Default, PartialEq)]
struct HeldKeys(Vec<ScreenDirection>);

impl HeldKeys {
    fn set(&mut self, direction: ScreenDirection, held: bool) {
        self.0.retain(|d| *d != direction);
        if held {
            self.0.push(direction);
        }
    }

    /// The push of a body of `mass` for these keys on the screen of `camera`: `mass` ×
    /// [`PUSH_PER_KG`] along the sum of their directions (zero when they cancel or none is
    /// held).
    fn force(&self, mass: f64, camera: &Camera) -> Vector3<f64> {
        let sum: Vector3<f64> = self.0.iter().map(|d| d.world(camera)).sum();
        sum.try_normalize(1e-9)
            .map_or_else(Vector3::zeros, |d| d * mass * PUSH_PER_KG)
    }
}

/// A scene running live in a view.
pub struct LiveRun {
    advance: SceneAdvance,
    controls: LiveControls,
    pacer: Pacer,
    /// The frame clock's time (microseconds) of the previous frame; `None` before the first.
    last_frame: Option<i64>,
    /// The bodies grabbed in this run, in the order first grabbed.
    grabbed: Vec<usize>,
    /// The body grabbed last, which the arrow keys push.
    pushed: Option<usize>,
    held: HeldKeys,
    /// The scene's `simulator live_rate`: simulated seconds per real second.
    live_rate: f64,
}

impl LiveRun {
    /// Starts `scene` live at its start time: every body pullable, every moving body recorded,
    /// stepped by the scene's `simulator live_dt`.
    pub fn start(scene: &Scene) -> Result<LiveRun, String> {
        let dt = scene.simulator.live_dt;
        let dt = Duration::try_from_secs_f64(dt)
            .ok()
            .filter(|d| !d.is_zero())
            .ok_or_else(|| {
                format!("the simulator's live_dt must be a positive number, got {dt}")
            })?;
        let bank = TimeBank::new(dt, false).map_err(|e| e.to_string())?;
        let options = LiveOptions {
            pullable: Pullable::All,
            record: (0..scene.bodies.len())
                .filter(|&b| !scene.bodies[b].fixed)
                .collect(),
            ..LiveOptions::default()
        };
        let (advance, controls) = SceneAdvance::new(scene, &options).map_err(|e| e.to_string())?;
        Ok(LiveRun {
            advance,
            controls,
            pacer: Pacer::new(bank, Pacing::LIVE),
            last_frame: None,
            grabbed: Vec::new(),
            pushed: None,
            held: HeldKeys::default(),
            live_rate: scene.simulator.live_rate,
        })
    }

    /// Advances the scene by the real time since the previous frame (`frame_time`, the frame
    /// clock's microseconds) times the scene's `live_rate`, in whole steps within the frame's
    /// processor-time budget. Returns why the scene stopped, if a step failed.
    pub fn advance_to(&mut self, frame_time: i64) -> Result<(), String> {
        let elapsed = self.last_frame.map_or(Duration::ZERO, |last| {
            Duration::from_micros(u64::try_from(frame_time - last).unwrap_or(0))
        });
        let elapsed = elapsed.mul_f64(self.live_rate);
        self.last_frame = Some(frame_time);
        let (advance, controls) = (&mut self.advance, &self.controls);
        self.pacer.frame(elapsed, |dt| {
            advance.update(dt);
            controls.error().map_or(Ok(()), Err)
        })?;
        Ok(())
    }

    /// How fast the run went over the last second of real time (the pacer is paid real time
    /// times `live_rate`, so its ratio is of that pace).
    pub fn rate(&self) -> Rate {
        let mut rate = self.pacer.rate();
        rate.ratio *= self.live_rate;
        rate
    }

    /// "Live: running at 0.31× real time …" while the run cannot keep pace with real time.
    pub fn slowdown(&self) -> Option<String> {
        let rate = self.rate();
        rate.slowed
            .then(|| format!("Live: {rate}: each step takes longer than the real time it covers."))
    }

    /// The motion of every body and the time it has reached.
    pub fn states(&self) -> (SceneMotion, f64) {
        (self.controls.motion().clone(), self.controls.time())
    }

    /// Grabs body `body` by its point at `world`: its target starts there.
    pub fn grab(&mut self, body: usize, world: &Vector3<f64>) -> Result<(), String> {
        let state = self
            .controls
            .state(body)
            .ok_or_else(|| format!("there is no state of body number {body} now"))?;
        let center = self.controls.motion().bodies()[body].center;
        let local = state.rotation.inverse() * (world - state.position) + center;
        self.controls.grab(body, local).map_err(|e| e.to_string())?;
        if !self.grabbed.contains(&body) {
            self.grabbed.push(body);
        }
        if self.pushed != Some(body) {
            self.stop_pushing();
            self.pushed = Some(body);
        }
        Ok(())
    }

    /// Moves the grabbed point's target to `world`.
    pub fn move_target(&self, world: &Point3<f64>) -> Result<(), String> {
        self.controls
            .move_target(world.coords)
            .map_err(|e| e.to_string())
    }

    /// Lets go of the grabbed body.
    pub fn release(&self) {
        self.controls.release();
    }

    /// The pull spring, from the grabbed point to its target, while a body is grabbed.
    pub fn spring_line(&self) -> Option<SpringLine> {
        self.controls.spring_line()
    }

    /// An arrow key went down (`held`) or up: pushes the body grabbed last along the screen
    /// directions of the keys held on `camera`'s screen. Returns whether a body takes the
    /// push (none was grabbed yet otherwise).
    pub fn arrow_key(
        &mut self,
        direction: ScreenDirection,
        held: bool,
        camera: &Camera,
    ) -> Result<bool, String> {
        let Some(body) = self.pushed else {
            return Ok(false);
        };
        self.held.set(direction, held);
        let mass = self.controls.motion().bodies()[body].mass;
        self.controls
            .push(body, self.held.force(mass, camera))
            .map_err(|e| e.to_string())?;
        Ok(true)
    }

    fn stop_pushing(&mut self) {
        if let Some(body) = self.pushed {
            // The body was pushable when pushed, so stopping is not refused.
            let _ = self.controls.stop_push(body);
        }
        self.held = HeldKeys::default();
    }

    /// Ends the run, keeping what Keep as trajectory needs.
    pub fn finish(self) -> FinishedRun {
        FinishedRun {
            recording: self.controls.recording(),
            grabbed: self.grabbed,
        }
    }
}

/// The recording of a live run and the bodies grabbed in it.
#[derive(Clone, Debug)]
pub struct FinishedRun {
    recording: Recording,
    grabbed: Vec<usize>,
}

impl FinishedRun {
    /// `text` (of `scene`) with the `trajectory` commands of every grabbed body appended,
    /// driving that body along its recorded path, named `BODY_recorded` (with a number when
    /// the scene has that trajectory already), and through its recorded rotations,
    /// `BODY_recorded_rot`, when it turned. The run may be of an older text: a body that
    /// `scene` no longer has is an error.
    pub fn keep(&self, text: &str, scene: &Scene) -> Result<String, String> {
        if self.grabbed.is_empty() {
            return Err("No body was grabbed in the live run (the left button on a body grabs it): there is no trajectory to keep.".into());
        }
        let mut taken: Vec<String> = scene.trajectories.iter().map(|t| t.name.clone()).collect();
        let mut text = text.to_owned();
        for &body in &self.grabbed {
            let recorded = self
                .recording
                .bodies()
                .find(|(b, _)| *b == body)
                .map(|(_, name)| name)
                .filter(|name| scene.body(name).is_some())
                .ok_or_else(|| {
                    "Cannot keep the live run: a body it pulled is no longer in the scene."
                        .to_string()
                })?;
            let name = unused_name(&format!("{recorded}_recorded"), &taken);
            let command = self
                .recording
                .to_trajectory_with(body, &name, fit::DEFAULT_TOLERANCE)
                .map_err(|e| format!("Cannot keep the live run: {e}"))?;
            text = fit::append_command(&text, &command);
            taken.push(rotation_name(&name));
            taken.push(name);
        }
        Ok(text)
    }
}

/// `base`, or `base2`, `base3`, … : the first that is not in `taken`, nor is its rotation
/// trajectory's name.
fn unused_name(base: &str, taken: &[String]) -> String {
    let free = |name: &str| !taken.iter().any(|t| t == name);
    std::iter::once(base.to_owned())
        .chain((2..).map(|k| format!("{base}{k}")))
        .find(|name| free(name) && free(&rotation_name(name)))
        .expect("the names are endless")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::evaluate;
    use std::cell::Cell;
    use std::rc::Rc;

    const BALL: &str = "shape_set ball desc {sphere 0.5}
body b shape ball init_pos {0 0 0} mass 2
body floor shape ball init_pos {0 -3 0} fixed 1
";

    /// Frames 20 ms apart.
    fn run_frames(run: &mut LiveRun, frames: std::ops::Range<i64>) {
        for k in frames {
            run.advance_to(k * 20_000).unwrap();
        }
    }

    /// `run` timing its steps by a processor clock on which each step costs `cost`.
    fn priced(mut run: LiveRun, cost: &Rc<Cell<Duration>>) -> LiveRun {
        let dt = run.pacer.bank().dt();
        let (cost, mut spent) = (cost.clone(), Duration::ZERO);
        run.pacer = Pacer::new(TimeBank::new(dt, false).unwrap(), Pacing::LIVE)
            .with_processor_clock(move || {
                spent += cost.get();
                spent
            });
        run
    }

    #[test]
    fn frames_pay_whole_steps_and_a_long_gap_is_cut() {
        let scene = evaluate(BALL).unwrap();
        let cost = Rc::new(Cell::new(Duration::ZERO));
        let mut run = priced(LiveRun::start(&scene).unwrap(), &cost);
        run_frames(&mut run, 0..11);
        // Ten gaps of 20 ms with live_dt 0.01: twenty steps.
        assert_eq!(run.controls.updates(), 20);
        assert!((run.states().1 - 0.2).abs() < 1e-12);
        assert_eq!(run.slowdown(), None);
        // Five seconds pass (the window was hidden): steps of 1 ms each until the frame's
        // 10 ms budget is spent, then the run gives up all but 0.1 s of the rest.
        cost.set(Duration::from_millis(1));
        run.advance_to(10 * 20_000 + 5_000_000).unwrap();
        assert_eq!(run.controls.updates(), 30);
        assert_eq!(run.pacer.bank().balance(), Duration::from_millis(100));
        assert!(run.rate().slowed);
    }

    #[test]
    fn steps_dearer_than_real_time_slow_the_run_and_it_says_so() {
        let scene = evaluate(BALL).unwrap();
        // A 10 ms step costs 40 ms of processor time: one step a frame of 20 ms.
        let cost = Rc::new(Cell::new(Duration::from_millis(40)));
        let mut run = priced(LiveRun::start(&scene).unwrap(), &cost);
        run_frames(&mut run, 0..100);
        assert_eq!(run.controls.updates(), 99);
        let rate = run.rate();
        assert!(rate.slowed && (rate.ratio - 0.5).abs() < 1e-9, "{rate:?}");
        assert_eq!(
            run.slowdown().as_deref(),
            Some(
                "Live: running at 0.50× real time: each step takes longer than the real time \
                 it covers."
            )
        );
        // Cheap again: within a second the run keeps pace and says nothing.
        cost.set(Duration::ZERO);
        run_frames(&mut run, 100..160);
        assert_eq!(run.slowdown(), None);
    }

    #[test]
    fn a_grabbed_body_follows_its_target_and_is_kept_as_a_trajectory() {
        let scene = evaluate(BALL).unwrap();
        let mut run = LiveRun::start(&scene).unwrap();
        run_frames(&mut run, 0..2);
        // Grab the top of the ball and pull it one metre to the right.
        run.grab(0, &Vector3::new(0.0, 0.5, 0.0)).unwrap();
        run.move_target(&Point3::new(1.0, 0.5, 0.0)).unwrap();
        run_frames(&mut run, 2..60);
        let line = run.spring_line().unwrap();
        assert!((line.to - Vector3::new(1.0, 0.5, 0.0)).norm() < 1e-12);
        assert!((line.from - line.to).norm() < 0.05, "{line:?}");
        run.release();
        let finished = run.finish();
        let kept = finished.keep(BALL, &scene).unwrap();
        let again = evaluate(&kept).unwrap_or_else(|e| panic!("{e}\n{kept}"));
        // Pulled by its top, the ball also turned: its rotation is kept too.
        assert!(again.trajectory("b_recorded").is_some());
        assert!(again.trajectory("b_recorded_rot").is_some());
        assert!(kept.starts_with(BALL));
        assert!(kept.contains("body b var pos\ntrajectory b_recorded_rot points"));
        assert!(kept.ends_with("body b var rot\n"), "{kept}");
    }

    #[test]
    fn a_body_gone_from_the_text_is_not_kept() {
        let scene = evaluate(BALL).unwrap();
        let mut run = LiveRun::start(&scene).unwrap();
        run_frames(&mut run, 0..2);
        run.grab(0, &Vector3::zeros()).unwrap();
        run_frames(&mut run, 2..4);
        let other = "shape_set ball desc {sphere 0.5}\nbody c shape ball init_pos {0 0 0}\n";
        let error = run
            .finish()
            .keep(other, &evaluate(other).unwrap())
            .unwrap_err();
        assert!(error.contains("no longer in the scene"), "{error}");
    }

    #[test]
    fn nothing_grabbed_keeps_nothing() {
        let scene = evaluate(BALL).unwrap();
        let mut run = LiveRun::start(&scene).unwrap();
        run_frames(&mut run, 0..5);
        let error = run.finish().keep(BALL, &scene).unwrap_err();
        assert!(error.contains("No body was grabbed"), "{error}");
    }

    #[test]
    fn a_fixed_body_cannot_be_grabbed_and_arrows_need_a_grab() {
        let scene = evaluate(BALL).unwrap();
        let mut run = LiveRun::start(&scene).unwrap();
        let camera = Camera::default();
        assert_eq!(run.arrow_key(ScreenDirection::Up, true, &camera), Ok(false));
        let error = run.grab(1, &Vector3::new(0.0, -3.0, 0.0)).unwrap_err();
        assert!(error.contains("floor"), "{error}");
    }

    #[test]
    fn arrow_keys_push_the_grabbed_body_along_the_screen() {
        let scene = evaluate(BALL).unwrap();
        let mut run = LiveRun::start(&scene).unwrap();
        run_frames(&mut run, 0..2);
        run.grab(0, &Vector3::zeros()).unwrap();
        run.release();
        // The default camera looks down −z: Right is +x. 10 N/kg for 0.5 s from rest gives
        // 5 m/s.
        let camera = Camera::default();
        assert_eq!(
            run.arrow_key(ScreenDirection::Right, true, &camera),
            Ok(true)
        );
        run_frames(&mut run, 2..27);
        assert_eq!(
            run.arrow_key(ScreenDirection::Right, false, &camera),
            Ok(true)
        );
        run_frames(&mut run, 27..30);
        let (motion, time) = run.states();
        let velocity = motion.state(0, time).unwrap().velocity;
        assert!(
            (velocity - Vector3::new(5.0, 0.0, 0.0)).norm() < 0.25,
            "{velocity}"
        );
    }

    #[test]
    fn held_keys_push_with_the_mass_times_ten_along_their_sum() {
        let camera = Camera::default();
        let mut keys = HeldKeys::default();
        assert_eq!(keys.force(3.0, &camera), Vector3::zeros());
        keys.set(ScreenDirection::Up, true);
        keys.set(ScreenDirection::Up, true);
        assert!((keys.force(3.0, &camera) - Vector3::new(0.0, 30.0, 0.0)).norm() < 1e-12);
        keys.set(ScreenDirection::Left, true);
        let diagonal = keys.force(3.0, &camera);
        assert!((diagonal.norm() - 30.0).abs() < 1e-9);
        assert!(diagonal.x < 0.0 && diagonal.y > 0.0);
        keys.set(ScreenDirection::Down, true);
        keys.set(ScreenDirection::Left, false);
        assert_eq!(keys.force(3.0, &camera), Vector3::zeros());
    }

    #[test]
    fn the_pull_target_stays_at_the_grabbed_depth_under_the_pointer() {
        let camera = Camera::default();
        let viewport = Viewport::new(400.0, 300.0);
        let grabbed = Point3::new(0.5, 0.2, -0.3);
        let plane = PullPlane::new(grabbed, &camera);
        let seen = camera.project(&grabbed, &viewport).unwrap();
        let same = plane
            .target(&camera, &viewport, Point2::new(seen.x, seen.y))
            .unwrap();
        assert!((same - grabbed).norm() < 1e-9, "{same}");
        let right = plane
            .target(&camera, &viewport, Point2::new(seen.x + 50.0, seen.y))
            .unwrap();
        let moved = right - grabbed;
        assert!(moved.x > 0.0, "{moved}");
        assert!(moved.dot(&camera.view_direction()).abs() < 1e-9, "{moved}");
    }

    #[test]
    fn names_are_numbered_past_those_taken() {
        let taken = vec![
            "a_recorded".to_owned(),
            "a_recorded2".to_owned(),
            "a_recorded3_rot".to_owned(),
        ];
        assert_eq!(unused_name("a_recorded", &taken), "a_recorded4");
        assert_eq!(unused_name("b_recorded", &taken), "b_recorded");
    }
}
