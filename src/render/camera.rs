//! The viewing state of a graphical viewer (dissertation 4.1.7) and the mouse models that
//! change it.
//!
//! Four values determine the view: a position (translation), a rotation, a scale and the centre
//! of rotation and scaling. A world point `p` is seen at the eye-space point
//! `translation + scale · rotation · (p − centre)`; the eye sits at the eye-space origin
//! looking down −z with y up, through a perspective of vertical field of view `fov_y`. So the
//! centre is always seen at `translation`, and rotating or scaling keeps it in place on the
//! screen. Screen coordinates are pixels with the origin at the top-left corner, y down.

use nalgebra::{
    Matrix4, Perspective3, Point2, Point3, Translation3, Unit, UnitQuaternion, Vector2, Vector3,
};

/// The size of the picture in pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Viewport {
    pub width: f64,
    pub height: f64,
}

impl Viewport {
    pub fn new(width: f64, height: f64) -> Self {
        Viewport { width, height }
    }

    pub fn aspect(&self) -> f64 {
        self.width / self.height.max(1.0)
    }

    fn centre(&self) -> Point2<f64> {
        Point2::new(self.width / 2.0, self.height / 2.0)
    }
}

/// A world point seen on the screen: pixel coordinates and its depth in front of the eye.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScreenPoint {
    pub x: f64,
    pub y: f64,
    /// Distance in front of the eye along the view axis, in eye units.
    pub depth: f64,
}

/// A half-line in world coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ray {
    pub origin: Point3<f64>,
    pub direction: Unit<Vector3<f64>>,
}

impl Ray {
    pub fn at(&self, t: f64) -> Point3<f64> {
        self.origin + self.direction.into_inner() * t
    }
}

/// An axis-aligned box in world coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    pub min: Point3<f64>,
    pub max: Point3<f64>,
}

impl Bounds {
    /// The smallest box holding every point, or `None` when there are none.
    pub fn around(points: impl IntoIterator<Item = Point3<f64>>) -> Option<Bounds> {
        let mut points = points.into_iter();
        let first = points.next()?;
        Some(points.fold(
            Bounds {
                min: first,
                max: first,
            },
            |b, p| Bounds {
                min: b.min.inf(&p),
                max: b.max.sup(&p),
            },
        ))
    }

    pub fn centre(&self) -> Point3<f64> {
        nalgebra::center(&self.min, &self.max)
    }

    /// Half the diagonal: the radius of the sphere around the box.
    pub fn radius(&self) -> f64 {
        (self.max - self.min).norm() / 2.0
    }

    pub fn corners(&self) -> [Point3<f64>; 8] {
        std::array::from_fn(|i| {
            Point3::new(
                if i & 1 == 0 { self.min.x } else { self.max.x },
                if i & 2 == 0 { self.min.y } else { self.max.y },
                if i & 4 == 0 { self.min.z } else { self.max.z },
            )
        })
    }
}

/// How far mouse motion turns and scales the view.
const ROLL_RADIANS_PER_WIDTH: f64 = std::f64::consts::PI;
const SCALE_DOUBLINGS_PER_HEIGHT: f64 = 2.0;

/// The viewing state: position, rotation, scale, centre of rotation and scaling, and lens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    /// Where the centre is seen, in eye coordinates (−z is in front of the eye).
    pub translation: Vector3<f64>,
    /// Turns world directions into eye directions.
    pub rotation: UnitQuaternion<f64>,
    /// Magnification about the centre.
    pub scale: f64,
    /// The world point that rotation and scaling keep in place.
    pub centre: Point3<f64>,
    /// Vertical field of view in radians.
    pub fov_y: f64,
}

impl Default for Camera {
    /// Looking down −z at the origin from 10 units away, with a 40° field of view.
    fn default() -> Self {
        Camera {
            translation: Vector3::new(0.0, 0.0, -10.0),
            rotation: UnitQuaternion::identity(),
            scale: 1.0,
            centre: Point3::origin(),
            fov_y: 40f64.to_radians(),
        }
    }
}

