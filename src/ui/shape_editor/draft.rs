//! The shape set being edited (4.1.1): spheres given by their centre and a point on their
//! surface, polyhedra given by vertices whose convex hull is the part.
//!
//! The hull is recomputed whenever a vertex moves (`geom::ConvexHull`), and the vertices that
//! fall inside it are reported so the editor draws them white; they are dropped when the shape
//! is written into the text. Positions can snap to a grid.

use crate::geom::ConvexHull;
use crate::scene::model::{Color, Geometry, ShapePart, ShapeSet, Vec3};

/// What one part of the draft is.
#[derive(Clone, Debug, PartialEq)]
pub enum DraftGeometry {
    Sphere { centre: Vec3, surface: Vec3 },
    Polyhedron { vertices: Vec<Vec3> },
}

/// One part: its geometry (world coordinates of the shape set), the point it is written
/// relative to (`sub pos`), and its colour.
#[derive(Clone, Debug, PartialEq)]
pub struct DraftPart {
    pub geometry: DraftGeometry,
    pub origin: Vec3,
    pub color: Option<Color>,
}

/// A point the user can drag: vertex `vertex` of part `part` (for a sphere, 0 is the centre
/// and 1 the point on the surface).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VertexRef {
    pub part: usize,
    pub vertex: usize,
}

/// How a vertex is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VertexLook {
    /// Of the selected part, on its hull.
    Selected,
    /// Of another part.
    Other,
    /// Inside its part's hull: it will be dropped.
    Inside,
}

/// The shape set being edited.
#[derive(Clone, Debug, PartialEq)]
pub struct ShapeDraft {
    pub name: String,
    parts: Vec<DraftPart>,
    selected: Option<usize>,
    /// Grid spacing positions snap to, if any.
    grid: Option<f64>,
}

impl ShapeDraft {
    /// An empty shape set called `name`.
    pub fn new(name: impl Into<String>) -> ShapeDraft {
        ShapeDraft {
            name: name.into(),
            parts: Vec::new(),
            selected: None,
            grid: None,
        }
    }

    /// The draft of an existing shape set.
    pub fn from_shape(set: &ShapeSet) -> ShapeDraft {
        let parts = set
            .parts
            .iter()
            .map(|part| DraftPart {
                geometry: match &part.geometry {
                    Geometry::Sphere { radius } => DraftGeometry::Sphere {
                        centre: part.pos,
                        surface: part.pos + Vec3::x() * *radius,
                    },
                    Geometry::Polyhedron { vertices } => DraftGeometry::Polyhedron {
                        vertices: vertices.iter().map(|v| part.pos + v).collect(),
                    },
                },
                origin: part.pos,
                color: part.color,
            })
            .collect::<Vec<_>>();
        ShapeDraft {
            name: set.name.clone(),
            selected: (!parts.is_empty()).then_some(0),
            parts,
            grid: None,
        }
    }

    pub fn parts(&self) -> &[DraftPart] {
        &self.parts
    }

    pub fn selected(&self) -> Option<usize> {
        self.selected
    }

    pub fn select(&mut self, part: usize) {
        if part < self.parts.len() {
            self.selected = Some(part);
        }
    }

    /// Snaps positions to multiples of `spacing` from now on (`None` turns snapping off).
    pub fn set_grid(&mut self, spacing: Option<f64>) {
        self.grid = spacing.filter(|s| *s > 0.0 && s.is_finite());
    }

    fn snap(&self, p: Vec3) -> Vec3 {
        match self.grid {
            Some(s) => p.map(|c| (c / s).round() * s),
            None => p,
        }
    }

    /// Every draggable point with how it is drawn.
    pub fn points(&self) -> Vec<(VertexRef, Vec3, VertexLook)> {
        let mut out = Vec::new();
        for (p, part) in self.parts.iter().enumerate() {
            let look = if Some(p) == self.selected {
                VertexLook::Selected
            } else {
                VertexLook::Other
            };
            let inside = self.inside(p);
            let positions: Vec<Vec3> = match &part.geometry {
                DraftGeometry::Sphere { centre, surface } => vec![*centre, *surface],
                DraftGeometry::Polyhedron { vertices } => vertices.clone(),
            };
            for (v, position) in positions.into_iter().enumerate() {
                let look = if inside.contains(&v) {
                    VertexLook::Inside
                } else {
                    look
                };
                out.push((VertexRef { part: p, vertex: v }, position, look));
            }
        }
        out
    }

