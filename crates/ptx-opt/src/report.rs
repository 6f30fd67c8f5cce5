//! What a run did, as text for build tools: remarks as JSON Lines or as
//! clang's `-Rpass` lines, and the counters as JSON. The command line, the
//! C ABI and a JIT write the same text.
//!
//! Remark lines locate the rewritten instruction in the input: `line` and
//! `col` are 1-based (columns count characters, as in diagnostics); a
//! remark about synthesized code, which has no place in the input (span
//! `0..0`), has line and column 0. Output is deterministic: remarks come in
//! pass order and, within a pass, in function order, whatever the thread
//! count. JSON strings are escaped by hand (RFC 8259: `"`, `\` and control
//! characters; everything else is written as UTF-8).

use crate::{LineIndex, PassRun, Remark};

/// The demangled form of an Itanium C++ name (`_Z...`, what nvcc and NVRTC
/// write for `__device__` functions and templated kernels), or None if
/// `name` is not one.
///
/// ```
/// assert_eq!(ptx_opt::demangle("_Z6kernelPfi").as_deref(), Some("kernel(float*, int)"));
/// assert_eq!(ptx_opt::demangle("plain_kernel"), None);
/// ```
pub fn demangle(name: &str) -> Option<String> {
    if !name.starts_with("_Z") {
        return None;
    }
    let symbol = cpp_demangle::Symbol::new(name).ok()?;
    symbol.demangle().ok()
}

/// Every remark of `run` as JSON Lines, one object per line:
///
/// ```text
/// {"file":"k.ptx","line":28,"col":2,"pass":"legalize-relaxed","function":"_Z1kPi","demangled":"k(int*)","message":"..."}
/// ```
///
/// `file` is the input's name as the caller gives it. Every key is always
/// present; `demangled` is the function name itself when it is not mangled.
pub fn remarks_json_lines(file: &str, source: &str, run: &PassRun) -> String {
    json_lines(file, source, remarks(run), None)
}

/// The missed remarks of `run` (rewrites a pass looked at and did not make,
/// with the reason: [`crate::PassStats::missed`]) as JSON Lines, with the
/// keys of [`remarks_json_lines`] and `"kind":"missed"` after `message`:
///
/// ```text
/// {"file":"k.ptx","line":5,"col":1,"pass":"combine-cvt-pack","function":"k","demangled":"k","message":"not run: ...","kind":"missed"}
/// ```
pub fn missed_remarks_json_lines(file: &str, source: &str, run: &PassRun) -> String {
    json_lines(file, source, missed(run), Some("missed"))
}

fn json_lines<'r>(file: &str, source: &str, remarks: impl Iterator<Item = &'r Remark>, kind: Option<&str>) -> String {
    let index = LineIndex::new(source);
    let mut out = String::new();
    for remark in remarks {
        let (line, col) = place(source, &index, remark);
        out.push_str("{\"file\":");
        push_json_string(&mut out, file);
        out.push_str(&format!(",\"line\":{line},\"col\":{col},\"pass\":"));
        push_json_string(&mut out, remark.pass);
        out.push_str(",\"function\":");
        push_json_string(&mut out, &remark.function);
        out.push_str(",\"demangled\":");
        push_json_string(&mut out, &demangle(&remark.function).unwrap_or_else(|| remark.function.clone()));
        out.push_str(",\"message\":");
        push_json_string(&mut out, &remark.message);
        if let Some(kind) = kind {
            out.push_str(",\"kind\":");
            push_json_string(&mut out, kind);
        }
        out.push_str("}\n");
    }
    out
}

/// Every remark of `run` as clang prints `-Rpass` remarks, one per line:
/// `FILE:LINE:COL: remark: MESSAGE in 'FUNCTION' [PASS]`, the function
/// demangled with its mangled name beside it (`in 'k(int*)' (_Z1kPi)`).
/// Control characters are escaped as in diagnostics.
pub fn remarks_text(file: &str, source: &str, run: &PassRun) -> String {
    text_lines(file, source, remarks(run), "remark")
}

/// The missed remarks of `run` as clang prints `-Rpass-missed` remarks:
/// `FILE:LINE:COL: remark: missed: REASON in 'FUNCTION' [PASS]`.
pub fn missed_remarks_text(file: &str, source: &str, run: &PassRun) -> String {
    text_lines(file, source, missed(run), "remark: missed")
}

fn text_lines<'r>(file: &str, source: &str, remarks: impl Iterator<Item = &'r Remark>, what: &str) -> String {
    let index = LineIndex::new(source);
    let mut out = String::new();
    for remark in remarks {
        let (line, col) = place(source, &index, remark);
        let function = match demangle(&remark.function) {
            Some(demangled) => format!("'{demangled}' ({})", remark.function),
            None => format!("'{}'", remark.function),
        };
        let text = format!("{file}:{line}:{col}: {what}: {} in {function} [{}]", remark.message, remark.pass);
        out.push_str(&crate::render::escape(&text));
        out.push('\n');
    }
    out
}

/// The counters of every pass as one JSON object (no timings, so that the
/// text is the same on every run):
///
/// ```text
/// {"passes":[{"name":"fold-prmt","changed":true,"counters":{"copy":1,"selector-removed":1}}]}
/// ```
pub fn stats_json(run: &PassRun) -> String {
    let mut out = String::from("{\"passes\":[");
    for (i, pass) in run.passes.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str("{\"name\":");
        push_json_string(&mut out, pass.name);
        out.push_str(&format!(",\"changed\":{},\"counters\":{{", pass.changed));
        for (j, (counter, value)) in pass.stats.counters.iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            push_json_string(&mut out, counter.id);
            out.push_str(&format!(":{value}"));
        }
        out.push_str("}}");
    }
    out.push_str("]}\n");
    out
}