impl Camera {
    /// The world-to-eye transform as a matrix (a similarity: rotation, uniform scale, shift).
    pub fn view_matrix(&self) -> Matrix4<f64> {
        Translation3::from(self.translation).to_homogeneous()
            * self.rotation.to_homogeneous()
            * Matrix4::new_scaling(self.scale)
            * Translation3::from(-self.centre.coords).to_homogeneous()
    }

    /// The OpenGL perspective projection for this lens, with clipping planes at eye depths
    /// `near` and `far`.
    pub fn projection_matrix(&self, aspect: f64, near: f64, far: f64) -> Matrix4<f64> {
        Perspective3::new(aspect, self.fov_y, near, far).to_homogeneous()
    }

    /// Clipping planes (near, far) enclosing `spheres` (world centre, world radius), with a
    /// little margin; a default range when nothing is in front of the eye.
    pub fn clip_range(&self, spheres: &[(Point3<f64>, f64)]) -> (f64, f64) {
        let (mut nearest, mut farthest) = (f64::INFINITY, 0.0f64);
        for (centre, radius) in spheres {
            let depth = -self.to_eye(centre).z;
            let reach = radius * self.scale;
            nearest = nearest.min(depth - reach);
            farthest = farthest.max(depth + reach);
        }
        if farthest <= 0.0 || !farthest.is_finite() {
            return (0.1, 100.0);
        }
        let far = farthest * 1.05 + 1e-6;
        let near = (nearest * 0.95).max(far * 1e-4);
        (near, far)
    }

    /// A world point in eye coordinates.
    pub fn to_eye(&self, p: &Point3<f64>) -> Point3<f64> {
        Point3::from(self.translation + self.rotation * ((p - self.centre) * self.scale))
    }

    /// An eye-space point in world coordinates.
    pub fn from_eye(&self, e: &Point3<f64>) -> Point3<f64> {
        self.centre + self.rotation.inverse() * ((e.coords - self.translation) / self.scale)
    }

    /// The world position of the eye.
    pub fn eye(&self) -> Point3<f64> {
        self.from_eye(&Point3::origin())
    }

    /// The world direction the eye looks along (into the screen).
    pub fn view_direction(&self) -> Unit<Vector3<f64>> {
        Unit::new_normalize(self.rotation.inverse() * -Vector3::z())
    }

    /// The world direction that appears as up on the screen.
    pub fn up_direction(&self) -> Unit<Vector3<f64>> {
        Unit::new_normalize(self.rotation.inverse() * Vector3::y())
    }

    /// Pixels per eye unit at unit depth.
    fn focal_pixels(&self, viewport: &Viewport) -> f64 {
        viewport.height / 2.0 / (self.fov_y / 2.0).tan()
    }

    /// Where a world point appears, or `None` if it is not in front of the eye.
    pub fn project(&self, p: &Point3<f64>, viewport: &Viewport) -> Option<ScreenPoint> {
        let e = self.to_eye(p);
        let depth = -e.z;
        if depth <= 0.0 {
            return None;
        }
        let f = self.focal_pixels(viewport);
        Some(ScreenPoint {
            x: viewport.width / 2.0 + f * e.x / depth,
            y: viewport.height / 2.0 - f * e.y / depth,
            depth,
        })
    }

    /// The direction in eye space through a screen point, scaled to unit depth.
    fn eye_direction(&self, screen: Point2<f64>, viewport: &Viewport) -> Vector3<f64> {
        let f = self.focal_pixels(viewport);
        Vector3::new(
            (screen.x - viewport.width / 2.0) / f,
            -(screen.y - viewport.height / 2.0) / f,
            -1.0,
        )
    }

    /// The world ray from the eye through a screen point.
    pub fn unproject(&self, screen: Point2<f64>, viewport: &Viewport) -> Ray {
        let direction = self.rotation.inverse() * self.eye_direction(screen, viewport);
        Ray {
            origin: self.eye(),
            direction: Unit::new_normalize(direction),
        }
    }

    /// The world point under a screen point at the given eye depth.
    pub fn unproject_at_depth(
        &self,
        screen: Point2<f64>,
        depth: f64,
        viewport: &Viewport,
    ) -> Point3<f64> {
        self.from_eye(&Point3::from(self.eye_direction(screen, viewport) * depth))
    }

