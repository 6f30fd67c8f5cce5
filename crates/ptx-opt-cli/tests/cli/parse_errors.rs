//! Diagnostics for malformed input: every `testdata/parse-errors/*.ptx` is
//! run through the real `ptx-opt` binary (from inside that directory, so the
//! file name is shown bare). Each must exit with status 1, print nothing on
//! standard output, and report its first error as `NAME.ptx:LINE:COL: error:`
//! at the place of the mistake listed in [`EXPECTED`]; the whole rendered
//! diagnostic is snapshotted beside the inputs.

use crate::{ptx_files, ptx_opt, stderr_of, testdata};

/// Each input and where its mistake is (1-based line and column; for input
/// that ends too early, the end of the input).
const EXPECTED: &[(&str, usize, usize)] = &[
    ("address-offset-subtracted", 13, 26),
    ("address-size-48", 4, 1),
    ("bad-number-hex", 10, 15),
    ("bad-number-suffix", 10, 15),
    ("bad-token-hash", 10, 1),
    ("bad-version", 2, 10),
    ("constant-expression-division-by-zero", 13, 15),
    ("constant-expression-float-conditional", 13, 21),
    ("constant-expression-hex-float-operand", 13, 20),
    ("constant-expression-mixed-types", 13, 20),
    ("constant-expression-overflow", 13, 15),
    ("duplicate-label", 12, 1),
    ("duplicate-register", 9, 12),
    ("empty", 1, 1),
    ("garbage-after-brace", 9, 3),
    ("immediate-too-large-hex", 10, 20),
    ("initializer-division-by-zero", 5, 25),
    ("integer-too-large", 10, 16),
    ("invalid-utf8", 6, 7),
    ("label-at-eof", 10, 1),
    ("missing-operand", 10, 15),
    ("missing-semicolon", 10, 16),
    ("missing-target", 3, 1),
    ("missing-version", 2, 1),
    ("nesting-too-deep", 8, 256),
    ("offset-too-large", 12, 26),
    ("register-family-4g", 8, 15),
    ("register-family-too-large", 8, 15),
    ("stray-close-brace", 10, 1),
    ("too-many-registers", 9, 28),
    ("truncated-function", 12, 1),
    ("truncated-instruction", 10, 18),
    ("undeclared-guard", 10, 3),
    ("unknown-directive", 6, 1),
    ("unknown-register-type", 8, 7),
    ("unterminated-block", 15, 1),
    ("unterminated-comment", 10, 1),
    ("unterminated-string", 10, 9),
    ("vector-too-large", 12, 19),
    ("version-too-large", 2, 1),
];

/// Runs one input and returns its standard error after checking the exit
/// status, the empty standard output and the location of the first error.
fn check(name: &str, line: usize, col: usize) -> String {
    let file = format!("{name}.ptx");
    let output = ptx_opt(&testdata("parse-errors"), &[&file], b"");
    let stderr = stderr_of(&output);
    assert_eq!(output.status.code(), Some(1), "{file}: exit status; stderr:\n{stderr}");
    assert!(output.stdout.is_empty(), "{file}: nothing may be written to standard output");
    assert!(!stderr.contains("panicked"), "{file}: panic:\n{stderr}");
    let first = stderr.lines().next().unwrap_or("");
    let expected_prefix = format!("{file}:{line}:{col}: error: ");
    assert!(first.starts_with(&expected_prefix), "{file}: expected {expected_prefix:?}..., got {first:?}");
    assert!(first.len() > expected_prefix.len(), "{file}: the error has no message");
    stderr
}

#[test]
fn parse_errors_are_located_and_rendered() {
    let dir = testdata("parse-errors");
    let on_disk: Vec<String> = ptx_files(&dir)
        .iter()
        .map(|p| p.file_stem().and_then(|s| s.to_str()).expect("UTF-8 file name").to_string())
        .collect();
    let listed: Vec<String> = EXPECTED.iter().map(|(name, _, _)| name.to_string()).collect();
    assert_eq!(on_disk, listed, "EXPECTED must list every input of {}, in name order", dir.display());
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(dir.join("snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    for &(name, line, col) in EXPECTED {
        settings.set_input_file(dir.join(format!("{name}.ptx")));
        settings.bind(|| insta::assert_snapshot!(name, check(name, line, col)));
    }
}
