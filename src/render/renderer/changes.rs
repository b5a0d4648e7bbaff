//! Redrawing only what changed: when a frame differs from the last one drawn only in some
//! bodies, handles, arrows, lines or trajectories (a handle dragged, a body hovered or
//! selected), the view, lights, ground and looks all the same, the renderer keeps the last
//! picture and draws again only the pixels those items covered before or cover now, with
//! the shadows they cast on the way to the ground, and smooths the edges again only there
//! (the smoothed picture is kept too, see [`super::post`]).
//!
//! A software rasteriser pays for every fragment and every triangle: dragging a handle in a
//! picture of 1,000 bodies then costs the few bodies near the handle instead of all of them.
//! The region is conservative (bounding spheres, whole 8-pixel tiles, margins for outlines,
//! arrowheads and shadow filtering) and every pass draws inside it exactly as it would over
//! the whole picture, so the result is the picture a full redraw gives.

use super::batches::{Eye, MeshRef, ARROWHEAD_PIXELS, HIGHLIGHT_GROWTH, MARKER_PIXELS, SELECTED};
use super::cull::{footprint, Footprint, TILE};
use super::gpu::Instance;
use super::prepare::{GroundValues, LightValues};
use super::shadow::ShadowView;
use crate::render::frame::{Frame, Rgba};
use nalgebra::{Matrix4, Point3, Vector4};

/// Pixels around items drawn at a fixed size on the screen (line width, edge fading).
const MARGIN_PIXELS: f64 = 2.0;
/// How far (shadow-map texels) a caster's shadow may spread past its bounding sphere:
/// filtering and the lookups' offset along the normal.
const SHADOW_MARGIN_TEXELS: f64 = 3.0;
/// A region larger than this share of the picture (or map) is drawn as a whole frame, which
/// culls hidden bodies (the region's frame draws every body reaching into it).
const LARGEST_SHARE: (u64, u64) = (1, 3);

/// Everything about a picture besides its items: when any of it changes, every pixel may.
#[derive(Clone, PartialEq)]
pub(super) struct Setting {
    pub width: u32,
    pub height: u32,
    pub view: Matrix4<f64>,
    pub projection: Matrix4<f64>,
    pub lights: LightValues,
    pub background: Rgba,
    pub shadow: Option<ShadowView>,
    pub ground: Option<GroundValues>,
    pub handle_radius: f32,
}

/// The last picture kept in the renderer's picture target: its setting and its frame.
pub(super) struct Kept {
    pub setting: Setting,
    pub frame: Frame,
}

/// A rectangle of pixels in GL window coordinates (rows from the bottom), `[x0, x1)` ×
/// `[y0, y1)`; empty when `x0 >= x1` or `y0 >= y1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Region {
    pub x0: u32,
    pub y0: u32,
    pub x1: u32,
    pub y1: u32,
}

impl Region {
    pub const EMPTY: Region = Region {
        x0: 0,
        y0: 0,
        x1: 0,
        y1: 0,
    };

    pub fn is_empty(&self) -> bool {
        self.x0 >= self.x1 || self.y0 >= self.y1
    }

    /// The region grown by `pixels` on every side, within a picture of `(width, height)`;
    /// empty stays empty.
    pub fn grown(self, pixels: u32, (width, height): (u32, u32)) -> Region {
        if self.is_empty() {
            return self;
        }
        Region {
            x0: self.x0.saturating_sub(pixels),
            y0: self.y0.saturating_sub(pixels),
            x1: (self.x1 + pixels).min(width),
            y1: (self.y1 + pixels).min(height),
        }
    }

    /// The smallest region holding both.
    pub fn union(self, other: Region) -> Region {
        if self.is_empty() {
            return other;
        }
        if other.is_empty() {
            return self;
        }
        Region {
            x0: self.x0.min(other.x0),
            y0: self.y0.min(other.y0),
            x1: self.x1.max(other.x1),
            y1: self.y1.max(other.y1),
        }
    }

    /// The pixels both regions hold.
    pub fn intersection(self, other: Region) -> Region {
        Region {
            x0: self.x0.max(other.x0),
            y0: self.y0.max(other.y0),
            x1: self.x1.min(other.x1),
            y1: self.y1.min(other.y1),
        }
    }

    /// Whether `footprint` reaches into the region.
    pub fn meets(&self, footprint: &Footprint) -> bool {
        match *footprint {
            Footprint::Off => false,
            Footprint::Everywhere => !self.is_empty(),
            Footprint::Tiles { x, y, .. } => {
                let (x0, x1) = ((x.0 * TILE) as u32, ((x.1 + 1) * TILE) as u32);
                let (y0, y1) = ((y.0 * TILE) as u32, ((y.1 + 1) * TILE) as u32);
                x0 < self.x1 && self.x0 < x1 && y0 < self.y1 && self.y0 < y1
            }
        }
    }
}

