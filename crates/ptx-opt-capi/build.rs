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
    Ok(())
}
