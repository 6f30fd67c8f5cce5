#!/usr/bin/env bash
# SASS instruction counts before/after combine-cvt-pack for the corpus kernels where it fires.
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo run --release -q -p ptx-opt --example cvt_pack_sass -- "$@"
