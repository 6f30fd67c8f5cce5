//! A changed function written into its own source text: the statements the
//! source still describes are copied with the comments and layout around
//! them, instructions rewritten in place take the place of their old text,
//! new statements get lines of their own, and the text of statements no
//! longer in the body is left out (with its line, when nothing else is on
//! it). Comments are never dropped: a comment after a removed instruction
//! stays where it was.
//!
//! Why it is safe: the function keeps its layout ([`Function::keeps_layout`]:
//! the signature, registers, labels and every statement that is not an
//! instruction are as parsed; only instructions were inserted, removed or
//! rewritten, and registers declared), and the statements written from
//! their spans come in body order with increasing, disjoint spans (checked
//! before anything is written). The output then holds the body's statements
//! in the body's order, and between them only whitespace and comments.

use super::{write_indent, write_stmt, PrintSink};
use crate::module::{Function, Stmt};
use crate::Span;
use std::ops::Range;

/// How a statement gets into the output.
#[derive(Clone, Copy)]
enum Placement {
    /// Copied: its source text says what it is.
    Kept(Span),
    /// An instruction from the source written since: printed afresh where
    /// its old text was (a comment after it stays on its line).
    InPlace(Span),
    /// Printed afresh on a line of its own, after the line of what comes
    /// before it.
    New,
}

fn placement(func: &Function, stmt: &Stmt) -> Placement {
    let span = match stmt {
        Stmt::Inst(id) => {
            let span = func.insts[*id].span;
            if span.is_synthetic() || !func.insts.is_from_source(*id) {
                return Placement::New;
            }
            if !func.insts.is_original(*id) {
                return Placement::InPlace(span);
            }
            span
        }
        Stmt::Label(l) if func.labels.is_original(*l) => func.labels[*l].span,
        Stmt::Label(_) => return Placement::New,
        Stmt::RegDecl(decl) => func.reg_decls[*decl].span,
        Stmt::Variable(var) => func.variables[*var].span,
        Stmt::Raw(raw) => func.directives[*raw].span,
        Stmt::ScopeOpen(brace) | Stmt::ScopeClose(brace) => brace.span(),
    };
    if span.is_synthetic() {
        Placement::New
    } else {
        Placement::Kept(span)
    }
}

fn placed_span(p: Placement) -> Option<Range<usize>> {
    match p {
        Placement::Kept(s) | Placement::InPlace(s) => Some(s.start as usize..s.end as usize),
        Placement::New => None,
    }
}

/// Writes `func` (which is changed) over its span of `source`; false, with
/// nothing written, when its layout is not kept or its statements' spans
/// do not fit (the caller prints it afresh).
pub(super) fn write_function_into_source(func: &Function, source: &str, out: &mut impl PrintSink) -> bool {
    if !func.keeps_layout() || func.span.is_synthetic() {
        return false;
    }
    let Some(body) = func.body() else { return false };
    let (start, end) = (func.span.start as usize, func.span.end as usize);
    if start >= end || end > source.len() || source.as_bytes()[end - 1] != b'}' {
        return false;
    }
    let Some(open) = body_open(source, start..end) else { return false };
    let close = end - 1;
    // Every placed statement in order, within the body, disjoint; and for
    // each statement where the next placed one starts (a new statement
    // goes no further than that looking for its line).
    let mut next_placed = vec![close; body.len()];
    let mut at = close;
    for (i, stmt) in body.iter().enumerate().rev() {
        next_placed[i] = at;
        if let Some(span) = placed_span(placement(func, stmt)) {
            if span.start > span.end || span.end > at || span.start <= open {
                return false;
            }
            at = span.start;
        }
    }
    out.push_source(source, start..open + 1);
    let mut cursor = open + 1;
    let mut depth = 1usize;
    // True when the output ends a line that a new statement was written
    // on, with `cursor` at the start of the source's next line.
    let mut at_line_start = false;
    for (i, stmt) in body.iter().enumerate() {
        if matches!(stmt, Stmt::ScopeClose(_)) {
            depth = depth.saturating_sub(1);
        }
        match placement(func, stmt) {
            Placement::Kept(span) => {
                push_gap(source, cursor..span.start as usize, out);
                out.push_source(source, span.start as usize..span.end as usize);
                cursor = span.end as usize;
                at_line_start = false;
            }
            Placement::InPlace(span) => {
                push_gap(source, cursor..span.start as usize, out);
                write_stmt(func, stmt, out.text());
                cursor = span.end as usize;
                at_line_start = false;
            }
            Placement::New => {
                if !at_line_start {
                    match line_break(source, cursor..next_placed[i]) {
                        Some(newline) => {
                            push_gap(source, cursor..newline + 1, out);
                            cursor = newline + 1;
                            at_line_start = true;
                        }
                        None => out.text().push('\n'),
                    }
                }
                let text = out.text();
                write_indent(stmt, depth, text);
                write_stmt(func, stmt, text);
                if at_line_start {
                    text.push('\n');
                }
            }
        }
        if matches!(stmt, Stmt::ScopeOpen(_)) {
            depth += 1;
        }
    }
    push_gap(source, cursor..close, out);
    out.push_source(source, close..end);
    true
}