/// The pixels of a picture of `size` that a sphere (world, relative to the frame's origin)
/// may cover, grown by `tiles` tiles: `None` when it reaches the eye.
pub(super) fn sphere_region(
    view: &Matrix4<f64>,
    projection: &Matrix4<f64>,
    size: (u32, u32),
    centre: &Point3<f64>,
    radius: f64,
    tiles: usize,
) -> Option<Region> {
    Region::of(
        &footprint(view, projection, size, centre, radius),
        size,
        tiles,
    )
}

impl Region {
    /// The pixels of a picture of `(width, height)` that `footprint` covers, grown by
    /// `tiles` tiles: `None` when it may cover everything.
    fn of(footprint: &Footprint, (width, height): (u32, u32), tiles: usize) -> Option<Region> {
        match *footprint {
            Footprint::Off => Some(Region::EMPTY),
            Footprint::Everywhere => None,
            Footprint::Tiles { x, y, .. } => Some(Region {
                x0: (x.0.saturating_sub(tiles) * TILE) as u32,
                y0: (y.0.saturating_sub(tiles) * TILE) as u32,
                x1: (((x.1 + 1 + tiles) * TILE) as u32).min(width),
                y1: (((y.1 + 1 + tiles) * TILE) as u32).min(height),
            }),
        }
    }

    /// Whether the region covers more than [`LARGEST_SHARE`] of a `width` × `height`
    /// picture, which is then better drawn whole.
    fn too_large(&self, width: u32, height: u32) -> bool {
        let area =
            u64::from(self.x1.saturating_sub(self.x0)) * u64::from(self.y1.saturating_sub(self.y0));
        area * LARGEST_SHARE.1 > u64::from(width) * u64::from(height) * LARGEST_SHARE.0
    }
}

/// The texels of a shadow map of `size` a side that differ between the casters it holds
/// (`old`, reaching `old_reach`) and `new` (reaching `new_reach`), each in the frame's
/// order: `None` when the whole map must be drawn.
pub(super) fn changed_casters(
    old: (&[(MeshRef, Instance)], &[Footprint]),
    new: (&[(MeshRef, Instance)], &[Footprint]),
    size: u32,
) -> Option<Region> {
    if old.0.len() != new.0.len() {
        return None;
    }
    let mut region = Region::EMPTY;
    for (i, (a, b)) in old.0.iter().zip(new.0).enumerate() {
        if a != b {
            for reach in [&old.1[i], &new.1[i]] {
                region = region.union(Region::of(reach, (size, size), 0)?);
            }
            if region.too_large(size, size) {
                return None;
            }
        }
    }
    Some(region)
}

/// What the changed items of one frame cover.
struct Changes<'a> {
    eye: &'a Eye<'a>,
    setting: &'a Setting,
    region: Region,
    /// Whether the whole picture is drawn: some item reaches the eye, or the region grew
    /// past [`LARGEST_SHARE`] of the picture.
    whole: bool,
}

impl Changes<'_> {
    /// Adds a sphere given in world coordinates.
    fn sphere(&mut self, centre: &Point3<f64>, radius: f64, tiles: usize) {
        let relative = Point3::from(centre - self.eye.origin);
        let s = self.setting;
        match sphere_region(
            &s.view,
            &s.projection,
            (s.width, s.height),
            &relative,
            radius,
            tiles,
        ) {
            Some(region) => {
                self.region = self.region.union(region);
                self.whole |= self.region.too_large(s.width, s.height);
            }
            None => self.whole = true,
        }
    }

    /// Adds a point drawn `pixels` around on the screen.
    fn point(&mut self, p: &Point3<f64>, pixels: f64) {
        let radius = self.eye.world_length(p, pixels + MARGIN_PIXELS);
        self.sphere(p, radius, 0);
    }

    /// Adds the shadow a sphere casts: the sphere swept along the key light's rays to the far
    /// end of the light's view (the ground, or past every body), grown by the map's blur.
    fn shadow(&mut self, shadow: &ShadowView, centre: &Point3<f64>, radius: f64) {
        let radius = radius + SHADOW_MARGIN_TEXELS * shadow.texel;
        let relative = Point3::from(centre - self.eye.origin);
        let in_light = shadow.view.transform_point(&relative);
        let depth = -in_light.z;
        let p = &shadow.projection;
        let orthographic = p[(3, 3)] == 1.0;
        let far = if orthographic {
            (p[(2, 3)] - 1.0) / p[(2, 2)]
        } else {
            p[(2, 3)] / (1.0 + p[(2, 2)])
        };
        let Some(to_world) = shadow.view.try_inverse() else {
            self.whole = true;
            return;
        };
        let (end, end_radius) = if orthographic {
            (Point3::new(in_light.x, in_light.y, -far), radius)
        } else if depth > 1e-9 {
            (in_light * (far / depth), radius * far / depth)
        } else {
            self.whole = true;
            return;
        };
        let end = to_world * Vector4::new(end.x, end.y, end.z, 1.0);
        let end = Point3::new(end.x, end.y, end.z) + self.eye.origin.coords;
        self.sphere(centre, radius, 0);
        self.sphere(&end, end_radius, 0);
    }
}

