//! Turning pest's "expected one of these rules" into messages a person
//! understands, by looking at the text around the failure.

use crate::{Rule, MAX_NESTING};
use pest::error::{Error, ErrorVariant, InputLocation};
use ptx_ir::{Diagnostic, Span};

/// Every directive of the PTX ISA; anything else starting with `.` at
/// statement level is an unknown directive.
const DIRECTIVES: &[&str] = &[
    ".address_size", ".alias", ".align", ".blocksareclusters", ".branchtargets", ".callprototype",
    ".calltargets", ".common", ".const", ".entry", ".explicitcluster", ".extern", ".file", ".func", ".global",
    ".loc", ".local", ".maxclusterrank", ".maxnctapersm", ".maxnreg", ".maxntid", ".minnctapersm", ".noreturn",
    ".param", ".pragma", ".reg", ".reqnctapercluster", ".reqntid", ".section", ".shared", ".sreg", ".target",
    ".tex", ".version", ".visible", ".weak",
];

/// Rejects input nested deeper than [`MAX_NESTING`] before pest sees it.
pub fn check_nesting(source: &str) -> Result<(), Vec<Diagnostic>> {
    let bytes = source.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < bytes.len() && !(bytes[i] == b'*' && bytes[i + 1] == b'/') {
                    i += 1;
                }
                i += 1;
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'{' | b'(' | b'[' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(vec![Diagnostic::new(
                        Span::new(i, i + 1),
                        format!("nesting is deeper than {MAX_NESTING} levels"),
                    )]);
                }
            }
            b'}' | b')' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '%' | '.' | ':')
}

/// The word starting at `pos` (or the single character there).
fn token_at(source: &str, pos: usize) -> &str {
    let rest = &source[pos..];
    let end = rest.char_indices().find(|&(_, c)| !is_token_char(c)).map(|(i, _)| i).unwrap_or(rest.len());
    if end == 0 {
        let len = rest.chars().next().map(char::len_utf8).unwrap_or(0);
        &rest[..len]
    } else {
        &rest[..end]
    }
}

/// Skips whitespace and comments from `pos`.
fn skip_trivia(source: &str, mut pos: usize) -> usize {
    let b = source.as_bytes();
    loop {
        while pos < b.len() && b[pos].is_ascii_whitespace() {
            pos += 1;
        }
        if b[pos..].starts_with(b"//") {
            while pos < b.len() && b[pos] != b'\n' {
                pos += 1;
            }
        } else if b[pos..].starts_with(b"/*") {
            match source[pos + 2..].find("*/") {
                Some(end) => pos += end + 4,
                None => return b.len(),
            }
        } else {
            return pos;
        }
    }
}

/// The last significant character before `pos`, with its offset.
fn previous_significant(source: &str, pos: usize) -> Option<(usize, char)> {
    // Comments are rare between tokens inside a statement; whitespace is enough.
    source[..pos].char_indices().rev().find(|(_, c)| !c.is_whitespace())
}

fn unclosed_brace(source: &str) -> Option<usize> {
    let mut open = Vec::new();
    let b = source.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'{' => open.push(i),
            b'}' => {
                open.pop();
            }
            _ => {}
        }
        i += 1;
    }
    open.last().copied()
}

/// Converts a pest error into a diagnostic with a readable message.
pub fn describe(source: &str, error: &Error<Rule>) -> Diagnostic {
    let raw_pos = match error.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((s, _)) => s,
    };
    let positives: &[Rule] = match &error.variant {
        ErrorVariant::ParsingError { positives, .. } => positives,
        ErrorVariant::CustomError { .. } => &[],
    };
    let pos = skip_trivia(source, raw_pos.min(source.len()));
    if pos >= source.len() {
        let message = match unclosed_brace(source) {
            Some(_) => "unexpected end of input: a '{' block is not closed".to_string(),
            None if positives.contains(&Rule::target) => "expected '.target' directive".to_string(),
            None if positives.contains(&Rule::version) => "expected '.version' directive".to_string(),
            None => "unexpected end of input: the last statement is incomplete".to_string(),
        };
        return Diagnostic::new(Span::new(source.len(), source.len()), message);
    }
    let token = token_at(source, pos);
    let span = Span::new(pos, pos + token.len());
    let first = token.chars().next().unwrap_or(' ');
    let message = if positives.contains(&Rule::version) {
        "expected '.version' directive at the start of the module".to_string()
    } else if positives.contains(&Rule::target) {
        "expected '.target' directive after '.version'".to_string()
    } else if first == '.' && token.len() > 1 && token[1..].starts_with(|c: char| c.is_ascii_alphabetic()) {
        let word = token.split("::").next().unwrap_or(token);
        let word = word.split('.').nth(1).map(|w| format!(".{w}")).unwrap_or_default();
        if DIRECTIVES.contains(&word.as_str()) {
            format!("directive '{word}' is not allowed here")
        } else {
            format!("unknown directive '{word}'")
        }
    } else if first.is_ascii_digit() {
        format!("malformed number '{token}'")
    } else if !(is_token_char(first) || "[]{}(),;@!|+-<>=\"_".contains(first)) {
        format!("unexpected character '{}'", first.escape_default())
    } else {
        match previous_significant(source, pos) {
            Some((_, ';' | '{' | '}' | ':')) | None => {
                if first == '}' {
                    "unexpected '}': no block is open here".to_string()
                } else {
                    format!("expected a declaration, directive or instruction, found '{token}'")
                }
            }
            Some((prev, c)) => {
                let same_line = !source[prev..pos].contains('\n');
                if c == ',' || c == '[' || c == '{' || c == '(' {
                    format!("expected an operand, found '{token}'")
                } else if !same_line {
                    return Diagnostic::new(Span::new(prev + c.len_utf8(), prev + c.len_utf8()), "expected ';' after instruction");
                } else {
                    format!("expected ',' or ';' before '{token}'")
                }
            }
        }
    };
    Diagnostic::new(span, message)
}
