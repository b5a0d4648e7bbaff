//! The Create commands: prompts for clicks in a graphical viewer, then the new element written
//! into the text (4.1.2, 4.1.4-4.1.6, 4.1.8).
//!
//! A [`Prompt`] says what to click next, takes the [`Click`]s a viewer reports, and when it has
//! all it needs returns the new text with the element's command in a sensible place
//! (`scene_text::insert_command`). Spatial parameters come from the clicks; everything else
//! gets the dissertation's defaults (forces of unit magnitude along −y, 4.1.5) for the user to
//! change in a language viewer or with handles.

use super::scene_text::{fresh_name, insert_command, number, vector};
use crate::scene::model::{Scene, Vec3};
use crate::scene::shapes::CentredShape;
use crate::scene::{ElementKind, ElementRef};
use nalgebra::Isometry3;

/// The kinds of constant or trajectory-driven force the Create menu offers (4.1.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ForceCreation {
    Constant,
    Gravitational,
    Trajectory,
}

/// The kinds of torque the Create menu offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TorqueCreation {
    Constant,
    Trajectory,
}

/// The kinds of link the Create menu offers (4.1.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkCreation {
    ObjectObject,
    ObjectPoint,
    ObjectTrajectory,
}

/// What to create.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Creation {
    /// A body of this shape set.
    Body {
        shape: String,
    },
    Force(ForceCreation),
    Torque(TorqueCreation),
    Link(LinkCreation),
    Trajectory,
    Light,
}

/// A body under the pointer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyClick {
    /// Index into the scene's bodies.
    pub body: usize,
    /// The point of its surface under the pointer, in the body's coordinates (relative to its
    /// centre of mass).
    pub local: Vec3,
    /// The same point in the world.
    pub world: Vec3,
}

/// A click in a graphical viewer, as a prompt needs it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Click {
    /// The world point under the pointer: on the body surface hit, else on the ground shown
    /// under the bodies, else at the depth of the view's centre.
    pub point: Vec3,
    /// The outward unit normal of the surface `point` is on (a body's or the ground's), or
    /// `None` for a point in space: a new body is put on that surface, not into it.
    pub surface: Option<Vec3>,
    pub body: Option<BodyClick>,
    /// The trajectory whose control point handle was under the pointer.
    pub trajectory: Option<usize>,
    /// The viewer's current time (new trajectory points start there).
    pub time: f64,
}

/// The relative size below which a clicked coordinate is rounding residue: a ray meeting the
/// ground at y = 0 lands at 1e-16, not 0, and the text should say 0, as a person would type it.
const RESIDUE: f64 = 1e-12;

/// `point` with each coordinate smaller than [`RESIDUE`] times `scale` (the size of what the
/// view shows, such as the eye's distance to the point) made 0.
pub fn without_residue(point: Vec3, scale: f64) -> Vec3 {
    point.map(|c| if c.abs() < RESIDUE * scale { 0.0 } else { c })
}

/// A Create command waiting for its clicks.
#[derive(Clone, Debug, PartialEq)]
pub struct Prompt {
    creation: Creation,
    /// The body chosen by the first click, for forces, torques and links.
    first: Option<BodyClick>,
}

/// Unit magnitude along −y: the value new forces and force trajectories start with (4.1.5).
const DOWN: [f64; 3] = [0.0, -1.0, 0.0];

impl Prompt {
    pub fn new(creation: Creation) -> Prompt {
        Prompt {
            creation,
            first: None,
        }
    }

    pub fn creation(&self) -> &Creation {
        &self.creation
    }

    /// What the user should click next.
    pub fn instruction(&self) -> String {
        let second = match (&self.creation, self.first) {
            (Creation::Body { shape }, _) => {
                return format!("Click where the new body of shape {shape} goes.")
            }
            (Creation::Trajectory, _) => {
                return "Click where the new trajectory starts.".into();
            }
            (Creation::Light, _) => return "Click where the new light goes.".into(),
            (Creation::Force(_), None) => {
                return "Click on the body, at the point where the force applies.".into();
            }
            (Creation::Torque(_), None) => return "Click on the body the torque turns.".into(),
            (Creation::Link(_), None) => {
                return "Click on the body, at the point where the link attaches.".into();
            }
            (Creation::Link(LinkCreation::ObjectObject), Some(_)) => {
                "Click on the second body, at the point where the link attaches."
            }
            (Creation::Link(LinkCreation::ObjectPoint), Some(_)) => {
                "Click the point in space the link holds the body to."
            }
            (Creation::Force(_) | Creation::Torque(_) | Creation::Link(_), Some(_)) => {
                "Click a control point of a trajectory, or anywhere else for a new trajectory."
            }
        };
        second.into()
    }

