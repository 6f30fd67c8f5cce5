//! Integration tests of the IR crate.

use std::path::Path;

/// Every word a pass tests with `has_word` must be in the vocabulary,
/// or the test silently answers "no" (a debug assertion catches it only when
/// that code path runs).
#[test]
fn every_word_tested_by_the_code_is_in_the_vocabulary() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut missing = Vec::new();
    let mut stack = vec![root.join("crates"), root.join("passes")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if !path.ends_with("target") {
                    stack.push(path);
                }
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            for (i, _) in text.match_indices("has_word(\"") {
                let rest = &text[i + "has_word(\"".len()..];
                let word = &rest[..rest.find('"').unwrap()];
                if ptx_ir::Word::lookup(word).is_none() {
                    missing.push(format!("{}: {word}", path.display()));
                }
            }
        }
    }
    assert!(missing.is_empty(), "words not in ptx_ir::words::WORDS: {missing:?}");
}

#[test]
fn vocabulary_is_sorted_for_binary_search() {
    let words = ptx_ir::words::WORDS;
    assert!(words.windows(2).all(|w| w[0] < w[1]), "WORDS must be sorted byte-wise without duplicates");
    for w in words {
        assert_eq!(ptx_ir::Word::lookup(w).map(|x| x.as_str()), Some(*w));
    }
}
