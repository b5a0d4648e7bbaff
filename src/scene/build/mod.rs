//! The element commands (`shape_set`, `body`, `force`, `torque`, `link`, `trajectory`,
//! `lightsource`, `camera`, `simulator`) and the bookkeeping that turns their runs into a
//! [`Scene`]: which command created which element, which names are referred to before they
//! are defined, and the checks that can only be made once the whole text has run.
//!
//! Each command parses its words, raising errors at the offending word, and adds one element to
//! the scene under construction. An element's [`Origin`] is the span of the command that ran;
//! when one span creates several elements (a loop body, a proc called twice) all of them become
//! read-only to graphical editing (4.2.2).

mod args;
mod body;
mod expr;
mod force;
mod link;
mod shape;
mod simulator;
mod trajectory;
mod view;

use super::attribute::{Attribute, BODY_ATTRIBUTES, TRAJECTORY_ATTRIBUTES};
use super::error::{SceneError, Warning};
use super::fingerprint::Fingerprints;
use super::model::{CameraValue, Expression, ForceValue, LinkTarget, Origin, Scene};
use crate::lang::span::{LineIndex, Span};
use crate::lang::{Arg, Exception, Interp, Limits, Value};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// The scene under construction, shared by the element commands of one interpreter.
pub(super) type Shared = Rc<RefCell<Builder>>;

/// An element command: the interpreter, the shared builder, the command's words.
type ElementCommand = fn(&mut Interp, &Shared, &[Arg]) -> Result<Value, Exception>;

/// Every element command: its name, what runs it and the options it reads. The reader
/// registers these; the syntax colouring is checked against the names and options
/// ([`element_words`]).
const ELEMENTS: [(&str, ElementCommand, &[&str]); 9] = [
    ("shape_set", shape::shape_set, shape::OPTIONS),
    ("body", body::body, body::OPTIONS),
    ("force", force::force, force::FORCE_OPTIONS),
    ("torque", force::torque, force::TORQUE_OPTIONS),
    ("link", link::link, link::OPTIONS),
    ("trajectory", trajectory::trajectory, trajectory::OPTIONS),
    ("lightsource", view::lightsource, view::LIGHT_OPTIONS),
    ("camera", view::camera, view::CAMERA_OPTIONS),
    ("simulator", simulator::simulator, simulator::OPTIONS),
];

/// The element commands' names, and every other word they read by name: their options and
/// the words of a shape description (`sub`, `sphere`, …), each once, in a stable order.
pub fn element_words() -> (Vec<&'static str>, Vec<&'static str>) {
    let commands: Vec<&str> = ELEMENTS.iter().map(|(name, _, _)| *name).collect();
    let mut options: Vec<&str> = Vec::new();
    let words = ELEMENTS
        .iter()
        .flat_map(|(_, _, options)| options.iter())
        .chain(shape::TOKENS);
    for word in words {
        if !options.contains(word) && !commands.contains(word) {
            options.push(word);
        }
    }
    (commands, options)
}

/// Evaluates a scene text with the given interpreter limits.
pub(super) fn run(text: &str, limits: Limits) -> Result<Scene, SceneError> {
    let mut interp = Interp::new(limits);
    let shared: Shared = Rc::new(RefCell::new(Builder::new(text)));
    for (name, command, _) in ELEMENTS {
        let shared = shared.clone();
        interp.register(name, move |interp, args| command(interp, &shared, args));
    }
    let result = interp.eval_source(text);
    let log = interp.take_log();
    // The interpreter holds the commands, and they hold the builder: let go of both.
    drop(interp);
    let builder = Rc::try_unwrap(shared)
        .ok()
        .expect("the interpreter and its commands are gone")
        .into_inner();
    result.map_err(|e| SceneError::from_lang(e, text))?;
    builder.finish(log)
}

/// What a name used before its definition must turn out to be.
#[derive(Debug)]
pub(super) enum Expect {
    Body,
    Trajectory,
    /// `[NAME ATTR]` in an expression: a body or a trajectory having this attribute.
    Attribute(String),
}

/// A name referred to (by an option or in an expression) that is checked once the whole text
/// has run, since bodies and trajectories may be defined after the elements that use them.
#[derive(Debug)]
pub(super) struct Reference {
    pub name: String,
    pub span: Span,
    pub expect: Expect,
}

pub(super) struct Builder {
    text: Rc<str>,
    lines: LineIndex,
    pub scene: Scene,
    shapes: HashMap<String, usize>,
    bodies: HashMap<String, usize>,
    trajectories: HashMap<String, usize>,
    lights: HashMap<String, usize>,
    /// How many elements each command span has created.
    created: HashMap<Span, u32>,
    references: Vec<Reference>,
    /// Where each shape's name was written, for the unused-shape warning.
    shape_names: Vec<Span>,
    /// Trajectories whose command plain Tcl has run (`[T x 1.5]`): they are used.
    trajectories_asked: Vec<bool>,
}

