//! What the keys mean over a view, by their X11 keysym names (`c`, `Home`, `KP_Left`, …), as
//! GTK names them and as hosts forward them: one map for the editor's viewers and the slave's
//! renditions.

use super::live::ScreenDirection;
use super::transport::Direction;

/// A key's meaning over a view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyAction {
    /// `c`: the centre of rotation and scaling moves to what is under the pointer (4.1.7).
    CentreAtPointer,
    /// `z` (into the screen) and `x` (out of it): push the dragged handle (4.1.6).
    PushHandle { into: bool },
    /// `a`, while held: link ends move in the screen plane instead of on the surface (4.1.6).
    Free,
    /// `v`: back to the scene's camera or the fitted default view.
    ResetView,
    /// `space`: play or pause the computed motion.
    PlayPause,
    /// `Home` (`Reverse`: the start) and `End` (`Forward`: the finish) of the motion.
    GoTo(Direction),
    /// `r`: play the other way.
    Reverse,
    /// `]` (twice as fast) and `[` (half as fast), within 1/8× and 8×.
    Speed { faster: bool },
    /// The arrow keys: live, push the body pulled last along the screen, while held; playing
    /// the computed motion, Left and Right step one frame back or forward.
    Push(ScreenDirection),
}

impl KeyAction {
    /// The meaning of the key called `name` (a keysym name; letters in either case).
    pub fn of_key(name: &str) -> Option<KeyAction> {
        if let Some(direction) = ScreenDirection::of_key(name) {
            return Some(KeyAction::Push(direction));
        }
        Some(match name {
            "c" | "C" => KeyAction::CentreAtPointer,
            "z" | "Z" => KeyAction::PushHandle { into: true },
            "x" | "X" => KeyAction::PushHandle { into: false },
            "a" | "A" => KeyAction::Free,
            "v" | "V" => KeyAction::ResetView,
            "Home" | "KP_Home" => KeyAction::GoTo(Direction::Reverse),
            "End" | "KP_End" => KeyAction::GoTo(Direction::Forward),
            "r" | "R" => KeyAction::Reverse,
            "bracketright" => KeyAction::Speed { faster: true },
            "bracketleft" => KeyAction::Speed { faster: false },
            "space" => KeyAction::PlayPause,
            _ => return None,
        })
    }

    /// Whether the action lasts while the key is held (its release matters too).
    pub fn is_held(self) -> bool {
        matches!(self, KeyAction::Free | KeyAction::Push(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_have_one_meaning_in_every_view() {
        assert_eq!(KeyAction::of_key("c"), Some(KeyAction::CentreAtPointer));
        assert_eq!(
            KeyAction::of_key("Z"),
            Some(KeyAction::PushHandle { into: true })
        );
        assert_eq!(
            KeyAction::of_key("KP_Left"),
            Some(KeyAction::Push(ScreenDirection::Left))
        );
        assert_eq!(KeyAction::of_key("v"), Some(KeyAction::ResetView));
        assert_eq!(
            KeyAction::of_key("End"),
            Some(KeyAction::GoTo(Direction::Forward))
        );
        assert_eq!(
            KeyAction::of_key("bracketleft"),
            Some(KeyAction::Speed { faster: false })
        );
        assert_eq!(KeyAction::of_key("q"), None);
        assert!(KeyAction::Free.is_held() && !KeyAction::ResetView.is_held());
    }
}
