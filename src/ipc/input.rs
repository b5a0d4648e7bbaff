//! What hosts forward with pointer, scroll and key events: modifier masks and button numbers,
//! as the rendition schema defines them.

/// A modifier mask: a set of the bits below. Unknown bits are kept and ignored, so a newer
/// host may send more.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Modifiers(pub u32);

impl Modifiers {
    pub const SHIFT: Modifiers = Modifiers(1);
    pub const CONTROL: Modifiers = Modifiers(2);
    pub const ALT: Modifiers = Modifiers(4);
    pub const SUPER: Modifiers = Modifiers(8);

    pub fn contains(self, other: Modifiers) -> bool {
        self.0 & other.0 == other.0
    }
}

impl std::ops::BitOr for Modifiers {
    type Output = Modifiers;

    fn bitor(self, other: Modifiers) -> Modifiers {
        Modifiers(self.0 | other.0)
    }
}

/// Pointer buttons, numbered as X11 does.
pub mod button {
    /// No button (motion, enter, leave).
    pub const NONE: u32 = 0;
    pub const LEFT: u32 = 1;
    pub const MIDDLE: u32 = 2;
    pub const RIGHT: u32 = 3;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks() {
        let m = Modifiers::SHIFT | Modifiers::ALT;
        assert!(m.contains(Modifiers::SHIFT));
        assert!(!m.contains(Modifiers::CONTROL));
        assert!(m.contains(Modifiers::default()));
        assert!(Modifiers(0xff00 | 2).contains(Modifiers::CONTROL));
    }

    #[test]
    fn the_schema_states_the_bits_and_buttons() {
        let xml = crate::ipc::names::RENDITION_XML;
        let masks = format!(
            "{} Shift, {} Control, {} Alt, {} Super",
            Modifiers::SHIFT.0,
            Modifiers::CONTROL.0,
            Modifiers::ALT.0,
            Modifiers::SUPER.0
        );
        assert!(xml.contains(&masks));
        let buttons = format!(
            "{} left, {} middle, {} right",
            button::LEFT,
            button::MIDDLE,
            button::RIGHT
        );
        assert!(xml.contains(&buttons));
    }
}