/// How many items past a difference [`differing`] looks in each list for the two lists to
/// agree again.
const RESYNC_WINDOW: usize = 8;

/// Walks two lists of items drawn in order (`old`, `new`) and calls `changed` with every item
/// of either that has no equal partner in the other: equal items are paired in order, and
/// where the lists differ the nearest place where they agree again (within
/// [`RESYNC_WINDOW`] items in each) is found, so one item added or removed in a long list
/// shows as that item and not as every item after it. Items are listed by what they belong
/// to (a body's arrows together, each force's after the bodies'), so pairing equal items in
/// order pairs each item with itself before the change. Any pairing is correct here, as the
/// pixels that differ lie under the items of either list that are not paired with an equal
/// one; a better pairing only makes the region smaller. Stops when `changed` returns false.
fn differing<T: PartialEq>(old: &[T], new: &[T], mut changed: impl FnMut(&T) -> bool) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < old.len() && j < new.len() {
        if old[i] == new[j] {
            i += 1;
            j += 1;
            continue;
        }
        // The fewest items skipped, a in the old list and b in the new, after which they
        // agree again; the same count on both sides first (items changed in place).
        let agree =
            |a: usize, b: usize| i + a < old.len() && j + b < new.len() && old[i + a] == new[j + b];
        let skip = (1..=2 * RESYNC_WINDOW)
            .find_map(|s| {
                let half = s / 2;
                (0..=half).find_map(|d| {
                    [(half - d, s - half + d), (s - half + d, half - d)]
                        .into_iter()
                        .find(|&(a, b)| a <= RESYNC_WINDOW && b <= RESYNC_WINDOW && agree(a, b))
                })
            })
            .unwrap_or((1, 1));
        for item in old[i..i + skip.0].iter().chain(&new[j..j + skip.1]) {
            if !changed(item) {
                return false;
            }
        }
        (i, j) = (i + skip.0, j + skip.1);
    }
    old[i..].iter().chain(&new[j..]).all(changed)
}

