//! Every public corpus file parses; an unchanged module prints verbatim; the
//! canonical printer is a fixpoint.

use std::path::PathBuf;

fn corpus_files() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/public");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .collect();
    files.sort();
    files
}

#[test]
fn public_corpus_parses_and_printing_is_a_fixpoint() {
    let files = corpus_files();
    assert_eq!(files.len(), 227, "the public corpus has 227 files");
    let mut failures = Vec::new();
    for path in &files {
        let source = std::fs::read_to_string(path).unwrap();
        let module = match ptx_parse::parse(&source) {
            Ok(m) => m,
            Err(errors) => {
                let e = &errors[0];
                let line = source[..e.span.start as usize].matches('\n').count() + 1;
                failures.push(format!("{}:{line}: {} ({:?})", path.display(), e.message, &source[e.span.start as usize..(e.span.start as usize + 40).min(source.len())]));
                continue;
            }
        };
        if ptx_ir::print::print_module(&module) != source {
            failures.push(format!("{}: unchanged module does not print verbatim", path.display()));
        }
        let printed = ptx_ir::print::print_module_canonical(&module);
        let reparsed = match ptx_parse::parse(&printed) {
            Ok(m) => m,
            Err(errors) => {
                let e = &errors[0];
                let line = printed[..e.span.start as usize].matches('\n').count() + 1;
                failures.push(format!("{} (printed):{line}: {}", path.display(), e.message));
                continue;
            }
        };
        let printed_again = ptx_ir::print::print_module_canonical(&reparsed);
        if printed != printed_again {
            failures.push(format!("{}: printing is not a fixpoint", path.display()));
        }
    }
    assert!(failures.is_empty(), "{} of {} files failed:\n{}", failures.len(), files.len(), failures.join("\n"));
}

/// Parsing one group of items at a time (lib.rs, chunks.rs) gives the module
/// that parsing the whole file in one go gives: same items, same spans, same
/// canonical text.
#[test]
fn parsing_in_pieces_matches_parsing_whole_files() {
    let mut failures = Vec::new();
    for path in corpus_files() {
        let source = std::fs::read_to_string(&path).unwrap();
        let (Ok(cut), Ok(whole)) = (ptx_parse::parse(&source), ptx_parse::parse_uncut(&source)) else {
            failures.push(format!("{}: does not parse", path.display()));
            continue;
        };
        let spans = |m: &ptx_ir::Module| -> Vec<(u32, u32)> {
            m.functions.values().map(|f| (f.span.start, f.span.end)).collect()
        };
        if spans(&cut) != spans(&whole)
            || cut.items.len() != whole.items.len()
            || ptx_ir::print::print_module_canonical(&cut) != ptx_ir::print::print_module_canonical(&whole)
        {
            failures.push(format!("{}: parsed in pieces differs from parsed whole", path.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
