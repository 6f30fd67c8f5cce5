#!/usr/bin/env bash
# Fetches the ptxas/nvdisasm toolchain (needs python3 + pip and access to PyPI on first run),
# then runs the whole workspace's tests. Extra arguments are passed to `cargo test`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/fetch-toolchain.sh
# Snapshots are checked, never written: a mismatch fails (as `cargo insta test --check`).
export INSTA_UPDATE=no INSTA_FORCE_PASS=0
cargo test --workspace "$@"
