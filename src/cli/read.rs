//! Reading a scene file, the one way every subcommand does it: the text, evaluated in the
//! sandbox, its warnings printed as `FILE:LINE:COL: warning: …`, a failure returned as the
//! message to print (`FILE: error: cannot read …`, `FILE:LINE:COL: error: …`).

use asgard::scene::{self, Scene, SceneError};
use std::path::Path;

/// A scene file read and evaluated.
pub struct ReadScene {
    /// The file name as given, for messages.
    pub name: String,
    pub text: String,
    pub scene: Scene,
}

/// The text of `path`, a file of `what` (`scene`, `script`); the error says why it cannot be
/// read (`cannot read the scene: …`), to print after `FILE: error: `.
pub fn read_text(path: &Path, what: &str) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read the {what}: {e}"))
}

/// Prints the warnings of a scene of file `name` that evaluated, or the error of one that did
/// not.
pub fn report(name: &str, result: &Result<Scene, SceneError>) {
    match result {
        Ok(scene) => print_warnings(name, scene),
        Err(e) => eprintln!("{}", e.diagnostic(name)),
    }
}

fn print_warnings(name: &str, scene: &Scene) {
    for warning in &scene.warnings {
        eprintln!("{}", warning.diagnostic(name));
    }
}

/// Reads and evaluates the scene file `path`, printing its warnings.
pub fn read_scene(path: &Path) -> Result<ReadScene, String> {
    let name = path.display().to_string();
    let text = read_text(path, "scene").map_err(|why| format!("{name}: error: {why}"))?;
    let scene = scene::evaluate(&text).map_err(|e| e.diagnostic(&name))?;
    print_warnings(&name, &scene);
    Ok(ReadScene { name, text, scene })
}