impl Builder {
    fn new(text: &str) -> Builder {
        Builder {
            text: Rc::from(text),
            lines: LineIndex::new(text),
            scene: Scene::default(),
            shapes: HashMap::new(),
            bodies: HashMap::new(),
            trajectories: HashMap::new(),
            lights: HashMap::new(),
            created: HashMap::new(),
            references: Vec::new(),
            shape_names: Vec::new(),
            trajectories_asked: Vec::new(),
        }
    }

    /// The origin of a new element created by the command at `command`.
    pub fn origin(&mut self, command: Span) -> Origin {
        *self.created.entry(command).or_insert(0) += 1;
        Origin {
            command,
            editable: true,
        }
    }

    /// The line a span starts on, for messages that point back at an earlier definition.
    pub fn line(&self, span: Span) -> usize {
        self.lines.line_col(&self.text, span.start).line
    }

    pub fn shape_index(&self, name: &str) -> Option<usize> {
        self.shapes.get(name).copied()
    }

    pub fn body_index(&self, name: &str) -> Option<usize> {
        self.bodies.get(name).copied()
    }

    pub fn trajectory_index(&self, name: &str) -> Option<usize> {
        self.trajectories.get(name).copied()
    }

    /// Remembers a name to check at the end of the text.
    pub fn refer(&mut self, name: &str, span: Span, expect: Expect) {
        self.references.push(Reference {
            name: name.to_string(),
            span,
            expect,
        });
    }

    pub fn add_shape(&mut self, shape: super::model::ShapeSet, name_span: Span) {
        self.shapes
            .insert(shape.name.clone(), self.scene.shapes.len());
        self.scene.shapes.push(shape);
        self.shape_names.push(name_span);
    }

    pub fn add_body(&mut self, body: super::model::Body) -> usize {
        let index = self.scene.bodies.len();
        self.bodies.insert(body.name.clone(), index);
        self.scene.bodies.push(body);
        index
    }

    pub fn add_trajectory(&mut self, trajectory: super::model::Trajectory) -> usize {
        let index = self.scene.trajectories.len();
        self.trajectories.insert(trajectory.name.clone(), index);
        self.scene.trajectories.push(trajectory);
        self.trajectories_asked.push(false);
        index
    }

    /// Notes that plain Tcl asked trajectory `index` for a value.
    pub fn trajectory_asked(&mut self, index: usize) {
        self.trajectories_asked[index] = true;
    }

    pub fn light_index(&self, name: &str) -> Option<usize> {
        self.lights.get(name).copied()
    }

    pub fn add_light(&mut self, light: super::model::Light) {
        if let Some(name) = &light.name {
            self.lights.insert(name.clone(), self.scene.lights.len());
        }
        self.scene.lights.push(light);
    }

    /// Checks that a new body or trajectory may take `name`: it becomes a command, so it must
    /// not be taken by another element or command.
    pub fn check_command_name(
        &self,
        interp: &Interp,
        name: &str,
        span: Span,
    ) -> Result<(), Exception> {
        let earlier = self
            .body_index(name)
            .map(|i| ("body", self.scene.bodies[i].origin.command))
            .or_else(|| {
                self.trajectory_index(name)
                    .map(|i| ("trajectory", self.scene.trajectories[i].origin.command))
            });
        if let Some((kind, at)) = earlier {
            return Err(Exception::error_at(
                format!(
                    "duplicate name \"{name}\": a {kind} of that name is already defined on line {}",
                    self.line(at)
                ),
                span,
            ));
        }
        if interp.has_command(name) {
            return Err(Exception::error_at(
                format!(
                    "\"{name}\" is already a command: bodies and trajectories become commands, so choose another name"
                ),
                span,
            ));
        }
        Ok(())
    }

    fn warn(&mut self, message: String, span: Span) {
        let at = self.lines.line_col(&self.text, span.start);
        self.scene.warnings.push(Warning { message, span, at });
    }

    fn error(&self, message: String, span: Span) -> SceneError {
        SceneError::new(message, span, &self.text)
    }

    /// The checks that need the whole text, then the finished scene.
    fn finish(mut self, log: String) -> Result<Scene, SceneError> {
        self.check_references()?;
        let created = std::mem::take(&mut self.created);
        let editable = |origin: &mut Origin| origin.editable = created[&origin.command] == 1;
        let scene = &mut self.scene;
        scene
            .shapes
            .iter_mut()
            .for_each(|e| editable(&mut e.origin));
        scene
            .bodies
            .iter_mut()
            .for_each(|e| editable(&mut e.origin));
        scene
            .forces
            .iter_mut()
            .for_each(|e| editable(&mut e.origin));
        scene.links.iter_mut().for_each(|e| editable(&mut e.origin));
        scene
            .trajectories
            .iter_mut()
            .for_each(|e| editable(&mut e.origin));
        scene
            .lights
            .iter_mut()
            .for_each(|e| editable(&mut e.origin));
        scene
            .camera
            .iter_mut()
            .for_each(|e| editable(&mut e.origin));
        scene.simulator_origin.iter_mut().for_each(editable);
        self.warn_unused();
        self.scene.log = log.lines().map(str::to_string).collect();
        // Last: the elements are final now.
        self.scene.fingerprints = Fingerprints::of(&self.scene);
        Ok(self.scene)
    }

