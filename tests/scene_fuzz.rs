//! Fuzzing by property tests (cargo-fuzz needs a nightly toolchain and its own crate): scene
//! texts made of the language's own pieces, and the examples mutated at random, evaluated
//! under small limits. Whatever the text, evaluation returns a scene or a located error and
//! never panics; what is built on a scene (the summary, JSON, the source map, patches, diff)
//! does not panic either.

use asgard::lang::Limits;
use asgard::scene::model::Vec3;
use asgard::scene::{
    describe, diff, evaluate_with_limits, patch, scene_json, EditValue, Scene, SceneError,
};
use proptest::prelude::*;
use std::path::Path;
use std::time::Duration;

fn limits() -> Limits {
    Limits {
        max_commands: 20_000,
        max_depth: 64,
        max_memory: 1 << 20,
        max_wall: Duration::from_secs(60),
    }
}

/// Pieces scene texts are made of: element commands and their options, values of every kind
/// (good and bad), Tcl syntax.
const PIECES: &[&str] = &[
    "shape_set",
    "body",
    "force",
    "torque",
    "link",
    "trajectory",
    "lightsource",
    "camera",
    "simulator",
    "s",
    "b1",
    "b2",
    "T",
    "L",
    "desc",
    "shape",
    "init_pos",
    "init_rot",
    "init_dpos",
    "init_drot",
    "mass",
    "inertia",
    "artbody",
    "color",
    "restitution",
    "friction",
    "fixed",
    "body1",
    "body2",
    "offset",
    "offset1",
    "offset2",
    "x",
    "y",
    "z",
    "vector",
    "gravity",
    "point",
    "tightness",
    "points",
    "var",
    "pos",
    "rot",
    "dpos",
    "drot",
    "type",
    "point",
    "directional",
    "dir",
    "intensity",
    "scale",
    "center",
    "start",
    "finish",
    "step",
    "tolerance",
    "live_dt",
    "collisions",
    "sub",
    "sphere",
    "box",
    "face",
    "{sphere 1}",
    "{box {1 1 1}}",
    "{face {{0 0 0} {1 0 0} {0 1 0}} face {{0 0 1}}}",
    "{1 2 3}",
    "{0 0}",
    "{1 x 2}",
    "{{0 0 0 0} {1 1 1 1}}",
    "{{1 0 0 0} {0 1 1 1}}",
    "{1 {2 * $t} 3}",
    "{-[b1 x]}",
    "{[b1 mass] * -9.8}",
    "{[T x] + [b2 dy]}",
    "{$t < 1 ? 1 : 0}",
    "{pow(}",
    "[b1 x]",
    "[T]",
    "0",
    "1",
    "-1",
    "2.5",
    "1e400",
    "NaN",
    "Inf",
    "red",
    "#00ff00",
    "{1 0.5 0}",
    "blu",
    "yes",
    "maybe",
    "$t",
    "$x",
    "{",
    "}",
    "[",
    "]",
    "\"",
    "\\",
    ";",
    "\n",
    " ",
    "{*}",
    "set x 3\n",
    "foreach i {1 2} {",
    "proc p {a} {",
    "p 1\n",
    "for {set i 0} {$i < 3} {incr i} {",
    "catch {",
    "error boom\n",
    "return\n",
    "break\n",
    "é",
    "\t",
];

fn text_of_pieces() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            8 => proptest::sample::select(PIECES).prop_map(str::to_string),
            1 => "[ -~]{0,6}",
            1 => any::<char>().prop_map(|c| c.to_string()),
        ],
        0..60,
    )
    .prop_map(|pieces| pieces.join(" "))
}

/// Values for options, good and bad.
const VALUES: &[&str] = &[
    "0",
    "1",
    "-2.5",
    "1e-3",
    "0.5",
    "{1 2 3}",
    "{0 -9.8 0}",
    "{0 0.5 0}",
    "{1 2}",
    "{a b c}",
    "{1 {2 * $t} 3}",
    "{-[b0 x]}",
    "{[b0 mass] * -9.8}",
    "{[T0 x]}",
    "{[b1 dy] + $t}",
    "{sin($t)}",
    "{$t > 1 ? 2 : 0}",
    "{{0 0 0 0} {1 1 1 1}}",
    "{{0 0 0 0} {1 1 0 0} {2 0 1 0}}",
    "{{2 0 0 0} {3 1 0 0}}",
    "{{5 0 0 0} {1 0 0 0}}",
    "{1 0 0}",
    "{{1 0 0} {0 2 0} {0 0 3}}",
    "red",
    "{0.2 0.4 0.6}",
    "#abc",
    "pink",
    "nope",
    "yes",
    "off",
    "b0",
    "b1",
    "b2",
    "T0",
    "T1",
    "s0",
    "s1",
    "pos",
    "rot",
    "dpos",
    "drot",
    "point",
    "directional",
    "{sphere 0.5}",
    "{box {1 2 3} color red}",
    "{sub pos {1 0 0} sphere 1 sub box {1 1 1}}",
    "{face {{0 0 0} {1 0 0} {0 1 0}} face {{0 0 1} {1 1 1} {0 0 0}}}",
    "[list 1 2 3]",
    "$v",
    "[b0 x]",
    "{}",
    "\"\"",
];

