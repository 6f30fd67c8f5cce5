//! Integration tests of the passes, one binary: one module per pass, with
//! the helpers they share here.

mod combine_cvt_pack;
mod toolkit_only;
mod verify_each;

use std::path::PathBuf;

/// `shared/` (the corpus, the oracle and the spec), beside the repository.
pub fn shared_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared")
}

/// The public corpus files, sorted by name.
pub fn corpus_files() -> Vec<PathBuf> {
    let dir = shared_dir().join("corpus/public");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .collect();
    files.sort();
    files
}

/// The 1-based line of byte offset `at` in `text`.
pub fn line_of(text: &str, at: u32) -> usize {
    text.as_bytes()[..(at as usize).min(text.len())].iter().filter(|&&b| b == b'\n').count() + 1
}
