//! ptxas is the judge of equivalence: every public corpus file goes through
//! parse + print with no passes and must give the byte-identical cubin.
//!
//! Two printers are checked. The default printer reproduces an unchanged
//! module byte for byte, so its cubin is identical for all 227 files. The
//! canonical printer (one statement per line, comments dropped) must give the
//! identical cubin too, except where ptxas embeds the PTX text itself in the
//! cubin (`.nv_debug_ptx_txt`, with line info); there the machine code
//! (`.text.*`) must still be identical.

use rayon::prelude::*;
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

fn text_sections(cubin: &[u8]) -> Vec<(String, Vec<u8>)> {
    ptx_toolchain::elf_sections(cubin).into_iter().filter(|(name, _)| name.starts_with(".text.")).collect()
}

fn embeds_ptx_text(cubin: &[u8]) -> bool {
    ptx_toolchain::elf_sections(cubin).iter().any(|(name, _)| name == ".nv_debug_ptx_txt")
}

enum Verdict {
    Identical,
    SameCodeDebugTextDiffers,
}

fn check(toolchain: &ptx_toolchain::Toolchain, path: &PathBuf) -> Result<(Verdict, Verdict), String> {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let source = std::fs::read_to_string(path).unwrap();
    let target = ptx_toolchain::target_of(&source).ok_or(format!("{name}: no target"))?;
    let module = ptx_opt::parse(&source).map_err(|e| format!("{name}: {e}"))?;
    let preserved = ptx_opt::print(&module);
    let canonical = ptx_ir::print::print_module_canonical(&module);
    let compile = |text: &str, what: &str| {
        toolchain.compile(text, &target, &[]).map_err(|e| format!("{name}: {what} rejected: {e}"))
    };
    let original = compile(&source, "original")?;
    let judge = |cubin: Vec<u8>, what: &str| -> Result<Verdict, String> {
        if cubin == original {
            Ok(Verdict::Identical)
        } else if embeds_ptx_text(&original) && text_sections(&cubin) == text_sections(&original) {
            Ok(Verdict::SameCodeDebugTextDiffers)
        } else {
            Err(format!("{name}: {what} printer changes the cubin"))
        }
    };
    let preserved_verdict = judge(compile(&preserved, "preserved")?, "default")?;
    let canonical_verdict = judge(compile(&canonical, "canonical")?, "canonical")?;
    Ok((preserved_verdict, canonical_verdict))
}

#[test]
fn round_trip_gives_identical_cubin_for_every_public_file() {
    let toolchain = ptx_toolchain::ensure().expect("ptxas is available");
    let files = corpus_files();
    assert_eq!(files.len(), 227);
    let results: Vec<Result<(Verdict, Verdict), String>> = files.par_iter().map(|p| check(&toolchain, p)).collect();
    let failures: Vec<&String> = results.iter().filter_map(|r| r.as_ref().err()).collect();
    assert!(failures.is_empty(), "{} of {} files failed:\n{:#?}", failures.len(), files.len(), failures);
    let preserved_identical = results.iter().filter(|r| matches!(r, Ok((Verdict::Identical, _)))).count();
    let canonical_identical = results.iter().filter(|r| matches!(r, Ok((_, Verdict::Identical)))).count();
    eprintln!(
        "identical cubin: default printer {preserved_identical}/227, canonical printer {canonical_identical}/227 \
         (the rest embed the PTX text in debug sections; their machine code is identical)"
    );
    assert_eq!(preserved_identical, 227, "the default printer reproduces unchanged input exactly");
}
