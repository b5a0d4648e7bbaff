//! The renderer's work on the CPU for one frame: every mesh instance to draw, grouped into
//! batches of one mesh each, and the line vertices.
//!
//! Bodies are sorted near to far and cut into a few depth slabs, each drawn mesh by mesh, so
//! that hidden fragments fail the depth test before they are shaded (on a software
//! rasteriser that is most of a crowded picture's cost), while a slab still draws each mesh
//! with one instanced call. Solid balls are impostors ([`MeshRef::Ball`]): two triangles
//! each, the sphere found per pixel. Other spheres (shadow casters, outlines, markers, a
//! ball reaching behind the eye) are drawn with the renderer's own sphere of a detail fitted
//! to their size on the screen: a ball a few pixels across takes a few dozen triangles, one
//! filling the picture a few thousand, and every silhouette stays within a third of a pixel
//! of the true circle.

use super::changes::Region;
use super::cull::{footprint, DepthTiles, Footprint};
use super::gpu::{point_f32, Instance, LineVertex};
use crate::render::camera::{Camera, Viewport};
use crate::render::frame::{Frame, Object, Rgba};
use crate::render::mesh::MeshKey;
use nalgebra::{Isometry3, Matrix4, Point3, Translation3, UnitQuaternion, Vector3};
use std::ops::Range;

/// How far a highlighted handle's colour moves towards white, and how much it grows.
const HIGHLIGHT_BRIGHTEN: f32 = 0.5;
pub(super) const HIGHLIGHT_GROWTH: f64 = 1.5;
/// Arrowhead length on the screen, in pixels (at most half the arrow).
pub(super) const ARROWHEAD_PIXELS: f64 = 14.0;
/// Radius of trajectory control-point markers, in pixels.
pub(super) const MARKER_PIXELS: f64 = 3.5;
/// Level of detail of the sphere used for trajectory markers: the coarsest, since they are a
/// few pixels across.
pub(super) const MARKER_SPHERE_LEVEL: u32 = 0;
/// The renderer's sphere levels (8 × 2ⁿ segments around) go up to this.
pub(super) const MAX_SPHERE_LEVEL: u32 = 4;
/// How far (pixels) a sphere's outline may fall inside the true circle.
const SPHERE_TOLERANCE_PIXELS: f64 = 0.35;
/// How far (shadow-map texels) a sphere's outline may fall inside the true circle in the
/// shadow map, whose lookups blur over a texel anyway.
const SHADOW_TOLERANCE_TEXELS: f64 = 1.0;
/// How far the aids' meshes reach from their origin, in units of their scale: the unit
/// sphere 1, the arrowhead's cone 1.06, a handle's square √2 grown by a pixel (up to twice
/// for a handle a pixel across).
const AID_REACH: f64 = 3.0;
/// Bodies per depth slab at least; a frame has at most `MAX_SLABS`.
const SLAB_SIZE: usize = 256;
const MAX_SLABS: usize = 8;

/// A selected body: its rim and outline colour, the rim's strength and how far (pixels) the
/// outline reaches out from its corners (straight edges move a little less).
pub(super) const SELECTED: Highlight = Highlight {
    colour: [1.0, 0.62, 0.08],
    rim: 0.9,
    outline_pixels: 4.0,
};
/// The body under the pointer.
pub(super) const HOVERED: Highlight = Highlight {
    colour: [0.45, 0.78, 1.0],
    rim: 0.7,
    outline_pixels: 3.0,
};

/// How a highlighted body is marked.
pub(super) struct Highlight {
    pub colour: [f32; 3],
    pub rim: f32,
    pub outline_pixels: f64,
}

impl Highlight {
    fn of(object: &Object) -> Option<&'static Highlight> {
        if object.selected {
            Some(&SELECTED)
        } else if object.hovered {
            Some(&HOVERED)
        } else {
            None
        }
    }
}

/// A mesh to draw: one of the scene's, or one of the renderer's own.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub(super) enum MeshRef {
    Scene(MeshKey),
    /// The unit sphere of a level of detail.
    Sphere(u32),
    /// A solid ball, drawn by the ball program as an impostor on the `Disc` square: exact
    /// outline and shading whatever its size, with two triangles.
    Ball,
    /// A square from −1 to 1 in x and y: handles are drawn as discs on it.
    Disc,
    Arrowhead,
    /// The gizmo's axis shafts.
    Shaft,
}

