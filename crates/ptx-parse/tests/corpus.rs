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
                failures.push(format!(
                    "{}:{line}: {} ({:?})",
                    path.display(),
                    e.message,
                    &source[e.span.start as usize..(e.span.start as usize + 40).min(source.len())]
                ));
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

/// Every `.ptx` file under `testdata/` (crafted cases: odd operands,
/// comments in odd places, errors), in a stable order.
fn testdata_files() -> Vec<PathBuf> {
    fn walk(dir: &std::path::Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|x| x == "ptx") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata"), &mut files);
    files.sort();
    files
}

/// The body scanner (lower/body_scan.rs) gives the module the grammar alone
/// gives, down to spans and the order of interned names, and the same
/// diagnostics: on the corpus and on every crafted file, errors included.
#[test]
fn scanned_bodies_match_the_grammar() {
    let files: Vec<PathBuf> = corpus_files().into_iter().chain(testdata_files()).collect();
    assert!(files.len() > 300, "corpus and testdata found");
    let mut failures = Vec::new();
    for path in &files {
        let Ok(source) = std::fs::read_to_string(path) else { continue };
        let scanned = format!("{:?}", ptx_parse::parse(&source));
        let reference = format!("{:?}", ptx_parse::parse_reference(&source));
        if scanned != reference {
            let at = scanned.bytes().zip(reference.bytes()).take_while(|(a, b)| a == b).count();
            let from = at.saturating_sub(200);
            failures.push(format!(
                "{}: differs at byte {at}:\n  scanned:   {}\n  reference: {}",
                path.display(),
                &scanned[from..(at + 200).min(scanned.len())],
                &reference[from..(at + 200).min(reference.len())]
            ));
        }
    }
    assert!(failures.is_empty(), "{} files differ:\n{}", failures.len(), failures.join("\n"));
}

/// The body scanner reads nearly every body statement of real PTX itself
/// (otherwise it would buy no speed): the rest are declarations and
/// directives. No corpus function goes back to the grammar whole, every
/// function's head is parsed apart from the items before it (once), and the
/// head scanner reads every head.
#[test]
fn the_scanner_reads_nearly_all_of_the_corpus() {
    let mut total = ptx_parse::ScanCoverage::default();
    let (mut whole, mut heads_with_items) = (Vec::new(), Vec::new());
    for path in corpus_files() {
        let source = std::fs::read_to_string(&path).unwrap();
        let c = ptx_parse::scan_coverage(&source).expect("corpus files parse");
        if c.grammar_groups > 0 {
            whole.push(path.display().to_string());
        }
        if c.heads_parsed_with_items > 0 {
            heads_with_items.push(path.display().to_string());
        }
        total.scanned_statements += c.scanned_statements;
        total.grammar_statements += c.grammar_statements;
        total.grammar_groups += c.grammar_groups;
    }
    eprintln!("{total:?}");
    assert!(whole.is_empty(), "functions parsed by the grammar whole in: {whole:?}");
    assert!(heads_with_items.is_empty(), "heads parsed with the items before them in: {heads_with_items:?}");
    assert_eq!(total.grammar_heads, 0, "heads the grammar read: {total:?}");
    let all = total.scanned_statements + total.grammar_statements;
    assert!(total.scanned_statements * 100 >= all * 90, "{total:?}");
}
