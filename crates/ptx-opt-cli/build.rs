//! Puts the commit the binary was built from into `--version`
//! (`PTX_OPT_COMMIT`), so that a bug report names the exact source. A build
//! outside a git checkout (a crates.io package, a tarball) or without git
//! installed says `unknown` rather than failing.

use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(output.stdout).ok()?;
    (output.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
}

fn main() {
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=PTX_OPT_COMMIT={commit}");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=GIT_DIR");
    // A new commit moves HEAD or the branch it names; rebuilding then keeps the commit right.
    if let Some(git_dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        let head = Path::new(&git_dir).join("HEAD");
        println!("cargo:rerun-if-changed={}", head.display());
        if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
            println!("cargo:rerun-if-changed={}", Path::new(&git_dir).join(branch).display());
        }
        println!("cargo:rerun-if-changed={}", Path::new(&git_dir).join("packed-refs").display());
    }
}
