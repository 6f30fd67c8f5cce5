//! The ISA's syntax notation: template heads (`add{.sat}.s32`), named sets
//! (`.type = { .u16, ... }`) and operand lists (`d, [a]{, cache-policy}`),
//! read into trees that `resolve` turns into slots.

/// One element of a modifier sequence.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Elem {
    /// A word or a set's name (`.sat`, `.type`, `.level::cache_hint`,
    /// `.shared{::cta}`, `.async.shared::{cta, cluster}`).
    Word(WordElem),
    /// `.{1d, 2d, 3d}`: one of these.
    Alts(Vec<Vec<Elem>>),
    /// `{.sem.scope}`: all of these or none.
    Opt(Vec<Elem>),
    /// `{.hi, .lo}`: one of these or none.
    OptAlts(Vec<Vec<Elem>>),
}

/// A dotted word with its `::` suffixes.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct WordElem {
    /// The word without its dot, `::` parts included (`level::cache_hint`).
    pub base: String,
    /// `::{cta, cluster}` or `{::cta, ::cluster}` after it.
    pub suffix: Suffix,
}

/// What follows a word.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Suffix {
    None,
    /// Suffixes (each starting with `::`), one of which is appended;
    /// `optional` for `{::cta}` (the word alone is fine too).
    Alts {
        alts: Vec<String>,
        optional: bool,
    },
}

/// A parse error with the offending text.
pub(crate) type SyntaxResult<T> = Result<T, String>;

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The text inside the brace that opens at `s[0]`, and the rest after it.
pub(crate) fn braced(s: &str, open: char, close: char) -> SyntaxResult<(&str, &str)> {
    debug_assert!(s.starts_with(open));
    let mut depth = 0;
    for (i, c) in s.char_indices() {
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth == 0 {
                return Ok((&s[1..i], &s[i + 1..]));
            }
        }
    }
    Err(format!("unbalanced '{open}' in '{s}'"))
}

/// Splits at commas outside braces, brackets and parentheses.
pub(crate) fn split_top(s: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '{' | '[' | '(' => depth += 1,
            '}' | ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts
}

/// Reads a word (letters, digits, `_`, and `::` followed by a word
/// character) from the start of `s`.
fn read_word(s: &str) -> (&str, &str) {
    let bytes = s.as_bytes();
    let mut i = 0;
    loop {
        while i < bytes.len() && is_word_char(bytes[i] as char) {
            i += 1;
        }
        if s[i..].starts_with("::") && s[i + 2..].chars().next().is_some_and(is_word_char) {
            i += 2;
            continue;
        }
        break;
    }
    (&s[..i], &s[i..])
}

/// Parses a modifier sequence: a template head after its opcode, or one
/// alternative of a named set.
pub(crate) fn parse_elems(mut s: &str) -> SyntaxResult<Vec<Elem>> {
    let mut elems = Vec::new();
    loop {
        s = s.trim_start();
        if s.is_empty() {
            return Ok(elems);
        }
        if s.starts_with(".{") {
            let (inner, rest) = braced(&s[1..], '{', '}')?;
            let alts = split_top(inner)
                .into_iter()
                .map(|a| parse_elems(&dotted(a.trim())))
                .collect::<SyntaxResult<Vec<_>>>()?;
            elems.push(Elem::Alts(alts));
            s = rest;
            continue;
        }
        if s.starts_with('{') {
            let (inner, rest) = braced(s, '{', '}')?;
            let parts = split_top(inner);
            if parts.len() > 1 {
                let alts = parts
                    .into_iter()
                    .filter(|p| !p.trim().is_empty())
                    .map(|a| parse_elems(a.trim()))
                    .collect::<SyntaxResult<Vec<_>>>()?;
                elems.push(Elem::OptAlts(alts));
            } else {
                elems.push(Elem::Opt(parse_elems(inner)?));
            }
            s = rest;
            continue;
        }
        let had_dot = s.starts_with('.');
        let body = if had_dot { &s[1..] } else { s };
        let (word, rest) = read_word(body);
        let (word, rest) = if word.is_empty() && body.starts_with("::") {
            // A `::x` alternative of a `::name` set.
            let (w, r) = read_word(&body[2..]);
            (&body[..w.len() + 2], r)
        } else {
            (word, rest)
        };
        if word.is_empty() {
            return Err(format!("expected a word at '{s}'"));
        }
        let mut suffix = Suffix::None;
        let mut rest = rest;
        if rest.starts_with("::{") {
            let (inner, r2) = braced(&rest[2..], '{', '}')?;
            suffix = Suffix::Alts {
                alts: split_top(inner)
                    .into_iter()
                    .map(|a| format!("::{}", a.trim().trim_start_matches("::")))
                    .collect(),
                optional: false,
            };
            rest = r2;
        } else if rest.starts_with("{::") {
            let (inner, r2) = braced(rest, '{', '}')?;
            suffix = Suffix::Alts {
                alts: split_top(inner).into_iter().map(|a| a.trim().to_string()).collect(),
                optional: true,
            };
            rest = r2;
        }
        elems.push(Elem::Word(WordElem { base: word.to_string(), suffix }));
        s = rest;
    }
}

