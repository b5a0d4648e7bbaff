//! The Khronos glTF validator as the reference reader of glTF files.

use std::path::Path;
use std::process::Command;

pub fn validator_dir() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("gltf-validator")
}

/// Installs the Khronos glTF validator from npm when it is not there yet; fails if it cannot.
pub fn ensure_validator() -> std::path::PathBuf {
    let dir = validator_dir();
    let module = dir.join("node_modules/gltf-validator");
    if !module.join("package.json").exists() {
        std::fs::create_dir_all(&dir).unwrap();
        let output = Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--prefix"])
            .arg(&dir)
            .arg("gltf-validator@2.0.0-dev.3.10")
            .output()
            .expect("npm runs (install Node.js and npm)");
        assert!(
            output.status.success(),
            "npm could not install gltf-validator: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    module
}

/// The validator's report as JSON.
pub fn validate(module: &Path, file: &Path) -> serde_json::Value {
    let script = "const v = require(process.argv[1]); const fs = require('fs');\
        const data = new Uint8Array(fs.readFileSync(process.argv[2]));\
        v.validateBytes(data, { uri: process.argv[2], maxIssues: 200 })\
         .then(r => console.log(JSON.stringify(r)))\
         .catch(e => { console.error(String(e)); process.exit(2); });";
    let output = Command::new("node")
        .arg("-e")
        .arg(script)
        .arg(module)
        .arg(file)
        .output()
        .expect("node runs");
    assert!(
        output.status.success(),
        "validator failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// The 32-bit floats of glTF accessor `accessor` of `document`, read from its binary `buffer`.
pub fn accessor_floats(document: &serde_json::Value, buffer: &[u8], accessor: usize) -> Vec<f32> {
    let accessor = &document["accessors"][accessor];
    let view = &document["bufferViews"][accessor["bufferView"].as_u64().unwrap() as usize];
    let start = view["byteOffset"].as_u64().unwrap_or(0) as usize;
    let length = view["byteLength"].as_u64().unwrap() as usize;
    buffer[start..start + length]
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect()
}
