//! Finding the example memo the host opens when it is given no document.
//!
//! The memo is looked for, in order:
//! 1. in an installed layout next to the executable: `BIN/../share/asgard/examples/memo.sgml`;
//! 2. in the source tree around the executable: `examples/memo.sgml` in the nearest ancestor
//!    directory of the executable that has one (`target/debug/asgard` finds the checkout's);
//! 3. failing both, the copy compiled into the binary is opened as an unsaved, untitled
//!    document.

use std::path::{Path, PathBuf};

/// The text of the example memo, compiled in as the last resort.
pub const BUILTIN_MEMO: &str = include_str!("../../examples/memo.sgml");

/// The example memo's file for an executable at `executable`, if one exists.
pub fn example_memo(executable: &Path) -> Option<PathBuf> {
    let bin = executable.parent()?;
    let installed = bin.join("../share/asgard/examples/memo.sgml");
    if installed.is_file() {
        return Some(installed);
    }
    bin.ancestors()
        .map(|dir| dir.join("examples/memo.sgml"))
        .find(|candidate| candidate.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn the_installed_layout_comes_before_the_source_tree() {
        let root = tempfile::tempdir().unwrap();
        let bin = root.path().join("prefix/bin");
        fs::create_dir_all(&bin).unwrap();
        let exe = bin.join("asgard");
        assert_eq!(example_memo(&exe), None);

        fs::create_dir_all(root.path().join("examples")).unwrap();
        fs::write(root.path().join("examples/memo.sgml"), BUILTIN_MEMO).unwrap();
        assert_eq!(
            example_memo(&exe),
            Some(root.path().join("examples/memo.sgml"))
        );

        let share = root.path().join("prefix/share/asgard/examples");
        fs::create_dir_all(&share).unwrap();
        fs::write(share.join("memo.sgml"), BUILTIN_MEMO).unwrap();
        assert_eq!(
            example_memo(&exe).unwrap().canonicalize().unwrap(),
            share.join("memo.sgml").canonicalize().unwrap()
        );
    }

    #[test]
    fn the_checkout_has_one_for_its_build() {
        let exe = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/debug/asgard");
        let found = example_memo(&exe).unwrap();
        assert_eq!(fs::read_to_string(found).unwrap(), BUILTIN_MEMO);
    }
}
