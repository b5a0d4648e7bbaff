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
    /// Selected objects are drawn with a warm rim and outline.
    pub selected: bool,
    /// The object under the pointer: drawn with a light rim and outline.
    pub hovered: bool,
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

/// A ground plane under the bodies, with grid lines on it, fading out towards its edge.
#[derive(Debug, Clone, PartialEq)]
pub struct Ground {
    /// A point of the plane, where grid lines cross and around which the ground reaches.
    pub origin: Point3<f64>,
    /// The plane's normal, the world's up axis.
    pub normal: Unit<Vector3<f64>>,
    /// Distance between neighbouring grid lines; every fifth line is drawn stronger.
    pub spacing: f64,
    /// How far from `origin` the ground reaches; it fades into the background before that.
    pub extent: f64,
    pub colour: Rgba,
    pub line_colour: Rgba,
}

impl Ground {
    /// The grid's line segments within `reach` of the origin (at most a thousand lines each
    /// way), for drawings made of lines.
    pub fn segments(&self, reach: f64) -> Vec<(Point3<f64>, Point3<f64>)> {
        let (u, v) = plane_axes(&self.normal);
        let n = (reach / self.spacing).floor().clamp(0.0, 1000.0) as i64;
        let extent = self.spacing * n as f64;
        let mut segments = Vec::with_capacity(4 * n as usize + 2);
        for k in -n..=n {
            let along = self.spacing * k as f64;
            segments.push((
                self.origin + u * along - v * extent,
                self.origin + u * along + v * extent,
            ));
            segments.push((
                self.origin + v * along - u * extent,
                self.origin + v * along + u * extent,
            ));
        }
        segments
    }

    /// The ground's signed height of `p` above the plane.
    pub fn height_of(&self, p: &Point3<f64>) -> f64 {
        (p - self.origin).dot(&self.normal)
    }
}

/// Two unit vectors spanning the plane perpendicular to `normal`.
pub fn plane_axes(normal: &Unit<Vector3<f64>>) -> (Vector3<f64>, Vector3<f64>) {
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

/// What a picture adds to the bodies so that shape, depth and contact read well. Each can be
/// turned off, for printing and for tests; exports made of lines or for a ray tracer keep
/// what applies to them (the ground).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Looks {
    /// Edges smoothed by a pass over the finished picture (works on any GL, off-screen too).
    pub antialias: bool,
    /// Bodies cast shadows from the key light onto the ground and each other.
    pub shadows: bool,
    /// The frame's ground is drawn (a plane, shaded and receiving shadows).
    pub ground: bool,
    /// Grid lines on the ground.
    pub grid: bool,
    /// Axes in the lower left corner showing which way x, y and z point.
    pub gizmo: bool,
}

impl Looks {
    /// Everything on except the axis gizmo, which belongs to interactive viewers.
    pub const ALL: Looks = Looks {
        antialias: true,
        shadows: true,
        ground: true,
        grid: true,
        gizmo: false,
    };
    /// Nothing added: flat bodies on the background, as for printing line art.
    pub const NONE: Looks = Looks {
        antialias: false,
        shadows: false,
        ground: false,
        grid: false,
        gizmo: false,
    };
}

impl Default for Looks {
    fn default() -> Self {
        Looks::ALL
    }
}

/// Everything one picture shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    pub objects: Vec<Object>,
    pub lines: Vec<Line>,
    pub arrows: Vec<Arrow>,
    pub handles: Vec<Handle>,
    pub polylines: Vec<Polyline>,
    /// The ground under the bodies, when the scene has no floor of its own.
    pub ground: Option<Ground>,
    /// The lights; when empty, [`Frame::DEFAULT_LIGHT`] shines from above.
    pub lights: Vec<Light>,
    /// The fraction of each object's colour seen with no light on it (the sky's light, which
    /// is brighter on faces turned up than on faces turned down).
    pub ambient: f32,
    pub looks: Looks,
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
            ground: None,
            lights: Vec::new(),
            ambient: 0.38,
            looks: Looks::default(),
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

    /// The direction the default light travels in (world coordinates): down, away from and
    /// to the right of the default view, so shadows fall behind the bodies and to the right.
    pub const DEFAULT_LIGHT_DIRECTION: [f64; 3] = [0.45, -1.0, -0.55];
    /// The default light's colour.
    pub const DEFAULT_LIGHT_COLOUR: Rgb = [0.8, 0.8, 0.78];

    /// The lights in effect: the frame's own, or the default light from above.
    pub fn effective_lights(&self) -> Vec<Light> {
        if self.lights.is_empty() {
            let [x, y, z] = Self::DEFAULT_LIGHT_DIRECTION;
            vec![Light::Directional {
                direction: Unit::new_normalize(Vector3::new(x, y, z)),
                colour: Self::DEFAULT_LIGHT_COLOUR,
            }]
        } else {
            self.lights.iter().take(Self::MAX_LIGHTS).cloned().collect()
        }
    }

    /// Spheres (centre, radius) enclosing everything drawn but the ground, used to place the
    /// clipping planes. Objects whose mesh is missing from `meshes` are skipped.
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
        let ground = Ground {
            origin: Point3::new(1.0, 2.0, 0.0),
            normal: Vector3::z_axis(),
            spacing: 0.5,
            extent: 2.2,
            colour: [1.0; 4],
            line_colour: [1.0; 4],
        };
        let segments = ground.segments(ground.extent);
        assert_eq!(segments.len(), 18);
        for (a, b) in segments {
            assert!(a.z.abs() < 1e-12 && b.z.abs() < 1e-12);
            assert!(((b - a).norm() - 4.0).abs() < 1e-12);
        }
    }

    #[test]
    fn the_default_light_shines_down_whatever_the_view() {
        let mut frame = Frame::default();
        frame.camera.rotation = nalgebra::UnitQuaternion::from_euler_angles(0.3, 1.2, 0.0);
        match &frame.effective_lights()[..] {
            [Light::Directional { direction, .. }] => assert!(direction.y < -0.7),
            other => panic!("unexpected default lights {other:?}"),
        }
    }
}
