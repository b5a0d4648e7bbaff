//! Occlusion culling: bodies hidden behind others are not drawn.
//!
//! In a crowded picture most bodies are behind others (of a 10 × 10 × 10 block, three in ten
//! show), and a software rasteriser pays for every triangle and fragment of them. So bodies
//! are drawn in two passes. The first draws those seen in the last frame. Then the depth
//! buffer is read back and reduced to the farthest depth of each 8 × 8 pixel tile; every other
//! body whose bounding sphere, projected, lies behind the farthest depth of every tile it
//! covers (or off the picture) is hidden, and the rest are drawn in the second pass. The
//! test is conservative: a body that could show is drawn, so the picture is exactly what
//! drawing everything gives, whatever moved since the last frame. Every few frames the
//! finished depth buffer is read again and every body tested against it, which gives the next
//! frames' first pass ([`Shown`]); in between, the bodies the second pass drew join it.
//!
//! Reading depth back stalls the pipeline (about a millisecond each at 640 × 480 on
//! llvmpipe), so culling is used only for frames of many bodies, and not on OpenGL ES, which
//! cannot read depth back.

use nalgebra::{Matrix4, Point3, Vector4};

/// Frames with fewer bodies are drawn without culling.
pub(super) const MIN_BODIES: usize = 200;
/// The finished depth is read to find what a view shows every this many frames.
const REFRESH: u32 = 4;

/// What a view shows: per body, whether the finished depth showed it when last read, and
/// the bodies drawn late since.
#[derive(Default)]
pub(super) struct Shown {
    pub bodies: Vec<bool>,
    /// Frames since the finished depth was last read.
    age: u32,
}

impl Shown {
    /// Per body of a frame of `count` bodies, whether it showed: nothing is known when the
    /// count changed.
    pub fn of(&self, count: usize) -> &[bool] {
        if self.bodies.len() == count {
            &self.bodies
        } else {
            &[]
        }
    }

    /// Whether this frame of `count` bodies reads its finished depth to find what shows
    /// (every few frames, and whenever the count changed).
    pub fn due(&mut self, count: usize) -> bool {
        self.age += 1;
        let due = self.bodies.len() != count || self.age >= REFRESH;
        if due {
            self.age = 0;
        }
        due
    }
}
/// The side of a depth tile, in pixels.
pub(super) const TILE: usize = 8;

/// Where a body's bounding sphere can cover the picture: a rectangle of tiles and the window
/// depth (0 near to 1 far) of its nearest point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Footprint {
    /// Outside the picture.
    Off,
    /// Reaching the eye or the near plane: it may cover anything.
    Everywhere,
    Tiles {
        x: (usize, usize),
        y: (usize, usize),
        depth: f32,
    },
}

/// The footprint of the sphere `(centre, radius)` (world, relative to the frame's origin) in
/// a `width` × `height` picture seen through `view` (a rigid motion with uniform scale, to
/// eye coordinates) and `projection` (eye to clip, perspective or orthographic).
pub(super) fn footprint(
    view: &Matrix4<f64>,
    projection: &Matrix4<f64>,
    (width, height): (u32, u32),
    centre: &Point3<f64>,
    radius: f64,
) -> Footprint {
    let c = view.transform_point(centre);
    let r = radius * view.fixed_view::<3, 1>(0, 0).norm();
    let distance = -c.z;
    let orthographic = projection[(3, 3)] == 1.0;
    // The near plane's depth: where the projection sends window depth 0.
    let near = if orthographic {
        (projection[(2, 3)] + 1.0) / projection[(2, 2)]
    } else {
        projection[(2, 3)] / (projection[(2, 2)] - 1.0)
    };
    if distance - r <= near * 1.0001 || (!orthographic && distance - r <= 0.0) {
        return Footprint::Everywhere;
    }
    // The silhouette lies within a circle around the centre's projection: of radius r in an
    // orthographic view, and r / (d - r) (times the focal length) in a perspective one,
    // whatever the sphere's direction.
    let (cx, cy, spread) = if orthographic {
        (c.x, c.y, r)
    } else {
        (c.x / distance, c.y / distance, r / (distance - r))
    };
    let half = (f64::from(width) / 2.0, f64::from(height) / 2.0);
    let scale_x = projection[(0, 0)] * half.0;
    let scale_y = projection[(1, 1)] * half.1;
    let offset_x = projection[(0, 3)] * half.0;
    let offset_y = projection[(1, 3)] * half.1;
    let x0 = half.0 + offset_x + (cx - spread) * scale_x - 1.0;
    let x1 = half.0 + offset_x + (cx + spread) * scale_x + 1.0;
    let y0 = half.1 + offset_y + (cy - spread) * scale_y - 1.0;
    let y1 = half.1 + offset_y + (cy + spread) * scale_y + 1.0;
    if x1 < 0.0 || y1 < 0.0 || x0 >= f64::from(width) || y0 >= f64::from(height) {
        return Footprint::Off;
    }
    let clip = projection * Vector4::new(0.0, 0.0, -(distance - r), 1.0);
    let depth = 0.5 * clip.z / clip.w + 0.5;
    if depth > 1.0 {
        return Footprint::Off;
    }
    let tile = |v: f64, limit: u32| (v.max(0.0) as usize / TILE).min((limit as usize - 1) / TILE);
    Footprint::Tiles {
        x: (tile(x0, width), tile(x1, width)),
        y: (tile(y0, height), tile(y1, height)),
        depth: depth as f32,
    }
}

