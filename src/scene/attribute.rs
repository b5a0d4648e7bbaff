//! The attributes `[NAME ATTR]` reads, in one table: their names, which elements have them,
//! and which quantity and component each is. The scene's element commands (a body or
//! trajectory run as a command), their checks of references, the renderer's values of camera
//! and light expressions and the equations of motion all read attribute names here.

/// A vector quantity of a body's state, as its attributes name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantity {
    /// `x y z`: the position of the centre of mass (a trajectory's value).
    Position,
    /// `dx dy dz`: the velocity (a trajectory's time derivative).
    Velocity,
    /// `rx ry rz`: the rotation vector (axis times angle).
    Rotation,
    /// `drx dry drz`: the angular velocity.
    AngularVelocity,
}

/// What `[NAME ATTR]` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Attribute {
    /// Component 0, 1 or 2 (x, y or z) of a vector quantity.
    Component(Quantity, usize),
    /// The body's mass.
    Mass,
}

/// Every attribute with its name, bodies' and trajectories' alike (trajectories have the
/// position and velocity components only).
const ALL: [(&str, Attribute); 13] = [
    ("x", Attribute::Component(Quantity::Position, 0)),
    ("y", Attribute::Component(Quantity::Position, 1)),
    ("z", Attribute::Component(Quantity::Position, 2)),
    ("dx", Attribute::Component(Quantity::Velocity, 0)),
    ("dy", Attribute::Component(Quantity::Velocity, 1)),
    ("dz", Attribute::Component(Quantity::Velocity, 2)),
    ("rx", Attribute::Component(Quantity::Rotation, 0)),
    ("ry", Attribute::Component(Quantity::Rotation, 1)),
    ("rz", Attribute::Component(Quantity::Rotation, 2)),
    ("drx", Attribute::Component(Quantity::AngularVelocity, 0)),
    ("dry", Attribute::Component(Quantity::AngularVelocity, 1)),
    ("drz", Attribute::Component(Quantity::AngularVelocity, 2)),
    ("mass", Attribute::Mass),
];

/// The names of a body's attributes, in the order error messages list them.
pub const BODY_ATTRIBUTES: [&str; 13] = names::<13>();

/// The names of a trajectory's attributes: its value and its time derivative.
pub const TRAJECTORY_ATTRIBUTES: [&str; 6] = names::<6>();

/// The first `N` names of [`ALL`].
const fn names<const N: usize>() -> [&'static str; N] {
    let mut out = [""; N];
    let mut i = 0;
    while i < N {
        out[i] = ALL[i].0;
        i += 1;
    }
    out
}

impl Attribute {
    /// The body attribute called `name`.
    pub fn of_body(name: &str) -> Option<Attribute> {
        ALL.iter().find(|(n, _)| *n == name).map(|(_, a)| *a)
    }

    /// The trajectory attribute called `name`.
    pub fn of_trajectory(name: &str) -> Option<Attribute> {
        Attribute::of_body(name).filter(|a| {
            matches!(
                a,
                Attribute::Component(Quantity::Position | Quantity::Velocity, _)
            )
        })
    }

    /// The attribute's name.
    pub fn name(self) -> &'static str {
        ALL.iter().find(|(_, a)| *a == self).map_or("", |(n, _)| *n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_attributes_correspond() {
        for name in BODY_ATTRIBUTES {
            assert_eq!(Attribute::of_body(name).unwrap().name(), name);
        }
        assert_eq!(BODY_ATTRIBUTES[12], "mass");
        assert_eq!(TRAJECTORY_ATTRIBUTES, ["x", "y", "z", "dx", "dy", "dz"]);
        for name in TRAJECTORY_ATTRIBUTES {
            assert!(Attribute::of_trajectory(name).is_some());
        }
        assert_eq!(Attribute::of_trajectory("drx"), None);
        assert_eq!(Attribute::of_trajectory("mass"), None);
        assert_eq!(Attribute::of_body("q"), None);
        assert_eq!(
            Attribute::of_body("dry"),
            Some(Attribute::Component(Quantity::AngularVelocity, 1))
        );
    }
}
