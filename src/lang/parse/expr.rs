//! The `expr` parser: Tcl 8.6 expression grammar to [`ast::Expr`].
//!
//! The operators and their precedence are [`crate::lang::operator`]'s table, numbers and
//! boolean words are read by [`crate::lang::number`]. Operands are numbers, boolean words,
//! `$var`, `[script]`, `"quoted"`, `{braced}`, `name(args)` math-function calls and
//! parenthesised expressions.

use super::{is_space, Parser, Until, RED_ZONE, STACK_SEGMENT};
use crate::lang::ast::{BinaryOp, Expr, ExprKind, Part, UnaryOp};
use crate::lang::error::Error;
use crate::lang::number::{self, NotANumber};

/// Parses the expression `text`, which sits at byte `base` of the scene text.
pub fn parse_expr(text: &str, base: usize) -> Result<Expr, Error> {
    parse_expr_with_depth(text, base, super::DEFAULT_MAX_DEPTH)
}

/// [`parse_expr`] with an explicit limit on the nesting of parentheses, operators and brackets.
pub fn parse_expr_with_depth(text: &str, base: usize, max_depth: usize) -> Result<Expr, Error> {
    let mut p = ExprParser {
        p: Parser::new(text, base, max_depth),
    };
    p.skip_space();
    if p.p.peek().is_none() {
        return Err(p.syntax("empty expression", 0, 0));
    }
    let expr = p.ternary()?;
    p.skip_space();
    if p.p.pos < text.len() {
        let at = p.p.pos;
        return Err(p.syntax("missing operator", at, at + 1));
    }
    Ok(expr)
}

struct ExprParser<'a> {
    p: Parser<'a>,
}

