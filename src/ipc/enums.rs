//! The contract's enumerations. They travel as lower-case strings (the D-Bus API design guide's
//! advice: readable in `busctl`, extensible without renumbering); these types are their Rust
//! side, shared by the slave that parses them and hosts that send them.

use std::fmt;
use std::str::FromStr;

/// A string that names no value of an enumeration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownValue {
    /// What the string should have named ("editor kind").
    pub what: &'static str,
    /// The string, shortened to 60 characters.
    pub found: String,
    /// Every valid value.
    pub expected: &'static [&'static str],
}

impl fmt::Display for UnknownValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown {} '{}': expected one of {}",
            self.what,
            self.found,
            self.expected.join(", ")
        )
    }
}

impl std::error::Error for UnknownValue {}

/// Declares an enumeration with its string forms, `ALL`, `as_str`, `FromStr` and `Display`.
macro_rules! string_enum {
    (
        $(#[$meta:meta])*
        $name:ident, $what:literal {
            $( $(#[$variant_meta:meta])* $variant:ident = $text:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $name {
            $( $(#[$variant_meta])* $variant ),+
        }

        impl $name {
            /// Every value, in the order the schema lists them.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The string form used on the bus.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }
        }

        impl FromStr for $name {
            type Err = UnknownValue;

            fn from_str(s: &str) -> Result<Self, UnknownValue> {
                match s {
                    $($text => Ok($name::$variant),)+
                    _ => Err(UnknownValue {
                        what: $what,
                        found: s.chars().take(60).collect(),
                        expected: &[$($text),+],
                    }),
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

string_enum! {
    /// The `Status` property of a subdocument.
    Status, "status" {
        /// No scene text has been set yet.
        Loading = "loading",
        /// The motion is computed.
        Ready = "ready",
        /// The motion is being computed; renditions play what is known.
        Simulating = "simulating",
        /// The scene text does not evaluate (or the simulation failed).
        Error = "error",
    }
}

string_enum! {
    /// The editor windows `OpenEditor` opens (dissertation 3.3, 4.1).
    EditorKind, "editor kind" {
        Graphical = "graphical",
        Language = "language",
        Shape = "shape",
        Trajectory = "trajectory",
        ControlPanel = "control-panel",
        /// The whole editor: the control panel with its menus, a graphical and a language
        /// viewer, and every window they open; File ▸ Save saves the host's document.
        Full = "full",
    }
}

string_enum! {
    /// The kinds of handle `SetHandlesVisible` shows or hides (dissertation 4.1.3).
    HandleKind, "handle kind" {
        Position = "position",
        Rotation = "rotation",
        Velocity = "velocity",
        AngularVelocity = "angular-velocity",
        Force = "force",
        Link = "link",
        Trajectory = "trajectory",
        Light = "light",
    }
}

string_enum! {
    /// The kinds of pointer event a host forwards with `Pointer`.
    PointerKind, "pointer event kind" {
        Motion = "motion",
        Press = "press",
        Release = "release",
        Enter = "enter",
        Leave = "leave",
    }
}

string_enum! {
    /// The `Mode` property of a rendition.
    PlaybackMode, "rendition mode" {
        /// Show the computed motion at real-time speed.
        Playback = "playback",
        /// Run the simulation itself in real time.
        Live = "live",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipc::names::{RENDITION_XML, SUBDOCUMENT_XML};

    #[test]
    fn every_value_reads_back_from_its_string() {
        for &kind in EditorKind::ALL {
            assert_eq!(kind.as_str().parse::<EditorKind>(), Ok(kind));
        }
        for &kind in HandleKind::ALL {
            assert_eq!(kind.as_str().parse::<HandleKind>(), Ok(kind));
        }
        for &kind in PointerKind::ALL {
            assert_eq!(kind.to_string().parse::<PointerKind>(), Ok(kind));
        }
        for &status in Status::ALL {
            assert_eq!(status.as_str().parse::<Status>(), Ok(status));
        }
        for &mode in PlaybackMode::ALL {
            assert_eq!(mode.as_str().parse::<PlaybackMode>(), Ok(mode));
        }
    }

    #[test]
    fn an_unknown_value_names_the_valid_ones() {
        let e = "spreadsheet".parse::<EditorKind>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown editor kind 'spreadsheet': expected one of graphical, language, shape, \
             trajectory, control-panel, full"
        );
        let long = "x".repeat(10_000);
        let e = long.parse::<HandleKind>().unwrap_err();
        assert_eq!(e.found.len(), 60);
        assert!(
            "Motion".parse::<PointerKind>().is_err(),
            "values are case-sensitive"
        );
    }

    #[test]
    fn the_schemas_document_every_value() {
        let quoted = |s: &str| format!("'{s}'");
        for kind in EditorKind::ALL {
            assert!(SUBDOCUMENT_XML.contains(&quoted(kind.as_str())), "{kind}");
        }
        for kind in HandleKind::ALL {
            assert!(SUBDOCUMENT_XML.contains(&quoted(kind.as_str())), "{kind}");
        }
        for status in Status::ALL {
            assert!(
                SUBDOCUMENT_XML.contains(&quoted(status.as_str())),
                "{status}"
            );
        }
        for kind in PointerKind::ALL {
            assert!(RENDITION_XML.contains(&quoted(kind.as_str())), "{kind}");
        }
        for mode in PlaybackMode::ALL {
            assert!(RENDITION_XML.contains(&quoted(mode.as_str())), "{mode}");
        }
    }
}
