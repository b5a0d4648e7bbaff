//! Ghostscript as the reference reader of PostScript: renders an EPS file to a PNG.

use std::path::Path;
use std::process::Command;

/// Renders an EPS file with ghostscript and returns the picture's RGB rows.
pub fn ghostscript(eps: &Path, png: &Path) -> (u32, u32, Vec<u8>) {
    let output = Command::new("gs")
        .args([
            "-q",
            "-dSAFER",
            "-dBATCH",
            "-dNOPAUSE",
            "-dEPSCrop",
            "-sDEVICE=png16m",
            "-r72",
        ])
        .arg(format!("-sOutputFile={}", png.display()))
        .arg(eps)
        .output()
        .expect("ghostscript (gs) runs");
    assert!(
        output.status.success(),
        "gs failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.stderr.is_empty(),
        "gs complained: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut reader = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(png).unwrap()))
        .read_info()
        .unwrap();
    let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buffer).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    buffer.truncate(info.buffer_size());
    (info.width, info.height, buffer)
}
