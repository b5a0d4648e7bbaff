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
