//! `--remarks=FILE`: one JSON object per line and per remark, with the input
//! file, the 1-based line and column of the rewritten instruction, the pass,
//! the function and the message. Each line is parsed back with an independent
//! JSON parser and checked against the source text and the library's remarks.

use crate::{ptx_opt, stderr_of, testdata};
use serde_json::Value;
use std::path::Path;

const KEYS: [&str; 7] = ["col", "demangled", "file", "function", "line", "message", "pass"];

/// Copies the shipped example into `dir` (so `file` is a plain relative name).
fn example_in(dir: &Path) -> String {
    let source = std::fs::read_to_string(testdata("examples").join("narrow_loads.ptx")).expect("example is readable");
    std::fs::write(dir.join("narrow_loads.ptx"), &source).expect("scratch copy");
    source
}

/// Parses JSON Lines text and checks every field of every line against the
/// source and the remarks the library itself returns.
fn check_lines(text: &str, source: &str) {
    let run = ::ptx_opt::optimize(source, &::ptx_opt::Options::with_passes(["legalize-relaxed"]))
        .expect("the example optimizes");
    let expected: Vec<&::ptx_opt::Remark> = run.run.passes.iter().flat_map(|p| &p.stats.remarks).collect();
    let lines: Vec<&str> = text.lines().collect();
    assert!(!lines.is_empty(), "the example triggers rewrites, so remarks are expected");
    assert_eq!(lines.len(), expected.len(), "one line per remark:\n{text}");
    let index = ::ptx_opt::LineIndex::new(source);
    let source_lines: Vec<&str> = source.lines().collect();
    for (json, remark) in lines.iter().zip(expected) {
        let value: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("not JSON ({e}): {json}"));
        let object = value.as_object().unwrap_or_else(|| panic!("not an object: {json}"));
        let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
        keys.sort();
        assert_eq!(keys, KEYS, "{json}");
        assert_eq!(object["file"], "narrow_loads.ptx", "{json}");
        assert_eq!(object["pass"], "legalize-relaxed", "{json}");
        assert_eq!(object["function"], "narrow_loads", "{json}");
        assert_eq!(object["message"], remark.message.as_str(), "{json}");
        assert!(remark.message.contains("explicit"), "{json}");
        let line = object["line"].as_u64().unwrap_or_else(|| panic!("line is a number: {json}")) as usize;
        let col = object["col"].as_u64().unwrap_or_else(|| panic!("col is a number: {json}")) as usize;
        assert_eq!((line, col), index.line_col(source, remark.span.start as usize), "{json}");
        // The position is the start of an ld or st (maybe guarded) in the source.
        let at: String = source_lines[line - 1].chars().skip(col - 1).collect();
        let inst = at.strip_prefix("@%p1 ").unwrap_or(&at);
        assert!(inst.starts_with("ld.") || inst.starts_with("st."), "{json} points at {at:?}");
    }
}

#[test]
fn remarks_file_has_one_parsable_line_per_rewrite() {
    let dir = tempfile::tempdir().expect("scratch directory");
    let source = example_in(dir.path());
    let args = ["--passes=legalize-relaxed", "--remarks=remarks.jsonl", "-o", "out.ptx", "narrow_loads.ptx"];
    let output = ptx_opt(dir.path(), &args, b"");
    assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
    assert!(output.stdout.is_empty() && output.stderr.is_empty(), "{}", stderr_of(&output));
    let text = std::fs::read_to_string(dir.path().join("remarks.jsonl")).expect("remarks written");
    check_lines(&text, &source);
    // The tool prints the same module as the library.
    let printed = std::fs::read_to_string(dir.path().join("out.ptx")).expect("output written");
    let expected = ::ptx_opt::optimize(&source, &::ptx_opt::Options::with_passes(["legalize-relaxed"])).unwrap();
    assert_eq!(printed, expected.ptx);
}

#[test]
fn remarks_to_standard_error_leave_standard_output_alone() {
    let dir = tempfile::tempdir().expect("scratch directory");
    let source = example_in(dir.path());
    let output = ptx_opt(dir.path(), &["--passes=legalize-relaxed", "--remarks=-", "narrow_loads.ptx"], b"");
    assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
    check_lines(&stderr_of(&output), &source);
    let expected = ::ptx_opt::optimize(&source, &::ptx_opt::Options::with_passes(["legalize-relaxed"])).unwrap();
    assert_eq!(String::from_utf8(output.stdout).expect("UTF-8"), expected.ptx);
}

#[test]
fn standard_input_is_named_and_no_rewrite_gives_an_empty_file() {
    let dir = tempfile::tempdir().expect("scratch directory");
    let source = example_in(dir.path());
    let output = ptx_opt(dir.path(), &["--passes=legalize-relaxed", "--remarks=-", "-"], source.as_bytes());
    assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
    let stderr = stderr_of(&output);
    assert!(!stderr.is_empty() && stderr.lines().all(|l| l.starts_with(r#"{"file":"<stdin>","line":"#)), "{stderr}");

    let output = ptx_opt(dir.path(), &["--remarks=none.jsonl", "narrow_loads.ptx"], b"");
    assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
    assert_eq!(std::fs::read_to_string(dir.path().join("none.jsonl")).expect("remarks file created"), "");
}

#[test]
fn remarks_never_overwrite_the_input_or_the_output() {
    let dir = tempfile::tempdir().expect("scratch directory");
    let source = example_in(dir.path());
    let args = ["--passes=legalize-relaxed", "--remarks=narrow_loads.ptx", "narrow_loads.ptx"];
    let output = ptx_opt(dir.path(), &args, b"");
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr_of(&output).contains("is the input file"), "{}", stderr_of(&output));
    let args = ["--passes=legalize-relaxed", "--remarks=out.ptx", "-o", "out.ptx", "narrow_loads.ptx"];
    let output = ptx_opt(dir.path(), &args, b"");
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr_of(&output).contains("is the output file"), "{}", stderr_of(&output));
    assert_eq!(std::fs::read_to_string(dir.path().join("narrow_loads.ptx")).unwrap(), source);
    assert!(!dir.path().join("out.ptx").exists());
}
