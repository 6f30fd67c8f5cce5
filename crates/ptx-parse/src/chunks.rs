//! Where a module may be cut into groups of top-level items, so pest parses
//! one group (about one function) at a time.
//!
//! Why: pest keeps every token of a parse in one queue until the parse ends;
//! over a whole 54 MB module that queue alone took more than a gigabyte, and
//! walking it lost the caches. Parsing one function at a time bounds it by
//! the largest function, and each group is lowered and dropped before the
//! next is parsed.
//!
//! This is no parser: a light scan that knows comments, strings and braces
//! (as the grammar does) proposes a cut after each `}` that closes a block
//! opened at module level (a function body or a debug section) when the next
//! significant character is a `.` (the start of the next directive) or the
//! input ends. Each piece is then parsed with the grammar (`file` for the
//! first, which holds the header, `chunk` for the others). A cut is right
//! whenever every piece parses: a function or section ends at that `}`, and
//! no item can continue with a `.`. When a piece does not parse, lib.rs
//! parses the whole module in one go instead, which gives the same module or
//! the same diagnostic as without cuts.
//!
//! The same pass enforces the limits that keep pest's recursion and the
//! messages sane (nesting depth, token length), so the source is read once
//! before the grammar runs.

use crate::{MAX_NESTING, MAX_TOKEN_LEN};
use ptx_ir::{Diagnostic, Span};

/// What the scan found.
pub struct Prescan {
    /// The byte offsets at which the source may be cut, in increasing order
    /// (never 0 or the length of the source).
    pub cuts: Vec<usize>,
    /// The offset of every `{` opened at module level (a function body, a
    /// debug section, an initializer), in increasing order: the body scanner
    /// reads the body that opens at the last one of a group.
    pub block_opens: Vec<usize>,
}

/// One group of top-level items, between two cuts.
pub struct Group {
    /// The first group holds the header (`.version`, `.target`).
    pub first: bool,
    /// Where it lies in the source.
    pub range: std::ops::Range<usize>,
    /// Where the last block opened at module level within it starts (the
    /// body of its last function, if it ends with one).
    pub last_open: Option<usize>,
}

impl Prescan {
    /// The groups of a source of `len` bytes that this scan cut, in order.
    pub fn groups(&self, len: usize) -> impl Iterator<Item = Group> + '_ {
        let mut opens = self.block_opens.iter().copied().peekable();
        let ends = self.cuts.iter().copied().chain([len]);
        let starts = [0].into_iter().chain(self.cuts.iter().copied());
        starts.zip(ends).enumerate().map(move |(i, (start, end))| {
            let mut last_open = None;
            while let Some(open) = opens.next_if(|&open| open < end) {
                last_open = Some(open);
            }
            Group { first: i == 0, range: start..end, last_open }
        })
    }
}

/// One pass over the source before pest sees it: rejects input nested
/// deeper than [`MAX_NESTING`] (any of `{ ( [`) and names or numbers longer
/// than [`MAX_TOKEN_LEN`] (outside comments and strings), and finds where
/// the source may be cut and where module-level blocks open.
///
/// Only eight bytes mean anything here (`/ " { } ( ) [ ]`), so the scan
/// jumps from one to the next eight bytes at a time ([`next_special`]);
/// names and numbers are measured only in a stretch between two of them
/// long enough to hold one that is too long.
pub fn prescan(source: &str) -> Result<Prescan, Vec<Diagnostic>> {
    let b = source.as_bytes();
    let mut marks = Marks::default();
    let mut i = 0;
    while i < b.len() {
        let next = next_special(b, i);
        if next - i > MAX_TOKEN_LEN {
            check_token_lengths(b, i, next)?;
        }
        if next == b.len() {
            break;
        }
        match marks.act_on(b, next)? {
            Some(last) => i = last + 1,
            None => break,
        }
    }
    Ok(Prescan { cuts: marks.cuts, block_opens: marks.block_opens })
}

/// What the scan has found so far, and the brackets open.
#[derive(Default)]
struct Marks {
    cuts: Vec<usize>,
    block_opens: Vec<usize>,
    /// Every bracket, for the nesting limit.
    depth: usize,
    /// Braces alone, for the cuts.
    braces: usize,
}

