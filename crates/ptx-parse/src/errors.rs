//! Turning pest's "expected one of these rules" into messages a person
//! understands ("expected ';' after instruction", "unterminated string"), by
//! looking at the text around the failure.
//!
//! pest reports the furthest position where a *rule* was tried, which is
//! often not where the mistake is: after `mov.u32 %r1, 1` with a missing `;`
//! it points at the `1`, because the `;` it wanted is a literal, not a rule.
//! So the position is first moved past tokens that are complete and valid,
//! and a light forward scan of the source (comments, strings, braces and
//! statement boundaries; no grammar) tells which statement was in progress
//! and which blocks are open.

use crate::Rule;
use pest::error::{Error, ErrorVariant, InputLocation};
use ptx_ir::{Diagnostic, Span};

/// Every directive of the PTX ISA; anything else starting with `.` at
/// statement level is an unknown directive.
const DIRECTIVES: &[&str] = &[
    ".address_size",
    ".alias",
    ".align",
    ".blocksareclusters",
    ".branchtargets",
    ".callprototype",
    ".calltargets",
    ".common",
    ".const",
    ".entry",
    ".explicitcluster",
    ".extern",
    ".file",
    ".func",
    ".global",
    ".loc",
    ".local",
    ".maxclusterrank",
    ".maxnctapersm",
    ".maxnreg",
    ".maxntid",
    ".minnctapersm",
    ".noreturn",
    ".param",
    ".pragma",
    ".reg",
    ".reqnctapercluster",
    ".reqntid",
    ".section",
    ".shared",
    ".sreg",
    ".target",
    ".tex",
    ".version",
    ".visible",
    ".weak",
];

/// Directives that end at the end of their line instead of at a `;`.
const LINE_DIRECTIVES: &[&str] = &[".version", ".target", ".address_size", ".file", ".loc"];

fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '%' | '.' | ':')
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
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

/// Skips whitespace and complete comments from `pos`. Stops at the `/*` of
/// a comment that is never closed, so the caller can point at it.
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
                None => return pos,
            }
        } else {
            return pos;
        }
    }
}

/// 1-based line of a byte offset, for messages that mention another place.
fn line_of(source: &str, offset: usize) -> usize {
    source.as_bytes()[..offset.min(source.len())].iter().filter(|&&b| b == b'\n').count() + 1
}

/// Length of the longest PTX numeric literal at the start of `text`
/// (`0f3F800000`, `0d...`, `0x1FU`, `0b101`, `1.5e-3`, `42U`), if any.
fn number_len(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let digits = |from: usize, ok: fn(&u8) -> bool| b[from.min(b.len())..].iter().take_while(|c| ok(c)).count();
    let with_suffix = |end: usize| if b.get(end) == Some(&b'U') { end + 1 } else { end };
    if !b.first()?.is_ascii_digit() {
        return None;
    }
    if b[0] == b'0' && b.len() > 1 {
        let hex = |c: &u8| c.is_ascii_hexdigit();
        match b[1] {
            b'f' | b'F' if digits(2, hex) >= 8 => return Some(10),
            b'd' | b'D' if digits(2, hex) >= 16 => return Some(18),
            b'x' | b'X' if digits(2, hex) > 0 => return Some(with_suffix(2 + digits(2, hex))),
            b'b' | b'B' if digits(2, |c| matches!(c, b'0' | b'1')) > 0 => {
                return Some(with_suffix(2 + digits(2, |c| matches!(c, b'0' | b'1'))))
            }
            _ => {}
        }
    }
    let int_end = digits(0, u8::is_ascii_digit);
    let mut end = int_end;
    if b.get(end) == Some(&b'.') {
        end += 1 + digits(end + 1, u8::is_ascii_digit);
    }
    if matches!(b.get(end), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(b.get(end + 1), Some(b'+' | b'-')));
        let exponent = digits(end + 1 + sign, u8::is_ascii_digit);
        if exponent > 0 {
            end += 1 + sign + exponent;
        }
    }
    Some(if end == int_end { with_suffix(end) } else { end })
}

/// An open bracket, as far as the scan can tell what it opened.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Open {
    /// `{`: a function body or a nested scope.
    Block,
    /// `{` of a debug `.section`: its entries end at the end of the line.
    Section,
    /// `{`: a vector operand or an initializer list.
    Value,
    /// `(`: a parameter or argument list.
    Paren,
    /// `[`: an address or array dimension.
    Bracket,
}

