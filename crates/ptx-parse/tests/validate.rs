//! `validate` is `parse` without keeping the module: it must accept what
//! `parse` accepts and reject what `parse` rejects with the same diagnostics
//! (the facade relies on it to run ptx-opt with no pass in little memory).

use std::path::PathBuf;

fn inputs(dir: &str) -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .collect();
    files.sort();
    files
}

#[test]
fn validate_gives_the_diagnostics_of_parse() {
    let files = [inputs("../../testdata/parse-errors"), inputs("../../testdata/parse")].concat();
    assert!(files.len() > 30, "the testdata inputs are there");
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let Ok(source) = String::from_utf8(bytes) else { continue };
        let parsed = ptx_parse::parse(&source).map(drop);
        assert_eq!(ptx_parse::validate(&source), parsed, "{}", path.display());
    }
}

#[test]
fn validate_accepts_the_public_corpus() {
    let files = inputs("../../../shared/corpus/public");
    assert_eq!(files.len(), 227);
    for path in files {
        let source = std::fs::read_to_string(&path).unwrap();
        assert_eq!(ptx_parse::validate(&source), Ok(()), "{}", path.display());
    }
}
