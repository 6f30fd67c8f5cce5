//! The generated files are what the generator makes of the description
//! today; `PTX_ISA_UPDATE=1 cargo test -p ptx-isa --test generated` writes
//! them. Fails when the description changed and they were not regenerated.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn check_or_update(path: &Path, text: &str, stale: &mut Vec<String>) {
    let current = std::fs::read_to_string(path).unwrap_or_default();
    if current == text {
        return;
    }
    if std::env::var("PTX_ISA_UPDATE").is_ok_and(|v| v == "1") {
        std::fs::write(path, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    } else {
        stale.push(path.display().to_string());
    }
}

#[test]
fn generated_files_are_up_to_date() {
    let isa = match ptx_isa::description::parse_dir(&ptx_isa::description::shipped_dir()) {
        Ok(isa) => isa,
        Err(errors) => panic!("{}", errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n")),
    };
    let mut stale = Vec::new();
    let generated = root().join("src/generated");
    check_or_update(&generated.join("tables.rs"), &ptx_isa::codegen::tables(isa), &mut stale);
    check_or_update(&generated.join("words.rs"), &ptx_isa::codegen::words(isa), &mut stale);
    let ir = root().join("../ptx-ir/src/generated");
    let opcodes = ptx_isa::codegen::ir_opcodes(isa).unwrap_or_else(|e| panic!("{e}"));
    check_or_update(&ir.join("opcodes.rs"), &opcodes, &mut stale);
    check_or_update(&ir.join("families.rs"), &ptx_isa::codegen::ir_families(isa), &mut stale);
    assert!(
        stale.is_empty(),
        "stale generated files (run `PTX_ISA_UPDATE=1 cargo test -p ptx-isa --test generated`):\n{}",
        stale.join("\n")
    );
}

/// The generated tables are the description as read at run time.
#[test]
fn the_generated_tables_are_the_description() {
    let isa = ptx_isa::description::parse_dir(&ptx_isa::description::shipped_dir()).expect("parses");
    assert!(*isa == ptx_isa::ISA, "regenerate: PTX_ISA_UPDATE=1 cargo test -p ptx-isa --test generated");
}