/// A run of instances in the frame's instance list that share one mesh.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Batch {
    pub mesh: MeshRef,
    pub first: usize,
    pub count: usize,
}

/// What the renderer knows of a scene mesh when it places instances.
#[derive(Clone, Copy)]
pub(super) struct MeshInfo {
    /// Distance from the mesh origin to its farthest vertex.
    pub radius: f64,
    /// The radius when the mesh is a sphere.
    pub sphere: Option<f64>,
}

/// The view of one frame: world points relative to the frame's origin (the camera's centre,
/// so single precision stays exact near what is looked at), eye depths, and screen sizes in
/// pixels as world lengths.
pub(super) struct Eye<'a> {
    pub camera: &'a Camera,
    /// The world point instances and lines are given relative to.
    pub origin: Point3<f64>,
    /// World (relative to `origin`) to eye.
    pub view: Matrix4<f64>,
    /// Eye units per pixel at unit depth.
    pub per_pixel: f64,
}

impl<'a> Eye<'a> {
    pub fn new(camera: &'a Camera, viewport: &Viewport) -> Self {
        let per_pixel = 2.0 * (camera.fov_y / 2.0).tan() / viewport.height.max(1.0);
        let origin = camera.centre;
        Eye {
            camera,
            origin,
            view: camera.view_matrix() * Translation3::from(origin.coords).to_homogeneous(),
            per_pixel,
        }
    }

    /// `model` (world placement) relative to the origin, in single precision.
    pub fn model(&self, model: &Matrix4<f64>) -> [f32; 16] {
        let relative = Translation3::from(-self.origin.coords).to_homogeneous() * model;
        std::array::from_fn(|i| relative.as_slice()[i] as f32)
    }

    fn instance(&self, model: &Matrix4<f64>, colour: Rgba) -> Instance {
        Instance {
            model: self.model(model),
            colour,
            highlight: [0.0; 4],
        }
    }

    /// A world point relative to the origin.
    pub fn point(&self, p: &Point3<f64>) -> [f32; 3] {
        point_f32(&Point3::from(p - self.origin))
    }

    /// How far in front of the eye `p` is.
    pub fn depth(&self, p: &Point3<f64>) -> f64 {
        -self.camera.to_eye(p).z
    }

    /// The world length that `pixels` covers at `p`.
    pub fn world_length(&self, p: &Point3<f64>, pixels: f64) -> f64 {
        let depth = self.depth(p).max(1e-9);
        pixels * depth * self.per_pixel / self.camera.scale
    }
}

/// The sphere level whose outline stays within [`SPHERE_TOLERANCE_PIXELS`] of a circle of
/// `pixels` radius.
pub(super) fn sphere_level(pixels: f64) -> u32 {
    (0..MAX_SPHERE_LEVEL)
        .find(|&level| {
            let segments = f64::from(8u32 << level);
            pixels * (1.0 - (std::f64::consts::PI / segments).cos()) <= SPHERE_TOLERANCE_PIXELS
        })
        .unwrap_or(MAX_SPHERE_LEVEL)
}

/// A body's instance on its way into a batch.
#[derive(Clone, Copy)]
pub(super) struct Keyed {
    /// Eye depth of its centre.
    depth: f64,
    mesh: MeshRef,
    instance: Instance,
    /// Its index in the frame's objects.
    object: usize,
}

/// How a view's bodies are culled (see [`super::cull`]).
pub(super) struct Culling<'a> {
    /// World (relative to the frame's origin) to eye.
    pub view: &'a Matrix4<f64>,
    pub projection: &'a Matrix4<f64>,
    pub size: (u32, u32),
    /// Per body, whether the view showed it last time: those are drawn first.
    pub shown: &'a [bool],
}

/// A frame drawn again only in a region of the picture (see [`super::changes`]): the bodies
/// whose bounding spheres reach into it.
pub(super) struct Partial<'a> {
    /// World (relative to the frame's origin) to eye.
    pub view: &'a Matrix4<f64>,
    pub projection: &'a Matrix4<f64>,
    pub size: (u32, u32),
    pub region: Region,
}

impl Partial<'_> {
    /// Whether an aid's instance (a marker, arrowhead or handle: its mesh within
    /// [`AID_REACH`] of its origin, times its scale) may cover the region.
    fn meets(&self, instance: &Instance) -> bool {
        let m = instance.model.map(f64::from);
        let centre = Point3::new(m[12], m[13], m[14]);
        let scale = Vector3::new(m[0], m[1], m[2]).norm();
        let reach = footprint(
            self.view,
            self.projection,
            self.size,
            &centre,
            scale * AID_REACH,
        );
        self.region.meets(&reach)
    }
}