    /// Moves the centre of rotation and scaling to a world point without changing the picture.
    pub fn set_centre(&mut self, centre: Point3<f64>) {
        self.translation += self.rotation * ((centre - self.centre) * self.scale);
        self.centre = centre;
    }

    /// Moves the centre to the point under `screen` midway between the eye depths `near` and
    /// `far` (say, the front and back of the object there), without changing the picture.
    pub fn set_centre_under(
        &mut self,
        screen: Point2<f64>,
        near: f64,
        far: f64,
        viewport: &Viewport,
    ) {
        let centre = self.unproject_at_depth(screen, (near + far) / 2.0, viewport);
        self.set_centre(centre);
    }

    /// Rotates the scene about the centre as if dragging a virtual sphere (Chen, Mountford and
    /// Sellen 1988) from `from` to `to`. The sphere fills the smaller viewport dimension and is
    /// centred in the viewport; outside it the motion turns about the view axis.
    pub fn rotate_virtual_sphere(
        &mut self,
        from: Point2<f64>,
        to: Point2<f64>,
        viewport: &Viewport,
    ) {
        let a = virtual_sphere_point(from, viewport);
        let b = virtual_sphere_point(to, viewport);
        if let Some(turn) = UnitQuaternion::rotation_between(&a, &b) {
            self.rotation = turn * self.rotation;
        }
    }

    /// Translates the scene in the screen plane so that points at the centre's depth follow
    /// the pointer from `from` to `to`.
    pub fn translate_in_screen_plane(
        &mut self,
        from: Point2<f64>,
        to: Point2<f64>,
        viewport: &Viewport,
    ) {
        let depth = (-self.translation.z).max(f64::EPSILON);
        let units_per_pixel = depth / self.focal_pixels(viewport);
        let motion = to - from;
        self.translation.x += motion.x * units_per_pixel;
        self.translation.y -= motion.y * units_per_pixel;
    }

    /// Scales the scene about the centre for vertical motion (up enlarges) and turns it about
    /// the view axis for horizontal motion (right turns clockwise), as DDN's right button does.
    pub fn scale_and_roll(&mut self, from: Point2<f64>, to: Point2<f64>, viewport: &Viewport) {
        let motion: Vector2<f64> = to - from;
        let doublings = -motion.y / viewport.height.max(1.0) * SCALE_DOUBLINGS_PER_HEIGHT;
        self.scale *= 2f64.powf(doublings);
        let angle = -motion.x / viewport.width.max(1.0) * ROLL_RADIANS_PER_WIDTH;
        self.rotation = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), angle) * self.rotation;
    }

    /// Centres the view on `bounds` and moves the eye back until the sphere around the box
    /// fits the viewport, keeping the rotation and scale.
    pub fn fit(&mut self, bounds: &Bounds, viewport: &Viewport) {
        let half_fov_y = self.fov_y / 2.0;
        let half_fov_x = (half_fov_y.tan() * viewport.aspect()).atan();
        let half_fov = half_fov_y.min(half_fov_x);
        let radius = (bounds.radius() * self.scale).max(1e-9);
        self.centre = bounds.centre();
        self.translation = Vector3::new(0.0, 0.0, -radius / half_fov.sin());
    }
}

