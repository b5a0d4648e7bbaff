//! Generated scenes of pendulums and the edits an animator makes to them, as scene text: shared
//! by the incremental-update tests (`tests/incremental.rs`) and the edit benchmark
//! (`benches/edits.rs`), so the benchmark measures the edits the tests check.
//!
//! A [`Rig`] is a row of pendulums far enough apart never to touch, each with a shape of its
//! own (so a shape edit reaches one body), gravity, a force and a torque written as
//! expressions, and a link to a point above it; two free balls that meet head on (so
//! restitution and friction matter); and a rider carried along a trajectory. Each
//! [`EditKind`] changes one of these bodies (or the trajectory) in the way its name says.

#![allow(dead_code)]

/// One pendulum.
#[derive(Clone, Debug)]
pub struct Pendulum {
    pub name: String,
    pub radius: f64,
    pub mass: f64,
    pub pos: [f64; 3],
    pub vel: [f64; 3],
    pub restitution: f64,
    pub friction: f64,
    pub gravity: bool,
    /// The x components of forces, expressions of time and state.
    pub pushes: Vec<String>,
    /// The y component of a torque.
    pub twist: Option<String>,
    /// The links' anchors (the first above the bob) and tightnesses.
    pub links: Vec<([f64; 3], f64)>,
}

/// A free ball far below the pendulums, at `x` moving along x at `speed`.
fn ball(name: &str, x: f64, speed: f64) -> Pendulum {
    Pendulum {
        name: name.to_string(),
        pos: [x, -10.0, 0.0],
        vel: [speed, 0.0, 0.0],
        gravity: false,
        pushes: Vec::new(),
        twist: None,
        links: Vec::new(),
        ..pendulum(0)
    }
}

/// A scene of pendulums, two balls that collide, and a rider on a trajectory.
#[derive(Clone, Debug)]
pub struct Rig {
    pub finish: f64,
    pub pendulums: Vec<Pendulum>,
    /// Control points `{t x y z}` of the rider's trajectory.
    pub path: Vec<[f64; 4]>,
    /// Names given to added pendulums so far.
    pub added: usize,
}

/// The kinds of edit of issue 27, each applied to one pendulum (or the trajectory).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EditKind {
    Initial,
    Mass,
    Force,
    Torque,
    Shape,
    LinkAnchor,
    LinkTightness,
    Restitution,
    Friction,
    AddBody,
    AddBodyAtTop,
    DeleteBody,
    AddForce,
    DeleteForce,
    AddLink,
    DeleteLink,
    TrajectoryPoints,
}

impl EditKind {
    pub const ALL: [EditKind; 17] = [
        EditKind::Initial,
        EditKind::Mass,
        EditKind::Force,
        EditKind::Torque,
        EditKind::Shape,
        EditKind::LinkAnchor,
        EditKind::LinkTightness,
        EditKind::Restitution,
        EditKind::Friction,
        EditKind::AddBody,
        EditKind::AddBodyAtTop,
        EditKind::DeleteBody,
        EditKind::AddForce,
        EditKind::DeleteForce,
        EditKind::AddLink,
        EditKind::DeleteLink,
        EditKind::TrajectoryPoints,
    ];

    pub fn name(self) -> &'static str {
        match self {
            EditKind::Initial => "initial state",
            EditKind::Mass => "mass",
            EditKind::Force => "force expression",
            EditKind::Torque => "torque expression",
            EditKind::Shape => "shape size",
            EditKind::LinkAnchor => "link anchor",
            EditKind::LinkTightness => "link tightness",
            EditKind::Restitution => "restitution",
            EditKind::Friction => "friction",
            EditKind::AddBody => "add a body",
            EditKind::AddBodyAtTop => "add a body at the top",
            EditKind::DeleteBody => "delete a body",
            EditKind::AddForce => "add a force",
            EditKind::DeleteForce => "delete a force",
            EditKind::AddLink => "add a link",
            EditKind::DeleteLink => "delete a link",
            EditKind::TrajectoryPoints => "trajectory points",
        }
    }
}

/// Pendulum `i` of a row: bobs 3 m apart, swinging along z from anchors 1.5 m above.
fn pendulum(i: usize) -> Pendulum {
    let x = 3.0 * i as f64;
    let phase = i as f64;
    Pendulum {
        name: format!("p{i}"),
        radius: 0.2,
        mass: 1.0,
        pos: [x, 0.0, 0.4 * phase.sin()],
        vel: [0.0, 0.0, 0.3 * (1.7 * phase).cos()],
        restitution: 0.8,
        friction: 0.4,
        gravity: true,
        pushes: (i % 3 == 0)
            .then(|| format!("0.2 * sin({:.1} * $t)", 1.0 + (i % 5) as f64))
            .into_iter()
            .collect(),
        twist: (i % 4 == 1).then(|| "0.01 * cos($t)".to_string()),
        links: vec![([x, 1.5, 0.0], 100.0)],
    }
}

impl Rig {
    /// `n` pendulums, then two balls that meet head on after 0.6 s, and the rider, simulated
    /// for `finish` seconds.
    pub fn new(n: usize, finish: f64) -> Rig {
        let mut pendulums: Vec<Pendulum> = (0..n).map(pendulum).collect();
        pendulums.push(ball("ball0", -2.0, 3.0));
        pendulums.push(ball("ball1", 2.0, -3.0));
        Rig {
            finish,
            pendulums,
            path: vec![
                [0.0, 0.0, -5.0, 0.0],
                [finish / 2.0, 1.0, -5.0, 0.5],
                [finish, 2.0, -5.0, 0.0],
            ],
            added: 0,
        }
    }