/// The bodies of a culled view that wait for the first pass's depth.
#[derive(Default)]
pub(super) struct Culled {
    /// The bodies the view did not show last time and that lie on the picture, near to far.
    late: Vec<Keyed>,
    /// Each body's footprint.
    footprints: Vec<Footprint>,
    /// The late bodies found not hidden, their batches, and which bodies they are.
    pub instances: Vec<Instance>,
    pub list: Vec<Batch>,
    drawn: Vec<usize>,
}

impl Culled {
    /// Whether the view is culled (its bodies have footprints).
    pub fn active(&self) -> bool {
        !self.footprints.is_empty()
    }

    /// How many bodies the view has.
    pub fn bodies(&self) -> usize {
        self.footprints.len()
    }

    fn clear(&mut self) {
        self.late.clear();
        self.footprints.clear();
        self.instances.clear();
        self.list.clear();
        self.drawn.clear();
    }

    /// The bodies' `footprints` (one per body) kept, and the bodies of `keyed` (near to far)
    /// the view did not show moved to the late ones, unless off the picture.
    fn split(
        &mut self,
        culling: &Culling,
        footprints: impl Iterator<Item = Footprint>,
        keyed: &mut Vec<Keyed>,
    ) {
        self.footprints.extend(footprints);
        let (footprints, late) = (&self.footprints, &mut self.late);
        keyed.retain(|k| {
            let shown = culling.shown.get(k.object).copied().unwrap_or(false);
            if !shown && footprints[k.object] != Footprint::Off {
                late.push(*k);
            }
            shown
        });
    }

    /// The late bodies that `tiles` (the depth drawn so far) does not hide, into `instances`
    /// and `list`.
    pub fn fill(&mut self, tiles: &DepthTiles, scratch: &mut Vec<Keyed>) {
        scratch.clear();
        let footprints = &self.footprints;
        scratch.extend(
            self.late
                .iter()
                .filter(|k| !tiles.hides(&footprints[k.object])),
        );
        self.drawn.clear();
        self.drawn.extend(scratch.iter().map(|k| k.object));
        push_slabs(scratch, &mut self.list, &mut self.instances);
    }

    /// `shown` (a body count long) with the late bodies drawn this frame added.
    pub fn add_drawn(&self, shown: &mut [bool]) {
        for &object in &self.drawn {
            if let Some(seen) = shown.get_mut(object) {
                *seen = true;
            }
        }
    }

    /// Per body, whether `tiles` (the finished view's depth) may show it.
    pub fn shown(&self, tiles: &DepthTiles, shown: &mut Vec<bool>) {
        shown.clear();
        shown.extend(self.footprints.iter().map(|f| !tiles.hides(f)));
    }
}

/// Every instance and batch of one frame.
#[derive(Default)]
pub(super) struct Batches {
    pub instances: Vec<Instance>,
    pub list: Vec<Batch>,
    /// The bodies (when culling, those the last frame showed), near to far by slab.
    pub objects: Range<usize>,
    /// When culling, the bodies for the second pass.
    pub culled: Culled,
    /// Outlines of highlighted bodies, for the outline program.
    pub outlines: Range<usize>,
    pub markers: Range<usize>,
    pub arrowheads: Range<usize>,
    pub handles: Range<usize>,
    /// Scratch for sorting.
    keyed: Vec<Keyed>,
}

impl Batches {
    /// Fills the batches for `frame`. `mesh` tells the scene meshes' sizes (every object's
    /// mesh is known: the renderer checked). With `culling`, only the bodies the last frame
    /// showed are in `objects`; the others wait in `late`.
    pub fn fill(
        &mut self,
        frame: &Frame,
        eye: &Eye,
        mesh: impl Fn(MeshKey) -> MeshInfo,
        culling: Option<Culling>,
        partial: Option<Partial>,
    ) {
        self.instances.clear();
        self.list.clear();
        self.culled.clear();
        let solid = !frame.wireframe;
        self.objects = self.fill_objects(frame, eye, &mesh, solid, culling, partial.as_ref());
        self.outlines = if solid {
            self.fill_outlines(frame, eye, &mesh)
        } else {
            self.list.len()..self.list.len()
        };
        // A frame drawn again in a region draws the aids reaching into it.
        let within = |mut instances: Vec<Instance>| {
            if let Some(p) = &partial {
                instances.retain(|i| p.meets(i));
            }
            instances
        };
        let markers = within(marker_instances(frame, eye));
        self.markers = self.push(MeshRef::Sphere(MARKER_SPHERE_LEVEL), markers);
        let arrowheads = within(arrowhead_instances(frame, eye));
        self.arrowheads = self.push(MeshRef::Arrowhead, arrowheads);
        let handles = within(handle_instances(frame, eye));
        self.handles = self.push(MeshRef::Disc, handles);
    }

