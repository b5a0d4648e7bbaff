//! Parses and evaluates arbitrary text with small limits: whatever the input, the interpreter
//! must return (a value or a located error) without panicking, hanging or overflowing.
//!
//! Run: `RUSTC_BOOTSTRAP=1 cargo fuzz run eval -s none -- -max_total_time=60` from the crate
//! root (cargo-fuzz needs nightly features, which RUSTC_BOOTSTRAP unlocks on stable). Without
//! cargo-fuzz installed, the same build is `cargo build --release --target
//! x86_64-unknown-linux-gnu` in fuzz/ with RUSTC_BOOTSTRAP=1 and RUSTFLAGS `-Cpasses=
//! sancov-module -Cllvm-args=-sanitizer-coverage-level=4 -Cllvm-args=-sanitizer-coverage-
//! inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table --cfg fuzzing`; the binary
//! takes libFuzzer's options (`corpus/eval -max_total_time=60`).

#![no_main]

use asgard::lang::{parse_expr, parse_script, Interp, Limits, Output};
use libfuzzer_sys::fuzz_target;
use std::time::Duration;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = parse_script(text, 0);
    let _ = parse_expr(text, 0);
    let mut interp = Interp::new(Limits {
        max_commands: 20_000,
        max_depth: 200,
        max_memory: 1 << 20,
        max_wall: Duration::from_millis(200),
    });
    interp.set_output(Output::Callback(Box::new(|_| {})));
    if let Err(e) = interp.eval_source(text) {
        // Every error is located inside the text.
        assert!(e.span.start <= e.span.end && e.span.end <= text.len(), "{e:?}");
        let _ = e.diagnostic("fuzz", text);
    }
});
