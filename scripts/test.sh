#!/usr/bin/env bash
# Fetches the ptxas/nvdisasm toolchain and graphviz-pure (needs python3 + pip and access to
# PyPI on first run), checks formatting and lints, then runs the whole workspace's tests and the
# Python package's (scripts/test-python.sh). Extra arguments are passed to `cargo test`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/fetch-toolchain.sh
# graphviz for the CLI's graph tests (crates/ptx-opt-cli/tests/cli/graphs.rs render every DOT
# graph with it): graphviz-pure from PyPI, one static executable (5 s, 6 MB, the first time).
# A PTX_OPT_DOT already set (e.g. to a system graphviz's dot) is kept.
PTX_OPT_DOT=${PTX_OPT_DOT:-$(bash scripts/fetch-graphviz.sh)}
export PTX_OPT_DOT
# Hygiene first: both are fast, and a red one fails the run before the long tests.
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
# Snapshots are checked, never written: a mismatch fails (as `cargo insta test --check`).
export INSTA_UPDATE=no INSTA_FORCE_PASS=0
cargo test --workspace "$@"
# The Python package (python/, its own cargo workspace): wheel, pytest with Triton.
bash scripts/test-python.sh
