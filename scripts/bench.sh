#!/usr/bin/env bash
# What ptx-opt costs: MB/s of each stage (parse, print, analyses, each pass,
# -O2 end to end) on one thread, peak RSS of each stage, linearity (1x/4x/16x
# of a file's functions), ptx-opt -O2 / ptxas time, and parse+print over the
# whole public corpus. Default files: the largest public corpus file and the
# 54 MB bench file. Arguments go to ptx-bench (see crates/ptx-bench/src/main.rs),
# e.g. `scripts/bench.sh --no-ptxas FILE.ptx`.
#
# For statistics over many samples of the same stages, run the criterion
# benches instead: cargo bench -p ptx-bench (PTX_BENCH_FILES=a.ptx:b.ptx.gz).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ " $* " != *" --no-ptxas "* ]]; then
    bash scripts/fetch-toolchain.sh >/dev/null
fi
cargo build --release -q -p ptx-bench
exec target/release/ptx-bench "$@"
