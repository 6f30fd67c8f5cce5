//! Diagnostics as text, the way clang and rustc print them: for the
//! command line, for a JIT that wants text rather than data, and for the C
//! ABI. Only the caller prints (the library never does).
//!
//! Each diagnostic is a `FILE:LINE:COL: error: MESSAGE` line (the format
//! editors and build tools parse), then the source line with carets under
//! the offending text, then `note:` lines with snippets of their own. Long
//! lines are cut to a window around the column so that the caret stays on
//! screen. Control characters of the input are shown escaped (`\u{1b}`),
//! never written: a file with an ESC in it must not drive the terminal of
//! whoever reads the diagnostic.

use crate::{Error, ErrorKind, LineIndex, Span};
use anstyle::{AnsiColor, Style};

/// How [`render_error`] writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct RenderOptions {
    /// ANSI colours (for a terminal).
    pub color: bool,
    /// At most this many diagnostics are shown (0: all); a summary line
    /// says how many there were.
    pub error_limit: usize,
}

/// The default [`RenderOptions::error_limit`], clang's.
pub const DEFAULT_ERROR_LIMIT: usize = 20;

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions { color: false, error_limit: DEFAULT_ERROR_LIMIT }
    }
}

impl RenderOptions {
    /// With or without colours.
    pub fn with_color(self, color: bool) -> Self {
        RenderOptions { color, ..self }
    }

    /// At most `limit` diagnostics (0: all).
    pub fn with_error_limit(self, limit: usize) -> Self {
        RenderOptions { error_limit: limit, ..self }
    }
}

struct Palette {
    error: Style,
    note: Style,
    bold: Style,
    gutter: Style,
    caret: Style,
}

impl Palette {
    fn new(color: bool) -> Palette {
        if !color {
            let plain = Style::new();
            return Palette { error: plain, note: plain, bold: plain, gutter: plain, caret: plain };
        }
        let bold = Style::new().bold();
        Palette {
            error: bold.fg_color(Some(AnsiColor::Red.into())),
            note: bold.fg_color(Some(AnsiColor::Green.into())),
            bold,
            gutter: bold.fg_color(Some(AnsiColor::Blue.into())),
            caret: bold.fg_color(Some(AnsiColor::Red.into())),
        }
    }
}

fn paint(style: Style, text: &str) -> String {
    format!("{}{text}{}", style.render(), style.render_reset())
}

/// Renders `error` (found in `source`, called `file`) as text ending in a
/// newline.
///
/// ```
/// let ptx = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b32 %r<3>;\n\tadd.s32 %r1, , %r2;\n}\n";
/// let err = ptx_opt::parse(ptx).unwrap_err();
/// let text = ptx_opt::render_error("k.ptx", ptx, &err, &ptx_opt::RenderOptions::default());
/// assert_eq!(
///     text,
///     "k.ptx:7:15: error: expected an operand, found ','\n  |\n7 | \tadd.s32 %r1, , %r2;\n  | \t             ^\n"
/// );
/// ```
pub fn render_error(file: &str, source: &str, error: &Error, options: &RenderOptions) -> String {
    let palette = Palette::new(options.color);
    let file = escape(file);
    let index = LineIndex::new(source);
    let mut out = String::new();
    let suffix = match &error.kind {
        ErrorKind::BrokeIr(pass) => format!(" (after pass '{pass}', which produced invalid PTX)"),
        ErrorKind::NeedsTarget(_) => {
            " (written by a pass that gated on another target: --set-target writes that target into the output)"
                .to_string()
        }
        _ => String::new(),
    };
    if error.diagnostics.is_empty() {
        let head = paint(palette.bold, &format!("{file}:"));
        out.push_str(&format!("{head} {}: {}\n", paint(palette.error, "error"), escape(&error.to_string())));
    }
    let shown = match options.error_limit {
        0 => error.diagnostics.len(),
        limit => limit.min(error.diagnostics.len()),
    };
    // Synthesized code has no place in the input: its span says nothing,
    // except in the parser's own errors, where 0..0 is the file's start.
    let located = |span: Span| !span.is_synthetic() || error.kind == ErrorKind::Parse;
    for d in &error.diagnostics[..shown] {
        let message = format!("{}{suffix}", d.message);
        let span = d.span;
        let error_label = ("error", palette.error);
        write_entry(&mut out, &palette, &file, source, &index, span, error_label, &message, &message, located(span));
        for note in &d.notes {
            let note_label = ("note", palette.note);
            // The note's place is about what the error names (the first `$L` of a duplicate).
            write_entry(
                &mut out,
                &palette,
                &file,
                source,
                &index,
                note.span,
                note_label,
                &note.message,
                &message,
                true,
            );
        }
    }
    let total = error.diagnostics.len();
    if shown < total {
        let message = format!("{} more errors not shown (error limit {})", total - shown, options.error_limit);
        out.push_str(&format!("{}: {message}\n", paint(palette.note, "note")));
    }
    if total > 1 {
        let message = paint(palette.bold, &format!("aborting due to {total} errors"));
        out.push_str(&format!("{}: {message}\n", paint(palette.error, "error")));
    }
    out
}