/// Element commands (with their names) and the options each accepts.
const COMMANDS: &[(&str, &[&str])] = &[
    ("shape_set s1", &["desc"]),
    (
        "body b1",
        &[
            "shape",
            "init_pos",
            "init_rot",
            "init_dpos",
            "init_drot",
            "mass",
            "inertia",
            "artbody",
            "color",
            "restitution",
            "friction",
            "fixed",
        ],
    ),
    ("body b2", &["shape", "init_pos", "mass", "color"]),
    (
        "force",
        &[
            "torque",
            "body",
            "x",
            "y",
            "z",
            "vector",
            "gravity",
            "trajectory",
            "offset",
        ],
    ),
    (
        "torque",
        &["body", "x", "y", "z", "vector", "trajectory", "offset"],
    ),
    (
        "link",
        &[
            "body1",
            "offset1",
            "body2",
            "offset2",
            "x",
            "y",
            "z",
            "point",
            "trajectory",
            "tightness",
        ],
    ),
    ("trajectory T0", &["points", "body", "var"]),
    ("trajectory T1", &["points"]),
    (
        "lightsource L0",
        &["type", "pos", "dir", "color", "intensity", "trajectory"],
    ),
    ("camera", &["pos", "rot", "scale", "center"]),
    (
        "simulator",
        &[
            "start",
            "finish",
            "step",
            "tolerance",
            "live_dt",
            "collisions",
        ],
    ),
    ("set v {4 5 6};", &[]),
];

/// Required options, given first so that most commands can succeed.
fn required(command: &str) -> &'static str {
    match command.split(' ').next() {
        Some("shape_set") => " desc {sphere 0.5}",
        Some("body") => " shape s0",
        Some("force" | "torque") => " body b0",
        Some("link") => " body1 b0",
        Some("trajectory") => " points {{0 0 0 0} {1 1 0 0}}",
        _ => "",
    }
}

/// Values an option accepts (some of them refer to elements that may not exist).
fn good_values(option: &str) -> &'static [&'static str] {
    match option {
        "desc" => &[
            "{sphere 0.5}",
            "{box {1 2 3} color red}",
            "{sub pos {1 0 0} sphere 1 sub box {1 1 1}}",
        ],
        "shape" => &["s0", "s1"],
        "mass" | "tightness" | "intensity" | "scale" | "step" | "tolerance" | "live_dt"
        | "restitution" | "friction" => &["0.5", "1", "0.25"],
        "inertia" => &["{1 2 3}", "{{1 0 0} {0 2 0} {0 0 3}}"],
        "artbody" => &["arm"],
        "color" => &["red", "{0.2 0.4 0.6}", "#abc"],
        "fixed" | "collisions" | "torque" => &["yes", "off", "0"],
        "body" | "body1" | "body2" => &["b0", "b1", "b2"],
        "x" | "y" | "z" => &[
            "0",
            "-2.5",
            "{-[b0 x]}",
            "{[b0 mass] * -9.8}",
            "{sin($t)}",
            "{[T0 x]}",
            "{[b1 dy] + $t}",
        ],
        "trajectory" => &["T0", "T1"],
        "points" => &["{{0 0 0 0} {1 1 0 0}}", "{{2 0 0 0} {3 1 0 0} {4 0 0 1}}"],
        "var" => &["pos", "rot", "dpos", "drot"],
        "type" => &["point", "directional"],
        "start" => &["0", "1"],
        "finish" => &["5", "10"],
        "rot" | "pos" | "center" => &["{1 2 3}", "{0 {2 * $t} 0}", "T0"],
        _ => &["{1 2 3}", "{0 -9.8 0}", "{0 0.5 0}"],
    }
}

