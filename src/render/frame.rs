//! The frame description: plain data saying what one picture shows.
//!
//! Callers build a [`Frame`] from the scene and its motion at one time; the renderer and the
//! exporters read it. Nothing here knows GL.

use super::camera::Camera;
use super::mesh::{Mesh, MeshKey, MeshLibrary};
use nalgebra::{Isometry3, Point3, Translation3, Unit, Vector3};

/// A colour as red, green, blue and alpha, each from 0 to 1.
pub type Rgba = [f32; 4];

/// A light colour (red, green, blue, from 0 upwards).
pub type Rgb = [f32; 3];

/// One posed part of a body.
#[derive(Debug, Clone, PartialEq)]
pub struct Object {
    pub mesh: MeshKey,
    /// The body's pose in the world.
    pub pose: Isometry3<f64>,
    /// Where the part sits in the body's frame.
    pub offset: Vector3<f64>,
    pub colour: Rgba,
    /// Selected or highlighted objects are drawn brighter with an outline.
    pub selected: bool,
}

impl Object {
    /// The part's placement in the world: the body pose after the part's offset.
    pub fn placement(&self) -> Isometry3<f64> {
        self.pose * Translation3::from(self.offset)
    }
}

/// A straight segment, such as a link between two objects.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub from: Point3<f64>,
    pub to: Point3<f64>,
    pub colour: Rgba,
}

/// A vector drawn as an arrow from `origin` to `origin + vector` (forces, velocities).
#[derive(Debug, Clone, PartialEq)]
pub struct Arrow {
    pub origin: Point3<f64>,
    pub vector: Vector3<f64>,
    pub colour: Rgba,
}

/// A small sphere of constant size on the screen that the user can drag.
#[derive(Debug, Clone, PartialEq)]
pub struct Handle {
    pub position: Point3<f64>,
    pub colour: Rgba,
    /// The handle under the pointer or being dragged; drawn larger and brighter.
    pub highlighted: bool,
}

/// A curve drawn as connected segments (a trajectory), with optional control-point markers.
#[derive(Debug, Clone, PartialEq)]
pub struct Polyline {
    pub points: Vec<Point3<f64>>,
    pub colour: Rgba,
    /// Control points drawn as small markers in the curve's colour.
    pub control_points: Vec<Point3<f64>>,
}

/// A square grid of lines on a plane, centred on `centre`.
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    pub centre: Point3<f64>,
    /// The plane's normal, e.g. the world's up axis.
    pub normal: Unit<Vector3<f64>>,
    /// Distance between neighbouring lines.
    pub spacing: f64,
    /// Lines on each side of the centre line, in each direction.
    pub half_count: u32,
    pub colour: Rgba,
}

impl Grid {
    /// The grid's line segments.
    pub fn segments(&self) -> Vec<(Point3<f64>, Point3<f64>)> {
        let (u, v) = plane_axes(&self.normal);
        let n = i64::from(self.half_count);
        let extent = self.spacing * n as f64;
        let mut segments = Vec::with_capacity(4 * self.half_count as usize + 2);
        for k in -n..=n {
            let along = self.spacing * k as f64;
            segments.push((
                self.centre + u * along - v * extent,
                self.centre + u * along + v * extent,
            ));
            segments.push((
                self.centre + v * along - u * extent,
                self.centre + v * along + u * extent,
            ));
        }
        segments
    }
}

/// Two unit vectors spanning the plane perpendicular to `normal`.
fn plane_axes(normal: &Unit<Vector3<f64>>) -> (Vector3<f64>, Vector3<f64>) {
    let helper = if normal.x.abs() < 0.9 {
        Vector3::x()
    } else {
        Vector3::y()
    };
    let u = normal.cross(&helper).normalize();
    let v = normal.cross(&u);
    (u, v)
}

/// A light source. The renderer uses at most [`Frame::MAX_LIGHTS`].
#[derive(Debug, Clone, PartialEq)]
pub enum Light {
    /// Light travelling along `direction` (world coordinates), like the sun.
    Directional {
        direction: Unit<Vector3<f64>>,
        colour: Rgb,
    },
    /// Light shining from `position` in every direction (no fall-off, as in Rayshade).
    Point { position: Point3<f64>, colour: Rgb },
}

