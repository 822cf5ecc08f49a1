#!/usr/bin/env bash
# Builds release and prints the benchmark table (see BENCHMARKS.md).
# Needs jq (the seed-style anchor) and GNU time (peak RSS). BENCH_QUICK=1 for a fast smoke run.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v jq >/dev/null || { echo "benches/run.sh: jq is needed for the seed-style anchor" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "benches/run.sh: GNU time (/usr/bin/time, Debian package time) is needed for peak RSS" >&2; exit 2; }
# The hooks are measured on the binary users install (a static PIE on Linux/glibc).
AGENTGUARD_BENCH_BIN=$(scripts/build-release.sh)
export AGENTGUARD_BENCH_BIN
cargo bench --quiet --bench hooks