/// One `FILE:LINE:COL: LABEL: MESSAGE` line and, if `snippet`, the source
/// line with carets (under what `focus`, a message, names, if it is there).
#[allow(clippy::too_many_arguments)]
fn write_entry(
    out: &mut String,
    palette: &Palette,
    file: &str,
    source: &str,
    index: &LineIndex,
    span: Span,
    (label, label_style): (&str, Style),
    message: &str,
    focus: &str,
    snippet: bool,
) {
    let start = span.start as usize;
    let (line, col) = index.line_col(source, start);
    let head = paint(palette.bold, &format!("{file}:{line}:{col}:"));
    out.push_str(&format!("{head} {}: {}\n", paint(label_style, label), paint(palette.bold, &escape(message))));
    if !snippet {
        return;
    }
    let line_text = index.line_text(source, line);
    let end = (span.end as usize).max(start + 1);
    let (end_line, end_col) = index.line_col(source, end);
    let mut first = col - 1;
    // A span running over several lines is underlined to the end of its first.
    let mut width = match end_line == line {
        true => end_col.saturating_sub(col).max(1),
        false => line_text.chars().count().saturating_sub(first).max(1),
    };
    if let Some((at, len)) = operand_in(line_text, first, width, focus) {
        (first, width) = (at, len);
    }
    let chars: Vec<char> = line_text.chars().collect();
    let (window, first, width) = snippet_window(&chars, first, width);
    // The line as shown, and where each shown character starts in it.
    let mut shown = String::new();
    let mut pad = String::new();
    let mut underline = 0;
    for (i, &c) in window.iter().enumerate() {
        let text = escape_char(c);
        if i < first {
            // A tab under a tab keeps the caret aligned whatever the tab width.
            pad.extend(text.chars().map(|t| if t == '\t' { '\t' } else { ' ' }));
        } else if i < first + width {
            underline += text.chars().count();
        }
        shown.push_str(&text);
    }
    let underline = underline.max(1);
    let gutter = line.to_string().len();
    let bar = paint(palette.gutter, "|");
    out.push_str(&format!("{:gutter$} {bar}\n", ""));
    out.push_str(&format!("{} {bar} {shown}\n", paint(palette.gutter, &line.to_string())));
    out.push_str(&format!("{:gutter$} {bar} {pad}{}\n", "", paint(palette.caret, &"^".repeat(underline))));
}

/// The operand a message names, found in the spanned part of the line:
/// a message quotes what it is about (`register '%r01'`, `operand 2
/// (%rd1)`), and when that text occurs exactly once in the span, as a whole
/// token, the caret goes under it rather than under the whole instruction.
/// Returns the character offset and length in the line.
fn operand_in(line: &str, first: usize, width: usize, message: &str) -> Option<(usize, usize)> {
    let chars: Vec<char> = line.chars().collect();
    let end = (first + width).min(chars.len());
    let spanned: String = chars.get(first..end)?.iter().collect();
    if spanned.chars().count() <= 1 {
        return None;
    }
    let token_char = |c: char| c.is_alphanumeric() || matches!(c, '_' | '$' | '%' | '.');
    for quoted in quoted_parts(message) {
        if quoted.is_empty() || quoted == spanned {
            continue;
        }
        let found: Vec<usize> = spanned
            .match_indices(quoted)
            .filter(|&(at, _)| {
                let before = spanned[..at].chars().next_back();
                let after = spanned[at + quoted.len()..].chars().next();
                !before.is_some_and(token_char) && !after.is_some_and(token_char)
            })
            .map(|(at, _)| at)
            .collect();
        if let [at] = found[..] {
            return Some((first + spanned[..at].chars().count(), quoted.chars().count()));
        }
    }
    None
}

/// The parts of a message between `'...'` and `(...)`.
fn quoted_parts(message: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    for (open, close) in [('\'', '\''), ('(', ')')] {
        let mut rest = message;
        while let Some(start) = rest.find(open) {
            let after = &rest[start + open.len_utf8()..];
            let Some(len) = after.find(close) else { break };
            parts.push(&after[..len]);
            rest = &after[len + close.len_utf8()..];
        }
    }
    parts
}

/// Longest source line shown in full, in characters.
const MAX_SNIPPET: usize = 100;
/// How many characters before the column a cut line keeps.
const CONTEXT_BEFORE: usize = 60;

