//! Tcl backslash sequences (`\n`, `\xHH`, `\uHHHH`, `\ooo`, backslash-newline, …).

/// Decodes the backslash sequence starting at `src[at]` (which is `\`). Returns the character
/// it stands for and the number of source bytes it occupies. A backslash-newline (with the
/// spaces and tabs after it) stands for a single space. A backslash at the very end stands for
/// itself.
pub fn decode(src: &str, at: usize) -> (char, usize) {
    let bytes = src.as_bytes();
    debug_assert_eq!(bytes[at], b'\\');
    let Some(next) = src[at + 1..].chars().next() else {
        return ('\\', 1);
    };
    let simple = |c: char| (c, 2);
    match next {
        'a' => simple('\u{7}'),
        'b' => simple('\u{8}'),
        'f' => simple('\u{c}'),
        'n' => simple('\n'),
        'r' => simple('\r'),
        't' => simple('\t'),
        'v' => simple('\u{b}'),
        '\n' => {
            let mut len = 2;
            while matches!(bytes.get(at + len), Some(b' ' | b'\t')) {
                len += 1;
            }
            (' ', len)
        }
        'x' => hex(src, at, 2, 2),
        'u' => hex(src, at, 2, 4),
        'U' => hex(src, at, 2, 8),
        '0'..='7' => {
            let mut value = 0u32;
            let mut len = 1;
            while len <= 3 {
                match bytes.get(at + len) {
                    Some(&d @ b'0'..=b'7') => value = value * 8 + u32::from(d - b'0'),
                    _ => break,
                }
                len += 1;
            }
            (char::from_u32(value & 0xff).unwrap_or('\u{fffd}'), len)
        }
        other => (other, 1 + other.len_utf8()),
    }
}

/// `\x`, `\u`, `\U`: up to `max` hex digits after the 2-byte prefix; none means the letter.
fn hex(src: &str, at: usize, prefix: usize, max: usize) -> (char, usize) {
    let bytes = src.as_bytes();
    let mut value = 0u32;
    let mut digits = 0;
    while digits < max {
        match bytes
            .get(at + prefix + digits)
            .and_then(|b| (*b as char).to_digit(16))
        {
            Some(d) => value = value * 16 + d,
            None => break,
        }
        digits += 1;
    }
    if digits == 0 {
        return (bytes[at + 1] as char, 2);
    }
    let c = char::from_u32(value).unwrap_or('\u{fffd}');
    (c, prefix + digits)
}

#[cfg(test)]
mod tests {
    use super::decode;

    #[test]
    fn decodes_the_tcl_escapes() {
        assert_eq!(decode(r"\n", 0), ('\n', 2));
        assert_eq!(decode(r"\x41z", 0), ('A', 4));
        assert_eq!(decode(r"\u00e9", 0), ('é', 6));
        assert_eq!(decode(r"\101", 0), ('A', 4));
        assert_eq!(decode(r"\xg", 0), ('x', 2));
        assert_eq!(decode("\\\n   x", 0), (' ', 5));
        assert_eq!(decode(r"\{", 0), ('{', 2));
        assert_eq!(decode("\\", 0), ('\\', 1));
        assert_eq!(decode(r"\U1F600", 0), ('😀', 7));
    }
}