    /// Whether the first click must be on a body.
    fn wants_body(&self) -> bool {
        matches!(
            self.creation,
            Creation::Force(_) | Creation::Torque(_) | Creation::Link(_)
        )
    }

    /// Takes a click. Returns the new text when the element is complete, `None` when more
    /// clicks are needed, or why this click cannot be used (then the prompt waits for
    /// another).
    pub fn click(
        &mut self,
        click: &Click,
        text: &str,
        scene: &Scene,
    ) -> Result<Option<String>, String> {
        let body_ref = |i: usize| ElementRef::new(ElementKind::Body, i);
        if self.wants_body() && self.first.is_none() {
            let Some(body) = click.body else {
                return Err("That is not on a body: click on a body.".into());
            };
            self.first = Some(body);
            let single = matches!(
                self.creation,
                Creation::Force(ForceCreation::Constant | ForceCreation::Gravitational)
                    | Creation::Torque(TorqueCreation::Constant)
            );
            if !single {
                return Ok(None);
            }
        }
        let named = |i: usize| scene.bodies.get(i).map(|b| b.name.clone());
        let first = self.first.and_then(|b| named(b.body).map(|name| (b, name)));
        let (kind, requires, command) = match (&self.creation, first) {
            (Creation::Body { shape }, _) => {
                let shape_ref = scene
                    .shapes
                    .iter()
                    .position(|s| &s.name == shape)
                    .map(|i| ElementRef::new(ElementKind::Shape, i))
                    .ok_or_else(|| format!("The scene has no shape {shape} any more."))?;
                let name = fresh_name(scene, "b");
                let centre = resting_centre(scene, shape, click)?;
                (
                    ElementKind::Body,
                    vec![shape_ref],
                    format!("body {name} shape {shape} init_pos {}", vector(&centre)),
                )
            }
            (Creation::Trajectory, _) => {
                let name = fresh_name(scene, "path");
                let end = click.point + Vec3::x();
                (
                    ElementKind::Trajectory,
                    Vec::new(),
                    trajectory_command(&name, click.time, &click.point, &end),
                )
            }
            (Creation::Light, _) => (
                ElementKind::Light,
                Vec::new(),
                format!(
                    "lightsource {} pos {}",
                    fresh_name(scene, "light"),
                    vector(&click.point)
                ),
            ),
            (_, None) => return Err("The body clicked first is gone from the scene.".into()),
            (Creation::Force(how), Some((b, name))) => {
                // Applied where the body was clicked (4.1.5); gravity acts at the centre.
                let at = application_point(&b.local);
                let (requires, command) = match how {
                    ForceCreation::Constant => (
                        vec![body_ref(b.body)],
                        format!("force body {name}{at} x 0 y {} z 0", number(DOWN[1])),
                    ),
                    ForceCreation::Gravitational => (
                        vec![body_ref(b.body)],
                        format!("force body {name} gravity {}", vector(&Vec3::from(DOWN))),
                    ),
                    ForceCreation::Trajectory => {
                        driven(scene, click, b.body, &format!("force body {name}{at}"))
                    }
                };
                (ElementKind::Force, requires, command)
            }
            (Creation::Torque(how), Some((b, name))) => {
                let (requires, command) = match how {
                    TorqueCreation::Constant => (
                        vec![body_ref(b.body)],
                        format!("torque body {name} x 0 y 0 z 1"),
                    ),
                    TorqueCreation::Trajectory => {
                        driven(scene, click, b.body, &format!("torque body {name}"))
                    }
                };
                (ElementKind::Force, requires, command)
            }
            (Creation::Link(how), Some((b, name))) => {
                let start = format!("link body1 {name} offset1 {}", vector(&b.local));
                let (requires, command) = match how {
                    LinkCreation::ObjectObject => {
                        let Some(other) = click.body else {
                            return Err("That is not on a body: click on the second body.".into());
                        };
                        if other.body == b.body {
                            return Err("A link joins two different bodies: click another.".into());
                        }
                        let other_name = named(other.body).ok_or("The body is gone.")?;
                        (
                            vec![body_ref(b.body), body_ref(other.body)],
                            format!(
                                "{start} body2 {other_name} offset2 {}",
                                vector(&other.local)
                            ),
                        )
                    }
                    LinkCreation::ObjectPoint => (
                        vec![body_ref(b.body)],
                        format!("{start} point {}", vector(&click.point)),
                    ),
                    LinkCreation::ObjectTrajectory => driven(scene, click, b.body, &start),
                };
                (ElementKind::Link, requires, command)
            }
        };
        Ok(Some(insert_command(text, scene, kind, &requires, &command)))
    }
}

