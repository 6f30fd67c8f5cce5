#!/usr/bin/env bash
# Non-NOP SASS instruction counts before/after -O2 (or --passes a,b) for every public corpus
# kernel and pass case; exits 1 if any kernel got longer. --markdown for the README table.
# Usage: scripts/sass-report.sh [--markdown] [--passes a,b] [PATH...]
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo run --release -q -p ptx-opt --example sass_report -- "$@"
