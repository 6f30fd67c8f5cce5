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
//!
//! It also writes `target/<profile>/pkgconfig/ptx_opt.pc`, a pkg-config file
//! for the library where it was built (see `build_tree_pkg_config`).

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
    build_tree_pkg_config(&crate_dir, &out_dir)?;
    Ok(())
}

/// `target/<profile>/pkgconfig/ptx_opt.pc`, for using the library from the
/// build tree without installing it:
/// `PKG_CONFIG_PATH=target/release/pkgconfig pkg-config --cflags --libs ptx_opt`
/// gives the committed header's directory and the static library of that
/// build (a program so linked needs no library path at run time).
/// `OUT_DIR` is `target/<profile>/build/ptx-opt-capi-HASH/out`; a build
/// with another layout (no `build` directory there) gets no file.
fn build_tree_pkg_config(crate_dir: &std::path::Path, out_dir: &std::path::Path) -> Result<(), Box<dyn Error>> {
    let Some(build) = out_dir.parent().and_then(std::path::Path::parent) else {
        return Ok(());
    };
    let Some(profile_dir) = build.parent().filter(|_| build.file_name().is_some_and(|n| n == "build")) else {
        return Ok(());
    };
    let dir = profile_dir.join("pkgconfig");
    std::fs::create_dir_all(&dir)?;
    let pc = format!(
        "# ptx-opt's C library in its build tree (not installed; scripts/install-capi.sh installs it)\n\
         libdir={}\n\
         includedir={}\n\n\
         Name: ptx_opt\n\
         Description: C API of ptx-opt, an optimizer for NVIDIA PTX (build tree)\n\
         Version: {}\n\
         Libs: ${{libdir}}/libptx_opt.a -lpthread -ldl -lm\n\
         Cflags: -I${{includedir}}\n",
        profile_dir.display(),
        crate_dir.join("include").display(),
        std::env::var("CARGO_PKG_VERSION")?
    );
    // Written only when it differs, so that the file's time says when it changed.
    if std::fs::read_to_string(dir.join("ptx_opt.pc")).ok().as_deref() != Some(pc.as_str()) {
        std::fs::write(dir.join("ptx_opt.pc"), pc)?;
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