/// Room left between a new body and the surface it is put on, in radii of the new body's
/// shape: the position is written with six significant digits, and a body that starts
/// overlapping another by more than a millionth of its size stops the simulation.
const CLEARANCE: f64 = 1e-3;

/// Where the centre of mass of a new body of shape set `shape` goes for `click`: over the
/// clicked point along the surface's normal, as far out as the shape reaches towards the
/// surface (plus a [`CLEARANCE`]), so it rests on the surface; or at the clicked point in
/// space.
fn resting_centre(scene: &Scene, shape: &str, click: &Click) -> Result<Vec3, String> {
    let Some(normal) = click.surface else {
        return Ok(click.point);
    };
    let set = scene
        .shape(shape)
        .ok_or_else(|| format!("The scene has no shape {shape} any more."))?;
    let centred =
        CentredShape::new(set).map_err(|e| format!("Shape {shape} cannot be used: {e}"))?;
    let identity = Isometry3::identity();
    // How far the shape reaches from its centre of mass towards the surface.
    let below = -centred.shape.support(&identity, &-normal).dot(&normal);
    let radius = centred.shape.bounding_sphere(&identity).radius;
    Ok(click.point + normal * (below + CLEARANCE * radius))
}

/// `trajectory NAME points {{t a} {t+1 b}}`: the least a trajectory is, two points a second
/// apart.
fn trajectory_command(name: &str, time: f64, from: &Vec3, to: &Vec3) -> String {
    let point = |t: f64, p: &Vec3| {
        format!(
            "{{{} {} {} {}}}",
            number(t),
            number(p.x),
            number(p.y),
            number(p.z)
        )
    };
    format!(
        "trajectory {name} points {{{} {}}}",
        point(time, from),
        point(time + 1.0, to)
    )
}

/// `command trajectory T` for an element driven by a trajectory: the one whose control point
/// was clicked, else a new one, written just before the command. A new trajectory for a link
/// starts at the clicked point; one for a force or torque holds the unit vector along −y.
/// The `offset` option of a force applied at `local` (body coordinates), or nothing for the
/// centre of mass.
fn application_point(local: &Vec3) -> String {
    if local.norm() < 1e-9 {
        String::new()
    } else {
        format!(" offset {}", vector(local))
    }
}