impl Marks {
    /// Acts on the byte at `i`, one of `/ " { } ( ) [ ]`: the offset of the
    /// last byte it covers (the end of a comment or string), after which the
    /// scan goes on; None when the rest of the source is a comment that is
    /// never closed (nothing after it counts: the grammar rejects it).
    fn act_on(&mut self, b: &[u8], mut i: usize) -> Result<Option<usize>, Vec<Diagnostic>> {
        let c = b[i];
        match CLASS[c as usize] {
            SLASH if b.get(i + 1) == Some(&b'/') => i = skip_line(b, i),
            SLASH if b.get(i + 1) == Some(&b'*') => match block_comment_end(b, i) {
                Some(end) => i = end - 1,
                None => return Ok(None),
            },
            QUOTE => {
                i += 1;
                while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            OPEN => {
                self.depth += 1;
                if self.depth > MAX_NESTING {
                    let message = format!("nesting is deeper than {MAX_NESTING} levels");
                    return Err(vec![Diagnostic::new(Span::new(i, i + 1), message)]);
                }
                if c == b'{' {
                    if self.braces == 0 {
                        self.block_opens.push(i);
                    }
                    self.braces += 1;
                }
            }
            CLOSE => {
                self.depth = self.depth.saturating_sub(1);
                if c == b'}' {
                    if self.braces == 1 {
                        let next = skip_trivia(b, i + 1);
                        if next < b.len() && b[next] == b'.' {
                            self.cuts.push(i + 1);
                        }
                    }
                    self.braces = self.braces.saturating_sub(1);
                }
            }
            _ => {}
        }
        Ok(Some(i))
    }
}

/// The offset of the first of `/ " { } ( ) [ ]` at or after `i`, or the
/// length of `b`.
fn next_special(b: &[u8], mut i: usize) -> usize {
    const ONES: u64 = u64::from_le_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);
    // The high bit of every zero byte of `x` (and maybe of bytes above the
    // first zero, where the subtraction borrows: the lowest bit set is exact).
    let zero_bytes = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    let each = |c: u8| u64::from_le_bytes([c; 8]);
    while let Some(word) = b.get(i..i + 8) {
        let w = u64::from_le_bytes(word.try_into().expect("eight bytes"));
        // `(` `)` differ in bit 0, `[` `{` and `]` `}` in bit 5.
        let found = zero_bytes((w | each(0x01)) ^ each(b')'))
            | zero_bytes((w | each(0x20)) ^ each(b'{'))
            | zero_bytes((w | each(0x20)) ^ each(b'}'))
            | zero_bytes(w ^ each(b'"'))
            | zero_bytes(w ^ each(b'/'));
        if found != 0 {
            return i + (found.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < b.len() && CLASS[b[i] as usize] <= TOKEN {
        i += 1;
    }
    i
}

/// Rejects a name or number longer than [`MAX_TOKEN_LEN`] in `b[from..to]`,
/// a stretch without comments or strings.
fn check_token_lengths(b: &[u8], from: usize, to: usize) -> Result<(), Vec<Diagnostic>> {
    let mut i = from;
    while i < to {
        if CLASS[b[i] as usize] != TOKEN {
            i += 1;
            continue;
        }
        let start = i;
        while i < to && CLASS[b[i] as usize] == TOKEN {
            i += 1;
        }
        if i - start > MAX_TOKEN_LEN {
            return Err(token_too_long(b, start));
        }
    }
    Ok(())
}

/// The error of a name or number starting at `start` that is too long.
fn token_too_long(b: &[u8], start: usize) -> Vec<Diagnostic> {
    let what = if b[start].is_ascii_digit() { "number" } else { "name" };
    let message = format!("{what} is longer than {MAX_TOKEN_LEN} characters");
    vec![Diagnostic::new(Span::new(start, start + 1), message)]
}

const PLAIN: u8 = 0;
/// A byte of a name or number: `[A-Za-z0-9_$%]`.
const TOKEN: u8 = 1;
const SLASH: u8 = 2;
const QUOTE: u8 = 3;
const OPEN: u8 = 4;
const CLOSE: u8 = 5;

/// The class of every byte, so the scan tests each byte once.
static CLASS: [u8; 256] = {
    let mut t = [PLAIN; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = if b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b == b'%' {
            TOKEN
        } else {
            match b {
                b'/' => SLASH,
                b'"' => QUOTE,
                b'{' | b'(' | b'[' => OPEN,
                b'}' | b')' | b']' => CLOSE,
                _ => PLAIN,
            }
        };
        c += 1;
    }
    t
};

/// The end of the line comment at `i` (the offset of its newline, or the end).
fn skip_line(b: &[u8], i: usize) -> usize {
    match b[i..].iter().position(|&c| c == b'\n') {
        Some(n) => i + n,
        None => b.len(),
    }
}

/// The offset after the `*/` of the block comment at `i`, if it is closed.
fn block_comment_end(b: &[u8], i: usize) -> Option<usize> {
    let body = b.get(i + 2..)?;
    let mut from = 0;
    // `*/` ends the comment: look for each `*` with memchr.
    while let Some(n) = body[from..].iter().position(|&c| c == b'*') {
        let star = from + n;
        if body.get(star + 1) == Some(&b'/') {
            return Some(i + 2 + star + 2);
        }
        from = star + 1;
    }
    None
}

/// The first offset from `i` that is not whitespace (the grammar's: space,
/// tab, CR, LF) or a complete comment; stops at the `/*` of a comment that is
/// never closed.
///
/// The body scanner asks this between every two tokens, and nearly always
/// the answer is `i` or a space or newline further: that much is inlined,
/// comments are not.
#[inline]
pub(crate) fn skip_trivia(b: &[u8], mut i: usize) -> usize {
    while let Some(&c) = b.get(i) {
        match c {
            b' ' | b'\t' | b'\r' | b'\n' => i += 1,
            b'/' => return skip_trivia_with_comments(b, i),
            _ => return i,
        }
    }
    i
}

#[cold]
#[inline(never)]
fn skip_trivia_with_comments(b: &[u8], mut i: usize) -> usize {
    loop {
        while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\r' | b'\n') {
            i += 1;
        }
        if b[i..].starts_with(b"//") {
            i = skip_line(b, i);
        } else if b[i..].starts_with(b"/*") {
            match block_comment_end(b, i) {
                Some(end) => i = end,
                None => return i,
            }
        } else {
            return i;
        }
    }
}

/// Where the head of the last function of `text` starts: the first of the
/// linkage words (`.visible`, `.extern`, `.weak`, `.common`) written right
/// before its last `.entry` or `.func` (outside comments and strings), or
/// that word itself. None when there is none. Only whitespace may separate
/// the words; with a comment between them the answer is the word after it,
/// where the items before do not parse (lib.rs then parses the group whole).
pub(crate) fn last_function_head(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let mut last = None;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => i = skip_line(b, i),
            b'/' if b.get(i + 1) == Some(&b'*') => i = block_comment_end(b, i)?,
            b'"' => i = string_end(b, i)?,
            b'.' => {
                let word = &b[i + 1..];
                let len = word.iter().take_while(|c| c.is_ascii_alphanumeric() || **c == b'_').count();
                if matches!(&word[..len], b"entry" | b"func") && (i == 0 || !is_word_byte(b[i - 1])) {
                    last = Some(i);
                }
                i += 1 + len;
            }
            _ => i += 1,
        }
    }
    let mut start = last?;
    loop {
        let before = text[..start].trim_end_matches([' ', '\t', '\r', '\n']);
        let linkage = [".visible", ".extern", ".weak", ".common"].into_iter().find(|w| before.ends_with(w));
        match linkage {
            Some(word) if before.len() == word.len() || !is_word_byte(b[before.len() - word.len() - 1]) => {
                start = before.len() - word.len();
            }
            _ => return Some(start),
        }
    }
}

