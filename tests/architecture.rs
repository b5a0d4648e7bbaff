//! `docs/ARCHITECTURE.md`'s module table is the truth about imports: every `crate::` path in
//! a module of `src/` (use lines, and paths written inline) is one its row lists under "may
//! import", and every listed import is one the module really makes. A new `use` that
//! contradicts the table, or a table row that outlived its imports, fails here with the file
//! and line, so the table is changed together with the code.
//!
//! A row names one or more modules (`sim::physics`; `sim::solver`, `sim::energy`); a file
//! belongs to the row naming the longest prefix of its module path, and so does a path it
//! uses. Paths within the file's own row are free. An entry `a::b` allows every path below
//! `a::b`; `everything` allows all. Comments are not read: a doc link is no dependency.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// One row of the table: the module paths it names and the paths they may import.
#[derive(Debug)]
struct Row {
    modules: Vec<Vec<String>>,
    /// `None` for `everything`.
    imports: Option<Vec<Vec<String>>>,
}

/// A `crate::` path used at a line of a file.
#[derive(Debug)]
struct Use {
    line: usize,
    path: Vec<String>,
}

fn segments(path: &str) -> Vec<String> {
    path.split("::").map(str::to_owned).collect()
}

/// The backticked names of a table cell: "`a`, `b::c`" → [a, b::c].
fn backticked(cell: &str) -> Vec<Vec<String>> {
    cell.split('`').skip(1).step_by(2).map(segments).collect()
}

/// The rows of the table under the heading `## Modules` of the architecture document.
fn table(doc: &str) -> Vec<Row> {
    let section = doc
        .split("\n## Modules\n")
        .nth(1)
        .expect("a `## Modules` section")
        .split("\n## ")
        .next()
        .unwrap_or_default();
    section
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split(" | ").collect();
            assert_eq!(cells.len(), 3, "a row of three cells: {line}");
            let imports = cells[2].trim();
            Row {
                modules: backticked(cells[0]),
                imports: (imports != "everything").then(|| backticked(imports)),
            }
        })
        .collect()
}

/// The module path of a source file below `src/` (`src/sim/collide/mod.rs` → sim::collide).
fn module_of(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .with_extension("")
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// Every `crate::` path in `source` outside comments, with its line; a group
/// (`crate::{a::b, c::{d, e}}`, over lines as rustfmt writes long ones) gives one path per
/// leaf.
fn uses(source: &str) -> Vec<Use> {
    let code: String = source
        .lines()
        .map(|line| line.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n");
    code.match_indices("crate::")
        .flat_map(|(at, _)| {
            let line = code[..at].matches('\n').count() + 1;
            let mut paths = Vec::new();
            let rest = &code[at + "crate::".len()..];
            use_tree(&mut rest.chars().peekable(), Vec::new(), &mut paths);
            paths.into_iter().map(move |path| Use { line, path })
        })
        .collect()
}

/// Reads one use tree (`a::b`, `a::{b, c::d}`, `a::b as c`) below `prefix` into `paths`.
fn use_tree(
    text: &mut std::iter::Peekable<std::str::Chars>,
    mut prefix: Vec<String>,
    paths: &mut Vec<Vec<String>>,
) {
    loop {
        while text.peek().is_some_and(|c| c.is_whitespace()) {
            text.next();
        }
        if text.peek() == Some(&'{') {
            text.next();
            loop {
                use_tree(text, prefix.clone(), paths);
                match text.next() {
                    Some(',') => continue,
                    _ => return,
                }
            }
        }
        let mut segment = String::new();
        while let Some(&c) = text.peek().filter(|c| c.is_alphanumeric() || **c == '_') {
            segment.push(c);
            text.next();
        }
        if segment.is_empty() {
            break;
        }
        prefix.push(segment);
        let mut rest = text.clone();
        if rest.next() == Some(':') && rest.next() == Some(':') {
            text.next();
            text.next();
        } else {
            break;
        }
    }
    // Skip what follows the path within its group (`as name`, spaces) up to `,` or `}`.
    while text.peek().is_some_and(|c| *c != ',' && *c != '}') && !prefix.is_empty() {
        if !text
            .peek()
            .is_some_and(|c| c.is_whitespace() || c.is_alphanumeric() || *c == '_')
        {
            break;
        }
        text.next();
    }
    // `a::{self, b}` uses `a`.
    if prefix.last().is_some_and(|s| s == "self") {
        prefix.pop();
    }
    if !prefix.is_empty() {
        paths.push(prefix);
    }
}

/// The row whose module is the longest prefix of `path`.
fn row_of<'a>(rows: &'a [Row], path: &[String]) -> Option<&'a Row> {
    rows.iter()
        .flat_map(|row| row.modules.iter().map(move |m| (row, m)))
        .filter(|(_, m)| path.starts_with(m))
        .max_by_key(|(_, m)| m.len())
        .map(|(row, _)| row)
}