fn driven(scene: &Scene, click: &Click, body: usize, command: &str) -> (Vec<ElementRef>, String) {
    let mut requires = vec![ElementRef::new(ElementKind::Body, body)];
    if let Some(t) = click.trajectory.filter(|&t| t < scene.trajectories.len()) {
        requires.push(ElementRef::new(ElementKind::Trajectory, t));
        let name = &scene.trajectories[t].name;
        return (requires, format!("{command} trajectory {name}"));
    }
    let name = fresh_name(scene, "path");
    let value = if command.starts_with("link") {
        click.point
    } else {
        Vec3::from(DOWN)
    };
    let new = trajectory_command(&name, click.time, &value, &value);
    (requires, format!("{new}\n{command} trajectory {name}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::evaluate;
    use crate::scene::model::{ForceValue, LinkTarget};

    const SCENE: &str = "shape_set ball desc {sphere 0.5}
body a shape ball init_pos {0 0 0}
trajectory spin points {{0 0 0 1} {1 0 0 2}}
body b shape ball init_pos {3 0 0}
";

    fn scene() -> Scene {
        evaluate(SCENE).unwrap()
    }

    #[test]
    fn rounding_residue_of_a_click_is_written_as_zero() {
        let clicked = without_residue(Vec3::new(0.452607, 1.11022e-16, -2e-13), 20.0);
        assert_eq!(clicked, Vec3::new(0.452607, 0.0, 0.0));
        let tiny = without_residue(Vec3::new(1e-9, 3e-9, 0.0), 1e-6);
        assert_eq!(
            tiny,
            Vec3::new(1e-9, 3e-9, 0.0),
            "a small scene keeps its values"
        );
    }

    fn at(point: [f64; 3]) -> Click {
        Click {
            point: Vec3::from(point),
            surface: None,
            body: None,
            trajectory: None,
            time: 0.5,
        }
    }

    fn on_body(body: usize, local: [f64; 3]) -> Click {
        let world = Vec3::from(local) + Vec3::new(3.0 * body as f64, 0.0, 0.0);
        Click {
            point: world,
            surface: None,
            body: Some(BodyClick {
                body,
                local: Vec3::from(local),
                world,
            }),
            trajectory: None,
            time: 0.0,
        }
    }

    fn complete(prompt: &mut Prompt, clicks: &[Click]) -> Scene {
        let s = scene();
        let (last, first) = clicks.split_last().unwrap();
        for click in first {
            assert_eq!(prompt.click(click, SCENE, &s), Ok(None));
        }
        let text = prompt.click(last, SCENE, &s).unwrap().expect("complete");
        evaluate(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
    }

    #[test]
    fn a_body_goes_where_clicked() {
        let mut prompt = Prompt::new(Creation::Body {
            shape: "ball".into(),
        });
        assert!(prompt.instruction().contains("ball"));
        let s = complete(&mut prompt, &[at([1.0, 2.0, -0.5])]);
        let body = s.body("b1").unwrap();
        assert_eq!(body.init_pos.value, Vec3::new(1.0, 2.0, -0.5));
    }

    #[test]
    fn a_body_put_on_a_surface_rests_on_it() {
        let shape = || Creation::Body {
            shape: "ball".into(),
        };
        // On the ground (normal up) at y = -1: the ball of radius 0.5 sits on it.
        let mut on_ground = at([2.0, -1.0, 0.0]);
        on_ground.surface = Some(Vec3::y());
        let s = complete(&mut Prompt::new(shape()), &[on_ground]);
        let centre = s.body("b1").unwrap().init_pos.value;
        assert!(
            (centre - Vec3::new(2.0, -0.5, 0.0)).norm() < 1e-3,
            "{centre}"
        );
        assert!(centre.y > -0.5, "not into the ground: {centre}");
        // On the +x side of body b (at x = 3, radius 0.5): beside it, not inside.
        let mut on_b = on_body(1, [0.5, 0.0, 0.0]);
        on_b.surface = Some(Vec3::x());
        let s = complete(&mut Prompt::new(shape()), &[on_b]);
        let centre = s.body("b1").unwrap().init_pos.value;
        assert!(
            (centre - Vec3::new(4.0, 0.0, 0.0)).norm() < 1e-3,
            "{centre}"
        );
        assert!(crate::scene::starting_overlap(&s).is_none());
        // A box goes over the clicked point too, its bottom face on the surface.
        let text = "shape_set crate desc {box {2 1 2}}\n";
        let crate_scene = evaluate(text).unwrap();
        let mut prompt = Prompt::new(Creation::Body {
            shape: "crate".into(),
        });
        let mut click = at([3.0, 0.0, 1.0]);
        click.surface = Some(Vec3::y());
        let out = prompt.click(&click, text, &crate_scene).unwrap().unwrap();
        let centre = evaluate(&out).unwrap().body("b1").unwrap().init_pos.value;
        assert!(
            (centre - Vec3::new(3.0, 0.5, 1.0)).norm() < 1e-2,
            "{centre}"
        );
    }

    #[test]
    fn a_constant_force_needs_a_body_and_points_down() {
        let mut prompt = Prompt::new(Creation::Force(ForceCreation::Constant));
        let error = prompt
            .click(&at([9.0, 9.0, 9.0]), SCENE, &scene())
            .unwrap_err();
        assert!(error.contains("body"), "{error}");
        let s = complete(&mut prompt, &[on_body(1, [0.0, 0.5, 0.0])]);
        let force = &s.forces[0];
        assert_eq!(force.body, "b");
        let ForceValue::Components(v) = &force.value else {
            panic!("{force:?}")
        };
        assert_eq!(v.constant(), Some(Vec3::new(0.0, -1.0, 0.0)));
        assert_eq!(force.offset.value, Vec3::new(0.0, 0.5, 0.0));
    }

    #[test]
    fn a_trajectory_force_uses_the_clicked_trajectory_or_a_new_one() {
        let mut prompt = Prompt::new(Creation::Force(ForceCreation::Trajectory));
        let mut on_spin = at([0.0, 0.0, 1.0]);
        on_spin.trajectory = Some(0);
        let s = complete(&mut prompt, &[on_body(0, [0.0; 3]), on_spin]);
        assert_eq!(s.forces[0].value, ForceValue::Trajectory("spin".into()));
        assert_eq!(s.forces[0].offset.value, Vec3::zeros());

        let mut prompt = Prompt::new(Creation::Torque(TorqueCreation::Trajectory));
        let s = complete(&mut prompt, &[on_body(1, [0.0; 3]), at([5.0, 5.0, 5.0])]);
        assert_eq!(s.forces[0].value, ForceValue::Trajectory("path1".into()));
        let path = s.trajectory("path1").unwrap();
        assert_eq!(path.pieces[0].points[0].pos, Vec3::new(0.0, -1.0, 0.0));
    }

    #[test]
    fn links_join_the_clicked_points() {
        let mut prompt = Prompt::new(Creation::Link(LinkCreation::ObjectObject));
        let s = complete(
            &mut prompt,
            &[on_body(0, [0.5, 0.0, 0.0]), on_body(1, [-0.5, 0.0, 0.0])],
        );
        let link = &s.links[0];
        assert_eq!(link.body1, "a");
        assert_eq!(link.offset1.value, Vec3::new(0.5, 0.0, 0.0));
        let LinkTarget::Body { body2, offset2 } = &link.target else {
            panic!("{link:?}")
        };
        assert_eq!(
            (body2.as_str(), offset2.value),
            ("b", Vec3::new(-0.5, 0.0, 0.0))
        );

        // The same body twice is refused; the prompt still waits for the second body.
        let mut prompt = Prompt::new(Creation::Link(LinkCreation::ObjectObject));
        let s0 = scene();
        prompt.click(&on_body(0, [0.0; 3]), SCENE, &s0).unwrap();
        assert!(prompt.click(&on_body(0, [0.0; 3]), SCENE, &s0).is_err());
        assert!(prompt.instruction().contains("second body"));

        let mut prompt = Prompt::new(Creation::Link(LinkCreation::ObjectPoint));
        let s = complete(&mut prompt, &[on_body(1, [0.0; 3]), at([3.0, 4.0, 0.0])]);
        assert_eq!(s.links[0].body1, "b");
        let LinkTarget::Point(p) = &s.links[0].target else {
            panic!()
        };
        assert_eq!(p.constant(), Some(Vec3::new(3.0, 4.0, 0.0)));

        let mut prompt = Prompt::new(Creation::Link(LinkCreation::ObjectTrajectory));
        let s = complete(&mut prompt, &[on_body(0, [0.0; 3]), at([1.0, 1.0, 1.0])]);
        assert_eq!(s.links[0].target, LinkTarget::Trajectory("path1".into()));
        let start = &s.trajectory("path1").unwrap().pieces[0].points[0];
        assert_eq!((start.time, start.pos), (0.5, Vec3::new(1.0, 1.0, 1.0)));
    }

    #[test]
    fn trajectories_and_lights_start_at_the_click() {
        let s = complete(
            &mut Prompt::new(Creation::Trajectory),
            &[at([1.0, 0.0, 0.0])],
        );
        let points = &s.trajectory("path1").unwrap().pieces[0].points;
        assert_eq!(points.len(), 2);
        assert_eq!(
            (points[1].time, points[1].pos),
            (1.5, Vec3::new(2.0, 0.0, 0.0))
        );
        let s = complete(&mut Prompt::new(Creation::Light), &[at([0.0, 5.0, 0.0])]);
        assert_eq!(s.lights[0].pos.value, Vec3::new(0.0, 5.0, 0.0));
        assert_eq!(s.lights[0].name.as_deref(), Some("light1"));
    }
}
