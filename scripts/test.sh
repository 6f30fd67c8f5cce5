#!/usr/bin/env bash
# Fetches the ptxas/nvdisasm toolchain (needs python3 + pip and access to PyPI on first run),
# checks formatting and lints, then runs the whole workspace's tests and the Python package's
# (scripts/test-python.sh). Extra arguments are passed to `cargo test`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/fetch-toolchain.sh
# Hygiene first: both are fast, and a red one fails the run before the long tests.
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
# Snapshots are checked, never written: a mismatch fails (as `cargo insta test --check`).
export INSTA_UPDATE=no INSTA_FORCE_PASS=0
cargo test --workspace "$@"
# The Python package (python/, its own cargo workspace): wheel, pytest with Triton.
bash scripts/test-python.sh