impl Open {
    fn is_block(self) -> bool {
        matches!(self, Open::Block | Open::Section)
    }

    fn closer(self) -> char {
        match self {
            Open::Paren => ')',
            Open::Bracket => ']',
            _ => '}',
        }
    }
}

/// What a forward scan of the source up to a position learned.
#[derive(Default)]
struct Scan {
    /// Open brackets of every kind, innermost last.
    open: Vec<(usize, Open)>,
    /// Offset of the first character of the statement in progress.
    statement: Option<usize>,
    /// For each line break inside the statement in progress, outside any
    /// bracket: the offset of the last significant character before it.
    breaks: Vec<usize>,
    /// The last significant character before the position.
    last: Option<usize>,
}

impl Scan {
    fn innermost(&self) -> Option<Open> {
        self.open.last().map(|&(_, kind)| kind)
    }

    fn in_section(&self) -> bool {
        self.innermost() == Some(Open::Section)
    }

    fn open_blocks(&self) -> impl Iterator<Item = usize> + '_ {
        self.open.iter().filter(|(_, kind)| kind.is_block()).map(|&(at, _)| at)
    }
}

/// Scans `source[..limit]`, skipping comments and strings, tracking
/// brackets and where the statement in progress starts. A statement ends at
/// `;`, at a block's `{` or `}`, at a label's `:`, and at the end of the
/// line for `.loc`-style directives and section entries.
fn scan(source: &str, limit: usize) -> Scan {
    let b = source.as_bytes();
    let limit = limit.min(b.len());
    let mut s = Scan::default();
    let mut i = 0;
    while i < limit {
        let c = b[i];
        if c == b'\n' {
            if let Some(start) = s.statement {
                let continued = s.last.is_some_and(|l| b[l] == b',');
                if (LINE_DIRECTIVES.contains(&token_at(source, start)) || s.in_section()) && !continued {
                    s.statement = None;
                } else if let (Some(last), None | Some(Open::Block)) = (s.last, s.innermost()) {
                    s.breaks.push(last);
                }
            }
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if b[i..].starts_with(b"//") {
            while i < limit && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if b[i..].starts_with(b"/*") {
            i = source[i + 2..].find("*/").map_or(b.len(), |end| i + end + 4);
            continue;
        }
        let starts_statement = s.statement.is_none();
        if starts_statement {
            s.statement = Some(i);
            s.breaks.clear();
        }
        match c {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                s.last = Some(i.min(b.len()) - 1);
                if b.get(i) == Some(&b'"') {
                    s.last = Some(i);
                    i += 1;
                }
                continue;
            }
            b';' => s.statement = None,
            b'{' => {
                let first = s.statement.filter(|_| !starts_statement).map(|start| token_at(source, start));
                let after_value = s.last.is_some_and(|l| matches!(b[l], b'=' | b',' | b'{'));
                let kind = match first {
                    None => Open::Block,
                    Some(".section") => Open::Section,
                    Some(word) if word.starts_with('.') && !after_value && s.innermost() != Some(Open::Paren) => {
                        Open::Block
                    }
                    Some(_) => Open::Value,
                };
                s.open.push((i, kind));
                if kind.is_block() {
                    s.statement = None;
                }
            }
            b'(' => s.open.push((i, Open::Paren)),
            b'[' => s.open.push((i, Open::Bracket)),
            b')' | b']' | b'}' => {
                let closed = s.open.pop().map(|(_, kind)| kind);
                if c == b'}' && !matches!(closed, Some(Open::Value)) {
                    s.statement = None;
                }
            }
            // A label's colon (not the `::` of `.shared::cta`, nor the `:4` of `.sp::2:4`).
            b':' if is_label_colon(b, i) => s.statement = None,
            _ => {}
        }
        s.last = Some(i);
        i += source[i..].chars().next().map_or(1, char::len_utf8);
    }
    s
}

/// True if the colon at `b[i]` ends a label: not one of the `::` of
/// `.shared::cta`, nor the `:4` of `.sp::2:4` (no statement starts with a
/// digit).
fn is_label_colon(b: &[u8], i: usize) -> bool {
    b.get(i + 1) != Some(&b':') && (i == 0 || b[i - 1] != b':') && !b.get(i + 1).is_some_and(u8::is_ascii_digit)
}

/// Where the statement in progress at `pos` ends: its `;`, a `}` it did
/// not open, a label's `:`, or the end of the input.
fn statement_end(source: &str, pos: usize) -> usize {
    let b = source.as_bytes();
    let mut depth = 0usize;
    let mut i = pos;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = source[i + 2..].find("*/").map_or(b.len(), |end| i + end + 4);
                continue;
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                    i += 1;
                }
            }
            b';' => return i,
            b'{' => depth += 1,
            b'}' if depth == 0 => return i,
            b'}' => depth -= 1,
            b':' if is_label_colon(b, i) => return i,
            _ => {}
        }
        i += 1;
    }
    b.len()
}

