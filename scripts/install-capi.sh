#!/usr/bin/env bash
# Installs the C library of ptx-opt under PREFIX:
#   PREFIX/lib/libptx_opt.so.X.Y.Z, its SONAME link (libptx_opt.so.0.Y before
#   1.0) and libptx_opt.so, PREFIX/lib/libptx_opt.a,
#   PREFIX/include/ptx_opt.h and PREFIX/lib/pkgconfig/ptx_opt.pc.
#
# usage: scripts/install-capi.sh PREFIX            (cargo build --release first)
#        scripts/install-capi.sh PREFIX --from DIR  (libraries already built in DIR)
# Then: cc app.c $(PKG_CONFIG_PATH=PREFIX/lib/pkgconfig pkg-config --cflags --libs ptx_opt)
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
prefix="${1:?usage: scripts/install-capi.sh PREFIX [--from DIR]}"
from=""
if [ "${2:-}" = "--from" ]; then
    from="${3:?--from needs a directory}"
else
    cargo build --release -p ptx-opt-capi --manifest-path "$root/Cargo.toml"
    from="${CARGO_TARGET_DIR:-$root/target}/release"
fi

version="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$root/Cargo.toml" | head -n 1)"
major="${version%%.*}"
minor="$(echo "$version" | cut -d. -f2)"
if [ "$major" = "0" ]; then soname="libptx_opt.so.0.$minor"; else soname="libptx_opt.so.$major"; fi

mkdir -p "$prefix/lib/pkgconfig" "$prefix/include"
prefix="$(cd "$prefix" && pwd)"
install -m 755 "$from/libptx_opt.so" "$prefix/lib/libptx_opt.so.$version"
ln -sf "libptx_opt.so.$version" "$prefix/lib/$soname"
ln -sf "$soname" "$prefix/lib/libptx_opt.so"
install -m 644 "$from/libptx_opt.a" "$prefix/lib/libptx_opt.a"
install -m 644 "$root/crates/ptx-opt-capi/include/ptx_opt.h" "$prefix/include/ptx_opt.h"
sed -e "s|@PREFIX@|$prefix|" -e "s|@VERSION@|$version|" "$root/crates/ptx-opt-capi/ptx_opt.pc.in" \
    > "$prefix/lib/pkgconfig/ptx_opt.pc"
echo "installed ptx-opt $version C library under $prefix"
