//! `asgard export … --format html`: the exported memo plays in a real browser (headless
//! Chromium, WebGL on SwiftShader), its controls work, and bad input gets located errors.
//! Pages and screenshots stay under target/tmp/html-export/.

mod browser;

use browser::{Browser, Rect, Tab};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn asgard(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_asgard"))
        .args(args)
        .output()
        .expect("run asgard")
}

fn example(name: &str) -> String {
    format!("{}/examples/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// A fresh folder under target/tmp/html-export/.
fn fresh(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("html-export")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn export(input: &str, out: &Path) -> String {
    let output = asgard(&[
        "export",
        input,
        "--format",
        "html",
        "-o",
        out.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert!(output.status.success(), "export {input}: {stderr}");
    std::fs::read_to_string(out.join("index.html")).unwrap()
}

/// The bounding rectangle of the first element matching `selector`.
fn rect(tab: &mut Tab, selector: &str) -> Rect {
    let value = tab.eval(&format!(
        "(() => {{ const r = document.querySelector('{selector}').getBoundingClientRect(); \
         return {{ left: r.left, top: r.top, right: r.right, bottom: r.bottom }}; }})()"
    ));
    Rect::from_json(&value)
}

fn time(tab: &mut Tab) -> f64 {
    let value = tab.eval("Number(document.querySelector('figure.asgard-player').dataset.time)");
    value.as_f64().unwrap()
}

/// The page's background colour: palette::BACKGROUND (0.92, 0.93, 0.95) in bytes.
const BACKGROUND: [u8; 3] = [235, 237, 242];

#[test]
fn the_memo_plays_pauses_and_scrubs_in_chromium() {
    let dir = fresh("memo");
    let html = export(&example("memo.sgml"), &dir.join("page"));
    // Self-contained: nothing is loaded from anywhere.
    for outside in ["http://", "https://", " src=", "<link", "url("] {
        assert!(
            !html.contains(outside),
            "the page refers outside: {outside}"
        );
    }
    assert!(html.contains("<th scope=\"row\">Subject:</th><td>Asgard within Ensemble</td>"));
    assert!(html.contains("Thanks to Vance for putting this example together."));

    let mut browser = Browser::start(&dir.join("profile"));
    let mut tab = browser.tab();
    tab.open(&dir.join("page/index.html"));
    assert!(
        tab.wait_for(
            "window.asgardPlayers && window.asgardPlayers.length === 1",
            20.0
        ),
        "the player did not start"
    );
    assert_eq!(tab.eval("window.asgardPlayers[0] !== null"), json!(true));
    let canvas = rect(&mut tab, "figure.asgard-player canvas");
    let figure = rect(&mut tab, "figure.asgard-player");
    assert!(
        (canvas.right - canvas.left - 400.0).abs() < 1.0,
        "{canvas:?}"
    );

    // Playing: two screenshots a second of playback apart differ in the picture only.
    tab.eval("window.asgardPlayers[0].seek(0)");
    assert!(tab.wait_for("window.asgardPlayers[0].time >= 0.5", 20.0));
    let first = tab.screenshot();
    first.save(&dir.join("playing-1.png"));
    let t1 = time(&mut tab);
    assert!(tab.wait_for(
        &format!("window.asgardPlayers[0].time >= {}", t1 + 1.0),
        20.0
    ));
    let second = tab.screenshot();
    second.save(&dir.join("playing-2.png"));
    assert!(
        second.differences(&first, &canvas, true) > 200,
        "the animation did not move"
    );
    assert_eq!(
        second.differences(&first, &figure, false),
        0,
        "something outside the player changed"
    );
    assert!(
        first.not_background(&canvas, BACKGROUND) > 2000,
        "the bodies are not in the picture"
    );

    // Pause, with the button: the time and the picture stand still.
    let (x, y) = rect(&mut tab, ".asgard-play").centre();
    tab.click(x, y);
    assert_eq!(
        tab.eval("document.querySelector('figure').dataset.playing"),
        json!("false")
    );
    let paused_at = time(&mut tab);
    let paused = tab.screenshot();
    tab.frames(30);
    assert_eq!(time(&mut tab), paused_at, "the time moved while paused");
    assert_eq!(tab.screenshot().differences(&paused, &canvas, true), 0);

    // Scrub: the slider moves the animation to the time asked, and back again.
    let scrub = |tab: &mut Tab, to: f64| {
        tab.eval(&format!(
            "(() => {{ const s = document.querySelector('.asgard-scrub'); s.value = '{to}'; \
             s.dispatchEvent(new Event('input', {{ bubbles: true }})); }})()"
        ));
        tab.frames(2);
        assert_eq!(time(tab), to, "scrubbed to {to}");
        tab.screenshot()
    };
    let early = scrub(&mut tab, 0.25);
    early.save(&dir.join("scrub-0.25.png"));
    let late = scrub(&mut tab, 2.75);
    late.save(&dir.join("scrub-2.75.png"));
    assert!(late.differences(&early, &canvas, true) > 200);
    assert_eq!(scrub(&mut tab, 0.25).differences(&early, &canvas, true), 0);
    // A click on the middle of the slider, as a reader would: about half of the 3 s.
    let (x, y) = rect(&mut tab, ".asgard-scrub").centre();
    tab.click(x, y);
    tab.frames(2);
    let middle = time(&mut tab);
    assert!(
        (middle - 1.5).abs() < 0.3,
        "the slider's middle is {middle} s"
    );

    // Rate and loop are the reader's to set.
    tab.eval(
        "(() => { const r = document.querySelector('.asgard-rate'); r.value = '2'; \
         r.dispatchEvent(new Event('change', { bubbles: true })); })()",
    );
    let (x, y) = rect(&mut tab, ".asgard-loop").centre();
    tab.click(x, y);
    let state = tab.eval("Object.assign({}, document.querySelector('figure').dataset)");
    assert_eq!(
        (&state["rate"], &state["loop"]),
        (&json!("2"), &json!("false"))
    );

    // Dragging the picture turns the view.
    let before = tab.screenshot();
    tab.drag(
        canvas.centre(),
        (canvas.centre().0 + 120.0, canvas.centre().1 + 40.0),
    );
    tab.frames(2);
    let turned = tab.screenshot();
    turned.save(&dir.join("turned.png"));
    assert!(
        turned.differences(&before, &canvas, true) > 200,
        "the drag did not turn the view"
    );

    assert_eq!(
        tab.errors(),
        Vec::<String>::new(),
        "the page reported errors"
    );
}

#[test]
fn a_scene_exports_as_a_page_of_its_own() {
    let dir = fresh("scene");
    let html = export(&example("pendulum.asg"), &dir.join("page"));
    assert_eq!(html.matches("class=\"asgard-data\">").count(), 1);
    assert!(html.contains("<title>"), "{}", &html[..200]);
    // Exporting again replaces the page in the same folder.
    export(&example("pendulum.asg"), &dir.join("page"));
}

#[test]
fn bad_input_is_refused_with_located_errors() {
    let dir = fresh("errors");
    let out = dir.join("page");
    let out_arg = out.to_str().unwrap();
    let fails = |args: &[&str]| -> String {
        let output = asgard(args);
        assert!(!output.status.success(), "{args:?} succeeded");
        String::from_utf8_lossy(&output.stderr).to_string()
    };

    // A scene error inside a document is reported at its line in the document.
    let broken = dir.join("broken.sgml");
    let memo = std::fs::read_to_string(example("memo.sgml")).unwrap();
    std::fs::write(
        &broken,
        memo.replace("simulator finish 3", "simulator finish three"),
    )
    .unwrap();
    let broken_arg = broken.to_str().unwrap();
    let message = fails(&["export", broken_arg, "--format", "html", "-o", out_arg]);
    assert!(
        message.starts_with(&format!("{broken_arg}:14:")),
        "not located at the scene's line in the document: {message}"
    );
    assert!(!out.exists(), "a failed export left its folder behind");

    // The run limits hold for each animation of a document.
    let message = fails(&[
        "export",
        &example("memo.sgml"),
        "--format",
        "html",
        "--max-output-steps",
        "10",
        "-o",
        out_arg,
    ]);
    assert!(message.contains("limit of 10 output steps"), "{message}");

    // Markup errors, the document size limit, --time and an output that is a file.
    std::fs::write(&broken, "<DOCUMENT CMEMO>\n<CMEMO>\n</DOCUMENT>\n").unwrap();
    let message = fails(&["export", broken_arg, "--format", "html", "-o", out_arg]);
    assert!(
        message.starts_with(&format!("{broken_arg}:3:")),
        "{message}"
    );
    let message = fails(&[
        "export",
        &example("memo.sgml"),
        "--format",
        "html",
        "--max-size",
        "100",
        "-o",
        out_arg,
    ]);
    assert!(message.contains("--max-size BYTES raises it"), "{message}");
    let message = fails(&[
        "export",
        &example("memo.sgml"),
        "--format",
        "html",
        "--time",
        "1",
        "-o",
        out_arg,
    ]);
    assert!(message.contains("--time does not apply"), "{message}");
    let file = dir.join("a-file");
    std::fs::write(&file, "").unwrap();
    let message = fails(&[
        "export",
        &example("memo.sgml"),
        "--format",
        "html",
        "-o",
        file.to_str().unwrap(),
    ]);
    assert!(message.contains("not a folder"), "{message}");
    let message = fails(&["export", "/dev/null", "--format", "html", "-o", out_arg]);
    assert!(message.contains("not a regular file"), "{message}");
}
