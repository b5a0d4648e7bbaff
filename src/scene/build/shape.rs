//! `shape_set NAME desc DESC`: a union of spheres and convex polyhedra (4.1.1).
//!
//! DESC is a list of tokens. `sub` starts a new part (one is started implicitly), `pos {x y z}`
//! places the part, `sphere R` makes it a sphere, `face {?color C? {x y z} …}` and
//! `box {sx sy sz}` add vertices to its polyhedron (the convex hull of all of them), and
//! `color C` colours it.

use super::args::{self, element_arg, element_span, literal_span, Options};
use super::Shared;
use crate::geom::ConvexHull;
use crate::lang::span::Span;
use crate::lang::{Arg, Exception, Interp, Value};
use crate::scene::model::{Color, Geometry, ShapePart, ShapeSet, Vec3};

pub(super) const OPTIONS: &[&str] = &["desc"];
pub(super) const TOKENS: &[&str] = &["sub", "pos", "sphere", "face", "box", "color"];

pub(super) fn shape_set(
    interp: &mut Interp,
    shared: &Shared,
    words: &[Arg],
) -> Result<Value, Exception> {
    let command = interp.current_span();
    let Some(name_arg) = words.get(1) else {
        return Err(super::usage("shape_set NAME desc DESC"));
    };
    let name = args::name(name_arg, "shape")?;
    let options = Options::parse(words, 2, "shape_set", OPTIONS, &[])?;
    let desc = options.require("desc", command)?;
    let parts = parse_desc(desc)?;
    let mut builder = shared.borrow_mut();
    if let Some(i) = builder.shape_index(&name) {
        let line = builder.line(builder.scene.shapes[i].origin.command);
        return Err(Exception::error_at(
            format!("duplicate name \"{name}\": a shape_set of that name is already defined on line {line}"),
            name_arg.span,
        ));
    }
    let origin = builder.origin(command);
    builder.add_shape(
        ShapeSet {
            name: name.clone(),
            parts,
            desc_span: literal_span(desc),
            origin,
        },
        name_arg.span,
    );
    Ok(Value::from(name))
}

/// A part while its tokens are read.
struct Draft {
    /// The token that started the part (for "this part has no geometry").
    start: Span,
    pos: Option<Vec3>,
    sphere: Option<f64>,
    vertices: Vec<Vec3>,
    /// The first `face` or `box` token, where a degenerate polyhedron is reported.
    polyhedron: Option<Span>,
    color: Option<Color>,
}

impl Draft {
    fn new(start: Span) -> Draft {
        Draft {
            start,
            pos: None,
            sphere: None,
            vertices: Vec::new(),
            polyhedron: None,
            color: None,
        }
    }

    fn finish(self) -> Result<ShapePart, Exception> {
        let geometry = match (self.sphere, self.polyhedron) {
            (Some(radius), _) => Geometry::Sphere { radius },
            (None, Some(at)) => {
                let hull = ConvexHull::new(&self.vertices)
                    .map_err(|e| Exception::error_at(e.to_string(), at))?;
                Geometry::Polyhedron {
                    vertices: hull.vertices().to_vec(),
                }
            }
            (None, None) => {
                return Err(Exception::error_at(
                    "this part of the shape has no geometry: give it sphere R, box {sx sy sz} or face {…}",
                    self.start,
                ))
            }
        };
        Ok(ShapePart {
            pos: self.pos.unwrap_or_else(Vec3::zeros),
            geometry,
            color: self.color,
        })
    }
}

fn parse_desc(desc: &Arg) -> Result<Vec<ShapePart>, Exception> {
    let tokens = args::list(desc, "desc")?;
    if tokens.is_empty() {
        return Err(Exception::error_at(
            "desc is empty: a shape needs at least one part (sphere R, box {sx sy sz} or face {…})",
            desc.span,
        ));
    }
    let mut parts = Vec::new();
    let mut draft = Draft::new(element_span(desc, &tokens[0]));
    let mut i = 0;
    while i < tokens.len() {
        let token = &tokens[i];
        let at = element_span(desc, token);
        let word = token.as_str();
        if !TOKENS.contains(&word) {
            return Err(Exception::error_at(
                format!(
                    "unknown shape token \"{word}\": expected {}",
                    args::one_of(TOKENS)
                ),
                at,
            ));
        }
        if word == "sub" {
            if i > 0 {
                let done = std::mem::replace(&mut draft, Draft::new(at));
                parts.push(done.finish()?);
            }
            i += 1;
            continue;
        }
        let Some(value) = tokens.get(i + 1) else {
            return Err(Exception::error_at(
                format!("shape token \"{word}\" needs a value"),
                at,
            ));
        };
        let value = element_arg(desc, value);
        apply_token(&mut draft, word, at, &value)?;
        i += 2;
    }
    parts.push(draft.finish()?);
    Ok(parts)
}

fn apply_token(draft: &mut Draft, word: &str, at: Span, value: &Arg) -> Result<(), Exception> {
    let twice = || Exception::error_at(format!("\"{word}\" is given twice in one part"), at);
    let both = || {
        Exception::error_at(
            "a part is a sphere or a polyhedron, not both: start another part with sub",
            at,
        )
    };
    match word {
        "pos" => {
            if draft.pos.is_some() {
                return Err(twice());
            }
            draft.pos = Some(args::vector(value, "pos")?.value);
        }
        "sphere" => {
            if draft.sphere.is_some() {
                return Err(twice());
            }
            if draft.polyhedron.is_some() {
                return Err(both());
            }
            draft.sphere = Some(args::positive(value, "the sphere radius")?.value);
        }
        "box" => {
            if draft.sphere.is_some() {
                return Err(both());
            }
            let size = args::vector(value, "box")?.value;
            if size.iter().any(|s| *s <= 0.0) {
                return Err(Exception::error_at(
                    "box sizes must be greater than 0",
                    value.span,
                ));
            }
            draft.polyhedron.get_or_insert(at);
            let half = size / 2.0;
            for corner in 0..8 {
                let sign = |bit: usize| if corner & bit == 0 { -1.0 } else { 1.0 };
                draft.vertices.push(Vec3::new(
                    sign(1) * half.x,
                    sign(2) * half.y,
                    sign(4) * half.z,
                ));
            }
        }
        "face" => {
            if draft.sphere.is_some() {
                return Err(both());
            }
            draft.polyhedron.get_or_insert(at);
            face(draft, value)?;
        }
        _ => {
            if draft.color.is_some() {
                return Err(twice());
            }
            draft.color = Some(args::color(value)?.value);
        }
    }
    Ok(())
}

/// `face {?color C? {x y z} {x y z} …}`: vertices of the part's polyhedron. A face's colour
/// colours the part, unless the part already has one.
fn face(draft: &mut Draft, face: &Arg) -> Result<(), Exception> {
    let items = args::list(face, "face")?;
    let mut points = items;
    if let [first, colour, rest @ ..] = items {
        if first.as_str() == "color" {
            let colour = args::color(&element_arg(face, colour))?.value;
            draft.color.get_or_insert(colour);
            points = rest;
        }
    }
    if points.len() < 3 {
        return Err(Exception::error_at(
            format!(
                "a face needs at least 3 points {{x y z}}, got {}",
                points.len()
            ),
            face.span,
        ));
    }
    for point in points {
        let point = element_arg(face, point);
        draft
            .vertices
            .push(args::vector(&point, "a face point")?.value);
    }
    Ok(())
}