/// Scenes of element commands with options they accept, mostly with values those options
/// accept, after a prelude that defines a shape and a body, so that many of them evaluate.
fn scene_of_commands() -> impl Strategy<Value = String> {
    let command = (
        proptest::sample::select(COMMANDS),
        0u8..10,
        proptest::collection::vec(
            (
                any::<proptest::sample::Index>(),
                any::<proptest::sample::Index>(),
                proptest::sample::select(VALUES),
                0u8..10,
            ),
            0..4,
        ),
    )
        .prop_map(|((command, options), odds, chosen)| {
            let mut line = command.to_string();
            if odds < 9 {
                line.push_str(required(command));
            }
            let mut used: Vec<&str> = Vec::new();
            for (option, good, bad, odds) in chosen {
                if options.is_empty() {
                    break;
                }
                let option = *option.get(options);
                if used.contains(&option) || required(command).contains(&format!(" {option} ")) {
                    continue;
                }
                used.push(option);
                let value = if odds < 8 {
                    *good.get(good_values(option))
                } else {
                    bad
                };
                line.push_str(&format!(" {option} {value}"));
            }
            line
        });
    (any::<bool>(), proptest::collection::vec(command, 0..6)).prop_map(|(in_loop, commands)| {
        let body = commands.join("\n");
        let body = if in_loop {
            format!("foreach i {{1 2}} {{\n{body}\n}}")
        } else {
            body
        };
        format!("shape_set s0 desc {{sphere 1}}\nbody b0 shape s0\n{body}\n")
    })
}

fn examples() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut texts: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "asg"))
        .map(|p| {
            (
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    texts.sort();
    texts.into_iter().map(|(_, t)| t).collect()
}

/// One edit to a text: replace a range (by byte fractions, moved to character boundaries)
/// with a piece (short ranges and numeric pieces keep many mutants evaluating).
#[derive(Debug, Clone)]
struct Mutation {
    at: f64,
    len: usize,
    piece: String,
}

fn mutation() -> impl Strategy<Value = Mutation> {
    (
        0.0f64..1.0,
        0usize..4,
        prop_oneof![
            proptest::sample::select(PIECES).prop_map(str::to_string),
            "[ -~]{0,4}",
            "[0-9.-]{1,3}",
        ],
    )
        .prop_map(|(at, len, piece)| Mutation { at, len, piece })
}

fn mutate(text: &str, m: &Mutation) -> String {
    let boundary = |mut i: usize| {
        i = i.min(text.len());
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let start = boundary((m.at * text.len() as f64) as usize);
    let end = boundary(start + m.len);
    format!("{}{}{}", &text[..start], m.piece, &text[end..])
}

/// Evaluates and exercises everything built on the result.
fn exercise(text: &str) -> Result<Scene, SceneError> {
    let result = evaluate_with_limits(text, limits());
    match &result {
        Ok(scene) => {
            let _ = describe(scene);
            let _ = scene_json(scene, text);
            let _ = scene.elidable_spans(10);
            for h in scene.highlights() {
                assert!(h.span.end <= text.len(), "highlight out of the text");
                if let Some(value) = scene.target_value(h.target) {
                    let moved = match value {
                        EditValue::Vector(v) => EditValue::Vector(v + Vec3::new(0.5, -0.25, 1.0)),
                        EditValue::Number(n) => EditValue::Number(n + 0.01),
                    };
                    if let Ok(edit) = patch(text, scene, h.target, moved) {
                        let _ = evaluate_with_limits(&edit.apply(text), limits());
                    }
                }
            }
            for e in scene.elements() {
                let _ = scene.describe_element(e);
            }
        }
        Err(e) => {
            assert!(
                e.span.start <= e.span.end && e.span.end <= text.len(),
                "{e:?}"
            );
            assert!(!e.message.is_empty());
        }
    }
    result
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn texts_of_language_pieces_never_panic(text in text_of_pieces()) {
        let _ = exercise(&text);
    }

    #[test]
    fn scenes_of_element_commands_never_panic(text in scene_of_commands()) {
        let _ = exercise(&text);
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        let _ = exercise(&text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn mutated_examples_never_panic(
        which in 0usize..64,
        mutations in proptest::collection::vec(mutation(), 1..4),
    ) {
        let all = examples();
        let original = &all[which % all.len()];
        let mut text = original.clone();
        for m in &mutations {
            text = mutate(&text, m);
        }
        let before = evaluate_with_limits(original, limits()).expect("examples evaluate");
        if let Ok(after) = exercise(&text) {
            let _ = diff(&before, &after);
            let _ = diff(&after, &before);
        }
    }
}