    /// The bodies: sorted near to far, cut into slabs, each slab grouped by mesh; with
    /// `culling`, those the last frame did not show go to `late` instead, unless they are
    /// off the picture.
    fn fill_objects(
        &mut self,
        frame: &Frame,
        eye: &Eye,
        mesh: &impl Fn(MeshKey) -> MeshInfo,
        solid: bool,
        culling: Option<Culling>,
        partial: Option<&Partial>,
    ) -> Range<usize> {
        let mut keyed = std::mem::take(&mut self.keyed);
        keyed.clear();
        keyed.extend(frame.objects.iter().enumerate().map(|(object, o)| {
            let placement = o.placement();
            let centre = placement * Point3::origin();
            let highlight = Highlight::of(o);
            let sphere = if solid { SphereAs::Ball } else { SphereAs::Own };
            let (mesh, model) = drawn_mesh(o, &placement, eye, mesh(o.mesh), sphere);
            let colour = match highlight {
                Some(h) if !solid => [h.colour[0], h.colour[1], h.colour[2], o.colour[3]],
                _ => o.colour,
            };
            let highlight =
                highlight.map_or([0.0; 4], |h| [h.colour[0], h.colour[1], h.colour[2], h.rim]);
            let instance = Instance {
                model: eye.model(&model),
                colour,
                highlight,
            };
            Keyed {
                depth: eye.depth(&centre),
                mesh,
                instance,
                object,
            }
        }));
        if let Some(p) = partial {
            keyed.retain(|k| {
                let o = &frame.objects[k.object];
                let centre = Point3::from(o.placement() * Point3::origin() - eye.origin);
                let reach = footprint(p.view, p.projection, p.size, &centre, mesh(o.mesh).radius);
                p.region.meets(&reach)
            });
        }
        keyed.sort_by(|a, b| a.depth.total_cmp(&b.depth));
        if let Some(culling) = &culling {
            let footprints = frame.objects.iter().map(|o| {
                let centre = Point3::from(o.placement() * Point3::origin() - eye.origin);
                let radius = mesh(o.mesh).radius;
                footprint(
                    culling.view,
                    culling.projection,
                    culling.size,
                    &centre,
                    radius,
                )
            });
            self.culled.split(culling, footprints, &mut keyed);
        }
        let start = self.list.len();
        let (list, instances) = (&mut self.list, &mut self.instances);
        push_slabs(&mut keyed, list, instances);
        self.keyed = keyed;
        start..self.list.len()
    }

    /// The late bodies that `tiles` (the depth drawn so far) does not hide, into the
    /// second pass's batches.
    pub fn fill_late(&mut self, tiles: &DepthTiles) {
        self.culled.fill(tiles, &mut self.keyed);
    }

    /// Outlines of selected and hovered bodies: the body's instance with the outline's colour
    /// and width (pixels) as its highlight, for the outline program.
    fn fill_outlines(
        &mut self,
        frame: &Frame,
        eye: &Eye,
        mesh: &impl Fn(MeshKey) -> MeshInfo,
    ) -> Range<usize> {
        let mut keyed = std::mem::take(&mut self.keyed);
        keyed.clear();
        keyed.extend(frame.objects.iter().filter_map(|o| {
            let h = Highlight::of(o)?;
            let placement = o.placement();
            let (drawn, model) =
                drawn_mesh(o, &placement, eye, mesh(o.mesh), SphereAs::Tessellated);
            let [r, g, b] = h.colour;
            Some(Keyed {
                depth: eye.depth(&(placement * Point3::origin())),
                mesh: drawn,
                instance: Instance {
                    model: eye.model(&model),
                    colour: [r, g, b, 1.0],
                    highlight: [r, g, b, h.outline_pixels as f32],
                },
                object: 0,
            })
        }));
        keyed.sort_by_key(|k| k.mesh);
        let start = self.list.len();
        push_runs(&keyed, &mut self.list, &mut self.instances);
        self.keyed = keyed;
        start..self.list.len()
    }

