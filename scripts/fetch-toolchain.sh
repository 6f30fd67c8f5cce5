#!/usr/bin/env bash
# Downloads (once) NVIDIA's ptxas 13.5, ptxas 12.9 and nvdisasm 13.5 from PyPI into
# .cache/toolchain/ (or $PTX_OPT_TOOLCHAIN_DIR) and prints their paths as name=path lines.
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo run -q -p ptx-toolchain -- fetch