    /// The scene text: every element written out, in the order of the pendulums.
    pub fn text(&self) -> String {
        let mut t = format!(
            "simulator finish {} step 0.05\nshape_set rider_ball desc {{sphere 0.2}}\n",
            self.finish
        );
        for p in &self.pendulums {
            let n = &p.name;
            let [x, y, z] = p.pos;
            let [u, v, w] = p.vel;
            t.push_str(&format!(
                "shape_set s_{n} desc {{sphere {}}}\n\
                 body {n} shape s_{n} mass {} init_pos {{{x} {y} {z}}} init_dpos {{{u} {v} {w}}} \
                 restitution {} friction {}\n",
                p.radius, p.mass, p.restitution, p.friction
            ));
            if p.gravity {
                t.push_str(&format!("force body {n} gravity {{0 -9.81 0}}\n"));
            }
            for push in &p.pushes {
                t.push_str(&format!("force body {n} x {{{push}}}\n"));
            }
            if let Some(twist) = &p.twist {
                t.push_str(&format!("torque body {n} y {{{twist}}}\n"));
            }
            for ([ax, ay, az], k) in &p.links {
                t.push_str(&format!(
                    "link body1 {n} offset1 {{0 {} 0}} point {{{ax} {ay} {az}}} tightness {k}\n",
                    p.radius
                ));
            }
        }
        let points: Vec<String> = self
            .path
            .iter()
            .map(|[t, x, y, z]| format!("{{{t} {x} {y} {z}}}"))
            .collect();
        t.push_str(&format!(
            "body rider shape rider_ball init_pos {{0 -5 0}}\n\
             trajectory path points {{{}}} body rider var pos\n",
            points.join(" ")
        ));
        t
    }

    /// Applies an edit of `kind` to pendulum `at` (or to the trajectory); `amount` in [0, 1)
    /// picks the new value. Edits that need something the pendulum lacks (deleting its force
    /// when it has none) add it instead, so every edit changes the scene.
    pub fn edit(&mut self, kind: EditKind, at: usize, amount: f64) {
        let at = at % self.pendulums.len().max(1);
        let fresh = |rig: &mut Rig, x: f64| {
            rig.added += 1;
            let mut p = pendulum(0);
            p.name = format!("new{}", rig.added);
            p.pos = [x, 0.0, 8.0 + 0.5 * amount];
            p.links = vec![([x, 1.5, 8.0], 100.0)];
            p
        };
        match kind {
            EditKind::AddBody => {
                let p = fresh(self, -3.0 * self.added as f64 - 3.0);
                self.pendulums.push(p);
                return;
            }
            EditKind::AddBodyAtTop => {
                let p = fresh(self, -3.0 * self.added as f64 - 3.0);
                self.pendulums.insert(0, p);
                return;
            }
            EditKind::TrajectoryPoints => {
                self.path[1][3] = 0.5 + amount;
                return;
            }
            _ => {}
        }
        if self.pendulums.is_empty() {
            return;
        }
        if kind == EditKind::DeleteBody {
            if self.pendulums.len() > 1 {
                self.pendulums.remove(at);
            }
            return;
        }
        let p = &mut self.pendulums[at];
        match kind {
            EditKind::Initial => p.pos[2] = 0.5 * amount - 0.25,
            EditKind::Mass => p.mass = 0.5 + amount,
            EditKind::Force => {
                let force = format!("{:.3} * cos($t)", 0.1 + amount);
                match p.pushes.first_mut() {
                    Some(first) => *first = force,
                    None => p.pushes.push(force),
                }
            }
            EditKind::AddForce => p.pushes.push(format!("{:.3} * $t", amount - 0.5)),
            EditKind::DeleteForce => {
                if p.pushes.pop().is_none() {
                    p.pushes.push("0.1".to_string());
                }
            }
            EditKind::Torque => p.twist = Some(format!("{:.3} * sin($t)", 0.01 + amount * 0.01)),
            EditKind::Shape => p.radius = 0.15 + 0.1 * amount,
            EditKind::LinkAnchor | EditKind::LinkTightness => {
                let [x, _, z] = p.pos;
                let (anchor, k) = p.links.first().copied().unwrap_or(([x, 1.5, 0.0], 100.0));
                let link = match kind {
                    EditKind::LinkAnchor => ([anchor[0], 1.5, z + amount - 0.5], k),
                    _ => (anchor, 50.0 + 100.0 * amount),
                };
                match p.links.first_mut() {
                    Some(first) => *first = link,
                    None => p.links.push(link),
                }
            }
            EditKind::AddLink => {
                let [x, _, z] = p.pos;
                p.links.push(([x + 0.5, 1.5, z + amount], 20.0));
            }
            EditKind::DeleteLink => {
                if p.links.pop().is_none() {
                    p.links.push(([p.pos[0], 1.5, 0.0], 100.0));
                }
            }
            EditKind::Restitution => p.restitution = amount,
            EditKind::Friction => p.friction = amount,
            _ => unreachable!("handled above"),
        }
    }
}