fn name(path: &[String]) -> String {
    path.join("::")
}

/// What contradicts the table among `files` (each a path below `src/` and its text): each
/// problem is one line of the report.
fn contradictions(rows: &[Row], files: &[(PathBuf, String)]) -> Vec<String> {
    let mut problems = Vec::new();
    // (row index, import index) of every listed import some file of the row makes.
    let mut made = BTreeSet::new();
    for (file, source) in files {
        let module = module_of(file);
        let Some(owner) = row_of(rows, &module) else {
            problems.push(format!(
                "src/{}: module `{}` has no row in the table",
                file.display(),
                name(&module)
            ));
            continue;
        };
        let owner_index = rows.iter().position(|r| std::ptr::eq(r, owner)).unwrap();
        for used in uses(source) {
            if row_of(rows, &used.path).is_some_and(|r| std::ptr::eq(r, owner)) {
                continue;
            }
            let Some(imports) = &owner.imports else {
                continue;
            };
            match imports.iter().position(|i| used.path.starts_with(i)) {
                Some(i) => {
                    made.insert((owner_index, i));
                }
                None => problems.push(format!(
                    "src/{}:{}: uses crate::{}, which the row of `{}` does not list",
                    file.display(),
                    used.line,
                    name(&used.path),
                    name(&owner.modules[0])
                )),
            }
        }
    }
    for (r, row) in rows.iter().enumerate() {
        for (i, import) in row.imports.iter().flatten().enumerate() {
            if !made.contains(&(r, i)) {
                problems.push(format!(
                    "the row of `{}` lists `{}`, which none of its files uses",
                    name(&row.modules[0]),
                    name(import)
                ));
            }
        }
    }
    problems
}

fn source_files(dir: &Path, below: &Path, out: &mut Vec<(PathBuf, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("a readable source folder")
        .map(|e| e.expect("a folder entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            source_files(&path, below, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative = path.strip_prefix(below).unwrap().to_owned();
            // The crate roots are not modules of the table.
            if relative != Path::new("lib.rs") && relative != Path::new("main.rs") {
                let text = std::fs::read_to_string(&path).expect("a readable source file");
                out.push((relative, text));
            }
        }
    }
}

#[test]
fn every_import_is_in_the_table_and_every_listed_import_is_made() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).unwrap();
    let rows = table(&doc);
    assert!(rows.len() > 10, "the table has its rows: {rows:?}");
    let mut files = Vec::new();
    source_files(&root.join("src"), &root.join("src"), &mut files);
    let problems = contradictions(&rows, &files);
    assert!(
        problems.is_empty(),
        "docs/ARCHITECTURE.md's module table and the code disagree:\n{}",
        problems.join("\n")
    );
}

#[test]
fn a_use_line_that_contradicts_the_table_is_reported_where_it_is() {
    let doc = "# A\n\n## Modules\n\n| module | holds | may import |\n|---|---|---|\n\
               | `lang` | the language | — |\n\
               | `sim`, `sim::run` | the core | `lang::span` |\n\
               | `sim::physics` | equations | `sim`, `lang` |\n\
               | `cli` | commands | everything |\n\n## Data flow\n";
    let rows = table(doc);
    let file = |path: &str, text: &str| (PathBuf::from(path), text.to_owned());
    let agreeing = [
        file("lang/mod.rs", "use crate::lang::span::Span;\n"),
        file("sim/run.rs", "// crate::cli in a comment\nuse crate::lang::span::{Span, LineCol};\n"),
        file(
            "sim/physics/model.rs",
            "use crate::{\n    lang::Limits,\n    sim::{self, Track, run::Run as R},\n};\nuse crate::sim::physics::x;\n",
        ),
        file("cli/mod.rs", "use crate::sim::physics::Model;\n"),
    ];
    assert_eq!(contradictions(&rows, &agreeing), Vec::<String>::new());

    let mut contradicting = agreeing.clone();
    contradicting[1]
        .1
        .push_str("fn f() { crate::sim::physics::compile(); }\n");
    assert_eq!(
        contradictions(&rows, &contradicting),
        ["src/sim/run.rs:3: uses crate::sim::physics::compile, which the row of `sim` does not list"]
    );

    let mut unused = agreeing.clone();
    unused[2].1 = "use crate::sim::Track;\n".to_owned();
    assert_eq!(
        contradictions(&rows, &unused),
        ["the row of `sim::physics` lists `lang`, which none of its files uses"]
    );

    let mut stray = agreeing.to_vec();
    stray.push(file("view/mod.rs", ""));
    assert_eq!(
        contradictions(&rows, &stray),
        ["src/view/mod.rs: module `view` has no row in the table"]
    );
}
