#!/usr/bin/env bash
# Builds the Python package (python/, pyo3 + maturin) as a wheel, installs it
# into a venv cached under .cache/python (or $PTX_OPT_PYTHON_DIR) with the
# pinned test requirements (python/requirements-test.txt: maturin, pytest,
# Triton), and runs its tests (python/tests, Triton's included) and the
# example. Fails if a test fails or if pytest collects none. Extra arguments
# go to pytest. Needs python3 (3.10+) with venv and pip, and PyPI the first time.
#
# `--install-only` (first argument) stops once the wheel is installed in the
# venv: what scripts/bench.sh uses before timing the package
# (python/bench/overhead.py).
set -euo pipefail
cd "$(dirname "$0")/.."
install_only=false
if [ "${1:-}" = --install-only ]; then
    install_only=true
    shift
fi
dir=${PTX_OPT_PYTHON_DIR:-.cache/python}
venv=$dir/venv
requirements=python/requirements-test.txt

if [ ! -x "$venv/bin/python" ] || ! cmp -s "$requirements" "$venv/requirements-test.txt"; then
    rm -rf "$venv"
    "${PYTHON:-python3}" -m venv "$venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$requirements"
    cp "$requirements" "$venv/requirements-test.txt"
fi

# The crate is its own workspace (python/Cargo.toml), which the root's
# `cargo fmt --all` and `cargo clippy --workspace` do not see.
if ! $install_only; then
    cargo fmt --manifest-path python/Cargo.toml -- --check
    cargo clippy -q --manifest-path python/Cargo.toml --all-targets -- -D warnings
fi

rm -rf "$dir/wheels"
"$venv/bin/maturin" build -q --release -m python/Cargo.toml -o "$dir/wheels"
"$venv/bin/python" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps "$dir"/wheels/ptx_opt-*.whl
if $install_only; then
    exit 0
fi

# The project's ptxas for the example (its test falls back to Triton's).
PTXAS=$(bash scripts/fetch-toolchain.sh | sed -n 's/^ptxas13=//p')
export PTXAS
# pytest, not `python -m pytest`: the installed wheel is tested, never python/ptx_opt.
# Exit status 5 (no test collected) fails this script like a failed test.
"$venv/bin/pytest" -p no:cacheprovider python/tests "$@"
