//! Expression trees for tests, written as text and read by the scene language's own `expr`
//! parser.

use crate::lang::ast::Expr;

/// The expression `text`; panics on a syntax error, which in a test is the test's own mistake.
pub(crate) fn parse(text: &str) -> Expr {
    crate::lang::parse_expr(text, 0).unwrap_or_else(|e| panic!("{text:?} does not parse: {e}"))
}