/// Variable declarations: with instructions, the statements that a
/// forgotten `;` can run into the next line.
const DECLARATIONS: &[&str] = &[".global", ".const", ".shared", ".local", ".reg", ".param", ".tex"];

/// If the instruction or declaration in progress at `failure` runs over a
/// line break where a `;` was probably forgotten (the line does not end
/// with `,` or an operator, no bracket is open, and the next line does not
/// continue the statement): what was being written and the offset just
/// after that line. pest's position can lie before the real mistake, so the
/// whole statement is examined, up to where it would end.
fn forgotten_semicolon(source: &str, at_failure: &Scan, failure: usize) -> Option<(&'static str, usize)> {
    let start = at_failure.statement?;
    let b = source.as_bytes();
    let what = if b[start] != b'.' {
        "instruction"
    } else if DECLARATIONS.contains(&token_at(source, start)) {
        "declaration"
    } else {
        return None;
    };
    let whole = scan(source, statement_end(source, failure));
    if whole.statement != Some(start) {
        return None;
    }
    whole
        .breaks
        .iter()
        .copied()
        .find(|&line_end| {
            let next = skip_trivia(source, line_end + 1);
            !matches!(b[line_end], b',' | b'(' | b'[' | b'{' | b'|' | b'+' | b'-' | b'!' | b'@' | b'=')
                && !matches!(b.get(next), Some(b')' | b']' | b',' | b'|' | b'+' | b'-'))
        })
        .map(|line_end| (what, line_end + 1))
}

/// The message for input that ends too early.
fn at_end_of_input(source: &str, positives: &[Rule]) -> Diagnostic {
    let end = Span::new(source.len(), source.len());
    let scan = scan(source, source.len());
    if let Some(start) = scan.statement {
        let word = token_at(source, start);
        // Line-terminated directives are complete at the end of the input.
        if !(LINE_DIRECTIVES.contains(&word) || scan.in_section()) {
            let what = if word.starts_with('.') { "a directive" } else { "an instruction" };
            return Diagnostic::new(end, format!("unexpected end of input in the middle of {what}"));
        }
    }
    if let Some(open) = scan.open_blocks().last() {
        let line = line_of(source, open);
        return Diagnostic::new(
            end,
            format!("unexpected end of input: expected '}}' to close the block opened on line {line}"),
        );
    }
    let message = if positives.contains(&Rule::version) {
        "expected '.version' directive"
    } else if positives.contains(&Rule::target) {
        "expected '.target' directive"
    } else {
        "unexpected end of input"
    };
    Diagnostic::new(end, message)
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
    match find_mistake(source, skip_trivia(source, raw_pos.min(source.len())), positives) {
        Ok(pos) if pos >= source.len() => at_end_of_input(source, positives),
        Ok(pos) => explain(source, pos),
        Err(diagnostic) => diagnostic,
    }
}