    /// Appends one batch of one mesh and returns its range in the list.
    pub fn push(&mut self, mesh: MeshRef, instances: Vec<Instance>) -> Range<usize> {
        let start = self.list.len();
        if !instances.is_empty() {
            self.list.push(Batch {
                mesh,
                first: self.instances.len(),
                count: instances.len(),
            });
            self.instances.extend(instances);
        }
        start..self.list.len()
    }
}

/// Cuts `keyed` (near to far) into slabs and appends each slab's runs by mesh.
fn push_slabs(keyed: &mut [Keyed], list: &mut Vec<Batch>, instances: &mut Vec<Instance>) {
    let slab = keyed.len().div_ceil(MAX_SLABS).max(SLAB_SIZE);
    for chunk in keyed.chunks_mut(slab) {
        // Near to far within each mesh's run, which a stable sort keeps.
        chunk.sort_by_key(|k| k.mesh);
        push_runs(chunk, list, instances);
    }
}

/// Appends runs of instances sorted by mesh, one batch per run.
fn push_runs(keyed: &[Keyed], list: &mut Vec<Batch>, instances: &mut Vec<Instance>) {
    for run in keyed.chunk_by(|a, b| a.mesh == b.mesh) {
        list.push(Batch {
            mesh: run[0].mesh,
            first: instances.len(),
            count: run.len(),
        });
        instances.extend(run.iter().map(|k| k.instance));
    }
}

/// How [`drawn_mesh`] draws a sphere.
#[derive(Clone, Copy, PartialEq)]
enum SphereAs {
    /// As the object's own mesh (wireframes show its edges).
    Own,
    /// As the renderer's sphere of the fitting level (outlines push its vertices out).
    Tessellated,
    /// As a ball impostor when wholly in front of the eye, else tessellated.
    Ball,
}

/// The mesh an object is drawn with and its model matrix: a solid sphere as a ball or the
/// renderer's sphere of the fitting level, scaled to its radius; anything else as its own
/// mesh.
fn drawn_mesh(
    object: &Object,
    placement: &Isometry3<f64>,
    eye: &Eye,
    info: MeshInfo,
    sphere: SphereAs,
) -> (MeshRef, Matrix4<f64>) {
    match info.sphere.filter(|_| sphere != SphereAs::Own) {
        Some(radius) => {
            let centre = placement * Point3::origin();
            // The ball's impostor lies in the plane touching its front, which must be in
            // front of the eye (the clipping planes then keep it whole).
            let in_front = eye.depth(&centre) > 1.001 * radius * eye.camera.scale;
            let drawn = if sphere == SphereAs::Ball && in_front {
                MeshRef::Ball
            } else {
                MeshRef::Sphere(sphere_level(radius / eye.world_length(&centre, 1.0)))
            };
            (
                drawn,
                placement.to_homogeneous() * Matrix4::new_scaling(radius),
            )
        }
        None => (MeshRef::Scene(object.mesh), placement.to_homogeneous()),
    }
}

/// The shadow casters: every body as the light sees it, near to far from the light in slabs
/// grouped by mesh (as the bodies are for the eye), spheres at a level fitted to the map's
/// texel. Independent of the view, so a frame that only turns the view casts the same
/// shadows (then the map is not drawn again), and when a few bodies moved the map is drawn
/// again only where they were and are (see [`super::changes::changed_casters`]).
#[derive(Default)]
pub(super) struct Casters {
    /// Every caster, in the frame's order: what the map holds when drawn from them.
    pub all: Vec<(MeshRef, Instance)>,
    /// Where each caster reaches into the map.
    pub reach: Vec<Footprint>,
    /// The first pass (with culling, those the light saw last time), batched.
    pub list: Vec<Batch>,
    pub instances: Vec<Instance>,
    /// With culling, the casters for the second pass.
    pub culled: Culled,
    keyed: Vec<Keyed>,
}

