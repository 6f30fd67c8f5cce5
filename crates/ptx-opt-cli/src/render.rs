//! Rendering diagnostics, statistics and timings for people.
//!
//! A diagnostic's first line is `FILE:LINE:COL: error: MESSAGE`, the format of
//! gcc and clang that editors and build tools parse; a source snippet with a
//! caret follows. Long lines (generated PTX can have very long ones) are cut
//! to a window around the column, so the caret stays on screen.

use ptx_opt::{Error, ErrorKind, LineIndex, PassRun};
use std::io::Write;

/// Renders one error to a string.
pub fn diagnostics_to_string(file: &str, source: &str, error: &Error) -> String {
    let index = LineIndex::new(source);
    let mut out = String::new();
    let prefix = match &error.kind {
        ErrorKind::BrokeIr(pass) => format!(" (after pass '{pass}', which produced invalid PTX)"),
        _ => String::new(),
    };
    if error.diagnostics.is_empty() {
        out.push_str(&format!("{file}: error: {error}\n"));
    }
    for d in &error.diagnostics {
        let start = d.span.start as usize;
        let (line, col) = index.line_col(source, start);
        out.push_str(&format!("{file}:{line}:{col}: error: {}{prefix}\n", d.message));
        if d.span.is_synthetic() && !matches!(error.kind, ErrorKind::Parse) {
            continue;
        }
        let gutter = line.to_string().len();
        let end = (d.span.end as usize).max(start + 1);
        let (end_line, end_col) = index.line_col(source, end);
        let width = if end_line == line { end_col.saturating_sub(col).max(1) } else { 1 };
        let (text, col) = snippet_window(index.line_text(source, line), col);
        let pad: String = text.chars().take(col - 1).map(|c| if c == '\t' { '\t' } else { ' ' }).collect();
        let width = width.min(text.chars().count().saturating_sub(col - 1).max(1));
        out.push_str(&format!("{:gutter$} |\n", ""));
        out.push_str(&format!("{line} | {text}\n"));
        out.push_str(&format!("{:gutter$} | {pad}{}\n", "", "^".repeat(width)));
    }
    out
}

/// Longest source line shown in full, in characters.
const MAX_SNIPPET: usize = 100;
/// How many characters before the column a cut line keeps.
const CONTEXT_BEFORE: usize = 60;

/// The part of `text` to show for 1-based column `col`, and the column in
/// that part: the whole line if short, otherwise a window with `...` where
/// it was cut.
fn snippet_window(text: &str, col: usize) -> (String, usize) {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= MAX_SNIPPET {
        return (text.to_string(), col);
    }
    let first = (col - 1).saturating_sub(CONTEXT_BEFORE).min(chars.len());
    let last = (first + MAX_SNIPPET).min(chars.len());
    let mut shown = String::new();
    let mut col = col - first;
    if first > 0 {
        shown.push_str("...");
        col += 3;
    }
    shown.extend(&chars[first..last]);
    if last < chars.len() {
        shown.push_str("...");
    }
    (shown, col)
}

/// Writes an error to standard error.
pub fn diagnostics(file: &str, source: &str, error: &Error) {
    let _ = std::io::stderr().write_all(diagnostics_to_string(file, source, error).as_bytes());
}

/// `--stats`
pub fn stats(out: &mut impl Write, run: &PassRun) {
    let _ = writeln!(out, "=== ptx-opt statistics ===");
    for p in &run.passes {
        if p.stats.counters.is_empty() {
            let _ = writeln!(out, "{:<20} (no rewrites)", p.name);
        }
        for (counter, v) in &p.stats.counters {
            let _ = writeln!(out, "{:<20} {v:>8} {:<20} {}", p.name, counter.id, counter.description);
        }
    }
}

/// `--time-passes`
pub fn times(out: &mut impl Write, run: &PassRun) {
    let _ = writeln!(out, "=== ptx-opt pass timing ===");
    let total: f64 = run.passes.iter().map(|p| p.time.as_secs_f64()).sum();
    for p in &run.passes {
        let _ = writeln!(out, "{:<20} {:>10.3} ms", p.name, p.time.as_secs_f64() * 1e3);
    }
    let _ = writeln!(out, "{:<20} {:>10.3} ms", "total", total * 1e3);
}
