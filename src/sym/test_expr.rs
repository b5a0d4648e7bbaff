//! A tiny Tcl `expr` parser for tests, so expression trees can be written as text while the
//! real language parser lives elsewhere. Handles numbers, `$name`, `[word word]`, `{text}`,
//! `"text"` (no substitutions), function calls and every operator with Tcl's precedence.
//! Panics on text it does not understand: it only ever sees test inputs.

use crate::lang::ast::{BinaryOp, Command, Expr, ExprKind, Part, Script, UnaryOp, Word, WordKind};
use crate::lang::span::Span;

pub(crate) fn parse(text: &str) -> Expr {
    let mut parser = Parser { text, at: 0 };
    let expr = parser.ternary();
    parser.skip_space();
    assert_eq!(parser.at, text.len(), "unparsed text in {text:?}");
    expr
}

struct Parser<'t> {
    text: &'t str,
    at: usize,
}

/// Binary operators by precedence level, lowest first (Tcl 8.6 order).
const LEVELS: &[&[(&str, BinaryOp)]] = &[
    &[("||", BinaryOp::Or)],
    &[("&&", BinaryOp::And)],
    &[("|", BinaryOp::BitOr)],
    &[("^", BinaryOp::BitXor)],
    &[("&", BinaryOp::BitAnd)],
    &[("in", BinaryOp::In), ("ni", BinaryOp::Ni)],
    &[("eq", BinaryOp::StrEq), ("ne", BinaryOp::StrNe)],
    &[("==", BinaryOp::Eq), ("!=", BinaryOp::Ne)],
    &[
        ("<=", BinaryOp::Le),
        (">=", BinaryOp::Ge),
        ("<<", BinaryOp::Shl),
        (">>", BinaryOp::Shr),
        ("<", BinaryOp::Lt),
        (">", BinaryOp::Gt),
    ],
    &[("+", BinaryOp::Add), ("-", BinaryOp::Sub)],
    &[
        ("*", BinaryOp::Mul),
        ("/", BinaryOp::Div),
        ("%", BinaryOp::Mod),
    ],
];