/// `1d` → `.1d`: the alternatives of `.{1d, 2d}` are words without dots.
fn dotted(s: &str) -> String {
    if s.starts_with('.') {
        s.to_string()
    } else {
        format!(".{s}")
    }
}

/// One operand of a template, as written.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RawOperand {
    pub name: String,
    pub kind: RawKind,
    pub optional: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum RawKind {
    Value,
    /// Bracketed: fewest and most elements, and whether `{.unified}` may
    /// follow (`[a]{.unified}`).
    Address(u8, u8, bool),
    Pair {
        second_optional: bool,
    },
    Vector(Option<u8>),
    Parens,
    Sink,
    /// A number written in the template (`cp.async.cg ... 16`).
    Literal(i64),
}

/// Parses an operand list (`d, [a]{.unified}{, cache-policy}`).
pub(crate) fn parse_operands(s: &str) -> SyntaxResult<Vec<RawOperand>> {
    let mut out = Vec::new();
    let mut s = s.trim();
    let mut first = true;
    while !s.is_empty() {
        // `{, x}` and `{,x}`: an optional operand.
        if s.starts_with('{') {
            let (inner, rest) = braced(s, '{', '}')?;
            if let Some(inner) = inner.trim_start().strip_prefix(',') {
                let mut ops = parse_operands(inner)?;
                for op in &mut ops {
                    op.optional = true;
                }
                out.extend(ops);
                s = rest.trim_start();
                first = false;
                continue;
            }
        }
        if !first {
            s = s.strip_prefix(',').ok_or_else(|| format!("expected ',' at '{s}'"))?.trim_start();
        }
        first = false;
        let (op, rest) = parse_one_operand(s)?;
        out.push(op);
        s = rest.trim_start();
    }
    Ok(out)
}

