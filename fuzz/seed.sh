#!/usr/bin/env bash
# Builds the seed corpus of the `pipeline` fuzz target from the shared public
# PTX corpus, so that no PTX is copied into git. Files above MAX_BYTES are
# left out: libFuzzer spends its time mutating small inputs, and a 3 MiB
# seed would make every execution slow.
#
#   bash fuzz/seed.sh [CORPUS_DIR]      (default: ../shared/corpus/public)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="${1:-$here/../../shared/corpus/public}"
dst="$here/corpus/pipeline"
max_bytes="${MAX_BYTES:-65536}"
mkdir -p "$dst"
n=0
for f in "$src"/*.ptx; do
    size=$(wc -c < "$f")
    if [ "$size" -le "$max_bytes" ]; then
        cp "$f" "$dst/seed-$(basename "$f")"
        n=$((n + 1))
    fi
done
# A few hand-written small inputs that reach the limits quickly.
printf '.version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b32 %%r<4>;\n\tadd.u32 %%r1, %%r2, 99999999999999999999;\n\tret;\n}\n' > "$dst/seed-big-number.ptx"
printf '.version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b32 %%r<4000000000>;\n\tret;\n}\n' > "$dst/seed-big-family.ptx"
printf '.version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b16 %%rs<4>;\n\t.reg .pred %%p<2>;\n\tsetp.eq.u16 %%p1, %%rs1, 3;\n\t@%%p1 mov.b32 {%%rs2, %%rs3}, 0;\n\tret;\n}\n' > "$dst/seed-vector.ptx"
echo "seeded $n corpus files (<= $max_bytes bytes) + 3 hand-written into $dst"
