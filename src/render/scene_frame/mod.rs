//! Pictures of a scene: the glue from the scene model and its motion to a [`Frame`].
//!
//! [`SceneFrames::new`] builds, once per evaluated scene, a mesh for every shape part (keyed by
//! its geometry, so a renderer uploads each once — see [`meshes`]) and each body's parts with
//! their colours: the body's `color`, else the part's, else a colour of the default palette.
//! [`SceneFrames::frame`] then describes the scene at any time from the bodies' states (any
//! [`BodyStates`]: the simulator's motion, or the initial values), with the editing aids the
//! [`FrameOptions`] ask for:
//!
//! - links as lines between their end points (4.1.6);
//! - velocity and angular velocity vectors of the bodies, and force and torque vectors at their
//!   points of application, as arrows — forces given by expressions show their value at that
//!   time (4.1.5);
//! - trajectories as curves through their Bézier pieces, with their control points (4.1.4);
//! - handles of the kinds asked for, in the initial state (`scene::handles`);
//! - the scene's lights, colour times intensity, moving along their trajectories (4.1.8; no
//!   lights means the renderer's default light into the screen);
//! - the camera from the scene's `camera` element, which may follow expressions or
//!   trajectories, or the default view fitted to the bodies (4.1.7): to the bodies other than
//!   the floor, with room around a lone body (see [`SceneFrames::bounds`]);
//! - a ground under the bodies with its grid, unless the scene has a floor of its own (a fixed
//!   slab under every other body), which then receives the shadows itself.

pub mod meshes;
mod motion;
mod options;
pub mod palette;
mod stage;
mod values;
mod view;

pub use meshes::{PartMeshError, ShapeMeshes};
pub use motion::SampledMotion;
pub use options::{CameraChoice, FrameOptions};
pub use stage::Stage;
pub use view::ViewSettings;

use crate::render::camera::{Bounds, Viewport};
use crate::render::export::gltf;
use crate::render::frame::{
    Arrow, Frame, Handle as FrameHandle, Light, Line, Object, Polyline, Rgba,
};
use crate::render::mesh::{MeshKey, MeshLibrary};
use crate::scene::handles::{handles, Handle, HandleKind, HandleScales};
use crate::scene::model::{ForceKind, ForceValue, LightKind, LinkTarget, Scene, Vec3};
use crate::scene::shapes::{SceneShapes, ShapeError};
use crate::scene::state::BodyStates;
use crate::scene::Target;
use nalgebra::{Isometry3, Point3, Unit, Vector3};
use std::fmt;
use std::sync::OnceLock;
use values::Values;

/// The times of a movie from `from` to `to` at `fps` frames per second: `from`, then every
/// `1 / fps`, up to and including `to` when it falls on a frame.
pub fn frame_times(from: f64, to: f64, fps: f64) -> Vec<f64> {
    if !(fps > 0.0 && from.is_finite() && to.is_finite() && to >= from) {
        return Vec::new();
    }
    let count = ((to - from) * fps + 1e-9).floor() as usize + 1;
    (0..count).map(|k| from + k as f64 / fps).collect()
}

/// Times sampled over a span of motion to find where the bodies go (see
/// [`SceneFrames::stage`]).
pub const STAGE_SAMPLES: f64 = 24.0;

/// Points drawn per Bézier segment of a trajectory curve.
const CURVE_SAMPLES: usize = 24;

/// Why a scene cannot be drawn: a shape whose geometry or mesh cannot be built.
#[derive(Debug, Clone, PartialEq)]
pub enum SceneFrameError {
    Shape(ShapeError),
    Mesh(PartMeshError),
}

