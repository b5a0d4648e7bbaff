//! What a host pays per scene edit: `replace_scene` rewrites the scene's bytes and reads the
//! whole document again. Measured on a large document against the least any byte-preserving
//! edit costs (copying the text around the replaced span), plus reading, validating and
//! escaping on their own.
//!
//! Run: `cargo bench --bench doc_edit` (or `--profile dev` to reuse the test build).

use asgard::doc::escape::{escape_scene, unescape_scene};
use asgard::doc::{validate, Document};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// A lesson with `n` paragraphs of text, each followed by an animation of about 2 KB.
fn large_document(n: usize) -> String {
    let scene: String = (0..40)
        .map(|i| {
            format!("body b{i} shape ball init_pos {{{i} 0 0}} init_dpos {{0 {i} 0}} mass 1\n")
        })
        .collect();
    let mut text = String::from("<DOCUMENT LESSON>\n<LESSON>\n<TITLE>Benchmark</TITLE>\n<BODY>\n");
    for i in 0..n {
        text.push_str(&format!(
            "<HEADING>Part {i}</HEADING>\n<PARAGRAPH>\n<TEXT>Some words &amp; more words about part {i}.</TEXT>\n\
             <DOCUMENT ANIMATION>\n<ANIMATION WIDTH=400 HEIGHT=300>\n<ASGARD>\n{}</ASGARD>\n</ANIMATION>\n</DOCUMENT>\n</PARAGRAPH>\n",
            escape_scene(&scene)
        ));
    }
    text.push_str("</BODY>\n</LESSON>\n</DOCUMENT>\n");
    text
}

/// The mean time of `f` over enough runs to take about half a second.
fn time(mut f: impl FnMut()) -> Duration {
    f();
    let start = Instant::now();
    let mut runs = 0u32;
    while start.elapsed() < Duration::from_millis(500) {
        f();
        runs += 1;
    }
    start.elapsed() / runs
}

fn main() {
    let text = large_document(200);
    let document = Document::parse(text.clone()).expect("the benchmark document reads");
    assert!(validate(&document).is_empty());
    let middle = document.subdocuments().len() / 2;
    let span = document.subdocuments()[middle].scene_span;
    let new_scene = document.subdocuments()[middle]
        .scene
        .replace("mass 1", "mass 2");
    let stored = escape_scene(&new_scene);
    println!(
        "document: {} KB, {} subdocuments, {} nodes",
        text.len() / 1024,
        document.subdocuments().len(),
        document.tree().all().count()
    );

    let baseline = time(|| {
        let mut out = String::with_capacity(text.len());
        out.push_str(&text[..span.start]);
        out.push_str(&stored);
        out.push_str(&text[span.end..]);
        black_box(out);
    });
    let parse = time(|| {
        black_box(Document::parse(black_box(text.clone())).unwrap());
    });
    let check = time(|| {
        black_box(validate(black_box(&document)));
    });
    let replace = time(|| {
        let mut d = document.clone();
        d.replace_scene(middle, black_box(&new_scene)).unwrap();
        black_box(d);
    });
    let clone = time(|| {
        black_box(document.clone());
    });
    let escape = time(|| {
        black_box(escape_scene(black_box(&new_scene)));
    });
    let unescape = time(|| {
        black_box(unescape_scene(black_box(&stored)).unwrap());
    });

    let ratio = |d: Duration| d.as_secs_f64() / baseline.as_secs_f64();
    println!("baseline: copy the text around one scene  {baseline:>12.2?}");
    println!(
        "read + locate subdocuments                {parse:>12.2?}  {:>7.1}x",
        ratio(parse)
    );
    println!(
        "validate against the DTD                  {check:>12.2?}  {:>7.1}x",
        ratio(check)
    );
    println!(
        "replace_scene (incl. clone {clone:.2?})     {replace:>12.2?}  {:>7.1}x",
        ratio(replace)
    );
    println!("escape / unescape one 2 KB scene          {escape:>12.2?} / {unescape:.2?}");
}