fn remarks(run: &PassRun) -> impl Iterator<Item = &Remark> {
    run.passes.iter().flat_map(|p| &p.stats.remarks)
}

fn missed(run: &PassRun) -> impl Iterator<Item = &Remark> {
    run.passes.iter().flat_map(|p| &p.stats.missed)
}

fn place(source: &str, index: &LineIndex, remark: &Remark) -> (usize, usize) {
    if remark.span.is_synthetic() {
        (0, 0)
    } else {
        index.line_col(source, remark.span.start as usize)
    }
}

/// Appends `s` as a JSON string literal.
pub(crate) fn push_json_string(out: &mut String, s: &str) {
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

/// The counter arrays `count-blocks` added, as JSON, for a runtime that
/// reads the counts back: per kernel its array and, for each block (the
/// counter's index), the input line of its first instruction (`null` for a
/// block without one):
///
/// ```text
/// {"kernels":[{"kernel":"k","array":"__ptxopt_blocks_k","blocks":[{"block":0,"line":12},{"block":1,"line":null}]}]}
/// ```
pub fn count_blocks_map_json(module: &crate::Module, source: &str) -> String {
    let index = crate::LineIndex::new(source);
    let mut out = String::from("{\"kernels\":[");
    for (k, kernel) in ptx_passes::count_blocks::map(module).iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        out.push_str("{\"kernel\":");
        push_json_string(&mut out, &kernel.kernel);
        out.push_str(",\"array\":");
        push_json_string(&mut out, &kernel.array);
        out.push_str(",\"blocks\":[");
        for (b, span) in kernel.blocks.iter().enumerate() {
            if b > 0 {
                out.push(',');
            }
            let line = span.map_or("null".to_string(), |s| index.line_col(source, s.start as usize).0.to_string());
            out.push_str(&format!("{{\"block\":{b},\"line\":{line}}}"));
        }
        out.push_str("]}");
    }
    out.push_str("]}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Counter, PassRecord, PassStats, Span};

    fn quoted(s: &str) -> String {
        let mut out = String::new();
        push_json_string(&mut out, s);
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
        let mut counters = std::collections::BTreeMap::new();
        counters.insert(Counter::new("copy", "prmt folded to a copy"), 2);
        let missed = vec![Remark { pass: "p", span: Span::new(2, 3), function: "h".into(), message: "why".into() }];
        let stats = PassStats { counters, remarks, missed };
        PassRun {
            passes: vec![PassRecord { name: "p", changed: true, time: Default::default(), stats }],
            snapshots: vec![],
        }
    }

    fn sample() -> (&'static str, PassRun) {
        let source = "a\nbé c\n";
        let remarks = vec![
            Remark { pass: "p", span: Span::new(6, 7), function: "f\"g".into(), message: "m1".into() },
            Remark { pass: "p", span: Span::new(0, 0), function: "_Z1kPi".into(), message: "m\u{1b}2".into() },
        ];
        (source, run_with(remarks))
    }

    #[test]
    fn json_lines_locate_remarks_and_demangle() {
        let (source, run) = sample();
        assert_eq!(
            remarks_json_lines("dir/k.ptx", source, &run),
            "{\"file\":\"dir/k.ptx\",\"line\":2,\"col\":4,\"pass\":\"p\",\"function\":\"f\\\"g\",\"demangled\":\"f\\\"g\",\"message\":\"m1\"}\n\
             {\"file\":\"dir/k.ptx\",\"line\":0,\"col\":0,\"pass\":\"p\",\"function\":\"_Z1kPi\",\"demangled\":\"k(int*)\",\"message\":\"m\\u001b2\"}\n"
        );
        assert_eq!(remarks_json_lines("k.ptx", "", &run_with(vec![])), "");
    }

    #[test]
    fn text_remarks_are_clangs() {
        let (source, run) = sample();
        assert_eq!(
            remarks_text("k.ptx", source, &run),
            "k.ptx:2:4: remark: m1 in 'f\"g' [p]\nk.ptx:0:0: remark: m\\u{1b}2 in 'k(int*)' (_Z1kPi) [p]\n"
        );
    }

    #[test]
    fn missed_remarks_apart_with_their_kind() {
        let (source, run) = sample();
        assert_eq!(
            missed_remarks_json_lines("k.ptx", source, &run),
            "{\"file\":\"k.ptx\",\"line\":2,\"col\":1,\"pass\":\"p\",\"function\":\"h\",\"demangled\":\"h\",\"message\":\"why\",\"kind\":\"missed\"}\n"
        );
        assert_eq!(missed_remarks_text("k.ptx", source, &run), "k.ptx:2:1: remark: missed: why in 'h' [p]\n");
    }

    #[test]
    fn stats_as_json() {
        let (_, run) = sample();
        assert_eq!(stats_json(&run), "{\"passes\":[{\"name\":\"p\",\"changed\":true,\"counters\":{\"copy\":2}}]}\n");
        assert_eq!(stats_json(&PassRun::default()), "{\"passes\":[]}\n");
    }

    #[test]
    fn what_does_not_demangle_is_none() {
        for name in ["_Z", "_Zzzz", "k", "", "_ZN"] {
            assert_eq!(demangle(name), None, "{name}");
        }
    }
}
