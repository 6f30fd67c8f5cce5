//! Integration tests of `ptx-opt`: the one test binary of this crate.
//!
//! - `parse_snapshots`: every `testdata/parse/*.ptx` through the library,
//!   snapshotting the canonical print and the typed IR (register types,
//!   which registers each instruction defines and uses).
//! - `parse_errors`: every `testdata/parse-errors/*.ptx` through the real
//!   binary, checking exit code, empty stdout and the reported line:column,
//!   and snapshotting the rendered diagnostic.
//! - `command_line`: the spellings of opt and clang (`-o -`, `-passes=`,
//!   `-O3`), `--check`, `--print-changed`, `--filter-function`, dumps.
//! - `diagnostics`: `--color`, carets under operands, notes, `--error-limit`
//!   and the summary line, control characters escaped.
//! - `graphs`: `--emit=cfg-dot`/`defuse-dot`, one file per function with
//!   `--dot-dir`, parsed and rendered with graphviz; a 100-instruction
//!   kernel's def-use graph stays readable.
//! - `behaviour`: flags, `-o`, standard input, byte-identical output and a
//!   closed output pipe.
//! - `mutations`: a few hundred seeded mutants of corpus files through the
//!   binary with every pass: exit 0 or 1, never a crash or a hang, located
//!   errors.
//! - `remarks`: `--remarks=FILE` JSON Lines, parsed back and checked against
//!   the source and the library's remarks.

mod behaviour;
mod command_line;
mod diagnostics;
mod graphs;
mod mutations;
mod parse_errors;
mod parse_snapshots;
mod remarks;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The workspace's `testdata/<name>` directory.
pub fn testdata(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata").join(name)
}

/// The shared public corpus (`../shared/corpus/public` beside the workspace).
pub fn corpus_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/public").join(name)
}

/// The `.ptx` files of a directory, sorted by name so runs are deterministic.
pub fn ptx_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    files.sort();
    files
}

/// Runs the `ptx-opt` binary in `dir` with `args`, feeding `stdin`.
pub fn ptx_opt(dir: &Path, args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ptx-opt"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ptx-opt starts");
    let mut input = child.stdin.take().expect("stdin is piped");
    // ptx-opt may exit before reading everything (usage errors): ignore EPIPE.
    let _ = input.write_all(stdin);
    drop(input);
    child.wait_with_output().expect("ptx-opt runs")
}

/// Standard error as text.
pub fn stderr_of(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}
