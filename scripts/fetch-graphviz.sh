#!/usr/bin/env bash
# Installs (once) graphviz-pure from PyPI into a venv under .cache/graphviz (or
# $PTX_OPT_GRAPHVIZ_DIR) and prints the path of its program. graphviz-pure is
# graphviz's `dot` command line ported to Rust (Graphviz 16.1.0's layout, same
# flags), shipped as one statically linked executable: it needs no system
# library, so a bare CI machine can render DOT. scripts/test.sh passes it to the
# CLI's graph tests (crates/ptx-opt-cli/tests/cli/graphs.rs) as $PTX_OPT_DOT.
# Needs python3 with venv and pip, and PyPI the first time (a 6 MB wheel).
set -euo pipefail
cd "$(dirname "$0")/.."
version=0.2.2
dir=${PTX_OPT_GRAPHVIZ_DIR:-.cache/graphviz}
venv=$dir/venv
exe=$venv/bin/graphviz-pure
if [ ! -x "$exe" ] || ! "$exe" -V 2>&1 | grep -q "graphviz-pure version $version "; then
    rm -rf "$venv"
    "${PYTHON:-python3}" -m venv "$venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check --only-binary=:all: "graphviz-pure==$version"
fi
echo "$(cd "$venv/bin" && pwd)/graphviz-pure"