/// A screen point lifted onto the unit virtual sphere in eye space.
fn virtual_sphere_point(screen: Point2<f64>, viewport: &Viewport) -> Vector3<f64> {
    let radius = viewport.width.min(viewport.height).max(1.0) / 2.0;
    let d = (screen - viewport.centre()) / radius;
    let (x, y) = (d.x, -d.y);
    let r2 = x * x + y * y;
    if r2 <= 1.0 {
        Vector3::new(x, y, (1.0 - r2).sqrt())
    } else {
        let r = r2.sqrt();
        Vector3::new(x / r, y / r, 0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const VIEW: Viewport = Viewport {
        width: 640.0,
        height: 480.0,
    };

    fn assert_close(a: Vector3<f64>, b: Vector3<f64>, tolerance: f64) {
        assert!((a - b).norm() < tolerance, "{a:?} != {b:?}");
    }

    #[test]
    fn horizontal_drag_through_the_centre_turns_about_the_screen_vertical() {
        let mut camera = Camera::default();
        camera.rotate_virtual_sphere(Point2::new(320.0, 240.0), Point2::new(400.0, 240.0), &VIEW);
        let (axis, angle) = camera.rotation.axis_angle().unwrap();
        assert_close(axis.into_inner(), Vector3::y(), 1e-12);
        // 80 px on a 240 px sphere: the surface point moves by asin(1/3).
        assert!((angle - (1.0f64 / 3.0).asin()).abs() < 1e-12);
        // A point in front of the centre moves right on the screen, like the pointer.
        let front = camera.project(&Point3::new(0.0, 0.0, 1.0), &VIEW).unwrap();
        assert!(front.x > 320.0);
    }

    #[test]
    fn vertical_drag_through_the_centre_turns_about_the_screen_horizontal() {
        let mut camera = Camera::default();
        camera.rotate_virtual_sphere(Point2::new(320.0, 240.0), Point2::new(320.0, 200.0), &VIEW);
        let (axis, _) = camera.rotation.axis_angle().unwrap();
        assert_close(axis.into_inner(), -Vector3::x(), 1e-12);
    }

    #[test]
    fn rotation_keeps_the_centre_in_place() {
        let mut camera = Camera {
            centre: Point3::new(1.0, 2.0, 3.0),
            translation: Vector3::new(0.5, -0.2, -8.0),
            ..Camera::default()
        };
        let before = camera.project(&camera.centre, &VIEW).unwrap();
        camera.rotate_virtual_sphere(Point2::new(100.0, 50.0), Point2::new(300.0, 400.0), &VIEW);
        camera.scale_and_roll(Point2::new(10.0, 10.0), Point2::new(60.0, -30.0), &VIEW);
        let after = camera.project(&camera.centre, &VIEW).unwrap();
        assert!((before.x - after.x).abs() < 1e-9 && (before.y - after.y).abs() < 1e-9);
    }

    #[test]
    fn dragging_up_enlarges_and_dragging_right_rolls_clockwise() {
        let mut camera = Camera::default();
        camera.scale_and_roll(Point2::new(0.0, 240.0), Point2::new(0.0, 0.0), &VIEW);
        assert!((camera.scale - 2.0).abs() < 1e-12);
        let mut camera = Camera::default();
        camera.scale_and_roll(Point2::new(0.0, 0.0), Point2::new(320.0, 0.0), &VIEW);
        let up = camera.project(&Point3::new(0.0, 1.0, 0.0), &VIEW).unwrap();
        // A point straight above the centre is now to its right: clockwise by 90°.
        assert!((up.x - 320.0) > 10.0 && (up.y - 240.0).abs() < 1e-9);
    }

    #[test]
    fn screen_translation_makes_the_centre_follow_the_pointer() {
        let mut camera = Camera::default();
        camera.translate_in_screen_plane(
            Point2::new(320.0, 240.0),
            Point2::new(350.0, 200.0),
            &VIEW,
        );
        let seen = camera.project(&Point3::origin(), &VIEW).unwrap();
        assert!((seen.x - 350.0).abs() < 1e-9 && (seen.y - 200.0).abs() < 1e-9);
    }

    #[test]
    fn fit_puts_every_corner_on_the_screen() {
        let mut camera = Camera {
            rotation: UnitQuaternion::from_euler_angles(0.3, -0.7, 0.2),
            scale: 3.0,
            ..Camera::default()
        };
        let bounds = Bounds {
            min: Point3::new(10.0, -4.0, 2.0),
            max: Point3::new(30.0, 1.0, 5.0),
        };
        camera.fit(&bounds, &VIEW);
        let mut widest = 0.0f64;
        for corner in bounds.corners() {
            let p = camera.project(&corner, &VIEW).unwrap();
            assert!(p.x >= 0.0 && p.x <= VIEW.width && p.y >= 0.0 && p.y <= VIEW.height);
            widest = widest.max((p.y - 240.0).abs());
        }
        let centre = camera.project(&bounds.centre(), &VIEW).unwrap();
        assert!((centre.x - 320.0).abs() < 1e-9 && (centre.y - 240.0).abs() < 1e-9);
        // Fitting is snug: the box spans a good part of the smaller dimension.
        assert!(widest > 0.35 * 240.0, "box looks too small: {widest}");
    }

    #[test]
    fn centre_under_a_screen_point_is_midway_in_depth_and_keeps_the_picture() {
        let mut camera = Camera::default();
        let probe = Point3::new(0.7, 0.3, -2.0);
        let before = camera.project(&probe, &VIEW).unwrap();
        let screen = Point2::new(400.0, 100.0);
        camera.set_centre_under(screen, 9.0, 13.0, &VIEW);
        let centre_seen = camera.project(&camera.centre, &VIEW).unwrap();
        assert!((centre_seen.x - 400.0).abs() < 1e-9 && (centre_seen.y - 100.0).abs() < 1e-9);
        assert!((centre_seen.depth - 11.0).abs() < 1e-9);
        let after = camera.project(&probe, &VIEW).unwrap();
        assert!((before.x - after.x).abs() < 1e-9 && (before.depth - after.depth).abs() < 1e-9);
    }

    #[test]
    fn clip_range_encloses_the_spheres() {
        let camera = Camera::default();
        let (near, far) =
            camera.clip_range(&[(Point3::new(0.0, 0.0, 1.0), 0.5), (Point3::origin(), 2.0)]);
        assert!(near > 0.0 && near <= 8.0 && (12.0..13.0).contains(&far));
        assert_eq!(camera.clip_range(&[]), (0.1, 100.0));
    }

    #[test]
    fn view_matrix_agrees_with_to_eye() {
        let camera = Camera {
            translation: Vector3::new(0.3, 0.1, -7.0),
            rotation: UnitQuaternion::from_euler_angles(0.4, 0.1, -1.0),
            scale: 1.7,
            centre: Point3::new(-1.0, 2.0, 0.5),
            fov_y: 0.8,
        };
        let p = Point3::new(2.0, -1.0, 4.0);
        assert_close(
            camera.view_matrix().transform_point(&p).coords,
            camera.to_eye(&p).coords,
            1e-12,
        );
        assert_close(camera.from_eye(&camera.to_eye(&p)).coords, p.coords, 1e-12);
        // The GL projection puts a projected point at the same pixel as `project`.
        let clip = camera.projection_matrix(VIEW.aspect(), 1.0, 50.0)
            * camera.view_matrix()
            * p.to_homogeneous();
        let ndc = clip.xyz() / clip.w;
        let seen = camera.project(&p, &VIEW).unwrap();
        assert!(((ndc.x + 1.0) / 2.0 * VIEW.width - seen.x).abs() < 1e-9);
        assert!(((1.0 - ndc.y) / 2.0 * VIEW.height - seen.y).abs() < 1e-9);
    }

    proptest! {
        #[test]
        fn project_and_unproject_round_trip(
            x in -5.0f64..5.0, y in -5.0f64..5.0, z in -5.0f64..5.0,
            roll in -3.0f64..3.0, pitch in -1.5f64..1.5, yaw in -3.0f64..3.0,
            scale in 0.2f64..5.0,
        ) {
            let camera = Camera {
                translation: Vector3::new(0.2, -0.4, -40.0),
                rotation: UnitQuaternion::from_euler_angles(roll, pitch, yaw),
                scale,
                centre: Point3::new(1.0, 0.5, -0.5),
                ..Camera::default()
            };
            let p = Point3::new(x, y, z);
            let seen = camera.project(&p, &VIEW).unwrap();
            let ray = camera.unproject(Point2::new(seen.x, seen.y), &VIEW);
            let back = camera.unproject_at_depth(Point2::new(seen.x, seen.y), seen.depth, &VIEW);
            prop_assert!((back - p).norm() < 1e-9);
            // The point lies on the ray.
            let t = (p - ray.origin).dot(&ray.direction);
            prop_assert!((ray.at(t) - p).norm() < 1e-9);
            prop_assert!(t > 0.0);
        }
    }
}