    /// The convex hull of polyhedron `part`, when its vertices enclose a volume.
    pub fn hull(&self, part: usize) -> Option<ConvexHull> {
        match &self.parts.get(part)?.geometry {
            DraftGeometry::Polyhedron { vertices } => ConvexHull::new(vertices).ok(),
            DraftGeometry::Sphere { .. } => None,
        }
    }

    /// The vertices of polyhedron `part` that lie inside its hull.
    pub fn inside(&self, part: usize) -> Vec<usize> {
        self.hull(part)
            .map(|h| h.interior_points().to_vec())
            .unwrap_or_default()
    }

    /// Moves a vertex (snapped to the grid) and selects its part.
    pub fn move_vertex(&mut self, at: VertexRef, to: Vec3) {
        self.set_vertex(at, self.snap(to));
    }

    /// Puts a vertex exactly at `to` (a typed position, not snapped) and selects its part.
    pub fn set_vertex(&mut self, at: VertexRef, to: Vec3) {
        let Some(part) = self.parts.get_mut(at.part) else {
            return;
        };
        match &mut part.geometry {
            DraftGeometry::Sphere { centre, surface } => match at.vertex {
                // Moving the centre carries the sphere along.
                0 => {
                    *surface += to - *centre;
                    *centre = to;
                }
                _ => *surface = to,
            },
            DraftGeometry::Polyhedron { vertices } => {
                if let Some(v) = vertices.get_mut(at.vertex) {
                    *v = to;
                }
            }
        }
        self.selected = Some(at.part);
    }

    /// The radius of sphere `part`, if it is a sphere.
    pub fn radius(&self, part: usize) -> Option<f64> {
        match &self.parts.get(part)?.geometry {
            DraftGeometry::Sphere { centre, surface } => Some((surface - centre).norm()),
            DraftGeometry::Polyhedron { .. } => None,
        }
    }

    /// Sets the radius of sphere `part` (a typed value), keeping its centre and the direction
    /// of its surface point; returns whether `part` is a sphere and `radius` positive.
    pub fn set_radius(&mut self, part: usize, radius: f64) -> bool {
        let Some(DraftGeometry::Sphere { centre, surface }) =
            self.parts.get_mut(part).map(|p| &mut p.geometry)
        else {
            return false;
        };
        if !(radius > 0.0 && radius.is_finite()) {
            return false;
        }
        let direction = (*surface - *centre)
            .try_normalize(1e-12)
            .unwrap_or_else(Vec3::x);
        *surface = *centre + direction * radius;
        self.selected = Some(part);
        true
    }

    /// Adds a vertex to polyhedron `part` (snapped to the grid). Spheres have no vertices to
    /// add.
    pub fn add_vertex(&mut self, part: usize, at: Vec3) -> Option<VertexRef> {
        let at = self.snap(at);
        match &mut self.parts.get_mut(part)?.geometry {
            DraftGeometry::Polyhedron { vertices } => {
                vertices.push(at);
                self.selected = Some(part);
                Some(VertexRef {
                    part,
                    vertex: vertices.len() - 1,
                })
            }
            DraftGeometry::Sphere { .. } => None,
        }
    }

    /// Deletes a vertex of a polyhedron; a polyhedron left with no vertices, or a sphere whose
    /// point is deleted, goes. Returns whether anything changed.
    pub fn delete_vertex(&mut self, at: VertexRef) -> bool {
        let Some(part) = self.parts.get_mut(at.part) else {
            return false;
        };
        let remove_part = match &mut part.geometry {
            DraftGeometry::Polyhedron { vertices } if at.vertex < vertices.len() => {
                vertices.remove(at.vertex);
                vertices.is_empty()
            }
            DraftGeometry::Sphere { .. } => true,
            DraftGeometry::Polyhedron { .. } => return false,
        };
        if remove_part {
            self.parts.remove(at.part);
            self.selected = match self.selected {
                _ if self.parts.is_empty() => None,
                Some(s) if s >= at.part => Some(s.saturating_sub(1)),
                other => other,
            };
        }
        true
    }

