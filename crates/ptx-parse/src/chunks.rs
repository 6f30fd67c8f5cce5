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

/// Byte offsets at which the source may be cut, in increasing order (never
/// 0 or the length of the source).
pub fn cut_points(source: &str) -> Vec<usize> {
    let b = source.as_bytes();
    let mut cuts = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => i = skip_line(b, i),
            b'/' if b.get(i + 1) == Some(&b'*') => match block_comment_end(b, i) {
                Some(end) => i = end,
                // Unterminated: the grammar rejects it; the scan stops.
                None => break,
            },
            b'"' => i = string_end(b, i),
            b'{' => {
                depth += 1;
                i += 1;
            }
            b'}' => {
                i += 1;
                if depth == 1 {
                    let next = skip_trivia(b, i);
                    if next < b.len() && b[next] == b'.' {
                        cuts.push(i);
                    }
                }
                depth = depth.saturating_sub(1);
            }
            _ => i += 1,
        }
    }
    cuts
}

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
    body.windows(2).position(|w| w == b"*/").map(|n| i + 2 + n + 2)
}

/// The offset after the string starting at `i` (its closing quote, or the
/// line end or input end where an unterminated string stops).
fn string_end(b: &[u8], mut i: usize) -> usize {
    i += 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            b'\n' => return i,
            _ => i += 1,
        }
    }
    b.len()
}

/// The first offset from `i` that is not whitespace or a complete comment.
fn skip_trivia(b: &[u8], mut i: usize) -> usize {
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

#[cfg(test)]
mod tests {
    use super::cut_points;

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
