//! The document reader: arbitrary bytes read as a compound document, validated against the
//! DTD, and each animation's scene evaluated in the sandbox, as `asgard doc check` and the host
//! do. Reading returns a document or an error located inside the text; every validation
//! problem and scene position maps back into the document; replacing each scene with itself
//! leaves every byte as it was (the edits are byte-preserving), and with a changed scene the
//! document reads again with that scene.
//!
//! Run and corpus: docs/FUZZING.md.

#![no_main]

use asgard::doc::{validate, Document};
use asgard::lang::Limits;
use asgard::scene::evaluate_with_limits;
use libfuzzer_sys::fuzz_target;
use std::time::Duration;

fuzz_target!(|data: &[u8]| {
    let document = match Document::from_bytes(data.to_vec()) {
        Ok(document) => document,
        Err(e) => {
            assert!(e.span.start <= e.span.end && e.span.end <= data.len(), "{e:?}");
            return;
        }
    };
    let text = document.text();
    for problem in validate(&document) {
        assert!(problem.span.end <= text.len(), "{problem:?}");
    }
    let limits = Limits {
        max_commands: 5_000,
        max_depth: 100,
        max_memory: 1 << 20,
        max_wall: Duration::from_millis(100),
    };
    for (index, sub) in document.subdocuments().iter().enumerate() {
        assert!(sub.scene_span.end <= text.len(), "{sub:?}");
        if let Err(e) = evaluate_with_limits(&sub.scene, limits.clone()) {
            let _ = document.scene_line_col(sub, e.span.start);
        }
        let _ = document.scene_line_col(sub, sub.scene.len());
        let mut same = document.clone();
        same.replace_scene(index, &sub.scene).expect("the index exists");
        assert_eq!(same.text(), text, "rewriting scene {index} with itself changed bytes");
        let edited = format!("{}\n{{<&>}}\\", sub.scene);
        let mut changed = document.clone();
        if changed.replace_scene(index, &edited).is_ok() {
            assert_eq!(changed.subdocuments()[index].scene, edited);
        }
    }
});
