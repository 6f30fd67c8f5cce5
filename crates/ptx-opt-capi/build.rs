//! Generates the C header `ptx_opt.h` from `src/lib.rs` with cbindgen, into
//! `OUT_DIR` (never into the source tree: a build must not edit sources).
//!
//! The committed copy `include/ptx_opt.h` is what C users include. The test
//! `tests/header.rs` compares it byte for byte with the generated one, so a
//! change to the API that is not reflected in the committed header fails the
//! tests; `PTX_OPT_UPDATE_HEADER=1 cargo test -p ptx-opt-capi --test header`
//! copies the generated header over it. cbindgen's output depends only on the
//! source, `cbindgen.toml` and the cbindgen version pinned by `Cargo.lock`, so
//! it is deterministic. `with_src` parses `src/lib.rs` alone: no `cargo
//! metadata` call (and so no nested cargo) from inside the build.

use std::error::Error;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn Error>> {
    let crate_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?);
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);
    println!("cargo:rerun-if-changed=src/lib.rs");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    println!("cargo:rerun-if-changed=build.rs");
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml"))?;
    let bindings = cbindgen::Builder::new().with_config(config).with_src(crate_dir.join("src/lib.rs")).generate()?;
    bindings.write_to_file(out_dir.join("ptx_opt.h"));
    // A SONAME, so that programs linked against an installed library keep
    // loading a compatible one (scripts/install-capi.sh makes the links).
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,{}", soname()?);
    }
    Ok(())
}

/// `libptx_opt.so.MAJOR`, or `libptx_opt.so.0.MINOR` before 1.0, when each
/// minor version may break the ABI (Cargo's reading of semver).
fn soname() -> Result<String, Box<dyn Error>> {
    let major = std::env::var("CARGO_PKG_VERSION_MAJOR")?;
    let minor = std::env::var("CARGO_PKG_VERSION_MINOR")?;
    Ok(if major == "0" { format!("libptx_opt.so.0.{minor}") } else { format!("libptx_opt.so.{major}") })
}
