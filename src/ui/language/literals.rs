//! Which literals of the text the language viewer marks (4.2.1, 4.2.2): the literals tied to
//! graphical parameters, coloured by what they are tied to (in the colours of their handles),
//! and the long shape descriptions and trajectory point lists it elides behind an icon.

use crate::lang::span::Span;
use crate::render::scene_frame::palette;
use crate::scene::handles::HandleKind;
use crate::scene::model::ForceKind;
use crate::scene::{InitVar, Scene, Target};

/// Literals at least this long (bytes) are elided: about half a line, as in the dissertation.
pub const ELIDE_FROM: usize = 40;

/// What an elided literal is, so that showing it in full survives the text changing.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ElisionKey {
    /// The `desc` list of a shape set.
    Shape(String),
    /// A `points` list (piece) of a trajectory.
    Points(String, usize),
}

impl ElisionKey {
    /// How the language viewer's `fold` action names it: `shape_set NAME`, or
    /// `trajectory NAME points N` for the Nth `points` list (from 1).
    pub fn name(&self) -> String {
        match self {
            ElisionKey::Shape(name) => format!("shape_set {name}"),
            ElisionKey::Points(name, piece) => format!("trajectory {name} points {}", piece + 1),
        }
    }
}

/// The literals of `scene` to elide, with their keys, in text order. Spans are the list's
/// content, inside its braces.
pub fn elidable(scene: &Scene) -> Vec<(ElisionKey, Span)> {
    scene
        .elidable_spans(ELIDE_FROM)
        .into_iter()
        .filter_map(|span| {
            let shape = scene
                .shapes
                .iter()
                .find(|s| s.desc_span == Some(span))
                .map(|s| ElisionKey::Shape(s.name.clone()));
            let piece = || {
                scene.trajectories.iter().find_map(|t| {
                    let p = t.pieces.iter().position(|p| p.span == Some(span))?;
                    Some(ElisionKey::Points(t.name.clone(), p))
                })
            };
            Some((shape.or_else(piece)?, span))
        })
        .collect()
}

/// What a highlighted literal is tied to, for its colour: the kind of handle that edits it,
/// or the camera (which has no handle).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LiteralKind {
    Handle(HandleKind),
    Camera,
}

impl LiteralKind {
    pub const ALL: [LiteralKind; 12] = [
        LiteralKind::Handle(HandleKind::BodyPosition),
        LiteralKind::Handle(HandleKind::BodyRotation),
        LiteralKind::Handle(HandleKind::Velocity),
        LiteralKind::Handle(HandleKind::AngularVelocity),
        LiteralKind::Handle(HandleKind::ForceBase),
        LiteralKind::Handle(HandleKind::ForceHead),
        LiteralKind::Handle(HandleKind::TorqueHead),
        LiteralKind::Handle(HandleKind::LinkEnd),
        LiteralKind::Handle(HandleKind::TrajectoryPoint),
        LiteralKind::Handle(HandleKind::LightPosition),
        LiteralKind::Handle(HandleKind::LightDirection),
        LiteralKind::Camera,
    ];

    /// The kind of the literal `target` names in `scene`.
    pub fn of(target: Target, scene: &Scene) -> LiteralKind {
        use HandleKind::*;
        LiteralKind::Handle(match target {
            Target::BodyInit { var, .. } => match var {
                InitVar::Pos => BodyPosition,
                InitVar::Rot => BodyRotation,
                InitVar::Dpos => Velocity,
                InitVar::Drot => AngularVelocity,
            },
            Target::ForceVector(i) => match scene.forces.get(i).map(|f| f.kind) {
                Some(ForceKind::Torque) => TorqueHead,
                _ => ForceHead,
            },
            Target::ForceOffset(_) => ForceBase,
            Target::LinkOffset1(_) | Target::LinkOffset2(_) | Target::LinkPoint(_) => LinkEnd,
            Target::ControlPoint { .. } | Target::ControlTime { .. } => TrajectoryPoint,
            Target::LightPos(_) => LightPosition,
            Target::LightDir(_) => LightDirection,
            Target::CameraPos | Target::CameraRot | Target::CameraCenter | Target::CameraScale => {
                return LiteralKind::Camera
            }
        })
    }

    /// A name for the text tag of this kind.
    pub fn tag_name(self) -> String {
        match self {
            LiteralKind::Handle(kind) => format!("literal-{kind:?}"),
            LiteralKind::Camera => "literal-camera".into(),
        }
    }

    /// The tag's background: the handle's colour, pale enough to read black text on.
    pub fn background(self) -> String {
        let [r, g, b, _] = match self {
            LiteralKind::Handle(kind) => palette::handle(kind),
            LiteralKind::Camera => [0.55, 0.65, 0.80, 1.0],
        };
        let pale = |c: f32| ((0.45 * c + 0.55) * 255.0).round() as u8;
        format!("#{:02x}{:02x}{:02x}", pale(r), pale(g), pale(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::evaluate;

    #[test]
    fn long_lists_are_elided_by_what_they_belong_to() {
        let scene = evaluate(
            "shape_set tiny desc {sphere 1}
             shape_set big desc {sub pos {0 0 0} sphere 1 sub pos {0 2 0} sphere 1 sub pos {0 4 0} sphere 1}
             trajectory p points {{0 0 0 0} {1 1 1 1}} points {{2 0 0 0} {3 0 0 0} {4 0 0 0} {5 5 5 5} {6 6 6 6}}",
        )
        .unwrap();
        let keys: Vec<ElisionKey> = elidable(&scene).into_iter().map(|(k, _)| k).collect();
        assert_eq!(
            keys,
            [
                ElisionKey::Shape("big".into()),
                ElisionKey::Points("p".into(), 1)
            ]
        );
        let names: Vec<String> = keys.iter().map(ElisionKey::name).collect();
        assert_eq!(names, ["shape_set big", "trajectory p points 2"]);
    }

    #[test]
    fn literals_take_the_kind_of_their_handle() {
        let scene = evaluate(
            "shape_set s desc {sphere 1}
             body b shape s init_drot {0 0 1}
             torque body b x 0 y 0 z 1",
        )
        .unwrap();
        let kinds: Vec<LiteralKind> = scene
            .highlights()
            .iter()
            .map(|h| LiteralKind::of(h.target, &scene))
            .collect();
        assert!(kinds.contains(&LiteralKind::Handle(HandleKind::AngularVelocity)));
        assert!(kinds.contains(&LiteralKind::Handle(HandleKind::TorqueHead)));
        // Pale but still the handle's hue: the position handle's yellow stays yellowish.
        let yellow = LiteralKind::Handle(HandleKind::BodyPosition).background();
        assert_eq!(yellow, "#f9f9a9");
        let names: std::collections::HashSet<String> =
            LiteralKind::ALL.iter().map(|k| k.tag_name()).collect();
        assert_eq!(names.len(), LiteralKind::ALL.len());
    }
}