    fn push(&mut self, geometry: DraftGeometry, origin: Vec3) -> usize {
        self.parts.push(DraftPart {
            geometry,
            origin,
            color: None,
        });
        self.selected = Some(self.parts.len() - 1);
        self.parts.len() - 1
    }

    /// A new sphere part (the "New sphere" button); returns its index.
    pub fn add_sphere(&mut self, centre: Vec3, radius: f64) -> usize {
        let centre = self.snap(centre);
        self.push(
            DraftGeometry::Sphere {
                centre,
                surface: centre + Vec3::x() * radius,
            },
            centre,
        )
    }

    /// A new box part with sides along the axes (the "New box" button).
    pub fn add_box(&mut self, centre: Vec3, size: Vec3) -> usize {
        let centre = self.snap(centre);
        let half = size / 2.0;
        let vertices = (0..8)
            .map(|corner| {
                let sign = |bit: usize| if corner & bit == 0 { -1.0 } else { 1.0 };
                centre + Vec3::new(sign(1) * half.x, sign(2) * half.y, sign(4) * half.z)
            })
            .collect();
        self.push(DraftGeometry::Polyhedron { vertices }, centre)
    }

    /// A new polyhedron part: a tetrahedron of about `size` to start from (the "New
    /// polyhedron" button).
    pub fn add_polyhedron(&mut self, centre: Vec3, size: f64) -> usize {
        let centre = self.snap(centre);
        let h = size / 2.0;
        let vertices = [
            Vec3::new(h, h, h),
            Vec3::new(h, -h, -h),
            Vec3::new(-h, h, -h),
            Vec3::new(-h, -h, h),
        ]
        .iter()
        .map(|v| centre + v)
        .collect();
        self.push(DraftGeometry::Polyhedron { vertices }, centre)
    }

    /// A new polyhedron part with `vertices` where they are (the hull of an imported mesh
    /// file), written relative to their centroid; returns its index.
    pub fn add_vertices(&mut self, vertices: &[Vec3]) -> usize {
        let centroid = vertices.iter().sum::<Vec3>() / vertices.len().max(1) as f64;
        self.push(
            DraftGeometry::Polyhedron {
                vertices: vertices.to_vec(),
            },
            centroid,
        )
    }

