//! Every bundled example scene evaluates without error, and so does the scene embedded in
//! examples/memo.sgml.

use asgard::scene::{evaluate, Scene};
use std::path::Path;

fn examples() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut found: Vec<(String, String)> = std::fs::read_dir(&dir)
        .expect("examples directory")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "asg"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("readable example");
            (p.file_name().unwrap().to_string_lossy().into_owned(), text)
        })
        .collect();
    found.sort();
    found
}

fn evaluated(name: &str, text: &str) -> Scene {
    evaluate(text).unwrap_or_else(|e| panic!("{}", e.diagnostic(name)))
}

#[test]
fn every_example_evaluates() {
    let all = examples();
    assert!(
        all.len() >= 13,
        "expected pendulum.asg and at least twelve more"
    );
    for (name, text) in &all {
        let scene = evaluated(name, text);
        assert!(!scene.bodies.is_empty(), "{name} has no bodies");
        // The reconstructed pendulum defines a "box" shape it never uses, as the
        // dissertation's figure does; the other examples are clean.
        assert!(
            name == "pendulum.asg" || scene.warnings.is_empty(),
            "{name}: {:?}",
            scene
                .warnings
                .iter()
                .map(|w| w.diagnostic(name))
                .collect::<Vec<_>>()
        );
    }
}

#[test]
fn pendulum_matches_the_dissertation() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/pendulum.asg"),
    )
    .unwrap();
    let scene = evaluated("pendulum.asg", &text);
    assert_eq!(scene.shapes.len(), 3);
    assert_eq!(scene.bodies.len(), 3);
    assert_eq!(scene.forces.len(), 2);
    assert_eq!(scene.links.len(), 2);
    assert_eq!(scene.simulator.finish, 5.0);
    let b1 = scene.body("b1").unwrap();
    assert_eq!(b1.mass.as_ref().unwrap().value, 10.0);
    assert!(b1.origin.editable);
    assert_eq!(scene.warnings.len(), 1);
    assert_eq!(
        scene.warnings[0].message,
        "shape \"box\" is not used by any body"
    );
    // The rod is a 10×1×1 box: its hull has 8 vertices.
    let rod = scene.shape("rod").unwrap();
    match &rod.parts[0].geometry {
        asgard::scene::model::Geometry::Polyhedron { vertices } => assert_eq!(vertices.len(), 8),
        other => panic!("rod is {other:?}"),
    }
}

#[test]
fn memo_scene_evaluates() {
    let memo =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/memo.sgml"))
            .unwrap();
    let start = memo.find("<ASGARD>").unwrap() + "<ASGARD>".len();
    let end = memo.find("</ASGARD>").unwrap();
    let text = memo[start..end].replace("\\{", "{").replace("\\}", "}");
    let scene = evaluated("memo.sgml", &text);
    assert_eq!(scene.bodies.len(), 2);
    assert_eq!(scene.simulator.finish, 3.0);
    assert_eq!(scene.body("b3").unwrap().init_dpos.value.y, 1.0);
}
