//! Integration tests of the verifier, one binary: checks by case, the ptxas
//! oracle and the corpus (`checks`), the ISA sweep (`isa_sweep`), the
//! form-mutation set (`form_mutations`) and the mutation set (`mutations`),
//! with the helpers they share here and in `alone` (a case alone in the
//! sweep's template).

mod alone;
mod checks;
mod form_mutations;
mod isa_sweep;
mod mutations;

use ptx_ir::{Diagnostic, Module};
use std::path::PathBuf;

/// The description to check forms against: the generated one, or with
/// `PTX_ISA_DESCRIPTION=DIR` the `*.ptxisa` files of DIR read now (to try
/// an edit of the description without regenerating and rebuilding).
pub fn isa() -> &'static ptx_isa::Isa {
    static ISA: std::sync::OnceLock<&'static ptx_isa::Isa> = std::sync::OnceLock::new();
    ISA.get_or_init(|| match std::env::var_os("PTX_ISA_DESCRIPTION") {
        None => &ptx_isa::ISA,
        Some(dir) => ptx_isa::description::parse_dir(std::path::Path::new(&dir))
            .unwrap_or_else(|errors| panic!("{}", errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n"))),
    })
}

/// The verifier's diagnostics for `module` (with [`isa`]), as
/// `ptx_verify::verify_module` gives them.
pub fn verify(module: &Module) -> Vec<Diagnostic> {
    let verify = ptx_verify::Verify::for_module(module).with_isa(isa());
    let mut errors = verify.check_module(module);
    for func in module.functions.values().filter(|f| f.has_body()) {
        errors.extend(ptx_verify::verify_function(func, &verify));
    }
    errors
}

/// The repository's root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `shared/` (the corpus, the oracle and the spec), beside the repository.
pub fn shared_dir() -> PathBuf {
    repo_root().join("../shared")
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