impl Casters {
    /// Places the casters of `frame` for a light whose clip space `light.view` and
    /// `light.projection` lead to, whose map texels are `texel` long in the world: fills
    /// [`Casters::all`] and [`Casters::reach`]; [`Casters::batch`] then batches them.
    pub fn place(
        &mut self,
        frame: &Frame,
        eye: &Eye,
        light: &Culling,
        texel: f64,
        mesh: impl Fn(MeshKey) -> MeshInfo,
    ) {
        let clip = light.projection * light.view;
        self.keyed.clear();
        self.reach.clear();
        for (object, o) in frame.objects.iter().enumerate() {
            let placement = o.placement();
            let centre = placement * Point3::origin();
            let info = mesh(o.mesh);
            let (mesh, model) = match info.sphere {
                Some(radius) => (
                    MeshRef::Sphere(sphere_level(
                        radius / texel.max(1e-12) * SPHERE_TOLERANCE_PIXELS
                            / SHADOW_TOLERANCE_TEXELS,
                    )),
                    // A ball's depths do not depend on its turn: dropping it keeps the map
                    // when balls only spin.
                    Translation3::from(centre.coords).to_homogeneous()
                        * Matrix4::new_scaling(radius),
                ),
                None => (MeshRef::Scene(o.mesh), placement.to_homogeneous()),
            };
            let relative = Point3::from(centre - eye.origin);
            let at = clip * relative.to_homogeneous();
            self.keyed.push(Keyed {
                depth: at.z / at.w,
                mesh,
                instance: eye.instance(&model, o.colour),
                object,
            });
            self.reach.push(footprint(
                light.view,
                light.projection,
                light.size,
                &relative,
                info.radius,
            ));
        }
        self.all.clear();
        self.all
            .extend(self.keyed.iter().map(|k| (k.mesh, k.instance)));
        self.keyed.sort_by(|a, b| a.depth.total_cmp(&b.depth));
    }

    /// Batches the placed casters near to far from the light: with `culling` (the light's
    /// last view), those it did not show wait for the second pass; with `region`, only those
    /// reaching into it.
    pub fn batch(&mut self, culling: Option<&Culling>, region: Option<Region>) {
        self.culled.clear();
        if let Some(region) = region {
            let reach = &self.reach;
            self.keyed.retain(|k| region.meets(&reach[k.object]));
        }
        if let Some(culling) = culling {
            self.culled
                .split(culling, self.reach.iter().copied(), &mut self.keyed);
        }
        self.list.clear();
        self.instances.clear();
        push_slabs(&mut self.keyed, &mut self.list, &mut self.instances);
    }

    /// The late casters that `tiles` (the map drawn so far) does not hide, into the second
    /// pass's batches.
    pub fn fill_late(&mut self, tiles: &DepthTiles) {
        self.culled.fill(tiles, &mut self.keyed);
    }
}

/// Where an arrowhead sits: its base centre, the arrow's unit direction and its length.
pub(super) struct ArrowHead {
    pub base: Point3<f64>,
    pub direction: Vector3<f64>,
    pub length: f64,
}

pub(super) fn arrowhead(origin: Point3<f64>, vector: Vector3<f64>, eye: &Eye) -> Option<ArrowHead> {
    let length = vector.norm();
    if length <= f64::EPSILON || !length.is_finite() {
        return None;
    }
    let tip = origin + vector;
    let head = eye.world_length(&tip, ARROWHEAD_PIXELS).min(length / 2.0);
    let direction = vector / length;
    Some(ArrowHead {
        base: tip - direction * head,
        direction,
        length: head,
    })
}

/// The rotation taking +z to `direction`.
pub(super) fn turn_from_z(direction: &Vector3<f64>) -> UnitQuaternion<f64> {
    UnitQuaternion::rotation_between(&Vector3::z(), direction).unwrap_or_else(|| {
        UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::PI)
    })
}

fn arrowhead_instances(frame: &Frame, eye: &Eye) -> Vec<Instance> {
    frame
        .arrows
        .iter()
        .filter_map(|arrow| {
            let head = arrowhead(arrow.origin, arrow.vector, eye)?;
            let model = Translation3::from(head.base.coords).to_homogeneous()
                * turn_from_z(&head.direction).to_homogeneous()
                * Matrix4::new_scaling(head.length);
            Some(eye.instance(&model, arrow.colour))
        })
        .collect()
}