/// The characters of a line to show for an underline at `first` (0-based)
/// of `width` characters: the whole line if short, otherwise a window, with
/// `...` where it was cut; and the underline within it.
fn snippet_window(chars: &[char], first: usize, width: usize) -> (Vec<char>, usize, usize) {
    let first = first.min(chars.len());
    let width = width.min(chars.len().saturating_sub(first)).max(1);
    if chars.len() <= MAX_SNIPPET {
        return (chars.to_vec(), first, width);
    }
    let from = first.saturating_sub(CONTEXT_BEFORE);
    let to = (from + MAX_SNIPPET).min(chars.len());
    let mut shown = Vec::new();
    let mut at = first - from;
    if from > 0 {
        shown.extend("...".chars());
        at += 3;
    }
    shown.extend(&chars[from..to]);
    if to < chars.len() {
        shown.extend("...".chars());
    }
    (shown, at, width.min(to.saturating_sub(first)).max(1))
}

/// `text` with control characters escaped (tabs kept).
pub(crate) fn escape(text: &str) -> String {
    text.chars().map(escape_char).collect()
}

/// A character as it may be written to a terminal: controls (C0 but tab,
/// DEL, C1) and the bidirectional overrides that reorder what is shown
/// become `\u{..}`.
fn escape_char(c: char) -> String {
    let dangerous = (c.is_control() && c != '\t') || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
    if dangerous {
        format!("\\u{{{:x}}}", c as u32)
    } else {
        c.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Diagnostic;

    fn error(diagnostics: Vec<Diagnostic>) -> Error {
        Error { kind: ErrorKind::InvalidInput, diagnostics }
    }

    #[test]
    fn caret_goes_under_the_named_operand() {
        let source = "\tadd.s32 %r1, %rd1, %rd10;\n";
        let d = Diagnostic::new(Span::new(1, 26), "add.s32: operand 1 (%rd1) is .b64");
        let text = render_error("k.ptx", source, &error(vec![d]), &RenderOptions::default());
        assert_eq!(text, "k.ptx:1:2: error: add.s32: operand 1 (%rd1) is .b64\n  |\n1 | \tadd.s32 %r1, %rd1, %rd10;\n  | \t             ^^^^\n");
    }

    #[test]
    fn an_operand_named_twice_in_the_span_keeps_the_whole_span() {
        let source = "\tadd.s32 %r1, %r1, 1;\n";
        let d = Diagnostic::new(Span::new(1, 21), "add.s32: operand 1 (%r1) is wrong");
        let text = render_error("k.ptx", source, &error(vec![d]), &RenderOptions::default());
        assert!(text.ends_with("| \t^^^^^^^^^^^^^^^^^^^^\n"), "{text}");
    }

    #[test]
    fn control_characters_are_escaped_and_carets_follow() {
        let source = "\tmov.b32 \u{1b}[2J %r1, 1;\n";
        let d = Diagnostic::new(Span::new(9, 10), "unexpected character '\u{1b}'");
        let text = render_error("k\u{7}.ptx", source, &error(vec![d]), &RenderOptions::default());
        assert!(!text.contains('\u{1b}') && !text.contains('\u{7}'), "{text:?}");
        assert!(text.contains("k\\u{7}.ptx:1:10: error: unexpected character '\\u{1b}'"), "{text}");
        assert!(text.contains("1 | \tmov.b32 \\u{1b}[2J %r1, 1;\n  | \t        ^^^^^^\n"), "{text}");
    }

    #[test]
    fn notes_limit_and_summary() {
        let source = "a\nb\nc\n";
        let d = |at: usize| Diagnostic::new(Span::new(at, at + 1), "bad").with_note(Span::new(0, 1), "first here");
        let text = render_error("k", source, &error(vec![d(2), d(4)]), &RenderOptions::default().with_error_limit(1));
        assert_eq!(
            text,
            "k:2:1: error: bad\n  |\n2 | b\n  | ^\nk:1:1: note: first here\n  |\n1 | a\n  | ^\n\
             note: 1 more errors not shown (error limit 1)\nerror: aborting due to 2 errors\n"
        );
        let colored = render_error("k", source, &error(vec![d(2)]), &RenderOptions::default().with_color(true));
        assert!(colored.contains("\u{1b}[1m\u{1b}[31merror\u{1b}[0m"), "{colored:?}");
    }

    #[test]
    fn long_lines_are_cut_around_the_caret() {
        let line = format!("{}X{}", "a".repeat(150), "b".repeat(150));
        let d = Diagnostic::new(Span::new(150, 151), "here");
        let text = render_error("k", &line, &error(vec![d]), &RenderOptions::default());
        let lines: Vec<&str> = text.lines().collect();
        let shown = lines[2].strip_prefix("1 | ").unwrap();
        let caret = lines[3].strip_prefix("  | ").unwrap();
        assert_eq!(shown.chars().nth(caret.len() - 1), Some('X'), "{text}");
        assert!(shown.starts_with("...") && shown.ends_with("..."));
    }
}
