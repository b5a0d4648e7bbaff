//! Rendition sizes and their limits.

use super::names::{MAX_RENDITION_SIDE, MIN_RENDITION_SIDE};
use std::fmt;

/// A rendition size in pixels, each side within
/// [`MIN_RENDITION_SIDE`]`..=`[`MAX_RENDITION_SIDE`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RenditionSize {
    width: u32,
    height: u32,
}

/// A size outside the limits; the message says them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InvalidSize {
    pub width: u32,
    pub height: u32,
}

impl fmt::Display for InvalidSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a rendition of {}×{} pixels: width and height must each be \
             {MIN_RENDITION_SIDE} to {MAX_RENDITION_SIDE}",
            self.width, self.height
        )
    }
}

impl std::error::Error for InvalidSize {}

impl RenditionSize {
    pub fn new(width: u32, height: u32) -> Result<RenditionSize, InvalidSize> {
        let side = MIN_RENDITION_SIDE..=MAX_RENDITION_SIDE;
        if side.contains(&width) && side.contains(&height) {
            Ok(RenditionSize { width, height })
        } else {
            Err(InvalidSize { width, height })
        }
    }

    pub fn width(self) -> u32 {
        self.width
    }

    pub fn height(self) -> u32 {
        self.height
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits() {
        assert!(RenditionSize::new(1, 1).is_ok());
        assert!(RenditionSize::new(8192, 8192).is_ok());
        assert_eq!(
            RenditionSize::new(0, 0).unwrap_err().to_string(),
            "a rendition of 0×0 pixels: width and height must each be 1 to 8192"
        );
        assert!(RenditionSize::new(100_000, 100_000).is_err());
        assert!(RenditionSize::new(640, 8193).is_err());
    }
}
