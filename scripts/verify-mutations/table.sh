#!/usr/bin/env bash
# Prints the verify-vs-ptxas table of the mutation set (markdown, for the README):
# per kind, how many mutants ptxas rejects, how many the parser or `verify` rejects,
# and how many of ptxas's rejections we catch (anywhere, and on the line ptxas names).
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo test -q -p ptx-verify --test verify verify_mutations_against_ptxas -- --nocapture 2>/dev/null \
    | sed -n '/^verify against/,/^| all/p'
