//! The scene language in its sandbox: arbitrary text evaluated as a scene under small limits,
//! as the editor, `asgard check` and a slave's `SetSceneText` do. Whatever the text, evaluation
//! returns a scene or an error located inside the text, without panicking, hanging or
//! growing; what is built on a scene (the summary, the JSON report, the start-overlap check and
//! the compiled equations of motion) does not panic either.
//!
//! Run and corpus: docs/FUZZING.md.

#![no_main]

use asgard::lang::Limits;
use asgard::scene::{describe, evaluate_with_limits, scene_json};
use asgard::sim::physics::Model;
use libfuzzer_sys::fuzz_target;
use std::time::Duration;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let limits = Limits {
        max_commands: 20_000,
        max_depth: 200,
        max_memory: 1 << 20,
        max_wall: Duration::from_millis(200),
    };
    match evaluate_with_limits(text, limits) {
        Ok(scene) => {
            for warning in &scene.warnings {
                assert!(warning.span.end <= text.len(), "{warning:?}");
                let _ = warning.diagnostic("fuzz");
            }
            let _ = describe(&scene);
            let _ = scene_json(&scene, text);
            if let Ok(model) = Model::compile(&scene) {
                let _ = model.options();
            }
        }
        Err(e) => {
            assert!(e.span.start <= e.span.end && e.span.end <= text.len(), "{e:?}");
        }
    }
});
