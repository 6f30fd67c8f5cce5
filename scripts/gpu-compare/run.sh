#!/usr/bin/env bash
# Runs every line of a spec (A.ptx B.ptx KERNEL PARAMS) through compare on
# the GPU, one process per kernel (a fault ends only its own run); the
# spec comes from make-spec.py. Prints compare's lines and a summary; exits
# 1 if any kernel differs.
#   scripts/gpu-compare/run.sh DIR      (DIR holds spec.txt and the PTX)
set -uo pipefail
dir=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
exe=$dir/compare
if [ ! -x "$exe" ]; then
    # A machine without a C compiler runs the copy built beside the spec.
    cc -O2 -o "$exe" "$here/compare.c" -ldl 2>/dev/null || cp "$dir/compare.prebuilt" "$exe" || exit 2
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
same=0 differ=0 failed=0
while read -r a b kernel params; do
    out=$(cd "$dir" && timeout 60 "$exe" "$a" "$b" "$kernel" "$params")
    rc=$?
    echo "$a: $out" | sed "2,\$s|^|$a: |"
    case $rc in 0) same=$((same + 1)) ;; 1) differ=$((differ + 1)) ;; *) failed=$((failed + 1)) ;; esac
done < "$dir/spec.txt"
echo "kernels: $same same, $differ differ, $failed failed to run"
[ "$differ" = 0 ]