/// Everything one picture shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    pub objects: Vec<Object>,
    pub lines: Vec<Line>,
    pub arrows: Vec<Arrow>,
    pub handles: Vec<Handle>,
    pub polylines: Vec<Polyline>,
    pub grid: Option<Grid>,
    /// The lights; when empty, one white directional light points into the screen.
    pub lights: Vec<Light>,
    /// The fraction of each object's colour seen with no light on it.
    pub ambient: f32,
    pub camera: Camera,
    /// Draw objects as their edges only, leaving their interiors transparent.
    pub wireframe: bool,
    pub background: Rgba,
    /// Handle radius on the screen, in pixels.
    pub handle_radius: f32,
}

impl Default for Frame {
    fn default() -> Self {
        Frame {
            objects: Vec::new(),
            lines: Vec::new(),
            arrows: Vec::new(),
            handles: Vec::new(),
            polylines: Vec::new(),
            grid: None,
            lights: Vec::new(),
            ambient: 0.25,
            camera: Camera::default(),
            wireframe: false,
            background: [0.0, 0.0, 0.0, 1.0],
            handle_radius: 6.0,
        }
    }
}

impl Frame {
    /// The most lights the renderer shades with; extra lights are ignored.
    pub const MAX_LIGHTS: usize = 8;

    /// The lights in effect: the frame's own, or the default light pointing into the screen.
    pub fn effective_lights(&self) -> Vec<Light> {
        if self.lights.is_empty() {
            vec![Light::Directional {
                direction: self.camera.view_direction(),
                colour: [1.0, 1.0, 1.0],
            }]
        } else {
            self.lights.iter().take(Self::MAX_LIGHTS).cloned().collect()
        }
    }

    /// Spheres (centre, radius) enclosing everything drawn, used to place the clipping planes.
    /// Objects whose mesh is missing from `meshes` are skipped.
    pub fn bounding_spheres(&self, meshes: &MeshLibrary) -> Vec<(Point3<f64>, f64)> {
        self.bounding_spheres_by(|key| meshes.get(key).map(Mesh::radius))
    }

    /// Like [`Frame::bounding_spheres`], with each mesh's radius given by `radius_of`.
    pub fn bounding_spheres_by(
        &self,
        radius_of: impl Fn(MeshKey) -> Option<f64>,
    ) -> Vec<(Point3<f64>, f64)> {
        let mut spheres = Vec::with_capacity(self.objects.len() + self.handles.len());
        for object in &self.objects {
            if let Some(radius) = radius_of(object.mesh) {
                spheres.push((object.placement() * Point3::origin(), radius));
            }
        }
        let points = self
            .lines
            .iter()
            .flat_map(|l| [l.from, l.to])
            .chain(
                self.arrows
                    .iter()
                    .flat_map(|a| [a.origin, a.origin + a.vector]),
            )
            .chain(self.handles.iter().map(|h| h.position))
            .chain(
                self.polylines
                    .iter()
                    .flat_map(|p| p.points.iter().chain(&p.control_points).copied()),
            )
            .chain(
                self.grid
                    .iter()
                    .flat_map(|g| g.segments().into_iter().flat_map(|(a, b)| [a, b])),
            );
        spheres.extend(points.map(|p| (p, 0.0)));
        spheres
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_lines_lie_in_the_plane() {
        let grid = Grid {
            centre: Point3::new(1.0, 2.0, 0.0),
            normal: Vector3::z_axis(),
            spacing: 0.5,
            half_count: 4,
            colour: [1.0; 4],
        };
        let segments = grid.segments();
        assert_eq!(segments.len(), 18);
        for (a, b) in segments {
            assert!(a.z.abs() < 1e-12 && b.z.abs() < 1e-12);
            assert!(((b - a).norm() - 4.0).abs() < 1e-12);
        }
    }

    #[test]
    fn default_light_points_into_the_screen() {
        let frame = Frame::default();
        match &frame.effective_lights()[..] {
            [Light::Directional { direction, .. }] => {
                assert!(
                    (direction.into_inner() - frame.camera.view_direction().into_inner()).norm()
                        < 1e-12
                )
            }
            other => panic!("unexpected default lights {other:?}"),
        }
    }
}
