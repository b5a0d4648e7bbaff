//! Where the language viewer finds the scene language's definition for GtkSourceView.
//!
//! The definition is `asgard.lang`, shipped in the repository at
//! `data/language-specs/asgard.lang`. At run time the first of these folders that holds it is
//! used:
//!
//! 1. `$ASGARD_DATA_DIR/language-specs`, when the environment variable `ASGARD_DATA_DIR` is
//!    set (for an installation elsewhere, or to try a changed definition);
//! 2. `PREFIX/share/asgard/language-specs` when the program runs as `PREFIX/bin/asgard`, which
//!    is where an installation puts it (`install -D data/language-specs/asgard.lang
//!    PREFIX/share/asgard/language-specs/asgard.lang`);
//! 3. `data/language-specs` of the source tree the program was built from, so that `cargo run`
//!    and the tests in a checkout find it with no installation.
//!
//! Without it the viewer still works, uncoloured, and says why in its message area.

use std::path::{Path, PathBuf};

/// The language's id in the definition file.
pub const LANGUAGE_ID: &str = "asgard";
const FILE: &str = "asgard.lang";

/// The folders searched, in order.
pub fn search_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(data) = std::env::var_os("ASGARD_DATA_DIR") {
        dirs.push(Path::new(&data).join("language-specs"));
    }
    if let Some(prefix) = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.to_path_buf()))
    {
        dirs.push(prefix.join("share/asgard/language-specs"));
    }
    dirs.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("data/language-specs"));
    dirs
}

/// The first folder of [`search_dirs`] that holds `asgard.lang`.
pub fn find_dir() -> Option<PathBuf> {
    search_dirs().into_iter().find(|d| d.join(FILE).is_file())
}

thread_local! {
    /// The manager that loaded the scene language: a language needs its manager alive.
    static MANAGER: std::cell::OnceCell<sourceview5::LanguageManager> =
        const { std::cell::OnceCell::new() };
}

/// The scene language, loaded through a language manager that also knows GtkSourceView's own
/// definitions (the styles `asgard.lang` maps to).
pub fn scene_language() -> Result<sourceview5::Language, String> {
    let dir = find_dir().ok_or_else(|| {
        let looked: Vec<String> = search_dirs()
            .iter()
            .map(|d| d.display().to_string())
            .collect();
        format!(
            "{FILE} not found (looked in {}): no syntax colours",
            looked.join(", ")
        )
    })?;
    let manager = MANAGER.with(|m| {
        m.get_or_init(|| {
            let manager = sourceview5::LanguageManager::new();
            let mut path: Vec<String> = vec![dir.display().to_string()];
            path.extend(manager.search_path().iter().map(|p| p.to_string()));
            let path: Vec<&str> = path.iter().map(String::as_str).collect();
            manager.set_search_path(&path);
            manager
        })
        .clone()
    });
    manager.language(LANGUAGE_ID).ok_or_else(|| {
        format!(
            "{} does not define the language \"{LANGUAGE_ID}\": no syntax colours",
            dir.join(FILE).display()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::number::parse_number;
    use gtk4::glib;

    fn definition() -> String {
        std::fs::read_to_string(find_dir().unwrap().join(FILE)).unwrap()
    }

    /// The text between the first `start` after `<context id="ID"` and the next `end`.
    fn context<'a>(text: &'a str, id: &str, start: &str, end: &str) -> &'a str {
        let at = text
            .find(&format!("<context id=\"{id}\""))
            .unwrap_or_else(|| panic!("no context {id}"));
        let from = at + text[at..].find(start).unwrap() + start.len();
        &text[from..from + text[from..].find(end).unwrap()]
    }

    /// The sorted keywords of context `id`.
    fn keywords(text: &str, id: &str) -> Vec<String> {
        let body = context(text, id, ">", "</context>");
        let mut words: Vec<String> = body
            .split("<keyword>")
            .skip(1)
            .map(|k| k[..k.find("</keyword>").unwrap()].to_owned())
            .collect();
        words.sort();
        words
    }

    fn sorted<'a>(words: impl IntoIterator<Item = &'a str>) -> Vec<String> {
        let mut words: Vec<String> = words.into_iter().map(str::to_owned).collect();
        words.sort();
        words
    }

    /// The colours name exactly the language's words: the interpreter's commands, the scene's
    /// element commands, and the words those read as options (but for `x`, `y`, `z`, too
    /// common to colour), so a command or option added to the language fails here until the
    /// definition has it.
    #[test]
    fn the_keywords_are_the_languages_own_words() {
        let text = definition();
        let (elements, options) = crate::scene::element_words();
        assert_eq!(keywords(&text, "element"), sorted(elements));
        let options = options.into_iter().filter(|o| o.len() > 1);
        assert_eq!(keywords(&text, "option"), sorted(options));
        let commands = crate::lang::builtin_names().chain(["elseif", "else"]);
        assert_eq!(keywords(&text, "command"), sorted(commands));
    }

    /// The number pattern colours exactly what the language reads as a number, over the
    /// literals the interpreter and the symbolic compiler are checked with.
    #[test]
    fn the_number_pattern_matches_what_reads_as_a_number() {
        let text = definition();
        let pattern = context(&text, "number", "<match>", "</match>").replace("&lt;", "<");
        let whole = glib::Regex::new(
            &format!("^(?:{pattern})$"),
            glib::RegexCompileFlags::DEFAULT,
            glib::RegexMatchFlags::DEFAULT,
        )
        .unwrap()
        .unwrap();
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/numbers/literals.txt");
        let literals = std::fs::read_to_string(path).unwrap();
        let wrong: Vec<&str> = literals
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter(|l| {
                let text = glib::GString::from(*l);
                let coloured = whole
                    .match_(text.as_gstr(), glib::RegexMatchFlags::DEFAULT)
                    .is_ok_and(|m| m.matches());
                let number = parse_number(l).is_some() || is_too_large(l);
                coloured != number
            })
            .collect();
        assert!(wrong.is_empty(), "coloured wrongly: {wrong:?}");
    }

    /// An integer literal beyond 64 bits: still written as a number, so coloured as one.
    fn is_too_large(literal: &str) -> bool {
        crate::lang::number::read_number(literal) == Err(crate::lang::number::NotANumber::TooLarge)
    }

    #[test]
    fn the_source_tree_holds_the_definition() {
        let dir = find_dir().expect("data/language-specs/asgard.lang in the checkout");
        let text = std::fs::read_to_string(dir.join(FILE)).unwrap();
        assert!(text.contains(&format!("<language id=\"{LANGUAGE_ID}\"")));
    }

    /// Checked against GtkSourceView's own schema with xmllint (scripts/deps installs both).
    #[test]
    fn the_definition_follows_gtksourceview_schema() {
        let schema = Path::new("/usr/share/gtksourceview-5/language-specs/language2.rng");
        assert!(
            schema.is_file(),
            "{} is missing: install libgtksourceview-5-common (scripts/deps installs it with libgtksourceview-5-dev)",
            schema.display()
        );
        let file = find_dir().unwrap().join(FILE);
        let out = std::process::Command::new("xmllint")
            .arg("--noout")
            .arg("--relaxng")
            .arg(schema)
            .arg(&file)
            .output()
            .expect("xmllint runs: install libxml2-utils (scripts/deps)");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