impl ExprParser<'_> {
    fn skip_space(&mut self) {
        while let Some(b) = self.p.peek() {
            if is_space(b) || b == b'\n' {
                self.p.pos += 1;
            } else {
                break;
            }
        }
    }

    /// An expression syntax error, worded like tclsh's and showing the expression.
    fn syntax(&self, what: &str, start: usize, end: usize) -> Error {
        let shown = format!("{}_@_{}", &self.p.text[..start], &self.p.text[start..]);
        self.p.error(
            &format!("{what} at _@_\nin expression \"{shown}\""),
            start,
            end.max(start),
        )
    }

    fn node(&self, start: usize, kind: ExprKind) -> Expr {
        Expr {
            span: self.p.span(start, self.p.pos),
            kind,
        }
    }

    fn ternary(&mut self) -> Result<Expr, Error> {
        stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, || self.ternary_inner())
    }

    fn ternary_inner(&mut self) -> Result<Expr, Error> {
        self.skip_space();
        let start = self.p.pos;
        self.p.descend(start)?;
        let cond = self.binary(0)?;
        let end = self.p.pos;
        self.skip_space();
        let result = if self.p.peek() == Some(b'?') {
            self.p.pos += 1;
            let then = self.ternary()?;
            self.skip_space();
            if self.p.peek() != Some(b':') {
                let at = self.p.pos;
                return Err(self.syntax("missing operator \":\"", at, at + 1));
            }
            self.p.pos += 1;
            let otherwise = self.ternary()?;
            self.node(
                start,
                ExprKind::Ternary(Box::new(cond), Box::new(then), Box::new(otherwise)),
            )
        } else {
            // Spaces after the expression belong to no node.
            self.p.pos = end;
            cond
        };
        self.p.depth -= 1;
        Ok(result)
    }

    /// Precedence climbing over the binary operators binding at least as tight as `min`.
    ///
    /// Each operator applied makes the tree one level deeper on its left, so a chain of them
    /// counts against the nesting limit like parentheses do: `1 + 1 + …` a million times long
    /// is an error, not a tree too deep to evaluate or even to free.
    fn binary(&mut self, min: u8) -> Result<Expr, Error> {
        self.skip_space();
        let start = self.p.pos;
        let mut left = self.unary()?;
        let mut chain = 0;
        loop {
            // A node's span ends at its last operand, not at the spaces after it.
            let end = self.p.pos;
            self.skip_space();
            let operator = self.binary_operator().filter(|op| op.precedence() >= min);
            let Some(op) = operator else {
                self.p.pos = end;
                break;
            };
            let prec = op.precedence();
            self.p.pos += op.symbol().len();
            // A right-associative operator's right side may contain the same operator.
            let next_min = if op.is_right_associative() {
                prec
            } else {
                prec + 1
            };
            self.p.descend(start)?;
            chain += 1;
            let right = self.binary(next_min)?;
            left = self.node(start, ExprKind::Binary(op, Box::new(left), Box::new(right)));
        }
        self.p.depth -= chain;
        Ok(left)
    }

    /// The binary operator at the cursor.
    fn binary_operator(&self) -> Option<BinaryOp> {
        BinaryOp::at_start_of(&self.p.src[self.p.pos..])
    }

    fn unary(&mut self) -> Result<Expr, Error> {
        stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, || self.unary_inner())
    }

    fn unary_inner(&mut self) -> Result<Expr, Error> {
        self.skip_space();
        let start = self.p.pos;
        let Some(op) = self.p.peek().and_then(UnaryOp::of_byte) else {
            return self.primary();
        };
        self.p.pos += 1;
        self.p.descend(start)?;
        let operand = self.unary()?;
        self.p.depth -= 1;
        Ok(self.node(start, ExprKind::Unary(op, Box::new(operand))))
    }

    fn primary(&mut self) -> Result<Expr, Error> {
        self.p.poll()?;
        self.skip_space();
        let start = self.p.pos;
        let Some(b) = self.p.peek() else {
            return Err(self.syntax("missing operand", start, start));
        };
        match b {
            b'(' => {
                self.p.pos += 1;
                let inner = self.ternary()?;
                self.skip_space();
                if self.p.peek() != Some(b')') {
                    return Err(self.syntax("unbalanced open paren", start, start + 1));
                }
                self.p.pos += 1;
                Ok(inner)
            }
            b'$' => match self.p.variable()? {
                Some(part) => Ok(self.node(start, ExprKind::Operand(vec![part]))),
                None => Err(self.syntax("missing operand", start, start + 1)),
            },
            b'[' => {
                let part = self.p.bracket()?;
                Ok(self.node(start, ExprKind::Operand(vec![part])))
            }
            b'"' => {
                self.p.pos += 1;
                let parts = self.p.parts(Until::Quote)?;
                if self.p.peek() != Some(b'"') {
                    return Err(self.p.error("missing \"", start, start + 1));
                }
                self.p.pos += 1;
                Ok(self.node(start, ExprKind::Operand(parts)))
            }
            b'{' => {
                let (text, end) = self.p.braced_text()?;
                let part = Part::Text {
                    text,
                    span: self.p.span(start + 1, end),
                };
                Ok(self.node(start, ExprKind::Operand(vec![part])))
            }
            b'0'..=b'9' | b'.' => self.number(),
            b if b.is_ascii_alphabetic() || b == b'_' => self.word(),
            _ => Err(self.syntax("missing operand", start, start + 1)),
        }
    }

    /// A numeric literal; its text is kept as written and validated here.
    fn number(&mut self) -> Result<Expr, Error> {
        let start = self.p.pos;
        let src = self.p.src;
        let mut i = start;
        let radix_prefix = src[i] == b'0'
            && matches!(
                src.get(i + 1),
                Some(b'x' | b'X' | b'o' | b'O' | b'b' | b'B' | b'd' | b'D')
            );
        if radix_prefix {
            i += 2;
            while src.get(i).is_some_and(|b| b.is_ascii_alphanumeric()) {
                i += 1;
            }
        } else {
            while src.get(i).is_some_and(|b| b.is_ascii_digit()) {
                i += 1;
            }
            if src.get(i) == Some(&b'.') {
                i += 1;
                while src.get(i).is_some_and(|b| b.is_ascii_digit()) {
                    i += 1;
                }
            }
            if matches!(src.get(i), Some(b'e' | b'E')) {
                let mut j = i + 1;
                if matches!(src.get(j), Some(b'+' | b'-')) {
                    j += 1;
                }
                if src.get(j).is_some_and(|b| b.is_ascii_digit()) {
                    while src.get(j).is_some_and(|b| b.is_ascii_digit()) {
                        j += 1;
                    }
                    i = j;
                }
            }
        }
        let text = &self.p.text[start..i];
        let followed_by_word = src
            .get(i)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_');
        let read = number::read_number(text);
        if !followed_by_word && read == Err(NotANumber::TooLarge) {
            return Err(self.p.error(number::TOO_LARGE, start, i));
        }
        if followed_by_word || read.is_err() {
            let mut end = i;
            while src
                .get(end)
                .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
            {
                end += 1;
            }
            return Err(self.bareword(start, end));
        }
        self.p.pos = i;
        Ok(self.node(start, ExprKind::Number(text.to_string())))
    }

    fn bareword(&self, start: usize, end: usize) -> Error {
        let word = &self.p.text[start..end];
        let octal =
            word.len() > 1 && word.starts_with('0') && word.bytes().all(|b| b.is_ascii_digit());
        let hint = if octal {
            " (invalid octal number?)"
        } else {
            ""
        };
        self.p.error(
            &format!(
                "invalid bareword \"{word}\"\nin expression \"{}\";\nshould be \"${word}\" or \
                 \"{{{word}}}\" or \"{word}(...)\" or ...{hint}",
                self.p.text
            ),
            start,
            end,
        )
    }

    /// A function call, a boolean word, `Inf` or `NaN`.
    fn word(&mut self) -> Result<Expr, Error> {
        let start = self.p.pos;
        let src = self.p.src;
        let mut end = start;
        while src
            .get(end)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        {
            end += 1;
        }
        let name = &self.p.text[start..end];
        let mut after = end;
        while src.get(after).is_some_and(|&b| is_space(b) || b == b'\n') {
            after += 1;
        }
        if src.get(after) == Some(&b'(') {
            self.p.pos = after + 1;
            let args = self.call_arguments(after)?;
            return Ok(self.node(start, ExprKind::Call(name.to_string(), args)));
        }
        if number::parse_boolean(name).is_some() || number::parse_number(name).is_some() {
            self.p.pos = end;
            return Ok(self.node(start, ExprKind::Number(name.to_string())));
        }
        Err(self.bareword(start, end))
    }

    /// The comma-separated arguments of a call, the cursor just after `(`.
    fn call_arguments(&mut self, open: usize) -> Result<Vec<Expr>, Error> {
        let mut args = Vec::new();
        self.skip_space();
        if self.p.peek() == Some(b')') {
            self.p.pos += 1;
            return Ok(args);
        }
        loop {
            args.push(self.ternary()?);
            self.skip_space();
            match self.p.peek() {
                Some(b',') => self.p.pos += 1,
                Some(b')') => {
                    self.p.pos += 1;
                    return Ok(args);
                }
                _ => return Err(self.syntax("missing close parenthesis", open, open + 1)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::span::Span;

    fn shape(e: &Expr) -> String {
        match &e.kind {
            ExprKind::Number(n) => n.clone(),
            ExprKind::Operand(parts) => format!("op{}", parts.len()),
            ExprKind::Unary(op, x) => format!("({op:?} {})", shape(x)),
            ExprKind::Binary(op, a, b) => format!("({op:?} {} {})", shape(a), shape(b)),
            ExprKind::Ternary(a, b, c) => format!("(? {} {} {})", shape(a), shape(b), shape(c)),
            ExprKind::Call(f, args) => {
                format!(
                    "{f}({})",
                    args.iter().map(shape).collect::<Vec<_>>().join(",")
                )
            }
        }
    }

    fn parsed(text: &str) -> String {
        shape(&parse_expr(text, 0).unwrap())
    }

    #[test]
    fn precedence_follows_tcl_8_6() {
        assert_eq!(parsed("1+2*3"), "(Add 1 (Mul 2 3))");
        assert_eq!(parsed("-2**2"), "(Pow (Neg 2) 2)");
        assert_eq!(parsed("2**3**2"), "(Pow 2 (Pow 3 2))");
        assert_eq!(parsed("1-2-3"), "(Sub (Sub 1 2) 3)");
        assert_eq!(parsed("1<2 == 1"), "(Eq (Lt 1 2) 1)");
        assert_eq!(parsed("\"a\" eq {b}"), "(StrEq op1 op1)");
    }

    #[test]
    fn ternary_operands_and_calls() {
        assert_eq!(parsed("1 ? 2 : 3 ? 4 : 5"), "(? 1 2 (? 3 4 5))");
        assert_eq!(parsed("$x + [f] * \"q$y\""), "(Add op1 (Mul op1 op2))");
        assert_eq!(parsed("max(1, 2.5, {3})"), "max(1,2.5,op1)");
        assert_eq!(parsed("true || !0"), "(Or true (Not 0))");
        assert_eq!(
            parsed("1 in {1 2} && 0x1f ni $l"),
            "(And (In 1 op1) (Ni 0x1f op1))"
        );
    }

    #[test]
    fn spans_are_in_text_coordinates() {
        let e = parse_expr("$a + 10", 100).unwrap();
        assert_eq!(e.span, Span::new(100, 107));
        let ExprKind::Binary(_, a, b) = &e.kind else {
            panic!()
        };
        assert_eq!(a.span, Span::new(100, 102));
        assert_eq!(b.span, Span::new(105, 107));
    }

    #[test]
    fn errors_name_the_problem() {
        let e = parse_expr("1 +", 0).unwrap_err();
        assert_eq!(
            e.message,
            "missing operand at _@_\nin expression \"1 +_@_\""
        );
        let e = parse_expr("abc", 0).unwrap_err();
        assert!(e.message.starts_with("invalid bareword \"abc\""));
        assert!(parse_expr("08", 0).is_err());
        assert!(parse_expr("(1", 0).is_err());
        assert!(parse_expr("", 0).is_err());
    }

    #[test]
    fn deep_nesting_is_an_error_not_an_overflow() {
        let text = "(".repeat(100_000) + "1" + &")".repeat(100_000);
        assert!(parse_expr(&text, 0).is_err());
        let text = "-".repeat(100_000) + "1";
        assert!(parse_expr(&text, 0).is_err());
    }
}