/// Moves from where pest failed past tokens that are complete and valid
/// (a number, a register family, a closing bracket) to the mistake; or
/// diagnoses a token that is itself the mistake.
fn find_mistake(source: &str, mut pos: usize, positives: &[Rule]) -> Result<usize, Diagnostic> {
    let token_span = |pos: usize| Span::new(pos, pos + token_at(source, pos).len());
    if source[pos..].starts_with("/*") {
        return Err(Diagnostic::new(Span::new(pos, pos + 2), "unterminated comment: '/*' without a closing '*/'"));
    }
    if source[pos..].starts_with('"') && !source[pos + 1..].split('\n').next().unwrap_or("").contains('"') {
        return Err(Diagnostic::new(Span::new(pos, pos + 1), "unterminated string: no closing '\"' on this line"));
    }
    if pos >= source.len() {
        return Ok(pos);
    }
    if positives.contains(&Rule::version) {
        return Err(Diagnostic::new(token_span(pos), "expected '.version' directive at the start of the module"));
    }
    if positives.contains(&Rule::version_num) {
        let token = token_at(source, pos);
        let message = format!("expected a version 'MAJOR.MINOR' after '.version', found '{token}'");
        return Err(Diagnostic::new(token_span(pos), message));
    }
    if positives.contains(&Rule::target) {
        return Err(Diagnostic::new(token_span(pos), "expected '.target' directive after '.version'"));
    }
    if let Some(len) = number_len(&source[pos..]) {
        if source.as_bytes().get(pos + len).copied().is_some_and(is_ident_byte) {
            let bad = source[pos..].bytes().take_while(|&b| is_ident_byte(b) || b == b'.').count();
            let message = format!("malformed number '{}'", &source[pos..pos + bad]);
            return Err(Diagnostic::new(Span::new(pos, pos + bad), message));
        }
        // pest tried the float forms or the sign of a number here before the
        // integer form matched: the number is fine, the problem follows it.
        if positives.iter().any(|r| matches!(r, Rule::float_hex | Rule::float_dec | Rule::neg)) {
            pos = skip_trivia(source, pos + len);
        }
    }
    // A register family `%r<8>` is complete; the mistake follows it.
    let family = source[pos..].strip_prefix('<').map(|rest| rest.bytes().take_while(u8::is_ascii_digit).count());
    if let Some(digits) = family.or_else(|| source[pos..].starts_with('>').then_some(0)) {
        if digits == 0 || source.as_bytes().get(pos + 1 + digits) != Some(&b'>') {
            let span = Span::new(pos, pos + 1 + digits);
            return Err(Diagnostic::new(span, "malformed register count: expected '<N>', as in '%r<8>'"));
        }
        pos = skip_trivia(source, pos + digits + 2);
    }
    // After a complete name pest last tried its optional `.x` component or
    // `+offset`, and in an instruction a bracket closing after a complete
    // operand is fine: the mistake follows it.
    let after_name =
        !positives.is_empty() && positives.iter().all(|r| matches!(r, Rule::component | Rule::addr_offset));
    loop {
        let scan = scan(source, pos);
        let Some(kind) = scan.innermost().filter(|kind| !kind.is_block()) else { return Ok(pos) };
        let in_instruction = scan.statement.is_some_and(|s| source.as_bytes()[s] != b'.');
        let after_operand = scan.last.is_some_and(|l| !b",[{(+-".contains(&source.as_bytes()[l]));
        if !(after_name || in_instruction && after_operand) || !source[pos..].starts_with(kind.closer()) {
            return Ok(pos);
        }
        pos = skip_trivia(source, pos + 1);
    }
}

