#!/usr/bin/env bash
# Builds release and prints the benchmark table (see BENCHMARKS.md).
# Needs jq (the seed-style anchor) and GNU time (peak RSS). BENCH_QUICK=1 for a fast smoke run.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v jq >/dev/null || { echo "benches/run.sh: jq is needed for the seed-style anchor" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "benches/run.sh: GNU time (/usr/bin/time, Debian package time) is needed for peak RSS" >&2; exit 2; }
# The hooks are measured on the binary users install (static on Linux/glibc), as installed: a
# copy. The linker's own output file costs about 0.5 ms more per exec than a copy of the same
# bytes (measured on this machine: its page-cache pages are laid out differently), and no user
# runs that file.
built=$(scripts/build-release.sh)
installed=target/bench-bin
mkdir -p "$installed"
install -m 755 "$built" "$installed/agentguard"
AGENTGUARD_BENCH_BIN="$PWD/$installed/agentguard"
export AGENTGUARD_BENCH_BIN
cargo bench --quiet --bench hooks