/// The pixels that differ between `kept` and `frame` drawn in `setting`, seen through `eye`;
/// `radius` tells each object's bounding radius, `shadow` the key light's view when the map
/// is drawn again. `None` when the whole picture is to be drawn: the setting changed, a
/// changed item reaches the eye, or the changes cover more than [`LARGEST_SHARE`] of the
/// picture. Items of each kind are paired by [`differing`], so items added or removed (a
/// body, its velocity arrow as it starts or stops moving) count as changes where they are.
pub(super) fn changed_region(
    kept: &Kept,
    frame: &Frame,
    setting: &Setting,
    eye: &Eye,
    radius: impl Fn(&crate::render::frame::Object) -> f64,
    shadow: Option<&ShadowView>,
) -> Option<Region> {
    let old = &kept.frame;
    if kept.setting != *setting || old.wireframe || frame.wireframe || old.looks != frame.looks {
        return None;
    }
    let mut changes = Changes {
        eye,
        setting,
        region: Region::EMPTY,
        whole: false,
    };
    // Outlines reach a few pixels past the body's silhouette: one more tile.
    let outline_tiles = (SELECTED.outline_pixels as usize).div_ceil(TILE) + 1;
    let handle_pixels = f64::from(setting.handle_radius) * HIGHLIGHT_GROWTH + 1.0;
    let done = differing(&old.objects, &frame.objects, |o| {
        let centre = o.placement() * Point3::origin();
        let r = radius(o);
        changes.sphere(&centre, r, outline_tiles);
        if let Some(shadow) = shadow {
            changes.shadow(shadow, &centre, r);
        }
        !changes.whole
    }) && differing(&old.handles, &frame.handles, |h| {
        changes.point(&h.position, handle_pixels);
        !changes.whole
    }) && differing(&old.arrows, &frame.arrows, |arrow| {
        changes.point(&arrow.origin, 0.0);
        changes.point(&(arrow.origin + arrow.vector), ARROWHEAD_PIXELS);
        !changes.whole
    }) && differing(&old.lines, &frame.lines, |line| {
        changes.point(&line.from, 0.0);
        changes.point(&line.to, 0.0);
        !changes.whole
    }) && differing(&old.polylines, &frame.polylines, |polyline| {
        for p in &polyline.points {
            changes.point(p, 0.0);
        }
        for p in &polyline.control_points {
            changes.point(p, MARKER_PIXELS);
        }
        !changes.whole
    });
    (done && !changes.whole).then_some(changes.region)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::camera::{Camera, Viewport};
    use crate::render::frame::Object;
    use crate::render::mesh::MeshKey;
    use crate::render::shader::MAX_LIGHTS;
    use nalgebra::{Isometry3, Vector3};

    /// Ten by ten balls of radius 0.3 in front of the default camera.
    fn grid() -> Frame {
        let objects = (0..100)
            .map(|i| Object {
                mesh: MeshKey(1),
                pose: Isometry3::translation(f64::from(i % 10) - 4.5, f64::from(i / 10) - 4.5, 0.0),
                offset: Vector3::zeros(),
                colour: [0.5; 4],
                selected: false,
                hovered: false,
            })
            .collect();
        Frame {
            objects,
            camera: Camera {
                translation: Vector3::new(0.0, 0.0, -20.0),
                ..Camera::default()
            },
            ..Frame::default()
        }
    }

    fn setting(camera: &Camera, viewport: &Viewport) -> Setting {
        Setting {
            width: viewport.width as u32,
            height: viewport.height as u32,
            view: Eye::new(camera, viewport).view,
            projection: camera.projection_matrix(viewport.aspect(), 1.0, 100.0),
            lights: LightValues {
                count: 1,
                positions: [0.0; 4 * MAX_LIGHTS],
                colours: [0.0; 3 * MAX_LIGHTS],
                shadow_light: -1,
                up: [0.0, 1.0, 0.0],
                ambient: 0.4,
            },
            background: [0.0; 4],
            shadow: None,
            ground: None,
            handle_radius: 6.0,
        }
    }

    /// The region [`changed_region`] finds from `kept` (drawn 640 × 480 through its camera,
    /// every body a ball of radius 0.3) to `frame` drawn in `setting` (`kept`'s by default).
    fn region_between(kept: &Frame, frame: &Frame, setting: Option<&Setting>) -> Option<Region> {
        let viewport = Viewport::new(640.0, 480.0);
        let eye = Eye::new(&kept.camera, &viewport);
        let own = self::setting(&kept.camera, &viewport);
        let kept = Kept {
            setting: own.clone(),
            frame: kept.clone(),
        };
        changed_region(&kept, frame, setting.unwrap_or(&own), &eye, |_| 0.3, None)
    }

    #[test]
    fn one_body_moved_is_a_small_region_and_a_new_view_is_everything() {
        let frame = grid();
        let viewport = Viewport::new(640.0, 480.0);
        let setting = setting(&frame.camera, &viewport);
        let region = |f: &Frame, s: &Setting| region_between(&frame, f, Some(s));
        assert_eq!(
            region(&frame, &setting),
            Some(Region::EMPTY),
            "nothing moved"
        );
        let mut moved = frame.clone();
        moved.objects[55].pose.translation.x += 0.2;
        let r = region(&moved, &setting).expect("a body moved in the view");
        let area = f64::from((r.x1 - r.x0) * (r.y1 - r.y0));
        assert!(!r.is_empty() && area < 0.05 * 640.0 * 480.0, "{r:?}");
        let mut hovered = frame.clone();
        hovered.objects[3].hovered = true;
        assert!(region(&hovered, &setting).is_some_and(|r| !r.is_empty()));
        let mut turned = frame.camera;
        turned.translation.x += 0.1;
        assert_eq!(region(&frame, &self::setting(&turned, &viewport)), None);
        let mut added = frame.clone();
        added.objects.insert(7, frame.objects[0].clone());
        let r = region(&added, &setting).expect("a body added");
        assert!(r.meets(&footprint_of(&frame, 0)) && !r.meets(&footprint_of(&frame, 99)));
        let mut removed = frame.clone();
        removed.objects.remove(42);
        let r = region(&removed, &setting).expect("a body removed");
        assert!(r.meets(&footprint_of(&frame, 42)) && !r.meets(&footprint_of(&frame, 0)));
    }

    /// Where body `i` of `frame` lies on a 640 × 480 picture.
    fn footprint_of(frame: &Frame, i: usize) -> Footprint {
        let viewport = Viewport::new(640.0, 480.0);
        let eye = Eye::new(&frame.camera, &viewport);
        let centre = Point3::from(frame.objects[i].pose.translation.vector - eye.origin.coords);
        let s = setting(&frame.camera, &viewport);
        footprint(&s.view, &s.projection, (640, 480), &centre, 0.3)
    }

    #[test]
    fn an_arrow_coming_or_going_is_a_region_of_that_arrow() {
        let mut frame = grid();
        frame.arrows = frame
            .objects
            .iter()
            .map(|o| crate::render::frame::Arrow {
                origin: Point3::from(o.pose.translation.vector),
                vector: Vector3::new(0.0, 0.3, 0.0),
                colour: [1.0; 4],
            })
            .collect();
        let region = |f: &Frame| region_between(&frame, f, None);
        let mut gone = frame.clone();
        gone.arrows.remove(12);
        let r = region(&gone).expect("one arrow less is a region");
        assert!(r.meets(&footprint_of(&frame, 12)), "{r:?}");
        assert!(!r.meets(&footprint_of(&frame, 13)) && !r.meets(&footprint_of(&frame, 99)));
        let mut come = frame.clone();
        let mut arrow = come.arrows[30].clone();
        arrow.vector.x = 0.2;
        come.arrows.insert(31, arrow);
        // And another body's arrow turned, further on.
        come.arrows[35].vector.z = 0.1;
        let r = region(&come).expect("one arrow more is a region");
        assert!(r.meets(&footprint_of(&frame, 30)) && r.meets(&footprint_of(&frame, 34)));
        assert!(!r.meets(&footprint_of(&frame, 0)) && !r.meets(&footprint_of(&frame, 99)));
    }

    #[test]
    fn differing_pairs_equal_items_in_order() {
        let changed = |old: &[i32], new: &[i32]| {
            let mut seen = Vec::new();
            differing(old, new, |&x| {
                seen.push(x);
                true
            });
            seen
        };
        assert_eq!(changed(&[1, 2, 3, 4], &[1, 2, 3, 4]), [0; 0]);
        assert_eq!(changed(&[1, 2, 3, 4], &[1, 3, 4]), [2]);
        assert_eq!(changed(&[1, 2, 3, 4], &[1, 2, 9, 3, 4]), [9]);
        assert_eq!(changed(&[1, 2, 3, 4], &[1, 5, 3, 4]), [2, 5]);
        assert_eq!(changed(&[1, 2, 3], &[1, 2, 3, 7, 8]), [7, 8]);
        assert_eq!(changed(&[], &[1]), [1]);
        // Nothing agrees within the window: every item counts.
        let old: Vec<i32> = (0..40).collect();
        let new: Vec<i32> = (100..130).collect();
        assert_eq!(changed(&old, &new).len(), 70);
        let mut first = None;
        assert!(!differing(&old, &new, |&x| {
            first.get_or_insert(x);
            false
        }));
        assert_eq!(first, Some(0), "stops at the first change refused");
    }

    #[test]
    fn regions_join_and_meet_footprints() {
        let a = Region {
            x0: 8,
            y0: 8,
            x1: 16,
            y1: 24,
        };
        let b = Region {
            x0: 40,
            y0: 0,
            x1: 48,
            y1: 8,
        };
        assert_eq!(a.union(Region::EMPTY), a);
        assert_eq!(
            a.union(b),
            Region {
                x0: 8,
                y0: 0,
                x1: 48,
                y1: 24
            }
        );
        let tile = |x, y| Footprint::Tiles { x, y, depth: 0.5 };
        assert!(a.meets(&tile((1, 1), (2, 2))));
        assert!(!a.meets(&tile((2, 3), (0, 5))), "to the right");
        assert!(!a.meets(&Footprint::Off));
        assert!(!Region::EMPTY.meets(&Footprint::Everywhere));
    }

    #[test]
    fn an_intersection_is_the_pixels_of_both() {
        let a = Region {
            x0: 0,
            y0: 10,
            x1: 50,
            y1: 60,
        };
        let b = Region {
            x0: 20,
            y0: 0,
            x1: 80,
            y1: 30,
        };
        let both = a.intersection(b);
        assert_eq!(
            both,
            Region {
                x0: 20,
                y0: 10,
                x1: 50,
                y1: 30
            }
        );
        let apart = Region { x0: 60, ..b };
        assert!(a.intersection(apart).is_empty());
    }
}