impl fmt::Display for SceneFrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SceneFrameError::Shape(e) => e.fmt(f),
            SceneFrameError::Mesh(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for SceneFrameError {}

/// One part of a body as drawn: its mesh, where it sits relative to the centre of mass, and
/// its colour.
#[derive(Debug, Clone, PartialEq)]
struct BodyPart {
    mesh: MeshKey,
    offset: Vector3<f64>,
    colour: Rgba,
}

/// What is needed to draw one evaluated scene at any time.
///
/// Built for one [`Scene`]; every method that takes a scene must be given that same scene.
#[derive(Debug, Clone)]
pub struct SceneFrames {
    shapes: SceneShapes,
    meshes: ShapeMeshes,
    /// Per body, its parts.
    bodies: Vec<Vec<BodyPart>>,
    /// The body that is the scene's floor, if it has one: no ground is added under it, and
    /// views are fitted to the other bodies.
    floor: Option<usize>,
    /// Every handle of the scene at the scales of the first picture that showed handles:
    /// they depend on the scene alone, not on the time, so they are found once, not at every
    /// frame.
    handles: OnceLock<(HandleScales, Vec<Handle>)>,
}

impl SceneFrames {
    pub fn new(scene: &Scene) -> Result<SceneFrames, SceneFrameError> {
        let shapes = SceneShapes::new(scene).map_err(SceneFrameError::Shape)?;
        let meshes = ShapeMeshes::new(scene, &shapes).map_err(SceneFrameError::Mesh)?;
        let bodies = scene
            .bodies
            .iter()
            .enumerate()
            .map(|(b, body)| {
                let Some(index) = shapes.shape_index_of(b) else {
                    return Vec::new();
                };
                let (set, shape) = (&scene.shapes[index], shapes.shape(index).expect("built"));
                let fallback = palette::BODIES[b % palette::BODIES.len()];
                set.parts
                    .iter()
                    .zip(meshes.part_keys(index))
                    .enumerate()
                    .map(|(p, (part, &mesh))| BodyPart {
                        mesh,
                        offset: shape
                            .part_offset(p)
                            .expect("one piece per part")
                            .translation
                            .vector,
                        colour: body
                            .color
                            .as_ref()
                            .map(|c| c.value)
                            .or(part.color)
                            .map_or(fallback, palette::rgba),
                    })
                    .collect()
            })
            .collect();
        let floor = shapes.floor(scene);
        Ok(SceneFrames {
            shapes,
            meshes,
            bodies,
            floor,
            handles: OnceLock::new(),
        })
    }

    /// Whether the scene has a floor of its own ([`SceneShapes::floor`]). Pictures then add
    /// no ground.
    pub fn has_floor(&self) -> bool {
        self.floor.is_some()
    }

    /// Every mesh the frames use, for uploading to a renderer and for the exporters.
    pub fn meshes(&self) -> &MeshLibrary {
        self.meshes.library()
    }

    /// The shapes centred on their centres of mass, for picking.
    pub fn shapes(&self) -> &SceneShapes {
        &self.shapes
    }

    /// The box around every body posed by `states` at each of `times`, the floor's aside
    /// when there are others (it reaches far beyond where anything happens, and a view fitted
    /// to it showed the bodies on it a few pixels wide), with [`ROOM`] around a lone body;
    /// `None` with no bodies.
    pub fn bounds(
        &self,
        scene: &Scene,
        states: &dyn BodyStates,
        times: impl IntoIterator<Item = f64>,
    ) -> Option<Bounds> {
        Some(self.with_room(scene, self.reach(scene, states, times)?))
    }

    /// [`SceneFrames::bounds`] without the room around a lone body: the box around the
    /// framed bodies' shapes, so that boxes over different times join into the box over
    /// all of them ([`Stage`] grows it as the motion is computed).
    fn reach(
        &self,
        scene: &Scene,
        states: &dyn BodyStates,
        times: impl IntoIterator<Item = f64>,
    ) -> Option<Bounds> {
        let framed = self.shapes.framed_bodies(scene);
        let mut corners = Vec::new();
        for time in times {
            let values = Values {
                scene,
                shapes: &self.shapes,
                states,
                time,
            };
            for &body in &framed {
                let (Some(shape), Some(state)) =
                    (self.shapes.of_body(body), values.body_state(body))
                else {
                    continue;
                };
                let aabb = shape.shape.aabb(&state.pose());
                corners.push(Point3::from(aabb.min));
                corners.push(Point3::from(aabb.max));
            }
        }
        Bounds::around(corners)
    }

    /// `reach` (a box from [`SceneFrames::reach`]) with [`ROOM`] around a lone body.
    fn with_room(&self, scene: &Scene, reach: Bounds) -> Bounds {
        let framed = self.shapes.framed_bodies(scene);
        match framed.as_slice() {
            [body] => {
                let radius = self.shapes.of_body(*body).map_or(0.0, |shape| {
                    shape.shape.bounding_sphere(&Isometry3::identity()).radius
                });
                with_room(reach, ROOM * radius)
            }
            _ => reach,
        }
    }

    /// Where the bodies go from `from` to `until`: their bounds at [`STAGE_SAMPLES`] times
    /// spread over that span (and at `from` alone when it is empty); `None` with no bodies.
    /// Pictures of that span put the ground under it ([`FrameOptions::stage`]), and a view
    /// fitted to it keeps every body in sight.
    pub fn stage(
        &self,
        scene: &Scene,
        states: &dyn BodyStates,
        from: f64,
        until: f64,
    ) -> Option<Bounds> {
        let rate = STAGE_SAMPLES / (until - from).max(1e-9);
        self.bounds(scene, states, frame_times(from, until.max(from), rate))
    }

    /// The scene at `time`, with bodies posed by `states` (bodies whose state `states` does
    /// not know are drawn in their initial state), seen in a picture of `viewport`'s size.
    /// Without a camera element the view is fitted to the bodies and the editing aids shown.
    pub fn frame(
        &self,
        scene: &Scene,
        states: &dyn BodyStates,
        time: f64,
        options: &FrameOptions,
        viewport: &Viewport,
    ) -> Frame {
        let values = Values {
            scene,
            shapes: &self.shapes,
            states,
            time,
        };
        let mut frame = Frame {
            objects: self.objects(&values, options),
            background: options.background,
            wireframe: options.wireframe,
            lights: lights(&values),
            looks: options.looks,
            ..Frame::default()
        };
        if options.links {
            frame.lines = links(&values);
        }
        if options.vectors {
            frame.arrows = arrows(&values, options);
        }
        if options.trajectories {
            frame.polylines = trajectories(scene);
        }
        let mut framed_handles = Vec::new();
        if !options.handles.is_empty() {
            // The camera's handles are joined by a line: where it stands to what it sees.
            let mut camera = (None, None);
            for (handle, kind, framed) in self.handles(scene, options) {
                match kind {
                    HandleKind::CameraPosition => camera.0 = Some(handle.position),
                    HandleKind::CameraTarget => camera.1 = Some(handle.position),
                    _ => {}
                }
                if framed {
                    framed_handles.push(handle.position);
                }
                frame.handles.push(handle);
            }
            if let (Some(from), Some(to)) = camera {
                frame.lines.push(Line {
                    from,
                    to,
                    colour: palette::CAMERA,
                });
            }
        }
        let fitted = match &options.camera {
            CameraChoice::Fit(bounds) => Some(*bounds),
            _ => None,
        };
        let needs_bodies =
            options.looks.ground && self.floor.is_none() && options.stage.or(fitted).is_none()
                || matches!(options.camera, CameraChoice::Scene);
        let bodies = needs_bodies.then(|| self.bounds_or_unit(scene, states, time));
        if options.looks.ground && self.floor.is_none() {
            if let Some(stage) = options.stage.or(fitted).or(bodies) {
                frame.ground = Some(view::ground(
                    &stage,
                    stage.min.y,
                    palette::GROUND,
                    palette::GRID,
                ));
            }
        }
        frame.camera = match &options.camera {
            CameraChoice::Given(camera) => *camera,
            CameraChoice::Fit(bounds) => view::fitted(bounds, viewport),
            CameraChoice::Scene => {
                let bodies = bodies.expect("computed for the scene's camera");
                scene
                    .camera
                    .as_ref()
                    .and_then(|camera| view::scene_camera(camera, &values))
                    .unwrap_or_else(|| {
                        let drawn = drawn_bounds(&frame, &framed_handles, bodies);
                        view::fitted(&drawn, viewport)
                    })
            }
        };
        frame
    }

    /// The view for a movie of `times`: the scene's camera when it has one (it may move), else
    /// the default view fitted once to the bodies over all the times, so it stays still.
    pub fn movie_camera(
        &self,
        scene: &Scene,
        states: &dyn BodyStates,
        times: &[f64],
    ) -> CameraChoice {
        match (
            &scene.camera,
            self.bounds(scene, states, times.iter().copied()),
        ) {
            (None, Some(bounds)) => CameraChoice::Fit(bounds),
            _ => CameraChoice::Scene,
        }
    }

    /// The bodies' bounds at `time`, or a unit box at the origin when there are none.
    fn bounds_or_unit(&self, scene: &Scene, states: &dyn BodyStates, time: f64) -> Bounds {
        self.bounds(scene, states, [time]).unwrap_or(Bounds {
            min: Point3::new(-1.0, -1.0, -1.0),
            max: Point3::new(1.0, 1.0, 1.0),
        })
    }

    /// Each of the scene's links at `time` as a line between its ends (`None` when an end
    /// is not known then), in the scene's order: a web page's player keeps each link in
    /// its own place over time, where [`Frame::lines`] holds only the links drawn.
    pub fn link_lines(
        &self,
        scene: &Scene,
        states: &dyn BodyStates,
        time: f64,
    ) -> Vec<Option<Line>> {
        let values = Values {
            scene,
            shapes: &self.shapes,
            states,
            time,
        };
        link_lines(&values).collect()
    }

    /// The bodies for glTF export: their parts and initial poses.
    pub fn gltf_bodies(&self, scene: &Scene) -> Vec<gltf::Body> {
        scene
            .bodies
            .iter()
            .zip(&self.bodies)
            .map(|(body, parts)| gltf::Body {
                name: body.name.clone(),
                parts: parts
                    .iter()
                    .map(|part| gltf::Part {
                        mesh: part.mesh,
                        offset: part.offset,
                        colour: part.colour,
                    })
                    .collect(),
                pose: crate::scene::state::BodyState::initial(body).pose(),
            })
            .collect()
    }

    fn objects(&self, values: &Values, options: &FrameOptions) -> Vec<Object> {
        let mut objects = Vec::with_capacity(self.bodies.iter().map(Vec::len).sum());
        for (b, parts) in self.bodies.iter().enumerate() {
            let Some(state) = values.body_state(b) else {
                continue;
            };
            let pose = state.pose();
            let selected = options.selected_bodies.contains(&b);
            let hovered = options.hovered_body == Some(b);
            objects.extend(parts.iter().map(|part| Object {
                mesh: part.mesh,
                pose,
                offset: part.offset,
                colour: part.colour,
                selected,
                hovered,
            }));
        }
        objects
    }

    /// The handles `options` shows, each with its kind and whether a fitted view should take
    /// it in (the floor's are left to the floor, which a fitted view leaves out too, and the
    /// camera's to the camera: a fitted view is for the bodies).
    fn handles(
        &self,
        scene: &Scene,
        options: &FrameOptions,
    ) -> Vec<(FrameHandle, HandleKind, bool)> {
        let found;
        let all = match self.handles.get_or_init(|| {
            (
                options.scales,
                handles(scene, &self.shapes, &options.scales),
            )
        }) {
            (scales, all) if *scales == options.scales => all,
            _ => {
                found = handles(scene, &self.shapes, &options.scales);
                &found
            }
        };
        all.iter()
            .enumerate()
            .filter(|(_, h)| options.shows_handles(h.kind))
            .map(|(i, h)| {
                let handle = FrameHandle {
                    position: Point3::from(h.position),
                    colour: palette::handle(h.kind),
                    highlighted: options.highlighted_handle == Some(i),
                };
                let on_floor = matches!(
                    h.target,
                    Target::BodyInit { body, .. } if Some(body) == self.floor
                );
                (handle, h.kind, !on_floor && !h.kind.is_camera())
            })
            .collect()
    }
}

/// The least radius of [`SceneFrames::bounds`] of a lone body, in radii of the body: it
/// fills a fifth of a fitted view rather than all of it, with room around it to move.
const ROOM: f64 = 5.0;

/// `bounds` grown about its centre to a radius of at least `radius`.
fn with_room(bounds: Bounds, radius: f64) -> Bounds {
    let has = bounds.radius();
    if has >= radius {
        return bounds;
    }
    let centre = bounds.centre();
    let half = if has > 0.0 {
        (bounds.max - centre) * (radius / has)
    } else {
        Vector3::repeat(radius / 3f64.sqrt())
    };
    Bounds {
        min: centre - half,
        max: centre + half,
    }
}

/// `bodies` grown to hold the editing aids of `frame` (links, vectors, the `handles` at these
/// positions and trajectories), so that a fitted view shows them too.
fn drawn_bounds(frame: &Frame, handles: &[Point3<f64>], bodies: Bounds) -> Bounds {
    let aids = frame
        .lines
        .iter()
        .flat_map(|l| [l.from, l.to])
        .chain(
            frame
                .arrows
                .iter()
                .flat_map(|a| [a.origin, a.origin + a.vector]),
        )
        .chain(handles.iter().copied())
        .chain(
            frame
                .polylines
                .iter()
                .flat_map(|p| p.points.iter().copied()),
        );
    Bounds::around(aids.chain([bodies.min, bodies.max])).unwrap_or(bodies)
}

/// The scene's lights at the time of `values`: colour times intensity; a light on a
/// trajectory is where the trajectory is.
fn lights(values: &Values) -> Vec<Light> {
    values
        .scene
        .lights
        .iter()
        .filter_map(|light| {
            let intensity = light.intensity as f32;
            let colour = [light.color.r, light.color.g, light.color.b].map(|c| c * intensity);
            match light.kind {
                LightKind::Point => {
                    let position = light
                        .trajectory
                        .as_deref()
                        .and_then(|name| values.trajectory(name))
                        .unwrap_or(light.pos.value);
                    Some(Light::Point {
                        position: Point3::from(position),
                        colour,
                    })
                }
                LightKind::Directional => Some(Light::Directional {
                    direction: Unit::try_new(light.dir.value, 0.0)?,
                    colour,
                }),
            }
        })
        .collect()
}

/// Every link whose two ends are known at this time, as a line between them.
fn links(values: &Values) -> Vec<Line> {
    link_lines(values).flatten().collect()
}

/// Each link of the scene as a line between its ends, or `None` when an end is not known at
/// this time.
fn link_lines<'a>(values: &'a Values) -> impl Iterator<Item = Option<Line>> + 'a {
    values.scene.links.iter().map(|link| {
        let from = values
            .named_state(&link.body1)?
            .to_world(&link.offset1.value);
        let to = match &link.target {
            LinkTarget::Body { body2, offset2 } => {
                values.named_state(body2)?.to_world(&offset2.value)
            }
            LinkTarget::Point(point) => values.vector(point)?,
            LinkTarget::Trajectory(name) => values.trajectory(name)?,
        };
        Some(Line {
            from: Point3::from(from),
            to: Point3::from(to),
            colour: palette::LINK,
        })
    })
}