/// What the scanner of text between statements meets.
enum Piece {
    /// Spaces, tabs, carriage returns.
    Blank,
    /// A line break.
    Newline,
    /// `// ...` up to the line break, or `/* ... */`.
    Comment,
    /// Anything else: the text of a statement (a string literal whole).
    Text,
}

/// Cuts `source[range]` into pieces, calling `each(piece, range)`.
fn scan(source: &str, range: Range<usize>, mut each: impl FnMut(Piece, Range<usize>)) {
    let b = source.as_bytes();
    let mut i = range.start;
    while i < range.end {
        let from = i;
        let piece = match b[i] {
            b' ' | b'\t' | b'\r' => {
                i += 1;
                Piece::Blank
            }
            b'\n' => {
                i += 1;
                Piece::Newline
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = memchr::memchr(b'\n', &b[i..range.end]).map_or(range.end, |n| i + n);
                Piece::Comment
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = source[i + 2..range.end].find("*/").map_or(range.end, |n| i + 2 + n + 2);
                Piece::Comment
            }
            b'"' => {
                i += 1;
                while i < range.end && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(range.end);
                Piece::Text
            }
            _ => {
                i += 1;
                Piece::Text
            }
        };
        each(piece, from..i);
    }
}

/// The first line break in `source[range]` outside a block comment.
fn line_break(source: &str, range: Range<usize>) -> Option<usize> {
    let mut found = None;
    scan(source, range, |piece, at| {
        if found.is_none() && matches!(piece, Piece::Newline) {
            found = Some(at.start);
        }
    });
    found
}

/// Writes the source text between two written statements: whitespace and
/// comments as they are; the text of statements no longer in the body left
/// out, with the blanks after it, and with its whole line when only blanks
/// remain on it.
fn push_gap(source: &str, range: Range<usize>, out: &mut impl PrintSink) {
    let mut dropped: Vec<Range<usize>> = Vec::new();
    let mut run: Option<usize> = None;
    scan(source, range.clone(), |piece, at| match piece {
        Piece::Text => {
            run.get_or_insert(at.start);
        }
        Piece::Blank => {}
        Piece::Newline | Piece::Comment => {
            if let Some(from) = run.take() {
                dropped.push(from..at.start);
            }
        }
    });
    if let Some(from) = run {
        dropped.push(from..range.end);
    }
    if dropped.is_empty() {
        out.push_source(source, range);
        return;
    }
    let text = out.text();
    let mut drops = dropped.iter().peekable();
    let mut line_start = range.start;
    while line_start < range.end {
        let line_end =
            memchr::memchr(b'\n', &source.as_bytes()[line_start..range.end]).map_or(range.end, |n| line_start + n + 1);
        let mut kept = String::new();
        let mut from = line_start;
        let mut any_dropped = false;
        while let Some(drop) = drops.next_if(|d| d.start < line_end) {
            kept.push_str(&source[from..drop.start]);
            from = drop.end;
            any_dropped = true;
        }
        kept.push_str(&source[from..line_end]);
        if any_dropped && kept.ends_with('\n') {
            let content = kept.trim_end_matches('\n').trim_end_matches([' ', '\t', '\r']).len();
            kept.replace_range(content..kept.len() - 1, "");
        }
        let whole_line = (line_start > range.start || source[..line_start].ends_with('\n')) && kept.ends_with('\n');
        if !(any_dropped && whole_line && kept.trim().is_empty()) {
            text.push_str(&kept);
        }
        line_start = line_end;
    }
}

/// Where the body of the function at `source[range]` opens: its first `{`
/// outside comments and strings.
fn body_open(source: &str, range: Range<usize>) -> Option<usize> {
    let mut open = None;
    scan(source, range, |piece, at| {
        if open.is_none() && matches!(piece, Piece::Text) && source.as_bytes()[at.start] == b'{' {
            open = Some(at.start);
        }
    });
    open
}