    fn check_references(&self) -> Result<(), SceneError> {
        for r in &self.references {
            let body = self.bodies.contains_key(&r.name);
            let trajectory = self.trajectories.contains_key(&r.name);
            let problem = match &r.expect {
                Expect::Body if !body => Some(format!("unknown body \"{}\"", r.name)),
                Expect::Trajectory if !trajectory => {
                    Some(format!("unknown trajectory \"{}\"", r.name))
                }
                Expect::Attribute(_) if !body && !trajectory => Some(format!(
                    "\"{}\" is neither a body nor a trajectory, so [{} …] cannot be used in an expression",
                    r.name, r.name
                )),
                Expect::Attribute(attr) => attribute_problem(&r.name, attr, body),
                _ => None,
            };
            if let Some(message) = problem {
                return Err(self.error(message, r.span));
            }
        }
        Ok(())
    }

    fn warn_unused(&mut self) {
        let scene = &self.scene;
        let mut warnings: Vec<(String, Span)> = Vec::new();
        let mut used = vec![false; scene.shapes.len()];
        for body in &scene.bodies {
            if let Some(i) = self.shape_index(&body.shape) {
                used[i] = true;
            }
        }
        for ((shape, span), used) in scene.shapes.iter().zip(&self.shape_names).zip(used) {
            if !used {
                warnings.push((
                    format!("shape \"{}\" is not used by any body", shape.name),
                    *span,
                ));
            }
        }
        let used = used_trajectories(scene);
        for ((t, used), asked) in scene
            .trajectories
            .iter()
            .zip(used)
            .zip(&self.trajectories_asked)
        {
            if !used && !asked {
                warnings.push((
                    format!(
                        "trajectory \"{}\" is not used: it drives no body, and no force, link, light, camera or expression refers to it",
                        t.name
                    ),
                    t.origin.command,
                ));
            }
        }
        for f in &scene.forces {
            if self
                .body_index(&f.body)
                .is_some_and(|i| scene.bodies[i].fixed)
            {
                warnings.push((
                    format!(
                        "{} on {} has no effect: the body is fixed",
                        f.kind.word(),
                        f.body
                    ),
                    f.origin.command,
                ));
            }
        }
        for (message, span) in warnings {
            self.warn(message, span);
        }
    }
}

/// Which trajectories the scene uses: attached to a body, or referred to by a force, link,
/// light, camera or expression.
fn used_trajectories(scene: &Scene) -> Vec<bool> {
    if scene.trajectories.is_empty() {
        return Vec::new();
    }
    let mut names: HashSet<&str> = HashSet::new();
    let mut expressions: Vec<&Expression> = Vec::new();
    for f in &scene.forces {
        match &f.value {
            ForceValue::Trajectory(t) => {
                names.insert(t);
            }
            ForceValue::Components(v) => expressions.extend(v.components()),
            ForceValue::Gravity(_) => {}
        }
    }
    for l in &scene.links {
        match &l.target {
            LinkTarget::Trajectory(t) => {
                names.insert(t);
            }
            LinkTarget::Point(v) => expressions.extend(v.components()),
            LinkTarget::Body { .. } => {}
        }
    }
    names.extend(scene.lights.iter().filter_map(|l| l.trajectory.as_deref()));
    if let Some(c) = &scene.camera {
        for v in [&c.pos, &c.rot, &c.center] {
            match v {
                CameraValue::Trajectory(t) => {
                    names.insert(t);
                }
                CameraValue::Expressions(e) => expressions.extend(e.components()),
                CameraValue::Constant(_) => {}
            }
        }
    }
    let referred: HashSet<String> = expressions
        .iter()
        .flat_map(|e| e.references())
        .map(|r| r.name)
        .collect();
    scene
        .trajectories
        .iter()
        .map(|t| {
            !t.attachments.is_empty()
                || names.contains(t.name.as_str())
                || referred.contains(&t.name)
        })
        .collect()
}

/// Why `[name attr]` is wrong for a body (or else a trajectory) of that name, if it is.
pub(super) fn attribute_problem(name: &str, attr: &str, is_body: bool) -> Option<String> {
    let (kind, valid, known) = if is_body {
        ("body", &BODY_ATTRIBUTES[..], Attribute::of_body(attr))
    } else {
        (
            "trajectory",
            &TRAJECTORY_ATTRIBUTES[..],
            Attribute::of_trajectory(attr),
        )
    };
    known.is_none().then(|| {
        format!(
            "unknown attribute \"{attr}\" of {kind} {name}: expected {}",
            args::one_of(valid)
        )
    })
}

/// A `wrong # args` error for an element command used without its name.
pub(super) fn usage(usage: &str) -> Exception {
    Exception::error(format!("wrong # args: should be \"{usage}\""))
}
