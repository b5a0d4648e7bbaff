//! With PATH emptied, asking for an MP4 or WebM fails at once with an error naming ffmpeg.
//! (Alone in its own test binary because it changes the process environment.)

use asgard::render::image::ImageError;
use asgard::render::movie::{MovieFormat, MovieWriter};

#[test]
fn missing_ffmpeg_is_named_in_the_error() {
    std::env::set_var("PATH", "");
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    for (name, format) in [("m.mp4", MovieFormat::Mp4), ("m.webm", MovieFormat::Webm)] {
        let error = MovieWriter::create(&dir.join(name), format, 24.0)
            .err()
            .expect("an error");
        assert!(
            matches!(&error, ImageError::MissingProgram { program, .. } if program == "ffmpeg")
        );
        let message = error.to_string();
        assert!(
            message.contains("`ffmpeg`") && message.contains("PATH"),
            "{message}"
        );
    }
}
