//! `--remarks=FILE`: optimization remarks as JSON Lines, for build tools.
//!
//! One JSON object per line and per remark, in pass order and, within a pass,
//! in function order (the order the library returns them, independent of the
//! thread count):
//!
//! ```text
//! {"file":"k.ptx","line":28,"col":2,"pass":"legalize-relaxed","function":"k","message":"..."}
//! ```
//!
//! `line` and `col` are 1-based (columns count characters, as in the
//! diagnostics) and locate the start of the rewritten instruction in the
//! input. A remark about synthesized code, which has no place in the input
//! (span `0..0`), has `"line":0,"col":0`; the keys are always present so that
//! every line has the same shape. `file` is the input path as given, or
//! `<stdin>`. Strings are escaped by hand here (RFC 8259: `"`, `\` and control
//! characters; everything else is written as UTF-8), so no JSON library is
//! needed.

use ptx_opt::{LineIndex, PassRun, Remark};

/// The JSON Lines text of every remark of `run`, one line each.
pub fn to_json_lines(file: &str, source: &str, run: &PassRun) -> String {
    let index = LineIndex::new(source);
    let mut out = String::new();
    for remark in run.passes.iter().flat_map(|p| &p.stats.remarks) {
        out.push_str(&line(file, source, &index, remark));
        out.push('\n');
    }
    out
}

/// One remark as a JSON object (without the newline).
fn line(file: &str, source: &str, index: &LineIndex, remark: &Remark) -> String {
    let (line, col) =
        if remark.span.is_synthetic() { (0, 0) } else { index.line_col(source, remark.span.start as usize) };
    let mut out = String::from("{\"file\":");
    push_string(&mut out, file);
    out.push_str(&format!(",\"line\":{line},\"col\":{col},\"pass\":"));
    push_string(&mut out, remark.pass);
    out.push_str(",\"function\":");
    push_string(&mut out, &remark.function);
    out.push_str(",\"message\":");
    push_string(&mut out, &remark.message);
    out.push('}');
    out
}

/// Appends `s` as a JSON string literal.
fn push_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => out.push_str(&format!("\\u{:04x}", c as u32)),
            // U+2028/U+2029 are valid JSON but break JavaScript line parsers.
            '\u{2028}' | '\u{2029}' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptx_opt::{PassRecord, PassStats, Span};

    fn quoted(s: &str) -> String {
        let mut out = String::new();
        push_string(&mut out, s);
        out
    }

    #[test]
    fn strings_are_escaped() {
        assert_eq!(quoted("plain"), r#""plain""#);
        assert_eq!(quoted("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(quoted("l1\nl2\r\t"), r#""l1\nl2\r\t""#);
        assert_eq!(quoted("\u{0}\u{1f}\u{7f}\u{8}\u{c}"), r#""\u0000\u001f\u007f\b\f""#);
        assert_eq!(quoted("é→\u{2028}"), "\"é→\\u2028\"");
    }

    fn run_with(remarks: Vec<Remark>) -> PassRun {
        let stats = PassStats { counters: Default::default(), remarks };
        PassRun {
            passes: vec![PassRecord { name: "p", changed: true, time: Default::default(), stats }],
            snapshots: vec![],
        }
    }

    #[test]
    fn lines_locate_remarks_and_synthetic_spans_are_line_zero() {
        let source = "a\nbé c\n";
        let remarks = vec![
            Remark { pass: "p", span: Span::new(6, 7), function: "f\"g".into(), message: "m1".into() },
            Remark { pass: "p", span: Span::new(0, 0), function: "f".into(), message: "m2".into() },
        ];
        let text = to_json_lines("dir/k.ptx", source, &run_with(remarks));
        assert_eq!(
            text,
            "{\"file\":\"dir/k.ptx\",\"line\":2,\"col\":4,\"pass\":\"p\",\"function\":\"f\\\"g\",\"message\":\"m1\"}\n\
             {\"file\":\"dir/k.ptx\",\"line\":0,\"col\":0,\"pass\":\"p\",\"function\":\"f\",\"message\":\"m2\"}\n"
        );
    }

    #[test]
    fn no_remarks_no_lines() {
        assert_eq!(to_json_lines("k.ptx", "", &run_with(vec![])), "");
    }
}
