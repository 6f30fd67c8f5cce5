#!/usr/bin/env bash
# The interpreter's coverage of the public corpus: `ptx-interp diff F F` for
# every kernel, the share checked conclusively and the causes of the rest.
# Usage: scripts/interp-coverage.sh [--list] [CORPUS_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
list=()
if [[ "${1:-}" == "--list" ]]; then
    list=(--list)
    shift
fi
corpus="${1:-../shared/corpus/public}"
cargo build --release -q -p ptx-interp
exec target/release/ptx-interp coverage "${list[@]}" "$corpus"/*.ptx
