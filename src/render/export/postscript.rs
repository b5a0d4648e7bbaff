//! PostScript line drawings of a frame (dissertation 4.1.10), as Encapsulated PostScript.
//!
//! Hidden surfaces are removed the way a 1994 plotter would: faces turned away from the eye
//! are culled, and the rest are painted far to near as filled, outlined polygons, so nearer
//! faces cover farther ones. Links, vectors, trajectories and the grid are depth-sorted
//! segments among the faces. One PostScript point per pixel; handles are not drawn.

use super::{number, posed_meshes, shade, ExportError};
use crate::render::camera::{Camera, Viewport};
use crate::render::frame::{Frame, Rgb, Rgba};
use crate::render::mesh::MeshLibrary;
use nalgebra::{Point2, Point3, Rotation2, Vector3};
use std::fmt::Write;

/// The grid is drawn out to this fraction of the ground's reach (about twice the bodies'
/// radius), where the renderer's grid is still clear.
const GRID_REACH_DIVISOR: f64 = 4.0;
/// Outline colour and width of faces, in points.
const OUTLINE_GREY: f32 = 0.0;
const OUTLINE_WIDTH: f64 = 0.6;
/// Width of links, vectors and trajectories, in points.
const STROKE_WIDTH: f64 = 1.0;
/// Length of arrowhead strokes, in points, and their angle from the shaft.
const ARROWHEAD_POINTS: f64 = 9.0;
const ARROWHEAD_ANGLE: f64 = 0.45;
/// Depths closer than this to the eye are behind the picture plane and not drawn.
const MIN_DEPTH: f64 = 1e-6;

/// One thing to paint, at its mean depth.
enum Primitive {
    /// A face filled with its shaded colour and outlined.
    Face {
        corners: Vec<Point2<f64>>,
        fill: Rgb,
    },
    /// A face's edges only, in the object's colour (wireframe mode).
    Outline {
        corners: Vec<Point2<f64>>,
        colour: Rgba,
    },
    /// An open polyline.
    Stroke {
        points: Vec<Point2<f64>>,
        colour: Rgba,
    },
}

/// The frame as an EPS document `width` × `height` points large.
pub fn to_eps(
    frame: &Frame,
    meshes: &MeshLibrary,
    width: u32,
    height: u32,
) -> Result<String, ExportError> {
    let viewport = Viewport::new(f64::from(width), f64::from(height));
    let camera = &frame.camera;
    let lights = frame.effective_lights();
    let mut primitives: Vec<(f64, Primitive)> = Vec::new();

    for (object, mesh) in posed_meshes(frame, meshes)? {
        let placement = object.placement();
        for polygon in &mesh.polygons {
            let world: Vec<Point3<f64>> = polygon
                .iter()
                .map(|&i| placement * mesh.position(i))
                .collect();
            let eye: Vec<Point3<f64>> = world.iter().map(|p| camera.to_eye(p)).collect();
            let normal = newell_normal(&eye);
            let facing = normal.dot(&eye[0].coords) < 0.0;
            if !frame.wireframe && !facing {
                continue;
            }
            let Some((corners, depth)) = project_all(camera, &world, &viewport) else {
                continue;
            };
            let primitive = if frame.wireframe {
                Primitive::Outline {
                    corners,
                    colour: object.colour,
                }
            } else {
                let world_normal = newell_normal(&world);
                let centroid = Point3::from(
                    world.iter().map(|p| p.coords).sum::<Vector3<f64>>() / world.len() as f64,
                );
                Primitive::Face {
                    corners,
                    fill: shade(
                        object.colour,
                        &world_normal,
                        &centroid,
                        &lights,
                        frame.ambient,
                    ),
                }
            };
            primitives.push((depth, primitive));
        }
    }

    let mut stroke = |points: &[Point3<f64>], colour: Rgba| {
        for pair in points.windows(2) {
            if let Some((points, depth)) = project_all(camera, pair, &viewport) {
                primitives.push((depth, Primitive::Stroke { points, colour }));
            }
        }
    };
    let grid = frame.looks.ground && frame.looks.grid;
    if let Some(ground) = frame.ground.as_ref().filter(|_| grid) {
        // The part of the grid near the bodies: the rest fades out on screen.
        for (a, b) in ground.segments(ground.extent / GRID_REACH_DIVISOR) {
            stroke(&[a, b], ground.line_colour);
        }
    }
    for line in &frame.lines {
        stroke(&[line.from, line.to], line.colour);
    }
    for polyline in &frame.polylines {
        stroke(&polyline.points, polyline.colour);
    }
    let mut barbs = Vec::new();
    for arrow in &frame.arrows {
        let tip = arrow.origin + arrow.vector;
        stroke(&[arrow.origin, tip], arrow.colour);
        if let (Some(from), Some(to)) = (
            camera.project(&arrow.origin, &viewport),
            camera.project(&tip, &viewport),
        ) {
            let shaft = Point2::new(to.x, to.y) - Point2::new(from.x, from.y);
            if shaft.norm() > 1e-9 {
                let back = -shaft.normalize() * ARROWHEAD_POINTS;
                let tip_on_screen = Point2::new(to.x, to.y);
                for angle in [ARROWHEAD_ANGLE, -ARROWHEAD_ANGLE] {
                    let barb = Rotation2::new(angle) * back;
                    barbs.push((
                        to.depth,
                        Primitive::Stroke {
                            points: vec![tip_on_screen, tip_on_screen + barb],
                            colour: arrow.colour,
                        },
                    ));
                }
            }
        }
    }
    primitives.extend(barbs);

    // Painter's order: farthest first; a stable sort keeps faces before strokes at equal depth.
    primitives.sort_by(|a, b| b.0.total_cmp(&a.0));
    Ok(document(frame, width, height, &primitives))
}

