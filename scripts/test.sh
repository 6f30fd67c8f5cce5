#!/usr/bin/env bash
# Fetches the ptxas/nvdisasm toolchain (needs python3 + pip and access to PyPI on first run),
# then runs the whole workspace's tests. Extra arguments are passed to `cargo test`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/fetch-toolchain.sh
cargo test --workspace "$@"