/// The handles, far to near: drawn over everything without a depth test, nearer handles
/// cover farther ones.
fn handle_instances(frame: &Frame, eye: &Eye) -> Vec<Instance> {
    let mut handles: Vec<_> = frame.handles.iter().collect();
    handles.sort_by(|a, b| eye.depth(&b.position).total_cmp(&eye.depth(&a.position)));
    handles
        .into_iter()
        .map(|h| {
            let (pixels, colour) = if h.highlighted {
                (
                    f64::from(frame.handle_radius) * HIGHLIGHT_GROWTH,
                    towards_white(h.colour, HIGHLIGHT_BRIGHTEN),
                )
            } else {
                (f64::from(frame.handle_radius), h.colour)
            };
            sphere_instance(
                eye,
                &h.position,
                eye.world_length(&h.position, pixels),
                colour,
            )
        })
        .collect()
}

fn marker_instances(frame: &Frame, eye: &Eye) -> Vec<Instance> {
    frame
        .polylines
        .iter()
        .flat_map(|p| p.control_points.iter().map(move |c| (c, p.colour)))
        .map(|(c, colour)| sphere_instance(eye, c, eye.world_length(c, MARKER_PIXELS), colour))
        .collect()
}

fn sphere_instance(eye: &Eye, centre: &Point3<f64>, radius: f64, colour: Rgba) -> Instance {
    let model = Translation3::from(centre.coords).to_homogeneous() * Matrix4::new_scaling(radius);
    eye.instance(&model, colour)
}

fn towards_white(colour: Rgba, amount: f32) -> Rgba {
    let [r, g, b, a] = colour;
    let mix = |c: f32| c + (1.0 - c) * amount;
    [mix(r), mix(g), mix(b), a]
}

/// The line segments: links, arrow shafts and trajectories.
pub(super) fn fill_lines(lines: &mut Vec<LineVertex>, frame: &Frame, eye: &Eye) {
    lines.clear();
    let mut segment = |a: &Point3<f64>, b: &Point3<f64>, colour: Rgba| {
        lines.push(LineVertex {
            position: eye.point(a),
            colour,
        });
        lines.push(LineVertex {
            position: eye.point(b),
            colour,
        });
    };
    for line in &frame.lines {
        segment(&line.from, &line.to, line.colour);
    }
    for arrow in &frame.arrows {
        if let Some(head) = arrowhead(arrow.origin, arrow.vector, eye) {
            segment(&arrow.origin, &head.base, arrow.colour);
        }
    }
    for polyline in &frame.polylines {
        for pair in polyline.points.windows(2) {
            segment(&pair[0], &pair[1], polyline.colour);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sphere_detail_grows_with_size_on_the_screen() {
        assert_eq!(sphere_level(2.0), 0);
        assert_eq!(sphere_level(10.0), 1);
        assert_eq!(sphere_level(40.0), 2);
        assert_eq!(sphere_level(150.0), 3);
        assert_eq!(sphere_level(5000.0), MAX_SPHERE_LEVEL);
        let mut last = 0;
        for pixels in 1..2000 {
            let level = sphere_level(f64::from(pixels));
            assert!(level >= last);
            last = level;
        }
    }

    /// A solid ball is an impostor while it lies wholly in front of the eye, else (and for
    /// outlines, which push out a mesh's vertices) the tessellated sphere; a wireframe draws
    /// its own mesh.
    #[test]
    fn solid_balls_in_front_of_the_eye_are_impostors() {
        let camera = Camera::default();
        let viewport = Viewport::new(640.0, 480.0);
        let eye = Eye::new(&camera, &viewport);
        let info = MeshInfo {
            radius: 1.0,
            sphere: Some(1.0),
        };
        let ball = |z: f64| Object {
            mesh: MeshKey(7),
            pose: Isometry3::translation(0.0, 0.0, z),
            offset: Vector3::zeros(),
            colour: [1.0; 4],
            selected: false,
            hovered: false,
        };
        let drawn = |z: f64, sphere| drawn_mesh(&ball(z), &ball(z).placement(), &eye, info, sphere);
        // The eye is 10 units in front of the origin, looking down −z.
        let (mesh, model) = drawn(0.0, SphereAs::Ball);
        assert_eq!(mesh, MeshRef::Ball);
        assert_eq!(model, Matrix4::identity());
        assert!(matches!(drawn(9.5, SphereAs::Ball).0, MeshRef::Sphere(_)));
        assert!(matches!(
            drawn(0.0, SphereAs::Tessellated).0,
            MeshRef::Sphere(_)
        ));
        assert_eq!(drawn(0.0, SphereAs::Own).0, MeshRef::Scene(MeshKey(7)));
    }
}