/// The farthest depth in each tile of a depth buffer.
pub(super) struct DepthTiles {
    columns: usize,
    farthest: Vec<f32>,
}

impl DepthTiles {
    /// Reduces `depth` (window depths, rows from the bottom, `width` × `height`).
    pub fn new(depth: &[f32], width: u32, height: u32) -> DepthTiles {
        let (width, height) = (width as usize, height as usize);
        let columns = width.div_ceil(TILE);
        let rows = height.div_ceil(TILE);
        let mut farthest = vec![0.0f32; columns * rows];
        for (y, row) in depth.chunks_exact(width).take(height).enumerate() {
            let tiles = &mut farthest[(y / TILE) * columns..(y / TILE + 1) * columns];
            for (tile, pixels) in tiles.iter_mut().zip(row.chunks(TILE)) {
                *tile = pixels.iter().fold(*tile, |m, &d| m.max(d));
            }
        }
        DepthTiles { columns, farthest }
    }

    /// Whether something drawn lies in front of all of `footprint`.
    pub fn hides(&self, footprint: &Footprint) -> bool {
        match *footprint {
            Footprint::Off => true,
            Footprint::Everywhere => false,
            Footprint::Tiles { x, y, depth } => (y.0..=y.1).all(|row| {
                self.farthest[row * self.columns + x.0..=row * self.columns + x.1]
                    .iter()
                    .all(|&far| far < depth)
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::camera::{Camera, Viewport};
    use nalgebra::Matrix4;

    #[test]
    fn a_body_behind_a_wall_is_hidden_and_one_beside_it_is_not() {
        let (width, height) = (64u32, 48u32);
        // A wall at window depth 0.5 over the left half; the background (1.0) on the right.
        let depth: Vec<f32> = (0..height)
            .flat_map(|_| (0..width).map(|x| if x < 32 { 0.5 } else { 1.0 }))
            .collect();
        let tiles = DepthTiles::new(&depth, width, height);
        let tile = |x, depth| Footprint::Tiles {
            x,
            y: (1, 3),
            depth,
        };
        assert!(tiles.hides(&tile((0, 3), 0.6)));
        assert!(!tiles.hides(&tile((0, 3), 0.4)), "in front of the wall");
        assert!(!tiles.hides(&tile((2, 4), 0.6)), "reaching past the wall");
        assert!(tiles.hides(&Footprint::Off));
        assert!(!tiles.hides(&Footprint::Everywhere));
    }

    #[test]
    fn footprints_cover_the_projected_sphere() {
        let camera = Camera::default();
        let viewport = Viewport::new(64.0, 48.0);
        let view = camera.view_matrix();
        let projection = camera.projection_matrix(viewport.aspect(), 1.0, 100.0);
        let sphere = Point3::new(1.0, 0.5, 0.0);
        let Footprint::Tiles { x, y, depth } =
            footprint(&view, &projection, (64, 48), &sphere, 0.5)
        else {
            panic!("the sphere is in view");
        };
        // Its rightmost point, projected, lies in the footprint (in GL window coordinates,
        // y up from the bottom).
        let seen = camera
            .project(&Point3::new(1.5, 0.5, 0.0), &viewport)
            .unwrap();
        let column = seen.x as usize / TILE;
        let row = (48.0 - seen.y) as usize / TILE;
        assert!((x.0..=x.1).contains(&column) && (y.0..=y.1).contains(&row));
        assert!(depth > 0.0 && depth < 1.0);
        assert_eq!(
            footprint(
                &view,
                &projection,
                (64, 48),
                &Point3::new(40.0, 0.0, 0.0),
                0.5
            ),
            Footprint::Off
        );
        assert_eq!(
            footprint(
                &view,
                &projection,
                (64, 48),
                &Point3::new(0.0, 0.0, 9.5),
                1.0
            ),
            Footprint::Everywhere
        );
    }

    #[test]
    fn orthographic_footprints_are_the_sphere_s_extent() {
        let view = Matrix4::new_translation(&nalgebra::Vector3::new(0.0, 0.0, -5.0));
        let projection =
            nalgebra::Orthographic3::new(-2.0, 2.0, -2.0, 2.0, 1.0, 9.0).to_homogeneous();
        // A sphere of radius 0.5 at the centre of a 4-unit view 64 pixels wide covers pixels
        // 24 to 40.
        let Footprint::Tiles { x, y, depth } =
            footprint(&view, &projection, (64, 64), &Point3::origin(), 0.5)
        else {
            panic!("the sphere is in view");
        };
        assert_eq!(x, (2, 5));
        assert_eq!(y, (2, 5));
        // Its nearest point is 4.5 from the eye, between the planes at 1 and 9.
        assert!((f64::from(depth) - 3.5 / 8.0).abs() < 1e-6, "{depth}");
    }
}