/// Screen positions of all points and their mean depth, or `None` if any is behind the eye.
fn project_all(
    camera: &Camera,
    points: &[Point3<f64>],
    viewport: &Viewport,
) -> Option<(Vec<Point2<f64>>, f64)> {
    let mut depth = 0.0;
    let mut screen = Vec::with_capacity(points.len());
    for p in points {
        let s = camera
            .project(p, viewport)
            .filter(|s| s.depth > MIN_DEPTH)?;
        depth += s.depth;
        screen.push(Point2::new(s.x, s.y));
    }
    Some((screen, depth / points.len() as f64))
}

/// A polygon's (unnormalised) normal by Newell's method.
fn newell_normal(points: &[Point3<f64>]) -> Vector3<f64> {
    let mut n = Vector3::zeros();
    for (k, p) in points.iter().enumerate() {
        let q = points[(k + 1) % points.len()];
        n += Vector3::new(
            (p.y - q.y) * (p.z + q.z),
            (p.z - q.z) * (p.x + q.x),
            (p.x - q.x) * (p.y + q.y),
        );
    }
    n.try_normalize(0.0).unwrap_or(n)
}

fn document(frame: &Frame, width: u32, height: u32, primitives: &[(f64, Primitive)]) -> String {
    let mut out = String::new();
    let h = f64::from(height);
    // Screen y runs down, PostScript y runs up.
    let xy = |p: &Point2<f64>| format!("{} {}", number(p.x), number(h - p.y));
    let [br, bg, bb, _] = frame.background;
    // Writing to a String cannot fail.
    let _ = write!(
        out,
        "%!PS-Adobe-3.0 EPSF-3.0\n\
         %%BoundingBox: 0 0 {width} {height}\n\
         %%HiResBoundingBox: 0 0 {width} {height}\n\
         %%Creator: Asgard\n\
         %%Title: Asgard frame\n\
         %%Pages: 1\n\
         %%LanguageLevel: 2\n\
         %%EndComments\n\
         %%BeginProlog\n\
         /m {{ moveto }} bind def\n\
         /l {{ lineto }} bind def\n\
         /face {{ closepath gsave setrgbcolor fill grestore {OUTLINE_GREY} setgray {OUTLINE_WIDTH} setlinewidth stroke }} bind def\n\
         /edge {{ closepath setrgbcolor {OUTLINE_WIDTH} setlinewidth stroke }} bind def\n\
         /seg {{ setrgbcolor {STROKE_WIDTH} setlinewidth stroke }} bind def\n\
         %%EndProlog\n\
         %%Page: 1 1\n\
         gsave\n\
         0 0 {width} {height} rectclip\n\
         {} {} {} setrgbcolor 0 0 {width} {height} rectfill\n\
         1 setlinejoin 1 setlinecap\n",
        number(f64::from(br)),
        number(f64::from(bg)),
        number(f64::from(bb)),
    );
    let rgb = |[r, g, b]: [f32; 3]| {
        format!(
            "{} {} {}",
            number(f64::from(r)),
            number(f64::from(g)),
            number(f64::from(b))
        )
    };
    for (_, primitive) in primitives {
        let (points, ending) = match primitive {
            Primitive::Face { corners, fill } => (corners, format!("{} face", rgb(*fill))),
            Primitive::Outline {
                corners,
                colour: [r, g, b, _],
            } => (corners, format!("{} edge", rgb([*r, *g, *b]))),
            Primitive::Stroke {
                points,
                colour: [r, g, b, _],
            } => (points, format!("{} seg", rgb([*r, *g, *b]))),
        };
        let _ = write!(out, "newpath {} m", xy(&points[0]));
        for p in &points[1..] {
            let _ = write!(out, " {} l", xy(p));
        }
        let _ = writeln!(out, " {ending}");
    }
    out.push_str("grestore\nshowpage\n%%EOF\n");
    out
}
