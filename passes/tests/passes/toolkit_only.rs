//! Passes decide with the shared value queries and build with the IR's
//! vocabulary: no pass reads reaching definitions itself (the safety rules
//! of "the definition that reaches here" live in `ptx_analysis::Values`,
//! tested once), and none spells a modifier word as a string (words are
//! `ptx_ir::Word` constants, checked by the compiler).

use std::path::PathBuf;

const FORBIDDEN: &[(&str, &str)] = &[
    ("reaching_defs", "use ptx_analysis::Values (sole_def, producer, known_value, defs_reaching, ...)"),
    ("known_constant", "use Values::known_value"),
    ("value_unchanged_between", "use Values::unchanged_between / forwardable"),
    ("Word::lookup", "use a ptx_ir::Word constant"),
    ("has_word(\"", "use a ptx_ir::Word constant"),
    ("BodyEdits", "use ptx_pass::Rewriter"),
    ("FreshRegs", "use Rewriter::temp"),
];

#[test]
fn passes_use_only_the_toolkit() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![dir.clone()];
    let mut offenders = Vec::new();
    let mut scanned = 0;
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        scanned += 1;
        let text = std::fs::read_to_string(&path).unwrap();
        for (number, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for (needle, instead) in FORBIDDEN {
                if code.contains(needle) {
                    offenders.push(format!("{}:{}: {needle}: {instead}", path.display(), number + 1));
                }
            }
        }
    }
    assert!(scanned >= 4, "only {scanned} files under {}", dir.display());
    assert!(offenders.is_empty(), "passes bypass the toolkit:\n{}", offenders.join("\n"));
}