/// The message for a mistake at `pos`, from the token there and the
/// statement around it.
fn explain(source: &str, pos: usize) -> Diagnostic {
    let scan = scan(source, pos);
    if let Some((what, at)) = forgotten_semicolon(source, &scan, pos) {
        return Diagnostic::new(Span::new(at, at), format!("expected ';' after {what}"));
    }
    let token = token_at(source, pos);
    let span = Span::new(pos, pos + token.len());
    let first = token.chars().next().unwrap_or(' ');
    let glued = pos > 0 && is_ident_byte(source.as_bytes()[pos - 1]);
    let last = scan.last.map(|l| source.as_bytes()[l]);
    let inside = scan.innermost().filter(|kind| !kind.is_block());
    // In a declaration, the word before the failure: `.b32` in `.reg .b32 <`.
    let in_declaration = scan.statement.is_some_and(|s| source.as_bytes()[s] == b'.');
    let previous_word = scan.last.filter(|_| in_declaration).map(|l| {
        let start = source[..=l].rfind(|c: char| !is_token_char(c)).map_or(0, |i| i + 1);
        &source[start..=l]
    });
    let message = if !(is_token_char(first) || "[]{}(),;@!|+-<>=\"_".contains(first)) {
        format!("unexpected character '{}'", first.escape_default())
    } else if matches!(token, "." | "%" | "$") {
        format!("expected a name after '{token}'")
    } else if matches!(last, Some(b'+' | b'-')) && scan.statement.is_some() {
        format!("expected a number after '{}', found '{token}'", char::from(last.unwrap_or(b'+')))
    } else if let Some(word) = previous_word.filter(|w| w.starts_with('.') && !is_token_char(first)) {
        format!("expected a name after '{word}', found '{token}'")
    } else if let Some(kind) = inside {
        if matches!(last, Some(b',' | b'[' | b'{' | b'(')) {
            format!("expected an operand, found '{token}'")
        } else if kind == Open::Bracket {
            format!("expected ']' before '{token}'")
        } else {
            format!("expected ',' or '{}' before '{token}'", kind.closer())
        }
    } else if first == '.' && !glued && token[1..].starts_with(|c: char| c.is_ascii_alphabetic()) {
        let word = token.split("::").next().unwrap_or(token);
        let word = word.split('.').nth(1).map(|w| format!(".{w}")).unwrap_or_default();
        if DIRECTIVES.contains(&word.as_str()) {
            format!("directive '{word}' is not allowed here")
        } else {
            format!("unknown directive '{word}'")
        }
    } else if scan.statement.is_none() {
        if first == '}' && scan.open_blocks().next().is_none() {
            "unexpected '}': no block is open here".to_string()
        } else if scan.open.is_empty() {
            format!("expected a variable, function or directive at module level, found '{token}'")
        } else if scan.in_section() {
            format!("expected a label or '.b8'-style data in a section, found '{token}'")
        } else {
            format!("expected a declaration, directive or instruction, found '{token}'")
        }
    } else if last == Some(b',') {
        format!("expected an operand, found '{token}'")
    } else {
        format!("expected ',' or ';' before '{token}'")
    };
    Diagnostic::new(span, message)
}

#[cfg(test)]
mod tests {
    use super::number_len;

    #[test]
    fn number_lengths() {
        let cases: &[(&str, Option<usize>)] = &[
            ("0f3F800000;", Some(10)),
            ("0d4005BF0A8B145769,", Some(18)),
            ("0x1FU]", Some(5)),
            ("0x;", Some(1)),
            ("0b101", Some(5)),
            ("12abc", Some(2)),
            ("1.5e-3 ", Some(6)),
            ("2e", Some(1)),
            ("42U", Some(3)),
            ("x1", None),
        ];
        for &(text, expect) in cases {
            assert_eq!(number_len(text), expect, "{text}");
        }
    }

    /// A module touching most of the grammar, to be damaged below.
    const SAMPLE: &str = "// sample\n.version 8.0\n.target sm_80\n.address_size 64\n\
        .global .align 4 .b32 t[2] = {1, 2};\n\
        .func (.param .b32 r) f(.param .b32 a)\n{\n\t.reg .b32 %r<2>;\n\
        \tld.param.b32 %r1, [a+0];\n\tst.param.b32 [r], %r1;\n\tret;\n}\n\
        .visible .entry k()\n.maxntid 32, 1, 1\n{\n\t.reg .pred %p<2>;\n\t.reg .b64 %rd<2>;\n\
        \t/* block */ .loc 1 2 3\n$L:\n\t{\n\t.param .b32 x;\n\tcall.uni (x), f, (x);\n\t}\n\
        \tmov.b64 {%r1, %r2}, %rd1;\n\t@!%p1 bra $L;\n\tret;\n}\n\
        .file 1 \"a.cu\"\n.section .debug_str\n{\n$S:\n.b8 97,0\n}\n";

    /// Every prefix of the sample and the sample with any one character
    /// removed must give a module or located diagnostics, never a panic.
    #[test]
    fn damaged_input_gives_diagnostics_not_panics() {
        crate::parse(SAMPLE).expect("the undamaged sample parses");
        let boundaries: Vec<usize> = SAMPLE.char_indices().map(|(i, _)| i).collect();
        for &cut in &boundaries {
            for text in [SAMPLE[..cut].to_string(), format!("{}{}", &SAMPLE[..cut], &SAMPLE[cut + 1..])] {
                if let Err(diagnostics) = crate::parse(&text) {
                    assert!(!diagnostics.is_empty(), "no diagnostic for {text:?}");
                    for d in diagnostics {
                        let span = d.span.start as usize..d.span.end as usize;
                        assert!(span.start <= span.end && span.end <= text.len(), "span {span:?} in {text:?}");
                    }
                }
            }
        }
    }
}