fn is_word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c == b'%'
}

/// The offset after the closing quote of the string that opens at `i`, if
/// it is closed on its line (a backslash escapes the next byte), as the
/// grammar reads strings.
fn string_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'"' => return Some(j + 1),
            b'\n' => return None,
            _ => j += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    /// Where `last_function_head` says the head starts, as the text from there.
    fn head(text: &str) -> Option<&str> {
        super::last_function_head(text).map(|at| &text[at..])
    }

    #[test]
    fn the_last_head_starts_at_its_first_linkage_word() {
        let items = ".extern .func (.param .b32 r) f(.param .b32 a);\n.global .u32 g;\n";
        let text = format!("{items}.visible .weak\n\t.entry k(.param .u64 p)\n.maxntid 32\n");
        assert_eq!(head(&text), Some(".visible .weak\n\t.entry k(.param .u64 p)\n.maxntid 32\n"));
        assert_eq!(head(".func g()"), Some(".func g()"));
        assert_eq!(head(".global .u32 g;"), None);
    }

    #[test]
    fn keywords_in_comments_and_strings_are_not_heads() {
        let text = ".entry k() // .func\n/* .func x() */ .pragma \".func\";\n";
        assert_eq!(head(text), Some(text));
        assert_eq!(head(".entry_point .functional .func_x"), None);
    }

    /// With a comment between the linkage and `.entry`, the answer is the
    /// word after the comment: the items before then end in `.visible` and
    /// do not parse, and lib.rs parses the group whole.
    #[test]
    fn a_comment_between_the_words_stops_the_walk_back() {
        assert_eq!(head(".visible /* here */ .entry k()"), Some(".entry k()"));
        assert_eq!(head(";.visible .entry k()"), Some(".visible .entry k()"));
        assert_eq!(head("x.visible .entry k()"), Some(".entry k()"));
    }

    fn cut_points(source: &str) -> Vec<usize> {
        super::prescan(source).expect("within the limits").cuts
    }

    /// The scan as it was written first, a byte at a time, measuring every
    /// name as it passes: the oracle of the jump to the next byte that
    /// matters and of measuring names only in long stretches.
    fn bytewise_prescan(source: &str) -> Result<(Vec<usize>, Vec<usize>), Vec<super::Diagnostic>> {
        use super::*;
        let b = source.as_bytes();
        let mut marks = Marks::default();
        let mut i = 0;
        while i < b.len() {
            match CLASS[b[i] as usize] {
                PLAIN => {}
                TOKEN => {
                    let start = i;
                    while i + 1 < b.len() && CLASS[b[i + 1] as usize] == TOKEN {
                        i += 1;
                    }
                    if i + 1 - start > MAX_TOKEN_LEN {
                        return Err(token_too_long(b, start));
                    }
                }
                _ => match marks.act_on(b, i)? {
                    Some(last) => i = last,
                    None => break,
                },
            }
            i += 1;
        }
        Ok((marks.cuts, marks.block_opens))
    }

    fn same_as_bytewise(source: &str) {
        let fast = super::prescan(source).map(|p| (p.cuts, p.block_opens));
        assert_eq!(fast, bytewise_prescan(source), "{:?}", &source[..source.len().min(80)]);
    }

    /// Every byte that means something to the scan, around words of up to
    /// eight bytes, at every alignment; and names at the length limit.
    #[test]
    fn the_word_at_a_time_scan_finds_what_the_bytewise_scan_finds() {
        let alphabet: &[&str] = &[
            "a", "7", "_", "$", "%", "/", "*", "\"", "\\", "\n", " ", "\t", "{", "}", "(", ")", "[", "]", ".", ";",
            ",", ":", "@", "é", "\u{7f}", "//", "/*", "*/",
        ];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        for _ in 0..20_000 {
            let len = next(60);
            let text: String = (0..len).map(|_| alphabet[next(alphabet.len())]).collect();
            same_as_bytewise(&text);
        }
        let limit = crate::MAX_TOKEN_LEN;
        for lead in ["", " ", "{ ", "/* } */ ", ".entry k() { ", "\"a b\" "] {
            for (len, ch) in [(limit, "x"), (limit + 1, "x"), (limit + 1, "9"), (limit + 9, "$")] {
                for trail in ["", " ", "}", "/"] {
                    same_as_bytewise(&format!("{lead}{}{trail}", ch.repeat(len)));
                }
            }
        }
        // A long stretch of short names, and a long name inside a comment or a string.
        same_as_bytewise(&"ab cd;\n".repeat(limit / 4));
        same_as_bytewise(&format!("/* {} */ {{ }}\n.x", "x".repeat(limit + 5)));
        same_as_bytewise(&format!("\"{}\" {{ }}\n.x", "x".repeat(limit + 5)));
        same_as_bytewise(&"(".repeat(crate::MAX_NESTING + 1));
        assert!(super::prescan(&"x".repeat(limit + 1)).is_err());
    }

    #[test]
    fn trivia_ends_at_the_first_byte_of_a_token_or_an_unclosed_comment() {
        let cases: [(&str, usize); 9] = [
            ("x", 0),
            (" \t\r\nx", 4),
            ("", 0),
            ("   ", 3),
            ("/x", 0),
            (" // c } .\n\tx", 11),
            ("\n/* a */ /* b\n */y", 17),
            (" /* open", 1),
            ("// last line", 12),
        ];
        for (text, end) in cases {
            assert_eq!(super::skip_trivia(text.as_bytes(), 0), end, "{text:?}");
        }
        assert_eq!(super::skip_trivia(b"ab  c", 2), 4);
    }

    #[test]
    fn cuts_after_module_level_blocks_followed_by_a_directive() {
        let src = ".version 8.0\n.target sm_80\n.entry a()\n{\n\t{ ret; }\n}\n// c }\n.entry b()\n{\n\tret;\n}\n";
        let first = src.find("}\n// c").unwrap() + 1;
        assert_eq!(cut_points(src), [first]);
    }

    #[test]
    fn no_cut_inside_initializers_strings_or_comments() {
        let src = ".global .u32 a[2] = {1, 2};\n.global .u32 b = 1; /* } . */\n.pragma \"}\";\n.entry k()\n{\nret;\n}";
        assert!(cut_points(src).is_empty());
        assert!(cut_points(".entry k() { ret; } /* unterminated . }").is_empty());
    }
}
