//! The operators of `expr`: one table of how each is written and how tightly it binds.
//!
//! The parser reads operators from this table, the interpreter names them from it in its
//! errors, and the writers that turn trees back into text (`scene::expression`, the symbolic
//! layer's display) parenthesise by its precedence, so a change here changes all of them.
//!
//! Precedence follows Tcl 8.6, tightest first: unary `- + ~ !`; `**` (right-associative);
//! `* / %`; `+ -`; `<< >>`; `< > <= >=`; `== !=`; `eq ne`; `in ni`; `&`; `^`; `|`; `&&`; `||`;
//! then `?:` (right-associative), looser than every binary operator.

/// A binary operator of `expr`. The order is the order of [`BINARY`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Pow,
    Mul,
    Div,
    Mod,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
    StrEq,
    StrNe,
    In,
    Ni,
    BitAnd,
    BitXor,
    BitOr,
    And,
    Or,
}

/// A unary operator of `expr`. The order is the order of [`UNARY`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Neg,
    Plus,
    Not,
    BitNot,
}

/// Every binary operator with its spelling and precedence level (higher binds tighter), in
/// the order of [`BinaryOp`]'s variants.
pub const BINARY: [(BinaryOp, &str, u8); 23] = [
    (BinaryOp::Pow, "**", 12),
    (BinaryOp::Mul, "*", 11),
    (BinaryOp::Div, "/", 11),
    (BinaryOp::Mod, "%", 11),
    (BinaryOp::Add, "+", 10),
    (BinaryOp::Sub, "-", 10),
    (BinaryOp::Shl, "<<", 9),
    (BinaryOp::Shr, ">>", 9),
    (BinaryOp::Lt, "<", 8),
    (BinaryOp::Gt, ">", 8),
    (BinaryOp::Le, "<=", 8),
    (BinaryOp::Ge, ">=", 8),
    (BinaryOp::Eq, "==", 7),
    (BinaryOp::Ne, "!=", 7),
    (BinaryOp::StrEq, "eq", 6),
    (BinaryOp::StrNe, "ne", 6),
    (BinaryOp::In, "in", 5),
    (BinaryOp::Ni, "ni", 5),
    (BinaryOp::BitAnd, "&", 4),
    (BinaryOp::BitXor, "^", 3),
    (BinaryOp::BitOr, "|", 2),
    (BinaryOp::And, "&&", 1),
    (BinaryOp::Or, "||", 0),
];

/// Every unary operator with its spelling, in the order of [`UnaryOp`]'s variants.
pub const UNARY: [(UnaryOp, &str); 4] = [
    (UnaryOp::Neg, "-"),
    (UnaryOp::Plus, "+"),
    (UnaryOp::Not, "!"),
    (UnaryOp::BitNot, "~"),
];

/// The precedence level of the unary operators: tighter than every binary operator.
pub const UNARY_PRECEDENCE: u8 = 13;

impl BinaryOp {
    /// How the operator is written.
    pub const fn symbol(self) -> &'static str {
        BINARY[self as usize].1
    }

    /// How tightly it binds: 0 (`||`) to 12 (`**`); see the module documentation.
    pub const fn precedence(self) -> u8 {
        BINARY[self as usize].2
    }

    /// Whether `a op b op c` groups as `a op (b op c)`: only `**` does.
    pub const fn is_right_associative(self) -> bool {
        matches!(self, BinaryOp::Pow)
    }

    /// The operator spelled at the start of `text`, the longest that matches. A word
    /// operator (`eq`, `in`, …) must not run on into a name: `inner` is not `in`.
    pub fn at_start_of(text: &[u8]) -> Option<BinaryOp> {
        let word_char = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_';
        BINARY
            .iter()
            .filter(|(_, symbol, _)| text.starts_with(symbol.as_bytes()))
            .filter(|(_, symbol, _)| {
                !symbol.as_bytes()[0].is_ascii_alphabetic()
                    || !text.get(symbol.len()).is_some_and(word_char)
            })
            .max_by_key(|(_, symbol, _)| symbol.len())
            .map(|(op, _, _)| *op)
    }
}

impl UnaryOp {
    /// How the operator is written.
    pub const fn symbol(self) -> &'static str {
        UNARY[self as usize].1
    }

    /// The operator spelled by the byte `b`, if any.
    pub fn of_byte(b: u8) -> Option<UnaryOp> {
        UNARY
            .iter()
            .find(|(_, symbol)| symbol.as_bytes() == [b])
            .map(|(op, _)| *op)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tables_are_in_the_order_of_the_variants() {
        for (i, (op, _, _)) in BINARY.iter().enumerate() {
            assert_eq!(*op as usize, i, "{op:?}");
        }
        for (i, (op, _)) in UNARY.iter().enumerate() {
            assert_eq!(*op as usize, i, "{op:?}");
        }
        assert!(BINARY.iter().all(|(_, _, p)| *p < UNARY_PRECEDENCE));
    }

    #[test]
    fn the_longest_operator_is_read_and_words_stand_alone() {
        let read = |text: &str| BinaryOp::at_start_of(text.as_bytes());
        assert_eq!(read("** 2"), Some(BinaryOp::Pow));
        assert_eq!(read("*2"), Some(BinaryOp::Mul));
        assert_eq!(read("<=3"), Some(BinaryOp::Le));
        assert_eq!(read("<<3"), Some(BinaryOp::Shl));
        assert_eq!(read("&&x"), Some(BinaryOp::And));
        assert_eq!(read("in {a b}"), Some(BinaryOp::In));
        assert_eq!(read("eq\"x\""), Some(BinaryOp::StrEq));
        assert_eq!(read("inner"), None);
        assert_eq!(read("ne_x"), None);
        assert_eq!(read("!x"), None);
        assert_eq!(UnaryOp::of_byte(b'~'), Some(UnaryOp::BitNot));
        assert_eq!(UnaryOp::of_byte(b'*'), None);
    }
}
