//! Picking on the CPU: what is under a point of the picture (dissertation 4.1.3, 4.1.6, 4.1.7).
//!
//! - [`nearest_handle`] (and [`nearest_on_screen`] for any points): the handle nearest to the
//!   pointer within a radius in pixels, as the left button selects handles.
//! - [`body_under`]: the body and piece the line through the pointer meets first, found by
//!   casting that ray against the posed shapes (`geom::ray`), with the surface point, which is
//!   where a new link end goes (figure 4.5).
//! - [`rotation_centre`]: the new centre of rotation and scaling for the `c` key — a shape
//!   vertex or handle within a few pixels of the pointer, else the point under the pointer
//!   midway in depth between the near and far bounding planes of what is displayed.

use super::camera::{Camera, Viewport};
use super::frame::Frame;
use super::mesh::{MeshLibrary, MeshShape};
use crate::geom::ray::{cast_shape, Ray, RayHit};
use crate::scene::handles::Handle;
use crate::scene::shapes::SceneShapes;
use crate::scene::state::BodyStates;
use nalgebra::{Point2, Point3};

/// How close (in pixels) the pointer must be to a vertex or handle for the `c` key to centre
/// on it.
pub const CENTRE_SNAP_PIXELS: f64 = 5.0;

/// The index of the point of `points` seen nearest to `screen`, and its distance in pixels,
/// among those within `radius` pixels and in front of the eye.
pub fn nearest_on_screen(
    points: impl IntoIterator<Item = Point3<f64>>,
    camera: &Camera,
    viewport: &Viewport,
    screen: Point2<f64>,
    radius: f64,
) -> Option<(usize, f64)> {
    points
        .into_iter()
        .enumerate()
        .filter_map(|(i, p)| {
            let seen = camera.project(&p, viewport)?;
            let distance = (Point2::new(seen.x, seen.y) - screen).norm();
            (distance <= radius).then_some((i, distance))
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

/// The handle of `handles` seen nearest to `screen` within `radius` pixels: the one the left
/// button selects (4.1.3).
pub fn nearest_handle(
    handles: &[Handle],
    camera: &Camera,
    viewport: &Viewport,
    screen: Point2<f64>,
    radius: f64,
) -> Option<usize> {
    let positions = handles.iter().map(|h| Point3::from(h.position));
    nearest_on_screen(positions, camera, viewport, screen, radius).map(|(i, _)| i)
}

/// The world ray from the eye through a screen point, as `geom` casts it.
pub fn pointer_ray(camera: &Camera, viewport: &Viewport, screen: Point2<f64>) -> Ray {
    let ray = camera.unproject(screen, viewport);
    Ray::new(ray.origin.coords, ray.direction.into_inner())
        .expect("a camera ray has a finite origin and a unit direction")
}

/// A body met by a ray.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BodyHit {
    /// Index into the scene's bodies.
    pub body: usize,
    /// Where the ray first meets the body's surface, the outward normal there and the piece
    /// (part of the shape set) met.
    pub hit: RayHit,
}

/// The body whose surface `ray` meets first, with the bodies posed by `states` at `time`.
/// Bodies whose state is unknown are not hit.
pub fn body_under(
    shapes: &SceneShapes,
    states: &dyn BodyStates,
    time: f64,
    ray: &Ray,
) -> Option<BodyHit> {
    (0..shapes.body_count())
        .filter_map(|body| {
            let shape = shapes.of_body(body)?;
            let pose = states.body_state(body, time)?.pose();
            let hit = cast_shape(ray, &shape.shape, &pose)?;
            Some(BodyHit { body, hit })
        })
        .min_by(|a, b| a.hit.t.total_cmp(&b.hit.t))
}

/// The world point the `c` key makes the centre of rotation and scaling: the shape vertex or
/// handle of `frame` seen within `snap` pixels of `screen` (the nearest), else the point
/// under `screen` midway in depth between the nearest and farthest displayed things. With
/// nothing displayed, the point under `screen` at the current centre's depth.
pub fn rotation_centre(
    frame: &Frame,
    meshes: &MeshLibrary,
    viewport: &Viewport,
    screen: Point2<f64>,
    snap: f64,
) -> Point3<f64> {
    let camera = &frame.camera;
    let vertices = frame.objects.iter().flat_map(|object| {
        let placement = object.placement();
        meshes
            .get(object.mesh)
            .filter(|mesh| mesh.shape == MeshShape::Polyhedron)
            .into_iter()
            .flat_map(move |mesh| {
                (0..mesh.vertices.len() as u32).map(move |i| placement * mesh.position(i))
            })
    });
    let candidates: Vec<Point3<f64>> = vertices
        .chain(frame.handles.iter().map(|h| h.position))
        .collect();
    if let Some((i, _)) =
        nearest_on_screen(candidates.iter().copied(), camera, viewport, screen, snap)
    {
        return candidates[i];
    }
    let (mut near, mut far) = (f64::INFINITY, f64::NEG_INFINITY);
    for (centre, radius) in frame.bounding_spheres(meshes) {
        let depth = -camera.to_eye(&centre).z;
        let reach = radius * camera.scale;
        near = near.min(depth - reach);
        far = far.max(depth + reach);
    }
    let (near, far) = if far > 0.0 && far.is_finite() {
        (near.max(0.0), far)
    } else {
        let depth = -camera.to_eye(&camera.centre).z;
        (depth, depth)
    };
    camera.unproject_at_depth(screen, (near + far) / 2.0, viewport)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::frame::{Handle, Object};
    use crate::render::mesh::{Mesh, MeshKey};
    use crate::scene::evaluate;
    use crate::scene::state::InitialStates;
    use nalgebra::{Isometry3, Vector3};

    const VIEW: Viewport = Viewport {
        width: 640.0,
        height: 480.0,
    };

    /// Pixels per unit at the origin for the default camera (10 units away, 40° high).
    fn pixels_per_unit() -> f64 {
        240.0 / 20f64.to_radians().tan() / 10.0
    }

    #[test]
    fn nearest_point_within_the_radius() {
        let camera = Camera::default();
        let points = [
            Point3::origin(),
            Point3::new(1.0, 0.0, 0.0),
            Point3::new(0.0, 0.0, 20.0),
        ];
        let one = 320.0 + pixels_per_unit();
        let (i, d) =
            nearest_on_screen(points, &camera, &VIEW, Point2::new(322.0, 241.0), 5.0).unwrap();
        assert_eq!(i, 0);
        assert!((d - 5f64.sqrt()).abs() < 1e-9);
        assert_eq!(
            nearest_on_screen(points, &camera, &VIEW, Point2::new(one - 6.0, 240.0), 5.0),
            None
        );
        let (i, _) =
            nearest_on_screen(points, &camera, &VIEW, Point2::new(one - 6.0, 240.0), 10.0).unwrap();
        assert_eq!(i, 1);
        // A point behind the eye is never picked, even where it would project.
        assert_eq!(
            nearest_on_screen(
                points[2..].iter().copied(),
                &camera,
                &VIEW,
                Point2::new(320.0, 240.0),
                50.0
            )
            .map(|(i, _)| i),
            None
        );
    }

    #[test]
    fn the_nearest_handle_of_a_scene_is_picked() {
        use crate::scene::handles::{handles, HandleScales};
        let scene = evaluate(
            "shape_set ball desc {sphere 0.5}
             body a shape ball init_pos {0 0 0} init_dpos {1 0 0}
             body b shape ball init_pos {3 0 0}",
        )
        .unwrap();
        let shapes = SceneShapes::new(&scene).unwrap();
        let list = handles(&scene, &shapes, &HandleScales::default());
        let camera = Camera::default();
        // a's velocity handle is at (1, 0, 0); b's position handle at (3, 0, 0).
        let at = |x: f64| Point2::new(320.0 + x * pixels_per_unit(), 243.0);
        let picked = nearest_handle(&list, &camera, &VIEW, at(1.0), 6.0).unwrap();
        assert_eq!(
            list[picked].target,
            crate::scene::Target::BodyInit {
                body: 0,
                var: crate::scene::InitVar::Dpos,
            }
        );
        let picked = nearest_handle(&list, &camera, &VIEW, at(3.0), 6.0).unwrap();
        assert_eq!(list[picked].position, Vector3::new(3.0, 0.0, 0.0));
        assert_eq!(nearest_handle(&list, &camera, &VIEW, at(2.0), 6.0), None);
    }

    fn two_bodies() -> crate::scene::Scene {
        evaluate(
            "shape_set cube desc {box {2 2 2}}
             shape_set pair desc {sub pos {-2 0 0} sphere 1 sub pos {2 0 0} sphere 1}
             body far shape cube init_pos {0 0 -3}
             body near shape pair init_pos {0.5 0 2}",
        )
        .unwrap()
    }

    #[test]
    fn the_nearest_body_under_the_pointer_is_hit_on_its_surface() {
        let scene = two_bodies();
        let shapes = SceneShapes::new(&scene).unwrap();
        let states = InitialStates { scene: &scene };
        let camera = Camera::default();
        // Straight through the middle of the screen: between the pair's balls, onto the cube.
        let ray = pointer_ray(&camera, &VIEW, Point2::new(320.0, 240.0));
        let hit = body_under(&shapes, &states, 0.0, &ray).unwrap();
        assert_eq!((hit.body, hit.hit.piece), (0, 0));
        assert!((hit.hit.point - Vector3::new(0.0, 0.0, -2.0)).norm() < 1e-9);
        assert!((hit.hit.normal - Vector3::z()).norm() < 1e-9);
        // Over the right ball of the pair (centre at x = 2.5, z = 2, seen 8 units away): it
        // covers the cube behind.
        let right = Point3::new(2.5, 0.0, 2.0);
        let seen = camera.project(&right, &VIEW).unwrap();
        let ray = pointer_ray(&camera, &VIEW, Point2::new(seen.x, seen.y));
        let hit = body_under(&shapes, &states, 0.0, &ray).unwrap();
        assert_eq!((hit.body, hit.hit.piece), (1, 1));
        assert!(((hit.hit.point - right.coords).norm() - 1.0).abs() < 1e-9);
        assert!(hit.hit.point.z > 2.9);
        // Nothing in the corner of the picture.
        let ray = pointer_ray(&camera, &VIEW, Point2::new(2.0, 2.0));
        assert_eq!(body_under(&shapes, &states, 0.0, &ray), None);
    }

    fn cube_frame() -> (Frame, MeshLibrary) {
        let points: Vec<Point3<f64>> = (0..8)
            .map(|i| {
                Point3::new(
                    if i & 1 == 0 { -1.0 } else { 1.0 },
                    if i & 2 == 0 { -1.0 } else { 1.0 },
                    if i & 4 == 0 { -1.0 } else { 1.0 },
                )
            })
            .collect();
        let faces = vec![
            vec![0, 2, 3, 1],
            vec![4, 5, 7, 6],
            vec![0, 1, 5, 4],
            vec![2, 6, 7, 3],
            vec![0, 4, 6, 2],
            vec![1, 3, 7, 5],
        ];
        let mut meshes = MeshLibrary::new();
        meshes.insert(MeshKey(1), Mesh::polyhedron(&points, &faces).unwrap());
        let frame = Frame {
            objects: vec![Object {
                mesh: MeshKey(1),
                pose: Isometry3::translation(0.0, 0.0, -1.0),
                offset: Vector3::zeros(),
                colour: [1.0; 4],
                selected: false,
                hovered: false,
            }],
            handles: vec![Handle {
                position: Point3::new(-3.0, 2.0, 0.0),
                colour: [1.0; 4],
                highlighted: false,
            }],
            ..Frame::default()
        };
        (frame, meshes)
    }

    #[test]
    fn the_centre_snaps_to_a_vertex_or_handle_near_the_pointer() {
        let (frame, meshes) = cube_frame();
        let corner = Point3::new(1.0, 1.0, 0.0);
        let seen = frame.camera.project(&corner, &VIEW).unwrap();
        let near = Point2::new(seen.x + 2.0, seen.y - 2.0);
        assert_eq!(
            rotation_centre(&frame, &meshes, &VIEW, near, CENTRE_SNAP_PIXELS),
            corner
        );
        let handle = frame
            .camera
            .project(&Point3::new(-3.0, 2.0, 0.0), &VIEW)
            .unwrap();
        let centre = rotation_centre(
            &frame,
            &meshes,
            &VIEW,
            Point2::new(handle.x, handle.y + 3.0),
            5.0,
        );
        assert_eq!(centre, Point3::new(-3.0, 2.0, 0.0));
    }

    #[test]
    fn away_from_vertices_the_centre_is_midway_in_depth() {
        let (frame, meshes) = cube_frame();
        let screen = Point2::new(100.0, 400.0);
        let centre = rotation_centre(&frame, &meshes, &VIEW, screen, CENTRE_SNAP_PIXELS);
        // The displayed things: the cube's bounding sphere (centre depth 11, radius √3) and
        // the handle (depth 10): from 11 − √3 to 11 + √3, so midway is depth 11.
        let seen = frame.camera.project(&centre, &VIEW).unwrap();
        assert!((seen.depth - 11.0).abs() < 1e-9);
        assert!((seen.x - 100.0).abs() < 1e-9 && (seen.y - 400.0).abs() < 1e-9);
        // With nothing displayed, the centre's own depth.
        let empty = Frame::default();
        let centre = rotation_centre(&empty, &meshes, &VIEW, screen, CENTRE_SNAP_PIXELS);
        assert!((empty.camera.project(&centre, &VIEW).unwrap().depth - 10.0).abs() < 1e-9);
    }
}
