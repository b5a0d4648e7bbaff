//! Colours as the scene text writes them: Tk-style names, `#rgb`/`#rrggbb`, or `{r g b}` with
//! components in 0..1.

use super::model::Color;
use crate::lang::number::parse_number;

/// Named colours, lower case without spaces. The values are X11's, except the four names Tk 8.6
/// took from the web standard (gray, green, maroon, purple).
const NAMED: &[(&str, [u8; 3])] = &[
    ("black", [0, 0, 0]),
    ("white", [255, 255, 255]),
    ("red", [255, 0, 0]),
    ("green", [0, 128, 0]),
    ("lime", [0, 255, 0]),
    ("blue", [0, 0, 255]),
    ("yellow", [255, 255, 0]),
    ("cyan", [0, 255, 255]),
    ("aqua", [0, 255, 255]),
    ("magenta", [255, 0, 255]),
    ("fuchsia", [255, 0, 255]),
    ("orange", [255, 165, 0]),
    ("gray", [128, 128, 128]),
    ("grey", [128, 128, 128]),
    ("darkgray", [169, 169, 169]),
    ("darkgrey", [169, 169, 169]),
    ("lightgray", [211, 211, 211]),
    ("lightgrey", [211, 211, 211]),
    ("silver", [192, 192, 192]),
    ("brown", [165, 42, 42]),
    ("pink", [255, 192, 203]),
    ("purple", [128, 0, 128]),
    ("violet", [238, 130, 238]),
    ("maroon", [128, 0, 0]),
    ("navy", [0, 0, 128]),
    ("olive", [128, 128, 0]),
    ("teal", [0, 128, 128]),
    ("gold", [255, 215, 0]),
    ("beige", [245, 245, 220]),
    ("tan", [210, 180, 140]),
    ("khaki", [240, 230, 140]),
    ("coral", [255, 127, 80]),
    ("salmon", [250, 128, 114]),
    ("tomato", [255, 99, 71]),
    ("crimson", [220, 20, 60]),
    ("firebrick", [178, 34, 34]),
    ("darkred", [139, 0, 0]),
    ("sienna", [160, 82, 45]),
    ("chocolate", [210, 105, 30]),
    ("wheat", [245, 222, 179]),
    ("ivory", [255, 255, 240]),
    ("indigo", [75, 0, 130]),
    ("orchid", [218, 112, 214]),
    ("plum", [221, 160, 221]),
    ("turquoise", [64, 224, 208]),
    ("skyblue", [135, 206, 235]),
    ("lightblue", [173, 216, 230]),
    ("steelblue", [70, 130, 180]),
    ("royalblue", [65, 105, 225]),
    ("darkblue", [0, 0, 139]),
    ("lightgreen", [144, 238, 144]),
    ("forestgreen", [34, 139, 34]),
    ("darkgreen", [0, 100, 0]),
    ("seagreen", [46, 139, 87]),
    ("darkorange", [255, 140, 0]),
    ("lightyellow", [255, 255, 224]),
];

impl Color {
    pub const WHITE: Color = Color {
        r: 1.0,
        g: 1.0,
        b: 1.0,
    };

    fn from_bytes([r, g, b]: [u8; 3]) -> Color {
        Color {
            r: f32::from(r) / 255.0,
            g: f32::from(g) / 255.0,
            b: f32::from(b) / 255.0,
        }
    }

    /// Reads a colour from its written forms. `components` is the text split as a list, when
    /// it is one (the caller has it already); the error says what forms are accepted.
    pub fn parse(text: &str, components: Option<&[&str]>) -> Result<Color, String> {
        let trimmed = text.trim();
        if let Some(hex) = trimmed.strip_prefix('#') {
            return parse_hex(hex).ok_or_else(|| {
                format!("bad colour \"{text}\": expected #rgb or #rrggbb with hexadecimal digits")
            });
        }
        // Several words starting with a number are components; several words otherwise are
        // a name written with spaces ("light blue").
        if let Some(parts) = components.filter(|c| c.len() > 1 && parse_number(c[0]).is_some()) {
            return parse_components(text, parts);
        }
        let key: String = trimmed
            .chars()
            .filter(|c| !c.is_whitespace())
            .map(|c| c.to_ascii_lowercase())
            .collect();
        NAMED
            .iter()
            .find(|(name, _)| *name == key)
            .map(|(_, rgb)| Color::from_bytes(*rgb))
            .ok_or_else(|| {
                format!(
                    "unknown colour \"{text}\": expected a colour name (black, white, red, green, \
                     blue, yellow, cyan, magenta, orange, gray, brown, pink, purple, …), \
                     #rrggbb, or {{r g b}} with components from 0 to 1"
                )
            })
    }

    /// The colour as `#rrggbb`.
    pub fn to_hex(self) -> String {
        let byte = |c: f32| (c.clamp(0.0, 1.0) * 255.0).round() as u8;
        format!(
            "#{:02x}{:02x}{:02x}",
            byte(self.r),
            byte(self.g),
            byte(self.b)
        )
    }
}

fn parse_hex(hex: &str) -> Option<Color> {
    if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let channel = |s: &str| u8::from_str_radix(s, 16).ok();
    match hex.len() {
        3 => {
            let c = |i: usize| channel(&hex[i..i + 1]).map(|v| v * 17);
            Some(Color::from_bytes([c(0)?, c(1)?, c(2)?]))
        }
        6 => {
            let c = |i: usize| channel(&hex[i..i + 2]);
            Some(Color::from_bytes([c(0)?, c(2)?, c(4)?]))
        }
        _ => None,
    }
}

fn parse_components(text: &str, parts: &[&str]) -> Result<Color, String> {
    if parts.len() != 3 {
        return Err(format!(
            "bad colour \"{text}\": a colour given as numbers needs 3 components {{r g b}}, got {}",
            parts.len()
        ));
    }
    let mut rgb = [0f32; 3];
    for (slot, part) in rgb.iter_mut().zip(parts) {
        let value = parse_number(part)
            .map(|n| n.as_f64())
            .filter(|v| (0.0..=1.0).contains(v))
            .ok_or_else(|| {
                format!("bad colour \"{text}\": component \"{part}\" is not a number from 0 to 1")
            })?;
        *slot = value as f32;
    }
    Ok(Color {
        r: rgb[0],
        g: rgb[1],
        b: rgb[2],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Color, String> {
        let parts: Vec<&str> = text.split_whitespace().collect();
        Color::parse(text, Some(&parts))
    }

    #[test]
    fn names_hex_and_components() {
        assert_eq!(parse("red").unwrap().to_hex(), "#ff0000");
        assert_eq!(parse("Light Blue").unwrap().to_hex(), "#add8e6");
        assert_eq!(parse("grey").unwrap(), parse("gray").unwrap());
        assert_eq!(parse("#0f8").unwrap().to_hex(), "#00ff88");
        assert_eq!(parse("#102030").unwrap().to_hex(), "#102030");
        assert_eq!(parse("0 0.5 1").unwrap().to_hex(), "#0080ff");
    }

    #[test]
    fn bad_colours_say_what_is_accepted() {
        assert!(parse("blu")
            .unwrap_err()
            .starts_with("unknown colour \"blu\""));
        assert!(parse("#12").unwrap_err().contains("#rgb or #rrggbb"));
        assert!(parse("0 2 0")
            .unwrap_err()
            .contains("\"2\" is not a number from 0 to 1"));
        assert!(parse("0 1").unwrap_err().contains("needs 3 components"));
    }
}
