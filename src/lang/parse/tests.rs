use super::*;
use crate::lang::ast::{Part, WordKind};

fn words(text: &str) -> Vec<Vec<String>> {
    parse_script(text, 0)
        .unwrap()
        .commands
        .iter()
        .map(|c| {
            c.words
                .iter()
                .map(|w| {
                    w.literal()
                        .map_or_else(|| "<subst>".into(), |t| t.into_owned())
                })
                .collect()
        })
        .collect()
}

#[test]
fn commands_split_at_newlines_and_semicolons() {
    assert_eq!(
        words("a b;c\n\n  d e  ;"),
        vec![vec!["a", "b"], vec!["c"], vec!["d", "e"]]
    );
}

#[test]
fn comments_only_where_a_command_starts() {
    assert_eq!(
        words("# one \\\n still comment\na #b\n  # two\nc"),
        vec![vec!["a", "#b"], vec!["c"]]
    );
}

#[test]
fn braces_take_text_literally_but_fold_backslash_newline() {
    assert_eq!(words("a {b $c [d] {e}}"), vec![vec!["a", "b $c [d] {e}"]]);
    assert_eq!(words("a {x\\\n    y}"), vec![vec!["a", "x y"]]);
    assert_eq!(words("a {x\\}y}"), vec![vec!["a", "x\\}y"]]);
}

#[test]
fn backslashes_and_continuation_lines() {
    assert_eq!(words("a \\x41\\n\\u00e9 \\{"), vec![vec!["a", "A\né", "{"]]);
    assert_eq!(words("a \\\n   b"), vec![vec!["a", "b"]]);
}

#[test]
fn spans_are_whole_text_coordinates() {
    let text = "set x [foo $a(i$j) \"q\"]";
    let script = parse_script(text, 100).unwrap();
    let cmd = &script.commands[0];
    assert_eq!(cmd.span, Span::new(100, 100 + text.len()));
    let w = &cmd.words[2];
    assert_eq!(w.span, Span::new(106, 123));
    let WordKind::Bare(parts) = &w.kind else {
        panic!("bare word")
    };
    let Part::Command {
        script: inner,
        span,
    } = &parts[0]
    else {
        panic!("command part")
    };
    assert_eq!(*span, Span::new(106, 123));
    assert_eq!(inner.commands[0].words[0].span, Span::new(107, 110));
    let var = &inner.commands[0].words[1];
    assert_eq!(var.span, Span::new(111, 118));
    let WordKind::Bare(vparts) = &var.kind else {
        panic!()
    };
    let Part::Variable {
        name,
        index: Some(index),
        ..
    } = &vparts[0]
    else {
        panic!()
    };
    assert_eq!(name, "a");
    assert_eq!(index.len(), 2);
    assert_eq!(index[1].span(), Span::new(115, 117));
    let quoted = &inner.commands[0].words[2];
    let WordKind::Quoted(qparts) = &quoted.kind else {
        panic!()
    };
    assert_eq!(qparts[0].span(), Span::new(120, 121));
}

#[test]
fn braced_content_span_excludes_braces() {
    let script = parse_script("proc f {} {\n  body\n}", 7).unwrap();
    let WordKind::Braced { content, text } = &script.commands[0].words[3].kind else {
        panic!()
    };
    assert_eq!(*content, Span::new(18, 26));
    assert_eq!(text, "\n  body\n");
}

#[test]
fn variables_forms() {
    let script = parse_script("a ${x y}$z::w$ $::g", 0).unwrap();
    let WordKind::Bare(parts) = &script.commands[0].words[1].kind else {
        panic!()
    };
    let names: Vec<String> = parts
        .iter()
        .map(|p| match p {
            Part::Variable { name, .. } => format!("${name}"),
            Part::Text { text, .. } => text.clone(),
            Part::Command { .. } => "[]".into(),
        })
        .collect();
    assert_eq!(names, ["$x y", "$z::w", "$"]);
    let WordKind::Bare(parts) = &script.commands[0].words[2].kind else {
        panic!()
    };
    assert!(matches!(&parts[0], Part::Variable { name, .. } if name == "::g"));
}

#[test]
fn expansion_prefix() {
    let script = parse_script("a {*}$l {*} {*}{x y}", 0).unwrap();
    let w = &script.commands[0].words;
    assert!(w[1].expand);
    assert!(!w[2].expand);
    assert_eq!(w[2].literal().unwrap(), "*");
    assert!(w[3].expand);
    assert_eq!(w[3].span, Span::new(12, 20));
}

#[test]
fn brackets_end_at_close_bracket_and_quotes_protect_it() {
    assert_eq!(words("a [b c]d"), vec![vec!["a", "<subst>"]]);
    let script = parse_script("a [b \"]\"]", 0).unwrap();
    assert_eq!(script.commands.len(), 1);
}

#[test]
fn unterminated_constructs_point_at_their_opener() {
    let e = parse_script("set a {b\nc", 0).unwrap_err();
    assert_eq!(
        (e.message.as_str(), e.span.start),
        ("missing close-brace", 6)
    );
    let e = parse_script("set a \"b", 0).unwrap_err();
    assert_eq!((e.message.as_str(), e.span.start), ("missing \"", 6));
    let e = parse_script("set a [b [c]", 10).unwrap_err();
    assert_eq!(
        (e.message.as_str(), e.span.start),
        ("missing close-bracket", 16)
    );
    let e = parse_script("puts $a(b", 0).unwrap_err();
    assert_eq!((e.message.as_str(), e.span.start), ("missing )", 7));
}

#[test]
fn extra_characters_after_close_brace_or_quote() {
    let e = parse_script("set a {b}c", 0).unwrap_err();
    assert_eq!(
        (e.message.as_str(), e.span.start),
        ("extra characters after close-brace", 9)
    );
    let e = parse_script("set a \"b\"c", 0).unwrap_err();
    assert_eq!(e.message, "extra characters after close-quote");
    assert!(parse_script("[set a {b}]", 0).is_ok());
}

#[test]
fn deep_bracket_nesting_is_an_error_and_deep_braces_are_fine() {
    let n = 100_000;
    let text = "[".repeat(n) + &"]".repeat(n);
    let e = parse_script(&text, 0).unwrap_err();
    assert!(e.message.contains("nested"), "{}", e.message);
    let text = format!("set a {}{}", "{".repeat(n), "}".repeat(n));
    assert_eq!(parse_script(&text, 0).unwrap().commands.len(), 1);
}

#[test]
fn long_operator_chains_count_as_nesting() {
    // A left-deep tree of 100,000 additions would overflow the stack when evaluated or freed.
    let text = vec!["1"; 100_000].join(" + ");
    let e = parse_expr(&text, 0).unwrap_err();
    assert!(e.message.contains("nested"), "{}", e.message);
    let text = vec!["1"; 500].join(" + ");
    assert!(parse_expr(&text, 0).is_ok());
}

#[test]
fn subst_parts_respect_flags() {
    let flags = SubstFlags {
        commands: false,
        ..SubstFlags::default()
    };
    let parts = parse_subst("a $b [c] \"d\\n", 0, 10, flags).unwrap();
    let literal: String = parts
        .iter()
        .map(|p| match p {
            Part::Text { text, .. } => text.clone(),
            _ => "<v>".into(),
        })
        .collect();
    assert_eq!(literal, "a <v> [c] \"d\n");
}
