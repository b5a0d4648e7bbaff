//! A checker for the part of the Rayshade 4 input grammar (Kolb's manual) that the exporter
//! may use: the reference reader of Rayshade files in the tests.

pub struct Checker<'a> {
    tokens: Vec<&'a str>,
    at: usize,
    pub surfaces: Vec<&'a str>,
    pub counts: std::collections::BTreeMap<&'static str, usize>,
}

const KEYWORDS: &[&str] = &[
    "screen",
    "eyep",
    "lookp",
    "up",
    "fov",
    "background",
    "light",
    "surface",
    "sphere",
    "plane",
    "polygon",
    "list",
    "end",
    "translate",
    "rotate",
    "scale",
    "ambient",
    "diffuse",
    "specular",
    "specpow",
    "reflect",
    "transp",
    "body",
    "index",
    "point",
    "directional",
];

fn is_number(token: &str) -> bool {
    let digits = token.strip_prefix('-').unwrap_or(token);
    let (mantissa, exponent) = match digits.split_once(['e', 'E']) {
        Some((m, e)) => (m, Some(e.strip_prefix('-').unwrap_or(e))),
        None => (digits, None),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    !(whole.is_empty() && fraction.is_empty())
        && whole
            .chars()
            .chain(fraction.chars())
            .all(|c| c.is_ascii_digit())
        && exponent.is_none_or(|e| !e.is_empty() && e.chars().all(|c| c.is_ascii_digit()))
}

impl<'a> Checker<'a> {
    pub fn new(text: &'a str) -> Self {
        // Comments are C style; the exporter only writes them on lines of their own.
        let tokens = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("/*"))
            .flat_map(str::split_whitespace)
            .collect();
        Checker {
            tokens,
            at: 0,
            surfaces: Vec::new(),
            counts: Default::default(),
        }
    }

    fn fail(&self, expected: &str) -> String {
        format!(
            "token {} ({:?}): expected {expected}",
            self.at,
            self.tokens.get(self.at)
        )
    }

    fn peek(&self) -> Option<&'a str> {
        self.tokens.get(self.at).copied()
    }

    fn keyword(&mut self, word: &str) -> bool {
        if self.peek() == Some(word) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn numbers(&mut self, count: usize, what: &str) -> Result<Vec<f64>, String> {
        (0..count)
            .map(|_| match self.peek() {
                Some(t) if is_number(t) => {
                    self.at += 1;
                    Ok(t.parse().unwrap())
                }
                _ => Err(self.fail(what)),
            })
            .collect()
    }

    /// Numbers up to the next non-number.
    fn number_run(&mut self) -> Vec<f64> {
        let mut values = Vec::new();
        while let Some(t) = self.peek().filter(|t| is_number(t)) {
            values.push(t.parse().unwrap());
            self.at += 1;
        }
        values
    }

    fn name(&mut self) -> Result<&'a str, String> {
        match self.peek() {
            Some(t)
                if !is_number(t)
                    && !KEYWORDS.contains(&t)
                    && t.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                    && t.chars()
                        .all(|c| c.is_ascii_alphanumeric() || "/-_.".contains(c)) =>
            {
                self.at += 1;
                Ok(t)
            }
            _ => Err(self.fail("a name")),
        }
    }

    fn optional_surface(&mut self) -> Result<(), String> {
        if let Some(t) = self
            .peek()
            .filter(|t| !is_number(t) && !KEYWORDS.contains(t))
        {
            if !self.surfaces.contains(&t) {
                return Err(self.fail("a defined surface"));
            }
            self.at += 1;
        }
        Ok(())
    }

    /// Checks the whole file; the error names the token where it went wrong.
    pub fn file(&mut self) -> Result<(), String> {
        while self.peek().is_some() {
            self.item()?;
        }
        Ok(())
    }

    fn item(&mut self) -> Result<(), String> {
        if self.keyword("screen") {
            self.numbers(2, "screen width and height")?;
        } else if self.keyword("eyep") || self.keyword("lookp") || self.keyword("up") {
            self.numbers(3, "a point or vector")?;
        } else if self.keyword("fov") {
            let angles = self.number_run();
            if angles.is_empty()
                || angles.len() > 2
                || angles.iter().any(|a| *a <= 0.0 || *a >= 180.0)
            {
                return Err(self.fail("one or two field-of-view angles in degrees"));
            }
        } else if self.keyword("background") {
            self.numbers(3, "a colour")?;
        } else if self.keyword("light") {
            let intensity = self.number_run();
            if intensity.len() != 1 && intensity.len() != 3 {
                return Err(self.fail("a light intensity (1 or 3 numbers)"));
            }
            if self.keyword("point") || self.keyword("directional") {
                self.numbers(3, "a light position or direction")?;
            } else if !self.keyword("ambient") {
                return Err(self.fail("a light type"));
            }
            *self.counts.entry("light").or_default() += 1;
        } else if self.keyword("surface") {
            let name = self.name()?;
            self.surfaces.push(name);
            loop {
                if ["ambient", "diffuse", "specular", "body"]
                    .iter()
                    .any(|k| self.keyword(k))
                {
                    self.numbers(3, "a surface colour")?;
                } else if ["specpow", "reflect", "transp", "index"]
                    .iter()
                    .any(|k| self.keyword(k))
                {
                    self.numbers(1, "a surface value")?;
                } else {
                    break;
                }
            }
        } else {
            self.object()?;
        }
        Ok(())
    }

    fn object(&mut self) -> Result<(), String> {
        if self.keyword("sphere") {
            self.optional_surface()?;
            let values = self.numbers(4, "sphere radius and centre")?;
            if values[0] <= 0.0 {
                return Err(self.fail("a positive radius"));
            }
            *self.counts.entry("sphere").or_default() += 1;
        } else if self.keyword("plane") {
            // plane [surface] xpos ypos zpos xnorm ynorm znorm
            self.optional_surface()?;
            let values = self.numbers(6, "a plane's point and normal")?;
            if values[3..].iter().all(|n| *n == 0.0) {
                return Err(self.fail("a non-zero plane normal"));
            }
            *self.counts.entry("plane").or_default() += 1;
        } else if self.keyword("polygon") {
            self.optional_surface()?;
            let values = self.number_run();
            if values.len() < 9 || values.len() % 3 != 0 {
                return Err(self.fail("three or more polygon vertices"));
            }
            *self.counts.entry("polygon").or_default() += 1;
        } else if self.keyword("list") {
            while !self.keyword("end") {
                if self.peek().is_none() {
                    return Err(self.fail("end"));
                }
                self.object()?;
            }
            *self.counts.entry("list").or_default() += 1;
        } else {
            return Err(self.fail("an object"));
        }
        loop {
            if self.keyword("translate") || self.keyword("scale") {
                self.numbers(3, "a vector")?;
            } else if self.keyword("rotate") {
                self.numbers(4, "a rotation axis and angle")?;
            } else {
                return Ok(());
            }
        }
    }
}