fn parse_one_operand(s: &str) -> SyntaxResult<(RawOperand, &str)> {
    let plain = |name: &str, kind: RawKind| RawOperand { name: name.to_string(), kind, optional: false };
    if s.starts_with('[') {
        let (inner, mut rest) = braced(s, '[', ']')?;
        // `[a, {b,} c]`: `{b,}` is an optional element before `c`.
        let (mut fewest, mut most) = (0usize, 0usize);
        for part in split_top(inner) {
            let part = part.trim();
            if part.starts_with('{') {
                let (_, after) = braced(part, '{', '}')?;
                most += 1;
                if !after.trim().is_empty() {
                    fewest += 1;
                    most += 1;
                }
            } else {
                fewest += 1;
                most += 1;
            }
        }
        let name = split_top(inner)[0].trim().to_string();
        let unified = rest.starts_with("{.unified}");
        if unified {
            rest = &rest["{.unified}".len()..];
        }
        return Ok((plain(&name, RawKind::Address(fewest as u8, most as u8, unified)), rest));
    }
    if s.starts_with('(') {
        let (inner, rest) = braced(s, '(', ')')?;
        return Ok((plain(inner.trim(), RawKind::Parens), rest));
    }
    if s.starts_with('{') && !s.starts_with("{!}") && !s.starts_with("{-}") {
        let (inner, rest) = braced(s, '{', '}')?;
        let parts = split_top(inner);
        let size = if parts.len() == 1 { None } else { Some(parts.len() as u8) };
        let name = parts[0].trim().to_string();
        return Ok((plain(&name, RawKind::Vector(size)), rest));
    }
    let s = s.strip_prefix("{!}").or_else(|| s.strip_prefix("{-}")).or_else(|| s.strip_prefix('!')).unwrap_or(s);
    let s = s.trim_start();
    if let Some(rest) = s.strip_prefix('_') {
        if !rest.starts_with(|c: char| is_word_char(c) || c == '-') {
            return Ok((plain("_", RawKind::Sink), rest));
        }
    }
    let end = s.find(|c: char| !(is_word_char(c) || c == '-')).unwrap_or(s.len());
    let name = &s[..end];
    if name.is_empty() {
        return Err(format!("expected an operand at '{s}'"));
    }
    let mut rest = &s[end..];
    if let Ok(n) = name.parse::<i64>() {
        return Ok((plain(name, RawKind::Literal(n)), rest));
    }
    let mut kind = RawKind::Value;
    // `d|p`, `d[|p]`, `d{|p}`
    if let Some(r) = rest.strip_prefix('|') {
        let e = r.find(|c: char| !(is_word_char(c) || c == '-')).unwrap_or(r.len());
        kind = RawKind::Pair { second_optional: false };
        rest = &r[e..];
    } else if rest.starts_with("[|") || rest.starts_with("{|") {
        let close = if rest.starts_with('[') { ']' } else { '}' };
        let e = rest.find(close).ok_or_else(|| format!("unclosed pair at '{rest}'"))?;
        kind = RawKind::Pair { second_optional: true };
        rest = &rest[e + 1..];
    }
    // Video selectors: `a{.asel}`, `d.dsel`, `d{.mask}`.
    if rest.starts_with("{.") {
        let (_, r) = braced(rest, '{', '}')?;
        rest = r;
    } else if let Some(r) = rest.strip_prefix('.') {
        let (_, r) = read_word(r);
        rest = r;
    }
    // `var+imm`, `sh + imm`: a symbol plus an offset, one operand.
    let t = rest.trim_start();
    if let Some(r) = t.strip_prefix('+') {
        let r = r.trim_start();
        let e = r.find(|c: char| !is_word_char(c)).unwrap_or(r.len());
        rest = &r[e..];
    }
    Ok((plain(name, kind), rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads() {
        let e = parse_elems("{.sat}.s32").unwrap();
        assert_eq!(e.len(), 2);
        assert!(matches!(&e[0], Elem::Opt(inner) if inner.len() == 1));
        let e = parse_elems(".shared{::cta, ::cluster}").unwrap();
        assert!(matches!(&e[0], Elem::Word(w) if w.base == "shared"
            && w.suffix == Suffix::Alts { alts: vec!["::cta".into(), "::cluster".into()], optional: true }));
        let e = parse_elems(".async.shared::{cta, cluster}").unwrap();
        assert_eq!(e.len(), 2);
        assert!(
            matches!(&e[1], Elem::Word(w) if w.suffix == Suffix::Alts { alts: vec!["::cta".into(), "::cluster".into()], optional: false })
        );
        let e = parse_elems(".{1d,2d,3d}{.cop}").unwrap();
        assert!(matches!(&e[0], Elem::Alts(a) if a.len() == 3));
        let e = parse_elems("{.hi,.lo}.cc.type").unwrap();
        assert!(matches!(&e[0], Elem::OptAlts(a) if a.len() == 2));
        let e = parse_elems(".level::cache_hint.L2::cache_hint").unwrap();
        assert!(matches!(&e[1], Elem::Word(w) if w.base == "L2::cache_hint"));
    }

    #[test]
    fn operands() {
        let ops = parse_operands("d, [a]{.unified}{, cache-policy}").unwrap();
        assert_eq!(ops.len(), 3);
        assert!(ops[2].optional && ops[2].name == "cache-policy");
        assert_eq!(ops[1].kind, RawKind::Address(1, 1, true));
        let ops = parse_operands("d[|p], [a, {b,} c] {, e} {, f}").unwrap();
        assert_eq!(ops[0].kind, RawKind::Pair { second_optional: true });
        assert_eq!(ops[1].kind, RawKind::Address(2, 3, false));
        assert!(ops[2].optional && ops[3].optional);
        let ops = parse_operands("d, {a, b, e, f}, rbits").unwrap();
        assert_eq!(ops[1].kind, RawKind::Vector(Some(4)));
        let ops = parse_operands(
            "[d-tmem], a-desc, b-desc, idesc, { disable-output-lane }, enable-input-d {, scale-input-d}",
        )
        .unwrap();
        assert_eq!(ops.len(), 7);
        assert_eq!(ops[4].kind, RawKind::Vector(None));
        let ops = parse_operands("p|q, a, b, {!}c").unwrap();
        assert_eq!(ops[0].kind, RawKind::Pair { second_optional: false });
        assert_eq!(ops[3].name, "c");
        let ops = parse_operands("d.dsel, a{.asel}, b{.bsel}, c").unwrap();
        assert_eq!(ops.len(), 4);
        let ops = parse_operands("(ret-param), func, (param-list)").unwrap();
        assert_eq!(ops[0].kind, RawKind::Parens);
        let ops = parse_operands("d, sh + imm, b").unwrap();
        assert_eq!(ops.len(), 3);
        let ops = parse_operands("[dst], [src], 16{, src-size}").unwrap();
        assert_eq!(ops[2].kind, RawKind::Literal(16));
        assert!(parse_operands("").unwrap().is_empty());
        let ops = parse_operands("{xdim, ydim, zdim, _},  try_cancel_response").unwrap();
        assert_eq!(ops[0].kind, RawKind::Vector(Some(4)));
    }
}