/// Velocity and angular velocity arrows from every moving body's centre of mass, and force and
/// torque arrows from their points of application, at this time.
fn arrows(values: &Values, options: &FrameOptions) -> Vec<Arrow> {
    let scene = values.scene;
    let scales = &options.scales;
    let mut arrows = Vec::new();
    let mut push = |origin: Vec3, vector: Vec3, colour| {
        if vector.norm() > 0.0 {
            arrows.push(Arrow {
                origin: Point3::from(origin),
                vector,
                colour,
            });
        }
    };
    for (b, body) in scene.bodies.iter().enumerate() {
        let Some(state) = values.body_state(b).filter(|_| !body.fixed) else {
            continue;
        };
        push(
            state.position,
            state.velocity * scales.velocity,
            palette::VELOCITY,
        );
        push(
            state.position,
            state.angular_velocity * scales.angular_velocity,
            palette::ANGULAR_VELOCITY,
        );
    }
    for force in &scene.forces {
        let Some(state) = values.named_state(&force.body) else {
            continue;
        };
        let vector = match &force.value {
            ForceValue::Components(v) => values.vector(v),
            ForceValue::Gravity(g) => values.mass(&force.body).map(|mass| g.value * mass),
            ForceValue::Trajectory(name) => values.trajectory(name),
        };
        let Some(vector) = vector else {
            continue;
        };
        let (scale, colour) = match force.kind {
            ForceKind::Force => (scales.force, palette::FORCE),
            ForceKind::Torque => (scales.torque, palette::TORQUE),
        };
        push(state.to_world(&force.offset.value), vector * scale, colour);
    }
    arrows
}

/// Every piece of every trajectory as a curve sampled along its Bézier segments, with its
/// control points.
fn trajectories(scene: &Scene) -> Vec<Polyline> {
    let pieces = scene.trajectories.iter().flat_map(|t| &t.pieces);
    pieces
        .map(|piece| {
            let mut points: Vec<Point3<f64>> = piece
                .points
                .first()
                .map(|p| Point3::from(p.pos))
                .into_iter()
                .collect();
            for segment in piece.segments() {
                points.extend((1..=CURVE_SAMPLES).map(|k| {
                    let t =
                        segment.t0 + (segment.t1 - segment.t0) * k as f64 / CURVE_SAMPLES as f64;
                    Point3::from(segment.position(t))
                }));
            }
            Polyline {
                points,
                colour: palette::TRAJECTORY,
                control_points: piece.points.iter().map(|p| Point3::from(p.pos)).collect(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