    /// The parts as the scene model has them, ready for `scene_text::write_shape`.
    pub fn to_parts(&self) -> Vec<ShapePart> {
        self.parts
            .iter()
            .map(|part| match &part.geometry {
                DraftGeometry::Sphere { centre, surface } => ShapePart {
                    pos: *centre,
                    geometry: Geometry::Sphere {
                        radius: (surface - centre).norm(),
                    },
                    color: part.color,
                },
                DraftGeometry::Polyhedron { vertices } => ShapePart {
                    pos: part.origin,
                    geometry: Geometry::Polyhedron {
                        vertices: vertices.iter().map(|v| v - part.origin).collect(),
                    },
                    color: part.color,
                },
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::evaluate;

    #[test]
    fn an_existing_shape_round_trips() {
        let scene = evaluate(
            "shape_set s desc {sub pos {0 2 0} sphere 0.5 sub pos {1 0 0} box {2 2 2} color red}",
        )
        .unwrap();
        let draft = ShapeDraft::from_shape(&scene.shapes[0]);
        assert_eq!(draft.selected(), Some(0));
        assert_eq!(draft.to_parts(), scene.shapes[0].parts);
        // Box corners are in world terms: part 1 spans x from 0 to 2.
        let xs: Vec<f64> = draft
            .points()
            .iter()
            .filter(|(v, _, _)| v.part == 1)
            .map(|(_, p, _)| p.x)
            .collect();
        assert!(xs.iter().all(|&x| x == 0.0 || x == 2.0) && xs.len() == 8);
    }

    #[test]
    fn vertices_inside_the_hull_are_marked_and_move_back_out() {
        let mut draft = ShapeDraft::new("s");
        let part = draft.add_box(Vec3::zeros(), Vec3::new(2.0, 2.0, 2.0));
        let inner = draft.add_vertex(part, Vec3::new(0.1, 0.2, 0.0)).unwrap();
        let look = |d: &ShapeDraft| {
            d.points()
                .into_iter()
                .find(|(v, _, _)| *v == inner)
                .map(|(_, _, l)| l)
        };
        assert_eq!(look(&draft), Some(VertexLook::Inside));
        assert_eq!(draft.hull(part).unwrap().vertices().len(), 8);
        draft.move_vertex(inner, Vec3::new(0.0, 3.0, 0.0));
        assert_eq!(look(&draft), Some(VertexLook::Selected));
        assert_eq!(draft.hull(part).unwrap().vertices().len(), 9);
    }

    #[test]
    fn grid_snapping_rounds_positions() {
        let mut draft = ShapeDraft::new("s");
        draft.set_grid(Some(0.5));
        let part = draft.add_polyhedron(Vec3::new(0.2, 0.3, 0.8), 1.0);
        let v = draft.add_vertex(part, Vec3::new(1.26, -0.1, 0.74)).unwrap();
        let placed = draft.points()[v.vertex].1;
        assert_eq!(placed, Vec3::new(1.5, 0.0, 0.5));
        // The tetrahedron was centred on the snapped click.
        assert_eq!(draft.to_parts()[0].pos, Vec3::new(0.0, 0.5, 1.0));
    }

    #[test]
    fn spheres_follow_their_centre_and_size_by_their_surface_point() {
        let mut draft = ShapeDraft::new("s");
        let part = draft.add_sphere(Vec3::zeros(), 1.0);
        draft.move_vertex(VertexRef { part, vertex: 0 }, Vec3::new(0.0, 5.0, 0.0));
        draft.move_vertex(VertexRef { part, vertex: 1 }, Vec3::new(0.0, 7.0, 0.0));
        assert_eq!(
            draft.to_parts()[0],
            ShapePart {
                pos: Vec3::new(0.0, 5.0, 0.0),
                geometry: Geometry::Sphere { radius: 2.0 },
                color: None
            }
        );
    }

    #[test]
    fn typed_positions_are_not_snapped_and_a_typed_radius_keeps_the_centre() {
        let mut draft = ShapeDraft::new("s");
        draft.set_grid(Some(0.5));
        let part = draft.add_sphere(Vec3::zeros(), 1.0);
        draft.set_vertex(VertexRef { part, vertex: 0 }, Vec3::new(0.3, 0.0, 0.0));
        assert!(draft.set_radius(part, 0.8));
        assert!(!draft.set_radius(part, -1.0) && !draft.set_radius(part, f64::NAN));
        assert_eq!(draft.radius(part), Some(0.8));
        assert_eq!(draft.to_parts()[0].pos, Vec3::new(0.3, 0.0, 0.0));
        let poly = draft.add_vertices(&[Vec3::zeros(), Vec3::x(), Vec3::y(), Vec3::z()]);
        assert_eq!(draft.radius(poly), None);
        assert!(!draft.set_radius(poly, 1.0));
        assert_eq!(draft.to_parts()[1].pos, Vec3::repeat(0.25));
    }

    #[test]
    fn deleting_the_last_vertex_removes_the_part() {
        let mut draft = ShapeDraft::new("s");
        draft.add_sphere(Vec3::zeros(), 1.0);
        let poly = draft.add_polyhedron(Vec3::zeros(), 1.0);
        for _ in 0..4 {
            assert!(draft.delete_vertex(VertexRef {
                part: poly,
                vertex: 0
            }));
        }
        assert_eq!(draft.parts().len(), 1);
        assert_eq!(draft.selected(), Some(0));
        assert!(draft.delete_vertex(VertexRef { part: 0, vertex: 1 }));
        assert!(draft.parts().is_empty() && draft.selected().is_none());
        assert!(!draft.delete_vertex(VertexRef { part: 0, vertex: 0 }));
    }
}
