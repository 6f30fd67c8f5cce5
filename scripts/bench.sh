#!/usr/bin/env bash
# What ptx-opt costs: MB/s of each stage (parse, print, analyses, each pass,
# -O2 end to end) on one thread, peak RSS of each stage, linearity (1x/4x/16x
# of a file's functions), ptx-opt -O2 / ptxas time, and parse+print over the
# whole public corpus. Default files: the largest public corpus file and the
# 54 MB bench file. Arguments go to ptx-bench (see crates/ptx-bench/src/main.rs),
# e.g. `scripts/bench.sh --no-ptxas FILE.ptx`.
#
# Last, the Python stage: what calling ptx-opt from Python costs over the
# Rust library on the largest public corpus file (python/bench/overhead.py:
# wall and CPU time, no pass and -O2). It runs when the Python test venv
# exists (.cache/python/venv, made by scripts/test-python.sh, which
# scripts/test.sh runs): the wheel is rebuilt from the checkout (incremental)
# and installed there first. `--python` runs it in any case (making the venv:
# PyPI), `--python-only` runs only it, `--no-python` skips it;
# PTX_BENCH_PYTHON_RUNS=N sets its samples (default 15).
#
# For statistics over many samples of the same stages, run the criterion
# benches instead: cargo bench -p ptx-bench (PTX_BENCH_FILES=a.ptx:b.ptx.gz).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${PTX_OPT_PYTHON_DIR:-.cache/python}/venv
python=auto
args=()
for arg in "$@"; do
    case $arg in
        --python) python=yes ;;
        --python-only) python=only ;;
        --no-python) python=no ;;
        *) args+=("$arg") ;;
    esac
done
skipped="--no-python"
if [ "$python" = auto ]; then
    skipped="no venv at $venv: run scripts/test-python.sh, or pass --python"
    if [ -x "$venv/bin/maturin" ]; then python=yes; else python=no; fi
fi

if [ "$python" != only ]; then
    if [[ " ${args[*]} " != *" --no-ptxas "* ]]; then
        bash scripts/fetch-toolchain.sh >/dev/null
    fi
    cargo build --release -q -p ptx-bench
    target/release/ptx-bench "${args[@]}"
fi

if [ "$python" = no ]; then
    echo
    echo "python: skipped ($skipped)"
    exit 0
fi
bash scripts/test-python.sh --install-only
echo
echo "python: ptx_opt.optimize from Python over ptx_opt::optimize in Rust (python/bench/overhead.py)"
"$venv/bin/python" python/bench/overhead.py --runs "${PTX_BENCH_PYTHON_RUNS:-15}"