impl Parser<'_> {
    fn rest(&self) -> &str {
        &self.text[self.at..]
    }

    fn skip_space(&mut self) {
        while self.rest().starts_with(char::is_whitespace) {
            self.at += 1;
        }
    }

    fn eat(&mut self, token: &str) -> bool {
        self.skip_space();
        if self.rest().starts_with(token) {
            self.at += token.len();
            true
        } else {
            false
        }
    }

    fn ternary(&mut self) -> Expr {
        self.skip_space();
        let start = self.at;
        let condition = self.binary(0);
        if !self.eat("?") {
            return condition;
        }
        let then = self.ternary();
        assert!(self.eat(":"), "expected `:` in {:?}", self.text);
        let otherwise = self.ternary();
        self.node(
            start,
            ExprKind::Ternary(Box::new(condition), Box::new(then), Box::new(otherwise)),
        )
    }

    fn binary(&mut self, level: usize) -> Expr {
        if level == LEVELS.len() {
            return self.power();
        }
        self.skip_space();
        let start = self.at;
        let mut left = self.binary(level + 1);
        'more: loop {
            self.skip_space();
            for &(token, op) in LEVELS[level] {
                // `<` must not take the first character of `<=` or `<<`, `&` of `&&`, etc.
                let longer = LEVELS.iter().flat_map(|l| l.iter()).any(|&(t, _)| {
                    t.len() > token.len() && t.starts_with(token) && self.rest().starts_with(t)
                });
                if self.rest().starts_with(token) && !longer {
                    self.at += token.len();
                    let right = self.binary(level + 1);
                    left = self.node(start, ExprKind::Binary(op, Box::new(left), Box::new(right)));
                    continue 'more;
                }
            }
            return left;
        }
    }

    fn power(&mut self) -> Expr {
        self.skip_space();
        let start = self.at;
        let base = self.unary();
        if self.eat("**") {
            let exponent = self.power(); // right-associative
            return self.node(
                start,
                ExprKind::Binary(BinaryOp::Pow, Box::new(base), Box::new(exponent)),
            );
        }
        base
    }

    fn unary(&mut self) -> Expr {
        self.skip_space();
        let start = self.at;
        for (token, op) in [
            ("-", UnaryOp::Neg),
            ("+", UnaryOp::Plus),
            ("!", UnaryOp::Not),
            ("~", UnaryOp::BitNot),
        ] {
            if self.eat(token) {
                let operand = self.unary();
                return self.node(start, ExprKind::Unary(op, Box::new(operand)));
            }
        }
        self.primary()
    }

    fn primary(&mut self) -> Expr {
        self.skip_space();
        let start = self.at;
        let c = self.rest().chars().next().expect("expected an operand");
        if c == '(' {
            self.at += 1;
            let inner = self.ternary();
            assert!(self.eat(")"), "expected `)` in {:?}", self.text);
            return inner;
        }
        if c == '$' {
            self.at += 1;
            let name = self.take_while(|c| c.is_alphanumeric() || c == '_' || c == ':');
            let span = Span::new(start, self.at);
            return self.node(
                start,
                ExprKind::Operand(vec![Part::Variable {
                    name,
                    index: None,
                    span,
                }]),
            );
        }
        if c == '[' {
            let close = self.text[start..].find(']').expect("unclosed [") + start;
            let inner_start = start + 1;
            let mut words = Vec::new();
            let mut offset = inner_start;
            for piece in self.text[inner_start..close].split(' ') {
                if !piece.is_empty() {
                    let span = Span::new(offset, offset + piece.len());
                    words.push(Word {
                        span,
                        expand: false,
                        kind: WordKind::Bare(vec![Part::Text {
                            text: piece.to_string(),
                            span,
                        }]),
                    });
                }
                offset += piece.len() + 1;
            }
            let inner = Span::new(inner_start, close);
            let script = Script {
                span: inner,
                commands: vec![Command { span: inner, words }],
            };
            self.at = close + 1;
            let span = Span::new(start, self.at);
            return self.node(
                start,
                ExprKind::Operand(vec![Part::Command { script, span }]),
            );
        }
        if c == '{' || c == '"' {
            let close_char = if c == '{' { '}' } else { '"' };
            let close = self.text[start + 1..]
                .find(close_char)
                .expect("unclosed literal")
                + start
                + 1;
            let span = Span::new(start + 1, close);
            let text = self.text[start + 1..close].to_string();
            self.at = close + 1;
            return self.node(start, ExprKind::Operand(vec![Part::Text { text, span }]));
        }
        if c.is_ascii_digit() || c == '.' {
            let mut word = self.take_while(|c| c.is_ascii_alphanumeric() || c == '.');
            let hex = word.starts_with("0x") || word.starts_with("0X");
            if !hex && word.ends_with(['e', 'E']) && self.rest().starts_with(['+', '-']) {
                self.at += 1;
                word.push_str(&self.text[self.at - 1..self.at]);
                word.push_str(&self.take_while(|c| c.is_ascii_digit()));
            }
            return self.node(start, ExprKind::Number(word));
        }
        let name = self.take_while(|c| c.is_alphanumeric() || c == '_');
        assert!(!name.is_empty(), "unexpected {c:?} in {:?}", self.text);
        if self.eat("(") {
            let mut args = Vec::new();
            if !self.eat(")") {
                loop {
                    args.push(self.ternary());
                    if self.eat(")") {
                        break;
                    }
                    assert!(self.eat(","), "expected `,` in {:?}", self.text);
                }
            }
            return self.node(start, ExprKind::Call(name, args));
        }
        self.node(start, ExprKind::Number(name))
    }

    fn take_while(&mut self, keep: impl Fn(char) -> bool) -> String {
        let taken: String = self.rest().chars().take_while(|&c| keep(c)).collect();
        self.at += taken.len();
        taken
    }

    fn node(&self, start: usize, kind: ExprKind) -> Expr {
        Expr {
            span: Span::new(start, self.at),
            kind,
        }
    }
}
