//! The committed C header `include/ptx_opt.h` is exactly what cbindgen
//! generates from `src/lib.rs` (build.rs writes it into `OUT_DIR`), so the
//! API and the header C users include cannot drift apart. After changing the
//! API, `PTX_OPT_UPDATE_HEADER=1 cargo test -p ptx-opt-capi --test header`
//! rewrites the committed copy. A second, independent check finds every
//! exported function in the source by reading it and looks for its
//! declaration in the header.

use std::path::PathBuf;

/// The header cbindgen generated for this build.
const GENERATED: &str = include_str!(concat!(env!("OUT_DIR"), "/ptx_opt.h"));

fn committed_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("include/ptx_opt.h")
}

#[test]
fn committed_header_is_the_generated_one() {
    let path = committed_path();
    if std::env::var_os("PTX_OPT_UPDATE_HEADER").is_some_and(|v| v == "1") {
        std::fs::write(&path, GENERATED).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    assert!(
        committed == GENERATED,
        "include/ptx_opt.h is out of date with src/lib.rs; regenerate it with \
         `PTX_OPT_UPDATE_HEADER=1 cargo test -p ptx-opt-capi --test header`"
    );
}

/// The names of the `#[no_mangle]` functions and the constants of `src/lib.rs`.
fn exported_names() -> (Vec<String>, Vec<String>) {
    let source = std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs"))
        .expect("src/lib.rs is readable");
    let mut functions = Vec::new();
    let mut constants = Vec::new();
    let mut exported = false;
    for line in source.lines().map(str::trim) {
        if line == "#[no_mangle]" {
            exported = true;
            continue;
        }
        if exported {
            let rest =
                line.strip_prefix("pub unsafe extern \"C\" fn ").or_else(|| line.strip_prefix("pub extern \"C\" fn "));
            let rest = rest.unwrap_or_else(|| panic!("#[no_mangle] not followed by a pub extern \"C\" fn: {line}"));
            functions.push(rest.split('(').next().unwrap_or_default().to_string());
            exported = false;
        } else if let Some(rest) = line.strip_prefix("pub const ") {
            constants.push(rest.split(':').next().unwrap_or_default().to_string());
        }
    }
    (functions, constants)
}

#[test]
fn every_exported_function_and_constant_is_declared() {
    let header = std::fs::read_to_string(committed_path()).expect("include/ptx_opt.h is readable");
    let (functions, constants) = exported_names();
    assert!(functions.len() >= 16, "too few exported functions found: {functions:?}");
    for name in &functions {
        assert!(name.starts_with("ptx_opt_"), "exported name without the ptx_opt_ prefix: {name}");
        assert!(
            header.contains(&format!(" {name}(")) || header.contains(&format!("*{name}(")),
            "{name} is not declared"
        );
    }
    let version = [env!("CARGO_PKG_VERSION_MAJOR"), env!("CARGO_PKG_VERSION_MINOR"), env!("CARGO_PKG_VERSION_PATCH")];
    let expected = [
        ("PTX_OPT_OK", "0"),
        ("PTX_OPT_ERROR_INPUT", "1"),
        ("PTX_OPT_ERROR_USAGE", "2"),
        ("PTX_OPT_ERROR_INTERNAL", "3"),
        ("PTX_OPT_VERSION_MAJOR", version[0]),
        ("PTX_OPT_VERSION_MINOR", version[1]),
        ("PTX_OPT_VERSION_PATCH", version[2]),
        ("PTX_OPT_FORMAT_JSON", "0"),
        ("PTX_OPT_FORMAT_TEXT", "1"),
    ];
    assert_eq!(constants, expected.map(|(name, _)| name));
    for (name, value) in expected {
        assert!(header.contains(&format!("#define {name} {value}\n")), "{name} is not defined as {value}");
    }
    for opaque in ["PtxOptOptions", "PtxOptResult"] {
        assert!(header.contains(&format!("typedef struct {opaque} {opaque};")), "{opaque} is not declared opaque");
    }
}
